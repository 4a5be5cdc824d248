#!/usr/bin/env python3
"""tests/systemd/inject.py IFACE CAPTURE.pcap [MALFORMED]

Replays every frame of a classic pcap (Ethernet link type) onto IFACE
through a raw AF_PACKET socket, the way tests/bpf/test_xdp_live.c does, so
the far end of a veth pair receives the capture's frames byte for byte.
Then sends MALFORMED (default 0) extra RoCEv2 frames too short to hold a
BTH: UDP to port 4791 with 4 bytes of transport after the ICRC, which the
XDP program counts as malformed (xdp_stats XS_MALFORMED).

Paced: a pause every 16 frames keeps the receiver's veth NAPI ring (256
frames) from overflowing; the point is to test the daemon, not the
sender's speed.  Prints "sent N frames (M malformed)" and exits 0 only if
every frame went out whole.  The capture is untrusted: a record whose
length runs past the file, or past 65535 bytes, ends the replay with a
one-line error naming the record and its offset.
"""
import socket
import struct
import sys
import time

MAGICS = {  # magic as read little-endian -> (byte order, ns resolution)
    0xa1b2c3d4: ("<", False), 0xa1b23c4d: ("<", True),
    0xd4c3b2a1: (">", False), 0x4d3cb2a1: (">", True),
}


def frames(path):
    with open(path, "rb") as f:
        d = f.read()
    if len(d) < 24:
        sys.exit(f"inject: {path}: {len(d)} bytes, no pcap header")
    magic = struct.unpack_from("<I", d, 0)[0]
    if magic not in MAGICS:
        sys.exit(f"inject: {path}: not a classic pcap (magic 0x{magic:08x})")
    bo = MAGICS[magic][0]
    linktype = struct.unpack_from(bo + "I", d, 20)[0] & 0x0fffffff
    if linktype != 1:
        sys.exit(f"inject: {path}: link type {linktype}, only Ethernet (1) can go on a veth")
    off, n = 24, 0
    while off < len(d):
        if off + 16 > len(d):
            sys.exit(f"inject: {path}: record {n + 1} at offset {off}: truncated header")
        cap = struct.unpack_from(bo + "I", d, off + 8)[0]
        if cap > 65535 or off + 16 + cap > len(d):
            sys.exit(f"inject: {path}: record {n + 1} at offset {off}: length {cap} runs past the file")
        n += 1
        yield d[off + 16:off + 16 + cap]
        off += 16 + cap


def malformed(i):
    """Ethernet/IPv4/UDP 4791 with 8 bytes of payload: 4 of transport
    after the 4-byte ICRC, less than a 12-byte BTH."""
    payload = bytes(8)
    udp = struct.pack("!HHHH", 49152 + i, 4791, 8 + len(payload), 0)
    tot = 20 + len(udp) + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, i, 0x4000, 64, 17, 0,
                     bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]))
    s = sum(struct.unpack("!10H", ip))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    ip = ip[:10] + struct.pack("!H", ~s & 0xffff) + ip[12:]
    eth = bytes.fromhex("02000000aa02" "02000000aa01") + struct.pack("!H", 0x0800)
    return eth + ip + udp + payload


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: inject.py IFACE CAPTURE.pcap [MALFORMED]")
    ifname, path = sys.argv[1], sys.argv[2]
    nbad = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.bind((ifname, 0))
    sent = 0
    todo = list(frames(path)) + [malformed(i) for i in range(nbad)]
    for f in todo:
        if s.send(f) != len(f):
            sys.exit(f"inject: {ifname}: frame {sent + 1}: short send")
        sent += 1
        if sent % 16 == 0:
            time.sleep(0.002)
    print(f"sent {sent} frames ({nbad} malformed)")


if __name__ == "__main__":
    main()
