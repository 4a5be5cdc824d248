# nfs42: the NFSv4.x workload over NFSv4.2, plus 4.2-only operations:
# ALLOCATE (fallocate), DEALLOCATE (punch hole), SEEK (lseek SEEK_DATA /
# SEEK_HOLE through perl), CLONE / COPY (cp tries FICLONE, then
# copy_file_range; tmpfs cannot clone, so the server says NOTSUPP to CLONE).
# shellcheck shell=bash
source "$LAB_REPO/tests/lab/scenarios/nfs41/workload.sh"
f=$LAB_MNT/v4dir/data
lab_log "phase: ALLOCATE"
fallocate -o 65536 -l 65536 "$f"
lab_log "phase: DEALLOCATE"
fallocate -p -o 4096 -l 8192 "$f"
lab_log "phase: SEEK"
perl -e 'open(my $fh, "<", $ARGV[0]) or die $!;
         printf "SEEK_DATA(0)=%d SEEK_HOLE(0)=%d\n", sysseek($fh, 0, 3), sysseek($fh, 0, 4);' "$f"
lab_log "phase: CLONE / COPY of a sparse file"
cp "$f" "$LAB_MNT/v4dir/copy"
cmp "$f" "$LAB_MNT/v4dir/copy"
lab_log "phase: COPY (copy_file_range) of a dense file"
dd if=/tmp/data of="$LAB_MNT/v4dir/dense" bs=64k count=1 oflag=direct status=none
cp "$LAB_MNT/v4dir/dense" "$LAB_MNT/v4dir/dense.copy"
cmp /tmp/data "$LAB_MNT/v4dir/dense.copy"
ls -la "$LAB_MNT/v4dir"
