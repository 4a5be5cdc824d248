#!/usr/bin/env bash
# Regenerates the expected output of golden tests after a deliberate change:
#   tests/golden/regen.sh NAME...   (or --all)
# Review the diff before committing: the expected files are the spec.
set -euo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
DISSECT=${DISSECT:-$O/bin/nfsrdma-dissect}
export TZ=UTC LC_ALL=C
[ $# -gt 0 ] || { echo "usage: $0 NAME... | --all" >&2; exit 2; }
while read -r name input expected args; do
	case "$name" in ''|'#'*) continue ;; esac
	[ "$1" = --all ] || printf '%s\n' "$@" | grep -qx "$name" || continue
	[ -r "$input" ] || { echo "$0: $name: $input absent, not regenerated" >&2; exit 1; }
	# shellcheck disable=SC2086
	err="tests/golden/expected/$expected.err"
	rc=0
	"$DISSECT" $args "$input" >"tests/golden/expected/$expected" 2>"$err" || rc=$?
	# the diagnostics (empty too) and the exit status are part of the spec
	echo "$rc" >"tests/golden/expected/$expected.rc"
	echo "regenerated $name -> tests/golden/expected/$expected"
done < tests/golden/TESTLIST
