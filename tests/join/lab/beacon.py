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
                              monotonic clock by the offsets read around it: ERR
                              is how far off that can be, a step or slew included)
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


class Offsets:
    """CLOCK_REALTIME - CLOCK_MONOTONIC as read over the last KEEP_NS.

    The kernel stamps datagrams on the wall clock, which a lab scenario
    steps (fuse-nfs41 by -1800 s mid-run, fuse-chrony by +50 ms) and
    chrony slews: converting a stamp with the offset read after it
    misplaces it by the whole step when the step fell in between (a send
    stamped 1800 s late breaks every bound of the truth).  Between two
    readings (at most 200 ms apart) the offset is taken to move by at most
    one step and a slew of at most SLEW (the kernel's tick adjustment
    allows 10 %): it stays near one end's value, and between the two give
    or take DRIFT when they agree to a drift, give or take the slew when
    they do not.  The stamp's monotonic time is where a piece's interval
    meets the stamp minus such an offset; the union of those is the
    answer, as wide as the offset moved around the stamp."""
    KEEP_NS = 10_000_000_000
    SLEW = 0.1
    DRIFT = 0.001

    def __init__(self, clocks=None):
        self.h = []
        self.clocks = clocks or self.system_clocks

    @staticmethod
    def system_clocks():
        return (time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.clock_gettime_ns(time.CLOCK_REALTIME),
                time.clock_gettime_ns(time.CLOCK_MONOTONIC))

    def read(self):
        """(monotonic, real) read back to back, and their offset kept."""
        m1, r, m2 = self.clocks()
        m = (m1 + m2) // 2
        self.h.append((m, r - m, (m2 - m1) // 2 + 1))
        while self.h[0][0] < m - self.KEEP_NS:
            self.h.pop(0)
        return m, r

    def to_mono(self, real_ts):
        """(monotonic ns, error ns) of a CLOCK_REALTIME time just past, or
        None when no interval of the kept readings can hold it."""
        self.read()
        lo = hi = None
        for (ma, oa, ea), (mb, ob, eb) in zip(self.h, self.h[1:]):
            e = ea + eb
            span = mb - ma
            # a piece where the offset moved faster than a drift had a step
            # or a fast slew: it may have gone past either end on the way
            wide = abs(ob - oa) > e + self.DRIFT * span
            past = e + int((self.SLEW if wide else self.DRIFT) * span)
            within = (min(oa, ob) - past, max(oa, ob) + past)
            for end in (oa, ob):
                olo = max(within[0], end - e - int(self.SLEW * span))
                ohi = min(within[1], end + e + int(self.SLEW * span))
                a, b = max(ma - ea, real_ts - ohi), min(mb + eb, real_ts - olo)
                if olo <= ohi and a <= b:
                    lo = a if lo is None else min(lo, a)
                    hi = b if hi is None else max(hi, b)
        if lo is None:
            return None
        return (lo + hi) // 2, (hi - lo + 1) // 2 + 1


def kernel_ts(anc):
    """The software timestamp (CLOCK_REALTIME ns) of a message's ancillary data, or None."""
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPING and len(data) >= 16:
            sec, nsec = struct.unpack("qq", data[:16])
            if sec or nsec:
                return sec * 1_000_000_000 + nsec
    return None


def tx_stamps(s, f, offs):
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
        km = offs.to_mono(ts) if ts is not None and seq is not None else None
        if km is not None:
            f.write("txk %d %d %d\n" % (seq, km[0], km[1]))


def main():
    role, peer, port, out, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    running = [True]
    signal.signal(signal.SIGTERM, lambda *_: running.__setitem__(0, False))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    if port == 0:       # a beacon talking to itself (tests/unit/beacon_offsets.sh)
        port = s.getsockname()[1]
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, TS_FLAGS)
    seq = 0
    nxt = 0
    offs = Offsets()
    now = offs.read
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
            tx_stamps(s, f, offs)
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
                    km = offs.to_mono(ts) if ts is not None else None
                    if km is not None:
                        f.write("rxk %s %s %d %d\n" % (p[1].decode(), p[2].decode(), km[0], km[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
