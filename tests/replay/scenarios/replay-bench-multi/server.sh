# replay-bench-multi server: knfsd; the export reset between the runs
# (shared/big for the single replay, replay-g1..8 for the groups).
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
lab_server_start rp_populate
rp_serve_resets
