#!/usr/bin/env bash
# nfsrdma-replay on a capture with no NFS call to replay (nfsrdma-replay(1),
# EXIT STATUS 3): one line on stderr naming the file and what it held
# (packets, RPC-over-RDMA and RPC over TCP/UDP messages, calls of other
# programs, undecodable), nothing on stdout; with --json the same facts as
# one {"type":"no_calls"} object on stdout and nothing else.  The counts
# are checked against the capture as Python reads it:
#   - an empty capture (a pcap header alone);
#   - the rpcbind and MOUNT calls of nfs3-tcp.pcap without its NFS (port
#     2049): every call one of another program, every segment with data
#     one RPC message over TCP;
#   - perftest (an RDMA benchmark: SENDs, no RPC) and an RPC-over-RDMA
#     version 2 capture: undecodable, and why;
#   - without --dry-run the same, before any target is contacted.
# Closing line: "replay-nothing: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
R=${O:-build}/bin/nfsrdma-replay
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL replay-nothing: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
[ -x "$R" ] || { echo "replay-nothing: $R missing (make first)"; echo "replay-nothing: 0 passed, 1 failed"; exit 1; }

# The two test captures, and what each holds: "packets calls segments"
python3 - "$tmp" <<'PY' >"$tmp/truth" || bad "could not write the test captures"
import struct, sys
out = sys.argv[1]
open(out + "/empty.pcap", "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
d = open("tests/captures/nfs3-tcp.pcap", "rb").read()
o, keep, calls, segs = 24, [], 0, 0
while o + 16 <= len(d):
    cl = struct.unpack("<IIII", d[o:o + 16])[2]
    rec, p = d[o:o + 16 + cl], d[o + 16:o + 16 + cl]
    o += 16 + cl
    if p[12:14] != b"\x08\x00" or p[23] != 6:
        continue
    ihl = (p[14] & 15) * 4
    l4 = p[14 + ihl:]
    sport, dport = struct.unpack(">HH", l4[:4])
    if 2049 in (sport, dport):
        continue
    keep.append(rec)
    data = l4[(l4[12] >> 4) * 4:]
    if data:
        segs += 1
        calls += struct.unpack(">I", data[8:12])[0] == 0   # record mark, xid, msg_type
open(out + "/mount-only.pcap", "wb").write(d[:24] + b"".join(keep))
print("mount-only", len(keep), calls, segs)
PY

# run NAME FILE ARGS...: sets rc, out, err
run() {
	local f=$1; shift
	timeout 30 "$R" "$@" "$f" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
}
# one_line FILE: the stderr holds one line, naming FILE, with "no NFS calls found"
one_line() {
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "error: $1: no NFS calls found" "$tmp/err"
}
# json_is KEY=VALUE...: stdout is one JSON object of type no_calls with these values
json_is() {
	python3 - "$tmp/out" "$@" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert o["type"] == "no_calls", o
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    assert str(o[k]) == v, (k, o[k], v)
PY
}

f=$tmp/empty.pcap
run "$f" --dry-run
if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] && one_line "$f" && grep -q 'in 0 packets (the capture is empty)' "$tmp/err"; then ok; else
	bad "empty capture: exit $rc, stderr $(cat "$tmp/err")"; fi
run "$f" --dry-run --json
if [ $rc -eq 3 ] && json_is "trace=$f" packets=0 rpcrdma_v1=0 rpc_tcp_udp=0; then ok; else
	bad "empty capture --json: exit $rc, stdout $(head -c 200 "$tmp/out")"; fi

read -r _ pk calls segs < <(grep '^mount-only ' "$tmp/truth")
f=$tmp/mount-only.pcap
if [ "${calls:-0}" -gt 0 ] && [ "$segs" -gt "$calls" ]; then ok; else bad "mount-only.pcap: no calls to test with ($calls, $segs)"; fi
run "$f" --dry-run
if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] && one_line "$f" &&
	grep -qF "in $pk packets: 0 RPC-over-RDMA version 1 messages, $segs RPC messages over TCP/UDP, $calls calls of other RPC programs, 0 undecodable" "$tmp/err"; then
	ok
else
	bad "rpcbind and MOUNT alone ($pk packets, $segs messages, $calls calls): exit $rc, stderr $(cat "$tmp/err")"
fi
run "$f" --dry-run --json
if [ $rc -eq 3 ] && json_is "trace=$f" "packets=$pk" rpcrdma_v1=0 "rpc_tcp_udp=$segs" "other_program_calls=$calls" undecodable=0; then ok; else
	bad "rpcbind and MOUNT alone --json: exit $rc, stdout $(head -c 300 "$tmp/out")"; fi
# without --dry-run: the same, and no target is contacted (192.0.2.1: TEST-NET-1)
run "$f" --target 192.0.2.1 --json
if [ $rc -eq 3 ] && json_is "packets=$pk" "other_program_calls=$calls" && one_line "$f"; then ok; else
	bad "--target --json on rpcbind and MOUNT alone: exit $rc, stdout $(head -c 200 "$tmp/out"), stderr $(head -c 200 "$tmp/err")"; fi

f=tests/captures/perftest.pcap
pk=$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(); o = 24; n = 0
while o + 16 <= len(d):
    o += 16 + struct.unpack("<IIII", d[o:o + 16])[2]; n += 1
print(n)' "$f")
run "$f" --dry-run
if [ $rc -eq 3 ] && one_line "$f" && grep -qE "in $pk packets: 0 RPC-over-RDMA version 1 messages, 0 RPC messages over TCP/UDP, 0 calls of other RPC programs, [1-9][0-9]* undecodable, [1-9][0-9]* of them RDMA SENDs not RPC-over-RDMA" "$tmp/err"; then
	ok
else
	bad "perftest ($pk packets): exit $rc, stderr $(cat "$tmp/err")"
fi
run "$f" --dry-run --json
if [ $rc -eq 3 ] && json_is "packets=$pk" rpcrdma_v1=0 rpcrdma_v2=0 && python3 -c '
import json, sys
o = json.load(open(sys.argv[1])); sys.exit(0 if 0 < o["not_rpcrdma"] <= o["undecodable"] else 1)' "$tmp/out"; then ok; else
	bad "perftest --json: exit $rc, stdout $(head -c 300 "$tmp/out")"; fi

f=tests/gen/out/xdr-v2-draft07.pcap
if [ -f "$f" ]; then
	run "$f" --dry-run --json
	if [ $rc -eq 3 ] && python3 -c '
import json, sys
o = json.load(open(sys.argv[1])); sys.exit(0 if o["rpcrdma_v2"] > 0 and o["rpcrdma_v2"] == o["undecodable"] and o["rpcrdma_v1"] == 0 else 1)' "$tmp/out" &&
		grep -q 'of them RPC-over-RDMA version 2 (the replay speaks version 1)' "$tmp/err"; then ok; else
		bad "RPC-over-RDMA v2 capture: exit $rc, stdout $(head -c 300 "$tmp/out"), stderr $(cat "$tmp/err")"; fi
else
	bad "$f missing"
fi

echo "replay-nothing: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
