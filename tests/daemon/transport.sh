#!/usr/bin/env bash
# RPCs by transport: the same operation over RDMA and over TCP/UDP is never
# one row or one series.  For NFS over TCP (nfs3-tcp) and an NFS/RDMA
# capture with its mount's rpcbind/MOUNT over TCP (nfs3-metadata):
#  - nfsrdmad's Prometheus nfsrdma_rpc_requests_total summed by its
#    transport label = the records of `nfsrdma-dissect -z transport`
#    (replies + unanswered) per transport, and the same for the
#    connections' nfsrdma_connection_requests_total;
#  - nfsrdma-top -b --json -r: its operation rows summed by transport
#    (the key's " tcp" / " udp", none for RDMA) = the same, and
#    --transport tcp keeps only the TCP rows.
# Tier: golden (no root; loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=transport
for b in nfsrdma-dissect nfsrdma-top nfsrdmad; do
	[ -x "$BIN/$b" ] || cannot $NAME "$BIN/$b not built"
done
command -v curl >/dev/null || cannot $NAME "curl not installed"

for c in nfs3-tcp nfs3-metadata; do
	f=$CAPS/$c.pcap
	# "rdma 167" "tcp 6": records per transport
	"$BIN/nfsrdma-dissect" -q -z transport "$f" |
		awk '/^== diagnosis/{exit} /^== |^transport |^total /{next} NF > 5 { print $1, $3 + $5 }' | sort >"$TMP/$c.want"
	check "$c: the dissector's -z transport has rows ($(tr '\n' ' ' <"$TMP/$c.want"))" [ -s "$TMP/$c.want" ]
	want=$(awk '{ s += $2 } END { print s + 0 }' "$TMP/$c.want")

	port=$(free_port)
	"$BIN/nfsrdmad" --source "pcap:$f" --metrics "127.0.0.1:$port" --socket none \
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
	# a phase no RPC of an operation had is no series (TCP: no pull, push,
	# wait), while the phases it had are there
	check "$c: no TCP operation has a pull, push or wait phase series" \
		bash -c "! grep -qE '^nfsrdma_rpc_phase_seconds_total\{[^}]*transport=\"tcp\",phase=\"(pull|push|wait|queue|server)\"\}' '$TMP/$c.metrics'"
	check "$c: every TCP operation has its call, queue+server and reply series" python3 - "$TMP/$c.metrics" <<'EOPY'
import re, sys
ops, ph = set(), {}
for l in open(sys.argv[1]):
    m = re.match(r'nfsrdma_rpc_(duration_seconds_count|phase_seconds_total)\{protocol="([^"]+)",operation="([^"]+)",(?:client="[^"]*",server="[^"]*",)?transport="tcp"(?:,phase="([^"]+)")?\} (\S+)$', l)
    if not m: continue
    k = (m.group(2), m.group(3))
    if m.group(1).startswith("duration") and float(m.group(5)) > 0: ops.add(k)
    if m.group(4): ph.setdefault(k, set()).add(m.group(4))
want = {"call", "queue+server", "reply"}
sys.exit(0 if ops and all(ph.get(k) == want for k in ops) else 1)
EOPY
	for m in nfsrdma_rpc_requests_total nfsrdma_connection_requests_total; do
		sed -nE "s/^$m\{.*transport=\"([a-z]+)\"\} ([0-9]+)$/\1 \2/p" "$TMP/$c.metrics" |
			awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort >"$TMP/$c.$m"
		check "$c: $m by transport = -z transport ($(tr '\n' ' ' <"$TMP/$c.$m"))" \
			cmp -s "$TMP/$c.want" "$TMP/$c.$m"
	done

	"$BIN/nfsrdma-top" -b --json -n 1 -d 5 -r "$f" >"$TMP/$c.top" 2>"$TMP/$c.top.err"
	python3 - "$TMP/$c.top" >"$TMP/$c.topt" <<'EOPY'
import collections, json, sys
s = collections.Counter()
for r in json.loads(open(sys.argv[1]).readline())["rows"]:
    w = r["key"].split()
    s[w[-1] if w[-1] in ("tcp", "udp") else "rdma"] += r["records"]
for k in sorted(s):
    print(k, s[k])
EOPY
	check "$c: top's operation rows by transport = -z transport ($(tr '\n' ' ' <"$TMP/$c.topt"))" \
		cmp -s "$TMP/$c.want" "$TMP/$c.topt"
	"$BIN/nfsrdma-top" -b -n 1 -d 5 --transport tcp -r "$f" >"$TMP/$c.toptcp" 2>&1
	rows=$(awk '/^OPERATION /{t=1; next} t && NF == 0 {t=0} t' "$TMP/$c.toptcp")
	ntcp=$(awk '$1 == "tcp" { print $2 }' "$TMP/$c.want")
	check "$c: top --transport tcp: only TCP rows, all of them ($(wc -l <<<"$rows") rows)" \
		bash -c "[ -n '$rows' ] && ! grep -qv ' tcp ' <<<'$rows' &&
			[ \$(awk '{ s += \$4 } END { print s + 0 }' <<<'$rows') = '${ntcp:-0}' ]"
done
finish $NAME
