# perftest: no NFS. Run the perftest servers (rdma_cm, -R) one after the
# other, telling the client (marker files) once each one listens — seen as
# a LISTEN cm_id in `rdma resource show cm_id` — so it never connects early
# (an early REQ is rejected and perftest does not cope well with that).
# shellcheck shell=bash
wait_listen() {
    local _
    for _ in $(seq 150); do
        rdma resource show cm_id 2>/dev/null | grep -q LISTEN && return 0
        sleep 0.2
    done
    echo "perftest server never listened" >&2
    return 1
}
lab_signal server.ready
ib_send_bw -d rxe0 -R -s 64 -n 500 -F &
pid=$!
wait_listen
lab_signal bw.listening
wait "$pid"
ib_write_lat -d rxe0 -R -s 64 -n 200 -F &
pid=$!
wait_listen
lab_signal lat.listening
wait "$pid"
