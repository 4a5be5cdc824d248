# Server side of the fault matrix (tests/join/lab/README.md, "The fault
# matrix"): beacons, the server probe (server.jsonl), the export plus a
# second one on ext4/loop/dm-delay, then each window's server-side fault
# between the client's arm and disarm markers.
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"
source "$LAB_REPO/tests/join/lab/fault-matrix/faults.sh"

lab_export_line() {
    echo "$LAB_EXPORT $LAB_CLIENT_IP(rw,insecure,no_root_squash,no_subtree_check,fsid=0)"
    echo "$SLOW_DIR $LAB_CLIENT_IP(rw,insecure,no_root_squash,no_subtree_check,fsid=1)"
}
fault_hook() {
    clock_note boot
    beacon_start "$LAB_CLIENT_IP"
    daemon_start server --source kernel:server
    slow_setup
}
lab_server_start fault_hook
for w in $FAULT_WINDOWS; do
    lab_wait "$w.arm"
    server_inject "$w" on
    lab_signal "$w.armed"
    lab_wait "$w.disarm"
    server_inject "$w" off
    lab_signal "$w.disarmed"
done
lab_wait workload.done
sleep 1
daemon_stop server
beacon_stop
clock_note end
