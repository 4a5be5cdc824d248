#!/usr/bin/env bash
# The collector's live join on loopback, real ZeroMQ: a forwarder sends a
# lab run's client-probe records (jsonl: source, made from the client's
# kernel trace), the collector reads the server-probe records and the
# capture itself; its fused records are the offline join's
# (nfsrdma-dissect CAP --join client --join server): the same XIDs with
# the same vantages.  Its JSON stats and /metrics carry the join's
# counters and the clock estimates, and /metrics the fused phase
# histograms.  A bad jsonl: line is named and skipped.  Tier: unit (loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=daemon-join-live
D=$BIN/nfsrdmad
X=$BIN/nfsrdma-dissect
[ -x "$D" ] && [ -x "$X" ] || cannot $NAME "$D or $X not built"
command -v python3 >/dev/null || cannot $NAME "python3 missing"
command -v curl >/dev/null || cannot $NAME "curl missing"
RUN=nfs3-read-write
CAP=$CAPS/$RUN.pcap
TRUTH=$CAPS/$RUN.truth
[ -f "$CAP" ] && [ -f "$TRUTH/client.trace" ] || cannot $NAME "$CAP or its truth traces missing"
for side in client server; do
	python3 "$SRC/tests/join/trace2records.py" $side "$TRUTH/$side.trace" >"$TMP/$side.jsonl" ||
		cannot $NAME "trace2records.py $side failed"
done
nclient=$(grep -c '"xid"' "$TMP/client.jsonl")
[ "$nclient" -gt 10 ] || cannot $NAME "only $nclient client records"

# (xid vantages) per fused record, sorted
fused() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.startswith("{") and "\"xid\"" in l:
        r = json.loads(l); print(r["xid"], "+".join(r.get("vantages", [])))' "$1" | sort; }
"$X" --json "$CAP" --join "$TMP/client.jsonl" --join "$TMP/server.jsonl" >"$TMP/offline.json" 2>"$TMP/offline.err"
check "offline join exits 0" [ $? -eq 0 ]
fused "$TMP/offline.json" >"$TMP/want"
nall=$(grep -c 'client+wire+server' "$TMP/want")
[ "$nall" -gt 10 ] || cannot $NAME "the offline join fused only $nall RPCs with all three vantages"

P=$(free_port); M=$(free_port)
# the inputs are files: their times are the lab guests' clocks, not this
# host's, so no hints; every RPC waits until its vantages come or the end
"$D" --collect 127.0.0.1:$P --collect-allow 127.0.0.1 --no-clock-hints --join-wait 86400 \
	--source "$CAP" --source "jsonl:$TMP/server.jsonl" --socket none --metrics 127.0.0.1:$M --json \
	--summary-interval 0.2 >"$TMP/c.json" 2>"$TMP/c.err" & C=$!; PIDS+=($C)
wait_for 5 curl -sf "http://127.0.0.1:$M/metrics" -o /dev/null
"$D" --forward 127.0.0.1:$P --host-name client-a --source "jsonl:$TMP/client.jsonl" --exit-at-end \
	--socket none --metrics none --json >"$TMP/f.json" 2>"$TMP/f.err"
check "forwarder exits 0" [ $? -eq 0 ]
metric() { curl -s "http://127.0.0.1:$M/metrics" | awk -v k="$1" 'index($0, k) == 1 { n += $NF } END { print n + 0 }'; }
remote_all() { [ "$(metric 'nfsrdma_join_records_total{result="remote"}')" -ge "$nclient" ]; }
wait_for 10 remote_all
curl -s "http://127.0.0.1:$M/metrics" >"$TMP/metrics"
check "/metrics: the join's complete RPCs = the offline join's three-vantage ones ($nall)" \
	[ "$(metric 'nfsrdma_join_rpcs_total{result="complete"}')" -eq "$nall" ]
# the run's kernels never contradict themselves (tests/join/check.py):
# a negative phase here could only be the live alignment's doing
neg_reasons() {
	[ "$(grep -c '^nfsrdma_join_negative_total{reason="\(client\|wire\|server\|clock\)"}' "$TMP/metrics")" -eq 4 ] &&
		[ "$(metric 'nfsrdma_join_negative_total{reason="clock"}')" -eq 0 ]
}
check "/metrics: negative phases counted by reason, none from the clocks" neg_reasons
check "/metrics: a clock estimate between the client's probe and a local vantage" \
	grep -q '^nfsrdma_join_clock_offset_seconds{host_a="local",vantage_a="[a-z]*",host_b="client-a",vantage_b="client"}' "$TMP/metrics"
check "/metrics: its uncertainty too" \
	grep -q '^nfsrdma_join_clock_uncertainty_seconds{.*host_b="client-a",vantage_b="client"}' "$TMP/metrics"
# the fused histograms: one observation of the total per fused RPC, and
# the phases of each RPC partition it (sums equal to the nanosecond)
read -r nfused tot psum <<<"$(python3 -c 'import sys
n = 0; tot = ps = 0.0
for l in open(sys.argv[1]):
    if l.startswith("nfsrdma_rpc_fused_duration_seconds_count{"): n += int(l.split()[-1])
    elif l.startswith("nfsrdma_rpc_fused_duration_seconds_sum{"): tot += float(l.split()[-1])
    elif l.startswith("nfsrdma_rpc_fused_phase_seconds_sum{"): ps += float(l.split()[-1])
print(n, round(tot, 6), round(ps, 6))' "$TMP/metrics")"
check "/metrics: fused duration histograms count the fused RPCs ($nfused = $nall)" [ "$nfused" -eq "$nall" ]
check "/metrics: fused phase histograms sum to the fused durations ($psum = $tot)" [ "$psum" = "$tot" ]
check "/metrics: a fused phase series carries op, client, server and transport" \
	grep -qE '^nfsrdma_rpc_fused_phase_seconds_bucket\{protocol="NFSv3",operation="[A-Z]+",client="[^"]+",server="[^"]+",transport="rdma",phase="[a-z_+]+",le="\+Inf"\} [1-9]' "$TMP/metrics"
check "/metrics: the execute phase (server vantage) is there" grep -q '^nfsrdma_rpc_fused_phase_seconds_count{.*phase="execute"} [1-9]' "$TMP/metrics"
# the protobuf exposition (what a Prometheus with native histograms asks
# for), read by a decoder of the wire format written here: the fused
# histograms as native ones, schema 5, each series' native buckets
# holding all its samples, as many as the text's _count lines say
curl -s -H 'Accept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited' \
	"http://127.0.0.1:$M/metrics" -o "$TMP/metrics.pb"
check "/metrics as protobuf: fused histograms native (schema 5), every sample in a native bucket, counts = text's" \
	python3 - "$TMP/metrics.pb" "$TMP/metrics" <<'PY'
import sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):   # {field: [value]}: varints as ints, length-delimited as bytes
    out, i = {}, 0
    while i < len(b):
        k, i = varint(b, i)
        if k & 7 == 0: v, i = varint(b, i)
        elif k & 7 == 1: v, i = b[i:i + 8], i + 8
        elif k & 7 == 2: n, i = varint(b, i); v, i = b[i:i + n], i + n
        else: raise ValueError("wire type %d" % (k & 7))
        out.setdefault(k >> 3, []).append(v)
    return out
zz = lambda v: (v >> 1) ^ -(v & 1)
data, i, got = open(sys.argv[1], "rb").read(), 0, {}
while i < len(data):
    n, i = varint(data, i); fam = fields(data[i:i + n]); i += n
    name = fam[1][0].decode()
    if name not in ("nfsrdma_rpc_fused_duration_seconds", "nfsrdma_rpc_fused_phase_seconds"): continue
    for m in fam.get(4, []):
        h = fields(fields(m)[7][0])
        count, schema = h[1][0], zz(h[5][0])
        deltas, cur, inb = [], 0, h.get(7, [0])[0]
        for d in h.get(13, []):   # packed sint64
            j = 0
            while j < len(d):
                v, j = varint(d, j); cur += zz(v); inb += cur
        assert schema == 5, (name, schema)
        assert inb == count, (name, inb, count)
        got[name] = got.get(name, 0) + count
want = {}
for l in open(sys.argv[2]):
    for name in ("nfsrdma_rpc_fused_duration_seconds", "nfsrdma_rpc_fused_phase_seconds"):
        if l.startswith(name + "_count{"): want[name] = want.get(name, 0) + int(l.split()[-1])
print(got, want)
sys.exit(0 if got == want and got.get("nfsrdma_rpc_fused_duration_seconds") else 1)
PY
# segments, places and verdicts (docs/record.md "Segments and the
# verdict"): the segments are clock-free, so their sums over the complete
# RPCs are the offline join's to the nanosecond whatever the live clocks;
# the places partition each RPC's total; promtool accepts the lot
check "/metrics: segment seconds and RPCs = the offline join's complete records' seg sums" python3 - "$TMP/metrics" "$TMP/offline.json" <<'PY'
import json, re, sys
got = {}
for l in open(sys.argv[1]):
    m = re.match(r'nfsrdma_rpc_segment_(seconds|rpcs)_total\{.*segment="(\w+)"\} (\S+)$', l)
    if m:
        k = (m.group(1), m.group(2)); got[k] = got.get(k, 0) + float(m.group(3))
want = {}
for l in open(sys.argv[2]):
    if not l.startswith("{") or '"xid"' not in l: continue
    r = json.loads(l)
    if set(r.get("vantages", [])) != {"client", "wire", "server"}: continue
    for s, v in (r.get("seg") or {}).items():
        if v is not None and s in ("client_net", "server_net"):
            want[("seconds", s)] = want.get(("seconds", s), 0) + v / 1e9
            want[("rpcs", s)] = want.get(("rpcs", s), 0) + 1
print("got", got, "want", want)
ok = want and set(got) == set(want) and all(abs(got[k] - want[k]) < 1e-6 for k in want)
sys.exit(0 if ok else 1)
PY
read -r psum dsum <<<"$(python3 -c 'import sys
ps = ds = 0.0
for l in open(sys.argv[1]):
    if l.startswith("nfsrdma_rpc_place_seconds_total{"): ps += float(l.split()[-1])
    elif l.startswith("nfsrdma_rpc_fused_duration_seconds_sum{"): ds += float(l.split()[-1])
print(round(ps, 6), round(ds, 6))' "$TMP/metrics")"
check "/metrics: place seconds add up to the fused durations ($psum = $dsum)" [ "$psum" = "$dsum" ]
check "/metrics: verdicts carry the fused labels and a place of the eight (a|b when unresolved)" \
	grep -qE '^nfsrdma_rpc_verdict_total\{protocol="NFSv3",operation="[A-Z]+",client="[^"]+",server="[^"]+",transport="rdma",place="(client_host|client_net|server_net|server_queue|execute|pull|push|reply_wait)(\|[a-z_]+)*"\} [1-9]' "$TMP/metrics"
check "/metrics: no verdict names a direction" bash -c "! grep -E '^nfsrdma_rpc_(verdict|place_seconds)_total\{.*(net_out|net_back)' '$TMP/metrics'"
if command -v promtool >/dev/null; then
	check "/metrics: promtool check metrics accepts the exposition (segments, places, verdicts)" \
		sh -c "promtool check metrics <'$TMP/metrics' >'$TMP/promtool.out' 2>&1"
fi
kill "$C"; wait "$C"
check "/metrics: verdict counts = the collector's complete records' own verdicts" python3 - "$TMP/metrics" "$TMP/c.json" <<'PY'
import json, re, sys
got = {}
for l in open(sys.argv[1]):
    m = re.match(r'nfsrdma_rpc_verdict_total\{.*place="([^"]+)"\} (\S+)$', l)
    if m: got[m.group(1)] = got.get(m.group(1), 0) + int(m.group(2))
want = {}
for l in open(sys.argv[2]):
    if not l.startswith("{") or '"xid"' not in l: continue
    r = json.loads(l)
    if set(r.get("vantages", [])) == {"client", "wire", "server"} and r.get("verdict"):
        k = "|".join(r["verdict"]["place"]); want[k] = want.get(k, 0) + 1
print("got", got, "want", want)
sys.exit(0 if want and got == want else 1)
PY
fused "$TMP/c.json" >"$TMP/got"
check "collector's fused records = the offline join's: same XIDs, same vantages ($(wc -l <"$TMP/want"))" \
	cmp -s "$TMP/got" "$TMP/want"
summary() { python3 -c 'import json,sys
s = None
for l in open(sys.argv[1]):
    if l.startswith("{\"type\":\"daemon_summary\""): s = json.loads(l)["summary"]
print(eval(sys.argv[2]))' "$1" "$2"; }
check "JSON stats: join counters (remote = client records, complete = $nall, every record out once)" \
	[ "$(summary "$TMP/c.json" '(s["join"]["remote"], s["join"]["complete"], s["join"]["emitted"] == s["join"]["complete"] + s["join"]["partial"])')" = "($nclient, $nall, True)" ]
check "JSON stats: a clock estimate per pair with offset and uncertainty" \
	[ "$(summary "$TMP/c.json" 'all("offset_ns" in c and "uncertainty_ns" in c for c in s["join"]["clocks"]) and len(s["join"]["clocks"]) >= 2')" = "True" ]
check "JSON stats: the join's verdict, places and segments = the sums of its fused records' own" python3 - "$TMP/c.json" <<'PY'
import json, sys
PL = ["client_host", "client_net", "server_net", "server_queue", "execute", "pull", "push", "reply_wait"]
s, sets, segs, n = None, {}, {}, 0
for l in open(sys.argv[1]):
    if l.startswith("{\"type\":\"daemon_summary\""): s = json.loads(l)["summary"]["join"]
    elif l.startswith("{") and '"xid"' in l:
        r = json.loads(l)
        if r.get("source") != "joined": continue
        for p in r.get("places", []):
            k = sum(1 << PL.index(x) for x in p["place"]); sets[k] = sets.get(k, 0) + p["ns"]
        for k, v in (r.get("seg") or {}).items():
            if v is not None:
                segs.setdefault(k, [0, 0]); segs[k][0] += v; segs[k][1] += 1
tot = sum(sets.values())
best = max(sets, key=lambda b: (sets[b], -b))
want_v = {"place": [PL[i] for i in range(8) if best >> i & 1], "share": round((sets[best] * 1000 + tot // 2) // tot / 1000, 3)}
got_sets = {sum(1 << PL.index(x) for x in p["place"]): p["ns"] for p in s["places"]}
got_segs = {k: [v["sum_ns"], v["rpcs"]] for k, v in s["seg"].items() if v}
print("verdict", s["verdict"], want_v)
sys.exit(0 if s["verdict"] == want_v and got_sets == sets and got_segs == segs else 1)
PY
check "collector: no warnings" [ ! -s "$TMP/c.err" ]

# ---- jsonl: bad input: the bad line named (file:line), the rest read ----
{ head -3 "$TMP/client.jsonl"; echo '{"v":4,"xid":'; sed -n 4,5p "$TMP/client.jsonl"; } >"$TMP/bad.jsonl"
"$D" --source "jsonl:$TMP/bad.jsonl" --exit-at-end --socket none --metrics none --json --summary-interval 0 \
	>"$TMP/bad.out" 2>"$TMP/bad.err"
rc=$?
check "jsonl: a bad line: exit 0, named once" [ "$rc/$(grep -c "bad.jsonl:4: " "$TMP/bad.err")" = 0/1 ]
check "jsonl: the five good records read" [ "$(grep -c '"xid"' "$TMP/bad.out")" = 5 ]
finish $NAME
