# replay-deleg server: knfsd, an export reset between the replays.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
lab_server_start rp_populate
rp_serve_resets
