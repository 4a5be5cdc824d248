# nfs40: NFSv4.0 over RDMA (SETCLIENTID, OPEN/CLOSE with stateids, no
# sessions): a small directory tree, a 64 KB write and read, rename, remove.
# shellcheck shell=bash
source "$LAB_REPO/tests/lab/scenarios/nfs41/workload.sh"
