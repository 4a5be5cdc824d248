# tests/lab/guest/lib.sh — helpers for the lab guests (sourced, not run).
#
# stage2.sh sources this in the guest's PID 1, and run-role.sh sources it
# before a scenario's server.sh / client.sh, so every lab_* function below
# is available to scenario scripts. Settings come from lab.conf (written by
# run-scenario from defaults + the scenario's `env` file).
# shellcheck shell=bash

: "${LAB_SHARE:=/lab}" "${LAB_OUT:=/lab/out}" "${LAB_SYNC:=/lab/sync}"
: "${LAB_SERVER_IP:=10.9.0.1}" "${LAB_CLIENT_IP:=10.9.0.2}"
: "${LAB_EXPORT:=/export}" "${LAB_MNT:=/mnt/nfs}"
: "${LAB_NFS_VERS:=3}" "${LAB_NFS_PROTO:=rdma}" "${LAB_NFS_OPTS:=}"
: "${LAB_NFSD_THREADS:=8}" "${LAB_MTU:=4200}" "${LAB_RXE:=1}"
: "${LAB_WAIT_TIMEOUT:=150}" "${LAB_SCRIPT_TIMEOUT:=150}"
: "${LAB_TRACE_EVENTS:=}" "${LAB_TRACE_BUFFER_KB:=32768}"
LAB_TRACEFS=/sys/kernel/tracing

# lab_log MSG: to the console and, as a marker, into the kernel trace (so
# phases of a scenario can be found in client.trace / server.trace).
lab_log() {
    echo "lab[$LAB_ROLE]: $*" >&2
    echo "lab: $*" > "$LAB_TRACEFS/trace_marker" 2>/dev/null || true
}

# lab_signal NAME: create sync marker NAME in the shared directory (seen by
# the other guest and by the host). Written then renamed, so it is atomic.
lab_signal() {
    date +%s.%N > "$LAB_SYNC/.$1.$LAB_ROLE.tmp" &&
        mv -f "$LAB_SYNC/.$1.$LAB_ROLE.tmp" "$LAB_SYNC/$1"
}

# lab_wait NAME [TIMEOUT]: wait for marker NAME. Returns 1 on timeout and,
# unless NAME is a *.done marker, as soon as any *.failed marker appears
# (the other side gave up, so waiting longer is pointless).
lab_wait() {
    local name=$1 timeout=${2:-$LAB_WAIT_TIMEOUT} xtrace=0 f
    [[ $- == *x* ]] && xtrace=1 && { set +x; } 2>/dev/null
    local deadline=$((SECONDS + timeout)) rc=1
    while ((SECONDS < deadline)); do
        if [[ -e $LAB_SYNC/$name ]]; then rc=0; break; fi
        if [[ $name != *.done ]]; then
            for f in "$LAB_SYNC"/*.failed; do
                [[ -e $f ]] && { echo "lab[$LAB_ROLE]: $(basename "$f") while waiting for $name" >&2; break 2; }
            done
        fi
        sleep 0.2
    done
    ((xtrace)) && set -x
    return "$rc"
}

# lab_net_up: eth0 on the private qemu link, MTU 4200 (RoCE MTU 4096), and
# the soft-RoCE device rxe0 on top of it.
lab_net_up() {
    local ip
    case $LAB_ROLE in
        server) ip=$LAB_SERVER_IP ;;
        *) ip=$LAB_CLIENT_IP ;;
    esac
    ip link set lo up
    ip link set eth0 mtu "$LAB_MTU" up || return 1
    ip addr add "$ip/24" dev eth0 || return 1
    if ((LAB_RXE)); then
        rdma link add rxe0 type rxe netdev eth0 || { echo "rdma link add failed" >&2; return 1; }
        local _
        for _ in $(seq 50); do
            rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE' && break
            sleep 0.1
        done
        rdma link show >&2
    fi
}

# lab_trace_start: size the trace buffer, enable LAB_TRACE_EVENTS (noting
# any the kernel lacks), save their format files (the server's in formats/,
# the client's in client-formats/: the roles may run different kernels), and
# start tracing.
lab_trace_start() {
    local t=$LAB_TRACEFS ev notes=$LAB_SHARE/.trace-notes.$LAB_ROLE
    : > "$notes"
    echo 0 > "$t/tracing_on"
    echo "$LAB_TRACE_BUFFER_KB" > "$t/buffer_size_kb"
    : > "$t/trace"
    for ev in $LAB_TRACE_EVENTS; do
        local sys=${ev%%:*} name=${ev#*:}
        if [[ -d $t/events/$sys/$name ]]; then
            echo 1 > "$t/events/$sys/$name/enable"
            local fdir=$LAB_OUT/formats
            [[ $LAB_ROLE == server ]] || fdir=$LAB_OUT/$LAB_ROLE-formats
            mkdir -p "$fdir/$sys/$name"
            cp "$t/events/$sys/$name/format" "$fdir/$sys/$name/format"
        else
            echo "# lab: event $ev does not exist in $(uname -r); not traced" >> "$notes"
        fi
    done
    echo 1 > "$t/tracing_on"
}

# lab_trace_collect: stop tracing, write ROLE.trace (notes + the trace) and
# ROLE.trace-stats (per_cpu/cpu0/stats: overrun must be 0).
lab_trace_collect() {
    local t=$LAB_TRACEFS notes=$LAB_SHARE/.trace-notes.$LAB_ROLE
    echo 0 > "$t/tracing_on"
    {
        echo "# lab: role=$LAB_ROLE kernel=$(uname -r) scenario=$LAB_SCENARIO"
        echo "# lab: events: $LAB_TRACE_EVENTS"
        cat "$notes" 2>/dev/null
        cat "$t/trace"
    } > "$LAB_OUT/$LAB_ROLE.trace"
    cat "$t/per_cpu/cpu0/stats" > "$LAB_OUT/$LAB_ROLE.trace-stats"
    uname -r > "$LAB_OUT/uname"
}

# lab_run_role_script: run the scenario's ROLE.sh (or the default one) with
# xtrace into ROLE.commands, under a timeout. Returns its exit status.
lab_run_role_script() {
    local script=$LAB_SCENARIO_DIR/$LAB_ROLE.sh
    if [[ ! -d $LAB_SCENARIO_DIR ]]; then
        echo "lab[$LAB_ROLE]: scenario dir $LAB_SCENARIO_DIR is not visible in the guest" >&2
        return 1
    fi
    [[ -f $script ]] || script=$LAB_REPO/tests/lab/guest/default-$LAB_ROLE.sh
    lab_log "running $script"
    (cd /tmp && timeout -k 5 "$LAB_SCRIPT_TIMEOUT" \
        bash "$LAB_REPO/tests/lab/guest/run-role.sh" "$script")
    local rc=$?
    lab_log "$LAB_ROLE script exited rc=$rc"
    return "$rc"
}

# ---------------------------------------------------------------- server --

# lab_export_line: the /etc/exports line. fsid=0 makes the export the
# NFSv4 pseudo-root (v4 mounts "/"), and still works for v3 ("/export").
# insecure: the RDMA client does not use a reserved port.
lab_export_line() {
    echo "$LAB_EXPORT $LAB_CLIENT_IP(rw,insecure,no_root_squash,no_subtree_check,fsid=0)"
}

# lab_server_start [HOOK]: tmpfs export, rpcbind, mountd, knfsd with an
# RDMA listener on 20049; then signal server.ready to the client. HOOK (a
# command) runs once the export is mounted, before anything is served: use
# it to pre-populate the export.
lab_server_start() {
    mkdir -p "$LAB_EXPORT"
    mount -t tmpfs -o size=256m,mode=1777 export "$LAB_EXPORT"
    if [[ -n ${1:-} ]]; then "$1"; fi
    mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
    mountpoint -q /run/rpc_pipefs || mount -t rpc_pipefs rpc_pipefs /run/rpc_pipefs
    lab_export_line > /etc/exports
    rpcbind -w
    rpc.mountd
    exportfs -ra
    lab_nfsd_up
    lab_signal server.ready
}

# lab_nfsd_up: start knfsd threads and the RDMA listener. The NFSv4 grace
# period (90 s, 10 s at best) is ended at once: no client has state to
# reclaim in a fresh lab, and waiting would stall every OPEN.
# LAB_NFSD_LEASE: the NFSv4 lease in seconds (10 at least; knfsd takes
# it only while no thread runs).
lab_nfsd_up() {
    [[ -n ${LAB_NFSD_LEASE:-} ]] && echo "$LAB_NFSD_LEASE" > /proc/fs/nfsd/nfsv4leasetime
    rpc.nfsd "$LAB_NFSD_THREADS"
    echo "rdma 20049" > /proc/fs/nfsd/portlist
    echo Y > /proc/fs/nfsd/v4_end_grace 2>/dev/null || true
    cat /proc/fs/nfsd/portlist >&2
}

# lab_nfsd_down: stop every knfsd thread and listener (RDMA connections drop).
lab_nfsd_down() {
    rpc.nfsd 0
}

# lab_server_finish: server-side statistics for the ground truth.
lab_server_finish() {
    lab_chimera_finish
    [[ -r /proc/net/rpc/nfsd ]] && cat /proc/net/rpc/nfsd > "$LAB_OUT/server.nfsd-stats"
    [[ -r /proc/fs/nfsd/portlist ]] && cat /proc/fs/nfsd/portlist > "$LAB_OUT/server.portlist"
    return 0
}

# ---------------------------------------------------------------- client --

# lab_mount [EXTRA_OPTS]: mount the server's export on $LAB_MNT with
# LAB_NFS_VERS / LAB_NFS_PROTO / LAB_NFS_OPTS (+ EXTRA_OPTS), LAB_NFS_PATH.
lab_mount() {
    local port src opts
    case $LAB_NFS_PROTO in
        rdma) port=20049 ;;
        *) port=2049 ;;
    esac
    opts="vers=$LAB_NFS_VERS,proto=$LAB_NFS_PROTO,port=$port"
    if [[ $LAB_NFS_VERS == 3 ]]; then
        opts+=",nolock"
        src=$LAB_SERVER_IP:$LAB_EXPORT
    else
        src=$LAB_SERVER_IP:/
    fi
    # LAB_NFS_PATH: the server's path to mount instead (Chimera's NFSv4
    # pseudo-root is not its export, as knfsd's fsid=0 one is)
    [[ -n ${LAB_NFS_PATH:-} ]] && src=$LAB_SERVER_IP:$LAB_NFS_PATH
    [[ -n $LAB_NFS_OPTS ]] && opts+=",$LAB_NFS_OPTS"
    [[ -n ${1:-} ]] && opts+=",$1"
    mkdir -p "$LAB_MNT"
    mount -t nfs -o "$opts" "$src" "$LAB_MNT" || return 1
    # Fail loudly if the kernel negotiated something else than asked for.
    local line
    line=$(grep " $LAB_MNT " /proc/mounts)
    echo "$line" >&2
    [[ $line == *",vers=$LAB_NFS_VERS,"* && $line == *",proto=$LAB_NFS_PROTO,"* ]] || {
        echo "lab[$LAB_ROLE]: mounted with other vers/proto than vers=$LAB_NFS_VERS proto=$LAB_NFS_PROTO" >&2
        return 1
    }
}

# lab_drop_caches: make the next reads go to the wire.
lab_drop_caches() {
    sync
    echo 3 > /proc/sys/vm/drop_caches
}

# lab_capture_start: ask the host to start the packet capture now (for
# scenarios whose env says LAB_CAPTURE=late) and wait until it has.
lab_capture_start() {
    lab_signal capture.request
    lab_wait capture.started 60
}

# lab_client_finish: mountstats (before unmount), then unmount everything.
lab_client_finish() {
    cat /proc/self/mountstats > "$LAB_OUT/client.mountstats"
    cat /proc/mounts > "$LAB_OUT/client.mounts"
    [[ -r /proc/net/rpc/nfs ]] && cat /proc/net/rpc/nfs > "$LAB_OUT/client.rpc-stats"
    local mnt
    # shellcheck disable=SC2013  # mount points have no spaces here
    for mnt in $(awk '$3 ~ /^nfs/ { print $2 }' /proc/mounts); do
        timeout 30 umount "$mnt" || timeout 10 umount -f "$mnt" ||
            echo "lab[$LAB_ROLE]: umount $mnt failed" >&2
    done
    return 0
}

# ---------------------------------------------------------------- chimera --
# A second RPC-over-RDMA server (tests/lab/chimera/README.md): Chimera's
# userspace daemon, built on the host by tests/lab/chimera/build.sh
# (LAB_CHIMERA_BIN, seen through the 9p root), serving a memfs export at
# $LAB_EXPORT over RDMA on 20049 and TCP on 2049, with its own portmapper
# and mountd (20048), so neither rpcbind nor knfsd runs.

# lab_chimera_start [CONFIG]: start the daemon with CONFIG (a JSON file;
# default: the memfs server below), its log in $LAB_OUT/chimera.log; wait
# until its TCP services (and, when the config serves RDMA, its RDMA
# listener) are up; in the server guest, then signal server.ready.
lab_chimera_start() {
    local conf=${1:-/tmp/chimera.json} i
    [[ -x ${LAB_CHIMERA_BIN:-} ]] || { echo "lab[$LAB_ROLE]: LAB_CHIMERA_BIN not executable: '${LAB_CHIMERA_BIN:-}'" >&2; return 1; }
    if [[ -z ${1:-} ]]; then
        # threads: one vCPU; rdma_max_inline 0: Debian 12's rxe sends
        # inline payloads as zero bytes (patches/libevpl-04-*)
        cat > "$conf" <<JSON
{
    "server": {
        "threads": 1, "delegation_threads": 1,
        "rdma": true, "rdma_hostname": "0.0.0.0", "rdma_port": 20049,
        "rdma_max_inline": 0, "nfs4_grace_time": 1
    },
    "mounts": { "${LAB_EXPORT#/}": { "module": "memfs", "path": "/" } },
    "exports": { "$LAB_EXPORT": { "path": "$LAB_EXPORT" } }
}
JSON
    fi
    cp "$conf" "$LAB_OUT/chimera.json"
    echo "$conf" > /tmp/chimera.conf-path
    local rdma=0
    grep -q '"rdma": *true' "$conf" && rdma=1
    rm -f /tmp/chimera.exit /tmp/chimera.pid
    # the subshell keeps the daemon's exit status (a crash is a finding)
    # (the scenario scripts run with errexit: the status is caught, not
    # left to end the subshell before it is written)
    ( "$LAB_CHIMERA_BIN" -c "$conf" > "$LAB_OUT/chimera.log" 2>&1 &
      echo $! > /tmp/chimera.pid
      rc=0
      wait $! || rc=$?
      echo $rc > /tmp/chimera.exit ) &
    for ((i = 0; i < 20; i++)); do [[ -s /tmp/chimera.pid ]] && break; sleep 0.1; done
    lab_chimera_listening() {
        [[ -n $(ss -Hltn '( sport = :2049 )') && -n $(ss -Hltn '( sport = :20048 )') ]] &&
            { ((rdma == 0)) || rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN.*:20049'; }
    }
    for ((i = 0; i < 240; i++)); do
        kill -0 "$(cat /tmp/chimera.pid)" 2>/dev/null || { echo "lab[$LAB_ROLE]: chimera exited at start:" >&2; tail -20 "$LAB_OUT/chimera.log" >&2; return 1; }
        lab_chimera_listening && break
        sleep 0.5
    done
    lab_chimera_listening || { echo "lab[$LAB_ROLE]: chimera's services never came up (rdma=$rdma)" >&2; tail -20 "$LAB_OUT/chimera.log" >&2; return 1; }
    rdma res show cm_id > "$LAB_OUT/$LAB_ROLE.cm_id" 2>&1 || true
    lab_log "chimera up (pid $(cat /tmp/chimera.pid))"
    [[ $LAB_ROLE == server ]] && lab_signal server.ready
    return 0
}

# lab_chimera_restart: stop the daemon and start it again (a fresh, empty
# memfs export); a daemon that had died is noted in chimera.deaths.
lab_chimera_restart() {
    local pid i
    pid=$(cat /tmp/chimera.pid)
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 20; i++)); do [[ -f /tmp/chimera.exit ]] && break; sleep 0.2; done
    else
        echo "died before restart $(cat /tmp/chimera.exit 2>/dev/null || echo '?')" >> "$LAB_OUT/chimera.deaths"
    fi
    cat "$LAB_OUT/chimera.log" >> "$LAB_OUT/chimera.log.all"
    lab_chimera_start "$(cat /tmp/chimera.conf-path)"
}

# lab_chimera_finish: whether the daemon was still running when the client
# was done (server.chimera-alive: "yes", or "no STATUS" with its exit
# status, 128+N for signal N), then stop it. Called by lab_server_finish.
lab_chimera_finish() {
    local pid i
    [[ -f /tmp/chimera.pid ]] || return 0
    [[ -f $LAB_OUT/chimera.log.all ]] && cat "$LAB_OUT/chimera.log" >> "$LAB_OUT/chimera.log.all"
    pid=$(cat /tmp/chimera.pid)
    if kill -0 "$pid" 2>/dev/null; then
        echo yes > "$LAB_OUT/$LAB_ROLE.chimera-alive"
        kill -TERM "$pid"
        for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL "$pid" 2>/dev/null || true
    else
        echo "no $(cat /tmp/chimera.exit 2>/dev/null || echo '?')" > "$LAB_OUT/$LAB_ROLE.chimera-alive"
    fi
    rdma res show cm_id > "$LAB_OUT/$LAB_ROLE.cm_id.end" 2>&1 || true
}
