# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/chrony.sh"
