# replay-bench client: the same rxe link, one measurement after the other.
# Each measurement runs under rp_phase: CPU counters of both guests and of
# the host's qemu threads are taken at two points inside its steady state.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
D=${LAB_ARG_DURATION:-8}
# pt CLIENT_OUT SERVER_ARGS...: start SERVER_ARGS on the server, then the
# same with the server's address here, output into $LAB_OUT/CLIENT_OUT.
pt() {
    local out=$1 n=1
    shift
    # numbered by the markers already there (pt may run in a subshell)
    while [[ -e $LAB_SYNC/pt.$n ]]; do n=$((n + 1)); done
    echo "$*" >"$LAB_SYNC/.pt.$n.tmp" && mv -f "$LAB_SYNC/.pt.$n.tmp" "$LAB_SYNC/pt.$n"
    lab_wait "pt.$n.listening" 60 || true
    timeout 120 "$@" "$S" >"$LAB_OUT/$out" 2>&1 || true
}
# 1. perftest message rate (64 B SENDs, rdma_cm): the short run of the
# original bench, then a timed one with CPU counters
pt ib_send_bw.txt ib_send_bw -d rxe0 -R -s 64 -n "${LAB_ARG_BW_N:-4000}" -F
rp_phase bw 1.5 2.5 pt ib_send_bw-long.txt ib_send_bw -d rxe0 -R -s 64 -n "${LAB_ARG_BW_LONG_N:-40000}" -F
# 2. nfsrdma-replay NULL rate (as many calls in flight as the server grants)
rp_phase null 3 5 rp_run bench-null "$REPLAY" --target "$S" --generate null --qd 64 --warmup 1 --duration "$D" --json
# 3. nfsrdma-replay 4 KiB READ at QD 32
rp_phase read 3 5 rp_run bench-read "$REPLAY" --target "$S" --generate read --file bench.bin --file-size 16M --size 4k --qd 32 --warmup 1 --duration "$D" --json
rp_phase read-tcp 3 5 rp_run bench-read-tcp "$REPLAY" --target "$S" --proto tcp --generate read --file bench.bin --file-size 16M --size 4k --qd 32 --warmup 1 --duration "$D" --json
# the same two with --busy-poll (perftest polls its CQ too)
rp_phase null-busy 3 5 rp_run bench-null-busy "$REPLAY" --target "$S" --generate null --qd 64 --warmup 1 --duration "$D" --busy-poll --json
rp_phase read-busy 3 5 rp_run bench-read-busy "$REPLAY" --target "$S" --generate read --file bench.bin --file-size 16M --size 4k --qd 32 --warmup 1 --duration "$D" --busy-poll --json
# 4. round trips at depth 1: perftest ping-pong vs NULL at QD 1
pt ib_send_lat.txt ib_send_lat -d rxe0 -R -s 64 -n "${LAB_ARG_LAT_N:-2000}" -F
rp_phase null-qd1 2 2 rp_run bench-null-qd1 "$REPLAY" --target "$S" --generate null --qd 1 --warmup 1 --duration 4 --json
# 5. where the time goes: both guests profiled during a NULL run (not the
# measured one: perf costs CPU)
"$REPLAY" --target "$S" --generate null --qd 64 --warmup 1 --duration 6 --json >"$LAB_OUT/bench-null-prof.out" 2>&1 &
prof=$!
rp_tick 3
rp_perf null-prof 3
wait "$prof" || true
# 6. NULL QD64 variants, each with its CPU counters (extra lines): the
# completion moderation of the endpoint (NFSRDMA_RDMA_MODERATE_US), the
# nfsd thread count, and (LAB_ARG_BASE_BIN) an older build to compare with
SD=${LAB_ARG_SWEEP_DURATION:-5}
sweep() {
    local label=$1
    shift
    rp_phase "$label" 3 3 rp_run "bench-$label" "$@" --target "$S" --generate null --qd 64 --warmup 1 --duration "$SD" --json
}
if [[ -n ${LAB_ARG_BASE_BIN:-} && -x ${LAB_ARG_BASE_BIN:-} ]]; then
    sweep null-base "$LAB_ARG_BASE_BIN"
fi
for us in ${LAB_ARG_MODERATE_SWEEP:-0 250 1000}; do
    sweep "null-m$us" env NFSRDMA_RDMA_MODERATE_US="$us" "$REPLAY"
done
for t in ${LAB_ARG_THREADS_SWEEP:-1 2}; do
    rp_nfsd_threads "$t"
    sweep "null-t$t" "$REPLAY"
done
rp_nfsd_threads "${LAB_NFSD_THREADS:-8}"
# 7. the kernel NFS/RDMA client: 32 dd's with O_DIRECT, 4 KiB each
lab_mount
N=${LAB_ARG_DD_COUNT:-96}
start=$(date +%s.%N)
for i in $(seq 0 31); do
    dd if="$LAB_MNT/bench.bin" of=/dev/null bs=4k count="$N" skip=$((i * 128)) iflag=direct status=none &
done
wait
end=$(date +%s.%N)
echo "kernel_read_4k_qd32 ops=$((32 * N)) seconds=$(awk -v a="$start" -v b="$end" "BEGIN { printf \"%.3f\", b - a }")" >"$LAB_OUT/kernel-read.txt"
lab_signal bench.done
rp_perf_report null-prof client
