#!/usr/bin/env python3
"""Clock beacons between the two lab guests: the lab's own truth about
their clocks, independent of the code under test.

  beacon.py ROLE PEER_IP PORT OUT STOPFILE

Every 50 ms the beacon reads its clocks (CLOCK_MONOTONIC, CLOCK_REALTIME)
and sends them in a UDP datagram to the peer's beacon; every datagram it
receives it logs with its own clocks read right after recvfrom returned.
A datagram left the sender after the sender's reading and reached the
receiver before the receiver's, so each one bounds the offset between the
two guests' clocks (tests/join/lab/truth.py does the arithmetic); the
capture on the host sees them too, in between.  OUT gets one line per
event:
  tx SEQ MONO REAL            sent (the clocks read just before sendto)
  rx ROLE SEQ MONO REAL MONO REAL   received: the sender's clocks, ours after
  txk SEQ KMONO ERR           when the kernel handed the datagram to the NIC driver
                              (software TX timestamp, CLOCK_REALTIME, put on the
                              monotonic clock by a back-to-back reading; ERR: the
                              reading's own spread)
  rxk ROLE SEQ KMONO ERR      when the kernel received it (software RX timestamp)
  clk MONO REAL MONO          our own clocks read back to back (a step shows)
The kernel's timestamps leave out the beacon's own scheduling delays: the
bounds they give are the NIC-to-NIC times.
Stops when STOPFILE exists (or on SIGTERM)."""
import os
import select
import signal
import socket
import sys
import struct
import time

MAGIC = b"NRB1"
SO_TIMESTAMPING = 37      # also SCM_TIMESTAMPING
TS_FLAGS = (1 << 1) | (1 << 3) | (1 << 4) | (1 << 7) | (1 << 11)
#          TX_SOFTWARE  RX_SOFTWARE  SOFTWARE  OPT_ID  OPT_TSONLY
MSG_ERRQUEUE = 0x2000


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.clock_gettime_ns(time.CLOCK_REALTIME)


def kernel_ts(anc):
    """The software timestamp (CLOCK_REALTIME ns) of a message's ancillary data, or None."""
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPING and len(data) >= 16:
            sec, nsec = struct.unpack("qq", data[:16])
            if sec or nsec:
                return sec * 1_000_000_000 + nsec
    return None


def to_mono(real_ts):
    """(monotonic ns, error ns) of a CLOCK_REALTIME time just past."""
    m1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    r = time.clock_gettime_ns(time.CLOCK_REALTIME)
    m2 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    return real_ts - r + (m1 + m2) // 2, (m2 - m1) // 2 + 1


def tx_stamps(s, f):
    """Drain the error queue: the kernel's TX timestamps, by OPT_ID (0 = first datagram)."""
    while True:
        try:
            _, anc, _, _ = s.recvmsg(64, 512, MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        ts, seq = kernel_ts(anc), None
        for level, typ, data in anc:
            if level == socket.SOL_IP and typ == 11 and len(data) >= 16:   # IP_RECVERR: sock_extended_err
                seq = struct.unpack("IBBBBII", data[:16])[6] + 1
        if ts is not None and seq is not None:
            m, err = to_mono(ts)
            f.write("txk %d %d %d\n" % (seq, m, err))


def main():
    role, peer, port, out, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    running = [True]
    signal.signal(signal.SIGTERM, lambda *_: running.__setitem__(0, False))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TS_FLAGS)
    seq = 0
    nxt = 0
    with open(out, "w", buffering=1) as f:
        while running[0] and not os.path.exists(stop):
            m, r = now()
            if m >= nxt:
                seq += 1
                m, r = now()
                s.sendto(b"%s %s %d %d %d" % (MAGIC, role.encode(), seq, m, r), (peer, port))
                f.write("tx %d %d %d\n" % (seq, m, r))
                if seq % 20 == 0:
                    m1, r1 = now()
                    f.write("clk %d %d %d\n" % (m1, r1, time.clock_gettime_ns(time.CLOCK_MONOTONIC)))
                nxt = m + 50_000_000
            wait = max(0.0, (nxt - time.clock_gettime_ns(time.CLOCK_MONOTONIC)) / 1e9)
            rd, _, ex = select.select([s], [], [s], min(wait, 0.2))
            tx_stamps(s, f)
            if rd:
                try:
                    data, anc, _, _ = s.recvmsg(256, 512, socket.MSG_DONTWAIT)
                except (BlockingIOError, InterruptedError):
                    continue
                m, r = now()
                p = data.split()
                if len(p) == 5 and p[0] == MAGIC:
                    f.write("rx %s %s %s %s %d %d\n" % (p[1].decode(), p[2].decode(), p[3].decode(),
                                                        p[4].decode(), m, r))
                    ts = kernel_ts(anc)
                    if ts is not None:
                        km, err = to_mono(ts)
                        f.write("rxk %s %s %d %d\n" % (p[1].decode(), p[2].decode(), km, err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
