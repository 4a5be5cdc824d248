# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/client.sh"
