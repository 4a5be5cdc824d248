#!/usr/bin/env bash
# bench/probes.sh: what the kernel probes cost, in the lab (TCG: ratios).
# 1. Per kernel (BENCH_KERNELS, "6.1 6.12"), one probe-cost run
#    (tests/probe/scenarios/probe-cost): every probe program's ns per run as
#    the kernel accounts it (kernel.bpf_stats_enabled, bpftool), next to an
#    empty program on the same tracepoint in the same run (the emulation's
#    yardstick: bench/probe_empty.c), its ratio to the median of its side,
#    the cost per RPC; then the overhead: the host CPU time the client
#    guest takes for the same 4 KB O_DIRECT READs with the client probe on
#    and off, ABBA rounds (mean, stdev, standard error; ov_watch below).
#    bench/probes_cost.py makes the table.
#    BENCH_OV_ROUNDS (8), BENCH_OV_KB (2048: 512 READs a round),
#    BENCH_PROBE_DUMP: another probe_dump (a before/after comparison).
# 2. NFS/RDMA throughput with and without the probes (client and server),
#    rounds of the same O_DIRECT WRITE+READ alternating off / on: MB/s both
#    ways, the loss (target <= 5 %), events per second, ring-buffer drops.
#    BENCH_ROUNDS (3), BENCH_MB (4) per direction per round;
#    BENCH_THROUGHPUT=0 skips it.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
rounds=${BENCH_ROUNDS:-3} mb=${BENCH_MB:-4}
[ "$(id -u)" -eq 0 ] || { echo "probes: needs root (qemu lab)"; exit 1; }
PD=$O/tests/probe/probe_dump PE=$O/bench/probe_empty
mkdir -p "$O/tests/probe" "$O/bench"
${CC:-cc} -std=gnu11 -O2 -g -D_GNU_SOURCE -I. -isystem "$O" tests/probe/probe_dump.c -o "$PD" \
    "$O/libnfsrdma.a" $(make -s --no-print-directory print-ldlibs) || { echo "probes: cannot build probe_dump"; exit 1; }
${CC:-cc} -std=gnu11 -O2 -g -D_GNU_SOURCE bench/probe_empty.c -o "$PE" -lbpf || { echo "probes: cannot build probe_empty"; exit 1; }
${CLANG:-clang} -g -O2 -target bpf -Wall -Werror -I/usr/include/x86_64-linux-gnu -c bench/probe_empty.bpf.c \
    -o "$O/bench/probe_empty.bpf.o" || { echo "probes: cannot build probe_empty.bpf.o"; exit 1; }
[ -n "${BENCH_PROBE_DUMP:-}" ] && PD=$BENCH_PROBE_DUMP
# the tracepoints of each side, as the loader's plan lists them
tps() { sed -nE 's/^\s*\{ "(\w+)", "(\w+)", '"$1"', "tp_\w+".*/\1:\2/p' src/probe/probe_plan.c | tr '\n' ' '; }
out=$(mktemp -d "${TMPDIR:-/tmp}/probe-bench.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT
# The client qemu's CPU time (ns, all its threads) at each ov.* mark the
# probe-cost client sets, acknowledged (ack.*) once read: the overhead is
# what the same READs cost the host with the client probe on and off, which
# the host's other load does not inflate the way it does the guest's clock.
ov_watch() {   # LOG RESULT
    local log=$1 res=$2 id='' sync pid f n t i
    for ((i = 0; i < 1200; i++)); do
        id=$(sed -nE 's/.*guests started \(run ([A-Za-z0-9]+),.*/\1/p' "$log" 2>/dev/null)
        [ -n "$id" ] && break
        sleep 0.5
    done
    [ -n "$id" ] || return 0
    sync=${TMPDIR:-/tmp}/nfsrdma-lab.$id/share/sync
    pid=$(pgrep -f -- "^qemu-system.* -name nfsrdma-lab-$id-client " | head -1)
    [ -n "$pid" ] || return 0
    while kill -0 "$pid" 2>/dev/null; do
        for f in "$sync"/ov.*; do
            [ -e "$f" ] || continue
            n=${f##*/ov.}
            [ -e "$sync/ack.$n" ] && continue
            t=$(cat /proc/"$pid"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }')
            echo "$n $t" >> "$res"
            touch "$sync/ack.$n"
        done
        sleep 0.05
    done
}
rc=0
for kv in ${BENCH_KERNELS:-6.1 6.12}; do
    : > "$out/cost-$kv.log"
    ov_watch "$out/cost-$kv.log" "$out/cost-$kv.ovcpu" &
    wpid=$!
    if ! LAB_KVERSION=$kv LAB_ARG_PROBE_DUMP=$PD LAB_ARG_PROBE_EMPTY=$PE \
            LAB_ARG_PROBE_EMPTY_OBJ=$O/bench/probe_empty.bpf.o \
            LAB_ARG_CLIENT_TPS="$(tps C)" LAB_ARG_SERVER_TPS="$(tps S)" \
            LAB_ARG_OV_ROUNDS=${BENCH_OV_ROUNDS:-8} LAB_ARG_OV_KB=${BENCH_OV_KB:-2048} \
            tests/lab/run-scenario tests/probe/scenarios/probe-cost "$out/cost-$kv" > "$out/cost-$kv.log" 2>&1; then
        echo "probes: cost run on $kv failed"; tail -5 "$out/cost-$kv.log"; rc=1; wait "$wpid"; continue
    fi
    wait "$wpid"
    cp "$out/cost-$kv.ovcpu" "$out/cost-$kv/ovcpu.txt" 2>/dev/null
    python3 bench/probes_cost.py "$out/cost-$kv" "$(cat "$out/cost-$kv/uname" 2>/dev/null || echo "$kv")" src/probe/probe_plan.c || rc=1
done
[ "${BENCH_THROUGHPUT:-1}" = 0 ] && exit $rc
if ! LAB_ARG_PROBE_DUMP=$PD LAB_ARG_BENCH_ROUNDS=$rounds LAB_ARG_BENCH_MB=$mb \
        tests/lab/run-scenario tests/probe/scenarios/probe-bench "$out/run" > "$out/log" 2>&1; then
    echo "probes: lab run failed"; tail -5 "$out/log"; exit 1
fi
python3 - "$out/run" "$rounds" <<'PY'
import glob, json, os, sys
d, rounds = sys.argv[1], int(sys.argv[2])
t = {"off": 0.0, "on": 0.0}
mbs = {"off": 0, "on": 0}
for line in open(os.path.join(d, "bench.txt")):
    mode, r, mb, sec = line.split()
    t[mode] += float(sec)
    mbs[mode] += 2 * int(mb)
ev = drops = recs = 0
for f in glob.glob(os.path.join(d, "*-bench.*.jsonl")):
    for line in open(f):
        o = json.loads(line)
        if "summary" in o:
            s = o["summary"]
            ev += s["events"]; drops += s["ringbuf_drops"]; recs += s["records"]
off, on = mbs["off"] / t["off"], mbs["on"] / t["on"]
loss = 100.0 * (off - on) / off
print("probes: %d rounds, %d MB moved per mode" % (rounds, mbs["off"]))
print("probes: throughput without probes %.2f MB/s, with probes %.2f MB/s: loss %.1f %% (target <= 5 %%)" % (off, on, loss))
print("probes: %d tracepoint events handled (%.0f events/s while attached), %d records, ring-buffer drops %d"
      % (ev, ev / t["on"], recs, drops))
PY
[ $? -eq 0 ] || rc=1
exit $rc
