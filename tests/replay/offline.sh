#!/usr/bin/env bash
# nfsrdma-replay without a target (golden tier: needs tshark, no lab):
#  - --dry-run of every lab capture lists the calls it would replay: the
#    XIDs of the NFS-family calls tshark decodes over RDMA, each once
#    (retransmits replayed once); where tshark cannot decode a call's RPC
#    header (a capture that starts mid-connection) the extra XIDs must
#    still be RPC-over-RDMA messages tshark saw; a capture with no such
#    call is refused with exit 3;
#  - --dry-run --json is JSON Lines (docs/replay.md): a "trace" line, one
#    "call" line per call of the text listing (same XIDs, same order, same
#    MUTATION marks) and a "dry_run" line with the text's totals;
#  - every call of the listing (text and --json) has the name
#    nfsrdma-dissect gives the same XID ("NFSv4.1 LOOKUP_ROOT", "NFSv3 READ");
#  - the NFSv4 RENAME and REMOVE lines of nfs40.pcap carry the names their
#    ops carry (tshark's nfs.pathname.component of the same call);
#  - bad arguments (replay and --generate): exit 2 (bad usage, as in every
#    tool) or 1 (set-up: what the trace or target refuses, could not do the
#    job as in every tool) and one line on
#    stderr naming what is wrong, nothing sent (no --target given, or a
#    target no one listens on);
#  - --help lists the options from the option table;
#  - a capture cut of its NFSv4 clients' set-up (cut-setup.py) makes each
#    of them need a session (client ID) of the replay's own, the whole
#    capture none;
#  - bench/sleep-floor: its JSON counts the schedule's times, bad usage
#    exits 2, a missing capture 1 with one line.
# Ends with 'replay-offline: N passed, N failed'.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
O=${O:-build}
R=$O/bin/nfsrdma-replay
P=0 F=0
ok() { echo "ok   $*"; P=$((P + 1)); }
bad() { echo "FAIL $*"; F=$((F + 1)); }
[ -x "$R" ] || { echo "replay-offline: $R missing (make first)"; echo "replay-offline: 0 passed, 1 failed"; exit 1; }
command -v tshark >/dev/null || { echo "replay-offline: tshark missing"; echo "replay-offline: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cap in tests/captures/*.pcap; do
    n=${cap##*/}
    "$R" --dry-run "$cap" >"$tmp/dry" 2>"$tmp/err"
    rc=$?
    sed -n 's/^ *[0-9]* xid \(0x[0-9a-f]*\) .*/\1/p' "$tmp/dry" | sort -u >"$tmp/dry.x"
    # calls the client made (callback programs are the server's calls):
    # over RDMA, and NFS / NFSACL over TCP or UDP (a TCP trace replayed
    # over RDMA; the mount's rpcbind and MOUNT calls are not replayed)
    tshark -r "$cap" --disable-protocol tls -Y "rpc.msgtyp == 0 && rpc.program < 0x40000000 && (infiniband ||
        (!infiniband && (tcp || udp) && (rpc.program == 100003 || rpc.program == 100227)))" \
        -T fields -e rpc.xid 2>/dev/null | sort -u >"$tmp/ts.x"
    tshark -r "$cap" -Y "rpcordma" -T fields -e rpcordma.xid 2>/dev/null | tr ',' '\n' | sort -u >"$tmp/rdma.x"
    if [ ! -s "$tmp/ts.x" ]; then
        if [ "$rc" = 3 ] && grep -q "$cap: no NFS calls" "$tmp/err"; then
            ok "$n: no RPC call over RDMA (tshark): refused, exit 3"
        else
            bad "$n: no RPC call over RDMA (tshark), yet exit $rc: $(head -c 200 "$tmp/err")"
        fi
        continue
    fi
    "$R" --dry-run --json "$cap" >"$tmp/dry.json" 2>/dev/null
    if why=$(python3 - "$tmp/dry" "$tmp/dry.json" 2>/dev/null <<'PY'
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]   # raises on a line that is not JSON
calls = [o for o in objs if o.get("type") == "call"]
want = [(m.group(1), "MUTATION" in l) for l in text for m in [re.match(r" *[0-9]+ xid (0x[0-9a-f]{8}) ", l)] if m]
got = [(o["xid"], o.get("mutation", False)) for o in calls]
tot = re.search(r"dry run: (\d+) replayable calls, (\d+) of them change state.*?, (\d+) unsupported, (\d+) trace retransmits", text[-1])
end = objs[-1]
problems = []
if [o["type"] for o in objs] != ["trace"] + ["call"] * len(calls) + ["dry_run"]:
    problems.append("line types %s" % sorted(set(o.get("type") for o in objs)))
if objs[0].get("calls") != len(calls):
    problems.append("trace.calls %s, %d call lines" % (objs[0].get("calls"), len(calls)))
if got != want:
    problems.append("calls differ from the text listing (%d vs %d)" % (len(got), len(want)))
if not tot or [end.get(k) for k in ("replayable", "mutations", "unsupported", "trace_retransmits")] != [int(x) for x in tot.groups()]:
    problems.append("totals %r vs %r" % (end, text[-1]))
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
    ); then
        ok "$n: --dry-run --json: $(($(wc -l <"$tmp/dry.json") - 2)) call lines, the text listing's calls and totals"
    else
        bad "$n: --dry-run --json: ${why:-not JSON Lines}"
    fi
    "$O/bin/nfsrdma-dissect" --json "$cap" >"$tmp/rec.json" 2>/dev/null
    if why=$(python3 - "$tmp/dry" "$tmp/dry.json" "$tmp/rec.json" 2>&1 <<'PY'
import json, re, sys
text = [m.groups() for l in open(sys.argv[1]) for m in [re.match(r" *[0-9]+ xid (0x[0-9a-f]{8}) (\S+ \S+) ", l)] if m]
calls = [o for l in open(sys.argv[2]) for o in [json.loads(l)] if o["type"] == "call"]
names = {}
for l in open(sys.argv[3]):
    try:
        r = json.loads(l)
    except ValueError:
        continue
    if "frame_call" in r:
        names[(r["xid"], r["frame_call"])] = r["program"] + " " + r["procedure"]
bad = []
for (xid, tname), o in zip(text, calls):
    want = names.get((o["xid"], o["frame"]), "no record")
    if tname != want or o["op"] != want:
        bad.append("%s: %s / %s, dissect %s" % (xid, tname, o["op"], want))
if not calls or len(text) != len(calls):
    bad.append("%d text lines, %d JSON calls" % (len(text), len(calls)))
print("; ".join(bad[:3]) if bad else len(calls))
sys.exit(1 if bad else 0)
PY
    ); then
        ok "$n: the $why calls listed are named as nfsrdma-dissect names them (text and --json)"
    else
        bad "$n: names differ from nfsrdma-dissect's: $why"
    fi
    # NFS over TCP/UDP: every call, in the capture's order, with tshark's
    # procedure (RFC 1813's numbers for NFSv3, NFSACL's for v3)
    tshark -r "$cap" --disable-protocol tls -Y "rpc.msgtyp == 0 && !infiniband && (tcp || udp) &&
        (rpc.program == 100003 || rpc.program == 100227)" -T fields -E occurrence=f \
        -e frame.number -e rpc.xid -e rpc.program -e rpc.procedure 2>/dev/null >"$tmp/ts.tcp"
    if [ -s "$tmp/ts.tcp" ]; then
        if why=$(python3 - "$tmp/ts.tcp" "$tmp/dry.json" <<'PY'
import json, sys
NFS3 = "NULL GETATTR SETATTR LOOKUP ACCESS READLINK READ WRITE CREATE MKDIR SYMLINK MKNOD REMOVE RMDIR RENAME LINK READDIR READDIRPLUS FSSTAT FSINFO PATHCONF COMMIT".split()
ACL3 = "NULL GETACL SETACL".split()
want, seen = [], set()
for l in open(sys.argv[1]):
    fr, xid, prog, proc = l.split("\t")[:4]
    if xid in seen:
        continue   # a retransmit: replayed once
    seen.add(xid)
    names = NFS3 if prog == "100003" else ACL3
    want.append((xid, ("NFSv3 " if prog == "100003" else "NFSACLv3 ") + names[int(proc)]))
got = [(o["xid"], o["op"]) for l in open(sys.argv[2]) for o in [json.loads(l)] if o["type"] == "call"]
if got != want:
    print("first difference at %s: %s vs tshark %s" % (next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want))), got[:1], want[:1]))
    sys.exit(1)
print(len(got))
PY
        ); then
            ok "$n: --dry-run replays the $why NFS calls over TCP/UDP in order, tshark's procedures"
        else
            bad "$n: --dry-run of the NFS calls over TCP/UDP: $why"
        fi
    fi
    missing=$(comm -13 "$tmp/dry.x" "$tmp/ts.x" | head -3 | tr '\n' ' ')
    extra=$(comm -23 "$tmp/dry.x" "$tmp/ts.x")
    unknown=$(comm -23 <(printf '%s\n' "$extra" | sed '/^$/d') "$tmp/rdma.x" | head -3 | tr '\n' ' ')
    if [ "$rc" = 0 ] && [ -z "$missing" ] && [ -z "$unknown" ]; then
        ok "$n: --dry-run lists the $(wc -l <"$tmp/ts.x") calls tshark decodes$([ -n "$extra" ] && echo ", and $(wc -l <<<"$extra") it sees only as RPC-over-RDMA messages")"
    else
        bad "$n: --dry-run exit $rc; calls tshark has that it lacks: $missing; XIDs not on the wire: $unknown"
    fi
done

# Every traced client is its own replay client, with its own minor
# version (issue 20): each call's client address, NFS version and minor
# version as tshark decodes the same XID; the clients the lab scenarios
# ran (tests/lab/scenarios/multi-client, mount-sequence); none unsupported.
for spec in "multi-client:10.9.0.2 NFSv4.1,10.9.0.3 NFSv3,10.9.0.4 NFSv4.2,10.9.0.5 NFSv4.1" \
            "mount-sequence:10.9.0.2 NFSv4.1,10.9.0.2 NFSv4.2,10.9.0.2 NFSv3"; do
    cn=${spec%%:*} cap=tests/captures/${spec%%:*}.pcap
    "$R" --dry-run --json "$cap" >"$tmp/cl.json" 2>/dev/null
    crc=$?
    tshark -r "$cap" -Y "infiniband && rpc.msgtyp == 0 && rpc.program == 100003" -T fields \
        -e rpc.xid -e ip.src -e rpc.programversion -e nfs.minorversion 2>/dev/null >"$tmp/cl.ts"
    if why=$(python3 - "$tmp/cl.json" "$tmp/cl.ts" "${spec#*:}" "$crc" 2>&1 <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
want_clients = sys.argv[3].split(",")
ts = {}
for l in open(sys.argv[2]):
    f = l.rstrip("\n").split("\t")
    if len(f) < 3 or "," in f[0]:
        continue          # several RPCs in one frame: not one call's
    ts[f[0]] = (f[1], int(f[2].split(",")[0]), f[3].split(",")[0] if len(f) > 3 and f[3] else "")
end = objs[-1]
cl = {c["client"]: c for c in end.get("clients", [])}
bad, checked = [], 0
if sys.argv[4] != "0":
    bad.append("exit %s" % sys.argv[4])
if end.get("unsupported") != 0:
    bad.append("%s unsupported" % end.get("unsupported"))
if [cl[k]["label"] for k in sorted(cl)] != want_clients:
    bad.append("clients %r, the scenario ran %r" % ([cl[k]["label"] for k in sorted(cl)], want_clients))
for o in objs:
    if o["type"] != "call" or o["xid"] not in ts:
        continue
    src, vers, minor = ts[o["xid"]]
    c = cl.get(o.get("client"), {})
    if not o.get("supported"):
        bad.append("%s unsupported" % o["xid"])
    want = "%s NFSv%s" % (src, "3" if vers == 3 else "4." + (minor or str(c.get("minor"))))
    if c.get("label") != want:
        bad.append("%s %s: client %r, tshark %s" % (o["xid"], o["op"], c.get("label"), want))
    checked += 1
if checked < 50:
    bad.append("only %d calls checked" % checked)
# cross-client order (the scenario's): c2 (NFSv3) reads and removes what
# c1 (NFSv4.1) wrote and renamed: each such call waits for a change of
# c1's; the parallel readers c3 and c4 wait for nothing of each other
calls = {o["n"]: o for o in objs if o["type"] == "call"}
by_label = {c["label"]: k for k, c in cl.items()}
held = 0
for o in calls.values():
    after = calls.get(o.get("after"))
    if o.get("client") == by_label.get("10.9.0.3 NFSv3") and o["op"] in ("NFSv3 READ", "NFSv3 REMOVE"):
        held += 1
        if not after or after["client"] != by_label.get("10.9.0.2 NFSv4.1") or not after["mutation"]:
            bad.append("%s %s waits for %r, not a change of c1's" % (o["xid"], o["op"], after and after["op"]))
    readers = {by_label.get("10.9.0.4 NFSv4.2"), by_label.get("10.9.0.5 NFSv4.1")}
    if after and o["client"] in readers and after["client"] in readers and o["op"].endswith(" READ"):
        bad.append("%s %s of a parallel reader waits for the other reader" % (o["xid"], o["op"]))
if "10.9.0.3 NFSv3" in want_clients and held < 4:
    bad.append("only %d reads/removes of c2 seen" % held)
print("; ".join(bad[:4]) if bad else "%d calls in %d clients" % (checked, len(cl)))
sys.exit(1 if bad else 0)
PY
    ); then
        ok "$cn: --dry-run: $why, each call's client address, version and minor version as tshark decodes them; none unsupported, exit 0; cross-client waits as the scenario ordered them"
    else
        bad "$cn: --dry-run clients: $why"
    fi
done

# NFSv4 naming ops show their names (tshark decodes them independently)
c40=tests/captures/nfs40.pcap
"$R" --dry-run "$c40" >"$tmp/dry" 2>/dev/null
"$R" --dry-run --json "$c40" >"$tmp/dry.json" 2>/dev/null
tshark -r "$c40" -Y "rpc.msgtyp == 0 && nfs" -T fields -E aggregator='|' \
    -e rpc.xid -e nfs.pathname.component 2>/dev/null >"$tmp/ts.names"
if why=$(python3 - "$tmp/dry" "$tmp/dry.json" "$tmp/ts.names" 2>&1 <<'PY'
import json, re, sys
ts = {}
for l in open(sys.argv[3]):
    f = l.rstrip("\n").split("\t")
    if len(f) == 2:
        ts[f[0]] = f[1].split("|") if f[1] else []
seen, bad = 0, []
text = {m.group(1): m.group(2) for l in open(sys.argv[1])
        for m in [re.match(r" *[0-9]+ xid (0x[0-9a-f]{8}) NFSv4\.0 (?:RENAME|REMOVE) +\[[^]]*\](.*?) status ", l)] if m}
for l in open(sys.argv[2]):
    o = json.loads(l)
    if o["type"] != "call" or o["op"] not in ("NFSv4.0 RENAME", "NFSv4.0 REMOVE"):
        continue
    seen += 1
    want = ts.get(o["xid"], ["(no tshark decode)"])
    shown = " names " if len(want) > 1 else " name "
    shown += " ".join('"%s"' % w for w in want)
    if o.get("names") != want or text.get(o["xid"]) != shown:
        bad.append("%s %s: %r / %r, tshark %r" % (o["xid"], o["op"], text.get(o["xid"]), o.get("names"), want))
if seen < 2 or not any(o for o in text):
    bad.append("%d RENAME/REMOVE calls" % seen)
print("; ".join(bad[:3]) if bad else seen)
sys.exit(1 if bad else 0)
PY
); then
    ok "nfs40.pcap: the $why NFSv4 RENAME/REMOVE lines carry their names, as tshark decodes them (text and --json)"
else
    bad "nfs40.pcap: NFSv4 RENAME/REMOVE names: $why"
fi

# A call that cannot be replayed fails the dry run: a capture made here
# (NFS over TCP, SYN first) of an NFSv4 NULL and an NFSv4 call of
# procedure 2, which NFSv4 does not have (RFC 7530 16: NULL and COMPOUND),
# each with its reply (the second PROC_UNAVAIL).
python3 - "$tmp/unsup.pcap" <<'PY'
import struct, sys
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def frame(src, dst, sp, dp, seq, ack, flags, data=b""):
    tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0) + data
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + tcp
def rm(body):   # record mark: the last (only) fragment
    return struct.pack("!I", 0x80000000 | len(body)) + body
def call(xid, proc):
    return rm(struct.pack("!IIIIII", xid, 0, 2, 100003, 4, proc) + struct.pack("!IIII", 0, 0, 0, 0))
def reply(xid, accept):
    return rm(struct.pack("!IIIIII", xid, 1, 0, 0, 0, accept))
c, s_ = bytes([10, 9, 0, 2]), bytes([10, 9, 0, 1])
cs, ss = 1000, 5000
pk = [frame(c, s_, 800, 2049, cs, 0, 0x02), frame(s_, c, 2049, 800, ss, cs + 1, 0x12),
      frame(c, s_, 800, 2049, cs + 1, ss + 1, 0x10)]
cs, ss = cs + 1, ss + 1
for xid, proc, acc in ((0x1001, 0, 0), (0x1002, 2, 3)):
    d = call(xid, proc)
    pk.append(frame(c, s_, 800, 2049, cs, ss, 0x18, d)); cs += len(d)
    d = reply(xid, acc)
    pk.append(frame(s_, c, 2049, 800, ss, cs, 0x18, d)); ss += len(d)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, p in enumerate(pk):
        f.write(struct.pack("<IIII", 1700000000, i * 1000, len(p), len(p)) + p)
PY
"$R" --dry-run "$tmp/unsup.pcap" >"$tmp/u.txt" 2>"$tmp/u.err"
rc=$?
"$R" --dry-run --json "$tmp/unsup.pcap" >"$tmp/u.json" 2>/dev/null
jrc=$?
if [ "$rc" = 1 ] && [ "$jrc" = 1 ] && grep -q "0x00001002 .*unsupported" "$tmp/u.txt" &&
    grep -q "dry run: 1 replayable calls, 0 of them change state (need --allow-mutations), 1 unsupported" "$tmp/u.txt" &&
    python3 -c 'import json,sys; o=[json.loads(l) for l in open(sys.argv[1])]; e=o[-1]; c=[x for x in o if x.get("type")=="call"]
sys.exit(0 if e.get("unsupported")==1 and e.get("replayable")==1 and [x["supported"] for x in c]==[True,False] else 1)' "$tmp/u.json"; then
    ok "dry run of an NFSv4 procedure 2 call (made capture): unsupported, exit 1 (text and --json)"
else
    bad "dry run of an NFSv4 procedure 2 call: exit $rc / $jrc: $(tail -n 2 "$tmp/u.txt") $(head -c 200 "$tmp/u.err")"
fi
# with --allow-mutations the closing line says the changes would be sent,
# not that the option is needed
"$R" --dry-run --allow-mutations tests/captures/multi-client.pcap >"$tmp/m.txt" 2>/dev/null
if tail -n 1 "$tmp/m.txt" | grep -Eq "dry run: [0-9]+ replayable calls, [1-9][0-9]* of them change state \(--allow-mutations: sent\)"; then
    ok "dry run --allow-mutations: the changes would be sent, said so"
else
    bad "dry run --allow-mutations: $(tail -n 1 "$tmp/m.txt")"
fi
# and the catalogue's NFS-over-TCP capture has none: exit 0
if "$R" --dry-run tests/captures/nfs3-tcp.pcap >"$tmp/t.txt" 2>&1 && grep -q ", 0 unsupported," "$tmp/t.txt"; then
    ok "dry run of nfs3-tcp.pcap (NFSv3 over TCP): nothing unsupported, exit 0"
else
    bad "dry run of nfs3-tcp.pcap: $(tail -n 1 "$tmp/t.txt")"
fi

# expect_err NAME STATUS REGEX ARGS...: exit STATUS and one stderr line matching REGEX
expect_err() {
    local name=$1 want=$2 re=$3
    shift 3
    timeout 20 "$R" "$@" >"$tmp/o" 2>"$tmp/e"
    local rc=$? lines
    lines=$(wc -l <"$tmp/e")
    if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -Eq -- "$re" "$tmp/e" && [ ! -s "$tmp/o" ]; then
        ok "$name: exit $want, '$(cat "$tmp/e")'"
    else
        bad "$name: exit $rc, $lines stderr line(s): $(head -c 300 "$tmp/e")"
    fi
}
c41=tests/captures/nfs41-deleg.pcap
# 192.0.2.1 (TEST-NET-1): the checks fail before anything is sent there
expect_err "no target" 2 "--target HOST is required" "$c41"
expect_err "missing capture" 1 "/nonexistent/x.pcap: No such file" --target 192.0.2.1 /nonexistent/x.pcap
expect_err "not a capture" 1 "README.md: not a pcap" --target 192.0.2.1 README.md
expect_err "negative speed" 2 "--speed: -1 is out of range" --target 192.0.2.1 --speed -1 "$c41"
expect_err "zero in flight" 2 "--max-inflight: 0 is out of range" --target 192.0.2.1 --max-inflight 0 "$c41"
expect_err "disconnect XID not a number" 2 "--disconnect-after: 'zz' is not a number" \
    --target 192.0.2.1 --disconnect-after zz "$c41"
expect_err "disconnect XID not in the trace" 1 "no call with xid 0x00001234" \
    --target 192.0.2.1 --disconnect-after 0x1234 "$c41"
expect_err "two captures" 2 "one trace file expected" --target 192.0.2.1 "$c41" "$c41"
# --clients N of a capture that changes state needs --allow-mutations
expect_err "--clients 2 of a mutating capture" 4 "changes state on the server; give --allow-mutations" \
    --target 192.0.2.1 --clients 2 tests/captures/multi-client.pcap
# load generation
expect_err "unknown workload" 2 'not "bogus"' --generate bogus --target 192.0.2.1
expect_err "zero transfer size" 2 "--size: 1 \.\. 1M" --generate read --target 192.0.2.1 --size 0
expect_err "bad sweep size" 2 "'zz' is not a size" --generate read --target 192.0.2.1 --sweep 4k,zz
expect_err "unknown NFS version" 2 'not "5"' --generate read --target 192.0.2.1 --vers 5
expect_err "unknown transport" 2 '--proto: rdma or tcp, not "udp"' --generate null --target 192.0.2.1 --proto udp
expect_err "load with a capture" 2 "takes no trace file" --generate null --target 192.0.2.1 "$c41"
# options of the other mode, or that contradict each other: refused, never ignored
expect_err "--asap with --speed 2" 2 "--asap and --speed cannot be combined" --target 192.0.2.1 --speed 2 --asap "$c41"
expect_err "--speed 2 after --asap" 2 "--asap and --speed cannot be combined" --target 192.0.2.1 --asap --speed 2 "$c41"
expect_err "load option in a replay" 2 "--size needs --generate" --target 192.0.2.1 --size 4k "$c41"
expect_err "replay option in load" 2 "--generate and --dry-run cannot be combined" --generate null --target 192.0.2.1 --dry-run
expect_err "--speed in load" 2 "--generate and --speed cannot be combined" --generate null --target 192.0.2.1 --speed 0
expect_err "--count and --duration" 2 "--duration and --count cannot be combined" --generate null --target 192.0.2.1 --count 5 --duration 1
expect_err "--size and --sweep" 2 "--size and --sweep cannot be combined" --generate read --target 192.0.2.1 --size 4k --sweep 4k,8k
# a dry run sends nothing: what shapes only the sending is refused with it
for o in "--speed 2" "--asap" "--realtime" "--clients 2" "--proto tcp" "--port 2049" \
    "--max-inflight 4" "--delegations" "--busy-poll" "--moderate-us 10" "--disconnect-after 0x1" \
    "--reconnect-timeout 5"; do
    # shellcheck disable=SC2086  # the option and its value are words
    expect_err "--dry-run with $o" 2 "--dry-run and ${o%% *} cannot be combined: a dry run sends nothing" --dry-run $o "$c41"
done
expect_err "--plot without --sweep" 2 "--plot needs --sweep" --generate read --target 192.0.2.1 --plot /tmp/nfsrdma-offline-x.svg

"$R" --help >"$tmp/h" 2>&1
rc=$?
opts=$(sed -n 's/^ *\(-., \)\{0,1\}\(--[a-z-]*\).*/\2/p' "$tmp/h" | sort -u | wc -l)
if [ "$rc" = 0 ] && grep -q -- "--disconnect-after XID" "$tmp/h" && grep -q -- "--delegations" "$tmp/h" && [ "$opts" -ge 25 ]; then
    ok "--help: exit 0, $opts options, --disconnect-after and --delegations among them"
else
    bad "--help: exit $rc, $opts options"
fi
# every option the help shows is in the man page
missing=""
while read -r o; do
    grep -qF -- "${o//-/\\-}" docs/man/nfsrdma-replay.1 || missing="$missing $o"
done < <(sed -n 's/^ *\(-., \)\{0,1\}\(--[a-z-]*\).*/\2/p' "$tmp/h")
if [ -z "$missing" ]; then
    ok "man page: every option of --help is documented"
else
    bad "man page lacks:$missing"
fi

# which clients need a session (client ID) of the replay's own, set up
# before the start: none in the lab captures (each holds its clients'
# EXCHANGE_ID / SETCLIENTID); each NFSv4 client once the set-up RPCs are
# cut out (tests/replay/cut-setup.py; which clients are NFSv4 comes from
# the scenario: multi-client's c2 is NFSv3)
own_of() { "$R" --dry-run --json "$1" 2>/dev/null | python3 -c '
import json, sys
d = [json.loads(l) for l in sys.stdin if l.strip()][-1]
print(",".join(str(c.get("own_state_before_start")).lower() for c in d["clients"]))'; }
for c in multi-client:true,false,true,true nfs40-deleg:true; do
    cap=tests/captures/${c%%:*}.pcap want=${c#*:}
    python3 tests/replay/cut-setup.py "$O/bin/nfsrdma-dissect" "$cap" "$tmp/cut.pcap" >"$tmp/cut.txt" 2>&1
    whole=$(own_of "$cap") cut=$(own_of "$tmp/cut.pcap")
    if [ "$cut" = "$want" ] && [ "$whole" = "${want//true/false}" ]; then
        ok "${c%%:*}: own session before the start: none for the whole capture; $cut without the set-up ($(cat "$tmp/cut.txt"))"
    else
        bad "${c%%:*}: own session before the start: whole $whole (want ${want//true/false}), cut $cut (want $want): $(cat "$tmp/cut.txt")"
    fi
done

# a target whose portmapper refuses: one line naming what was asked of
# whom, exit 1 (a set-up failure: could not do the job), nothing on stdout, for a replay and for
# the load generator (both ask the portmapper for MOUNT first)
if (exec 3<>/dev/tcp/127.0.0.1/111) 2>/dev/null; then
    echo "info replay-offline: a portmapper listens on 127.0.0.1:111 here: the refused-portmapper case is not run"
else
    for args in "tests/captures/smoke.pcap" "--generate null --duration 1"; do
        # shellcheck disable=SC2086
        timeout 20 "$R" --target 127.0.0.1 $args >"$tmp/out" 2>"$tmp/err"; rc=$?
        if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
            grep -q 'portmapper on 127.0.0.1 port 111: no MOUNT v3 over TCP (Connection refused)' "$tmp/err"; then
            ok "refused portmapper ($args): one line, exit 1"
        else
            bad "refused portmapper ($args): exit $rc, stderr: $(cat "$tmp/err")"
        fi
    done
fi

# bench/sleep-floor (the paced replay's wait alone, bench/README.md "The
# floor"): one JSON object whose counts are the schedule's; bad usage 2,
# an unreadable capture 1 with one line
SF=$O/bench/sleep-floor
if [ -x "$SF" ]; then
    "$SF" --label unit --rate 1000 --count 25 --repeat 2 >"$tmp/sf.json" 2>"$tmp/sf.err"
    rc=$?
    if [ "$rc" = 0 ] && python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
la, wk = o["lateness"], o["wakeups"]
assert o["label"] == "unit" and o["schedule"] == "rate" and o["times"] == 25 and o["repeat"] == 2, o
assert la["calls"] == 50 and la["p50_ns"] <= la["p99_ns"] <= la["max_ns"], la
assert o["took_ns"] >= 2 * 24 * 1000000, o["took_ns"]   # two passes of 24 ms gaps
assert wk["calls"] <= 50 and o["lateness_over_1ms"] <= 50, o
' "$tmp/sf.json"; then
        ok "sleep-floor: 2 x 25 times at 1000/s, one JSON object with 50 waits"
    else
        bad "sleep-floor --rate 1000 --count 25 --repeat 2: rc $rc, $(head -c 300 "$tmp/sf.json") $(cat "$tmp/sf.err")"
    fi
    for args in "--rate 0 --count 5" "--rate 10" "--capture" "--label a/b --rate 10 --count 1" "--repeat 0 --rate 10 --count 1"; do
        # shellcheck disable=SC2086  # the arguments are words
        "$SF" $args >"$tmp/sf.out" 2>"$tmp/sf.err"
        rc=$?
        if [ "$rc" = 2 ] && [ ! -s "$tmp/sf.out" ] && [ "$(wc -l <"$tmp/sf.err")" = 1 ]; then
            ok "sleep-floor $args: usage, exit 2"
        else
            bad "sleep-floor $args: rc $rc (want 2), stdout $(wc -c <"$tmp/sf.out") bytes"
        fi
    done
    "$SF" --capture "$tmp/none.pcap" >"$tmp/sf.out" 2>"$tmp/sf.err"
    rc=$?
    if [ "$rc" = 1 ] && [ ! -s "$tmp/sf.out" ] && [ "$(wc -l <"$tmp/sf.err")" = 1 ] && grep -q "none.pcap" "$tmp/sf.err"; then
        ok "sleep-floor --capture of a missing file: exit 1, one line naming it"
    else
        bad "sleep-floor --capture missing: rc $rc, $(cat "$tmp/sf.err")"
    fi
else
    bad "sleep-floor: $SF missing (make all)"
fi

echo "replay-offline: $P passed, $F failed"
[ "$F" = 0 ]
