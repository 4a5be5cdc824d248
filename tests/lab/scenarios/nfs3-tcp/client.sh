# nfs3-tcp: exactly the nfs3-read-write workload, over TCP.
# shellcheck shell=bash source=tests/lab/scenarios/nfs3-read-write/client.sh
source "$LAB_REPO/tests/lab/scenarios/nfs3-read-write/client.sh"
