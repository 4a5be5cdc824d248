#!/usr/bin/env bash
# Percentiles a real Prometheus gets right: nfsrdmad reads the lab's NFSv3
# captures (flat out, one daemon, every capture a source); two Debian
# Prometheus 2.42 scrape it, one as any scraper does (text exposition,
# classic buckets) and one with --enable-feature=native-histograms (it
# asks for the protobuf exposition and gets native buckets).  Through the
# HTTP API, histogram_quantile(0.5 and 0.99) per operation on the native
# one must be within 5 % of nfsrdma-top's p50 and p99 (top reading the
# same captures standalone) for every operation with >= 100 RPCs; the
# native scrape must hold at most twice the series of the classic one.
# The classic quantiles are printed beside them (the table of
# bench/README.md), not judged.
# Tier: golden (needs the prometheus package; no root, loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=prom-quantiles
PROM=$(command -v prometheus || echo /usr/bin/prometheus)
[ -x "$PROM" ] || cannot $NAME "prometheus not installed (Debian package prometheus)"
for b in nfsrdmad nfsrdma-top; do
	[ -x "$BIN/$b" ] || cannot $NAME "$BIN/$b not built"
done

# every NFSv3-over-RDMA lab capture: LOOKUP, GETACL and WRITE pass 100
caps=(nfs3-metadata nfs3-metadata-k6.12 nfs3-readdirplus nfs3-read-write nfs3-read-write-k6.12
      parallel parallel-k6.12 smoke nfs3-symlink)
srcargs=()
for c in "${caps[@]}"; do
	[ -r "$CAPS/$c.pcap" ] || cannot $NAME "$CAPS/$c.pcap missing"
	srcargs+=(--source "pcap:$CAPS/$c.pcap")
done

"$BIN/nfsrdma-top" -b --json -n 1 "${srcargs[@]}" >"$TMP/top.json" 2>"$TMP/top.err"
check "nfsrdma-top -b --json reads the captures" [ -s "$TMP/top.json" ]
want=$(python3 -c 'import json,sys; print(sum(r["records"] for r in json.load(open(sys.argv[1]))["rows"]))' "$TMP/top.json" 2>/dev/null)
[ -n "$want" ] && [ "$want" -gt 0 ] || bad "top: no records"

mport=$(free_port)
"$BIN/nfsrdmad" "${srcargs[@]}" --metrics "127.0.0.1:$mport" --socket none \
	>"$TMP/daemon.out" 2>"$TMP/daemon.err" &
PIDS+=($!)
check "nfsrdmad serves /metrics on 127.0.0.1:$mport" \
	wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$mport/metrics"

# The exposition each kind of scraper gets: no Accept (curl, any text
# scraper), and the Accept of Prometheus 2.42 with native histograms on
# (as it sends it).
PB_ACCEPT='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
ctype() { curl -s -o /dev/null -w '%{content_type}' "$@" "http://127.0.0.1:$mport/metrics"; }
check "no Accept: the text exposition" [ "$(ctype)" = "text/plain; version=0.0.4; charset=utf-8" ]
check "Accept text before protobuf: the text exposition" \
	[ "$(ctype -H 'Accept: text/plain;version=0.0.4,application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.5')" = "text/plain; version=0.0.4; charset=utf-8" ]
check "Prometheus 2.42's native-histogram Accept: the protobuf exposition" \
	[ "$(ctype -H "Accept: $PB_ACCEPT")" = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited" ]

prom_config "$TMP/prometheus.yml" "$mport"
cport=$(free_port); nport=$(free_port)
"$PROM" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb-classic" \
	--web.listen-address="127.0.0.1:$cport" >"$TMP/prom-classic.log" 2>&1 &
PIDS+=($!)
"$PROM" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb-native" \
	--web.listen-address="127.0.0.1:$nport" --enable-feature=native-histograms >"$TMP/prom-native.log" 2>&1 &
PIDS+=($!)

q() { curl -sf --get "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2"; }
scalar() { q "$1" "$2" | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'; }
# every record is in the scrape Prometheus holds
all_in() { [ "$(scalar "$1" 'sum(nfsrdma_rpc_requests_total)')" = "$want" ]; }
check "classic Prometheus scraped all $want records" wait_for 60 all_in "$cport"
check "native Prometheus scraped all $want records" wait_for 60 all_in "$nport"
# the scrapes are taken after the last record, so each series is complete
sleep 2

by='protocol, operation, transport'
for p in 50 99; do
	q "$nport" "histogram_quantile(0.$p, sum by ($by) (nfsrdma_rpc_duration_seconds))" >"$TMP/native-p$p.json"
	q "$cport" "histogram_quantile(0.$p, sum by ($by, le) (nfsrdma_rpc_duration_seconds_bucket))" >"$TMP/classic-p$p.json"
done
series_c=$(scalar "$cport" 'count({job="nfsrdmad"})')
series_n=$(scalar "$nport" 'count({job="nfsrdmad"})')
lines=$(curl -sf "http://127.0.0.1:$mport/metrics" | grep -vc '^#')
echo "series: text exposition $lines samples; Prometheus classic $series_c, native $series_n"
check "native histograms: at most twice the series of the classic scrape ($series_n <= 2 x $series_c)" \
	[ -n "$series_n" ] && [ -n "$series_c" ] && [ "$series_n" -le $((2 * series_c)) ]
check "native Prometheus keeps no classic buckets (nfsrdma_rpc_duration_seconds_bucket absent)" \
	[ "$(scalar "$nport" 'count(nfsrdma_rpc_duration_seconds_bucket)')" = "" ]

# Compare; the helper prints the table, one ok/FAIL line per check, "N M" last.
python3 - "$TMP" >"$TMP/cmp" <<'EOPY'
import json, sys
tmp = sys.argv[1]
res = []
def check(ok, what):
    res.append(ok)
    print(("ok   " if ok else "FAIL ") + what)

def prom(kind, p):
    out = {}
    for r in json.load(open("%s/%s-p%d.json" % (tmp, kind, p)))["data"]["result"]:
        m = r["metric"]
        key = m["protocol"] + " " + m["operation"] + ("" if m["transport"] == "rdma" else " " + m["transport"])
        out[key] = float(r["value"][1]) * 1e3
    return out

top = {r["key"]: r for r in json.load(open(tmp + "/top.json"))["rows"]}
nat = {p: prom("native", p) for p in (50, 99)}
cla = {p: prom("classic", p) for p in (50, 99)}
off = lambda a, b: 100.0 * (a - b) / b if b else float("nan")
print("| operation | RPCs | top p50 ms | top p99 ms | classic p50 ms (off) | classic p99 ms (off) | native p50 ms (off) | native p99 ms (off) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
judged = 0
for k, t in sorted(top.items(), key=lambda kv: -kv[1]["records"]):
    tp = {50: t["p50_ns"] / 1e6, 99: t["p99_ns"] / 1e6}
    cells = []
    for src in (cla, nat):
        for p in (50, 99):
            v = src[p].get(k)
            cells.append("-" if v is None else "%.3f (%+.1f %%)" % (v, off(v, tp[p])))
    print("| %s | %d | %.3f | %.3f | %s |" % (k, t["records"], tp[50], tp[99], " | ".join(cells)))
    if t["records"] < 100:
        continue
    judged += 1
    for p in (50, 99):
        v = nat[p].get(k)
        check(v is not None and abs(off(v, tp[p])) <= 5.0,
              "%s (%d RPCs): native histogram_quantile(0.%d) %s ms vs top p%d %.3f ms, within 5 %%"
              % (k, t["records"], p, "none" if v is None else "%.3f" % v, p, tp[p]))
check(judged > 0, "%d operations with >= 100 RPCs compared" % judged)
print(sum(res), len(res) - sum(res))
EOPY
grep -E '^\|' "$TMP/cmp"
grep -E '^(ok|FAIL) ' "$TMP/cmp"
read -r p n < <(tail -n 1 "$TMP/cmp")
if [ -n "${p:-}" ] && [ -n "${n:-}" ]; then
	npass=$((npass + p)); nfail=$((nfail + n))
else
	bad "comparison did not run: $(tail -n 3 "$TMP/cmp")"
fi
finish $NAME
