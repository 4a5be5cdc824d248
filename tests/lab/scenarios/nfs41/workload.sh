# The NFSv4.x workload shared by nfs40, nfs41 and nfs42: mount, mkdir,
# a 64 KB write and read (O_DIRECT: Read and Write chunks inside COMPOUNDs),
# a small file, ls, stat, rename, remove.
# shellcheck shell=bash
lab_mount
mkdir "$LAB_MNT/v4dir"
dd if=/dev/urandom of=/tmp/data bs=64k count=1 status=none
lab_log "phase: write 64 KB"
dd if=/tmp/data of="$LAB_MNT/v4dir/data" bs=64k count=1 oflag=direct status=none
echo "small file over NFSv$LAB_NFS_VERS" > "$LAB_MNT/v4dir/small"
lab_drop_caches
lab_log "phase: read 64 KB"
dd if="$LAB_MNT/v4dir/data" of=/tmp/back bs=64k count=1 iflag=direct status=none
cmp /tmp/data /tmp/back
cat "$LAB_MNT/v4dir/small"
ls -la "$LAB_MNT/v4dir"
stat "$LAB_MNT/v4dir/small"
mv "$LAB_MNT/v4dir/small" "$LAB_MNT/v4dir/small.renamed"
rm "$LAB_MNT/v4dir/small.renamed"
