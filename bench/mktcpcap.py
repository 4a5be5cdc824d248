#!/usr/bin/env python3
"""A large NFS/TCP capture for bench/tcp.sh, built like the RDMA bench
capture (bench/mkbigcap.c): the lab's NFSv3/TCP run (tests/captures/
nfs3-tcp.pcap: rpcbind, MOUNT, NFS with 128 KiB READs and WRITEs) written
again and again, each pass later in time by the source's length plus 1 s
and from another client address (10.100.0.1, 10.100.0.2, ...), so every
pass is new streams and the stream table grows with the clients.
Usage: mktcpcap.py OUT.pcap MEGABYTES"""
import os
import struct
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
src = os.path.join(top, "tests", "captures", "nfs3-tcp.pcap")
out, mb = sys.argv[1], int(sys.argv[2])
with open(src, "rb") as f:
    raw = f.read()
hdr, recs, off = raw[:24], [], 24
while off + 16 <= len(raw):
    s, us, incl, orig = struct.unpack_from("<IIII", raw, off)
    recs.append((s * 1000000 + us, orig, bytearray(raw[off + 16:off + 16 + incl])))
    off += 16 + incl
t0, t1 = recs[0][0], recs[-1][0]
span = t1 - t0 + 1000000
CLIENT = bytes([10, 9, 0, 2])
with open(out, "wb") as f:
    f.write(hdr)
    size, p = 24, 0
    while size < mb << 20:
        p += 1
        addr = bytes([10, 100 + (p >> 16) % 100, (p >> 8) & 255, p & 255])
        for t, orig, fr in recs:
            b = bytearray(fr)
            if len(b) >= 34 and b[12:14] == b"\x08\x00":
                if b[26:30] == CLIENT:
                    b[26:30] = addr
                if b[30:34] == CLIENT:
                    b[30:34] = addr
            t += p * span
            f.write(struct.pack("<IIII", t // 1000000, t % 1000000, len(b), orig) + b)
            size += 16 + len(b)
