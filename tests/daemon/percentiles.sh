#!/usr/bin/env bash
# One histogram, one percentile: every lab capture through
#   nfsrdma-dissect -q -z proc,  nfsrdma-top -b --json -r (standalone),
#   nfsrdmad's JSON summary,     nfsrdmad's Prometheus histogram (/metrics)
# must give, per operation, the same count and the same p50/p90/p99/p99.9/max
# (src/stats/hist.h says what the value means).
#
# What is compared:
#  - records per operation: dissect (replies + unanswered), top, daemon
#    summary, Prometheus nfsrdma_rpc_requests_total summed over the series
#    of that protocol/operation; and the latency samples: Prometheus
#    _count = dissect's replies when the operation has calls (an answered
#    RPC), else 0;
#  - p50/p90/p99/p99.9/max as printed (microseconds, one decimal): dissect, top
#    and the daemon summary (their nanoseconds printed the same way), equal;
#  - one name, one unit: every key an operation of nfsrdma-dissect -z proc
#    --json has (counts, bytes, latencies, *_ns, chunks) the daemon's JSON
#    summary and top's --json rows have too, with the same value;
#  - Prometheus has fixed bounds (10 us .. 10 s), so only buckets compare:
#    from the _bucket series, the bucket (L, U] holding each percentile's
#    nearest rank ceil(p * _count) must hold the reported value, widened by
#    the histogram's resolution (the reported value is the upper bound of
#    its log-linear bucket, at most 1/32 above the sample: L < v <= U + U/32);
#    the max must fall in the highest non-empty bucket exactly.
# Tier: golden (no root; loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=percentiles
for b in nfsrdma-dissect nfsrdma-top nfsrdmad; do
	[ -x "$BIN/$b" ] || cannot $NAME "$BIN/$b not built"
done
command -v curl >/dev/null || cannot $NAME "curl not installed"

caps=("$CAPS"/*.pcap)
[ ${#caps[@]} -gt 0 ] && [ -r "${caps[0]}" ] || cannot $NAME "no captures in $CAPS"

for f in "${caps[@]}"; do
	c=$(basename "$f" .pcap)
	TZ=UTC "$BIN/nfsrdma-dissect" -q -z proc "$f" >"$TMP/$c.dissect" 2>"$TMP/$c.dissect.err"
	rc=$?
	sed -i "/^== diagnosis/,\$d" "$TMP/$c.dissect"   # the table ends where the diagnosis begins
	# 3: read to the end, no RPC in it (nfs3-tcp, perftest), said on stderr
	check "$c: nfsrdma-dissect -z proc runs (exit $rc)" [ $rc -le 1 -o $rc -eq 3 ]
	TZ=UTC "$BIN/nfsrdma-dissect" -q -z proc --json "$f" >"$TMP/$c.djson" 2>/dev/null
	"$BIN/nfsrdma-top" -b --json -n 1 -d 5 -r "$f" >"$TMP/$c.top" 2>"$TMP/$c.top.err"
	check "$c: nfsrdma-top -b --json -r runs" [ -s "$TMP/$c.top" ]

	# The daemon: scrape /metrics once every record is in, then SIGTERM
	# prints the last summary.
	want=$(awk '/^== |^operation |^total /{next} NF > 12 { s += $(NF-10) + $(NF-8) } END { print s + 0 }' "$TMP/$c.dissect")
	port=$(free_port)
	"$BIN/nfsrdmad" --source "pcap:$f" --metrics "127.0.0.1:$port" --socket none --json \
		--summary-interval 3600 >"$TMP/$c.daemon" 2>"$TMP/$c.daemon.err" &
	dpid=$!
	PIDS+=($dpid)
	all_in() {
		curl -sf -o "$TMP/$c.metrics" "http://127.0.0.1:$port/metrics" &&
			grep -qx "nfsrdma_records_total $want" "$TMP/$c.metrics"
	}
	check "$c: nfsrdmad /metrics reaches $want records" wait_for 20 all_in
	kill -TERM "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	grep '^{"type":"daemon_summary"' "$TMP/$c.daemon" | tail -n 1 >"$TMP/$c.summary"
	check "$c: nfsrdmad prints a JSON summary on SIGTERM" [ -s "$TMP/$c.summary" ]
	# every stdout line is JSON: a record, or a line that says its type
	check "$c: nfsrdmad --json: every line a record or typed (docs/record.md)" python3 -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    assert ("type" not in o and "v" in o and "xid" in o) or o.get("type") == "daemon_summary", l[:120]
    n += 1
assert n > 0' "$TMP/$c.daemon"

	# Compare; the helper prints one ok/FAIL line per check and "N M" last.
	python3 - "$c" "$TMP/$c.dissect" "$TMP/$c.top" "$TMP/$c.summary" "$TMP/$c.metrics" "$TMP/$c.djson" >"$TMP/$c.cmp" <<'EOPY'
import json, math, re, sys
cap, fdis, ftop, fsum, fmet, fdj = sys.argv[1:]
res = []
def check(ok, what):
    res.append(ok)
    print(("ok   " if ok else "FAIL ") + cap + ": " + what)
us = lambda ns: "%.1f" % (ns / 1000.0)

dis = {}   # key -> dict(records, answered, p50, p90, p99, p99.9, max)
for line in open(fdis):
    f = line.split()
    if not f or line.startswith("==") or f[0] in ("operation", "total") or len(f) < 13:
        continue
    key = " ".join(f[:-12])
    calls, replies, unanswered = int(f[-12]), int(f[-11]), int(f[-9])
    dis[key] = dict(records=replies + unanswered, answered=replies if calls else 0,
                    p=[f[-6], f[-5], f[-4], f[-3], f[-2]])
try:
    top = {r["key"]: dict(records=r["records"], ns=[r["p50_ns"], r["p90_ns"], r["p99_ns"], r["p999_ns"], r["max_ns"]],
                          p=[us(r["p50_ns"]), us(r["p90_ns"]), us(r["p99_ns"]), us(r["p999_ns"]), us(r["max_ns"])])
           for r in json.loads(open(ftop).readline())["rows"]}
except (ValueError, KeyError) as e:
    top = {}; check(False, "top JSON unreadable: %s" % e)
try:
    sraw = {r["key"]: r for r in json.loads(open(fsum).readline())["summary"]["ops"]}
    summ = {k: dict(records=r["records"], p=[us(r[f]) for f in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")])
            for k, r in sraw.items()}
except (ValueError, KeyError) as e:
    sraw = summ = {}; check(False, "daemon summary unreadable: %s" % e)
try:
    traw = {r["key"]: r for r in json.loads(open(ftop).readline())["rows"]}
    djs = {}
    for line in open(fdj):
        o = json.loads(line)
        if o.get("type") == "summary":
            djs[o["key"]] = o
except (ValueError, KeyError) as e:
    traw = djs = {}; check(False, "dissect or top JSON unreadable: %s" % e)
same = ("calls", "replies", "errors", "unanswered", "bytes_inline", "bytes_ddp", "latencies", "p50_ns", "p90_ns", "p99_ns",
        "p999_ns", "max_ns", "chunks")
for k, d in sorted(djs.items()):
    s, t = sraw.get(k, {}), traw.get(k, {})
    diff = ["daemon " + f for f in same if s.get(f) != d[f]] + ["top " + f for f in same if t.get(f) != d[f]]
    check(not diff, "%s: daemon summary and top --json name, unit and value as dissect -z proc --json%s"
          % (k, (": differ in " + ", ".join(diff)) if diff else ""))

# Prometheus: per protocol/operation, summed over client/server series
prom = {}
pat = re.compile(r'^nfsrdma_rpc_(requests_total|duration_seconds_bucket|duration_seconds_count)\{protocol="([^"]*)",operation="([^"]*)",[^}]*?(?:,le="([^"]*)")?\} (\S+)$')
for line in open(fmet):
    m = pat.match(line.strip())
    if not m:
        continue
    kind, key, le, v = m.group(1), m.group(2) + " " + m.group(3), m.group(4), int(float(m.group(5)))
    # named as -z proc and top name it: the transport after the op, but for RDMA
    tr = re.search(r'transport="([^"]*)"', line).group(1)
    key += "" if tr == "rdma" else " " + tr
    e = prom.setdefault(key, dict(records=0, count=0, le={}))
    if kind == "requests_total":
        e["records"] += v
    elif kind == "duration_seconds_count":
        e["count"] += v
    else:
        b = math.inf if le == "+Inf" else round(float(le) * 1e9)
        e["le"][b] = e["le"].get(b, 0) + v

keys = sorted(dis)
check(sorted(top) == keys and sorted(summ) == keys and sorted(prom) == keys,
      "same operations in all four (%d: %s)" % (len(keys), ", ".join(keys) or "none"))
check(sum(d["records"] for d in dis.values()) == sum(t["records"] for t in top.values())
      == sum(s["records"] for s in summ.values()) == sum(p["records"] for p in prom.values()),
      "same total records")
for k in keys:
    d, t, s, p = dis[k], top.get(k), summ.get(k), prom.get(k)
    if not (t and s and p):
        check(False, "%s missing from top, summary or Prometheus" % k)
        continue
    check(d["records"] == t["records"] == s["records"] == p["records"] and p["count"] == d["answered"],
          "%s count: dissect %d top %d summary %d prometheus %d (answered: dissect %d, _count %d)"
          % (k, d["records"], t["records"], s["records"], p["records"], d["answered"], p["count"]))
    check(d["p"] == t["p"] == s["p"],
          "%s p50/p90/p99/p99.9/max us: dissect %s top %s summary %s" % (k, "/".join(d["p"]), "/".join(t["p"]), "/".join(s["p"])))
    if not p["count"]:
        check(d["p"] == ["0.0"] * 5, "%s no answered RPC: percentiles 0" % k)
        continue
    bounds = sorted(p["le"])
    cum = [p["le"][b] for b in bounds]
    def bucket(rank):
        i = next(i for i, c in enumerate(cum) if c >= rank)
        return (bounds[i - 1] if i else 0), bounds[i]
    bad = []
    for name, q, v in zip(("p50", "p90", "p99", "p99.9"), (0.5, 0.9, 0.99, 0.999), t["ns"][:4]):
        lo, hi = bucket(max(1, math.ceil(q * p["count"] - 1e-6)))
        if not (lo < v <= hi + hi / 32):
            bad.append("%s %d ns not in (%s, %s]+1/32" % (name, v, lo, hi))
    lo, hi = bucket(p["count"])
    if not (lo < t["ns"][4] <= hi):
        bad.append("max %d ns not in (%s, %s]" % (t["ns"][4], lo, hi))
    check(not bad, "%s Prometheus buckets hold p50/p90/p99/p99.9/max%s" % (k, (": " + "; ".join(bad)) if bad else ""))
print(sum(res), len(res) - sum(res))
EOPY
	grep -E '^(ok|FAIL) ' "$TMP/$c.cmp"
	read -r p n < <(tail -n 1 "$TMP/$c.cmp")
	if [ -n "${p:-}" ] && [ -n "${n:-}" ]; then
		npass=$((npass + p)); nfail=$((nfail + n))
	else
		bad "$c: comparison did not run: $(tail -n 3 "$TMP/$c.cmp")"
	fi
done
finish $NAME
