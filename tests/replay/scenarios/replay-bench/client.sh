# replay-bench client: the same rxe link, one measurement after the other.
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
D=${LAB_ARG_DURATION:-8}
# 1. perftest message rate (64 B SENDs, rdma_cm)
lab_signal bw.start
lab_wait bw.listening
timeout 120 ib_send_bw -d rxe0 -R -s 64 -n "${LAB_ARG_BW_N:-4000}" -F "$S" >"$LAB_OUT/ib_send_bw.txt" 2>&1 || true
# 2. nfsrdma-replay NULL rate (as many calls in flight as the server grants)
rp_run bench-null "$REPLAY" --target "$S" --generate null --qd 64 --warmup 1 --duration "$D" --json
# 3. nfsrdma-replay 4 KiB READ at QD 32
rp_run bench-read "$REPLAY" --target "$S" --generate read --file bench.bin --file-size 16M --size 4k --qd 32 --warmup 1 --duration "$D" --json
rp_run bench-read-tcp "$REPLAY" --target "$S" --transport tcp --generate read --file bench.bin --file-size 16M --size 4k --qd 32 --warmup 1 --duration "$D" --json
# the same two with --busy-poll (perftest polls its CQ too)
rp_run bench-null-busy "$REPLAY" --target "$S" --generate null --qd 64 --warmup 1 --duration "$D" --busy-poll --json
rp_run bench-read-busy "$REPLAY" --target "$S" --generate read --file bench.bin --file-size 16M --size 4k --qd 32 --warmup 1 --duration "$D" --busy-poll --json
# 4. the kernel NFS/RDMA client: 32 dd's with O_DIRECT, 4 KiB each
lab_mount
N=${LAB_ARG_DD_COUNT:-96}
start=$(date +%s.%N)
for i in $(seq 0 31); do
    dd if="$LAB_MNT/bench.bin" of=/dev/null bs=4k count="$N" skip=$((i * 128)) iflag=direct status=none &
done
wait
end=$(date +%s.%N)
echo "kernel_read_4k_qd32 ops=$((32 * N)) seconds=$(awk -v a="$start" -v b="$end" "BEGIN { printf \"%.3f\", b - a }")" >"$LAB_OUT/kernel-read.txt"
