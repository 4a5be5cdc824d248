#!/usr/bin/env bash
# A capture read to its end that holds no RPC is said, not shown as an
# empty view: nfsrdma-dissect, nfsrdmad (a file source) and nfsrdma-top
# (-r) each print one "no RPC found" line naming what the capture held
# instead (the same line in all three) and exit 3 (top's header has no
# time then, rather than 1970-01-01), and none of them says
# it of a capture that holds RPCs (they exit 0).  Which captures hold no RPC is tshark's word
# (no frame matches its "rpc" filter): perftest.pcap (ib_send_bw and
# ib_write_lat) and the public non-NFS captures of ../shared.
# Closing line: "nothing-found: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
B=${O:-build}/bin
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL nothing-found: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
NOTE='no RPC found (RDMA, TCP or UDP) in [0-9]* frames: '
command -v tshark >/dev/null || { echo "nothing-found: cannot run: no tshark"; echo "nothing-found: 0 passed, 1 failed"; exit 1; }

caps=(tests/captures/perftest.pcap tests/captures/smoke.pcap)
if [ -d ../shared/captures/public ]; then
	caps+=(../shared/captures/public/*.pcap)
else
	echo "SKIP nothing-found: ../shared/captures/public absent: its captures not read"
fi
empty=0
for f in "${caps[@]}"; do
	n=$(tshark -r "$f" -Y rpc 2>/dev/null | wc -l)
	declare -A rc
	"$B/nfsrdma-dissect" -q "$f" >/dev/null 2>"$work/dissect.err"; rc[dissect]=$?
	timeout 30 "$B/nfsrdmad" -s "$f" --socket none --metrics none --exit-at-end >/dev/null 2>"$work/daemon.err"
	rc[daemon]=$?
	timeout -s TERM 10 "$B/nfsrdma-top" -b -r "$f" >"$work/top.out" 2>"$work/top.err"; rc[top]=$?
	# the JSON forms: no time is null (not 0, the epoch); else the last record's
	timeout -s TERM 10 "$B/nfsrdma-top" -b --json -r "$f" >"$work/top.json" 2>/dev/null
	timeout 30 "$B/nfsrdmad" -s "$f" --socket none --metrics none --exit-at-end --json >"$work/daemon.json" 2>/dev/null
	python3 - "$n" "$work/top.json" "$work/daemon.json" <<'PY' && ok || bad "JSON time of $f (tshark: $n RPC frames): $(head -c 120 "$work/top.json")"
import json, sys
n = int(sys.argv[1])
t_top = json.loads(open(sys.argv[2]).read())["t"]
summ = [json.loads(l) for l in open(sys.argv[3]) if l.startswith('{"type":"daemon_summary"')]
t_d = summ[-1]["summary"]["t"]
ok = (t_top is None and t_d is None) if n == 0 else (isinstance(t_top, int) and t_top > 0 and isinstance(t_d, int) and t_d > 0)
sys.exit(0 if ok else 1)
PY
	# a file read flat out is timed by its records: with none, no time
	# (not 1970-01-01) in the header
	if [ "$n" -eq 0 ]; then
		head -n1 "$work/top.out" | grep -q '^nfsrdma-top  (no record: no time)  feed: ' && ok ||
			bad "top -b on $f: header '$(head -n1 "$work/top.out")'"
	else
		head -n1 "$work/top.out" | grep -qE '^nfsrdma-top  20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC  feed: ' && ok ||
			bad "top -b on $f: header '$(head -n1 "$work/top.out")'"
	fi
	for t in dissect daemon top; do
		said=$(grep -c "$NOTE" "$work/$t.err")
		if [ "$n" -eq 0 ]; then
			[ "$said" = 1 ] && ok || bad "$t on $f (no RPC for tshark): $said lines say so: $(head -c 300 "$work/$t.err")"
			# one-shot runs that found nothing fail alike (a script's test)
			[ "${rc[$t]}" = 3 ] && ok || bad "$t on $f (no RPC for tshark): exit ${rc[$t]}, not 3"
		else
			[ "$said" = 0 ] && ok || bad "$t on $f ($n RPC frames for tshark) says it found none"
			[ "${rc[$t]}" = 0 ] && ok || bad "$t on $f ($n RPC frames for tshark): exit ${rc[$t]}, not 0"
		fi
	done
	if [ "$n" -eq 0 ]; then
		empty=$((empty + 1))
		# the same counts whichever tool read it
		line=$(grep -o "$NOTE.*" "$work/dissect.err")
		for t in daemon top; do
			grep -qF -- "$line" "$work/$t.err" && ok || bad "$t on $f: not the dissector's line '$line'"
		done
	fi
done
[ "$empty" -ge 1 ] && ok || bad "no capture without RPC was read"
echo "nothing-found: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
