#!/usr/bin/env python3
"""span.py SRC DST: a software SPAN port. Every frame SRC sends or receives
is copied, as it is, out of DST (AF_PACKET both ways), so a program on the
far end of DST's veth pair receives them as frames from a wire. A tc mirred
copy is not that: kernels mark it as redirected or cloned, and generic XDP
lets such frames pass unseen on some (Debian's 6.12). Runs until killed;
counts copies and frames DST refused (too big) on stderr when it ends."""
import signal
import socket
import sys

ETH_P_ALL = 3
src, dst = sys.argv[1], sys.argv[2]
rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
rx.bind((src, 0))
# A 128 KB RDMA WRITE is a burst of 32 frames of 4 KB; under emulation this
# process may not run before all of them arrived. SO_RCVBUFFORCE (root)
# passes the guest's small net.core.rmem_max.
rx.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 16 << 20)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind((dst, 0))
copied = refused = 0
PACKET_STATISTICS = 6  # struct tpacket_stats: packets, drops (read resets them)


def done(*_):
    st = rx.getsockopt(263, PACKET_STATISTICS, 8)  # SOL_PACKET
    drops = int.from_bytes(st[4:8], "little")
    print("span: %d frames copied from %s to %s, %d refused, %d dropped by the receive buffer"
          % (copied, src, dst, refused, drops), file=sys.stderr)
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
signal.signal(signal.SIGINT, done)
open("/run/span.ready", "w").close()
while True:
    frame = rx.recv(65536)
    try:
        tx.send(frame)
        copied += 1
    except OSError:
        refused += 1
