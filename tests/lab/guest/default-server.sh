# Default server.sh for scenarios that have none: start knfsd (RDMA on
# 20049 plus TCP on 2049) exporting a tmpfs, and signal server.ready.
# stage2.sh then keeps the server up until the client is done.
# shellcheck shell=bash
lab_server_start
