# nfs3-metadata: one of each metadata operation, all inline RPC-over-RDMA:
# MKDIR CREATE LOOKUP GETATTR SETATTR ACCESS READDIR(PLUS) RENAME LINK
# SYMLINK READLINK MKNOD REMOVE RMDIR FSSTAT FSINFO PATHCONF (+ small WRITE).
# lookupcache=none (and dropping caches before READLINK) keeps the steps on
# the wire rather than answered from the client's caches.
# shellcheck shell=bash
lab_mount lookupcache=none
cd "$LAB_MNT" || exit 1
mkdir dir1
mkdir dir1/sub
echo "hello over rdma" > dir1/file1
touch dir1/file2
stat dir1/file1
ls -la dir1
mv dir1/file1 dir1/file1.renamed
chmod 600 dir1/file2
truncate -s 100 dir1/file2
ln dir1/file2 dir1/file2.hard
ln -s file2 dir1/file2.sym
lab_drop_caches
readlink dir1/file2.sym
mkfifo dir1/fifo
ls -la dir1
rm dir1/file1.renamed dir1/file2.hard dir1/fifo dir1/file2.sym
rmdir dir1/sub
df "$LAB_MNT"
rm -rf dir1
ls -la "$LAB_MNT"
cd /
