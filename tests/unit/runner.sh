#!/usr/bin/env bash
# The tier runner's own rules (tests/run-tiers.sh run_counted): a script
# that ran no assertion fails, SKIP lines are counted and, under CI=true,
# fail unless tests/skips-allowed names them, and a test script that is not
# executable fails instead of being passed over.
set -uo pipefail
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { if [ "$1" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL runner: $2"; fi; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# shellcheck source=../run-tiers.sh
source tests/run-tiers.sh

mk() { printf '#!/bin/sh\n%s\n' "$2" >"$work/$1"; chmod +x "$work/$1"; }
mk none 'echo "did nothing"'
mk zero 'echo "t: 0 passed, 0 failed"'
mk good 'echo "t: 3 passed, 0 failed"'
mk skip 'echo "SKIP: ../shared/x absent"; echo "t: 2 passed, 0 failed, 1 skipped"'
mk skipok 'echo "SKIP: cap.pcap: link type 247 is not Ethernet"; echo "t: 2 passed, 0 failed, 1 skipped"'
mk bad 'echo "t: 1 passed, 2 failed"; exit 1'
printf 'echo "t: 1 passed, 0 failed"\n' >"$work/noexec"

count() {   # CI SCRIPT -> "pass fail skip" after run_counted (or run_script)
	local ci=$1; shift
	tier_pass=0 tier_fail=0 tier_skip=0
	CI=$ci "$@" >"$work/log" 2>&1
	echo "$tier_pass $tier_fail $tier_skip"
}
r=$(count false run_counted "$work/none");  [ "$r" = "0 1 0" ]; ok $? "no closing line: $r, expected 0 1 0"
r=$(count false run_counted "$work/zero");  [ "$r" = "0 1 0" ]; ok $? "0 passed, 0 failed: $r, expected 0 1 0"
r=$(count false run_counted "$work/good");  [ "$r" = "3 0 0" ]; ok $? "3 passed: $r, expected 3 0 0"
r=$(count false run_counted "$work/bad");   [ "$r" = "1 2 0" ]; ok $? "2 failed: $r, expected 1 2 0"
r=$(count false run_counted "$work/skip");  [ "$r" = "2 0 1" ]; ok $? "a skip outside CI: $r, expected 2 0 1"
r=$(count true run_counted "$work/skip");   [ "$r" = "2 1 1" ]; ok $? "an unlisted skip under CI=true: $r, expected 2 1 1"
grep -q 'not in tests/skips-allowed: SKIP: ../shared/x absent' "$work/log"; ok $? "the failing skip is named: $(tail -1 "$work/log")"
r=$(count true run_counted "$work/skipok");  [ "$r" = "2 0 1" ]; ok $? "a listed skip under CI=true: $r, expected 2 0 1"
r=$(count false run_script "$work/noexec"); [ "$r" = "0 1 0" ]; ok $? "a script that is not executable: $r, expected 0 1 0"
# every allowed skip says why
bad_lines=$(grep -vE '^(#|$)' tests/skips-allowed | awk -F'\t' 'NF < 2 || length($2) < 20' | wc -l)
[ "$bad_lines" -eq 0 ]; ok $? "tests/skips-allowed: $bad_lines lines without a reason"
echo "runner: $pass passed, $fail failed"
[ $fail -eq 0 ]
