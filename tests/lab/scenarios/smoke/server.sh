# smoke: knfsd exporting a tmpfs over RDMA (port 20049).
# shellcheck shell=bash
lab_server_start
