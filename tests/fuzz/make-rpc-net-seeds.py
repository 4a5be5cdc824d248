#!/usr/bin/env python3
"""Seeds of fuzz_rpc_net (tests/fuzz/seeds/rpc_net/) from the lab's NFS/TCP
capture and the NFSv4.0 callback one: their IP packets in the harness's
format (tests/fuzz/fuzz_rpc_net.c), whole, reordered in pairs, with a
segment dropped, and cut short.  Usage: make-rpc-net-seeds.py OUTDIR"""
import os
import struct
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def ip_packets(path):
    with open(path, "rb") as f:
        raw = f.read()
    off, out = 24, []
    while off + 16 <= len(raw):
        _, _, incl, _ = struct.unpack_from("<IIII", raw, off)
        frame = raw[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(frame) > 14 and frame[12:14] in (b"\x08\x00", b"\x86\xdd"):
            out.append(frame[14:])
    return out


def enc(pkts, flags=0):
    b = bytes([flags])
    for p in pkts:
        p = p[:0xffff]
        b += struct.pack(">HB", len(p), 0) + p
    return b


outdir = sys.argv[1]
os.makedirs(outdir, exist_ok=True)
for cap in ("nfs3-tcp", "nfs40-deleg"):
    pk = [p for p in ip_packets(os.path.join(top, "tests", "captures", cap + ".pcap")) if p[9] in (6, 17)]
    small = [p for p in pk if len(p) < 600][:60]
    seeds = {
        "whole": small,
        "swapped": [small[i ^ 1] for i in range(len(small) - len(small) % 2)],
        "dropped": small[:10] + small[11:],
        "big": pk[:40],
    }
    for name, s in seeds.items():
        with open(os.path.join(outdir, "%s-%s.bin" % (cap, name)), "wb") as f:
            f.write(enc(s, 1 if name == "whole" else 0))
