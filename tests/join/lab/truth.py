#!/usr/bin/env python3
"""The lab's own truth about the clocks of a fuse run, computed here from
the clock beacons (beacon.py) and the capture, never from the code under
test.

Clocks ("hosts" as the join numbers them for `nfsrdma-dissect CAP --join
client.jsonl --join server.jsonl`): 0 the capture (the host's clock, as
qemu's filter-dump stamps frames, microseconds), 1 the client guest's
CLOCK_MONOTONIC (the client probes' bpf_ktime), 2 the server guest's.
The offset of a pair (a, b) is b - a at one instant.

Every beacon datagram is a message from one clock to another: read before
it was sent, seen on the wire, read again after it was received.  A
message from A read at a to B read at b proves offset(B - A) <= b - a
(an upper bound); one the other way proves offset >= b - a (a lower
bound).  The wire's times are truncated to the microsecond: a bound with
the capture is widened by 1 us.  With the clocks linear over the run
(offset = x + d * (t - t0), |d| <= 500 ppm), the truth at time t is the
range of x + d * (t - t0) over every line that satisfies every bound:
a small linear programme, solved on a grid of slopes (the grid's own
error is added to the interval)."""
import struct
import sys

MAX_PPM = 500.0
BEACON_PORT = 9471


def read_beacons(path):
    """tx: seq -> (mono, real) the beacon read before sending; txk: seq -> the
    kernel's send time (mono, made earlier by its error: a safe send time);
    rx: list of (peer, seq, peer_mono, peer_real, mono, real) with mono the
    kernel's receive time made later by its error when it has one (a safe
    receive time), else the beacon's reading after recvfrom."""
    tx, txk, rx, rxk, clk = {}, {}, [], {}, []
    for line in open(path):
        p = line.split()
        if p[:1] == ["tx"] and len(p) == 4:
            tx[int(p[1])] = (int(p[2]), int(p[3]))
        elif p[:1] == ["txk"] and len(p) == 4:
            txk[int(p[1])] = int(p[2]) - int(p[3])
        elif p[:1] == ["rx"] and len(p) == 7:
            rx.append((p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]), int(p[6])))
        elif p[:1] == ["rxk"] and len(p) == 5:
            rxk[(p[1], int(p[2]))] = int(p[3]) + int(p[4])
        elif p[:1] == ["clk"] and len(p) == 4:
            clk.append((int(p[1]), int(p[2])))
    rx = [(pe, sq, pm, pr, min(m, rxk.get((pe, sq), m)), r) for pe, sq, pm, pr, m, r in rx]
    return tx, txk, rx, clk


def pcap_beacons(path):
    """(role, seq) -> capture time in ns of the beacon datagram seen on the wire."""
    out = {}
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic not in (0xa1b2c3d4, 0xa1b23c4d):
            raise ValueError("%s: not a little-endian classic pcap" % path)
        nano = magic == 0xa1b23c4d
        while True:
            h = f.read(16)
            if len(h) < 16:
                break
            sec, frac, incl, _ = struct.unpack("<IIII", h)
            data = f.read(incl)
            if len(data) < 42 or data[12:14] != b"\x08\x00" or data[23] != 17:
                continue
            ihl = (data[14] & 15) * 4
            udp = 14 + ihl
            if struct.unpack(">H", data[udp + 2:udp + 4])[0] != BEACON_PORT:
                continue
            p = data[udp + 8:].split()
            if len(p) == 5 and p[0] == b"NRB1":
                t = sec * 1_000_000_000 + (frac if nano else frac * 1000)
                out.setdefault((p[1].decode(), int(p[2])), t)
    return out


class Pair:
    """Bounds on offset(b - a), each at a time of clock a."""

    def __init__(self, name, res_ns=0):
        self.name, self.res = name, res_ns
        self.lower, self.upper = [], []

    def a_to_b(self, ta, tb):       # sent at ta (a's clock), received at tb (b's)
        self.upper.append((ta, tb - ta + self.res))

    def b_to_a(self, tb, ta):       # sent at tb (b's clock), received at ta (a's)
        self.lower.append((ta, tb - ta - self.res))

    def solve(self):
        """Fix the feasible slopes; False when no line fits every bound."""
        if not self.lower or not self.upper:
            return False
        ts = [t for t, _ in self.lower + self.upper]
        self.t0 = max(ts)
        self.span = self.t0 - min(ts)
        # offsets are ~1e18 ns: floats only relative to a base
        self.base = self.upper[0][1]
        lo = [(t - self.t0, v - self.base) for t, v in self.lower]
        up = [(t - self.t0, v - self.base) for t, v in self.upper]

        def gap(d):
            xmax = min(v - d * dt for dt, v in up)
            xmin = max(v - d * dt for dt, v in lo)
            return xmin, xmax

        coarse = [i * 1e-6 for i in range(-int(MAX_PPM), int(MAX_PPM) + 1)]
        ok = [d for d in coarse if gap(d)[0] <= gap(d)[1]]
        if not ok:
            return False
        dlo, dhi = max(-MAX_PPM * 1e-6, min(ok) - 1e-6), min(MAX_PPM * 1e-6, max(ok) + 1e-6)
        n = 400
        step = (dhi - dlo) / n
        self.grid = []
        for i in range(n + 1):
            d = dlo + i * step
            xmin, xmax = gap(d)
            if xmin <= xmax:
                self.grid.append((d, xmin, xmax))
        # between grid slopes the region reaches at most a step's tilt further
        self.slack = step * (self.span + 1) + 1
        self.drift = (min(d for d, _, _ in self.grid) * 1e6, max(d for d, _, _ in self.grid) * 1e6)
        return True

    def conflict(self):
        """Where no line fits: at the slope that comes closest, the lower
        and the upper bound furthest apart (their times, on clock a), for
        the failure's message."""
        if not self.lower or not self.upper:
            return "no bounds"
        t0, base = max(t for t, _ in self.lower + self.upper), self.upper[0][1]
        best = None
        for i in range(-int(MAX_PPM), int(MAX_PPM) + 1, 10):
            d = i * 1e-6
            lo = max(self.lower, key=lambda b: b[1] - base - d * (b[0] - t0))
            up = min(self.upper, key=lambda b: b[1] - base - d * (b[0] - t0))
            gap = (lo[1] - d * (lo[0] - t0)) - (up[1] - d * (up[0] - t0))
            if best is None or gap < best[0]:
                best = (gap, d, lo, up)
        gap, d, lo, up = best
        return ("at %.0f ppm the lower bound at %d exceeds the upper at %d by %.1f us"
                % (d * 1e6, lo[0], up[0], gap / 1e3))

    def at(self, t):
        """(low, high) of offset(b - a) at time t of clock a."""
        dt = t - self.t0
        lo = min(xmin + d * dt for d, xmin, _ in self.grid)
        hi = max(xmax + d * dt for d, _, xmax in self.grid)
        # the slack grows with the distance from the bounds' span
        s = self.slack * max(1.0, abs(dt) / max(self.span, 1))
        return self.base + int(lo - s), self.base + int(hi + s) + 1


def pairs(outdir):
    """The three pairs of the join's numbering, bounded by the beacons."""
    ctx, ctxk, crx, _ = read_beacons(outdir + "/client.beacons")
    stx, stxk, srx, sclk = read_beacons(outdir + "/server.beacons")
    # the sender's kernel send time when it has one: later than its reading
    crx = [(pe, sq, max(pm, stxk.get(sq, pm)), pr, m, r) for pe, sq, pm, pr, m, r in crx]
    srx = [(pe, sq, max(pm, ctxk.get(sq, pm)), pr, m, r) for pe, sq, pm, pr, m, r in srx]
    wire = pcap_beacons(outdir + "/capture.pcap")
    cw = Pair("capture-client", 1000)   # offset = client mono - capture
    sw = Pair("capture-server", 1000)   # offset = server mono - capture
    cs = Pair("client-server")          # offset = server mono - client mono
    for peer, seq, pm, _, m, _ in srx:  # client -> server
        cs.a_to_b(pm, m)
        w = wire.get(("client", seq))
        if w:
            cw.b_to_a(pm, w)            # client read, then the wire
            sw.a_to_b(w, m)             # the wire, then the server read
    for peer, seq, pm, _, m, _ in crx:  # server -> client
        cs.b_to_a(pm, m)
        w = wire.get(("server", seq))
        if w:
            sw.b_to_a(pm, w)
            cw.a_to_b(w, m)
    return {(0, 1): cw, (0, 2): sw, (1, 2): cs}, (ctx, stx, sclk, wire)


def main():
    ps, (ctx, stx, _, wire) = pairs(sys.argv[1])
    for (a, b), p in sorted(ps.items()):
        if not p.solve():
            print("%d-%d %s: no line fits the %d+%d bounds" % (a, b, p.name, len(p.lower), len(p.upper)))
            continue
        for t in (min(x for x, _ in p.lower), (p.t0 + min(x for x, _ in p.lower)) // 2):
            lo, hi = p.at(t)
            print("   at %d: %d +- %d" % (t, (lo + hi) // 2, (hi - lo) // 2))
        lo, hi = p.at(p.t0)
        print("%d-%d %s: offset %d ns +- %d ns at the end, drift %.2f..%.2f ppm, %d lower + %d upper bounds"
              % (a, b, p.name, (lo + hi) // 2, (hi - lo) // 2, p.drift[0], p.drift[1], len(p.lower), len(p.upper)))


if __name__ == "__main__":
    main()
