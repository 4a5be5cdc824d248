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
            ls -la "$LAB_EXPORT" >"$LAB_OUT/export-before-reset.$((n + 1)).txt" 2>&1 || true
            lab_signal "reset.$n.done"
            n=$((n + 1))
        fi
        if [[ -e $LAB_SYNC/snapshot && ! -e $LAB_SYNC/snapshot.done ]]; then
            ls -la "$LAB_EXPORT" >"$LAB_OUT/export-snapshot.txt" 2>&1 || true
            lab_signal snapshot.done
        fi
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

# Client side: ask the server to reset its export and wait.
RP_RESETS=0
rp_reset() {
    RP_RESETS=$((RP_RESETS + 1))
    lab_signal "reset.$RP_RESETS"
    lab_wait "reset.$RP_RESETS.done" 60
}
