#!/usr/bin/env python3
"""The fused split nfsrdma-top shows, computed here from the records
themselves (JSON Lines as nfsrdma-dissect --join --json writes them),
independently of src/stats: joined records only (source "joined"), one
row per key and shape (vantages, and the spans their `ns` object names:
"server_queue+pull+execute+reply_build" is one span), percentiles by the
rule of src/stats/hist.h written out from its comment (2^5 sub-buckets
per power of two; the upper bound of the bucket of the nearest-rank
sample, capped at the max), the p99 tail as src/stats/phase_diag.h
defines it (RPCs in the bucket of the nearest-rank p99 sample or above).

  fused_expect.py json RECORDS DIM [TRANSPORT] < TOP_JSON
      compare nfsrdma-top --json's "fused" rows with the records; exit 0/1
  fused_expect.py text RECORDS DIM < TOP_TEXT
      every expected row's line is in nfsrdma-top -b --fused's table
  fused_expect.py screen RECORDS DIM N
      the first N rows (by RPCs, then key) as the screen prints their
      shares: "KEY|VT|mean shares|p99 shares" lines
  fused_expect.py count RECORDS
      the number of joined records"""
import json
import sys

RES = 5
NAMES = ["client_queue", "client_send", "net_out", "server_queue", "pull", "execute",
         "reply_build", "push", "net_back", "client_done"]
VT = ["client", "wire", "server"]
PLACES = ["client_host", "client_net", "server_net", "server_queue", "execute", "pull", "push", "reply_wait"]
WORDS = ["client host", "client-side network", "server-side network", "server queue", "server execute",
         "argument pull", "result push", "reply wait"]
SEGS = ["client_net", "server_net", "client_net_out", "client_net_back", "server_net_out", "server_net_back"]


def verdict(recs):
    """The row's verdict from its records' "places" (docs/record.md): the
    place-set with the largest summed ns (ties: the lower set of bits),
    its share of all the places' ns per mille, and the words top prints;
    the segments' sums and counts"""
    sets, segs = {}, {}
    for r in recs:
        for p in r.get("places", []):
            bits = sum(1 << PLACES.index(n) for n in p["place"])
            sets[bits] = sets.get(bits, 0) + p["ns"]
        for k, v in (r.get("seg") or {}).items():
            if v is not None:
                s = segs.setdefault(k, [0, 0])
                s[0] += v
                s[1] += 1
    tot = sum(sets.values())
    if not tot:
        return {"sets": sets, "segs": segs, "verdict": None, "words": "-"}
    bits = max(sets, key=lambda b: (sets[b], -b))
    pm = (sets[bits] * 1000 + tot // 2) // tot
    words = [WORDS[i] for i in range(len(PLACES)) if bits & (1 << i)]
    w = words[0] if len(words) == 1 else "unresolved between " + ", ".join(words[:-1]) + " and " + words[-1]
    return {"sets": sets, "segs": segs, "verdict": ([PLACES[i] for i in range(len(PLACES)) if bits & (1 << i)], pm),
            "words": "%s %d%%" % (w, (pm + 5) // 10)}


def bucket_lo(v):
    if v < (1 << (RES + 1)):
        return v
    e = v.bit_length() - 1
    return (v >> (e - RES)) << (e - RES)


def bucket_hi(v):
    if v < (1 << (RES + 1)):
        return v
    e = v.bit_length() - 1
    return bucket_lo(v) + (1 << (e - RES)) - 1


def rank(p, n):
    return max(1, int(p * n + 0.999999))


def joined(path):
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("source") == "joined":
            yield r


def key_of(r, dim):
    tr = r.get("transport", "rdma")
    sfx = "" if tr == "rdma" else " " + tr
    if dim == "op":
        return r["program"] + " " + r["procedure"] + sfx
    back = r["flags"] & 4
    who = ("callee" if back else "caller") if dim == "client" else ("caller" if back else "callee")
    return r[who]["addr"] + sfx


def expect(path, dim, transport=None):
    rows = {}
    for r in joined(path):
        if r["ns"].get("total") is None:
            continue   # no bounded phase: in no row
        if transport and r.get("transport", "rdma") != transport:
            continue
        spans = [(k, v) for k, v in r["ns"].items() if k != "total"]
        vts = tuple(v for v in VT if v in r["vantages"])
        k = (key_of(r, dim), vts, tuple(n for n, _ in spans))
        rows.setdefault(k, []).append((r["ns"]["total"], spans, r.get("transport", "rdma"), r))
    out = {}
    for k, recs in rows.items():
        totals = sorted(x[0] for x in recs)
        n = len(totals)
        lo = bucket_lo(totals[rank(0.99, n) - 1])
        tail = [x for x in recs if x[0] >= lo]
        s, ts = sum(totals), sum(x[0] for x in tail)
        sp = []
        for i, name in enumerate(k[2]):
            vals = [x[1][i][1] for x in recs]
            bounded = any(v is not None for v in vals)
            a = sum(v or 0 for v in vals)
            b = sum(x[1][i][1] or 0 for x in tail)
            sp.append({"phase": name, "bounded": bounded, "sum_ns": a, "p99_sum_ns": b,
                       "mean_pct": 100.0 * a / s if s else 0.0, "p99_pct": 100.0 * b / ts if ts else 0.0})
        out[k] = {"rpcs": n, "sum_ns": s, "mean_ns": s // n, "p50_ns": min(bucket_hi(totals[rank(0.5, n) - 1]), totals[-1]),
                  "p99_ns": min(bucket_hi(totals[rank(0.99, n) - 1]), totals[-1]), "max_ns": totals[-1],
                  "p99_rpcs": len(tail), "p99_sum_ns": ts, "spans": sp, "transport": recs[0][2],
                  "v": verdict([x[3] for x in recs])}
    return out


def cmp_json(path, dim, transport, top):
    want = expect(path, dim, transport)
    f = top.get("fused")
    bad = []
    if not f or f["by"] != dim:
        print("no fused object for %s: %r" % (dim, f and f.get("by")))
        return 1
    got = {}
    for r in f["rows"]:
        k = (r["key"], tuple(r["vantages"]), tuple(s["phase"] for s in r["spans"]))
        if k in got:
            bad.append("row twice: %r" % (k,))
        got[k] = r
    if set(got) != set(want):
        bad.append("rows differ: only top %s; only records %s" % (sorted(set(got) - set(want))[:3],
                                                                 sorted(set(want) - set(got))[:3]))
    for k in set(got) & set(want):
        g, w = got[k], want[k]
        for f_ in ("rpcs", "sum_ns", "mean_ns", "p50_ns", "p99_ns", "max_ns", "p99_rpcs", "p99_sum_ns", "transport"):
            if g[f_] != w[f_]:
                bad.append("%s %s: %s %s, expected %s" % (k[0], "+".join(k[1]), f_, g[f_], w[f_]))
        if sum(s["sum_ns"] or 0 for s in g["spans"]) != g["sum_ns"]:
            bad.append("%s %s: spans do not add up to the total" % (k[0], "+".join(k[1])))
        v = w["v"]
        gv = g.get("verdict")
        if (gv and (gv["place"], round(gv["share"] * 1000))) != (v["verdict"] and tuple(v["verdict"])) and \
                not (gv is None and v["verdict"] is None):
            bad.append("%s %s: verdict %s, expected %s" % (k[0], "+".join(k[1]), gv, v["verdict"]))
        gsets = {sum(1 << PLACES.index(n) for n in p["place"]): p["ns"] for p in g.get("places", [])}
        if gsets != v["sets"] or g.get("places_overflow", {}).get("shares") != 0:
            bad.append("%s %s: places %s, expected %s" % (k[0], "+".join(k[1]), gsets, v["sets"]))
        gseg = {n: [s["sum_ns"], s["rpcs"]] for n, s in g.get("seg", {}).items() if s}
        if gseg != v["segs"] or set(g.get("seg", {})) != set(SEGS):
            bad.append("%s %s: seg %s, expected %s" % (k[0], "+".join(k[1]), gseg, v["segs"]))
        for gs, ws in zip(g["spans"], w["spans"]):
            if not ws["bounded"]:
                if gs["sum_ns"] is not None:
                    bad.append("%s %s: %s bounded by no RPC, top says %s" % (k[0], "+".join(k[1]), gs["phase"], gs["sum_ns"]))
                continue
            for f_ in ("sum_ns", "p99_sum_ns"):
                if gs[f_] != ws[f_]:
                    bad.append("%s %s %s: %s %s, expected %s" % (k[0], "+".join(k[1]), ws["phase"], f_, gs[f_], ws[f_]))
            for f_ in ("mean_pct", "p99_pct"):
                if abs(gs[f_] - ws[f_]) > 0.0051:
                    bad.append("%s %s %s: %s %s, expected %.4f" % (k[0], "+".join(k[1]), ws["phase"], f_, gs[f_], ws[f_]))
    for b in bad[:10]:
        print(b)
    return 1 if bad or not want else 0


def shares(row, tail, sep, fmt):
    """one field per phase, in NAMES' order: a span's share in its first
    phase's, "+" in the others it covers (net_out+net_back: net_back's
    is "+" though the two are not adjacent)"""
    out = [None] * len(NAMES)
    for s in row["spans"]:
        parts = s["phase"].split("+")
        out[NAMES.index(parts[0])] = "-" if not s["bounded"] else fmt % (s["p99_pct"] if tail else s["mean_pct"])
        for p in parts[1:]:
            out[NAMES.index(p)] = "+"
    return sep.join(out)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "count":
        print(sum(1 for _ in joined(path)))
        return 0
    dim = sys.argv[3]
    if mode == "json":
        return cmp_json(path, dim, sys.argv[4] if len(sys.argv) > 4 else None, json.loads(sys.stdin.read()))
    want = expect(path, dim)
    if mode == "text":
        text = sys.stdin.read().splitlines()
        missing = 0
        for k, w in want.items():
            tail = "mean %s  p99 %s  verdict: %s" % (shares(w, False, "/", "%.1f"), shares(w, True, "/", "%.1f"),
                                                    w["v"]["words"])
            if not any(l.startswith(k[0] + " ") and (" " + "+".join(k[1]) + " ") in l and l.endswith(tail) for l in text):
                missing += 1
                print("no line for %s %s ending %r" % (k[0], "+".join(k[1]), tail))
        return 1 if missing or not want else 0
    if mode == "screen":
        def merged(names):
            m = 0
            for nm in names:
                parts = [NAMES.index(x) for x in nm.split("+")]
                if parts == [2, 8]:          # net_out+net_back: rec.f_merged bit 31
                    m |= 1 << 31
                    continue
                for p in parts[:-1]:
                    m |= 1 << p
            return m
        # as top sorts: RPCs, key, then the most vantages (bitmask) first, fewer merges first
        order = sorted(want.items(), key=lambda kv: (-kv[1]["rpcs"], kv[0][0].encode(),
                                                     -sum(1 << VT.index(v) for v in kv[0][1]), merged(kv[0][2])))
        for k, w in order[:int(sys.argv[4])]:
            vt = "".join(v[0] if v in k[1] else "-" for v in VT)
            print("%s|%s|%s|%s" % (k[0], vt, shares(w, False, " ", "%.0f"), shares(w, True, " ", "%.0f")))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
