#!/usr/bin/env bash
# Bad and conflicting arguments of nfsrdma-dissect are refused with one
# line naming the problem and exit 2, before anything is read: conflicting
# output flags in either order (never "last one wins"), unknown --op names,
# malformed --addr; bad usage of every other tool is 2 as well.  Closing line: "bad-args: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
cap=tests/captures/nfs40.pcap
pass=0 fail=0
while IFS='|' read -r args want; do
	[ -n "$args" ] || continue
	# shellcheck disable=SC2086
	out=$("$BIN" $args "$cap" 2>/tmp/cf.$$); rc=$?
	err=$(cat /tmp/cf.$$)
	if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l </tmp/cf.$$)" -eq 1 ] && grep -q -- "$want" /tmp/cf.$$; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL bad-args: '$args': exit $rc, stderr: $err"
	fi
done <<'EOF_CASES'
--json -V|--json and -V cannot be combined
-V --json|-V and --json cannot be combined
--json --csv|--json and --csv cannot be combined
--csv -V|--csv and -V cannot be combined
--tsv|--tsv needs --fields
--fields default --json|--fields and --json cannot be combined
--csv --fields all|--fields and --csv cannot be combined
--op bogus|--op 'bogus': no procedure or NFSv4 operation
--op READX|--op 'READX'
--addr bogus|--addr 'bogus': not an address
--addr 10.9.0.0/40|prefix length is 0..32
--xid 0x1ffffffff|xid
--compare -V|--compare and -V cannot be combined
--compare -z proc|--compare and -z cannot be combined
--compare --check|--compare and --check cannot be combined
--compare|--compare takes two capture files, A and B (1 given
--compare --json --csv|--json and --csv cannot be combined
--plot /tmp/nfsrdma-bad-args.svg --plot-slowest 5|--plot-slowest needs --join
--compare --plot-slowest 5|--compare and --plot-slowest cannot be combined
-q -V|-q and -V cannot be combined
-V -q -z proc|-q and -V cannot be combined
-q --csv -z proc|-q and --csv cannot be combined
-q --fields default|-q and --fields cannot be combined
EOF_CASES
rm -f /tmp/cf.$$
# what the tool prints is what it takes: --op names and --addr endpoints
for args in "--op LOOKUP_ROOT" "--op read" "--op CB_RECALL" "--addr 10.9.0.2.qp17" "--addr 10.9.0.0/24"; do
	# shellcheck disable=SC2086
	"$BIN" $args "$cap" >/dev/null 2>&1; rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then pass=$((pass + 1)); else
		fail=$((fail + 1)); echo "FAIL bad-args: '$args' refused (exit $rc)"; fi
done
# -q with --json keeps the summaries, as JSON
if out=$("$BIN" -q --json -z proc "$cap" 2>/dev/null) && [ -n "$out" ] &&
	python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<<"$out"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL bad-args: -q --json -z proc: no JSON summary"; fi
# the same flag twice is not a conflict
if "$BIN" --json --json "$cap" >/dev/null 2>&1; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL bad-args: --json --json refused"; fi
# Bad usage is 2 in every tool, with one line on stderr and nothing on
# stdout (nfsrdma-replay's calls lost in flight are 5, not 2); an option
# the mode chosen would ignore is bad usage too (nfsrdma-top's daemon
# options with a source of its own, and the reverse; --fused with a view it
# has no rows of, in batch mode; nfsrdmad's options that the other
# settings given make do nothing).
B=${O:-build}/bin
while IFS='|' read -r args want; do
	[ -n "$args" ] || continue
	# shellcheck disable=SC2086
	out=$(timeout 20 $args 2>/tmp/cf.$$ </dev/null); rc=$?
	if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$(wc -l </tmp/cf.$$)" -eq 1 ] && grep -q -- "$want" /tmp/cf.$$; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL bad-args: '$args': exit $rc, stderr: $(cat /tmp/cf.$$)"
	fi
done <<EOF_TOOLS
$B/nfsrdma-dissect --bogus $cap|bogus
$B/nfsrdma-top --bogus|bogus
$B/nfsrdma-top -b --socket /tmp/nfsrdma-bad-args.sock -r $cap|--socket and -r/--source cannot be combined
$B/nfsrdma-top -b --connect-timeout 1 -r $cap|--connect-timeout and -r/--source cannot be combined
$B/nfsrdma-top -b --speed 1 -n 1|--speed needs -r
$B/nfsrdma-top -n 1 -r $cap|-n needs -b or --json
$B/nfsrdmad --bogus|bogus
$B/nfsrdma-top -b --fused --view conn -r $cap|--fused and --view conn cannot be combined in batch mode
$B/nfsrdma-top --json --fused --view conn -r $cap|--fused and --view conn cannot be combined in batch mode
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --rotate 5|--rotate needs --export-dir
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --rotate-size 1M|--rotate-size needs --export-dir
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --export-keep 2|--export-keep needs --export-dir
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --socket-mode 0600|--socket-mode does nothing with --socket none
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --socket-group root|--socket-group does nothing with --socket none
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --collect-allow 127.0.0.1|--collect-allow needs --collect
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --collect-any|--collect-any needs --collect
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --join-wait 3|--join-wait needs --collect
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --no-clock-hints|--no-clock-hints needs --collect
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --host-name a|--host-name needs --forward
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --forward-queue 9|--forward-queue needs --forward or --collect
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --stall-after 3|--stall-after needs a kernel source
$B/nfsrdmad --socket none --metrics none --exit-at-end -s $cap --abandon-after 60|--abandon-after needs a kernel source
$B/nfsrdmad --socket none --metrics none -s kernel --stall-after -1|--stall-after
$B/nfsrdma-replay --bogus $cap|bogus
$B/nfsrdma-replay $cap|--target HOST is required
$B/nfsrdma-replay --target 192.0.2.1 --speed -1 $cap|--speed: -1 is out of range
$B/nfsrdma-replay --target 192.0.2.1 $cap $cap|one trace file expected
$B/nfsrdma-replay --target 192.0.2.1 --max-idle 1 --asap $cap|--max-idle and --asap cannot be combined
$B/nfsrdma-replay --target 192.0.2.1 --max-idle 0 $cap|--max-idle: 0 is out of range
$B/nfsrdma-replay --dry-run --max-idle 1 $cap|--dry-run and --max-idle cannot be combined
$B/nfsrdma-replay --generate null --target 192.0.2.1 --max-idle 1|--generate and --max-idle cannot be combined
$B/nfsrdma-replay --generate null --target 192.0.2.1 $cap|takes no trace file
EOF_TOOLS
# the same settings from a config file are left alone: one file may serve
# hosts that forward and hosts that do not
printf 'rotate = 5\nhost-name = a\njoin-wait = 3\n' >/tmp/cf.$$.conf
if timeout 20 "$B/nfsrdmad" -c /tmp/cf.$$.conf --socket none --metrics none --exit-at-end -s "$cap" >/dev/null 2>/tmp/cf.$$; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL bad-args: config settings without their partners refused: $(cat /tmp/cf.$$)"
fi
rm -f /tmp/cf.$$.conf
# a capture given twice is read twice (a burst): allowed, and said once
for args in "$B/nfsrdma-top -b -r $cap --source pcap:$cap" \
	"$B/nfsrdmad --socket none --metrics none --exit-at-end --source pcap:$cap --source $cap"; do
	# shellcheck disable=SC2086
	timeout 20 $args >/dev/null 2>/tmp/cf.$$; rc=$?
	if [ "$rc" -eq 0 ] && [ "$(grep -c 'given again: its records count once per time given' /tmp/cf.$$)" -eq 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL bad-args: '$args': exit $rc, stderr: $(cat /tmp/cf.$$)"
	fi
done
rm -f /tmp/cf.$$
echo "bad-args: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
