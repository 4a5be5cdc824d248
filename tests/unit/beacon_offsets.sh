#!/usr/bin/env bash
# The lab beacons' kernel stamps (tests/join/lab/beacon.py, Offsets) put on
# the monotonic clock across wall clock steps and slews: a modelled clock
# whose steps and slews are the injected truth; every converted stamp must
# hold the true monotonic time within its stated error, and a stamp taken
# before a step and converted after it must not land a step away.
exec python3 - "$(dirname "$0")/../join/lab" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import beacon

passed = failed = 0


def check(ok, what):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    if not ok:
        print("FAIL " + what)


class Clock:
    """mono advances by the reads; real = mono + offset(mono), the offset
    a list of (from_mono, offset at from_mono, slew ppm from there)."""

    def __init__(self, pieces):
        self.m, self.pieces = 1_000_000_000, pieces

    def off(self, m):
        base, o, ppm = max((p for p in self.pieces if p[0] <= m), key=lambda p: p[0])
        return o + int((m - base) * ppm / 1e6)

    def real(self, m):
        return m + self.off(m)

    def read(self):
        self.m += 300
        m1 = self.m
        self.m += 200
        r = self.real(self.m)
        self.m += 300
        return m1, r, self.m


def run(name, pieces, gap_ns=20_000_000, lag_ns=5_000_000, n=2000):
    """Readings every gap_ns; each stamp taken lag_ns before its conversion."""
    c = Clock(pieces)
    o = beacon.Offsets(c.read)
    bad = worst = none = 0
    for i in range(n):
        o.read()
        c.m += gap_ns - lag_ns
        t = c.m
        ts = c.real(t)
        c.m += lag_ns
        km = o.to_mono(ts)
        if km is None:
            none += 1
            continue
        if abs(km[0] - t) > km[1]:
            bad += 1
        worst = max(worst, abs(km[0] - t))
    check(bad == 0, "%s: %d of %d stamps outside their error (worst %d ns)" % (name, bad, n, worst))
    return worst, none, n


w, none, n = run("constant offset", [(0, 10**18, 0)])
check(w <= 1000 and none == 0, "constant offset: worst %d ns, %d of %d unplaced" % (w, none, n))
# fuse-nfs41: the wall clock stepped back 1800 s mid-run
w, none, n = run("step -1800 s", [(0, 10**18, 0), (21_000_000_000, 10**18 - 1_800_000_000_000, 0)])
check(w <= 20_000_000, "step -1800 s: a stamp placed %d ns off (more than the readings' gap)" % w)
# fuse-chrony: +50 ms, then chrony's slew
w, _, _ = run("step +50 ms", [(0, 10**18, 0), (21_000_000_000, 10**18 + 50_000_000, 0)])
check(w <= 20_000_000, "step +50 ms: a stamp placed %d ns off" % w)
w, _, _ = run("slew 500 ppm", [(0, 10**18, 0), (5_000_000_000, 10**18, 500)])
check(w <= 20_000, "slew 500 ppm: a stamp placed %d ns off" % w)
# chrony's fastest slew (83,333 ppm), and a step in the middle of it
w, _, _ = run("slew 83,333 ppm", [(0, 10**18, 0), (5_000_000_000, 10**18, 83333)])
check(w <= 2_000_000, "slew 83,333 ppm: a stamp placed %d ns off" % w)
w, _, _ = run("slew and step", [(0, 10**18, 0), (5_000_000_000, 10**18, 83333),
                                (21_000_000_000, 10**18 - 1_800_000_000_000, -83333)])
check(w <= 20_000_000, "slew and step: a stamp placed %d ns off" % w)
# a stamp older than every kept reading is not placed at all
c = Clock([(0, 10**18, 0)])
o = beacon.Offsets(c.read)
old = c.real(c.m)
for i in range(700):
    o.read()
    c.m += 20_000_000
check(o.to_mono(old) is None, "a stamp 14 s old was placed")
# the old conversion's failure, for the record: a stamp read before the
# step and converted after it with the offset read then is 1800 s off
c = Clock([(0, 10**18, 0), (2_000_000_000, 10**18 - 1_800_000_000_000, 0)])
o = beacon.Offsets(c.read)
o.read()
t = c.m = 1_990_000_000
ts = c.real(t)
c.m = 2_010_000_000
km = o.to_mono(ts)
m1, r, m2 = c.read()
naive = ts - r + (m1 + m2) // 2
check(abs(naive - t) > 1_000_000_000_000, "the modelled step did not fool the offset read after it")
check(km is not None and abs(km[0] - t) <= km[1], "a stamp across the step: %s for %d" % (km, t))
# the beacon itself, sending to itself over loopback for a second: every
# datagram's kernel stamps placed between its sender's reading and its
# receiver's, within their errors
import os, subprocess, tempfile, time  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    out, stop = os.path.join(tmp, "b.beacons"), os.path.join(tmp, "stop")
    b = subprocess.Popen([sys.executable, os.path.join(sys.argv[1], "beacon.py"), "self", "127.0.0.1", "0", out, stop],
                         stderr=subprocess.PIPE, text=True)
    time.sleep(1.2)
    open(stop, "w").close()
    try:
        err = b.communicate(timeout=10)[1]
    except subprocess.TimeoutExpired:
        b.kill()
        err = "did not stop"
    check(b.returncode == 0, "beacon.py on loopback: exit %s: %s" % (b.returncode, err.strip()[-300:]))
    tx, txk, rx, rxk = {}, {}, {}, {}
    for line in open(out) if os.path.exists(out) else []:
        p = line.split()
        if p[0] == "tx":
            tx[int(p[1])] = int(p[2])
        elif p[0] == "txk":
            txk[int(p[1])] = (int(p[2]), int(p[3]))
        elif p[0] == "rx":
            rx[int(p[2])] = int(p[5])
        elif p[0] == "rxk":
            rxk[int(p[2])] = (int(p[3]), int(p[4]))
    check(len(tx) >= 10 and len(rx) >= 10, "beacon.py on loopback: %d sent, %d received in 1.2 s" % (len(tx), len(rx)))
    check(len(txk) >= len(tx) // 2 and len(rxk) >= len(rx) // 2,
          "beacon.py on loopback: kernel stamps for %d of %d sends, %d of %d receipts" % (len(txk), len(tx), len(rxk), len(rx)))
    off = [s for s in rx if s in tx and not
           (tx[s] - txk.get(s, (tx[s], 0))[1] <= txk.get(s, (tx[s], 0))[0] <= rxk.get(s, (rx[s], 0))[0] + rxk.get(s, (rx[s], 0))[1]
            and rxk.get(s, (rx[s], 0))[0] - rxk.get(s, (rx[s], 0))[1] <= rx[s])]
    check(not off, "beacon.py on loopback: %d datagrams' kernel stamps outside their readings: %s" % (len(off), off[:5]))
print("beacon_offsets: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
