# replay-floor client: bench/sleep-floor waits for multi-client.pcap's
# call times (and for a fixed 100/s) as the paced replay does, in three
# conditions of one boot: the guest idle; the kernel NFS client reading
# and writing over rxe; nfsrdma-replay at --speed 1 of the same capture
# beside it (at normal priority, so that the floor's --realtime runs
# are not held by its spin).  Each run's JSON goes to floor-NAME.out,
# the guest's interrupt and soft-interrupt counts around it to
# floor-NAME.irq, and cpu.floor-NAME.start/.end markers for the host's
# sampler of the qemu threads (tests/replay/host-cpu.py: how long the
# host kept the vCPU waiting); bench/replay.sh floor prints the table.
# LAB_ARG_FLOOR_BIN: the sleep-floor binary (default: the build's, next
# to $REPLAY); LAB_ARG_FLOOR_REPS: runs per condition (default 1).
# shellcheck shell=bash
source "$LAB_REPO/tests/replay/lib-guest.sh"
S=$LAB_SERVER_IP
MC=$LAB_REPO/tests/captures/multi-client.pcap
FLOOR=${LAB_ARG_FLOOR_BIN:-$RB/../bench/sleep-floor}
{
    echo "cmdline: $(cat /proc/cmdline)"
    echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
    echo "clockevent: $(cat /sys/devices/system/clockevents/clockevent0/current_device)"
    echo "nproc: $(nproc)"
} >"$LAB_OUT/floor-guest.txt" 2>&1 || true

# fl NAME ARGS...: one sleep-floor run, the guest's interrupt counts
# before and after it
fl() {
    local name=$1
    shift
    { echo "== before"; cat /proc/interrupts /proc/softirqs; } >"$LAB_OUT/floor-$name.irq" 2>&1 || true
    lab_signal "cpu.floor-$name.start"
    rp_run "floor-$name" "$FLOOR" --label "$name" "$@"
    lab_signal "cpu.floor-$name.end"
    { echo "== after"; cat /proc/interrupts /proc/softirqs; } >>"$LAB_OUT/floor-$name.irq" 2>&1 || true
}

for rep in $(seq 1 "${LAB_ARG_FLOOR_REPS:-1}"); do
    lab_log "floor: idle ($rep)"
    fl "idle-$rep" --capture "$MC"
    fl "idle-rt-$rep" --realtime --capture "$MC"
    fl "idle-rate-rt-$rep" --realtime --rate 100 --count 1000
    # spinning the last 20 ms before each time instead of 1 ms: late only
    # where the vCPU itself did not run (the host, or the guest's
    # interrupts), not where a sleep's wake-up came late
    NFSRDMA_REPLAY_SPIN_US=20000 fl "idle-spin20-rt-$rep" --realtime --capture "$MC"

    # the kernel client's traffic over rxe: 4 MiB written and read back
    # with O_DIRECT, over and over, while the floor runs
    lab_log "floor: under NFS traffic ($rep)"
    lab_mount
    : >"$LAB_OUT/floor-dd-$rep.log"
    (
        while [[ ! -e /tmp/floor-dd.stop ]]; do
            dd if=/dev/zero of="$LAB_MNT/floor.dat" bs=256k count=16 oflag=direct status=none
            dd if="$LAB_MNT/floor.dat" of=/dev/null bs=256k iflag=direct status=none
            echo x >>"$LAB_OUT/floor-dd-$rep.log"
        done
    ) &
    dd=$!
    fl "nfs-rt-$rep" --realtime --capture "$MC"
    touch /tmp/floor-dd.stop
    wait "$dd" || true
    rm -f /tmp/floor-dd.stop "$LAB_MNT/floor.dat"
    umount "$LAB_MNT"

    # the replay itself at --speed 1 (no --realtime: the floor's is)
    lab_log "floor: beside the replay ($rep)"
    rp_reset multi
    "$REPLAY" --target "$S" --allow-mutations --speed 1 --json "$MC" \
        >"$LAB_OUT/floor-replay-$rep.json" 2>"$LAB_OUT/floor-replay-$rep.err" &
    rp=$!
    sleep 2   # its set-up (connections, sessions) before its first call
    fl "replay-rt-$rep" --realtime --capture "$MC"
    wait "$rp" || true
done
lab_signal client.steps-done
