# replay-floor server: knfsd; the export reset before the replay.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
lab_server_start rp_populate
rp_serve_resets
