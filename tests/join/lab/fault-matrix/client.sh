# Client side of the fault matrix: beacons, the client probe
# (client.jsonl), then per window: arm (the server's part first, then
# ours), the workload for FAULT_SECS, disarm, settle.  The workload:
# parallel 64 KB O_DIRECT READs, WRITEs (each + COMMIT) and metadata
# (CREATE, SETATTR, GETATTR, LOOKUP, REMOVE).
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"
source "$LAB_REPO/tests/join/lab/fault-matrix/faults.sh"

# workload DIR READERS WRITERS META: every stream loops until the deadline.
workload() {
    local dir=$1 nr=$2 nw=$3 nm=$4 end=$((SECONDS + FAULT_SECS)) i pids=()
    for ((i = 1; i <= nr; i++)); do
        ( while ((SECONDS < end)); do
            dd if="$dir/r$i" of=/dev/null bs=64k count=4 iflag=direct status=none; done ) & pids+=($!)
    done
    for ((i = 1; i <= nw; i++)); do
        ( while ((SECONDS < end)); do
            dd if=/tmp/data of="$dir/w$i" bs=64k count=4 oflag=direct conv=notrunc status=none; done ) & pids+=($!)
    done
    for ((i = 1; i <= nm; i++)); do
        ( n=0; while ((SECONDS < end)); do
            n=$((n + 1)); touch "$dir/m$i.$n"; stat "$dir/m$i.$n" > /dev/null; rm -f "$dir/m$i.$n"; done ) & pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i"; done
}

clock_note boot
beacon_start "$LAB_SERVER_IP"
daemon_start client --source kernel:client
client_mounts
dd if=/dev/urandom of=/tmp/data bs=64k count=4 status=none
for d in "$LAB_MNT" /mnt/slow; do
    for i in 1 2 3 4 5 6; do cp /tmp/data "$d/r$i"; done   # the most readers a window runs
done
sync
lab_log "workload start"
for w in $FAULT_WINDOWS; do
    lab_signal "$w.arm"
    lab_wait "$w.armed"
    client_inject "$w" on
    dir=$LAB_MNT
    [[ $w == slow ]] && dir=/mnt/slow
    fault_note "$w" work-start "$dir"
    # the same load in every window but threads and slots (below), so
    # the clean one is their control; each dd has one RPC in flight (64
    # KB syscalls, rsize 1 MB).  10 streams (4 4 2) everywhere made the
    # medians 5-20 ms noisier under TCG
    case $w in
        # a queue the fault makes needs more RPCs in flight than it lets
        # through; the checker compares these windows' floors and the
        # kernels' waits, not their load, with the clean window.  threads:
        # with 5 streams the kernel's thread wait dominated 14 of 334 RPCs
        # in one run (the thread was often free), 124 of 388 in another.
        # slots (4 credits): with 5 streams the backlog dominated 22 of
        # 378 RPCs; with 10, 24-44 of ~400, and client_host held the
        # window's largest summed share in one run of two
        threads) workload "$dir" 4 4 2 ;;
        slots) workload "$dir" 6 6 4 ;;
        *) workload "$dir" 2 2 1 ;;
    esac
    fault_note "$w" work-stop "$dir"
    client_inject "$w" off
    lab_signal "$w.disarm"
    lab_wait "$w.disarmed"
    sleep 1   # settle: nothing of this window left in flight
done
lab_log "workload end"
lab_signal workload.done
sleep 1
daemon_stop client
umount /mnt/slow || true
beacon_stop
clock_note end
