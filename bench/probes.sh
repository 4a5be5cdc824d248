#!/usr/bin/env bash
# bench/probes.sh: NFS/RDMA throughput in the lab with and without the
# kernel probes attached (client and server), in one run: rounds of the
# same O_DIRECT WRITE+READ alternate off / on.  Reports MB/s both ways, the
# loss (target <= 5 %), the probe events handled per second and the
# ring-buffer drops.  Numbers are TCG-emulated: ratios only.
#   BENCH_ROUNDS (3), BENCH_MB (4) per direction per round.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
rounds=${BENCH_ROUNDS:-3} mb=${BENCH_MB:-4}
[ "$(id -u)" -eq 0 ] || { echo "probes: needs root (qemu lab)"; exit 1; }
PD=$O/tests/probe/probe_dump
mkdir -p "$O/tests/probe"
${CC:-cc} -std=gnu11 -O2 -g -D_GNU_SOURCE -I. -isystem "$O" tests/probe/probe_dump.c -o "$PD" \
    "$O/libnfsrdma.a" $(make -s --no-print-directory print-ldlibs) || { echo "probes: cannot build probe_dump"; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/probe-bench.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT
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
