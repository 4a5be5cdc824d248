# replay-nfs40-locks server: knfsd with lockd's grace period cut to 3 s
# (it holds back NFSv4 LOCKs too: see tests/lab/scenarios/nfs40-locks/
# server.sh) and a 10 s NFSv4 lease (the replay at --speed 1, 14 s, must
# RENEW), an export reset between the replays.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
echo 3 > /proc/sys/fs/nfs/nlm_timeout
echo 1 > /proc/sys/fs/nfs/nlm_grace_period
export LAB_NFSD_LEASE=10
lab_server_start rp_populate
rp_serve_resets
