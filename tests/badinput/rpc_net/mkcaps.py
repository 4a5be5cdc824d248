#!/usr/bin/env python3
"""Bad-input captures of ONC RPC over TCP (tests/badinput/rpc_net/):
garbage on port 2049 from the first byte, a valid NULL call followed
by a record mark of 2^31 - 1, and WRITEs whose direction stalls on a hole
that an overlapping retransmission fills after the replies came.  Each
NAME.pcap has NAME.expected, the one error line nfsrdma-dissect must
print, and may have NAME.paired, how many RPCs must pair
(tests/unit/badinput.sh).
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


# overlap-reply-first: NFSv3 WRITEs whose client direction stalls.  The
# segment carrying bytes [40, 80) of WRITE 2's record was not captured;
# the rest of WRITE 2 and all of WRITE 3 come next and wait in the
# reassembly hold; the server's replies to both come out first; then a
# retransmission of [L1 - 20, L1 + 60) fills the hole, overlapping 20
# bytes already taken (WRITE 1's tail) and 20 bytes of the held segment
# (inside WRITE 2's fragment).  Every WRITE pairs with its reply:
# overlap-reply-first.paired says 4.
def tcp_frame(src, dst, sport, dport, seq, payload, flags=0x18):
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0, 64, 6, 0,
                     bytes(src), bytes(dst))
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp + payload


def write_call(xid, data):
    fh = b"\x01\x00\x07\x00\x11\x22\x33\x44"
    pad = b"\x00" * (-len(data) % 4)
    return (struct.pack(">IIIIIIIIII", xid, 0, 2, 100003, 3, 7, 0, 0, 0, 0) +
            struct.pack(">I", len(fh)) + fh + struct.pack(">QII", 4096 * xid, len(data), 2) +
            struct.pack(">I", len(data)) + data + pad)


def write_reply(xid, count):
    # MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, NFS3_OK, wcc_data with
    # neither attribute, count, FILE_SYNC, an 8-byte verifier
    return struct.pack(">IIIIIIIIIII", xid, 1, 0, 0, 0, 0, 0, 0, 0, count, 2) + b"\x5a" * 8


def record(msg):
    return struct.pack(">I", 0x80000000 | len(msg)) + msg


def stamped(name, frames):
    """frames: (milliseconds, bytes)"""
    with open(os.path.join(here, name + ".pcap"), "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for ms, fr in frames:
            f.write(struct.pack("<IIII", 1700000000 + ms // 1000, (ms % 1000) * 1000, len(fr), len(fr)) + fr)


CLI, SRV, CP = [10, 0, 0, 2], [10, 0, 0, 1], 40003
CISN, SISN = 7000, 90000
c = [record(write_call(x, bytes([0x40 + x]) * 100)) for x in (1, 2, 3, 4)]
r = [record(write_reply(x, 100)) for x in (1, 2, 3, 4)]
cs = b"".join(c)
L1, L2, L3 = len(c[0]), len(c[1]), len(c[2])
rs = b"".join(r)
R = len(r[0])


def cseg(a, b):
    return tcp_frame(CLI, SRV, CP, 2049, CISN + 1 + a, cs[a:b])


def sseg(a, b):
    return tcp_frame(SRV, CLI, 2049, CP, SISN + 1 + a, rs[a:b])


stamped("overlap-reply-first", [
    (0, tcp_frame(CLI, SRV, CP, 2049, CISN, b"", 0x02)),
    (1, tcp_frame(SRV, CLI, 2049, CP, SISN, b"", 0x12)),
    (10, cseg(0, L1)),
    (12, sseg(0, R)),
    (20, cseg(L1 + 40, L1 + L2 + L3)),        # bytes [L1, L1 + 40) missing
    (25, sseg(R, 3 * R)),                     # replies to WRITE 2 and 3
    (40, cseg(L1 - 20, L1 + 60)),             # the retransmission, overlapping both sides
    (50, cseg(L1 + L2 + L3, len(cs))),
    (52, sseg(3 * R, 4 * R)),
    (60, tcp_frame(CLI, SRV, CP, 2049, CISN + 1 + len(cs), b"", 0x11)),
    (61, tcp_frame(SRV, CLI, 2049, CP, SISN + 1 + len(rs), b"", 0x11)),
])
with open(os.path.join(here, "overlap-reply-first.expected"), "w") as f:
    pass                                      # no error line: nothing is wrong with the bytes
with open(os.path.join(here, "overlap-reply-first.paired"), "w") as f:
    f.write("%d\n" % min(len(c), len(r)))     # every call sent has its reply
