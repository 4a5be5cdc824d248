# nfs41: NFSv4.1 over RDMA (EXCHANGE_ID, CREATE_SESSION, SEQUENCE in every
# COMPOUND, RECLAIM_COMPLETE, DESTROY_SESSION at unmount).
# shellcheck shell=bash
source "$LAB_REPO/tests/lab/scenarios/nfs41/workload.sh"
