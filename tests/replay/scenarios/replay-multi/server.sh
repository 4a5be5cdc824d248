# replay-multi server: knfsd, the export reset (with shared/big, the file
# multi-client.pcap's parallel readers read: made on its server, never
# created by a client) between the replays.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
lab_server_start rp_populate
rp_serve_resets
