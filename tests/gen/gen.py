#!/usr/bin/env python3
"""Writes the synthetic captures of tests/gen/out/ (see tests/gen/README).

    tests/gen/gen.py [OUTDIR]        default: tests/gen/out

Two kinds of capture:

  conv-*   a real lab capture (tests/gen/src/nfs3-symlink.pcap: CM, SENDs,
           an RDMA READ, RDMA WRITEs, ACKs, DREQ/DREP) re-framed for what
           the lab's soft-RoCE does not produce: native InfiniBand
           (DLT_INFINIBAND 247, with and without GRH), ERF (197) records of
           InfiniBand and Ethernet, RoCEv1, VLAN-tagged and IPv6 RoCEv2,
           Linux SLL and SLL2, and RoCEv2 without its ICRC.  The IB
           transport bytes are copied unchanged; only the framing (and the
           ICRC / VCRC it covers) is rebuilt.
  xdr-*    conversations built here from the XDR of the specifications, for
           what no kernel in the lab speaks: RPC-over-RDMA version 2
           (draft-ietf-nfsv4-rpcrdma-version-two-07, and the -00..-02
           layout), the pNFS RDMA layout, RDMA_ERROR, NLM/NSM/MOUNT over
           RDMA, an NFSv4.1 callback, and one capture per conformance
           finding of nfsrdma-dissect --check.

Stdlib only; the output is byte-for-byte reproducible.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdmawire as w  # noqa: E402
from rdmawire import u32, u64, opaque, string, fh  # noqa: E402
from truth import Truth  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# A frozen copy of the lab capture: regenerating tests/captures/ must not
# change the committed conversions (their goldens are the spec).
SRC = os.path.join(HERE, "src", "nfs3-symlink.pcap")

NFS, MOUNT, NLM, NSM, NFS_CB = 100003, 100005, 100021, 100024, 0x40000000
LAYOUT4_RDMA = 0x80000006


# ==========================================================================
# Re-framing a real capture

def parse_rocev2(frame):
    """Ethernet / IPv4 / UDP 4791 -> (src ip, dst ip, sport, IB bytes w/o
    ICRC, ICRC) or None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    ihl = (frame[14] & 15) * 4
    u = 14 + ihl
    sport, dport, ulen = struct.unpack_from(">HHH", frame, u)
    if dport != 4791:
        return None
    ib = frame[u + 8:u + ulen - 4]
    return frame[26:30], frame[30:34], sport, ib, frame[u + ulen - 4:u + ulen]


def converted(framing):
    """The lab capture's RoCEv2 frames, re-framed.  Non-RoCE frames (ARP,
    ICMPv6) are dropped."""
    _, frames = w.pcap_read(SRC)
    eps = {}
    out = []
    for ts, fr in frames:
        r = parse_rocev2(fr)
        if not r:
            continue
        src, dst, sport, ib, crc = r
        for a in (src, dst):
            if a not in eps:
                eps[a] = w.endpoint(a[3])
        eps[src].sport = sport
        p = w.Packet(eps[src], eps[dst], ib, ts)
        # The original ICRC must be what we compute from the original
        # headers: proves the ICRC code the new framings use.
        if w.roce_v2_icrc_of(fr[14:]) != crc:
            raise SystemExit("gen: ICRC mismatch in %s at %d" % (SRC, ts))
        out.append((ts, framing(p)))
    return out


def client_side(p):
    return p.src.idx == 2


CONVERSIONS = {
    # name: (linktype, framing)
    "conv-ib-lrh": (w.LINKTYPE_INFINIBAND, lambda p: w.ib_native(p, False)),
    "conv-ib-grh": (w.LINKTYPE_INFINIBAND, lambda p: w.ib_native(p, True)),
    "conv-erf-ib": (w.LINKTYPE_ERF, None),   # needs the timestamp: see below
    "conv-erf-eth": (w.LINKTYPE_ERF, None),
    "conv-rocev1": (w.LINKTYPE_ETHERNET, lambda p: w.eth(p, 0x8915, w.roce_v1(p))),
    "conv-vlan": (w.LINKTYPE_ETHERNET, lambda p: w.eth(p, 0x0800, w.roce_v2_ip4(p), vlan=(3 << 13) | 100)),
    "conv-ipv6": (w.LINKTYPE_ETHERNET, lambda p: w.eth(p, 0x86dd, w.roce_v2_ip6(p))),
    "conv-sll": (w.LINKTYPE_LINUX_SLL, lambda p: w.sll(p, 0x0800, w.roce_v2_ip4(p), client_side(p))),
    "conv-sll2": (w.LINKTYPE_LINUX_SLL2, lambda p: w.sll2(p, 0x0800, w.roce_v2_ip4(p), client_side(p))),
    "conv-no-icrc": (w.LINKTYPE_ETHERNET, lambda p: w.eth(p, 0x0800, w.roce_v2_ip4(p, with_icrc=False))),
}


def write_conversions(outdir):
    for name, (lt, fn) in sorted(CONVERSIONS.items()):
        if name == "conv-erf-ib":
            frames = [(ts, w.erf_record(ts, 21, body)) for ts, body in converted(lambda p: w.ib_native(p, False))]
        elif name == "conv-erf-eth":
            frames = [(ts, w.erf_record(ts, 2, b"\0\0" + body))
                      for ts, body in converted(lambda p: w.eth(p, 0x0800, w.roce_v2_ip4(p)))]
        else:
            frames = converted(fn)
        save(outdir, name, lt, frames)


# ==========================================================================
# Conversations from the XDR

def save(outdir, name, linktype, frames):
    with open(os.path.join(outdir, name + ".pcap"), "wb") as f:
        f.write(w.pcap_bytes(linktype, frames))


def save_rc(outdir, name, rc):
    save(outdir, name, w.LINKTYPE_ETHERNET,
         [(p.ts, w.eth(p, 0x0800, w.roce_v2_ip4(p))) for p in rc.out])


def session(params=(True, 4096, 4096, True, 4096, 4096)):
    clk = w.Clock()
    client, server = w.endpoint(2, sport=0xc011), w.endpoint(1, sport=0xc012)
    rc = w.RC(clk, client, server, cqpn=0x11, sqpn=0x12)
    rc.cm_connect(params)
    return rc


class Xids:
    def __init__(self, first=0x5a000001):
        self.n = first

    def __call__(self):
        self.n += 1
        return self.n - 1


def va(xid, off=0):
    """Linux puts the XID in the top 32 bits of segment offsets."""
    return (xid << 32) | 0x7f000000 | off


def exchange(rc, call, reply, think_us=30.0):
    rc.send(0, call)
    rc.clock.tick(think_us)
    rc.send(1, reply)


# ---- NFS encoders ----------------------------------------------------------

FATTR3 = (u32(1) + u32(0o644) + u32(1) + u32(0) + u32(0) + u64(4099) + u64(8192) + u32(0) + u32(0) +
          u64(0x42) + u64(0x1234) + (u32(1_700_000_000) + u32(0)) * 3)
assert len(FATTR3) == 84


def nfs3(xid, proc, args):
    return w.rpc_call(xid, NFS, 3, proc) + args


def nfs3_read_args(fhseed, off, count):
    return opaque(fh(fhseed)) + u64(off) + u32(count)


def nfs3_read_res(count, eof, data=None):
    """READ3resok; data None = moved by a Write chunk (length word stays)."""
    return u32(0) + u32(1) + FATTR3 + u32(count) + u32(eof) + (u32(count) if data is None else opaque(data))


def nfs3_write_args(fhseed, off, data, inline=True):
    b = opaque(fh(fhseed)) + u64(off) + u32(len(data)) + u32(2)
    return b + (opaque(data) if inline else u32(len(data)))


def nfs3_write_res(count):
    return u32(0) + u32(0) + u32(0) + u32(count) + u32(2) + u64(0x5eed)


def nfs3_getattr_res():
    return u32(0) + FATTR3


SESSION = bytes(range(0x30, 0x40))
STATEID = u32(1) + bytes(range(0x60, 0x6c))


def compound(minor, ops, tag=b""):
    return opaque(tag) + u32(minor) + u32(len(ops)) + b"".join(ops)


def compound_res(ops, status=0, tag=b""):
    return u32(status) + opaque(tag) + u32(len(ops)) + b"".join(ops)


def op_sequence(seq, slot=0):
    return u32(53) + SESSION + u32(seq) + u32(slot) + u32(0) + u32(0)


def res_sequence(seq, slot=0):
    return u32(53) + u32(0) + SESSION + u32(seq) + u32(slot) + u32(63) + u32(63) + u32(0)


def op_putfh(seed):
    return u32(22) + opaque(fh(seed))


RES_PUTFH = u32(22) + u32(0)


def nfs4(xid, minor, ops):
    return w.rpc_call(xid, NFS, 4, 1) + compound(minor, ops)


# ==========================================================================
# RPC-over-RDMA version 2

def v2_prefix(xid, credits, htype):
    return u32(xid) + u32(2) + u32(credits) + u32(htype)


def v2_props(props):
    return u32(len(props)) + b"".join(u32(i) + opaque(v) for i, v in props)


def xdr07(outdir):
    """draft-ietf-nfsv4-rpcrdma-version-two-07: every header type."""
    rc = session(params=None)
    x = Xids(0x7e000001)
    cr = [0, 0]     # cumulative credit values (section 4.2.1)

    def credit(d, n=1):
        cr[d] += n
        return cr[d] + 32

    # Connection greeting: each peer's properties (CONNPROP_FINAL), the
    # server's in a MIDDLE + FINAL pair; then a GRANT.
    rc.tag = (None, "conn")     # no RPC: not in the truth
    rc.send(0, v2_prefix(0, credit(0), 7) + v2_props([(1, u32(4096)), (2, u32(8192)), (5, u32(1))]))
    rc.send(1, v2_prefix(0, credit(1), 6) + v2_props([(1, u32(8192)), (2, u32(4096))]))
    rc.send(1, v2_prefix(0, credit(1), 7) + v2_props([(3, u32(1 << 20)), (4, u32(16)), (5, u32(1))]))
    rc.send(1, v2_prefix(0, credit(1, 0), 5))
    rc.tag = None

    # CALL_INLINE / REPLY_INLINE: NFSv3 GETATTR
    xid = x()
    exchange(rc, v2_prefix(xid, credit(0), 10) + u32(0) + u32(0) + u32(0) + u32(0) + nfs3(xid, 1, opaque(fh(1))),
             v2_prefix(xid, credit(1), 13) + u32(0) + w.rpc_reply(xid) + nfs3_getattr_res())

    # READ with a provisional Write chunk (remote invalidation solicited)
    xid = x()
    h = 0x1000 + (xid & 0xff)
    call = (v2_prefix(xid, credit(0), 10) + u32(h) + u32(0) + w.write_list([[(h, 8192, va(xid))]]) + u32(0) +
            nfs3(xid, 6, nfs3_read_args(1, 0, 8192)))
    rc.send(0, call)
    rc.clock.tick(20)
    rc.write(1, h, va(xid), b"\xab" * 8192)
    rc.send(1, v2_prefix(xid, credit(1), 13) + w.write_list([[(h, 8192, va(xid))]]) + w.rpc_reply(xid) +
            nfs3_read_res(8192, 0), inv_rkey=h)

    # WRITE with a Read chunk at the data position
    xid = x()
    h = 0x2000 + (xid & 0xff)
    data = bytes((i * 13) & 0xff for i in range(6000))
    rpc = nfs3(xid, 7, nfs3_write_args(1, 8192, data, inline=False))
    rc.send(0, v2_prefix(xid, credit(0), 10) + u32(0) + w.read_list([(len(rpc), h, 6000, va(xid))]) +
            u32(0) + u32(0) + rpc)
    rc.read(1, h, va(xid), data)
    rc.send(1, v2_prefix(xid, credit(1), 13) + u32(0) + w.rpc_reply(xid) + nfs3_write_res(6000))

    # CALL_EXTERNAL (the whole call in the Call chunk) / REPLY_EXTERNAL
    # (the whole reply in the Reply chunk): LOOKUP of a long name, answered
    # with a long error reply (post_op_attr of the directory)
    xid = x()
    hc, hr = 0x3000 + (xid & 0xff), 0x3100 + (xid & 0xff)
    rpc = nfs3(xid, 3, opaque(fh(1)) + string("n" * 255))
    rep = w.rpc_reply(xid) + u32(2) + u32(1) + FATTR3
    rc.send(0, v2_prefix(xid, credit(0), 8) + u32(0) + w.read_list([(0, hc, len(rpc), va(xid))]) + u32(0) +
            u32(0) + w.reply_chunk([(hr, 8192, va(xid, 0x4000))]))
    rc.read(1, hc, va(xid), rpc)
    rc.clock.tick(20)
    rc.write(1, hr, va(xid, 0x4000), rep)
    rc.send(1, v2_prefix(xid, credit(1), 11) + u32(0) + w.reply_chunk([(hr, len(rep), va(xid, 0x4000))]))

    # Message continuation: a 6000-byte WRITE call in CALL_MIDDLE +
    # CALL_INLINE, and a READ reply in REPLY_MIDDLE + REPLY_INLINE
    xid = x()
    rpc = nfs3(xid, 7, nfs3_write_args(1, 16384, data))
    first, rest = rpc[:3000], rpc[3000:]
    rc.send(0, v2_prefix(xid, credit(0), 9) + u32(len(rest)) + first)
    rc.send(0, v2_prefix(xid, credit(0), 10) + u32(0) + u32(0) + u32(0) + u32(0) + rest)
    rc.clock.tick(30)
    rc.send(1, v2_prefix(xid, credit(1), 13) + u32(0) + w.rpc_reply(xid) + nfs3_write_res(6000))
    xid = x()
    rc.send(0, v2_prefix(xid, credit(0), 10) + u32(0) + u32(0) + u32(0) + u32(0) + nfs3(xid, 6, nfs3_read_args(1, 0, 6000)))
    rc.clock.tick(30)
    rpc = w.rpc_reply(xid) + nfs3_read_res(6000, 1, data)
    first, rest = rpc[:3500], rpc[3500:]
    rc.send(1, v2_prefix(xid, credit(1), 12) + u32(len(rest)) + first)
    rc.send(1, v2_prefix(xid, credit(1), 13) + u32(0) + rest)

    # RDMA2_ERROR: the Write chunk is too small for the READ result
    xid = x()
    h = 0x4000 + (xid & 0xff)
    exchange(rc, v2_prefix(xid, credit(0), 10) + u32(0) + u32(0) + w.write_list([[(h, 4096, va(xid))]]) + u32(0) +
             nfs3(xid, 6, nfs3_read_args(1, 0, 65536)),
             v2_prefix(xid, credit(1), 4) + u32(9) + u32(1) + u32(65536))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-v2-draft07", rc)
    t = Truth()
    t.finding(0x7e000007, "rdma-error", v2=True)
    t.write(outdir, "xdr-v2-draft07", rc.out)


def xdr00(outdir):
    """The -00..-02 layout: a flags word after the common prefix (F_RESPONSE
    1, F_MORE 2), RDMA2_MSG 0 / NOMSG 1 / ERROR 4 / CONNPROP 5 / GRANT 6, and
    rdma_inv_handle first in the chunk lists."""
    rc = session(params=None)
    x = Xids(0x70000001)
    RESP, MORE = 1, 2

    def lists(reads=(), writes=(), reply=None, inv=0):
        return u32(inv) + w.read_list(reads) + w.write_list(writes) + w.reply_chunk(reply)

    rc.tag = (None, "conn")
    rc.send(0, v2_prefix(0, 32, 5) + u32(0) + v2_props([(1, u32(4096)), (2, u32(4096))]))
    rc.send(1, v2_prefix(0, 32, 5) + u32(RESP) + v2_props([(1, u32(4096)), (2, u32(4096)), (4, u32(8))]))
    rc.send(1, v2_prefix(0, 32, 6) + u32(0))
    rc.tag = None
    xid = x()
    exchange(rc, v2_prefix(xid, 32, 0) + u32(0) + lists() + nfs3(xid, 1, opaque(fh(2))),
             v2_prefix(xid, 32, 0) + u32(RESP) + lists() + w.rpc_reply(xid) + nfs3_getattr_res())
    xid = x()
    h = 0x1100 + (xid & 0xff)
    rc.send(0, v2_prefix(xid, 32, 0) + u32(0) + lists(writes=[[(h, 4096, va(xid))]], inv=h) +
            nfs3(xid, 6, nfs3_read_args(2, 0, 4096)))
    rc.write(1, h, va(xid), b"\x5a" * 4096)
    rc.send(1, v2_prefix(xid, 32, 0) + u32(RESP) + lists(writes=[[(h, 4096, va(xid))]]) + w.rpc_reply(xid) +
            nfs3_read_res(4096, 1))
    # RDMA2_NOMSG call: the RPC in a position-zero Read chunk; the reply in
    # the Reply chunk
    xid = x()
    hc, hr = 0x1200 + (xid & 0xff), 0x1300 + (xid & 0xff)
    rpc = nfs3(xid, 3, opaque(fh(2)) + string("m" * 200))
    rep = w.rpc_reply(xid) + u32(2) + u32(1) + FATTR3
    rc.send(0, v2_prefix(xid, 32, 1) + u32(0) + lists(reads=[(0, hc, len(rpc), va(xid))],
                                                      reply=[(hr, 4096, va(xid, 0x2000))]))
    rc.read(1, hc, va(xid), rpc)
    rc.write(1, hr, va(xid, 0x2000), rep)
    rc.send(1, v2_prefix(xid, 32, 1) + u32(RESP) + lists(reply=[(hr, len(rep), va(xid, 0x2000))]))
    # F_MORE: a call continued in a second RDMA2_MSG
    xid = x()
    data = bytes((i * 7) & 0xff for i in range(5000))
    rpc = nfs3(xid, 7, nfs3_write_args(2, 0, data))
    rc.send(0, v2_prefix(xid, 32, 0) + u32(MORE) + lists() + rpc[:2500])
    rc.send(0, v2_prefix(xid, 32, 0) + u32(0) + lists() + rpc[2500:])
    rc.send(1, v2_prefix(xid, 32, 0) + u32(RESP) + lists() + w.rpc_reply(xid) + nfs3_write_res(5000))
    # RDMA2_ERROR: too many segments
    xid = x()
    segs = [(0x1400 + i, 512, va(xid, i * 512)) for i in range(24)]
    exchange(rc, v2_prefix(xid, 32, 0) + u32(0) + lists(writes=[segs]) + nfs3(xid, 6, nfs3_read_args(2, 0, 12288)),
             v2_prefix(xid, 32, 4) + u32(RESP) + u32(8) + u32(16))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-v2-draft00", rc)
    t = Truth()
    t.finding(0x70000005, "rdma-error", v2=True)
    t.write(outdir, "xdr-v2-draft00", rc.out)


# ==========================================================================
# Version 1: RDMA_ERROR, pNFS RDMA layout, auxiliary programs, callback

def rdma1_call(xid, rpc, reads=(), writes=(), reply=None, proc=w.RDMA_MSG, credits=128):
    return w.rdma1(xid, credits, proc, reads, writes, reply) + rpc


def rdma1_reply(xid, rpc, writes=(), credits=32, proc=w.RDMA_MSG, reply=None):
    return w.rdma1(xid, credits, proc, (), writes, reply) + rpc


def xdr_rdma_error(outdir):
    rc = session()
    x = Xids(0x6e000001)
    xid = x()
    exchange(rc, rdma1_call(xid, nfs3(xid, 0, b"")), rdma1_reply(xid, w.rpc_reply(xid)))
    # A version 2 call to a version 1 server: ERR_VERS (1..1)
    xid = x()
    exchange(rc, v2_prefix(xid, 33, 10) + u32(0) * 4 + nfs3(xid, 1, opaque(fh(3))),
             w.rdma1_error(xid, 32, 1, 1, 1))
    # The client falls back to version 1
    xid = x()
    exchange(rc, rdma1_call(xid, nfs3(xid, 1, opaque(fh(3)))), rdma1_reply(xid, w.rpc_reply(xid) + nfs3_getattr_res()))
    # A call whose chunks the server cannot handle: ERR_CHUNK
    xid = x()
    reads = [(112 + 16 * i, 0x2200 + i, 16, va(xid, 16 * i)) for i in range(8)]
    exchange(rc, rdma1_call(xid, nfs3(xid, 7, nfs3_write_args(3, 0, b"\1" * 128, inline=False)), reads=reads),
             w.rdma1_error(xid, 32, 2))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-rdma-error", rc)
    t = Truth()
    t.finding(0x6e000002, "rdma-error")
    t.finding(0x6e000004, "rdma-error")
    t.write(outdir, "xdr-rdma-error", rc.out)


def xdr_pnfs(outdir):
    rc = session()
    x = Xids(0x6f000001)
    devid = bytes(range(0xd0, 0xe0))
    xid = x()
    la = u32(50) + u32(0) + u32(LAYOUT4_RDMA) + u32(2) + u64(0) + u64(1 << 20) + u64(4096) + STATEID + u32(4096)
    ext = [(0, 0x8001, 1 << 19, 0x10000000, 0), (1 << 19, 0x8002, 1 << 19, 0x20000000, 2)]
    body = u32(len(ext)) + b"".join(devid + u64(o) + u32(hh) + u64(n) + u64(so) + u32(st) for o, hh, n, so, st in ext)
    lr = (u32(50) + u32(0) + u32(0) + STATEID + u32(1) + u64(0) + u64(1 << 20) + u32(2) + u32(LAYOUT4_RDMA) +
          opaque(body))
    exchange(rc, rdma1_call(xid, nfs4(xid, 1, [op_sequence(1), op_putfh(5), la])),
             rdma1_reply(xid, w.rpc_reply(xid) + compound_res([res_sequence(1), RES_PUTFH, lr])))
    xid = x()
    gdi = u32(47) + devid + u32(LAYOUT4_RDMA) + u32(4096) + u32(0)
    addr = string("rdma") + string("10.9.0.3.78.81")
    gdr = u32(47) + u32(0) + u32(LAYOUT4_RDMA) + opaque(addr) + u32(0)
    exchange(rc, rdma1_call(xid, nfs4(xid, 1, [op_sequence(2), gdi])),
             rdma1_reply(xid, w.rpc_reply(xid) + compound_res([res_sequence(2), gdr])))
    xid = x()
    upd = u32(1) + u64(0) + u64(65536)
    lc = (u32(49) + u64(0) + u64(65536) + u32(0) + STATEID + u32(1) + u64(65535) + u32(0) +
          u32(LAYOUT4_RDMA) + opaque(upd))
    exchange(rc, rdma1_call(xid, nfs4(xid, 1, [op_sequence(3), op_putfh(5), lc])),
             rdma1_reply(xid, w.rpc_reply(xid) + compound_res([res_sequence(3), RES_PUTFH,
                                                                u32(49) + u32(0) + u32(1) + u64(65536)])))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-pnfs-rdma-layout", rc)
    Truth().write(outdir, "xdr-pnfs-rdma-layout", rc.out)


def xdr_aux(outdir):
    """MOUNT, NLM and NSM over RDMA (RFC 8267 gives them no binding, but
    nothing stops a client from sending them on the connection)."""
    rc = session()
    x = Xids(0x6d000001)
    xid = x()
    exchange(rc, rdma1_call(xid, w.rpc_call(xid, MOUNT, 3, 1) + string("/export")),
             rdma1_reply(xid, w.rpc_reply(xid) + u32(0) + opaque(fh(9)) + u32(1) + u32(1)))
    xid = x()
    lock = string("client") + opaque(fh(9)) + opaque(b"owner-1") + u32(42) + u64(0) + u64(4096)
    exchange(rc, rdma1_call(xid, w.rpc_call(xid, NLM, 4, 2) + opaque(b"ck01") + u32(1) + u32(1) + lock +
                            u32(0) + u32(3)),
             rdma1_reply(xid, w.rpc_reply(xid) + opaque(b"ck01") + u32(0)))
    xid = x()
    mon = string("client") + string("server") + u32(100021) + u32(4) + u32(16) + b"\0" * 16
    exchange(rc, rdma1_call(xid, w.rpc_call(xid, NSM, 1, 2) + mon),
             rdma1_reply(xid, w.rpc_reply(xid) + u32(0) + u32(3)))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-mount-nlm-nsm", rc)
    Truth().write(outdir, "xdr-mount-nlm-nsm", rc.out)


def xdr_rpcbind(outdir):
    """rpcbind (RFC 1833) over RDMA: portmap v2 GETPORT answered and
    SET refused, DUMP; rpcbind v3 GETADDR of nothing registered; v4
    GETADDRLIST and an INDIRECT call."""
    PMAP = 100000
    rc = session()
    x = Xids(0x70000001)

    def call(vers, proc, args, res):
        xid = x()
        exchange(rc, rdma1_call(xid, w.rpc_call(xid, PMAP, vers, proc) + args),
                 rdma1_reply(xid, w.rpc_reply(xid) + res))

    def rpcb(prog, vers, netid, addr, owner):
        return u32(prog) + u32(vers) + string(netid) + string(addr) + string(owner)
    call(2, 3, u32(MOUNT) + u32(3) + u32(6) + u32(0), u32(20048))
    call(2, 1, u32(NFS) + u32(3) + u32(17) + u32(2049), u32(0))
    maps = [(PMAP, 2, 6, 111), (NFS, 3, 6, 2049), (MOUNT, 3, 17, 20048)]
    call(2, 4, b"", b"".join(u32(1) + u32(p) + u32(v) + u32(t) + u32(o) for p, v, t, o in maps) + u32(0))
    call(3, 3, rpcb(NLM, 4, "tcp", "", "superuser"), string(""))
    entries = [("10.9.0.1.8.1", "tcp", 3, "inet", "tcp"), ("10.9.0.1.8.1", "udp", 1, "inet", "udp")]
    call(4, 11, rpcb(NFS, 3, "", "", "superuser"),
         b"".join(u32(1) + string(a) + string(n) + u32(sem) + string(f) + string(pr)
                  for a, n, sem, f, pr in entries) + u32(0))
    call(4, 10, u32(NSM) + u32(1) + u32(0) + opaque(b""), string("10.9.0.1.3.32") + opaque(b""))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-rpcbind", rc)
    Truth().write(outdir, "xdr-rpcbind", rc.out)


def xdr_callback(outdir):
    """NFSv4.1: a forward SEQUENCE, then the server recalls a delegation on
    the same connection (RFC 8167 reverse direction)."""
    rc = session()
    x = Xids(0x6c000001)
    xid = x()
    exchange(rc, rdma1_call(xid, nfs4(xid, 1, [op_sequence(7)])),
             rdma1_reply(xid, w.rpc_reply(xid) + compound_res([res_sequence(7)])))
    cxid = 0x0c000001
    cb = (opaque(b"") + u32(1) + u32(1) + u32(2) +
          u32(11) + SESSION + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) +     # CB_SEQUENCE
          u32(4) + STATEID + u32(0) + opaque(fh(5)))                           # CB_RECALL
    rc.tag = ((cxid, 0), "call")        # the backchannel: the server calls
    rc.send(1, w.rdma1(cxid, 1, w.RDMA_MSG) + w.rpc_call(cxid, NFS_CB, 1, 1, cred=w.AUTH_NONE) + cb)
    rc.clock.tick(40)
    rc.tag = ((cxid, 0), "reply")
    rc.send(0, w.rdma1(cxid, 1, w.RDMA_MSG) + w.rpc_reply(cxid) + u32(0) + opaque(b"") + u32(2) +
            u32(11) + u32(0) + SESSION + u32(1) + u32(0) + u32(0) + u32(0) + u32(4) + u32(0))
    rc.tag = None
    xid = x()
    exchange(rc, rdma1_call(xid, nfs4(xid, 1, [op_sequence(8), op_putfh(5), u32(8) + STATEID])),
             rdma1_reply(xid, w.rpc_reply(xid) + compound_res([res_sequence(8), RES_PUTFH, u32(8) + u32(0)])))
    rc.cm_disconnect()
    save_rc(outdir, "xdr-nfs41-callback", rc)
    t = Truth()
    t.flag((cxid, 0), "backchannel")
    t.write(outdir, "xdr-nfs41-callback", rc.out)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "out")
    os.makedirs(out, exist_ok=True)
    write_conversions(out)
    xdr07(out)
    xdr00(out)
    xdr_rdma_error(out)
    xdr_pnfs(out)
    xdr_aux(out)
    xdr_rpcbind(out)
    xdr_callback(out)
    import gen_findings
    gen_findings.write_all(out)
    import gen_timing
    gen_timing.write_all(out)
    damaged_copies(out)
    import ipoib
    ipoib.write(out, save)


def damaged_copies(outdir):
    """dmg-*: the frozen lab capture with one damage each (damaged.py):
    dmg-vers7    RPC-over-RDMA version 7 in the calls of frames 49
                 (FSINFO, inline), 77 (SYMLINK, Read chunk the server
                 pulls) and 95 (READLINK, Reply chunk it writes)
    dmg-snap128  every frame cut to 128 bytes, like editcap -s 128"""
    import damaged
    _, frames = w.pcap_read(SRC)
    for name, snaplen, fr in (("dmg-vers7", 262144, damaged.with_version(frames, {49, 77, 95}, 7)),
                              ("dmg-snap128", 128, damaged.snapped(frames, 128))):
        with open(os.path.join(outdir, name + ".pcap"), "wb") as f:
            f.write(damaged.pcap_bytes(w.LINKTYPE_ETHERNET, fr, snaplen))


if __name__ == "__main__":
    main()
