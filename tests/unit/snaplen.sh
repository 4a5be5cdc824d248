#!/usr/bin/env bash
# A snap length that cuts RPC-over-RDMA/RPC headers is said once per run,
# at the end, by every tool that reads the capture: nfsrdma-dissect,
# nfsrdmad and nfsrdma-top name the same counts in one line; no
# diagnostic per cut packet; nothing is said when the headers are whole
# (the same capture uncut, or cut at 512 bytes).
# Inputs: tests/gen/out/dmg-snap128.pcap (tests/gen/damaged.py) and the
# frozen lab capture it was cut from.
# Closing line: "snaplen: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
B=${O:-build}/bin
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL snaplen: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
CUT=tests/gen/out/dmg-snap128.pcap
WHOLE=tests/gen/src/nfs3-symlink.pcap
NOTE='capture snap length cuts RPC-over-RDMA/RPC headers'

"$B/nfsrdma-dissect" -q "$CUT" 2>"$work/dissect.err" >/dev/null
[ "$(grep -c "$NOTE" "$work/dissect.err")" = 1 ] && ok || bad "nfsrdma-dissect: not one note: $(cat "$work/dissect.err")"
# the note is the last line: after everything else the run said
tail -1 "$work/dissect.err" | grep -q "$NOTE" && ok || bad "nfsrdma-dissect: the note is not at the end"
! grep -q 'truncated rpc\|rpcrdma: truncated' "$work/dissect.err" && ok || bad "per-packet truncation lines remain"
counts=$(grep -o '[0-9]* calls and [0-9]* replies' "$work/dissect.err")
[ -n "$counts" ] && [ "$counts" != "0 calls and 0 replies" ] && ok || bad "no counts in: $(cat "$work/dissect.err")"

timeout 30 "$B/nfsrdmad" -s "$CUT" --socket none --metrics none --exit-at-end >/dev/null 2>"$work/daemon.err"
[ "$(grep -c "$NOTE" "$work/daemon.err")" = 1 ] && ok || bad "nfsrdmad: not one note: $(cat "$work/daemon.err")"
grep -q "$counts" "$work/daemon.err" && ok || bad "nfsrdmad counts differ from nfsrdma-dissect ($counts)"

# -b -r may keep reprinting until stopped: SIGTERM ends it like a user would
timeout -s TERM 5 "$B/nfsrdma-top" -b -r "$CUT" >/dev/null 2>"$work/top.err"
[ "$(grep -c "$NOTE" "$work/top.err")" = 1 ] && ok || bad "nfsrdma-top: not one note: $(cat "$work/top.err")"
grep -q "$counts" "$work/top.err" && ok || bad "nfsrdma-top counts differ from nfsrdma-dissect ($counts)"

# headers whole: not a word
python3 tests/gen/damaged.py snap "$WHOLE" "$work/s512.pcap" 512
for f in "$WHOLE" "$work/s512.pcap"; do
	"$B/nfsrdma-dissect" -q "$f" 2>"$work/quiet.err" >/dev/null
	! grep -q "$NOTE" "$work/quiet.err" && ok || bad "$f: note without a cut header"
done
echo "snaplen: $pass passed, $fail failed"
[ $fail -eq 0 ]
