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
# The writer holds the pipe open until the reader has its line (or gave
# up): only a per-line flush gets a line out before that.  Events, not
# times: the reader's 60 s only catches a hang.
release=$work/release
mkfifo "$release"
for args in "" "--json" "--csv" "-V"; do
	rm -f "$work/got"
	# shellcheck disable=SC2086
	(cat "$cap"; read -r _ <"$release") | "$BIN" $args - |
		{ read -r -t 60 line && [ -n "$line" ] && touch "$work/got"; echo >"$release"; cat >/dev/null; }
	if [ -e "$work/got" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL line-flush: no line while the input was still open (args: '$args')"
	fi
done
# -l forces it for a regular file too: a line in the file while the input
# is still open
(cat "$cap"; read -r _ <"$release") | "$BIN" -l - >"$work/out" &
for ((i = 0; i < 600; i++)); do [ -s "$work/out" ] && break; sleep 0.1; done
if [ -s "$work/out" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL line-flush: -l into a file: nothing while the input was open"; fi
echo >"$release"
wait
echo "line-flush: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
