# parallel: 16 KB rsize/wsize turn each 128 KB O_DIRECT dd into 8 RPCs sent
# at once; 3 writers, then 3 readers racing 3 more writers, keep dozens of
# XIDs (and the credit window) busy at the same time.
# shellcheck shell=bash
lab_mount
dd if=/dev/urandom of=/tmp/data bs=128k count=1 status=none
lab_log "phase: 3 parallel writers"
pids=()
for i in 1 2 3; do
    dd if=/tmp/data of="$LAB_MNT/f$i" bs=128k count=1 oflag=direct status=none & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
lab_drop_caches
lab_log "phase: 3 readers + 3 writers in parallel"
pids=()
for i in 1 2 3; do
    dd if="$LAB_MNT/f$i" of="/tmp/back$i" bs=128k count=1 iflag=direct status=none & pids+=($!)
    dd if=/tmp/data of="$LAB_MNT/g$i" bs=128k count=1 oflag=direct status=none & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for i in 1 2 3; do cmp /tmp/data "/tmp/back$i"; done
