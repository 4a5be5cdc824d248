# Client side of the Chimera scenarios: the kernel's NFS client, its probes
# (nfsrdmad, kernel:client, JSON Lines in client.jsonl), then the workload
# of workload.sh on the mount.
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"

DAEMON_METRICS=127.0.0.1:9464 daemon_start client --source kernel:client
lab_mount
D=$LAB_MNT
# shellcheck source=tests/lab/chimera/workload.sh
source "$LAB_REPO/tests/lab/chimera/workload.sh"
lab_log "workload end"
lab_signal workload.done
sleep 1
kstat_snapshot client
daemon_stop client
# daemon_stop's status file is the role's name, which stage2 overwrites
# with the script's own status
cp "$LAB_OUT/client.rc" "$LAB_OUT/client.nfsrdmad.rc"
