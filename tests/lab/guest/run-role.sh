#!/bin/bash
# tests/lab/guest/run-role.sh SCRIPT — run one scenario script in a guest.
#
# Started by stage2.sh (lab_run_role_script) under `timeout`. Sources the lab
# helpers, then the scenario script with `set -euo pipefail` and xtrace: every
# command it runs is logged with a timestamp to $LAB_OUT/$LAB_ROLE.commands
# (merged into commands.txt by run-scenario).
set -euo pipefail
# shellcheck source=tests/lab/guest/lib.sh
source "$LAB_REPO/tests/lab/guest/lib.sh"
exec 7>>"$LAB_OUT/$LAB_ROLE.commands"
BASH_XTRACEFD=7
PS4='+ ${EPOCHREALTIME} '"$LAB_ROLE"': '
set -x
# shellcheck source=/dev/null
source "$1"
