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
# NAME.paired: how many RPCs must come out with both call and reply (a
# total time), counted from the capture's own bytes by mkcaps.py
for want in tests/badinput/*/*.paired; do
	[ -e "$want" ] || continue
	pcap=${want%.paired}.pcap
	n=$("$BIN" "$pcap" 2>/dev/null | grep -c ' total [0-9]')
	if [ "$n" = "$(cat "$want")" ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL badinput: $pcap: $n RPCs with call and reply, expected $(cat "$want")"; fi
done
# the well-formed sample: four RPCs, no error
if [ -e tests/badinput/ok/nfs3-chunks.pcap ]; then
	n=$("$BIN" tests/badinput/ok/nfs3-chunks.pcap 2>/dev/null | grep -cE '^[0-9:.]+ .* total ')
	err=$("$BIN" tests/badinput/ok/nfs3-chunks.pcap 2>&1 >/dev/null | wc -l)
	if [ "$n" -eq 4 ] && [ "$err" -eq 0 ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL badinput: ok/nfs3-chunks.pcap: $n RPCs, $err error lines"; fi
fi
# The classic-pcap reader of dissect_file() and libpcap (which stdin goes
# through) must agree, output and errors, on damaged and unusual files:
# cut inside a record, cut inside a record header, big-endian, nanosecond.
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work" tests/captures/nfs3-symlink.pcap <<'PY'
import struct, sys
out, src = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
recs, off = [], 24
while off + 16 <= len(data):
    n = struct.unpack_from("<I", data, off + 8)[0]
    recs.append(data[off:off + 16 + n])
    off += 16 + n
open(out + "/cut-record.pcap", "wb").write(data[:24] + b"".join(recs[:50]) + recs[50][:40])
open(out + "/cut-header.pcap", "wb").write(data[:24] + b"".join(recs[:50]) + recs[50][:9])
hdr = struct.unpack("<IHHiIII", data[:24])
be = struct.pack(">IHHiIII", *hdr)
for r in recs:
    be += struct.pack(">IIII", *struct.unpack("<IIII", r[:16])) + r[16:]
open(out + "/big-endian.pcap", "wb").write(be)
ns = struct.pack("<IHHiIII", 0xa1b23c4d, *hdr[1:])
for r in recs:
    s_, u, c, l = struct.unpack("<IIII", r[:16])
    ns += struct.pack("<IIII", s_, u * 1000 + 7, c, l) + r[16:]
open(out + "/nanosecond.pcap", "wb").write(ns)
PY
for f in "$work"/*.pcap; do
	"$BIN" --stats "$f" >"$work/file.out" 2>"$work/file.err"; a=$?
	"$BIN" --stats - <"$f" >"$work/stdin.out" 2>"$work/stdin.err"; b=$?
	sed -i "s|$f|FILE|; s|(stdin)|FILE|" "$work/file.err" "$work/stdin.err"
	if [ $a = $b ] && cmp -s "$work/file.out" "$work/stdin.out" && cmp -s "$work/file.err" "$work/stdin.err" &&
	   [ -s "$work/file.out" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL badinput: ${f##*/}: the file reader and libpcap (stdin) differ (exit $a / $b)"
		diff "$work/file.err" "$work/stdin.err" | head -4
	fi
done
echo "badinput: $pass passed, $fail failed"
[ $fail -eq 0 ]
