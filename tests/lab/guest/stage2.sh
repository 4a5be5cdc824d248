#!/bin/bash
# tests/lab/guest/stage2.sh — PID 1 of a lab guest, after switch_root.
#
# Runs inside the guest with the host's "/" (read-only, 9p) under a tmpfs
# overlay. Reads its role from the kernel command line and the run's settings
# from the shared directory (lab.conf, written by run-scenario), brings up
# eth0 + soft-RoCE, starts tracing, runs the scenario's server.sh or
# client.sh, then writes the ground truth into the shared directory and
# powers the guest off. It never exits (PID 1 must not): it powers off.
#
# No `set -e`: whatever the scenario does, the ground truth must be
# collected and the guest must power off.
# shellcheck disable=SC2013  # /proc/cmdline is words, not lines
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

poweroff_now() {
    sync
    echo o > /proc/sysrq-trigger
    sleep 30
}

say() { echo "lab[${LAB_ROLE:-?}]: $*"; }

cmdline_arg() {
    local w
    for w in $(cat /proc/cmdline); do
        [[ $w == "$1="* ]] && { echo "${w#*=}"; return 0; }
    done
    return 1
}

LAB_ROLE=$(cmdline_arg lab.role) || { say "no lab.role"; poweroff_now; }
LAB_KROOT=$(cmdline_arg lab.kroot) || { say "no lab.kroot"; poweroff_now; }
export LAB_ROLE

# --- filesystems -----------------------------------------------------------
# /tmp stays the overlay's (writable, tmpfs-backed): a fresh tmpfs would hide
# the host's /tmp, where callers may keep scenario directories.
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/lock /run/rpcbind /run/rpc_pipefs /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
# The real module tree (unpacked by kernel.sh in the host cache) must be at
# /lib/modules/KVER for modprobe; bind it there through the overlay.
KVER=$(uname -r)
mkdir -p "/lib/modules/$KVER"
mount --bind "$LAB_KROOT/lib/modules/$KVER" "/lib/modules/$KVER"

# The writable share with the host: lab.conf, sync markers, outputs.
mkdir -p /lab
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none labshare /lab ||
    { say "cannot mount the lab share"; poweroff_now; }
# Exported (set -a): the scenario scripts run in child shells.
set -a
# shellcheck source=/dev/null
source /lab/lab.conf || { say "no /lab/lab.conf"; poweroff_now; }
set +a
export LAB_REPO LAB_SCENARIO LAB_SCENARIO_DIR
export LAB_SHARE=/lab LAB_OUT=/lab/out LAB_SYNC=/lab/sync

hostname "$LAB_ROLE"
# shellcheck source=tests/lab/guest/lib.sh
source "$LAB_REPO/tests/lab/guest/lib.sh"

stage2_main() {
    local rc=0
    say "booted $(uname -r) in $(cut -d' ' -f1 /proc/uptime) s"
    local m
    for m in $LAB_MODULES; do
        modprobe "$m" || say "modprobe $m failed"
    done
    lab_net_up || { lab_signal "$LAB_ROLE.failed"; return 1; }
    lab_trace_start
    lab_log "start role=$LAB_ROLE scenario=$LAB_SCENARIO realtime=$(date +%s.%N) uptime=$(cut -d' ' -f1 /proc/uptime)"

    if [[ $LAB_ROLE == client ]]; then
        # The client starts once the server said it is ready (or gave up).
        lab_wait server.ready "$LAB_WAIT_TIMEOUT" || { say "server never got ready"; rc=1; }
    fi
    if ((rc == 0)); then
        lab_run_role_script || rc=$?
    fi
    echo "$rc" > "$LAB_OUT/$LAB_ROLE.rc"
    if ((rc != 0)); then
        lab_signal "$LAB_ROLE.failed"
    fi

    if [[ $LAB_ROLE == client ]]; then
        lab_client_finish
        lab_trace_collect
        lab_signal client.done
    else
        # Keep the server up until the client has unmounted and collected.
        lab_wait client.done "$LAB_WAIT_TIMEOUT" || say "client.done never came"
        lab_server_finish
        lab_trace_collect
        lab_signal server.done
    fi
    say "finished rc=$rc in $(cut -d' ' -f1 /proc/uptime) s"
}

stage2_main
poweroff_now
