#!/usr/bin/env bash
# nfsrdma-dissect CAPTURE --join FILE where FILE holds wire records too
# (nfsrdma-dissect --json of a capture, like tests/join/fixtures/) warns
# once, naming FILE: the join takes a second wire record of an RPC for a
# duplicate, so every RPC the two share would print "(dup xid)" with no
# other word.  Client probe records beside the capture, or the wire file
# with client records and no capture, are not warned of.  The join's
# report names the vantages it joined, or says it joined none.
# Closing line: "join-vantage: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
D=${O:-build}/bin/nfsrdma-dissect
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL join-vantage: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
CAP=tests/captures/nfs3-read-write.pcap
WIRE=tests/join/fixtures/v3-wire-nfs3-read-write.jsonl
python3 tests/join/trace2records.py client tests/captures/nfs3-read-write.truth/client.trace >"$work/client.jsonl"
WARN='wire records, like the capture'

"$D" -q "$CAP" --join "$WIRE" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 0 ] && ok || bad "capture + wire file: exit $rc"
[ "$(grep -c "$WARN" "$work/err")" = 1 ] && grep "$WARN" "$work/err" | grep -qF -- "--join $WIRE:" && ok ||
	bad "capture + wire file: not one warning naming $WIRE: $(head -c 300 "$work/err")"
# what the warning is about: the join's own count of duplicates
grep -q 'duplicate XIDs [1-9]' "$work/err" && ok || bad "capture + wire file: the join counted no duplicate"

"$D" -q "$CAP" --join "$work/client.jsonl" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 0 ] && ! grep -q "$WARN" "$work/err" && ok || bad "capture + client records: exit $rc or warned"
"$D" -q --join "$WIRE" --join "$work/client.jsonl" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 0 ] && ! grep -q "$WARN" "$work/err" && ok || bad "wire file + client records: exit $rc or warned"
# the join's report names the vantages of what it joined, and says when
# that is nothing (two files without records: exit 3, nothing found)
grep -qE '^join: by vantages: (client|wire|server)' "$work/err" && ok || bad "wire + client: no vantages in the report"
: >"$work/e1.jsonl"
: >"$work/e2.jsonl"
"$D" -q --join "$work/e1.jsonl" --join "$work/e2.jsonl" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 3 ] && grep -qx 'join: by vantages: none (no RPC joined)' "$work/err" && ok ||
	bad "two empty files: exit $rc, $(grep 'by vantages' "$work/err")"
echo "join-vantage: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
