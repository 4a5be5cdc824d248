#!/usr/bin/env bash
# Every tool's JSON goes through the one writer (src/base/json.h: strings
# escaped one way, numbers, null for what is unknown or not finite): no
# printf-family call in src/, cli/ or bench/ writes a JSON member itself.
# A member written by hand is how two writers came to disagree ("t":null
# fixed twice); this keeps it from coming back.
# Closing line: "one-json-writer: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
pass=0 fail=0
# a member key inside a printf-family format: \"name\": or \"%s\":
pat='(^|[^a-z_])(f?printf|fputs|puts|fwrite)\(.*\\"([A-Za-z0-9_]+|%s)\\":'
hits=$(grep -rnE "$pat" --include='*.c' --include='*.h' src cli bench | grep -v '^src/base/json\.')
if [ -n "$hits" ]; then
	echo "FAIL one-json-writer: JSON written by hand (use the writer, src/base/json.h):"
	printf '%s\n' "$hits" | sed 's/^/  /'
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
# the pattern finds what it is meant to (a test that could not fail is none)
probe='	fprintf(f, "{\"calls\":%u}", n);'
if grep -qE "$pat" <<<"$probe"; then pass=$((pass + 1)); else
	echo "FAIL one-json-writer: the pattern misses a hand-written member"; fail=$((fail + 1)); fi
n=$(grep -rlE 'jw_init\(' --include='*.c' src cli bench | wc -l)
if [ "$n" -ge 10 ]; then pass=$((pass + 1)); else
	echo "FAIL one-json-writer: only $n files start a JSON writer (expected the tools' writers)"; fail=$((fail + 1)); fi
echo "one-json-writer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
