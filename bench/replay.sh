#!/usr/bin/env bash
# bench/replay.sh: nfsrdma-replay against its peers on the same soft-RoCE
# link, in one lab boot (tests/replay/scenarios/replay-bench):
#   - NULL-call rate vs perftest ib_send_bw message rate (64 B, rdma_cm),
#     target >= 80 %;
#   - 4 KiB READ IOPS at queue depth 32 vs the kernel NFS/RDMA client
#     (32 parallel dd with O_DIRECT on a proto=rdma mount), target >= 1.0x;
#   - the same two with --busy-poll, and the READ over RPC/TCP, for reference;
#   - extra, labelled: NULL vs a timed ib_send_bw, depth-1 round trips
#     (ib_send_lat vs NULL at QD 1), each run's CPU in both guests and in
#     the host's qemu threads, RoCE frames per operation, and profiles of
#     both guests during a NULL run (tests/replay/bench-report.py).
# bench/replay.sh multi: instead, the multi-client replay
# (tests/replay/scenarios/replay-bench-multi): calls/s of multi-client.pcap
# at --asap, single replay vs --clients 1, 2, 4, 8 on the same target, and
# the replay's own CPU per call (tests/replay/bench-multi.py).
# bench/replay.sh floor: the platform's floor under the issue-time error:
# bench/sleep-floor (the paced replay's wait with nothing to send) on the
# schedule of multi-client.pcap, here on the host and in the client guest
# (tests/replay/scenarios/replay-floor) idle, under the kernel NFS
# client's traffic and beside the replay at --speed 1
# (tests/replay/bench-floor.py).
# Prints the ratios; never fails on a number (bench, not test).
# Needs root and the lab (tests/lab/README.md).  O= picks the build dir.
set -uo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
out=${REPLAY_BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/replay-bench.XXXXXX")}
bin=$(cd "$O/bin" && pwd) || { echo "replay bench: no $O/bin (build first)"; exit 1; }
[ -x "$bin/nfsrdma-replay" ] || { echo "replay bench: no $bin/nfsrdma-replay"; exit 1; }
if [ "${1:-}" = floor ]; then
    floor=$(cd "$O/bench" && pwd)/sleep-floor
    [ -x "$floor" ] || { echo "replay bench: no $floor (make all)"; exit 1; }
    mc=tests/captures/multi-client.pcap
    "$floor" --label capture --capture "$mc" >"$out/host-floor.json"
    "$floor" --label capture-rt --realtime --capture "$mc" >"$out/host-floor-rt.json"
    "$floor" --label rate-rt --realtime --rate 100 --count 1000 >"$out/host-floor-rate-rt.json"
    mkdir -p "$out/lab"
    LAB_ARG_BIN=$bin tests/lab/run-scenario tests/replay/scenarios/replay-floor "$out/lab" &
    rs=$!
    python3 tests/replay/host-cpu.py "$out/lab" "$rs" &
    sampler=$!
    wait "$rs" || { echo "replay bench: lab run failed (see $out/lab/*.console)"; exit 1; }
    wait "$sampler"
    python3 tests/replay/bench-floor.py "$out/lab" "$out"/host-floor*.json
    exit 0
fi
if [ "${1:-}" = multi ]; then
    LAB_ARG_BIN=$bin tests/lab/run-scenario tests/replay/scenarios/replay-bench-multi "$out" ||
        { echo "replay bench: lab run failed (see $out/*.console)"; exit 1; }
    python3 tests/replay/bench-multi.py "$out"
    exit 0
fi
# The host's side of the CPU accounting runs next to the lab (it watches
# the run's share for the client's markers and reads the qemu threads).
LAB_ARG_BIN=$bin tests/lab/run-scenario tests/replay/scenarios/replay-bench "$out" &
rs=$!
python3 tests/replay/host-cpu.py "$out" "$rs" &
sampler=$!
wait "$rs"
rc=$?
wait "$sampler"
[ "$rc" = 0 ] || { echo "replay bench: lab run failed (see $out/*.console)"; exit 1; }
python3 tests/replay/bench-report.py "$out"
