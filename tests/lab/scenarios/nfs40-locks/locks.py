#!/usr/bin/python3
"""Lock workload of the nfs40-locks lab scenario (runs in the client guest).

locks.py ranges PATH PATH2   two byte-range locks on PATH (LOCK with
    open_to_lock_owner, then exist_lock_owner), unlock the first (LOCKU);
    a child process tests and tries a conflicting lock through PATH2 (the
    same file on a second mount: LOCKT and LOCK answered NFS4ERR_DENIED);
    unlock the second, close (CLOSE; RELEASE_LOCKOWNER when the lock state
    is freed).
locks.py downgrade PATH      open PATH O_RDONLY and O_RDWR, close the
    O_RDWR one first (OPEN_DOWNGRADE to READ), then the other (CLOSE).
    Exits non-zero when anything does not behave as described.
"""
import errno
import fcntl
import os
import struct
import subprocess
import sys


def conflict(path):
    fd = os.open(path, os.O_RDWR)
    # F_GETLK on bytes 250..259: held by the parent's lock on 200..299.
    flk = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 250, 10, 0)
    got = struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, flk))
    if got[0] != fcntl.F_WRLCK:
        sys.exit("locks.py: F_GETLK saw no conflict (l_type %d)" % got[0])
    print("conflict: F_GETLK reports a write lock at %d+%d" % (got[2], got[3]))
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 250)
    except OSError as e:
        if e.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        print("conflict: F_SETLK refused (%s)" % errno.errorcode[e.errno])
    else:
        sys.exit("locks.py: conflicting F_SETLK succeeded")
    os.close(fd)


def ranges(path, path2):
    fd = os.open(path, os.O_RDWR)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 0)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 200)
    fcntl.lockf(fd, fcntl.LOCK_UN, 100, 0)
    subprocess.run([sys.executable, __file__, "conflict", path2], check=True)
    fcntl.lockf(fd, fcntl.LOCK_UN, 100, 200)
    os.close(fd)


def downgrade(path):
    # O_RDONLY first: the server answers it (nothing is delegated yet on
    # this mount's inode) with share READ and a read delegation; O_RDWR is
    # not covered by a read delegation, so it goes to the server too
    # (share BOTH). The other order leaves the O_RDONLY open to the
    # delegation, and closing O_RDWR would then be a CLOSE.
    ro = os.open(path, os.O_RDONLY)
    rw = os.open(path, os.O_RDWR)
    os.close(rw)
    if os.read(ro, 64) != b"open downgrade\n":
        sys.exit("locks.py: read back differs")
    os.close(ro)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "ranges":
        ranges(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "conflict":
        conflict(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "downgrade":
        downgrade(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
