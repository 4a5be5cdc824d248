#!/usr/bin/env bash
# A real Prometheus (Debian's package) scrapes nfsrdmad fed from two lab
# captures; PromQL over its HTTP API must give, per operation, the number
# of RPCs the kernel client recorded (client.trace, rpc_stats_latency).
# Tier: golden (needs the prometheus package; no root, loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=daemon-prometheus
PROM=$(command -v prometheus || echo /usr/bin/prometheus)
[ -x "$PROM" ] || cannot $NAME "prometheus not installed (Debian package prometheus)"
[ -x "$BIN/nfsrdmad" ] || cannot $NAME "$BIN/nfsrdmad not built"

caps=(nfs3-metadata nfs3-read-write)
mport=$(free_port); pport=$(free_port)
srcargs=()
for c in "${caps[@]}"; do srcargs+=(--source "pcap:$CAPS/$c.pcap"); done
"$BIN/nfsrdmad" "${srcargs[@]}" --metrics "127.0.0.1:$mport" --socket none \
	>"$TMP/daemon.out" 2>"$TMP/daemon.err" &
PIDS+=($!)
check "nfsrdmad serves /metrics on 127.0.0.1:$mport" \
	wait_for 10 curl -sf -o "$TMP/metrics.txt" "http://127.0.0.1:$mport/metrics"

prom_config "$TMP/prometheus.yml" "$mport"
"$PROM" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$TMP/prom.log" 2>&1 &
PIDS+=($!)

q() { curl -sf --get "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
# Prometheus is up and has scraped the daemon
up_and_scraped() {
	q 'up{job="nfsrdmad"} == 1' | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["data"]["result"] else 1)'
}
check "prometheus scrapes the daemon (up == 1)" wait_for 40 up_and_scraped

expected=$({ for c in "${caps[@]}"; do truth_ops "$CAPS/$c.truth/client.trace"; done
	    for c in "${caps[@]}"; do tcp_ops "$CAPS/$c.pcap"; done; } |
	awk '{ n[$1 " " $2] += $3 } END { for (k in n) print k, n[k] }' | sort)
[ -n "$expected" ] || bad "ground truth: no rpc_stats_latency lines"

# The daemon finishes the files in well under a second; wait until the
# scraped total equals the truth total, then compare per operation.
want_total=$(awk '{ s += $3 } END { print s }' <<<"$expected")
total_is() {
	[ "$(q 'sum(nfsrdma_rpc_requests_total)' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')" = "$1" ]
}
check "PromQL sum(nfsrdma_rpc_requests_total) = $want_total (truth)" wait_for 20 total_is "$want_total"

q 'sum by (protocol, operation) (nfsrdma_rpc_requests_total)' >"$TMP/byop.json"
got=$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["data"]["result"]:
    print(r["metric"]["protocol"], r["metric"]["operation"], r["value"][1])' "$TMP/byop.json" | sort)
while read -r p o n; do
	g=$(awk -v p="$p" -v o="$o" '$1 == p && $2 == o { print $3 }' <<<"$got")
	check "PromQL $p $o = $n" [ "${g:-0}" = "$n" ]
done <<<"$expected"
extra=$(comm -13 <(awk '{print $1, $2}' <<<"$expected") <(awk '{print $1, $2}' <<<"$got"))
check "no operation beyond the truth (${extra:-none})" [ -z "$extra" ]

# histogram: the _count of answered RPCs equals the requests for a capture
# where every RPC was answered, and histogram_quantile works on it
q 'histogram_quantile(0.5, sum by (le) (rate(nfsrdma_rpc_duration_seconds_bucket[1m])))' >"$TMP/hq.json"
hc=$(q 'sum(nfsrdma_rpc_duration_seconds_count)' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
check "duration histogram counts every answered RPC ($hc)" [ "$hc" = "$want_total" ]
# the exposition as it is once every record is in (the copy taken at start-up
# may predate the READs: a race under load)
curl -sf -o "$TMP/metrics.txt" "http://127.0.0.1:$mport/metrics"
check "labels are node_exporter style (client/server/protocol/operation/transport)" \
	grep -q 'nfsrdma_rpc_duration_seconds_bucket{protocol="NFSv3",operation="READ",client="10.9.0.2",server="10.9.0.1",transport="rdma",le=' "$TMP/metrics.txt"
# the mount's rpcbind and MOUNT calls over TCP are series of their own
check "TCP RPCs have their own series (transport=\"tcp\")" \
	grep -q '^nfsrdma_rpc_requests_total{protocol="MOUNTv3",operation="MNT",client="10.9.0.2",server="10.9.0.1",transport="tcp"} [1-9]' "$TMP/metrics.txt"
# the phases partition each answered RPC, so per operation the phase
# counter adds up to the duration histogram's _sum (docs/record.md)
check "phase seconds add up to duration seconds, per operation" python3 - "$TMP/metrics.txt" <<'PY'
import re, sys
ph, du = {}, {}
for l in open(sys.argv[1]):
    m = re.match(r'(nfsrdma_rpc_phase_seconds_total|nfsrdma_rpc_duration_seconds_sum)\{(.*)\} (\S+)$', l)
    if not m: continue
    lab = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
    key = (lab["protocol"], lab["operation"])
    d = ph if m.group(1).startswith("nfsrdma_rpc_phase") else du
    d[key] = d.get(key, 0.0) + float(m.group(3))
bad = [k for k in du if abs(ph.get(k, 0.0) - du[k]) > 1e-6 * 20]
print("operations", len(du), "mismatches", bad)
sys.exit(1 if bad or not du else 0)
PY
check "connections are labelled conn/client/client_qp/server/server_qp/transport (no joined string)" \
	grep -qE '^nfsrdma_connection_requests_total\{conn="[0-9]+",client="10\.9\.0\.2",client_qp="[0-9]+",server="10\.9\.0\.1",server_qp="[0-9]+",transport="rdma"\} [0-9]+$' "$TMP/metrics.txt"
check "drops are exported" grep -q '^nfsrdma_dropped_records_total{reason="queue"} 0' "$TMP/metrics.txt"
check "promtool check metrics accepts the exposition" \
	sh -c "promtool check metrics <'$TMP/metrics.txt' >'$TMP/promtool.out' 2>&1"
# the host's clock as the kernel says it: read here through adjtimex(2)
# by ctypes, around a fresh scrape (maxerror only grows between syncs)
host_clock_check() {
	python3 - "http://127.0.0.1:$mport/metrics" <<'PY'
import ctypes, sys, urllib.request
class Timex(ctypes.Structure):
    _fields_ = [("modes", ctypes.c_int), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("rest", ctypes.c_char * 256)]
libc = ctypes.CDLL(None, use_errno=True)
def read():
    t = Timex()
    state = libc.adjtimex(ctypes.byref(t))
    return state, t
s0, t0 = read()
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
s1, t1 = read()
m = {l.split()[0]: float(l.split()[1]) for l in text.splitlines() if l.startswith("nfsrdma_host_clock_")}
synced = lambda s, t: int(not (t.status & 0x40) and s != 5)
ok = (m.get("nfsrdma_host_clock_synchronized") in (synced(s0, t0), synced(s1, t1)) and
      t0.maxerror * 1e-6 - 1e-6 <= m.get("nfsrdma_host_clock_maxerror_seconds", -1) <= t1.maxerror * 1e-6 + 1e-6 and
      min(t0.esterror, t1.esterror) * 1e-6 - 1e-6 <= m.get("nfsrdma_host_clock_esterror_seconds", -1) <= max(t0.esterror, t1.esterror) * 1e-6 + 1e-6)
print(m, "adjtimex:", synced(s0, t0), t0.maxerror, t1.maxerror, t0.esterror)
sys.exit(0 if ok else 1)
PY
}
check "the host's clock (synchronised, maxerror, esterror) as adjtimex says it" host_clock_check
check "non-GET is refused (405)" [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$mport/metrics")" = 405 ]
check "unknown path is 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/nope")" = 404 ]
finish $NAME
