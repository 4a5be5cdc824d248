#!/usr/bin/env bash
# The monitoring mixin (dist/mixin, docs/mixin.md):
#  - the committed generated files are what Debian's jsonnet makes of the
#    sources now (rebuilt into a temp dir, compared byte for byte);
#  - promtool check rules accepts the alerts and recording rules;
#  - promtool test rules passes on series recorded from real nfsrdmad runs
#    (dist/mixin/tests/), and fails once a planted change to an alert
#    stops the injected fault from firing;
#  - every alert carries summary, description, runbook and a runbook_url
#    whose anchor docs/mixin.md has;
#  - a real Prometheus (Debian's, loopback) scrapes nfsrdmad on two lab
#    captures at 4x their pace, a collector joining nfs3-read-write's
#    client, wire (at recorded pace) and server records and its
#    forwarder, with the rules
#    loaded: every rule evaluates without error, every dashboard panel's
#    query and every variable's label_values returns series
#    (tests/unit/mixin_queries.py; the two that need node_exporter or an
#    hour of history are named, and tested by promtool instead).
# Loopback only, no root.  Closing line: "mixin: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=mixin
MIX=$SRC/dist/mixin
for t in jsonnet promtool prometheus curl python3; do
	command -v $t >/dev/null || cannot $NAME "$t not installed (scripts/deps.sh test)"
done
[ -x "$BIN/nfsrdmad" ] || cannot $NAME "$BIN/nfsrdmad not built"

# ---- generated files up to date ----------------------------------------
make -s -C "$MIX" OUT="$TMP/gen" >"$TMP/gen.log" 2>&1
check "the mixin builds with $(jsonnet --version | sed 's/.*interpreter //')" [ $? -eq 0 ]
for f in alerts.yaml rules.yaml tests/alerts_test.yaml $(cd "$MIX" && ls dashboards_out/*.json); do
	check "$f is up to date with its jsonnet (make -C dist/mixin)" cmp -s "$MIX/$f" "$TMP/gen/$f"
done
check "dashboards_out holds just the dashboards the jsonnet makes ($(ls "$TMP/gen/dashboards_out" | wc -l))" \
	[ "$(ls "$MIX/dashboards_out")" = "$(ls "$TMP/gen/dashboards_out")" ]

# ---- promtool ------------------------------------------------------------
check "promtool check rules alerts.yaml rules.yaml" \
	sh -c "promtool check rules '$MIX/alerts.yaml' '$MIX/rules.yaml' >'$TMP/check.out' 2>&1"
check "promtool test rules tests/alerts_test.yaml (real series as scraped, 11 faults injected)" \
	sh -c "promtool test rules '$MIX/tests/alerts_test.yaml' >'$TMP/test.out' 2>&1"
# the same tests against an alert made blind to its fault must fail: the
# p99 threshold raised past the injected 0.2485 s
mkdir -p "$TMP/blind/tests"
sed 's/histogram_quantile{quantile="0.99"} > 0.1 /histogram_quantile{quantile="0.99"} > 0.3 /' "$MIX/alerts.yaml" >"$TMP/blind/alerts.yaml"
cp "$MIX/rules.yaml" "$TMP/blind/"; cp "$MIX/tests/alerts_test.yaml" "$TMP/blind/tests/"
blind() {
	! cmp -s "$MIX/alerts.yaml" "$TMP/blind/alerts.yaml" &&
		! promtool test rules "$TMP/blind/tests/alerts_test.yaml" >"$TMP/blind.out" 2>&1 &&
		grep -q 'alertname: NfsrdmaRpcLatencyHigh, time: 40m' "$TMP/blind.out"
}
check "promtool test rules fails on a planted blind alert (p99 threshold 0.3 s: NfsrdmaRpcLatencyHigh at 40m)" blind

check "every alert has summary, description, runbook, runbook_url; each anchor is a heading of docs/mixin.md" \
	python3 - "$MIX/alerts.yaml" "$SRC/docs/mixin.md" <<'PY'
import re, sys, yaml
doc = open(sys.argv[2]).read()
anchors = {re.sub(r'[^a-z0-9 -]', '', h.strip().lower()).replace(' ', '-') for h in re.findall(r'^#+ (.*)$', doc, re.M)}
bad = []
for g in yaml.safe_load(open(sys.argv[1]))["groups"]:
    for r in g["rules"]:
        a = r.get("annotations", {})
        if set(a) != {"summary", "description", "runbook", "runbook_url"} or a["runbook_url"].split("#")[1] not in anchors:
            bad.append(r["alert"])
print("alerts without their runbook:", bad)
sys.exit(1 if bad else 0)
PY

# ---- a real Prometheus on nfsrdmad ---------------------------------------
RUN=nfs3-read-write
for side in client server; do
	python3 "$SRC/tests/join/trace2records.py" $side "$CAPS/$RUN.truth/$side.trace" >"$TMP/$side.jsonl" ||
		cannot $NAME "trace2records.py $side failed"
done
nclient=$(grep -c '"xid"' "$TMP/client.jsonl")
M=$(free_port); CP=$(free_port); CM=$(free_port); FM=$(free_port); P=$(free_port)
# Prometheus first, so that it scrapes the counters as they grow
cat >"$TMP/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['$MIX/rules.yaml', '$MIX/alerts.yaml']
scrape_configs:
  - job_name: nfsrdmad
    static_configs:
      - targets: ['127.0.0.1:$M', '127.0.0.1:$CM', '127.0.0.1:$FM']
EOC
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$P" >"$TMP/prom.log" 2>&1 &
PIDS+=($!)
"$BIN/nfsrdmad" --source "$CAPS/server-restart.pcap" --source "$CAPS/multi-client.pcap" --speed 4 \
	--socket none --metrics 127.0.0.1:$M >"$TMP/d.out" 2>"$TMP/d.err" &
PIDS+=($!)
# the collector and its forwarder as tests/daemon/join-live.sh runs them,
# the capture at its recorded pace (9.3 s): the fused RPCs come out as its
# wire records come in, over several scrapes
"$BIN/nfsrdmad" --collect 127.0.0.1:$CP --collect-allow 127.0.0.1 --no-clock-hints --join-wait 86400 \
	--source "$CAPS/$RUN.pcap" --speed 1 --source "jsonl:$TMP/server.jsonl" --socket none --metrics 127.0.0.1:$CM \
	>"$TMP/c.out" 2>"$TMP/c.err" &
PIDS+=($!)
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$CM/metrics"
"$BIN/nfsrdmad" --forward 127.0.0.1:$CP --host-name client-a --source "jsonl:$TMP/client.jsonl" \
	--socket none --metrics 127.0.0.1:$FM >"$TMP/f.out" 2>"$TMP/f.err" &
PIDS+=($!)
q() { curl -sf --get "http://127.0.0.1:$P/api/v1/query" --data-urlencode "query=$1"; }
nseries() { q "$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))'; }
check "prometheus scrapes the daemon, the collector and the forwarder (up == 1)" \
	wait_for 40 sh -c "[ \"\$(curl -sf --get 'http://127.0.0.1:$P/api/v1/query' --data-urlencode 'query=count(up{job=\"nfsrdmad\"} == 1)' | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"data\"][\"result\"]; print(r[0][\"value\"][1] if r else 0)')\" = 3 ]"
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v k="$2" 'index($0, k) == 1 { n += $NF } END { print n + 0 }'; }
# the paced captures are done when their records stop growing for 2 s
done_paced_on() {
	local a b
	a=$(metric $1 nfsrdma_records_total); sleep 2; b=$(metric $1 nfsrdma_records_total)
	[ "$a" -gt 0 ] && [ "$a" = "$b" ]
}
done_paced() { done_paced_on $M; }
check "nfsrdmad read server-restart and multi-client at 4x pace" wait_for 60 done_paced
check "the collector joined the forwarder's $nclient client records" \
	wait_for 20 sh -c "[ \$(curl -s http://127.0.0.1:$CM/metrics | awk 'index(\$0, \"nfsrdma_join_records_total{result=\\\"remote\\\"}\") == 1 { print \$NF }') -ge $nclient ]"
fused_done() { [ "$(metric $CM 'nfsrdma_join_rpcs_total{result="complete"}')" -gt 0 ] && done_paced_on $CM; }
check "the collector fused the capture's RPCs (its wire records at recorded pace)" wait_for 60 fused_done
sleep 3   # the last scrapes and a rule evaluation over them
check "PromQL sees the verdicts of the fused RPCs" [ "$(nseries 'nfsrdma_rpc_verdict_total')" -gt 0 ]
check "every recording rule and alert evaluates in Prometheus 2.42 without error" python3 - "http://127.0.0.1:$P" <<'PY'
import json, sys, urllib.request
rules = [r for g in json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/rules"))["data"]["groups"] for r in g["rules"]]
bad = [(r["name"], r.get("lastError")) for r in rules if r.get("health") != "ok"]
print(len(rules), "rules, not ok:", bad)
sys.exit(1 if bad or len(rules) != 30 else 0)
PY
python3 "$SRC/tests/unit/mixin_queries.py" "http://127.0.0.1:$P" "$MIX"/dashboards_out/*.json >"$TMP/queries.out" 2>&1
sed '$d' "$TMP/queries.out"
read -r qp qf < <(tail -1 "$TMP/queries.out" | sed -nE 's/^mixin-queries: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p')
if [[ ${qp:-} =~ ^[0-9]+$ && ${qf:-} =~ ^[0-9]+$ ]]; then
	npass=$((npass + qp)); nfail=$((nfail + qf))
else
	bad "mixin_queries.py gave no closing line: $(tail -1 "$TMP/queries.out")"
fi
check "nfsrdmad, the collector and the forwarder logged no error" \
	sh -c "! grep -qi error '$TMP/d.err' '$TMP/c.err' '$TMP/f.err'"
finish $NAME
