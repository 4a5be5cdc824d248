# mount-sequence client: the same small workload under three mounts in a
# row — NFSv4.1, NFSv4.2, NFSv3 — each unmounted before the next: one
# client, several minor versions, one capture.
# shellcheck shell=bash
work() {   # DIR TAG
    mkdir -p "$1/seq-$2"
    dd if=/dev/urandom of="$1/seq-$2/f" bs=16k count=2 status=none conv=fsync
    cat "$1/seq-$2/f" >/dev/null
    ls -l "$1" >/dev/null
    mv "$1/seq-$2/f" "$1/seq-$2/g"
}
for v in 4.1 4.2 3; do
    lab_log "phase: NFSv$v"
    LAB_NFS_VERS=$v lab_mount
    work "$LAB_MNT" "$v"
    umount "$LAB_MNT"
done
LAB_NFS_VERS=3 lab_mount
