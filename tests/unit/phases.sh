#!/usr/bin/env bash
# The latency split partitions the total (docs/record.md), in every output:
# on every lab and public capture, for every record with call and reply,
#  - JSON: the "ns" object holds every phase and total; the phases that
#    happened (non-null) add up to total exactly, and a phase that did not
#    happen is null, never 0;
#  - CSV: the ns_* cells add up to ns_total; empty cells where JSON has null;
#  - --fields nfsrdma.latency.*: the seconds equal JSON's ns, a phase that
#    took no time is 0.000000000 and empty only where JSON has null;
#  - the text line: the phases it shows add up to its total (to the printed
#    precision), and "-" stands where JSON has null;
#  - the phase boundaries are the wire's: total = reply_last - call_first.
# Closing line: "phases: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
exec python3 - "$BIN" tests/captures/*.pcap tests/gen/real/*.pcap ../shared/captures/public/*.pcap <<'PY'
import csv, io, json, os, re, subprocess, sys
binp, caps = sys.argv[1], [c for c in sys.argv[2:] if os.path.exists(c)]
PH = ["call", "queue", "pull", "server", "queue+server", "push", "wait", "reply"]
FIELDS = ",".join("nfsrdma.latency." + k for k in PH + ["total"])
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
        m = re.search(r" total (\S+) \[([^\]]*)\]", t)
        parts = m.group(2).split() if m else []
        shown = dict(zip(parts[0::2], parts[1::2]))
        for k, v in shown.items():
            if (v == "-") != (ns[k] is None):
                bad.append("%s: text %s '%s' vs JSON %s" % (r["xid"], k, v, ns[k]))
        if both and m:
            tot = dur(m.group(1)); s = sum(dur(v) or 0 for v in shown.values())
            # each printed value is cut to its unit: allow one unit per phase
            if abs(s - tot) > 1e3 * len(shown) + 1e3:
                bad.append("%s: text phases %.0f vs total %.0f" % (r["xid"], s, tot))
    ok(not bad, "%s: %d record(s) break the partition: %s" % (name, len(bad), "; ".join(bad[:3])))
ok(answered >= 900, "records with call and reply checked: %d" % answered)
print("phases: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
