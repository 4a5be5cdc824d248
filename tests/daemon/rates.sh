#!/usr/bin/env bash
# Window rates of a capture read flat out are records over the time the
# records span (docs/daemon.md): on parallel.pcap, the records/s of
#   nfsrdma-top -b -r (text and --json) and nfsrdmad's JSON summary
# must equal N / (last ts.reply_last - first ts.call_first), both taken
# here from nfsrdma-dissect --json, within 1 %.  The capture is shorter
# than the default 10-s window, so every record is in it.
# Tier: golden (no root; loopback only).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=rates
for b in nfsrdma-dissect nfsrdma-top nfsrdmad; do
	[ -x "$BIN/$b" ] || cannot $NAME "$BIN/$b not built"
done
f=$CAPS/parallel.pcap
[ -r "$f" ] || cannot $NAME "$f missing"

"$BIN/nfsrdma-dissect" --json "$f" >"$TMP/dis.json" 2>"$TMP/dis.err"
read -r n span < <(python3 - "$TMP/dis.json" <<'EOPY'
import json, sys
lo, hi, n = None, None, 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "ts" not in r:
        continue
    n += 1
    ts = r["ts"]
    first = ts["call_first"] or ts["reply_last"]
    last = ts["reply_last"] or ts["call_last"]
    lo = first if lo is None else min(lo, first)
    hi = last if hi is None else max(hi, last)
print(n, (hi - lo) / 1e9 if n else 0)
EOPY
)
check "dissect --json: records ($n) over a span ($span s) between 1 and 10 s" \
	python3 -c "import sys; sys.exit(0 if $n > 0 and 1 < $span < 10 else 1)"
want=$(python3 -c "print($n / $span)")
echo "     parallel.pcap: $n records over $span s: $want/s"

# near RATE WHAT: RATE within 1 % of want
near() {
	python3 -c "import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(g - w) <= 0.01 * w else 1)" "$1" "$want"
}

"$BIN/nfsrdma-top" -b -n 1 -r "$f" >"$TMP/top.txt" 2>"$TMP/top.err"
got=$(sed -n 's/.*records \([0-9]*\)  rate \([0-9.]*\)\/s.*/\1 \2/p' "$TMP/top.txt" | head -n 1)
check "top -b: records ${got% *} = $n" [ "${got% *}" = "$n" ]
check "top -b: rate ${got#* }/s within 1 % of $want" near "${got#* }"

"$BIN/nfsrdma-top" -b --json -n 1 -r "$f" >"$TMP/top.json" 2>"$TMP/top.err"
got=$(python3 -c 'import json,sys; t = json.loads(open(sys.argv[1]).readline())["totals"]; print(t["records"], t["rate"])' "$TMP/top.json")
check "top -b --json: records ${got% *} = $n" [ "${got% *}" = "$n" ]
check "top -b --json: rate ${got#* }/s within 1 % of $want" near "${got#* }"

port=$(free_port)
"$BIN/nfsrdmad" --source "pcap:$f" --metrics "127.0.0.1:$port" --socket none --json \
	--summary-interval 3600 >"$TMP/daemon" 2>"$TMP/daemon.err" &
dpid=$!
PIDS+=($dpid)
all_in() {
	curl -sf "http://127.0.0.1:$port/metrics" | grep -qx "nfsrdma_records_total $n"
}
check "nfsrdmad /metrics reaches $n records" wait_for 20 all_in
kill -TERM "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
grep '^{"type":"daemon_summary"' "$TMP/daemon" | tail -n 1 >"$TMP/summary"
got=$(python3 -c 'import json,sys; t = json.loads(open(sys.argv[1]).readline())["summary"]; print(t["records"], t["rate"])' "$TMP/summary" 2>/dev/null)
check "nfsrdmad summary: records ${got% *} = $n" [ "${got% *}" = "$n" ]
check "nfsrdmad summary: rate ${got#* }/s within 1 % of $want" near "${got#* }"
finish $NAME
