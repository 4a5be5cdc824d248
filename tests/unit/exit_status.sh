#!/usr/bin/env bash
# One exit-status table for the four tools (src/base/exit.h, the EXIT
# STATUS of every man page): 0 done, 1 could not do the job (an input
# missing or unreadable, an output not written, a failure at run time),
# 2 bad usage or configuration, 3 nothing found; nfsrdma-replay's own 4
# and 5 beside them.  For every tool:
#   - `TOOL ... | head -1` under pipefail exits 0 with nothing on stderr (a
#     reader that had enough, not SIGPIPE's 141), and so does a run whose
#     pipe was closed before its first write (the same without the race);
#   - --help and --version into a full device (a mknod copy of /dev/full)
#     exit 1 with the one line "stdout: No space left on device";
#   - a capture that does not exist exits 1 with one line naming it and
#     nothing on stdout (nfsrdma-dissect -z: no empty table after it);
#   - bad usage exits 2;
# and nfsrdmad's configuration (issue 26, item 7): --source pcap:DIR,
# --config DIR, an --export-dir that is not there: 2, one line, before the
# run; nfsrdma-replay --target that does not resolve: 1, one line that
# says so; nfsrdmad --source kernel:client without its tracepoints: one
# line.  Last, the pages: the shared table is the same text in all four,
# and holds every status of exit.h.
# Closing line: "exit-status: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
B=${O:-build}/bin
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL exit-status: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
big=tests/captures/multi-client.pcap   # 36 KB to 228 KB of output: past a pipe's buffer where it counts
small=tests/captures/smoke.pcap
nod=(--socket none --metrics none)
missing=$work/none.pcap
export ERR=$work/err   # the closed-pipe runner's stderr

# one_line: stderr is exactly one line matching $1
one_line() { [ "$(wc -l <"$work/err")" = 1 ] && grep -qE -- "$1" "$work/err"; }

# ---- a closed pipe is the end of the job, not an error ----
while IFS='|' read -r name cmd; do
	# shellcheck disable=SC2086
	timeout 120 $cmd 2>"$work/err" | head -1 >"$work/out"; rc=$?
	if [ "$rc" = 0 ] && [ -s "$work/out" ] && [ ! -s "$work/err" ]; then ok; else
		bad "$name | head -1: exit $rc (want 0), stderr: $(head -c 300 "$work/err")"; fi
	# the reader gone before the first write: no race with head
	# shellcheck disable=SC2086
	python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=open(os.environ["ERR"], "wb"), timeout=120)
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)' $cmd; rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$work/err" ]; then ok; else
		bad "$name into a closed pipe: exit $rc (want 0), stderr: $(head -c 300 "$work/err")"; fi
done <<EOF
nfsrdma-dissect|$B/nfsrdma-dissect $big
nfsrdma-dissect --json|$B/nfsrdma-dissect --json $big
nfsrdma-dissect -z proc|$B/nfsrdma-dissect -z proc $big
nfsrdma-top -b|$B/nfsrdma-top -b -r $big
nfsrdmad --exit-at-end --json|$B/nfsrdmad ${nod[*]} --exit-at-end --json --source $big
nfsrdma-replay --dry-run|$B/nfsrdma-replay --dry-run $big
nfsrdma-replay --dry-run --json|$B/nfsrdma-replay --dry-run --json $big
EOF

# ---- --help and --version that could not be written ----
if mknod "$work/full" c 1 7 2>"$work/err" && chmod 666 "$work/full"; then
	for t in nfsrdma-dissect nfsrdma-top nfsrdmad nfsrdma-replay; do
		for o in --help --version; do
			"$B/$t" "$o" >"$work/full" 2>"$work/err"; rc=$?
			if [ "$rc" = 1 ] && one_line "^$t: error: stdout: No space left on device$"; then ok; else
				bad "$t $o > full device: exit $rc (want 1), stderr: $(head -c 300 "$work/err")"; fi
		done
	done
	"$B/nfsrdma-dissect" --fields help >"$work/full" 2>"$work/err"; rc=$?
	[ "$rc" = 1 ] && one_line "stdout: No space left" && ok ||
		bad "nfsrdma-dissect --fields help > full device: exit $rc (want 1)"
else
	bad "mknod $work/full c 1 7 (a copy of /dev/full): $(cat "$work/err")"
fi

# ---- an input missing: 1 in every tool, one line, nothing on stdout ----
while IFS='|' read -r name cmd; do
	# shellcheck disable=SC2086
	timeout 20 $cmd >"$work/out" 2>"$work/err" </dev/null; rc=$?
	if [ "$rc" = 1 ] && one_line "none.pcap: No such file or directory" && [ ! -s "$work/out" ]; then ok; else
		bad "$name: exit $rc (want 1), stdout $(wc -c <"$work/out") bytes, stderr: $(head -c 300 "$work/err")"; fi
done <<EOF
nfsrdma-dissect, missing capture|$B/nfsrdma-dissect $missing
nfsrdma-dissect -z proc, missing capture (no empty table)|$B/nfsrdma-dissect -z proc $missing
nfsrdma-dissect -q --json -z proc, missing capture|$B/nfsrdma-dissect -q --json -z proc $missing
nfsrdma-top -b, missing capture|$B/nfsrdma-top -b -r $missing
nfsrdmad, missing capture|$B/nfsrdmad ${nod[*]} --exit-at-end --source $missing
nfsrdma-replay --dry-run, missing capture|$B/nfsrdma-replay --dry-run $missing
nfsrdma-replay, missing capture|$B/nfsrdma-replay --target 192.0.2.1 $missing
EOF

# ---- bad usage and configuration: 2, one line, nothing on stdout ----
mkdir -p "$work/adir"
while IFS='|' read -r name want cmd; do
	# shellcheck disable=SC2086
	timeout 20 $cmd >"$work/out" 2>"$work/err" </dev/null; rc=$?
	if [ "$rc" = 2 ] && one_line "$want" && [ ! -s "$work/out" ]; then ok; else
		bad "$name: exit $rc (want 2), stdout $(wc -c <"$work/out") bytes, stderr: $(head -c 300 "$work/err")"; fi
done <<EOF
nfsrdma-dissect --bogus|unknown option --bogus|$B/nfsrdma-dissect --bogus $small
nfsrdma-top --bogus|unknown option --bogus|$B/nfsrdma-top --bogus
nfsrdmad --bogus|unknown option --bogus|$B/nfsrdmad --bogus
nfsrdma-replay --bogus|unknown option --bogus|$B/nfsrdma-replay --bogus $small
nfsrdmad --source pcap:DIR|--source pcap:$work/adir: .*Is a directory|$B/nfsrdmad ${nod[*]} --exit-at-end --json --source pcap:$work/adir
nfsrdmad --config DIR|$work/adir: is a directory; --config names a file|$B/nfsrdmad ${nod[*]} --exit-at-end --json --config $work/adir --source $small
nfsrdmad --export-dir not there|--export-dir $work/nodir: No such file or directory|$B/nfsrdmad ${nod[*]} --exit-at-end --json --export-dir $work/nodir --source $small
nfsrdmad --export-dir a file|--export-dir $small: not a directory|$B/nfsrdmad ${nod[*]} --exit-at-end --json --export-dir $small --source $small
EOF

# ---- one clear line for what could not be done ----
timeout 60 "$B/nfsrdma-replay" --target nosuch.invalid "$small" >"$work/out" 2>"$work/err"; rc=$?
if [ "$rc" = 1 ] && one_line "^nfsrdma-replay: error: --target nosuch.invalid: " && ! grep -q "No route" "$work/err"; then ok; else
	bad "nfsrdma-replay --target nosuch.invalid: exit $rc (want 1), stderr: $(head -c 400 "$work/err")"; fi
mkdir -p "$work/tracefs"
timeout 20 "$B/nfsrdmad" "${nod[@]}" --exit-at-end --source "kernel:client,tracefs=$work/tracefs" >"$work/out" 2>"$work/err"; rc=$?
if [ "$rc" = 1 ] && one_line "kernel probe: client side unavailable: sunrpc:rpc_stats_latency absent"; then ok; else
	bad "nfsrdmad --source kernel:client without tracepoints: exit $rc (want 1, one line), stderr: $(head -c 400 "$work/err")"; fi

# ---- the pages: one shared table, every status of exit.h in it ----
pages=(docs/man/nfsrdma-dissect.1 docs/man/nfsrdma-top.1 docs/man/nfsrdmad.8 docs/man/nfsrdma-replay.1)
shared() { awk '/^\.\\" exit-status: shared table/ { on = 1; next } /^\.\\" exit-status: end/ { on = 0 } on' "$1"; }
shared "${pages[0]}" >"$work/table"
if [ -s "$work/table" ]; then ok; else bad "${pages[0]}: no shared EXIT STATUS table between its markers"; fi
for p in "${pages[@]:1}"; do
	shared "$p" >"$work/t"
	if cmp -s "$work/table" "$work/t"; then ok; else
		bad "$p: its shared EXIT STATUS table differs from ${pages[0]}'s: $(diff "$work/table" "$work/t" | head -5)"; fi
done
for p in "${pages[@]}"; do
	if awk '/^\.SH/ { on = ($0 == ".SH EXIT STATUS") } on && /^\.\\" exit-status: shared table/ { f = 1 }
		END { exit !f }' "$p"; then ok; else bad "$p: the shared table is not in its EXIT STATUS section"; fi
done
sed -nE 's/^#define (EXIT_[A-Z_]+) ([0-9]+)$/\1 \2/p' src/base/exit.h >"$work/codes" 2>/dev/null
if [ "$(wc -l <"$work/codes")" = 4 ]; then ok; else bad "src/base/exit.h: not the four shared statuses: $(cat "$work/codes")"; fi
while read -r name n; do
	if grep -qx "\.B $n" "$work/table"; then ok; else bad "exit.h's $name ($n) is not a status of the shared table"; fi
done <"$work/codes"
lost=$(sed -nE 's/^#define REPLAY_EXIT_LOST ([0-9]+)$/\1/p' src/replay/replay.h)
awk '/^\.SH/ { on = ($0 == ".SH EXIT STATUS") } on' docs/man/nfsrdma-replay.1 >"$work/t"
if [ -n "$lost" ] && grep -qx "\.B $lost" "$work/t" && grep -qx '\.B 4' "$work/t"; then ok; else
	bad "nfsrdma-replay.1: replay's own statuses (4, REPLAY_EXIT_LOST ${lost:-?}) are not in its EXIT STATUS"; fi

echo "exit-status: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
