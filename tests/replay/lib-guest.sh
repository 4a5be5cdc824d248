# tests/replay/lib-guest.sh — helpers for the replay scenarios (sourced by
# their client.sh / server.sh inside the lab guests).
# shellcheck shell=bash

RB=${LAB_ARG_BIN:-$LAB_REPO/build/bin}
REPLAY=$RB/nfsrdma-replay

# rp_run NAME CMD...: run CMD, keep stdout, stderr and the exit status in
# $LAB_OUT/NAME.{out,err,rc}; never fails (the checker judges).
rp_run() {
    local name=$1 rc=0
    shift
    lab_log "replay step $name: $*"
    "$@" >"$LAB_OUT/$name.out" 2>"$LAB_OUT/$name.err" || rc=$?
    echo "$rc" >"$LAB_OUT/$name.rc"
    lab_log "replay step $name: rc=$rc"
    return 0
}

# Server side: what the replay tests expect in the export.
rp_populate() {
    mkdir -p "$LAB_EXPORT/bigdir"
    local i name
    for i in $(seq -w 1 200); do
        name=$(printf 'file-%s-with-a-rather-long-name-to-make-readdirplus-replies-big' "$i")
        echo "$i" >"$LAB_EXPORT/bigdir/$name"
    done
    dd if=/dev/urandom of="$LAB_EXPORT/data.bin" bs=1M count=1 status=none
    chmod -R a+rwX "$LAB_EXPORT"
}

# Server side: empty the export and populate it again (between replays).
rp_reset_export() {
    find "$LAB_EXPORT" -mindepth 1 -delete
    rp_populate
}

# Server side: serve reset requests from the client until it is done.
# Client signals reset.N, server answers reset.N.done.
rp_serve_resets() {
    local n=1
    while :; do
        if [[ -e $LAB_SYNC/client.steps-done ]]; then return 0; fi
        if [[ -e $LAB_SYNC/reset.$n ]]; then
            rp_reset_export
            # rp_reset v4dir: the files the NFSv4 workload (nfs40.pcap)
            # creates are there already
            if [[ -e $LAB_SYNC/reset.$n.v4dir ]]; then
                mkdir -p "$LAB_EXPORT/v4dir"
                head -c 65536 "$LAB_EXPORT/data.bin" >"$LAB_EXPORT/v4dir/data"
                echo "small file over NFSv4.0" >"$LAB_EXPORT/v4dir/small"
                chmod -R a+rwX "$LAB_EXPORT/v4dir"
            fi
            # rp_reset deleg: the files nfs41-deleg.pcap opens (made on
            # its server, never created by its client)
            if [[ -e $LAB_SYNC/reset.$n.deleg ]]; then
                mkdir -m 755 "$LAB_EXPORT/deleg"
                head -c 16384 "$LAB_EXPORT/data.bin" >"$LAB_EXPORT/deleg/recalled"
                tail -c 16384 "$LAB_EXPORT/data.bin" >"$LAB_EXPORT/deleg/kept"
                chmod 644 "$LAB_EXPORT"/deleg/*
            fi
            # rp_reset multi: shared/big, which multi-client.pcap's
            # readers read (made on its server, 4 x 64 KiB)
            if [[ -e $LAB_SYNC/reset.$n.multi ]]; then
                mkdir -p "$LAB_EXPORT/shared"
                head -c 262144 /dev/urandom >"$LAB_EXPORT/shared/big"
                chmod -R a+rwX "$LAB_EXPORT/shared"
            fi
            # rp_reset groups: replay-g1..8, the --clients groups'
            # directories, each with shared/big
            if [[ -e $LAB_SYNC/reset.$n.groups ]]; then
                local g
                for g in 1 2 3 4 5 6 7 8; do
                    mkdir -p "$LAB_EXPORT/replay-g$g/shared"
                    head -c 262144 /dev/urandom >"$LAB_EXPORT/replay-g$g/shared/big"
                done
                chmod -R a+rwX "$LAB_EXPORT"/replay-g*
            fi
            ls -la "$LAB_EXPORT" >"$LAB_OUT/export-before-reset.$((n + 1)).txt" 2>&1 || true
            lab_signal "reset.$n.done"
            n=$((n + 1))
        fi
        if [[ -e $LAB_SYNC/snapshot && ! -e $LAB_SYNC/snapshot.done ]]; then
            ls -la "$LAB_EXPORT" >"$LAB_OUT/export-snapshot.txt" 2>&1 || true
            lab_signal snapshot.done
        fi
        # recall.go.TAG: once a client holds a delegation on
        # deleg/recalled (/proc/fs/nfsd/clients/*/states), write to the
        # file here: knfsd recalls it, and the write waits until it is
        # given back; then recall.done.TAG
        local go tag
        for go in "$LAB_SYNC"/recall.go.*; do
            tag=${go##*/recall.go.}
            [[ -e $go && ! -e $LAB_SYNC/recall.done.$tag ]] || continue
            # rebind-*: the replay drops its connection once it holds the
            # delegation (--disconnect-after); write only once it is back
            # on a second connection, and a moment later (time for its
            # BIND_CONN_TO_SESSION): the recall must reach it over that one
            if [[ $tag == rebind-* ]]; then
                local first=$LAB_OUT/rebind-conns.$tag.first now
                now=$(rp_conn_ids)
                if [[ ! -s $first ]]; then
                    [[ -n $now ]] && echo "$now" >"$first"
                    continue
                fi
                grep -qs "type: deleg.*recalled" /proc/fs/nfsd/clients/*/states || continue
                grep -qvxFf "$first" <<<"$now" || continue
                echo "$now" >"$LAB_OUT/rebind-conns.$tag.second"
                lab_log "replay: the client is back on a new connection ($tag)"
                sleep 1
            fi
            # The replay holds the delegation for about 1.9 s at
            # --speed 0.25 (its trace's claim and DELEGRETURN follow): poll
            # only /proc here, every 20 ms for up to 60 s, not at the pace
            # of this loop's checks of the shared directory.
            # The client starts its replay only once this loop has seen
            # recall.go (recall.armed): a loaded host can hold this loop
            # for longer than the replay holds its delegation.
            if [[ $tag != rebind-* ]]; then
                [[ -e $LAB_SYNC/recall.armed.$tag ]] || lab_signal "recall.armed.$tag"
                local w=0
                until grep -qs "type: deleg.*recalled" /proc/fs/nfsd/clients/*/states; do
                    sleep 0.02
                    w=$((w + 1))
                    ((w < 3000)) || break
                done
            fi
            grep -qs "type: deleg.*recalled" /proc/fs/nfsd/clients/*/states || continue
            lab_log "replay: a delegation on deleg/recalled is held ($tag): writing to it"
            local t0=$SECONDS
            if timeout 60 bash -c "echo 'written on the server' >> '$LAB_EXPORT/deleg/recalled'"; then
                echo "ok $((SECONDS - t0))" >"$LAB_OUT/recall-write.$tag.txt"
            else
                echo "failed $((SECONDS - t0))" >"$LAB_OUT/recall-write.$tag.txt"
            fi
            lab_signal "recall.done.$tag"
        done
        if [[ -e $LAB_SYNC/restart.go && ! -e $LAB_SYNC/restart.done ]]; then
            sleep 2
            lab_log "replay: stopping knfsd under load"
            lab_nfsd_down
            sleep 3
            lab_log "replay: restarting knfsd"
            lab_nfsd_up
            lab_signal restart.done
        fi
        sleep 0.2
    done
}

# Server side: the connections knfsd has from clients, one per line: its
# RDMA QPs in RTS (by QP number) and its TCP peers on port 2049.
rp_conn_ids() {
    rdma res show qp 2>/dev/null | sed -n 's/.* lqpn \([0-9]*\) .*type RC state RTS.*/qp\1/p'
    ss -Htn state established '( sport = :2049 )' 2>/dev/null | awk '{print "tcp" $4}'
}

# Client side: ask the server to reset its export and wait.  rp_reset
# v4dir: with v4dir/data and v4dir/small in it; rp_reset deleg: with
# deleg/recalled and deleg/kept; rp_reset multi: with shared/big; rp_reset
# groups: with replay-g1..8/shared/big (see rp_serve_resets).
RP_RESETS=0
rp_reset() {
    RP_RESETS=$((RP_RESETS + 1))
    if [[ ${1:-} == v4dir || ${1:-} == deleg || ${1:-} == multi || ${1:-} == groups ]]; then lab_signal "reset.$RP_RESETS.$1"; fi
    lab_signal "reset.$RP_RESETS"
    lab_wait "reset.$RP_RESETS.done" 60
}

# ---- bench instrumentation (replay-bench) ----

# rp_tick SECS: sleep without forking (a fork+exec costs milliseconds of
# emulated CPU under TCG, and the watchers below tick often).
rp_tick() {
    if [[ -z ${RP_TICK_FD:-} ]]; then
        mkfifo /tmp/rp-tick.$$ 2>/dev/null || true
        exec {RP_TICK_FD}<>/tmp/rp-tick.$$
    fi
    read -r -t "$1" -u "$RP_TICK_FD" _ || true
}

# rp_cpu_snap LABEL: one line with this guest's CPU counters:
#   LABEL uptime user nice system idle iowait irq softirq steal ctxt intr
# (USER_HZ ticks, from /proc/stat; builtins only).
rp_cpu_snap() {
    local label=$1 up _ k v rest cpu="" ctxt=0 intr=0
    read -r up _ </proc/uptime
    while read -r k v rest; do
        case $k in
        cpu) cpu="$v $rest" ;;
        ctxt) ctxt=$v ;;
        intr) intr=$v ;;
        esac
    done </proc/stat
    local -a c
    read -r -a c <<<"$cpu 0 0 0 0 0 0 0 0"
    echo "$label $up ${c[0]} ${c[1]} ${c[2]} ${c[3]} ${c[4]} ${c[5]} ${c[6]} ${c[7]} $ctxt $intr"
}

# rp_cpu_mark LABEL (client): snapshot here, and tell the server (and the
# host's sampler, which watches the share) to snapshot too.
rp_cpu_mark() {
    rp_cpu_snap "$1" >>"$LAB_OUT/client-cpu.txt"
    lab_signal "cpu.$1"
}

# rp_phase LABEL DELAY WINDOW CMD...: run CMD; CPU marks LABEL.start and
# LABEL.end at DELAY and DELAY+WINDOW seconds after it started (inside its
# steady state: after connection set-up and warm-up, before it ends).
rp_phase() {
    local label=$1 delay=$2 win=$3 pid
    shift 3
    "$@" &
    pid=$!
    rp_tick "$delay"
    rp_cpu_mark "$label.start"
    rp_tick "$win"
    rp_cpu_mark "$label.end"
    wait "$pid" || true
}

# rp_perf_mark LABEL SECS (client): profile both guests for SECS seconds
# (perf record -a, cpu-clock: TCG has no PMU).  The server's watcher
# starts its own on the marker.
rp_perf() {
    lab_signal "perf.$1.$2"
    perf record -a -e cpu-clock -F 250 -o "/tmp/perf-$1.data" -- sleep "$2" >/dev/null 2>&1 || true
}

# rp_nfsd_threads N (client): have the server run N nfsd threads.
RP_THREADS_K=0
rp_nfsd_threads() {
    RP_THREADS_K=$((RP_THREADS_K + 1))
    lab_signal "threads.$1.$RP_THREADS_K"
    lab_wait "threads.$1.$RP_THREADS_K.done" 30 || true
}

# rp_perf_report LABEL ROLE: summaries of a profile into $LAB_OUT.
rp_perf_report() {
    local f=/tmp/perf-$1.data
    [[ -s $f ]] || { echo "no profile ($f)" >"$LAB_OUT/$2-perf-$1.txt"; return 0; }
    {
        echo "## by command"
        perf report -i "$f" --stdio --sort comm 2>/dev/null | grep -v '^$' | head -30
        echo "## by symbol"
        perf report -i "$f" --stdio --sort sym 2>/dev/null | grep -v '^$' | head -70
    } >"$LAB_OUT/$2-perf-$1.txt" 2>&1 || true
}

# rp_watch (server, background): snapshot CPU on every cpu.* marker, start
# a profile on every perf.LABEL.SECS marker, set the nfsd thread count on
# every threads.N marker (answered by threads.N.done), until bench.done.
rp_watch() {
    local -A seen=()
    local f b label secs
    while [[ ! -e $LAB_SYNC/bench.done ]]; do
        # one directory read per tick: over 9p under TCG each costs the
        # server guest CPU that the measurement wants
        for f in "$LAB_SYNC"/*; do
            [[ -z ${seen[$f]:-} ]] || continue
            case ${f##*/} in cpu.* | perf.* | threads.*) ;; *) continue ;; esac
            seen[$f]=1
            b=${f##*/}
            case $b in
            threads.*.done) ;;
            threads.*)
                # threads.N.K: nfsd thread count N for the next measurement
                label=${b#threads.}
                echo "${label%.*}" >/proc/fs/nfsd/threads 2>/dev/null || true
                cat /proc/fs/nfsd/threads >"$LAB_SYNC/.$b.tmp" 2>&1
                mv -f "$LAB_SYNC/.$b.tmp" "$LAB_SYNC/$b.done"
                ;;
            cpu.*) rp_cpu_snap "${b#cpu.}" >>"$LAB_OUT/server-cpu.txt" ;;
            perf.*)
                label=${b#perf.}
                secs=${label##*.}
                label=${label%.*}
                perf record -a -e cpu-clock -F 250 -o "/tmp/perf-$label.data" -- sleep "$secs" >/dev/null 2>&1 &
                ;;
            esac
        done
        rp_tick 0.2
    done
    wait || true
}
