# Client side of the fuse scenarios: the wall clock set 2 days back (the
# guest booted LAB_CLIENT_DELAY s after the server, so the monotonic clocks
# are that far apart too), beacons to the server, nfsrdmad with the client
# probes writing client.jsonl and forwarding to the server's collector,
# then reads, writes and metadata in parallel.
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"

clock_note boot
clock_shift $((-2 * 86400)) "client: apart from the server"
beacon_start "$LAB_SERVER_IP"
DAEMON_METRICS=127.0.0.1:9464 daemon_start client --source kernel:client --forward "$LAB_SERVER_IP:$COLLECT_PORT" --host-name client
sleep 1
lab_mount
lab_log "workload start"
dd if=/dev/urandom of=/tmp/data bs=64k count=4 status=none
mkdir -p "$LAB_MNT/d"
# round 1: writers, and metadata alongside
pids=()
for i in 1 2 3; do
    dd if=/tmp/data of="$LAB_MNT/f$i" bs=64k count=4 oflag=direct status=none & pids+=($!)
done
( for i in $(seq 1 12); do echo "$i" > "$LAB_MNT/d/s$i"; done; ls -l "$LAB_MNT/d" > /dev/null ) & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
lab_signal workload.half
lab_drop_caches
# round 2: readers racing writers and metadata
pids=()
for i in 1 2 3; do
    dd if="$LAB_MNT/f$i" of="/tmp/back$i" bs=64k count=4 iflag=direct status=none & pids+=($!)
done
dd if=/tmp/data of="$LAB_MNT/g1" bs=128k count=2 oflag=direct status=none & pids+=($!)
( for i in $(seq 1 12); do stat "$LAB_MNT/d/s$i" > /dev/null; mv "$LAB_MNT/d/s$i" "$LAB_MNT/d/t$i"; done
  ls -l "$LAB_MNT/d" > /dev/null; rm -f "$LAB_MNT"/d/t* ) & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
for i in 1 2 3; do cmp /tmp/data "/tmp/back$i"; done
sleep 1
lab_log "workload end"
lab_signal workload.done
# hold the probes a little past the intruder's try, then stop them: the
# collector's join then has every record the forwarder sent
sleep 2
kstat_snapshot client
daemon_stop client
lab_signal client.stopped
beacon_stop
clock_note end
