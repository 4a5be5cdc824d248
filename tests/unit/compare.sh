#!/usr/bin/env bash
# nfsrdma-dissect --compare A B against numbers computed here, apart from
# the tool's aggregation: for pairs of lab captures, each capture's own
# --json records are grouped by "program procedure" and give, per
# operation and side, the RPCs, the timed ones (ns.total known), the
# payload bytes (inline minus the RPC-over-RDMA header, plus the bytes
# RDMA READ and WRITE moved), the sum of the totals and of each phase,
# and the exact nearest-rank p50 / p99.  The tool's percentiles come
# from the shared histogram (src/stats/hist.h), which promises the upper
# bound of the bucket holding the nearest-rank sample, capped at the max:
# never below the exact value and less than 1/32 above it.  Also: every
# --compare --json line is one JSON document (python3 -m json.tool), the
# text table names every operation with both counts, an operation of one
# side keeps its row, the phases add up to the total, a capture with
# nothing in it makes exit status 3 with the other side still shown,
# --plot writes a well-formed SVG naming every operation, and every flag
# of the conflict table is refused with exit status 2.  The transport's
# facts ("xprt": chunk mix, message types, inline sizes, credits, Reply
# chunk use; per capture the largest inline message per direction and the
# versions) are counted here from the same records' chunks, rdma_proc,
# bytes and credits, over the RPCs whose transport is rdma.
# Closing line: "compare: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
BIN=${O:-build}/bin/nfsrdma-dissect
command -v python3 >/dev/null || { echo "compare: python3 missing"; echo "compare: 0 passed, 1 failed"; exit 1; }
[ -x "$BIN" ] || { echo "compare: $BIN missing (make first)"; echo "compare: 0 passed, 1 failed"; exit 1; }
exec python3 - "$BIN" <<'PY'
import json, math, os, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

BIN = sys.argv[1]
CAPS = "tests/captures/"
PHASES = ["call", "queue", "pull", "server", "queue+server", "push", "wait", "reply"]
passed = failed = 0

def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL compare:", what)

def run(args, stdin=None):
    p = subprocess.run([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin)
    return p.returncode, p.stdout.decode(), p.stderr.decode()

def nearest_rank(sorted_v, p):
    k = max(1, math.ceil(p * len(sorted_v)))
    return sorted_v[k - 1]

MIX = ["inline", "read", "write", "reply", "p0"]
PROCS = ["msg", "nomsg", "msgp", "done", "error", "other"]

def xprt_new():
    return {"rdma_rpcs": 0, "chunks": dict.fromkeys(MIX, 0),
            "rdma_proc": {"call": dict.fromkeys(PROCS, 0), "reply": dict.fromkeys(PROCS, 0)},
            "call_inline": [], "reply_inline": [], "credits_asked": [], "credits_granted": [],
            "reply_chunk": {"rpcs": 0, "bytes": 0}, "to_server": 0, "to_client": 0, "vers": {}}

def xprt_add(x, r):
    if r["transport"] != "rdma":
        return
    x["rdma_rpcs"] += 1
    for k in r["chunks"]["mix"].split("+"):
        x["chunks"][k] += 1
    back = r["flags"] & 4
    for d, bit, to in (("call", 1, "to_client" if back else "to_server"),
                       ("reply", 2, "to_server" if back else "to_client")):
        if not r["flags"] & bit:
            continue
        p = r["rdma_proc"][d]
        if p >= 0:
            x["rdma_proc"][d][PROCS[min(p, 5)]] += 1
        n = r["bytes"][d + "_inline"]
        x[d + "_inline"].append(n)
        x[to] = max(x[to], n)
        x["credits_asked" if d == "call" else "credits_granted"].append(r["credits_" + ("asked" if d == "call" else "granted")])
    if r["flags"] & 64 or r["bytes"]["reply"]:
        x["reply_chunk"]["rpcs"] += 1
    x["reply_chunk"]["bytes"] += r["bytes"]["reply"]
    v = str(r["rdma_vers"]) if r["rdma_vers"] < 3 else "other"
    x["vers"][v] = x["vers"].get(v, 0) + 1

def judge_xprt(tag, got, x, capture):
    if not x["rdma_rpcs"]:
        check(got is None, "%s: no RPC over RDMA, yet xprt %s" % (tag, got))
        return
    if got is None:
        check(False, "%s: %d RPCs over RDMA, xprt null" % (tag, x["rdma_rpcs"]))
        return
    for k in ("rdma_rpcs", "chunks", "rdma_proc", "reply_chunk"):
        check(got[k] == x[k], "%s: xprt %s %s, records say %s" % (tag, k, got[k], x[k]))
    for d in ("call_inline", "reply_inline"):
        v = x[d]
        want = {"n": len(v), "sum": sum(v), "mean": round(sum(v) / len(v), 1) if v else None,
                "max": max(v) if v else None}
        check(got[d] == want, "%s: xprt %s %s, records say %s" % (tag, d, got[d], want))
    for k in ("credits_asked", "credits_granted"):
        v = x[k]
        want = {"min": min(v), "max": max(v)} if v else None
        check(got[k] == want, "%s: xprt %s %s, records say %s" % (tag, k, got[k], want))
    if capture:
        check(got["inline_max"] == {"to_server": x["to_server"], "to_client": x["to_client"]},
              "%s: inline_max %s, records say %d / %d" % (tag, got["inline_max"], x["to_server"], x["to_client"]))
        check(got["rdma_versions"] == x["vers"], "%s: versions %s, records say %s" % (tag, got["rdma_versions"], x["vers"]))
    else:
        check("inline_max" not in got, "%s: the capture's keys in an operation's xprt" % tag)

def expected(cap, extra=()):
    """Per operation, what --compare must say of this capture; "" holds
    the capture's transport facts."""
    rc, out, _ = run(["--json"] + list(extra) + [cap])
    ops = {"": {"xprt": xprt_new()}}
    for line in out.splitlines():
        r = json.loads(line)
        if "type" in r:
            continue
        xprt_add(ops[""]["xprt"], r)
        e = ops.setdefault(r["program"] + " " + r["procedure"],
                           {"rpcs": 0, "call_bytes": 0, "reply_bytes": 0, "lat": [], "phase": [None] * 8,
                            "xprt": xprt_new()})
        xprt_add(e["xprt"], r)
        b = r["bytes"]
        e["rpcs"] += 1
        e["call_bytes"] += max(b["call_inline"] - b["call_hdr"], 0) + b["read"]
        e["reply_bytes"] += max(b["reply_inline"] - b["reply_hdr"], 0) + b["write"] + b["reply"]
        if r["ns"]["total"] is not None:
            e["lat"].append(r["ns"]["total"])
            for i, ph in enumerate(PHASES):   # a phase no RPC had is null, not 0
                if r["ns"][ph] is not None:
                    e["phase"][i] = (e["phase"][i] or 0) + r["ns"][ph]
    return ops

def judge_side(cap, op, got, want):
    tag = "%s %s" % (cap, op)
    if want is None:
        check(got is None, "%s: absent from the capture, yet %s" % (tag, got))
        return
    if got is None:
        check(False, "%s: in the capture (%d RPCs), null in --compare" % (tag, want["rpcs"]))
        return
    lat = sorted(want["lat"])
    check(got["rpcs"] == want["rpcs"], "%s: rpcs %d, records say %d" % (tag, got["rpcs"], want["rpcs"]))
    judge_xprt(tag, got["xprt"], want["xprt"], False)
    check(got["timed"] == len(lat), "%s: timed %d, records say %d" % (tag, got["timed"], len(lat)))
    for k in ("call_bytes", "reply_bytes"):
        check(got[k] == want[k], "%s: %s %d, records say %d" % (tag, k, got[k], want[k]))
    check(got["lat_sum_ns"] == sum(lat), "%s: lat_sum %d, records say %d" % (tag, got["lat_sum_ns"], sum(lat)))
    check([got["phase_sum_ns"][p] for p in PHASES] == want["phase"],
          "%s: phase sums %s, records say %s" % (tag, got["phase_sum_ns"], want["phase"]))
    check(sum(v for v in got["phase_sum_ns"].values() if v is not None) == got["lat_sum_ns"],
          "%s: phases do not add up to the total" % tag)
    if got["phase_mean_ns"] is not None:
        check([got["phase_mean_ns"][p] is None for p in PHASES] == [v is None for v in want["phase"]],
              "%s: the phase means null where the sums are (%s)" % (tag, got["phase_mean_ns"]))
    if not lat:
        check(got["mean_ns"] is None and got["p50_ns"] == 0, "%s: no timed RPC, yet a mean or p50" % tag)
        return
    check(got["max_ns"] == lat[-1], "%s: max %d, records say %d" % (tag, got["max_ns"], lat[-1]))
    check(abs(got["mean_ns"] - sum(lat) / len(lat)) <= 0.05, "%s: mean %s" % (tag, got["mean_ns"]))
    for p, key in ((0.50, "p50_ns"), (0.99, "p99_ns")):
        exact = nearest_rank(lat, p)
        v = got[key]
        check(exact <= v <= min(exact + exact / 32, lat[-1]),
              "%s: %s %d outside [%d, min(+1/32, max)] of the exact nearest rank" % (tag, key, v, exact))

def compare_json(a, b, extra=()):
    rc, out, err = run(["--compare", "--json"] + list(extra) + [a, b])
    lines = out.splitlines()
    # one JSON document per line, as python3 -m json.tool reads JSON Lines
    p = subprocess.run([sys.executable, "-m", "json.tool", "--json-lines"], input=out.encode(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode or not lines:
        check(False, "--compare --json %s %s: not JSON Lines: %s" % (a, b, p.stderr.decode().strip()))
        return rc, [], err
    return rc, [json.loads(ln) for ln in lines], err

PAIRS = [("nfs3-read-write", "parallel"), ("nfs3-metadata", "nfs3-symlink"), ("nfs40", "nfs41"),
         ("smoke", "smoke"), ("nfs3-readdirplus", "nfs3-read-write"), ("nfs3-tcp", "nfs3-read-write")]
for an, bn in PAIRS:
    a, b = CAPS + an + ".pcap", CAPS + bn + ".pcap"
    rc, objs, err = compare_json(a, b)
    check(rc == 0 and objs, "%s vs %s: exit %d, %d lines: %s" % (an, bn, rc, len(objs), err.strip()))
    if not objs:
        continue
    rows = [o for o in objs if o["type"] == "compare"]
    tot = objs[-1]
    check(tot["type"] == "compare_total" and [o["type"] for o in objs[:-1]] == ["compare"] * len(rows),
          "%s vs %s: compare lines, then one compare_total" % (an, bn))
    wa, wb = expected(a), expected(b)
    for side, w in (("a", wa), ("b", wb)):
        judge_xprt("%s vs %s: capture %s" % (an, bn, side), tot[side]["xprt"], w.pop("")["xprt"], True)
    check(sorted(o["op"] for o in rows) == sorted(set(wa) | set(wb)),
          "%s vs %s: operations %s, the records have %s" % (an, bn, [o["op"] for o in rows], sorted(set(wa) | set(wb))))
    check([o["op"] for o in rows] == sorted(o["op"] for o in rows), "%s vs %s: rows sorted by name" % (an, bn))
    for o in rows:
        judge_side(an, o["op"], o["a"], wa.get(o["op"]))
        judge_side(bn, o["op"], o["b"], wb.get(o["op"]))
        if o["a"] and o["b"]:
            check(abs(o["ratio"]["rpcs"] - o["b"]["rpcs"] / o["a"]["rpcs"]) < 1e-4, "%s: ratio of rpcs" % o["op"])
        else:
            check(all(v is None for v in o["ratio"].values()), "%s: one side only, yet a ratio" % o["op"])
    for side, w, cap in (("a", wa, a), ("b", wb, b)):
        check(tot[side]["file"] == cap and tot[side]["rpcs"] == sum(e["rpcs"] for e in w.values()) and
              tot[side]["ops"] == len(w), "%s vs %s: total of %s" % (an, bn, side))
    # the text table: every operation, both counts on its first row
    rc, out, _ = run(["--compare", a, b])
    check(rc == 0, "%s vs %s text: exit %d" % (an, bn, rc))
    first = {}
    for ln in out.splitlines():
        f = ln.split()
        if "rpcs" in f and f[0] != "total":
            i = f.index("rpcs")
            first[" ".join(f[:i])] = f[i + 1:i + 3]
    for o in rows:
        want = [str(o["a"]["rpcs"]) if o["a"] else "-", str(o["b"]["rpcs"]) if o["b"] else "-"]
        check(first.get(o["op"]) == want, "%s vs %s text: %s rpcs %s, JSON %s" % (an, bn, o["op"], first.get(o["op"]), want))

# every key of the transport's JSON is documented in docs/record.md
rc, objs, _ = compare_json(CAPS + "nfs3-readdirplus.pcap", CAPS + "nfs3-read-write.pcap")
doc = open("docs/record.md").read()
def keys_of(o):
    for k, v in o.items():
        yield k
        if isinstance(v, dict):
            yield from keys_of(v)
xk = set()
for o in objs:
    for side in ("a", "b"):
        if isinstance(o.get(side), dict) and o[side].get("xprt"):
            xk |= set(keys_of(o[side]["xprt"]))
    xk |= set(k for k in o.get("ratio", {}) if k not in ("1", "2"))
xk -= {"1", "2"}
undoc = sorted(k for k in xk if "`%s`" % k not in doc)
check(len(xk) > 30 and not undoc, "xprt keys missing from docs/record.md: %s (%d keys)" % (undoc, len(xk)))

# one side only: NFSv4.0 has SETCLIENTID, v4.1 has none; the row stays
rc, objs, _ = compare_json(CAPS + "nfs40.pcap", CAPS + "nfs41.pcap")
only_a = [o for o in objs if o.get("type") == "compare" and o["a"] and not o["b"]]
only_b = [o for o in objs if o.get("type") == "compare" and o["b"] and not o["a"]]
check(only_a and only_b, "nfs40 vs nfs41: rows of one side only on both sides (%d, %d)" % (len(only_a), len(only_b)))
rc, out, _ = run(["--compare", CAPS + "nfs40.pcap", CAPS + "nfs41.pcap"])
for o in only_a[:3]:
    ln = [l for l in out.splitlines() if l.startswith(o["op"] + " ")]
    check(ln and ln[0].split()[-2:] == ["-", "-"], "nfs40 vs nfs41 text: %s shows B empty: %s" % (o["op"], ln))

# filters apply to both captures
rc, objs, _ = compare_json(CAPS + "nfs3-read-write.pcap", CAPS + "parallel.pcap", ["--op", "READ"])
check(rc == 0 and [o["op"] for o in objs if o["type"] == "compare"] == ["NFSv3 READ"],
      "--op READ: only the READ row (exit %d)" % rc)

tmp = tempfile.mkdtemp()
empty = os.path.join(tmp, "empty.pcap")
with open(empty, "wb") as f:   # a classic pcap header and no packet
    f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
# a capture with nothing in it: said so, exit 3, the other side still shown
rc, out, err = run(["--compare", CAPS + "smoke.pcap", empty])
check(rc == 3, "empty B: exit %d, expected 3" % rc)
check(empty in err and "no RPC" in err, "empty B: stderr says so: %s" % err.strip())
check("NFSv3 NULL" in out or "NFSv4" in out or "RPCs)" in out, "empty B: the table is printed")
rc, objs, err = compare_json(empty, CAPS + "smoke.pcap")
check(rc == 3 and objs and all(o["a"] is None for o in objs if o["type"] == "compare"),
      "empty A: exit %d, A null in every row" % rc)
rc, out, err = run(["--compare", "--op", "SETCLIENTID", CAPS + "nfs40.pcap", CAPS + "nfs41.pcap"])
check(rc == 3 and "matched the filters" in err, "filter keeps nothing of B: exit %d: %s" % (rc, err.strip()))

# stdin as one side: the same numbers
with open(CAPS + "parallel.pcap", "rb") as f:
    rc, out, _ = run(["--compare", "--json", CAPS + "smoke.pcap", "-"], stdin=f)
rc2, out2, _ = run(["--compare", "--json", CAPS + "smoke.pcap", CAPS + "parallel.pcap"])
check(rc == 0 and out.replace('"file":"-"', '"file":"%sparallel.pcap"' % CAPS) == out2, "B from stdin")

# --plot
svg = os.path.join(tmp, "c.svg")
rc, _, err = run(["--compare", "--plot", svg, CAPS + "nfs40.pcap", CAPS + "nfs41.pcap"])
check(rc == 0 and os.path.exists(svg), "--plot: exit %d %s" % (rc, err.strip()))
if os.path.exists(svg):
    try:
        ET.parse(svg)
        ok = True
    except ET.ParseError as e:
        ok = False
    check(ok, "--plot: the SVG is well-formed")
    text = open(svg).read()
    ops = [o["op"] for o in compare_json(CAPS + "nfs40.pcap", CAPS + "nfs41.pcap")[1] if o["type"] == "compare"]
    missing = [o for o in ops if o not in text]
    check(ops and not missing, "--plot names every operation; missing %s" % missing)
rc, _, err = run(["--compare", "--plot", CAPS + "nfs41.pcap", CAPS + "nfs40.pcap", CAPS + "nfs41.pcap"])
check(rc == 2 and "--plot" in err, "--plot onto an input refused: exit %d" % rc)

# the conflict table, and the operands
A, B = CAPS + "smoke.pcap", CAPS + "nfs40.pcap"
for flags, name in ((["-V"], "-V"), (["--csv"], "--csv"), (["--fields", "default"], "--fields"),
                    (["-q"], "-q"), (["-z", "proc"], "-z"), (["--check"], "--check"),
                    (["--stats"], "--stats"), (["-w", os.path.join(tmp, "o.pcapng")], "-w"),
                    (["-r", A], "-r")):
    rc, out, err = run(["--compare"] + flags + [A, B])
    check(rc == 2 and not out and "--compare and %s cannot be combined" % name in err and
          len(err.splitlines()) == 1, "--compare %s: exit %d, %s" % (name, rc, err.strip()))
for args, what in (([A], "one capture"), ([A, B, A], "three captures"), (["-", "-"], "stdin twice")):
    rc, out, err = run(["--compare"] + args)
    check(rc == 2 and not out and len(err.splitlines()) == 1, "--compare with %s: exit %d, %s" % (what, rc, err.strip()))
rc, out, err = run(["--compare", A, os.path.join(tmp, "absent.pcap")])
check(rc == 1 and "absent.pcap" in err, "--compare with a missing file: exit %d" % rc)

print("compare: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
