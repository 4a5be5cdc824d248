# Rounds of the same O_DIRECT workload, first without probes, then with
# the probes attached on both sides; times go to $LAB_OUT/bench.txt.
# shellcheck shell=bash
source "$LAB_REPO/tests/probe/scenarios/lib.sh"
MB=${LAB_ARG_BENCH_MB:-4}
lab_mount
dd if=/dev/urandom of=/tmp/data bs=1M count="$MB" status=none
workload() {   # prints seconds for MB written + MB read
    local t0 t1
    t0=$(date +%s.%N)
    dd if=/tmp/data of="$LAB_MNT/bench.dat" bs=256k oflag=direct status=none
    dd if="$LAB_MNT/bench.dat" of=/dev/null bs=256k iflag=direct status=none
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.6f\n", $2 - $1}'
}
workload > /dev/null   # warm-up: connection, file creation
for ((r = 1; r <= ${LAB_ARG_BENCH_ROUNDS:-3}; r++)); do
    echo "off $r $MB $(workload)" >> "$LAB_OUT/bench.txt"
    lab_signal "attach.$r"
    lab_wait "attached.$r"
    probe_start "client-bench.$r" --side client --quiet
    echo "on $r $MB $(workload)" >> "$LAB_OUT/bench.txt"
    probe_stop "client-bench.$r"
    lab_signal "detach.$r"
    lab_wait "detached.$r"
done
