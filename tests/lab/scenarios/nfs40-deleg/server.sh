# nfs40-deleg: the nfs41-deleg server (delegations, a recall by a local write).
# shellcheck shell=bash
source "$LAB_REPO/tests/lab/scenarios/nfs41-deleg/server.sh"
