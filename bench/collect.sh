#!/usr/bin/env bash
# The collector under a storm (make bench): three nfsrdmad forwarders each
# replay a capture flat out (as fast as they can, far faster than one
# collector can take in three streams) into one nfsrdmad --collect on
# loopback.  At 1x and 10x the capture's size it reports:
#   - the offered rate (records the forwarders produced per second of
#     their run) and the collector's rate (records received per second of
#     wall time and per CPU second);
#   - the collector's peak RSS (VmHWM): it must not grow with the load;
#   - drops on both sides and the accounting, which must be exact:
#     every forwarder: records = sent + dropped; the collector, per peer:
#     earlier + received + lost = that peer's sent.
# Numbers only, no pass/fail on time; an accounting mismatch is reported
# as MISMATCH and makes the exit status 1.
#   bench/collect.sh [MEGABYTES]   (1x size, default 20; 10x = 200)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}; case $O in /*) ;; *) O=$SRC/$O ;; esac
D=${NFSRDMA_BIN:-$O/bin}/nfsrdmad
MB=${1:-${COLLECT_BENCH_MB:-20}}
QUEUE=${COLLECT_BENCH_QUEUE:-10000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfsrdma-bench.XXXXXX")
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
[ -x "$D" ] || { echo "bench collect: $D not built (make)"; exit 1; }
SRCS=()
for n in nfs3-read-write parallel nfs42 nfs41 nfs40 nfs3-metadata nfs3-readdirplus smoke nfs3-symlink server-restart; do
	[ -r "$SRC/tests/captures/$n.pcap" ] && SRCS+=("$SRC/tests/captures/$n.pcap")
done
[ ${#SRCS[@]} -gt 0 ] || { echo "bench collect: no lab captures in tests/captures"; exit 1; }
cc -O2 -o "$TMP/mkbigcap" "$SRC/bench/mkbigcap.c" || exit 1
"$TMP/mkbigcap" "$TMP/x1.pcap" "$MB" "${SRCS[@]}" >/dev/null 2>&1 || exit 1
"$TMP/mkbigcap" "$TMP/x10.pcap" $((MB * 10)) "${SRCS[@]}" >/dev/null 2>&1 || exit 1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v r="$2" 'index($0, "nfsrdma_collect_records_total") == 1 && $0 ~ r { n += $2 } END { print n + 0 }'; }
now() { date +%s.%N; }
status=0

run() { # LABEL CAPTURE
	local label=$1 cap=$2 P M C t0 t1 i
	P=$(free_port); M=$(free_port)
	"$D" --collect 127.0.0.1:$P --collect-allow 127.0.0.1 --socket none --metrics 127.0.0.1:$M \
		--forward-queue "$QUEUE" 2>"$TMP/c.err" & C=$!; PIDS+=($C)
	for i in $(seq 50); do curl -sf "http://127.0.0.1:$M/metrics" -o /dev/null && break; sleep 0.1; done
	t0=$(now)
	local F=()
	for i in 1 2 3; do
		"$D" --forward 127.0.0.1:$P --host-name fwd$i --forward-queue "$QUEUE" --source "$cap" --exit-at-end \
			--socket none --metrics none >"$TMP/f$i.out" 2>"$TMP/f$i.err" & F+=($!); PIDS+=($!)
	done
	# the forwarders' sources end; each then gives its queue 3 s to leave
	for i in 0 1 2; do wait "${F[$i]}"; done
	t1=$(now)
	local sent=0 dropped=0 records=0 s d r
	for i in 1 2 3; do
		read -r s d <<<"$(sed -nE 's/^forward: [^ ]+ sent ([0-9]+) dropped ([0-9]+)$/\1 \2/p' "$TMP/f$i.out")"
		r=$(sed -nE 's/^summary: records ([0-9]+) .*/\1/p' "$TMP/f$i.out")
		sent=$((sent + ${s:-0})); dropped=$((dropped + ${d:-0})); records=$((records + ${r:-0}))
		[ $((${s:-0} + ${d:-0})) -eq "${r:-0}" ] || { echo "MISMATCH $label fwd$i: records ${r:-?} != sent ${s:-?} + dropped ${d:-?}"; status=1; }
		echo "$s" >"$TMP/sent$i"
	done
	# what the collector still has queued reaches it
	local acc prev=-1
	for i in $(seq 100); do
		acc=$(metric $M 'result="(received|lost|earlier)"')
		[ "$acc" -ge "$sent" ] && break
		[ "$acc" = "$prev" ] && [ "$i" -gt 20 ] && break
		prev=$acc; sleep 0.2
	done
	local t2 hwm cpu received lost earlier
	t2=$(now)
	hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$C/status)
	cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' /proc/$C/stat)
	received=$(metric $M 'result="received"'); lost=$(metric $M 'result="lost"'); earlier=$(metric $M 'result="earlier"')
	for i in 1 2 3; do
		local pr pl pe
		pr=$(metric $M "host=\"fwd$i\",result=\"received\""); pl=$(metric $M "host=\"fwd$i\",result=\"lost\"")
		pe=$(metric $M "host=\"fwd$i\",result=\"earlier\"")
		[ $((pr + pl + pe)) -eq "$(cat "$TMP/sent$i")" ] ||
			{ echo "MISMATCH $label fwd$i: collector earlier $pe + received $pr + lost $pl != sent $(cat "$TMP/sent$i")"; status=1; }
	done
	kill "$C"; wait "$C" 2>/dev/null
	python3 - "$label" "$(stat -c %s "$cap")" "$records" "$sent" "$dropped" "$received" "$lost" "$earlier" \
		"$t0" "$t1" "$t2" "$cpu" "$hwm" <<'PY'
import sys
l, size, rec, sent, drop, recv, lost, earl, t0, t1, t2, cpu, hwm = sys.argv[1:]
rec, sent, drop, recv, lost, earl = map(int, (rec, sent, drop, recv, lost, earl))
t0, t1, t2, cpu = map(float, (t0, t1, t2, cpu))
print(f"{l}: capture {int(size)/1e6:.0f} MB x3 forwarders: {rec} records offered at {rec/(t1-t0):,.0f}/s; "
      f"sent {sent} dropped {drop} ({100*drop/max(rec,1):.1f} %); collector received {recv} lost {lost} "
      f"earlier {earl}: {recv/(t2-t0):,.0f}/s wall, {recv/max(cpu,0.01):,.0f}/CPU-s; peak RSS {int(hwm)/1024:.1f} MB")
PY
}
echo "bench collect: load $(cut -d' ' -f1-3 /proc/loadavg), queue $QUEUE per link"
run 1x "$TMP/x1.pcap"
run 10x "$TMP/x10.pcap"
exit $status
