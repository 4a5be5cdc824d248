#!/usr/bin/env python3
"""pcapng files for tests/pcapng/check.sh, written here from the pcapng
specification (draft-ietf-opsawg-pcapng), stdlib only.

  mkpcapng.py be|le IN.pcap OUT.pcapng
      IN re-written as a big- or little-endian pcapng: SHB, one IDB (IN's
      link type and snapshot length, if_tsresol 10^-9), one EPB per record
      (le: for the link types editcap will not write in pcapng, 247).
  mkpcapng.py multi OUTDIR [N]      (N: the first N packets of each source)
      OUTDIR/multi.pcapng: two sections, the second big-endian, with
      interfaces of different link types, snapshot lengths, if_tsresol
      (powers of 10 and of 2) and if_tsoffset, their packets interleaved
      in time, NRB/ISB/DSB/custom blocks between them, and one interface
      of a link type nobody decodes (802.11); and OUTDIR/part-N.pcap, the
      truth: each decodable interface's packets as a classic nanosecond
      pcap with the timestamps a reader must give (the units the pcapng
      holds, scaled down to nanoseconds and rounded down, plus the offset);
      and OUTDIR/pb.pcapng and spb.pcapng, the obsolete Packet Block and
      the Simple Packet Block (truths: smoke.pcap, spb.pcap).
  mkpcapng.py bad OUTDIR
      OUTDIR/NAME.pcapng: one damage each (tests/badinput/capfile).
"""
import os
import struct
import sys


def pcap_read(path):
    with open(path, "rb") as f:
        d = f.read()
    magic = struct.unpack_from("<I", d, 0)[0]
    e, scale = {0xa1b2c3d4: ("<", 1000), 0xa1b23c4d: ("<", 1), 0xd4c3b2a1: (">", 1000),
                0x4d3cb2a1: (">", 1)}[magic]
    snap, lt = struct.unpack_from(e + "II", d, 16)
    off, out = 24, []
    while off + 16 <= len(d):
        sec, sub, cap, wire = struct.unpack_from(e + "IIII", d, off)
        out.append((sec * 10**9 + sub * scale, d[off + 16:off + 16 + cap], wire))
        off += 16 + cap
    return lt, snap, out


def pcap_ns(lt, snap, recs):
    b = [struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, snap, lt)]
    for ts, data, wire in recs:
        b.append(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), wire) + data)
    return b"".join(b)


def block(e, btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n)


def opt(e, code, val):
    return struct.pack(e + "HH", code, len(val)) + val + b"\0" * (-len(val) % 4)


def shb(e):
    return block(e, 0x0a0d0d0a, struct.pack(e + "IHHq", 0x1a2b3c4d, 1, 0, -1) + opt(e, 0, b""))


def idb(e, lt, snap, tsresol=None, tsoffset=None):
    o = b""
    if tsresol is not None:
        o += opt(e, 9, bytes([tsresol]))
    if tsoffset is not None:
        o += opt(e, 14, struct.pack(e + "q", tsoffset))
    return block(e, 1, struct.pack(e + "HHI", lt, 0, snap) + o + (opt(e, 0, b"") if o else b""))


def epb(e, ifid, units, data, wire):
    return block(e, 6, struct.pack(e + "IIIII", ifid, units >> 32, units & 0xffffffff, len(data), wire) + data)


def units_of(ts, resol, offset):
    """Units of resolution code resol for ts (ns) with if_tsoffset offset (s)."""
    per = (1 << (resol & 0x7f)) if resol & 0x80 else 10 ** resol
    t = ts - offset * 10**9
    return t * per // 10**9, per


def read_back(u, per, offset):
    return (u // per + offset) * 10**9 + (u % per) * 10**9 // per


def convert(src, dst, e):
    lt, snap, recs = pcap_read(src)
    out = [shb(e), idb(e, lt, snap, 9)]
    out += [epb(e, 0, ts, data, wire) for ts, data, wire in recs]
    with open(dst, "wb") as f:
        f.write(b"".join(out))


# interfaces of multi.pcapng: (section, source capture, if_tsresol, if_tsoffset, snaplen)
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MULTI = [
    (0, "tests/captures/smoke.pcap", 9, None, 262144),           # Ethernet, 10^-9
    (0, "tests/gen/out/conv-ib-lrh.pcap", 0x80 | 30, 1000, 262144),   # IB, 2^-30, offset 1000 s
    (0, None, 6, None, 65535),                                  # 802.11: no decoder
    (1, "tests/gen/out/conv-erf-ib.pcap", 0x80 | 20, -5, 262144),     # ERF, 2^-20, offset -5 s
    (1, "tests/gen/out/ipoib-dlt.pcap", 3, None, 96),           # IPoIB, 10^-3, snaplen 96
]


def multi(outdir, limit=None):
    os.makedirs(outdir, exist_ok=True)
    sections = {0: ("<", []), 1: (">", [])}
    events = []   # (ts, section, block bytes)
    part = 0
    for sec, src, resol, offset, snap in MULTI:
        e, ifs = sections[sec]
        ifid = len(ifs)
        if src is None:
            ifs.append(idb(e, 105, snap, resol))
            for i in range(3):
                events.append((sec, 1_600_000_000 * 10**9 + i, epb(e, ifid, 1_600_000_000 * 10**6 + i, b"\x08\0" * 12, 24)))
            continue
        lt, _, recs = pcap_read(os.path.join(TOP, src))
        recs = recs[:limit]
        ifs.append(idb(e, lt, snap, resol, offset))
        truth = []
        for ts, data, wire in recs:
            u, per = units_of(ts, resol, offset or 0)
            cut = data[:snap]
            events.append((sec, ts, epb(e, ifid, u, cut, wire)))
            truth.append((read_back(u, per, offset or 0), cut, wire))
        part += 1
        with open(os.path.join(outdir, "part-%d.pcap" % part), "wb") as f:
            f.write(pcap_ns(lt, snap, truth))
    out = []
    for sec in (0, 1):
        e, ifs = sections[sec]
        out.append(shb(e))
        out += ifs
        out.append(block(e, 4, opt(e, 0, b"")))                     # NRB, empty
        evs = sorted((ts, b) for s, ts, b in events if s == sec)
        for i, (ts, b) in enumerate(evs):
            out.append(b)
            if i % 50 == 7:
                out.append(block(e, 5, struct.pack(e + "III", 0, 0, 0)))        # ISB
                out.append(block(e, 0x0bad, struct.pack(e + "I", 32473) + b"x" * 6))  # custom
                out.append(block(e, 10, struct.pack(e + "II", 0x544c534b, 4) + b"abcd"))  # DSB
    with open(os.path.join(outdir, "multi.pcapng"), "wb") as f:
        f.write(b"".join(out))
    old_blocks(outdir, limit)


def old_blocks(outdir, limit):
    """pb.pcapng: smoke.pcap in obsolete Packet Blocks (its truth:
    smoke.pcap); spb.pcapng: in Simple Packet Blocks, which have no
    timestamp, with a snapshot length of 200 (its truth: spb.pcap, every
    time 0, every packet cut at 200)."""
    lt, snap, recs = pcap_read(os.path.join(TOP, "tests/captures/smoke.pcap"))
    recs = recs[:limit]
    e = "<"
    pb = [shb(e), idb(e, lt, snap, 9)]
    pb += [block(e, 2, struct.pack(e + "HHIIII", 0, 0, ts >> 32, ts & 0xffffffff, len(d), w) + d) for ts, d, w in recs]
    spb = [shb(e), idb(e, lt, 200)]
    spb += [block(e, 3, struct.pack(e + "I", w) + d[:200]) for ts, d, w in recs]
    with open(os.path.join(outdir, "pb.pcapng"), "wb") as f:
        f.write(b"".join(pb))
    with open(os.path.join(outdir, "spb.pcapng"), "wb") as f:
        f.write(b"".join(spb))
    with open(os.path.join(outdir, "spb.pcap"), "wb") as f:
        f.write(pcap_ns(lt, 200, [(0, d[:200], w) for ts, d, w in recs]))


def bad(outdir):
    """One damage each, after one good packet (frame 1) so the message
    names frame 2 and its offset."""
    os.makedirs(outdir, exist_ok=True)
    e = "<"
    head = shb(e) + idb(e, 1, 262144)
    pkt = bytes(range(60))
    good = epb(e, 0, 10**6, pkt, 60)
    at = len(head) + len(good)
    cases = {
        # a block length shorter than a block: cannot go on
        "ng-len-short": head + good + struct.pack(e + "II", 6, 8) + b"\0" * 8,
        # a block length that is not a whole number of words
        "ng-len-unaligned": head + good + struct.pack(e + "II", 6, 50) + b"\0" * 44,
        # a block that runs past the end of the file
        "ng-len-past-end": head + good + epb(e, 0, 2 * 10**6, pkt, 60)[:-20],
        # a trailing length that disagrees: told, the reading goes on
        "ng-trail-differs": head + good + epb(e, 0, 2 * 10**6, pkt, 60)[:-4] + struct.pack(e + "I", 99) + good,
        # an EPB whose captured length exceeds its block: skipped, told
        "ng-caplen-over-block": head + good + block(e, 6, struct.pack(e + "IIIII", 0, 0, 3, 500, 500) + pkt) + good,
        # a packet of an interface the section has not described
        "ng-unknown-iface": head + good + epb(e, 7, 3, pkt, 60) + good,
        # a header cut inside the block header
        "ng-cut-header": head + good + b"\x06\0\0\0\x40",
        # an SHB whose byte-order magic is neither order
        "ng-bad-bom": head + good + struct.pack(e + "III", 0x0a0d0d0a, 28, 0x12345678) + b"\0" * 16,
        # an if_tsresol no reader can scale (10^-25): the interface is skipped
        "ng-tsresol-range": shb(e) + idb(e, 1, 262144, 25) + idb(e, 1, 262144) + epb(e, 0, 1, pkt, 60) + epb(e, 1, 5, pkt, 60),
        # 2^-84: out of range too (a shift past 64 bits before the check)
        "ng-tsresol-range-pow2": shb(e) + idb(e, 1, 262144, 0x80 | 84) + idb(e, 1, 262144) + epb(e, 0, 1, pkt, 60) + epb(e, 1, 5, pkt, 60),
        # an option whose length runs past its block
        "ng-option-overrun": shb(e) + block(e, 1, struct.pack(e + "HHI", 1, 0, 262144) + struct.pack(e + "HH", 9, 200) + b"\x06\0\0\0") + good,
        # no IDB before the first packet
        "ng-no-idb": shb(e) + good,
    }
    for name, b in cases.items():
        with open(os.path.join(outdir, name + ".pcapng"), "wb") as f:
            f.write(b)
    return at


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd in ("be", "le") and len(sys.argv) == 4:
        convert(sys.argv[2], sys.argv[3], ">" if cmd == "be" else "<")
    elif cmd == "multi" and len(sys.argv) in (3, 4):
        multi(sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else None)
    elif cmd == "bad" and len(sys.argv) == 3:
        bad(sys.argv[2])
    else:
        sys.exit(__doc__)
