#!/usr/bin/env python3
"""Independent count of ONC RPC calls and replies over TCP in a classic
pcap, from the TCP payload alone (no nfsrdma code): each direction's bytes
put back in sequence order (the first copy of a byte wins), RFC 5531
record marks walked from the SYN, and per connection the call XIDs of one
side met with the reply XIDs of the other.  Prints
  paired N calls N replies N flows N unsynced N
unsynced: directions with payload and no SYN seen (not counted).
Used by tests/unit/rpc_tcp_pairs.sh.
Usage: rpc_tcp_truth.py FILE.pcap"""
import struct
import sys


def frames(path):
    data = open(path, "rb").read()
    magic = struct.unpack_from("<I", data)[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    linktype = struct.unpack_from(e + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        _, _, cap, _ = struct.unpack_from(e + "IIII", data, off)
        yield linktype, data[off + 16:off + 16 + cap]
        off += 16 + cap


def ip_of(linktype, f):
    if linktype == 1:                       # Ethernet, VLAN tags skipped
        et, k = struct.unpack_from(">H", f, 12)[0], 14
        while et in (0x8100, 0x88a8) and len(f) >= k + 4:
            et, k = struct.unpack_from(">H", f, k + 2)[0], k + 4
        return f[k:] if et == 0x0800 else None
    if linktype == 113:                     # Linux cooked
        return f[16:] if struct.unpack_from(">H", f, 14)[0] == 0x0800 else None
    if linktype in (101, 228):
        return f
    return None


def main(path):
    segs = {}                               # (src, sport, dst, dport) -> [(seq, bytes)]
    isn = {}
    for lt, f in frames(path):
        ip = ip_of(lt, f)
        if not ip or len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack_from(">H", ip, 2)[0]
        if struct.unpack_from(">H", ip, 6)[0] & 0x3fff:
            continue                        # fragments: not here
        t = ip[ihl:tot]
        if len(t) < 20:
            continue
        sport, dport, seq = struct.unpack_from(">HHI", t)
        doff, flags = (t[12] >> 4) * 4, t[13]
        key = (ip[12:16], sport, ip[16:20], dport)
        if flags & 2:
            isn[key] = (seq + 1) & 0xffffffff
        if len(t) > doff:
            segs.setdefault(key, []).append((seq, t[doff:]))
    msgs = {}                               # key -> [(xid, mtype)]
    unsynced = 0
    for key, ss in segs.items():
        if key not in isn:
            unsynced += 1
            continue
        base, buf, have = isn[key], bytearray(), bytearray()
        for seq, p in ss:
            rel = (seq - base) & 0xffffffff
            if rel > 1 << 30:
                continue
            if len(buf) < rel + len(p):
                buf.extend(b"\0" * (rel + len(p) - len(buf)))
                have.extend(b"\0" * (rel + len(p) - len(have)))
            for i, b in enumerate(p):
                if not have[rel + i]:       # the first copy wins
                    buf[rel + i], have[rel + i] = b, 1
        out, k, cur = [], 0, b""
        while k + 4 <= len(buf) and all(have[k:k + 4]):
            m = struct.unpack_from(">I", buf, k)[0]
            n = m & 0x7fffffff
            if k + 4 + n > len(buf) or not all(have[k + 4:k + 4 + n]):
                break
            cur += bytes(buf[k + 4:k + 4 + n])
            k += 4 + n
            if m & 0x80000000:
                if len(cur) >= 8:
                    out.append(struct.unpack_from(">II", cur))
                cur = b""
        msgs[key] = out
    paired = calls = replies = 0
    for key, out in msgs.items():
        calls += sum(1 for _, t in out if t == 0)
        replies += sum(1 for _, t in out if t == 1)
        back = (key[2], key[3], key[0], key[1])
        cx = {x for x, t in out if t == 0}
        rx = {x for x, t in msgs.get(back, []) if t == 1}
        paired += len(cx & rx)
    print("paired %d calls %d replies %d flows %d unsynced %d" % (paired, calls, replies, len(segs), unsynced))


main(sys.argv[1])
