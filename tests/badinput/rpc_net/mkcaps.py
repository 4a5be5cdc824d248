#!/usr/bin/env python3
"""Bad-input captures of ONC RPC over TCP (tests/badinput/rpc_net/):
garbage on port 2049 from the first byte, and a valid NULL call followed
by a record mark of 2^31 - 1.  Each NAME.pcap has NAME.expected, the one
error line nfsrdma-dissect must print (tests/unit/badinput.sh).
Usage: mkcaps.py (writes beside itself)"""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def frame(sport, dport, seq, payload, flags=0x18):
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0, 64, 6, 0,
                     bytes([10, 0, 0, 2]), bytes([10, 0, 0, 1]))
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp + payload


def pcap(name, frames):
    with open(os.path.join(here, name + ".pcap"), "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)) + fr)


# NFS NULL call (AUTH_NONE) in one record
null = struct.pack(">IIIIIIIIII", 1, 0, 2, 100003, 3, 0, 0, 0, 0, 0)
rec = struct.pack(">I", 0x80000000 | len(null)) + null
# 3 segments of text on port 2049: never a record mark, never an RPC
# header; and a NULL call on another connection, which goes on
text = b"GET / HTTP/1.1\r\nHost: example\r\n\r\n" * 4
pcap("garbage-2049", [frame(40000, 2049, 1000 + i * len(text), text) for i in range(3)] +
     [frame(40002, 2049, 9000, rec)])
# the NULL call, then a mark of 0x7fffffff and bytes
bad = struct.pack(">I", 0x7fffffff) + b"\x00" * 60
pcap("mark-2g", [frame(40001, 2049, 5000, rec), frame(40001, 2049, 5000 + len(rec), bad)])
