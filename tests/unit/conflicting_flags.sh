#!/usr/bin/env bash
# Conflicting output flags are refused with one line and exit 2, in either
# order, before anything is read; never "last one wins".
# Closing line: "conflicting-flags: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
cap=tests/captures/nfs40.pcap
pass=0 fail=0
while IFS='|' read -r args want; do
	[ -n "$args" ] || continue
	# shellcheck disable=SC2086
	out=$("$BIN" $args "$cap" 2>/tmp/cf.$$); rc=$?
	err=$(cat /tmp/cf.$$)
	if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l </tmp/cf.$$)" -eq 1 ] && grep -q -- "$want" /tmp/cf.$$; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL conflicting-flags: '$args': exit $rc, stderr: $err"
	fi
done <<'EOF_CASES'
--json -V|--json and -V cannot be combined
-V --json|-V and --json cannot be combined
--json --csv|--json and --csv cannot be combined
--csv -V|--csv and -V cannot be combined
--tsv|--tsv needs --fields
--fields default --json|--fields and --json cannot be combined
--csv --fields all|--fields and --csv cannot be combined
EOF_CASES
rm -f /tmp/cf.$$
# the same flag twice is not a conflict
if "$BIN" --json --json "$cap" >/dev/null 2>&1; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL conflicting-flags: --json --json refused"; fi
echo "conflicting-flags: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
