#!/usr/bin/env python3
"""ns_capture.py IN.pcap OUT.pcap: IN (classic pcap, microseconds) again as
a nanosecond pcap, each packet's time moved later by 0-999 ns (a fixed
pseudo-random amount per packet), so the phases between packets are no
longer whole microseconds, as on a capture taken with nanosecond stamps
(tests/unit/phases.sh)."""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
magic = struct.unpack("<I", data[:4])[0]
e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
magic = struct.unpack(e + "I", data[:4])[0]
if magic != 0xa1b2c3d4:
    sys.exit("%s: not a microsecond pcap" % src)
out = [struct.pack(e + "I", 0xa1b23c4d) + data[4:24]]
off, i, seed = 24, 0, 12345
while off + 16 <= len(data):
    sec, usec, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    out.append(struct.pack(e + "IIII", sec, usec * 1000 + seed % 1000, incl, orig))
    out.append(data[off + 16:off + 16 + incl])
    off += 16 + incl
open(dst, "wb").write(b"".join(out))
