#!/usr/bin/env bash
# Robustness: nfsrdmad under a 10x burst (eight copies of a lab capture
# replayed at ten times their recorded pace into a deliberately small
# queue): memory stays bounded (RSS sampled from /proc), drops are counted
# and add up (records + dropped = produced), the daemon survives; then it
# is killed and restarted, and nfsrdma-top (in tmux) reconnects by itself.
# Tier: golden (needs tmux for the reconnect part; no root).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=daemon-burst
[ -x "$BIN/nfsrdmad" ] || cannot $NAME "$BIN/nfsrdmad not built"
RSS_LIMIT_KB=${RSS_LIMIT_KB:-131072}   # 128 MB: the bounds (queue, rows, in-flight) keep it far below

# Ground truth (lib.sh truth_ops: the kernel client's rpc_stats_latency
# lines, and tshark's count of the rpcbind and MOUNT calls over TCP): the
# RPCs of one copy of the capture, and the LOOKUPs of the capture the
# restarted daemon reads.
rpcs=$({ truth_ops "$CAPS/parallel.truth/client.trace"; tcp_ops "$CAPS/parallel.pcap"; } | awk '{ s += $3 } END { print s + 0 }')
lookups=$(truth_ops "$CAPS/nfs3-metadata.truth/client.trace" | awk '$1 == "NFSv3" && $2 == "LOOKUP" { print $3 }')
[ "${rpcs:-0}" -gt 0 ] && [ "${lookups:-0}" -gt 0 ] ||
	cannot $NAME "no rpc_stats_latency ground truth in $CAPS/{parallel,nfs3-metadata}.truth"

mport=$(free_port)
SOCK=$TMP/d.sock
srcs=()
for i in 1 2 3 4 5 6 7 8; do srcs+=(--source "pcap:$CAPS/parallel.pcap"); done
"$BIN/nfsrdmad" "${srcs[@]}" --speed 10 --queue 4 --metrics "127.0.0.1:$mport" --socket "$SOCK" \
	>"$TMP/d.out" 2>"$TMP/d.err" &
dpid=$!
PIDS+=($dpid)
maxrss=0
# RSS sampled until the sources have produced every record (the burst
# lasts ~1 s: a 9.8 s capture at 10x); 600 samples only catch a hang
produced() { curl -sf "http://127.0.0.1:$mport/metrics" | awk '$1 == "nfsrdma_source_records_total" { print $2 }'; }
for ((i = 0; i < 600; i++)); do
	r=$(awk '/^VmRSS:/ { print $2 }' /proc/$dpid/status 2>/dev/null)
	[ -n "$r" ] && [ "$r" -gt "$maxrss" ] && maxrss=$r
	[ "$(produced)" = $((8 * rpcs)) ] && break
	sleep 0.2
done
echo "measured: max RSS ${maxrss} kB during the burst"
check "RSS measured and bounded (${maxrss} kB < ${RSS_LIMIT_KB} kB)" bash -c "[ $maxrss -gt 0 ] && [ $maxrss -lt $RSS_LIMIT_KB ]"
check "daemon survived the burst" kill -0 $dpid
curl -sf "http://127.0.0.1:$mport/metrics" >"$TMP/m.txt"
val() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/m.txt"; }
rec=$(val nfsrdma_records_total); dq=$(val 'nfsrdma_dropped_records_total{reason="queue"}'); prod=$(val nfsrdma_source_records_total)
echo "measured: produced $prod, aggregated $rec, dropped in queue $dq"
check "drops counted under the burst (queue drops $dq > 0)" bash -c "[ '${dq:-0}' -gt 0 ]"
check "nothing lost silently: aggregated + dropped = produced ($rec + $dq = $prod)" \
	bash -c "[ -n '$prod' ] && [ \$(( ${rec:-0} + ${dq:-0} )) -eq ${prod:-x} ]"
check "produced = 8 x the capture's RPCs in the kernel's truth (8 x $rpcs)" [ "${prod:-0}" = $((8 * rpcs)) ]

# kill and restart: top reconnects
if command -v tmux >/dev/null && [ -x "$BIN/nfsrdma-top" ]; then
	export TMUX_TMPDIR=$TMP
	TS=nfsrdma-burst-$$
	tmux new-session -d -s "$TS" -x 80 -y 24 "TERM=xterm $BIN/nfsrdma-top --socket $SOCK -d 0.3"
	PIDS+=($(tmux display-message -p -t "$TS" '#{pane_pid}'))
	shows() { tmux capture-pane -p -t "$TS" | grep -qE -- "$1"; }
	# Which records survive a burst is timing-dependent: any op row will do.
	check "top shows the daemon's data" wait_for 20 shows '(NFS|NFSACL|MOUNT|PORTMAP)v[0-9.]+ [A-Z_]+( (tcp|udp))? +[0-9.]+ +[1-9]'

	kill -9 $dpid; wait $dpid 2>/dev/null
	check "top says the daemon is gone and retries" wait_for 10 shows 'retrying'
	"$BIN/nfsrdmad" --source "pcap:$CAPS/nfs3-metadata.pcap" --metrics none --socket "$SOCK" \
		>"$TMP/d2.out" 2>"$TMP/d2.err" &
	PIDS+=($!)
	check "restarted daemon replaces the stale socket" wait_for 10 test -S "$SOCK"
	check "top reconnects and shows the new daemon's data (LOOKUP $lookups, truth)" wait_for 15 shows "NFSv3 LOOKUP +[0-9.]+ +$lookups "
	tmux kill-server 2>/dev/null
else
	bad "reconnect: needs tmux and $BIN/nfsrdma-top"
fi
# a second daemon on a live socket is refused, not a silent takeover
check "a second daemon on a live socket is refused" bash -c "! timeout 5 '$BIN/nfsrdmad' --source '$CAPS/smoke.pcap' --metrics none --socket '$SOCK' 2>/dev/null"
finish $NAME
