# Server side of the probe scenarios: the server probe is attached before
# knfsd starts and stopped once the client's workload is done.  With
# LAB_ARG_PROBE_DEGRADE=server a second probe runs with the reply-side
# events configured away (skip=), to show the documented fallback.
# shellcheck shell=bash
source "$LAB_REPO/tests/probe/scenarios/lib.sh"

probe_hook() {
    probe_start server-probe --side server
    if [[ -n ${LAB_ARG_NFSRDMAD:-} ]]; then
        # the daemon on the same probes, through the record-source interface
        "$LAB_ARG_NFSRDMAD" --source kernel:server --json --metrics none --socket none \
            > "$LAB_OUT/nfsrdmad-server.jsonl" 2> "$LAB_OUT/nfsrdmad-server.err" &
        echo $! > /tmp/nfsrdmad.pid
        sleep 8   # load + attach under emulation (it has no ready file)
        lab_log "probe nfsrdmad attached"
    fi
    if [[ ${LAB_ARG_PROBE_DEGRADE:-} == server ]]; then
        probe_start server-skip --side server --skip rpcrdma:svcrdma_post_send \
            --skip rpcrdma:svcrdma_wc_send
    fi
}
lab_server_start probe_hook
lab_wait workload.done
probe_stop server-probe
if [[ -n ${LAB_ARG_NFSRDMAD:-} ]]; then
    lab_log "probe nfsrdmad stopping"
    kill -INT "$(cat /tmp/nfsrdmad.pid)"
    rc=0; wait "$(cat /tmp/nfsrdmad.pid)" || rc=$?
    echo "$rc" > "$LAB_OUT/nfsrdmad-server.rc"
fi
if [[ ${LAB_ARG_PROBE_DEGRADE:-} == server ]]; then probe_stop server-skip; fi
