# Client side of the Chimera scenarios: the kernel's NFS client, its probes
# (nfsrdmad, kernel:client, JSON Lines in client.jsonl), then a workload
# that makes every chunk type: O_DIRECT 128 KB writes (Read chunks) and
# reads (Write chunks), a 1 KB inline write/read, a directory of 80 entries
# listed with attributes (READDIRPLUS replies beyond the inline size: Reply
# chunks), metadata, and parallel writers racing metadata.
# shellcheck shell=bash
source "$LAB_REPO/tests/join/lab/lib.sh"

DAEMON_METRICS=127.0.0.1:9464 daemon_start client --source kernel:client
lab_mount
D=$LAB_MNT
lab_log "workload start"
dd if=/dev/urandom of=/tmp/big bs=128k count=1 status=none
dd if=/dev/urandom of=/tmp/small bs=1k count=1 status=none
dd if=/tmp/big of="$D/big.dat" bs=128k count=1 oflag=direct status=none
dd if=/tmp/small of="$D/small.dat" bs=1k count=1 oflag=direct status=none
mkdir -p "$D/dir"
for i in $(seq 1 80); do : > "$D/dir/entry-with-a-longish-name-$i"; done
lab_drop_caches
dd if="$D/big.dat" of=/tmp/big.back bs=128k count=1 iflag=direct status=none
dd if="$D/small.dat" of=/tmp/small.back bs=1k count=1 iflag=direct status=none
cmp /tmp/big /tmp/big.back
cmp /tmp/small /tmp/small.back
n=$(ls -l "$D/dir" | grep -c entry-with)
[[ $n == 80 ]] || { echo "lab[client]: listed $n of 80 entries" >&2; exit 1; }
lab_signal workload.half
# parallel: writers racing metadata
pids=()
for i in 1 2 3; do
    dd if=/tmp/big of="$D/p$i" bs=64k count=2 oflag=direct status=none & pids+=($!)
done
( for i in $(seq 1 10); do stat "$D/dir/entry-with-a-longish-name-$i" > /dev/null
    mv "$D/dir/entry-with-a-longish-name-$i" "$D/dir/moved-$i"; done
  rm -f "$D"/dir/moved-* ) & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
for i in 1 2 3; do cmp /tmp/big "$D/p$i"; done
rm -f "$D"/p[123] "$D/small.dat"
lab_log "workload end"
lab_signal workload.done
sleep 1
kstat_snapshot client
daemon_stop client
# daemon_stop's status file is the role's name, which stage2 overwrites
# with the script's own status
cp "$LAB_OUT/client.rc" "$LAB_OUT/client.nfsrdmad.rc"
