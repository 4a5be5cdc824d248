#!/usr/bin/env python3
"""Damaged copies of a real capture, for the diagnostics that must not be
silent (issue 16): an RPC-over-RDMA header with an unknown version, and a
snap length that cuts the RPC-over-RDMA/RPC headers.  Stdlib only.

    tests/gen/damaged.py vers IN OUT VERS FRAME...   version word := VERS
    tests/gen/damaged.py snap IN OUT SNAPLEN         like editcap -s SNAPLEN

gen.py calls the same functions on its frozen lab capture to write
tests/gen/out/dmg-*.pcap."""
import struct
import sys

import rdmawire as w
from gen import parse_rocev2

BTH_LEN = 12


def pcap_bytes(linktype, frames, snaplen):
    """frames: [(ts_ns, captured bytes, wire length)] -> classic pcap."""
    out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype)]
    for ts, fr, wirelen in frames:
        sec, ns = divmod(ts, 10**9)
        out.append(struct.pack("<IIII", sec, ns // 1000, len(fr), wirelen))
        out.append(fr)
    return b"".join(out)


def set_version(frame, vers):
    """The RoCEv2 SEND `frame` with the RPC-over-RDMA version word (the
    2nd word after the 12-byte BTH: xid, vers, credits, proc) := vers and
    the ICRC recomputed, so that only the version is wrong."""
    r = parse_rocev2(frame)
    if not r:
        raise SystemExit("damaged: frame is not RoCEv2 over IPv4")
    ib = r[3]
    if len(ib) < BTH_LEN + 8:
        raise SystemExit("damaged: frame has no RPC-over-RDMA header")
    ip = 14
    udp = ip + (frame[ip] & 15) * 4
    vers_off = udp + 8 + BTH_LEN + 4
    fr = bytearray(frame)
    fr[vers_off:vers_off + 4] = struct.pack(">I", vers)
    ulen = struct.unpack_from(">H", fr, udp + 4)[0]
    crc_off = udp + ulen - 4
    fr[crc_off:crc_off + 4] = w.roce_v2_icrc_of(bytes(fr[ip:]))
    return bytes(fr)


def with_version(frames, numbers, vers):
    """frames: [(ts, bytes)]; numbers: 1-based frame numbers to patch."""
    return [(ts, set_version(fr, vers) if i in numbers else fr, len(fr))
            for i, (ts, fr) in enumerate(frames, 1)]


def snapped(frames, snaplen):
    return [(ts, fr[:snaplen], len(fr)) for ts, fr in frames]


def main(argv):
    if len(argv) >= 6 and argv[1] == "vers":
        lt, frames = w.pcap_read(argv[2])
        with open(argv[2], "rb") as f:
            snaplen = struct.unpack_from("<I", f.read(24), 16)[0]
        out = pcap_bytes(lt, with_version(frames, {int(n) for n in argv[5:]}, int(argv[4])), snaplen)
    elif len(argv) == 5 and argv[1] == "snap":
        lt, frames = w.pcap_read(argv[2])
        out = pcap_bytes(lt, snapped(frames, int(argv[4])), int(argv[4]))
    else:
        sys.exit(__doc__)
    with open(argv[3], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main(sys.argv)
