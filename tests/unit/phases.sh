#!/usr/bin/env bash
# The latency split partitions the total (docs/record.md), in every output:
# on every lab and public capture, for every record with call and reply,
#  - JSON: the "ns" object holds every phase and total; the phases that
#    happened (non-null) add up to total exactly, and a phase that did not
#    happen is null, never 0;
#  - CSV: the ns_* cells add up to ns_total; empty cells where JSON has null;
#  - --fields nfsrdma.latency.*: the seconds equal JSON's ns, a phase that
#    took no time is 0.000000000 and empty only where JSON has null;
#  - the text line: the phases it shows add up exactly to the total it
#    prints (each boundary rounded to the line's unit, not each phase cut),
#    and "-" stands where JSON has null;
#  - the phase boundaries are the wire's: total = reply_last - call_first;
#  - the same sum on captures with nanosecond times (lab captures made
#    nanosecond pcaps by tests/unit/ns_capture.py: 0-999 ns added to each
#    packet) and on joined lines (nfsrdma-dissect --join of a lab capture
#    with its kernels' traces as probe records, nanosecond times): their
#    fused phases add up to their total, and a pull with no RDMA READ, a
#    push with no RDMA WRITE print "-" as on the wire's line.
# Closing line: "phases: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for c in nfs3-read-write parallel nfs41 nfs3-tcp; do
	python3 tests/unit/ns_capture.py tests/captures/$c.pcap "$TMP/ns-$c.pcap" || exit 1
done
for side in client server; do
	python3 tests/join/trace2records.py $side tests/captures/parallel.truth/$side.trace >"$TMP/parallel-$side.jsonl" || exit 1
done
python3 - "$BIN" "$TMP" <<'PY' || exit 1
import os, re, subprocess, sys
binp, tmp = sys.argv[1], sys.argv[2]
# the split on the line: "[name dur name dur ...]" (a joined line's
# "[client+wire]" before it has no durations)
# (a direction given with its uncertainty: "net_out 9.5ms+/-1.1ms")
D = r"(?:[0-9.]+(?:ns|us|ms|s)(?:\+/-[0-9.]+(?:ns|us|ms|s))?|-)"
SPLIT = r"\[([a-z_+]+ " + D + r"(?: [a-z_+]+ " + D + r")*)\]"
npass = nfail = 0
def ok(c, what):
    global npass, nfail
    if c: npass += 1
    else:
        nfail += 1
        print("FAIL phases:", what)
def ns(s):   # a printed duration, exactly, in ns
    m = re.fullmatch(r"([0-9]+)(?:\.([0-9]{3}))?(ns|us|ms|s)", s)
    u = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}[m.group(3)]
    return int(m.group(1)) * u + (int(m.group(2)) * u // 1000 if m.group(2) else 0)
def sums(lines, what):
    n, bad = 0, []
    for t in lines:
        m, sp = re.search(r" total (\S+)", t), re.search(SPLIT, t)
        if not m or not sp or m.group(1) == "-":
            continue
        parts = sp.group(1).split()
        n += 1
        s = sum(ns(v.split("+/-")[0]) for v in parts[1::2] if v != "-")
        if s != ns(m.group(1)):
            bad.append("%s: phases %d ns, total %s" % (re.search(r"xid (\S+)", t).group(1), s, m.group(1)))
    ok(n > 0 and not bad, "%s: %d of %d text lines whose phases do not add up to the total: %s" %
       (what, len(bad), n, "; ".join(bad[:3])))
    return n
def run(*a):
    return subprocess.run([binp] + list(a), capture_output=True, text=True).stdout.splitlines()
fine = 0
for c in ("nfs3-read-write", "parallel", "nfs41", "nfs3-tcp"):
    cap = os.path.join(tmp, "ns-" + c + ".pcap")
    fine += sum(1 for l in run("--json", cap) if not all(v is None or v % 1000 == 0 for v in __import__("json").loads(l)["ns"].values()))
    sums(run(cap), "ns-" + c)
    sums(run("-V", cap), "ns-" + c + " -V")
ok(fine > 100, "nanosecond captures: %d records with phases not whole microseconds (the case checked)" % fine)
j = run("tests/captures/parallel.pcap", "--join", os.path.join(tmp, "parallel-client.jsonl"),
        "--join", os.path.join(tmp, "parallel-server.jsonl"))
ok(sums(j, "joined parallel") >= 100, "joined lines checked")
rd = [l for l in j if re.search(r" pull (0ns|-) ", l)]
ok(rd and all(" pull - " in l for l in rd if " rd " not in l) and all(" pull - " not in l for l in rd if " rd " in l),
   "joined lines: pull is - exactly where no RDMA READ (no rd): %s" % [l[:60] for l in rd if (" pull - " in l) == (" rd " in l)][:2])
wr = [l for l in j if re.search(r" push (0ns|-) ", l)]
ok(wr and all(" push - " in l for l in wr if " wr " not in l and " rc " not in l),
   "joined lines: push is - where no RDMA WRITE (no wr, no rc)")
# nfsrdma-top -b's slowest RPCs: total and phases to 0.1 us, adding up
top = os.path.join(os.path.dirname(binp), "nfsrdma-top")
rows, bad = 0, []
for c in ("parallel", "nfs3-read-write"):
    out = subprocess.run([top, "-b", "-n", "1", "-d", "5", "-r", os.path.join(tmp, "ns-" + c + ".pcap")],
                         capture_output=True, text=True).stdout.splitlines()
    for l in out[next((i for i, l in enumerate(out) if l.startswith("slowest ")), len(out)) + 2:]:
        m = re.match(r"(0x[0-9a-f]{8}) .* ([0-9]+\.[0-9]) +([-0-9./]+)$", l)
        if not m:
            break
        rows += 1
        tenths = lambda v: int(v.replace(".", ""))
        s = sum(tenths(v) for v in m.group(3).split("/") if v != "-")
        if s != tenths(m.group(2)):
            bad.append("%s: phases %d, total %s" % (m.group(1), s, m.group(2)))
ok(rows >= 10 and not bad, "nfsrdma-top -b, slowest RPCs of nanosecond captures: %d of %d rows do not add up: %s" % (len(bad), rows, bad[:3]))
print("phases-ns: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
exec python3 - "$BIN" tests/captures/*.pcap tests/gen/real/*.pcap ../shared/captures/public/*.pcap <<'PY'
import csv, io, json, os, re, subprocess, sys
binp, caps = sys.argv[1], [c for c in sys.argv[2:] if os.path.exists(c)]
PH = ["call", "queue", "pull", "server", "queue+server", "push", "wait", "reply"]
FIELDS = ",".join("nfsrdma.latency." + k for k in PH + ["total"])
# the split on the line: "[name dur name dur ...]" (a joined line's
# "[client+wire]" before it has no durations)
# (a direction given with its uncertainty: "net_out 9.5ms+/-1.1ms")
D = r"(?:[0-9.]+(?:ns|us|ms|s)(?:\+/-[0-9.]+(?:ns|us|ms|s))?|-)"
SPLIT = r"\[([a-z_+]+ " + D + r"(?: [a-z_+]+ " + D + r")*)\]"
npass = nfail = 0
def ok(c, what):
    global npass, nfail
    if c: npass += 1
    else:
        nfail += 1
        print("FAIL phases:", what)
def dur(s):   # the text line's units
    if s == "-": return None
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", s)
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]
answered = 0
for cap in caps:
    name = os.path.basename(cap)
    js = subprocess.run([binp, "--json", cap], capture_output=True, text=True).stdout.splitlines()
    cs = list(csv.DictReader(io.StringIO(subprocess.run([binp, "--csv", cap], capture_output=True, text=True).stdout)))
    tx = subprocess.run([binp, cap], capture_output=True, text=True).stdout.splitlines()
    fl = list(csv.DictReader(io.StringIO(subprocess.run([binp, "--fields", FIELDS, cap], capture_output=True, text=True).stdout)))
    ok(len(js) == len(cs) == len(tx) == len(fl), "%s: %d JSON, %d CSV, %d text, %d --fields records" % (name, len(js), len(cs), len(tx), len(fl)))
    bad = []
    for j, c, t, f in zip(js, cs, tx, fl):
        r = json.loads(j); ns = r["ns"]; ts = r["ts"]
        if set(ns) != set(PH + ["total"]):
            bad.append("%s keys %s" % (r["xid"], sorted(ns))); continue
        both = ts["call_first"] and ts["reply_last"]
        if both:
            answered += 1
            s = sum(v for k, v in ns.items() if k != "total" and v is not None)
            if ns["total"] is None or s != ns["total"] or ns["total"] != ts["reply_last"] - ts["call_first"]:
                bad.append("%s: phases %d, total %s, wire %d" % (r["xid"], s, ns["total"], ts["reply_last"] - ts["call_first"]))
            if (ns["pull"] is None) == (ns["queue+server"] is None):
                bad.append("%s: either pull (with queue, server) or queue+server" % r["xid"])
        for k in PH + ["total"]:
            cell = c["ns_" + k]
            if (cell == "") != (ns[k] is None) or (cell and int(cell) != ns[k]):
                bad.append("%s: CSV ns_%s '%s' vs JSON %s" % (r["xid"], k, cell, ns[k]))
        for k in PH + ["total"]:
            cell = f["nfsrdma.latency." + k]
            if (cell == "") != (ns[k] is None) or (cell and not re.fullmatch(r"[0-9]+\.[0-9]{9}", cell)) or \
               (cell and int(cell.replace(".", "")) != ns[k]):
                bad.append("%s: --fields nfsrdma.latency.%s '%s' vs JSON %s" % (r["xid"], k, cell, ns[k]))
        m, sp = re.search(r" total (\S+)", t), re.search(SPLIT, t)
        parts = sp.group(1).split() if sp else []
        shown = dict(zip(parts[0::2], parts[1::2]))
        for k, v in shown.items():
            if (v == "-") != (ns[k] is None):
                bad.append("%s: text %s '%s' vs JSON %s" % (r["xid"], k, v, ns[k]))
        if both and m:
            tot = dur(m.group(1)); s = sum(dur(v) or 0 for v in shown.values())
            if round(s) != round(tot):
                bad.append("%s: text phases %.0f vs total %.0f" % (r["xid"], s, tot))
    ok(not bad, "%s: %d record(s) break the partition: %s" % (name, len(bad), "; ".join(bad[:3])))
ok(answered >= 900, "records with call and reply checked: %d" % answered)
print("phases: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
