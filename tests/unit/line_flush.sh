#!/usr/bin/env bash
# Records reach a pipe as they are decoded, not when the run ends: the
# capture is written into nfsrdma-dissect's stdin and the pipe held open;
# the first line must arrive while it is still open (text, --json, --csv,
# and -l into a file).  Closing line: "line-flush: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
pass=0 fail=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# the first 50 frames: a few RPCs, well under one stdio buffer (4 KiB) in
# every format, so only a per-line flush gets them out before EOF
cap=$work/small.pcap
editcap -r tests/captures/nfs3-symlink.pcap "$cap" 1-50 || { echo "line-flush: editcap failed"; echo "line-flush: 0 passed, 1 failed"; exit 1; }
for args in "" "--json" "--csv" "-V"; do
	rm -f "$work/got"
	# the tool dies of SIGPIPE once the reader is gone: judge by the reader
	# shellcheck disable=SC2086
	(cat "$cap"; sleep 4) | "$BIN" $args - | { read -r -t 3 line && [ -n "$line" ] && touch "$work/got"; }
	if [ -e "$work/got" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL line-flush: no line within 3 s on a pipe (args: '$args')"
	fi
done
# -l forces it for a regular file too
(cat "$cap"; sleep 4) | "$BIN" -l - >"$work/out" &
sleep 2
if [ -s "$work/out" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL line-flush: -l into a file: nothing after 2 s"; fi
wait
echo "line-flush: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
