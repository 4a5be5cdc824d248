# tests/probe/scenarios/lib.sh — start/stop the probe driver in a lab guest.
# Sourced by the probe scenarios' server.sh / client.sh (bash, set -eu).
# LAB_ARG_PROBE_DUMP: absolute path of the probe_dump binary (built on the
# host by tests/probe/lab.sh, seen through the guest's 9p root).
# shellcheck shell=bash

PROBE_DUMP=${LAB_ARG_PROBE_DUMP:?LAB_ARG_PROBE_DUMP: path of probe_dump}

# probe_start NAME ARGS...: run probe_dump in the background; records to
# $LAB_OUT/NAME.jsonl, raw events to NAME.raw.jsonl, messages to NAME.err.
# Returns once the probes are attached (a trace marker records the moment).
probe_start() {
    local name=$1 i pid
    shift
    rm -f "/tmp/$name.ready"
    "$PROBE_DUMP" --ready "/tmp/$name.ready" --raw "$LAB_OUT/$name.raw.jsonl" "$@" \
        > "$LAB_OUT/$name.jsonl" 2> "$LAB_OUT/$name.err" &
    pid=$!
    echo "$pid" > "/tmp/$name.pid"
    for ((i = 0; i < 600; i++)); do
        [[ -e /tmp/$name.ready ]] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -e /tmp/$name.ready ]]; then
        echo "probe $name did not attach:" >&2
        cat "$LAB_OUT/$name.err" >&2
        return 1
    fi
    lab_log "probe $name attached"
}

# probe_stop NAME: SIGINT, wait for the last summary, keep the exit status.
probe_stop() {
    local name=$1 pid rc=0
    pid=$(cat "/tmp/$name.pid")
    lab_log "probe $name stopping"
    kill -INT "$pid"
    wait "$pid" || rc=$?
    echo "$rc" > "$LAB_OUT/$name.rc"
}

# empty_start NAME SYSTEM:EVENT...: the yardstick of bench/probes.sh, an
# empty program on each tracepoint (LAB_ARG_PROBE_EMPTY, its object
# LAB_ARG_PROBE_EMPTY_OBJ); "ID SYSTEM:EVENT" lines to $LAB_OUT/NAME.ids.
empty_start() {
    local name=$1 i pid
    shift
    rm -f "/tmp/$name.ready"
    "${LAB_ARG_PROBE_EMPTY:?}" "${LAB_ARG_PROBE_EMPTY_OBJ:?}" --ready "/tmp/$name.ready" "$@" \
        > "$LAB_OUT/$name.ids" 2> "$LAB_OUT/$name.err" &
    pid=$!
    echo "$pid" > "/tmp/$name.pid"
    for ((i = 0; i < 600; i++)); do
        [[ -e /tmp/$name.ready ]] && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "empty programs $name did not attach:" >&2
    cat "$LAB_OUT/$name.err" >&2
    return 1
}
