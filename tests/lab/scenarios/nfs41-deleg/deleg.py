#!/usr/bin/python3
"""Delegation workload of the nfs41-deleg lab scenario (client guest).

deleg.py recall PATH SYNCDIR
    open PATH read-only as root (OTW OPEN: knfsd grants a read
    delegation); a child as uid 1000 opens it too, which the client does
    locally under the delegation (no OPEN on the wire); signal
    client.held and wait for server.wrote: the server's local write
    recalls the delegation, and the client claims the child's open with
    OPEN CLAIM_DELEG_CUR_FH before DELEGRETURN. Both then read (O_DIRECT:
    READ on the wire with their open stateids) and must see the server's
    write.
deleg.py after-close PATH
    open, read, close (OPEN granting a delegation, READ, CLOSE); open and
    read again: the open is local and the READ carries the delegation
    stateid, whose OPEN the trace has already closed.
Exits non-zero when anything does not behave as described.
"""
import fcntl
import os
import sys
import time

SIZE = 16384
WRITTEN = b"written on the server\n"


def signal(sync, name):
    tmp = os.path.join(sync, ".%s.client.tmp" % name)
    with open(tmp, "w") as f:
        f.write("%.9f\n" % time.time())
    os.rename(tmp, os.path.join(sync, name))


def wait(sync, name, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(os.path.join(sync, name)):
            return
        if any(n.endswith(".failed") for n in os.listdir(sync)):
            sys.exit("deleg.py: the other side failed while waiting for " + name)
        time.sleep(0.2)
    sys.exit("deleg.py: timed out waiting for " + name)


def open_direct(path):
    """Open read-only, then switch to O_DIRECT so that every read is a READ
    on the wire. Not O_DIRECT at open: the client then asks for no
    delegation (OPEN4_SHARE_ACCESS_WANT_NO_DELEG)."""
    fd = os.open(path, os.O_RDONLY)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_DIRECT)
    return fd


def read_all(fd, who):
    data = os.pread(fd, 2 * SIZE, 0)
    if len(data) != SIZE + len(WRITTEN) or not data.endswith(WRITTEN):
        sys.exit("deleg.py: %s read %d bytes without the server's write" % (who, len(data)))
    print("%s: read %d bytes, the server's write included" % (who, len(data)))


def recall(path, sync):
    fd = open_direct(path)
    if len(os.pread(fd, SIZE, 0)) != SIZE:
        sys.exit("deleg.py: short first read")
    opened, go = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(opened[0])
        os.close(go[1])
        os.setgroups([])
        os.setresgid(1000, 1000, 1000)
        os.setresuid(1000, 1000, 1000)
        cfd = open_direct(path)
        os.write(opened[1], b"o")
        if os.read(go[0], 1) != b"g":
            os._exit(3)
        read_all(cfd, "uid 1000")
        os.close(cfd)
        os._exit(0)
    os.close(opened[1])
    os.close(go[0])
    if os.read(opened[0], 1) != b"o":
        sys.exit("deleg.py: the uid 1000 child could not open " + path)
    print("recall: root and uid 1000 hold %s open" % path)
    signal(sync, "client.held")
    wait(sync, "server.wrote")
    os.write(go[1], b"g")
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit("deleg.py: the uid 1000 child failed (status %d)" % status)
    read_all(fd, "root")
    os.close(fd)


def after_close(path):
    for turn in ("first open", "open under the delegation"):
        fd = open_direct(path)
        n = len(os.pread(fd, SIZE, 0))
        os.close(fd)
        if n != SIZE:
            sys.exit("deleg.py: %s read %d bytes" % (turn, n))
        print("after-close: %s read %d bytes" % (turn, n))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "recall":
        recall(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "after-close":
        after_close(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
