# nfs3-symlink: SYMLINK is DDP-eligible (RFC 8267), but the Linux client
# only moves the path into a Read chunk when the call no longer fits the
# inline threshold, which the lab's peers negotiate to 4096 bytes (1024
# only without RFC 8797 parameters). So the long target is ~4 KB (the limit
# is PATH_MAX - 1 = 4095). READLINK of it after dropping caches brings it
# back (in a Reply chunk: it does not fit inline either). A short symlink
# gives the inline counterpart of both.
# shellcheck shell=bash
lab_mount
target=$(for i in $(seq -w 1 25); do printf 'component-%s-%0146d/' "$i" 0; done)
target=${target%/}
echo "target length: ${#target}"
lab_log "phase: SYMLINK (long)"
ln -s "$target" "$LAB_MNT/longlink"
lab_log "phase: SYMLINK (short)"
ln -s short-target "$LAB_MNT/shortlink"
lab_drop_caches
lab_log "phase: READLINK (long)"
got=$(readlink "$LAB_MNT/longlink")
[[ $got == "$target" ]]
lab_log "phase: READLINK (short)"
readlink "$LAB_MNT/shortlink"
