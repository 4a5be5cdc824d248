#!/usr/bin/env bash
# Bad-input corpus of the upper layers (tests/badinput/<layer>/NAME.pcap,
# built by tests/badinput/mkcaps.py): nfsrdma-dissect must print exactly
# the one expected error line (NAME.expected, FILE = the capture path),
# keep going, and exit 0.  Closing line: "badinput: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
pass=0 fail=0
for exp in tests/badinput/*/*.expected; do
	[ -e "$exp" ] || continue
	pcap=${exp%.expected}.pcap
	want=$(sed "s|FILE|$pcap|" "$exp")
	got=$("$BIN" "$pcap" 2>&1 >/dev/null | head -n1)
	"$BIN" -q "$pcap" >/dev/null 2>&1
	rc=$?
	if [ "$got" = "$want" ] && [ $rc -eq 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL badinput: $pcap (exit $rc)"
		echo "  want: $want"
		echo "  got:  $got"
	fi
done
# the well-formed sample: four RPCs, no error
if [ -e tests/badinput/ok/nfs3-chunks.pcap ]; then
	n=$("$BIN" tests/badinput/ok/nfs3-chunks.pcap 2>/dev/null | grep -c ' -> ')
	err=$("$BIN" tests/badinput/ok/nfs3-chunks.pcap 2>&1 >/dev/null | wc -l)
	if [ "$n" -eq 4 ] && [ "$err" -eq 0 ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL badinput: ok/nfs3-chunks.pcap: $n RPCs, $err error lines"; fi
fi
echo "badinput: $pass passed, $fail failed"
[ $fail -eq 0 ]
