# tests/join/lab/fault-matrix/faults.sh — what both guests of the fault
# matrix share: the window list, the handshake, the injections and the
# truth file (ROLE.faults).  Sourced after tests/join/lab/lib.sh.
# shellcheck shell=bash

# Order matters: "slots" remounts against a server granting few credits,
# so it is last.  (The client's rdma_slot_table_entries never bit on 6.1:
# its minimum is 4 and the transport never backlogged; the server's
# credit grant is what the client's transport obeys, negotiated per
# connection, so the server cuts it before the client's remount.)
FAULT_WINDOWS=${LAB_ARG_WINDOWS:-"clean srv-delay cli-delay both-delay loss slow threads slots"}
FAULT_SECS=${LAB_ARG_WINDOW_SECS:-8}   # workload seconds per window
FAULT_DELAY_MS=20                      # netem delay, each side
FAULT_LOSS_PCT=2                       # netem loss, the server's egress
FAULT_DISK_MS=20                       # dm-delay write delay
FAULT_CREDITS=4                        # svc_rdma max_requests (the sysctl's minimum)
SLOW_DIR=$LAB_EXPORT/slow

# fault_note WINDOW EVENT WHAT: one truth line on this guest's
# CLOCK_MONOTONIC (the probes' clock) and CLOCK_REALTIME, read back to back.
fault_note() {
    python3 -c 'import sys, time
m = time.clock_gettime_ns(time.CLOCK_MONOTONIC); r = time.clock_gettime_ns(time.CLOCK_REALTIME)
print("%s %s mono=%d real=%d %s" % (sys.argv[1], sys.argv[2], m, r, sys.argv[3]))' \
        "$1" "$2" "$3" >> "$LAB_OUT/$LAB_ROLE.faults"
}

netem_on() { modprobe sch_netem; tc qdisc replace dev eth0 root netem "$@" limit 100000; }
netem_off() { tc qdisc del dev eth0 root 2> /dev/null || true; }

# slow_setup: ext4 on a loop device under dm-delay (no delay until the
# window), mounted at $SLOW_DIR; exported by the caller.
slow_setup() {
    modprobe loop; modprobe dm_delay
    truncate -s 64M /tmp/slow.img
    mkfs.ext4 -q -F /tmp/slow.img
    losetup /dev/loop0 /tmp/slow.img
    slow_table 0
    mkdir -p "$SLOW_DIR"
    modprobe ext4 || true
    mount -t ext4 /dev/mapper/slow "$SLOW_DIR"
    chmod 1777 "$SLOW_DIR"
}
slow_table() {   # write delay in ms (reads never delayed)
    local sz
    sz=$(blockdev --getsz /dev/loop0)
    if [[ -e /dev/mapper/slow ]]; then
        dmsetup suspend slow
        dmsetup reload slow --table "0 $sz delay /dev/loop0 0 0 /dev/loop0 0 $1"
        dmsetup resume slow
    else
        dmsetup create slow --noudevsync --table "0 $sz delay /dev/loop0 0 0 /dev/loop0 0 $1"
        dmsetup mknodes slow   # no udev in the guest
    fi
}

# server_inject WINDOW on|off / client_inject WINDOW on|off: each side's
# part of a window's fault, noted before "on" takes effect is impossible,
# so "start" is noted after it is in place and "stop" before it is taken
# away: the window between holds the fault for certain.
server_inject() {
    local w=$1 how=$2 what=""
    case $w in
        srv-delay|both-delay) what="netem delay ${FAULT_DELAY_MS}ms eth0 egress"
            [[ $how == on ]] && netem_on delay "${FAULT_DELAY_MS}ms" ;;
        loss) what="netem loss ${FAULT_LOSS_PCT}% eth0 egress"
            [[ $how == on ]] && netem_on loss "${FAULT_LOSS_PCT}%" ;;
        slow) what="dm-delay write ${FAULT_DISK_MS}ms under $SLOW_DIR"
            [[ $how == on ]] && slow_table "$FAULT_DISK_MS" ;;
        threads) what="rpc.nfsd 1"
            if [[ $how == on ]]; then
                rpc.nfsd 1
                # what the kernel took (6.12 showed no queueing at all)
                what+=" (threads reads back $(cat /proc/fs/nfsd/threads 2> /dev/null || echo '?'))"
            fi ;;
        slots) what="svc_rdma max_requests $FAULT_CREDITS, client remounted"
            if [[ $how == on ]]; then
                credits0=$(cat /proc/sys/sunrpc/svc_rdma/max_requests)
                echo "$FAULT_CREDITS" > /proc/sys/sunrpc/svc_rdma/max_requests
                what+=" (reads back $(cat /proc/sys/sunrpc/svc_rdma/max_requests), was $credits0)"
            fi ;;
    esac
    if [[ $how == on ]]; then
        fault_note "$w" start "$what"
    else
        fault_note "$w" stop "$what"
        case $w in
            srv-delay|both-delay|loss) netem_off ;;
            slow) slow_table 0 ;;
            threads) rpc.nfsd "$LAB_NFSD_THREADS" ;;
            slots) echo "$credits0" > /proc/sys/sunrpc/svc_rdma/max_requests ;;
        esac
    fi
}

client_inject() {
    local w=$1 how=$2 what=""
    case $w in
        cli-delay|both-delay) what="netem delay ${FAULT_DELAY_MS}ms eth0 egress"
            [[ $how == on ]] && netem_on delay "${FAULT_DELAY_MS}ms" ;;
        slots) what="remounted"
            if [[ $how == on ]]; then
                umount /mnt/slow; umount "$LAB_MNT"
                client_mounts
            fi ;;
    esac
    if [[ $how == on ]]; then
        fault_note "$w" start "$what"
    else
        fault_note "$w" stop "$what"
        case $w in cli-delay|both-delay) netem_off ;; esac
    fi
}

client_mounts() {
    lab_mount
    mkdir -p /mnt/slow
    mount -t nfs -o "vers=3,proto=rdma,port=20049,nolock,$LAB_NFS_OPTS" \
        "$LAB_SERVER_IP:$SLOW_DIR" /mnt/slow
}
