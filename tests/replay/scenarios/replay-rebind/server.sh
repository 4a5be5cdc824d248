# replay-rebind server: as replay-deleg's: knfsd, an export reset between the replays,
# the --delegations replay, a local write that recalls the delegation the
# replay's client holds (rp_serve_resets, recall.go).  lockd's grace is
# cut to 3 s: knfsd grants no delegation while a lock manager is in grace.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
echo 3 > /proc/sys/fs/nfs/nlm_timeout
echo 1 > /proc/sys/fs/nfs/nlm_grace_period
lab_server_start rp_populate
rp_serve_resets
