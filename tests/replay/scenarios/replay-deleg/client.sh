# replay-deleg client: no kernel mount; nfsrdma-replay replays the two
# delegation captures on a fresh export each time (deleg/recalled and
# deleg/kept made on the server, as in the captures).
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
lab_signal client.steps-done
