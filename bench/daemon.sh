#!/usr/bin/env bash
# nfsrdmad / nfsrdma-top benchmarks (make bench), side by side with the
# dissector on the same capture:
#   1. records/s the aggregation engine (agg_add) sustains on one core,
#      fed the capture's real records over and over (taskset -c 0);
#   2. records/s of the dissector alone on that capture (nfsrdma-dissect -q);
#   3. records/s of nfsrdmad end to end (source thread + queue + aggregation);
#   4. CPU use of nfsrdma-top at 1 refresh/s against a running daemon, in
#      tmux, over 10 s;
#   5. CPU time (user + sys of the finished process, all threads, from
#      getrusage) of nfsrdmad on a large capture file (DAEMON_BENCH_MB,
#      default 400, built from the lab captures by bench/mkbigcap.c in
#      $TMPDIR) next to nfsrdma-dissect -q on the same file, in turns,
#      DAEMON_BENCH_ROUNDS rounds (default 9): medians and the median of
#      the per-round ratios (target <= 1.3).  DAEMON_BENCH_BEFORE=DIR adds
#      DIR/nfsrdmad (an older build) to each round, for before/after;
#   6. the same two commands in instructions executed (valgrind
#      --tool=callgrind, all threads): the load of a shared machine moves
#      CPU times but not these.
# Numbers only; no pass/fail thresholds (performance targets live here,
# not in tests).  Usage: bench/daemon.sh [CAPTURE]
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}; case $O in /*) ;; *) O=$SRC/$O ;; esac
BIN=${NFSRDMA_BIN:-$O/bin}
CAP=${1:-$SRC/tests/captures/parallel.pcap}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfsrdma-bench.XXXXXX")
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
PIN=""; command -v taskset >/dev/null && PIN="taskset -c 0"
now() { date +%s.%N; }

# 1. aggregation engine alone
cat >"$TMP/agg_bench.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "src/stats/agg.h"
#include "pcap/source.h"
#include "src/probe/source_table.h"
static struct nfsrdma_record *recs; static size_t n, cap;
static void keep(const struct nfsrdma_record *r, void *ctx)
{
	if (n == cap) { cap = cap ? cap * 2 : 1024; recs = realloc(recs, cap * sizeof(*recs)); if (!recs) exit(1); }
	recs[n++] = *r;
}
int main(int argc, char **argv)
{
	struct source *s; char err[512]; struct source_opts o = { 0 };
	if (argc < 3 || source_open(&s, argv[1], &o, keep, NULL, err, sizeof(err)) < 0) { fprintf(stderr, "%s\n", err); return 1; }
	while (source_poll(s, 0) >= 0) ;
	source_close(s);
	if (!n) { fprintf(stderr, "no records\n"); return 1; }
	unsigned long total = strtoul(argv[2], NULL, 10);
	struct agg *a = agg_new(NULL);
	struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < total; i++) {
		struct nfsrdma_record *r = &recs[i % n];
		agg_add(a, r, 1700000000000000000ull + i * 1000ull);   /* 1 Mrec/s of "time" */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%lu %.6f %zu %zu\n", total, sec, n, agg_memory(a));
	agg_free(a);
	return 0;
}
EOC
cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$SRC" "$TMP/agg_bench.c" -o "$TMP/agg_bench" "$O/libnfsrdma.a" \
	$(make -s --no-print-directory -C "$SRC" print-ldlibs) || { echo "bench: cannot build the aggregation driver"; exit 1; }
# median of 3 runs (the machine may be shared)
for i in 1 2 3; do $PIN "$TMP/agg_bench" "pcap:$CAP" 2000000; done >"$TMP/agg_runs"
read -r total sec distinct mem < <(sort -k2,2n "$TMP/agg_runs" | sed -n 2p)
agg_rate=$(awk -v n="$total" -v s="$sec" 'BEGIN { printf "%.0f", n / s }')

# 2. dissector alone (records per run x runs / time)
nrec=$("$BIN/nfsrdma-dissect" --json "$CAP" | wc -l)
runs=20; t0=$(now)
for ((i = 0; i < runs; i++)); do $PIN "$BIN/nfsrdma-dissect" -q "$CAP" >/dev/null; done
t1=$(now)
dis_rate=$(awk -v n="$nrec" -v r=$runs -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n * r / (b - a) }')

# 3. nfsrdmad end to end on the same capture, 8 sources flat out (lossless)
srcs=(); for i in 1 2 3 4 5 6 7 8; do srcs+=(--source "pcap:$CAP"); done
t0=$(now)
"$BIN/nfsrdmad" "${srcs[@]}" --metrics none --socket none --exit-at-end >/dev/null 2>&1
t1=$(now)
d_rate=$(awk -v n="$nrec" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n * 8 / (b - a) }')

echo "capture: $CAP ($nrec records, $distinct distinct)"
printf '%-44s %12s records/s\n' "aggregation engine (agg_add, one core)" "$agg_rate"
printf '%-44s %12s records/s\n' "dissector (nfsrdma-dissect -q)" "$dis_rate"
printf '%-44s %12s records/s\n' "nfsrdmad end to end (8 sources, flat out)" "$d_rate"
printf '%-44s %12s bytes\n' "aggregation memory for this capture" "$mem"

# 4. nfsrdma-top CPU at 1 refresh/s
if command -v tmux >/dev/null && [ -x "$BIN/nfsrdma-top" ]; then
	SOCK=$TMP/d.sock
	"$BIN/nfsrdmad" --source "pcap:$CAP" --speed 1 --metrics none --socket "$SOCK" >/dev/null 2>&1 &
	PIDS+=($!)
	for ((i = 0; i < 50; i++)); do [ -S "$SOCK" ] && break; sleep 0.1; done
	export TMUX_TMPDIR=$TMP
	tmux new-session -d -s bench -x 80 -y 24 "TERM=xterm $BIN/nfsrdma-top --socket $SOCK -d 1"
	sleep 1
	tpid=$(pgrep -n -f "nfsrdma-top --socket $SOCK")
	read -r u0 s0 < <(awk '{ print $14, $15 }' /proc/$tpid/stat)
	t0=$(now); sleep 10; t1=$(now)
	read -r u1 s1 < <(awk '{ print $14, $15 }' /proc/$tpid/stat)
	hz=$(getconf CLK_TCK)
	cpu=$(awk -v a=$((u1 + s1 - u0 - s0)) -v hz="$hz" -v x="$t0" -v y="$t1" 'BEGIN { printf "%.2f", 100 * a / hz / (y - x) }')
	printf '%-44s %12s %% of one core\n' "nfsrdma-top, 1 refresh/s, 80x24" "$cpu"
	tmux kill-server 2>/dev/null
else
	echo "nfsrdma-top CPU: skipped (needs tmux and $BIN/nfsrdma-top)"
fi

# 5. nfsrdmad vs nfsrdma-dissect, CPU time on the same large file
MB=${DAEMON_BENCH_MB:-400}
SRCS=()
for n in nfs3-read-write parallel nfs42 nfs41 nfs40 nfs3-metadata nfs3-readdirplus smoke nfs3-symlink server-restart; do
	[ -r "$SRC/tests/captures/$n.pcap" ] && SRCS+=("$SRC/tests/captures/$n.pcap")
done
if [ ${#SRCS[@]} -gt 0 ] && cc -O2 -o "$TMP/mkbigcap" "$SRC/bench/mkbigcap.c" &&
   "$TMP/mkbigcap" "$TMP/big.pcap" "$MB" "${SRCS[@]}" >"$TMP/mkbigcap.out" 2>&1; then
	cat "$TMP/big.pcap" >/dev/null   # page cache
	# user + sys of the finished process and all its threads, in ms
	# (getrusage: microseconds, where /usr/bin/time prints 10 ms steps).
	# The children's usage before the run is subtracted: a python3 that
	# is a wrapper script (pyenv's shim) starts with its own helpers'
	# ~50 ms already in RUSAGE_CHILDREN, which added to both commands
	# pulled every ratio toward 1.
	cpu_ms() { python3 -c 'import resource, subprocess, sys
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.1f" % ((r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime) * 1000))' "$@"; }
	ROUNDS=${DAEMON_BENCH_ROUNDS:-9}
	BEFORE=${DAEMON_BENCH_BEFORE:-}
	[ -n "$BEFORE" ] && [ ! -x "$BEFORE/nfsrdmad" ] && { echo "DAEMON_BENCH_BEFORE: no $BEFORE/nfsrdmad"; BEFORE=; }
	: >"$TMP/cpu"
	for ((i = 0; i < ROUNDS; i++)); do
		a=$(cpu_ms "$BIN/nfsrdma-dissect" -q "$TMP/big.pcap")
		b=$(cpu_ms "$BIN/nfsrdmad" --source "pcap:$TMP/big.pcap" --metrics none --socket none --exit-at-end)
		c=0
		[ -n "$BEFORE" ] && c=$(cpu_ms "$BEFORE/nfsrdmad" --source "pcap:$TMP/big.pcap" --metrics none --socket none --exit-at-end)
		echo "$a $b $c" >>"$TMP/cpu"
	done
	med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
	dcpu=$(awk '{ print $1 }' "$TMP/cpu" | med); mcpu=$(awk '{ print $2 }' "$TMP/cpu" | med)
	ratio=$(awk '{ printf "%.3f\n", $2 / $1 }' "$TMP/cpu" | med)
	echo "large capture: $(sed -nE 's/.*: ([0-9]+ frames, [0-9]+ bytes).*/\1/p' "$TMP/mkbigcap.out")"
	printf '%-44s %12s ms CPU, user + sys (median of %d)\n' "nfsrdma-dissect -q" "$dcpu" "$ROUNDS"
	printf '%-44s %12s ms CPU, user + sys (median of %d)\n' "nfsrdmad --exit-at-end, same file" "$mcpu" "$ROUNDS"
	printf '%-44s %12s (median of the %d rounds; target <= 1.3)\n' "nfsrdmad / nfsrdma-dissect CPU" "$ratio" "$ROUNDS"
	if [ -n "$BEFORE" ]; then
		bcpu=$(awk '{ print $3 }' "$TMP/cpu" | med)
		printf '%-44s %12s ms CPU, user + sys (median of %d)\n' "nfsrdmad before ($BEFORE)" "$bcpu" "$ROUNDS"
		printf '%-44s %12s (median of the %d rounds)\n' "nfsrdmad before / nfsrdma-dissect CPU" \
			"$(awk '{ printf "%.3f\n", $3 / $1 }' "$TMP/cpu" | med)" "$ROUNDS"
		printf '%-44s %12s (median of the %d rounds)\n' "nfsrdmad after / before CPU" \
			"$(awk '{ printf "%.3f\n", $2 / $3 }' "$TMP/cpu" | med)" "$ROUNDS"
	fi
	# 6. the same two commands in instructions executed (all threads),
	#    which the machine's load does not move: callgrind, one run each
	if command -v valgrind >/dev/null; then
		ir() { valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" 2>&1 >/dev/null |
		       awk '/Collected :/ { print $NF }'; }
		di=$(ir "$BIN/nfsrdma-dissect" -q "$TMP/big.pcap")
		mi=$(ir "$BIN/nfsrdmad" --source "pcap:$TMP/big.pcap" --metrics none --socket none --exit-at-end)
		if [ -n "$di" ] && [ -n "$mi" ]; then
			printf '%-44s %12s instructions (callgrind)\n' "nfsrdma-dissect -q" "$di"
			printf '%-44s %12s instructions (callgrind)\n' "nfsrdmad --exit-at-end, same file" "$mi"
			awk -v a="$mi" -v b="$di" 'BEGIN { printf "%-44s %12.3f (target <= 1.3)\n", "nfsrdmad / nfsrdma-dissect instructions", a / b }'
		else
			echo "instruction counts: skipped (callgrind failed)"
		fi
	else
		echo "instruction counts: skipped (needs valgrind)"
	fi
else
	echo "nfsrdmad vs dissect CPU: skipped (no lab captures or mkbigcap failed)"
fi
