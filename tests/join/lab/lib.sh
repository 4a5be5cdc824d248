# tests/join/lab/lib.sh — what the fuse scenarios' guests share: their
# clocks set apart, the clock beacons, nfsrdmad started and stopped.
# Sourced by fuse-*/{server,client}.sh (bash, set -euo pipefail).
# LAB_ARG_NFSRDMAD: absolute path of nfsrdmad (the host's build, seen
# through the guest's 9p root).
# shellcheck shell=bash

NFSRDMAD=${LAB_ARG_NFSRDMAD:?LAB_ARG_NFSRDMAD: path of nfsrdmad}
BEACON_PORT=9471
COLLECT_PORT=9470

# clock_note WHAT: this guest's CLOCK_MONOTONIC and CLOCK_REALTIME, read
# back to back, into ROLE.clocks (the lab's record of its own settings).
clock_note() {
    python3 -c 'import sys, time
m = time.clock_gettime_ns(time.CLOCK_MONOTONIC); r = time.clock_gettime_ns(time.CLOCK_REALTIME)
print("%s mono=%d real=%d" % (sys.argv[1], m, r))' "$1" >> "$LAB_OUT/$LAB_ROLE.clocks"
}

# clock_shift SECONDS WHY: step this guest's wall clock by SECONDS (the
# monotonic clock, which the probes use, does not move), noted before and
# after.  Never while a lab_wait runs in this shell: bash's SECONDS follows
# the wall clock.
clock_shift() {
    clock_note "before-shift$1"
    date -s "@$(($(date +%s) + $1))" > /dev/null
    clock_note "after-shift$1"
    lab_log "wall clock stepped by $1 s ($2)"
}

beacon_start() {
    local peer=$1
    rm -f /tmp/beacon.stop
    python3 "$LAB_REPO/tests/join/lab/beacon.py" "$LAB_ROLE" "$peer" "$BEACON_PORT" \
        "$LAB_OUT/$LAB_ROLE.beacons" /tmp/beacon.stop &
    echo $! > /tmp/beacon.pid
}

beacon_stop() {
    touch /tmp/beacon.stop
    wait "$(cat /tmp/beacon.pid)" || true
}

# daemon_start NAME ARGS...: nfsrdmad in the background, JSON Lines to
# $LAB_OUT/NAME.jsonl, its log to NAME.err; returns once its kernel
# probes say they are attached (or it died).
daemon_start() {
    local name=$1 i pid
    shift
    "$NFSRDMAD" -v --json --socket none --metrics "${DAEMON_METRICS:-none}" "$@" \
        > "$LAB_OUT/$name.jsonl" 2> "$LAB_OUT/$name.err" &
    pid=$!
    echo "$pid" > "/tmp/$name.pid"
    for ((i = 0; i < 120; i++)); do
        grep -q 'kernel probe: .* attached' "$LAB_OUT/$name.err" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || { echo "nfsrdmad $name died:" >&2; cat "$LAB_OUT/$name.err" >&2; return 1; }
        sleep 0.5
    done
    grep -q 'kernel probe: .* attached' "$LAB_OUT/$name.err" || { echo "nfsrdmad $name: probes not attached" >&2; return 1; }
    lab_log "probe $name attached"
}

# kstat_snapshot NAME: the kernel's counters as the daemon NAME (started
# with DAEMON_METRICS=127.0.0.1:9464, a kernel source: --kernel-stats on
# by default) exports them, scraped before and after a copy of the files
# it reads (NAME.metrics.before/.after, NAME.kstat/ under $LAB_OUT): the
# copy's counts lie between the two scrapes (tests/daemon/kstat_lab.sh).
kstat_snapshot() {
    local name=$1 d="$LAB_OUT/$1.kstat" url=http://127.0.0.1:9464/metrics
    mkdir -p "$d/self" "$d/net/rpc" "$d/sys/sunrpc/svc_rdma"
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
        "$url" > "$LAB_OUT/$name.metrics.before"
    # the kernel's own accounting of every BPF program, between the scrapes
    bpftool -j prog show > "$LAB_OUT/$name.bpftool.json" 2> "$LAB_OUT/$name.bpftool.err" || true
    cat /proc/self/mountstats > "$d/self/mountstats"
    [[ -r /proc/net/rpc/nfsd ]] && cat /proc/net/rpc/nfsd > "$d/net/rpc/nfsd"
    local f
    for f in /proc/sys/sunrpc/svc_rdma/*; do
        [[ -r $f ]] && cat "$f" > "$d/sys/sunrpc/svc_rdma/${f##*/}"
    done
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
        "$url" > "$LAB_OUT/$name.metrics.after"
    lab_log "kernel counters of $name saved"
}

# daemon_stop NAME: SIGINT (the daemon flushes and prints its last
# summary), keep its exit status in NAME.rc.
daemon_stop() {
    local name=$1 pid rc=0
    pid=$(cat "/tmp/$name.pid")
    lab_log "probe $name stopping"
    kill -INT "$pid"
    wait "$pid" || rc=$?
    echo "$rc" > "$LAB_OUT/$name.rc"
}
