# replay-nfs41-deleg client: no kernel mount; nfsrdma-replay replays the
# delegation capture on a fresh export each time (deleg/recalled and
# deleg/kept made on the server, as in the capture).
# tests/replay/check-nfs41-deleg.py judges the reports and the capture.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
CAP=$LAB_REPO/tests/captures/nfs41-deleg.pcap
rp_reset deleg
rp_run replay-nfs41-deleg "$REPLAY" --target "$S" --asap --json "$CAP"
rp_reset deleg
rp_run replay-nfs41-deleg-text "$REPLAY" --target "$S" --asap "$CAP"
lab_signal client.steps-done
