# nfs40-locks: NFSv4.0 lock-owner state over RDMA (see env). locks.py does
# the byte-range work; a second mount with nosharecache gives the second
# process its own inode, so the client's local lock table does not answer
# the conflict test itself and the LOCKT / LOCK reach the server (same
# clientid, another open- and lock-owner): the server says NFS4ERR_DENIED.
# shellcheck shell=bash
lab_mount
mnt2=/mnt/nfs2
mkdir -p "$mnt2"
mount -t nfs -o "vers=4.0,proto=rdma,port=20049,nosharecache" "$LAB_SERVER_IP:/" "$mnt2"
grep " $mnt2 " /proc/mounts >&2
py=/usr/bin/python3
locks=$LAB_SCENARIO_DIR/locks.py
mkdir "$LAB_MNT/locks"
head -c 4096 /dev/urandom > "$LAB_MNT/locks/f"
lab_log "phase: flock (a whole-file POSIX lock over NFS)"
flock -x "$LAB_MNT/locks/f" -c true
lab_log "phase: byte-range locks, LOCKU, conflict from the second mount"
"$py" "$locks" ranges "$LAB_MNT/locks/f" "$mnt2/locks/f"
lab_log "phase: OPEN_DOWNGRADE"
# g is created through the second mount, so the read delegation knfsd
# grants with that OPEN is held for the second mount's inode: the first
# open of g on the first mount goes to the server (an open under a
# delegation is local, and closing the O_RDWR fd would then be a CLOSE,
# not an OPEN_DOWNGRADE). See locks.py for the order of the opens.
echo "open downgrade" > "$mnt2/locks/g"
"$py" "$locks" downgrade "$LAB_MNT/locks/g"
lab_log "phase: done"
ls -la "$LAB_MNT/locks"
