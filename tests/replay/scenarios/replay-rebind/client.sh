# replay-rebind client: the 4.1 delegation capture replayed with
# --delegations at a tenth of its speed (the trace gives its own
# delegation back 0.47 s after the OPEN that got it: 4.7 s here, time for
# a reconnect and a recall), its 5.4 s idle stretch before that cut to
# 1.5 s first (--max-idle: 39 s less a run), one call at a time, the connection dropped
# right after the reply to that OPEN (xid 0xb3be3cc2, "recalled").  The
# server writes to the file once the replay is back on a new connection
# (rp_serve_resets, recall.go.rebind-*): knfsd recalls the delegation,
# which only a connection bound to the back channel can carry.
# tests/replay/check-rebind.py judges the reports and the capture.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
for t in rdma tcp; do
    rp_reset deleg
    lab_signal "recall.go.rebind-$t"
    rp_run "replay-rebind-$t" "$REPLAY" --target "$S" --proto "$t" --speed 0.1 --max-idle 1.5 \
        --max-inflight 1 --delegations --disconnect-after 0xb3be3cc2 --json \
        "$LAB_REPO/tests/captures/nfs41-deleg.pcap"
    lab_wait "recall.done.rebind-$t" 60 || echo "no recall.done.rebind-$t from the server" >&2
done
lab_signal client.steps-done
