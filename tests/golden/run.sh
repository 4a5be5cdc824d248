#!/usr/bin/env bash
# Golden tests, tcpdump style: each line of tests/golden/TESTLIST is
#   name  input  expected-output  [args...]
# run as `TZ=UTC nfsrdma-dissect args input` and compared byte for byte with
# tests/golden/expected/<expected-output>, its stderr with
# <expected-output>.err and its exit status with <expected-output>.rc: all
# three are the spec, and a test missing one fails.  Inputs under ../shared/
# are skipped (a SKIP line, counted) when that folder is absent.
# Regenerate one output after a deliberate change: tests/golden/regen.sh NAME
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
DISSECT=${DISSECT:-$O/bin/nfsrdma-dissect}
export TZ=UTC LC_ALL=C
pass=0 fail=0 skip=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

[ -x "$DISSECT" ] || { echo "golden: $DISSECT not built"; echo "golden: 0 passed, 1 failed"; exit 1; }

while read -r name input expected args; do
	case "$name" in ''|'#'*) continue ;; esac
	if [ ! -r "$input" ]; then
		case "$input" in
		../shared/*) echo "SKIP $name: $input absent"; skip=$((skip + 1)); continue ;;
		*) echo "FAIL $name: input $input missing"; fail=$((fail + 1)); continue ;;
		esac
	fi
	# shellcheck disable=SC2086  # args are a word list by design
	"$DISSECT" $args "$input" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	exp=tests/golden/expected/$expected
	if ! [ -f "$exp.rc" ] || ! [ -f "$exp.err" ]; then
		echo "FAIL $name: $exp.rc or $exp.err missing (tests/golden/regen.sh $name writes them)"
		fail=$((fail + 1)); continue
	fi
	want_rc=$(cat "$exp.rc")
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL $name: exit $rc (expected $want_rc): $(head -1 "$work/$name.err")"; fail=$((fail + 1)); continue
	fi
	if ! cmp -s "$work/$name.err" "$exp.err"; then
		echo "FAIL $name: diagnostics differ:"
		diff -u "$exp.err" "$work/$name.err" | head -20
		fail=$((fail + 1))
	elif ! [ -f "tests/golden/expected/$expected" ] ||
	     { ! [ -s "tests/golden/expected/$expected" ] && ! [ -s "tests/golden/expected/$expected.err" ]; }; then
		# An empty stdout is only a spec when the diagnostics file says something.
		echo "FAIL $name: expected output tests/golden/expected/$expected missing or empty"
		fail=$((fail + 1))
	elif cmp -s "$work/$name.out" "tests/golden/expected/$expected"; then
		pass=$((pass + 1))
	else
		echo "FAIL $name: output differs:"
		diff -u "tests/golden/expected/$expected" "$work/$name.out" | head -20
		fail=$((fail + 1))
	fi
done < tests/golden/TESTLIST

echo "golden: $pass passed, $fail failed${skip:+, $skip skipped}"
[ $fail -eq 0 ]
