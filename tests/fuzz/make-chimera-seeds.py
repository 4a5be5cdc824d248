#!/usr/bin/env python3
"""Seeds from the Chimera captures (tests/captures/chimera-*.pcap): the
RPC-over-RDMA messages a second implementation put on the wire, for the
rpcrdma harness, one file per distinct header shape (message type, the
three chunk lists' presence, inline size class, direction), and the first
frames of each capture (and 60 around its first multi-packet Send) for
the capfile harness.

  tests/fuzz/make-chimera-seeds.py  (writes tests/fuzz/seeds/{rpcrdma,capfile}/chimera-*)

Classic pcap, Ethernet, IPv4, RoCEv2 (UDP 4791) only: what the lab writes."""
import glob
import os
import struct

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(TOP, "tests", "fuzz", "seeds")
SEND_ONLY, SEND_FIRST = 0x04, 0x00   # RC opcodes whose payload starts a message


def frames(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        endian = "<" if hdr[:4] == b"\xd4\xc3\xb2\xa1" else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, incl, _ = struct.unpack(endian + "IIII", rec)
            yield hdr, rec, f.read(incl)


def rdma_payload(pkt):
    """(direction, payload) of a RoCEv2 Send that starts a message, else None."""
    if len(pkt) < 14 + 20 + 8 + 12 + 4 or pkt[12:14] != b"\x08\x00":
        return None
    ihl = (pkt[14] & 15) * 4
    udp = 14 + ihl
    if pkt[23] != 17 or struct.unpack(">H", pkt[udp + 2:udp + 4])[0] != 4791:
        return None
    bth = udp + 8
    if pkt[bth] not in (SEND_ONLY, SEND_FIRST):
        return None
    return pkt[26:30], pkt[bth + 12:-4]


def shape(p):
    """A class of RPC-over-RDMA v1 headers: proc, which lists are present,
    the inline size's order of magnitude."""
    if len(p) < 28:
        return ("short", len(p))
    proc = struct.unpack(">I", p[12:16])[0]
    lists, off = [], 16
    for _ in range(3):
        if off + 4 > len(p):
            break
        present = struct.unpack(">I", p[off:off + 4])[0]
        lists.append(present)
        off += 4 if not present else 4 + 16 * 2   # enough to tell shapes apart
    return (proc, tuple(lists), len(p).bit_length())


def main():
    n_msg = n_cap = 0
    os.makedirs(os.path.join(OUT, "rpcrdma"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "capfile"), exist_ok=True)
    for cap in sorted(glob.glob(os.path.join(TOP, "tests", "captures", "chimera-*.pcap"))):
        name = os.path.basename(cap)[:-5]
        seen = set()
        head, recs, window, first = None, [], [], None
        for i, (hdr, rec, pkt) in enumerate(frames(cap)):
            head = hdr
            if len(recs) < 24:
                recs.append(rec + pkt)
            # and 30 frames around the first multi-packet Send (a message
            # larger than one MTU: Chimera's inline replies past 4 KB)
            window = (window + [rec + pkt])[-34:] if first is None else window
            if first is None and len(pkt) > 56 and pkt[12:14] == b"\x08\x00" and pkt[42] == SEND_FIRST \
                    and pkt[23] == 17:
                first = i
            if first is not None and i - first < 30 and i != first and len(window) < 64:
                window.append(rec + pkt)
            got = rdma_payload(pkt)
            if not got:
                continue
            src, p = got
            k = (src, shape(p))
            if k in seen:
                continue
            seen.add(k)
            with open(os.path.join(OUT, "rpcrdma", "%s-%02d" % (name, len(seen))), "wb") as f:
                f.write(p)
            n_msg += 1
        if head:
            with open(os.path.join(OUT, "capfile", name + "-head.pcap"), "wb") as f:
                f.write(head + b"".join(recs) + (b"".join(window[-64:]) if first is not None else b""))
            n_cap += 1
    print("make-chimera-seeds: %d message seeds, %d capture heads" % (n_msg, n_cap))


if __name__ == "__main__":
    main()
