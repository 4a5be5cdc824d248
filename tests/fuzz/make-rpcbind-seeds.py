#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz_rpcbind (tests/fuzz/seeds/rpcbind/)
from RFC 1833's XDR: byte 0 bit 0 = reply, byte 1 = procedure + 24 *
(version - 2) (fuzz_rpcbind.c), then the body.  The GETPORT pair is the
lab mount's (tests/captures/nfs3-metadata.pcap frames 21 and 23).
    tests/fuzz/make-rpcbind-seeds.py"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "rpcbind")


def u32(v):
    return struct.pack(">I", v)


def opaque(b):
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)


def s(x):
    return opaque(x.encode())


def rpcb(prog, vers, netid, addr, owner):
    return u32(prog) + u32(vers) + s(netid) + s(addr) + s(owner)


def seed(name, vers, proc, reply, body):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes([1 if reply else 0, proc + 24 * (vers - 2)]) + body)


def main():
    os.makedirs(OUT, exist_ok=True)
    seed("v2-getport-call-lab", 2, 3, False, u32(100005) + u32(3) + u32(6) + u32(0))
    seed("v2-getport-reply-lab-41953", 2, 3, True, u32(41953))
    seed("v2-set-call", 2, 1, False, u32(100003) + u32(3) + u32(17) + u32(2049))
    seed("v2-set-reply-false", 2, 1, True, u32(0))
    maps = [(100000, 2, 6, 111), (100003, 3, 6, 2049), (100005, 3, 17, 20048)]
    seed("v2-dump-reply", 2, 4, True,
         b"".join(u32(1) + u32(p) + u32(v) + u32(t) + u32(o) for p, v, t, o in maps) + u32(0))
    seed("v2-callit-call", 2, 5, False, u32(100003) + u32(3) + u32(0) + opaque(b""))
    seed("v2-callit-reply", 2, 5, True, u32(2049) + opaque(b"abc"))
    seed("v3-getaddr-call", 3, 3, False, rpcb(100021, 4, "tcp", "", "superuser"))
    seed("v3-getaddr-reply", 3, 3, True, s("10.9.0.1.8.1"))
    seed("v3-uaddr2taddr-call", 3, 7, False, s("10.9.0.1.8.1"))
    seed("v3-uaddr2taddr-reply", 3, 7, True, u32(16) + opaque(bytes([0, 2, 8, 1, 10, 9, 0, 1])))
    seed("v4-set-call", 4, 1, False, rpcb(100005, 3, "tcp6", "::.78.80", "0"))
    seed("v4-dump-reply", 4, 4, True,
         u32(1) + rpcb(100000, 4, "tcp", "0.0.0.0.0.111", "superuser") +
         u32(1) + rpcb(100003, 4, "rdma", "10.9.0.1.78.80", "superuser") + u32(0))
    ents = [("10.9.0.1.8.1", "tcp", 3, "inet", "tcp"), ("10.9.0.1.8.1", "udp", 1, "inet", "udp")]
    seed("v4-getaddrlist-reply", 4, 11, True,
         b"".join(u32(1) + s(a) + s(n) + u32(m) + s(f) + s(p) for a, n, m, f, p in ents) + u32(0))
    seed("v4-indirect-call", 4, 10, False, u32(100024) + u32(1) + u32(0) + opaque(b"args"))
    seed("v4-indirect-reply", 4, 10, True, s("10.9.0.1.3.32") + opaque(b"res"))
    st = b""
    for v in range(3):   # rpcb_stat_byvers: v2, v3, v4
        st += b"".join(u32(i) for i in range(13)) + u32(1) + u32(0)
        if v == 2:
            st += u32(1) + u32(100003) + u32(3) + u32(5) + u32(0) + s("tcp") + u32(0)
            st += u32(1) + u32(100024) + u32(1) + u32(0) + u32(1) + u32(0) + u32(1) + s("udp") + u32(0)
        else:
            st += u32(0) + u32(0)
    seed("v4-getstat-reply", 4, 12, True, st)


if __name__ == "__main__":
    main()
