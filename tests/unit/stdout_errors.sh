#!/usr/bin/env bash
# A failed write of stdout is an error, a closed pipe is not: every tool
# run with stdout on /dev/full exits 1 with the one line "stdout: No space
# left on device" on stderr; run into `| head -1` it exits 0 with nothing
# on stderr (SIGPIPE's 141 was taken before: a closed pipe ends the run,
# as the EXIT STATUS table every tool shares says).  And nfsrdma-dissect -w - (which
# wrote a file named "-") is refused with one line, exit 2.
# Closing line: "stdout-errors: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
B=${O:-build}/bin
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL stdout-errors: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
[ -w /dev/full ] || { echo "stdout-errors: /dev/full is not writable"; echo "stdout-errors: 0 passed, 1 failed"; exit 1; }
small=tests/captures/smoke.pcap
big=tests/captures/parallel.pcap   # more output than a pipe holds

# NAME CAPTURE-SUBSTITUTED COMMAND...: the command with @ replaced by the capture
runs=(
	"dissect|$B/nfsrdma-dissect @"
	"dissect --json|$B/nfsrdma-dissect --json @"
	"dissect --csv|$B/nfsrdma-dissect --csv @"
	"dissect -l|$B/nfsrdma-dissect -l @"
	"dissect --json -z proc --check -q|$B/nfsrdma-dissect --json -z proc --check -q @"
	"top -b|$B/nfsrdma-top -b -n3 -d 0.2 -r @"
	"nfsrdmad --json|$B/nfsrdmad --source pcap:@ --json --exit-at-end --metrics none --socket none"
	"replay --dry-run|$B/nfsrdma-replay --dry-run @"
	"replay --dry-run --json|$B/nfsrdma-replay --dry-run --json @"
)
for r in "${runs[@]}"; do
	name=${r%%|*} cmd=${r#*|}
	# shellcheck disable=SC2086
	timeout 60 ${cmd//@/$small} >/dev/full 2>"$work/err"; rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q "stdout: No space left on device" "$work/err"; then
		ok
	else
		bad "$name > /dev/full: exit $rc, stderr: $(head -c 300 "$work/err")"
	fi
	# shellcheck disable=SC2086
	timeout 60 ${cmd//@/$big} 2>"$work/err" | head -1 >"$work/out"; rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ] && [ ! -s "$work/err" ] && [ -s "$work/out" ]; then
		ok
	else
		bad "$name | head -1: exit $rc, stderr: $(head -c 300 "$work/err")"
	fi
done

dissect=$(realpath "$B/nfsrdma-dissect") cap=$(realpath "$small")
(cd "$work" && "$dissect" -q -w - "$cap" >"$work/out" 2>"$work/err"); rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q -- "-w -:" "$work/err" && [ ! -e "$work/-" ] && [ ! -s "$work/out" ]; then
	ok
else
	bad "-w -: exit $rc, file '-' $([ -e "$work/-" ] && echo written || echo absent), stderr: $(head -c 300 "$work/err")"
fi
echo "stdout-errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
