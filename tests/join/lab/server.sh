# Server side of the fuse scenarios (tests/join/lab/README.md): the wall
# clock set 3 days 1 h ahead before anything starts, beacons to the client,
# nfsrdmad twice: one writing the server probe's records for the offline
# join (server.jsonl), one collecting the client's forwarded records and
# joining them live with its own probes and a live capture of eth0
# (live.jsonl).  With LAB_ARG_STEP set the wall clock is stepped back
# mid-workload (it moves the live capture's clock, not the probes').
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"

fuse_hook() {
    clock_note boot
    clock_shift $((3 * 86400 + 3600)) "server: apart from the client"
    beacon_start "$LAB_CLIENT_IP"
    DAEMON_METRICS=127.0.0.1:9464 daemon_start server --source kernel:server
    daemon_start live --source kernel:server --source live:eth0 \
        --collect "$LAB_SERVER_IP:$COLLECT_PORT" --collect-allow "$LAB_CLIENT_IP" \
        --summary-interval 2
}
lab_server_start fuse_hook
if [[ -n ${LAB_ARG_STEP:-} ]]; then
    lab_wait workload.half 200
    # backwards: a forward step would make bash's SECONDS (lab_wait) expire
    clock_shift "-$LAB_ARG_STEP" "server: mid-run step"
fi
lab_wait workload.done 200
# A forwarder from an address the collector does not allow (its own,
# 10.9.0.1): refused, counted, nothing of it received.
head -n 20 "$LAB_OUT/server.jsonl" | grep '"xid"' > /tmp/intruder.jsonl || true
timeout 20 "$NFSRDMAD" --forward "$LAB_SERVER_IP:$COLLECT_PORT" --host-name intruder \
    --source "jsonl:/tmp/intruder.jsonl" --exit-at-end --socket none --metrics none \
    > "$LAB_OUT/intruder.out" 2> "$LAB_OUT/intruder.err" || true
lab_wait client.stopped 100
sleep 1
kstat_snapshot server
daemon_stop server
daemon_stop live
beacon_stop
clock_note end
