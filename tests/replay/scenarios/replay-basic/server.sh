# replay-basic server: knfsd with a populated export; resets it between
# replays when the client asks.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
lab_server_start rp_populate
rp_serve_resets
