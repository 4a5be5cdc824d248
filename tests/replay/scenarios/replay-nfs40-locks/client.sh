# replay-nfs40-locks client: no kernel mount; nfsrdma-replay replays the
# lock capture, on a fresh export each time.  tests/replay/check-nfs40-locks.py
# judges the reports and the capture of the replays.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
CAP=$LAB_REPO/tests/captures/nfs40-locks.pcap
rp_reset
rp_run replay-nfs40-locks "$REPLAY" --target "$S" --asap --allow-mutations --json "$CAP"
rp_reset
# the text report: delegations the target never granted, and why
rp_run replay-nfs40-locks-text "$REPLAY" --target "$S" --asap --allow-mutations "$CAP"
rp_reset
rp_run replay-nfs40-locks-readonly "$REPLAY" --target "$S" --asap --json "$CAP"
rp_reset
# as traced (14 s) against the server's 10 s lease: the client ID lives
# through the trace's gaps by the replay's own RENEWs
rp_run replay-nfs40-locks-renew "$REPLAY" --target "$S" --speed 1 --allow-mutations --json "$CAP"
lab_signal client.steps-done
