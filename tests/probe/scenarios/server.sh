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
    # In-kernel filters on the same workload (thresholds known to check.py):
    # NFSv3: program NFSACL, and a caller address that is not the client's;
    # NFSv4.1: the client's own address, and a minimum latency.
    if [[ ${LAB_NFS_VERS:-} == 3 ]]; then
        probe_start server-acl --side server --filter-prog 100227
        probe_start server-noaddr --side server --filter-addr 10.9.0.99
    else
        probe_start server-addr --side server --filter-addr "${LAB_CLIENT_IP:-10.9.0.2}"
        probe_start server-minlat --side server --min-latency 10000
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
if [[ ${LAB_NFS_VERS:-} == 3 ]]; then
    probe_stop server-acl; probe_stop server-noaddr
else
    probe_stop server-addr; probe_stop server-minlat
fi
