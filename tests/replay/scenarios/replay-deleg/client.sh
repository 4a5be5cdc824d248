# replay-deleg client: no kernel mount; nfsrdma-replay replays the two
# delegation captures on a fresh export each time (deleg/recalled and
# deleg/kept made on the server, as in the captures); then the 4.1 one
# with --delegations at a quarter speed, over RDMA and over TCP, and the 4.0
# one with its callback server, while the
# server recalls the delegation on deleg/recalled as soon as the replay's
# client holds it.
# tests/replay/check-deleg.py judges the reports and the capture.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
for v in 41 40; do
    CAP=$LAB_REPO/tests/captures/nfs$v-deleg.pcap
    rp_reset deleg
    rp_run replay-nfs$v-deleg "$REPLAY" --target "$S" --asap --json "$CAP"
    rp_reset deleg
    rp_run replay-nfs$v-deleg-text "$REPLAY" --target "$S" --asap "$CAP"
done
for t in rdma tcp; do
    rp_reset deleg
    lab_signal "recall.go.$t"
    lab_wait "recall.armed.$t" 60 || echo "the server never watched for recall.go.$t" >&2
    # a quarter speed: the replay holds the delegation on deleg/recalled
    # for 4 x the trace's 0.47 s; at half speed a CI run's TCP replay gave
    # it back before the server's watcher (a 20 ms /proc poll and a forked
    # write, under TCG) recalled it.  The trace's idle 5.4 s before it
    # cut to 1.5 s (--max-idle; the recall window is busy, so kept)
    rp_run "replay-nfs41-deleg-cb-$t" "$REPLAY" --target "$S" --proto "$t" --speed 0.25 \
        --max-idle 1.5 --delegations --json "$LAB_REPO/tests/captures/nfs41-deleg.pcap"
    lab_wait "recall.done.$t" 30 || echo "no recall.done.$t from the server" >&2
done
# NFSv4.0: the replay's own callback server (the server connects to it)
rp_reset deleg
# (not waiting for recall.armed here: written to as soon as it is granted,
# the 4.0 delegation was given back by the trace's own DELEGRETURN before
# any CB_RECALL; the loop's pace leaves the replay time to be recalled;
# a quarter speed, as above: at half speed a run's watcher missed it)
lab_signal recall.go.v40
rp_run replay-nfs40-deleg-cb "$REPLAY" --target "$S" --speed 0.25 --max-idle 1.5 --delegations --json \
    "$LAB_REPO/tests/captures/nfs40-deleg.pcap"
lab_wait recall.done.v40 30 || echo "no recall.done.v40 from the server" >&2
lab_signal client.steps-done
