"""One capture per conformance finding of nfsrdma-dissect --check
(docs/checks.md), each with the truth of what it injected (truth.py):
xdr-f-NAME.pcap and xdr-f-NAME.truth.json.  Every capture opens with a
NULL, like every Linux mount, then the offending exchange.
"""
import gen as g
import rdmawire as w
from rdmawire import u32, u64, opaque, fh
from truth import Truth


def one(name, xid):
    t = Truth()
    t.finding(xid, name)
    return t


def case_not_ddp_eligible(new):
    """not-ddp-eligible: a Write chunk on GETATTR, a Read chunk on LOOKUP"""
    rc, x = new()
    xid = x()
    g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(1))), writes=[[(0x3301, 4096, g.va(xid))]]),
             g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res(), writes=[[(0x3301, 0, g.va(xid))]]))
    xid = x()
    rpc = g.nfs3(xid, 3, opaque(fh(1)))
    name = b"a-name-sent-by-rdma"
    rc.send(0, g.rdma1_call(xid, rpc + u32(len(name)), reads=[(len(rpc) + 4, 0x3302, len(name), g.va(xid))]))
    rc.read(1, 0x3302, g.va(xid), name)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + u32(2) + u32(0)))
    t = one("not-ddp-eligible", xid - 1)
    t.finding(xid, "not-ddp-eligible")
    return rc, t


def case_write_list_mismatch(new):
    """write-list-mismatch: two Write chunks for a COMPOUND with one READ"""
    rc, x = new()
    xid = x()
    h1, h2 = 0x3401, 0x3402
    rpc = g.nfs4(xid, 1, [g.op_sequence(1), g.op_putfh(4), u32(25) + g.STATEID + u64(0) + u32(4096)])
    rc.send(0, g.rdma1_call(xid, rpc, writes=[[(h1, 4096, g.va(xid))], [(h2, 4096, g.va(xid, 0x1000))]]))
    rc.write(1, h1, g.va(xid), b"\x44" * 4096)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.compound_res([g.res_sequence(1), g.RES_PUTFH,
                                                                u32(25) + u32(0) + u32(1) + u32(4096)]),
                           writes=[[(h1, 4096, g.va(xid))], [(h2, 0, g.va(xid, 0x1000))]]))
    return rc, one("write-list-mismatch", xid)


def case_write_roundup(new):
    """write-roundup: a READ of 8192 bytes at the end of the file gets 4099;
    the server returns the Write chunk's length rounded up to 4100"""
    rc, x = new()
    xid = x()
    h = 0x3501
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(5, 0, 8192)), writes=[[(h, 8192, g.va(xid))]]))
    rc.write(1, h, g.va(xid), b"\x55" * 4099)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(4099, 1), writes=[[(h, 4100, g.va(xid))]]))
    return rc, one("write-roundup", xid)


def case_write_pad_segment(new, body=4099, pad=4, fires=True):
    """write-pad-segment: the Linux client (since 5.16) adds a 4-byte
    segment for the XDR pad to a Write chunk of unaligned length; the
    server writes 4099 bytes and returns the lengths it wrote.  The edges
    (PAD_EDGES): a last segment of 1..4 bytes that covers the pad fires,
    one of 5, or too short for the pad, does not."""
    rc, x = new()
    xid = x()
    h, hp = 0x3511, 0x3510
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(5, 0, body)),
                          writes=[[(h, body, g.va(xid)), (hp, pad, 0x7fff0000)]]))
    rc.write(1, h, g.va(xid), b"\x55" * body)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(body, 1),
                           writes=[[(h, body, g.va(xid)), (hp, 0, 0x7fff0000)]]))
    return rc, one("write-pad-segment", xid) if fires else Truth()


def case_write_pad_segment_next(new):
    """write-pad-segment on one call, not on the next: a GETATTR with no
    Write list sent before the READ's reply.  Its header is decoded into
    the same scratch as the READ's, so a check that looked one chunk past
    the list it was given would find the READ's pad segment again."""
    rc, x = new()
    xid = x()
    h, hp = 0x3521, 0x3520
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(5, 0, 4099)),
                          writes=[[(h, 4099, g.va(xid)), (hp, 4, 0x7fff0000)]]))
    nxt = x()
    rc.send(0, g.rdma1_call(nxt, g.nfs3(nxt, 1, opaque(fh(1)))))
    rc.tag = ((xid, 0), "write")    # the READ's data, not the last call's
    rc.write(1, h, g.va(xid), b"\x56" * 4099)
    rc.tag = None
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(4099, 1),
                           writes=[[(h, 4099, g.va(xid)), (hp, 0, 0x7fff0000)]]))
    rc.send(1, g.rdma1_reply(nxt, w.rpc_reply(nxt) + g.nfs3_getattr_res()))
    return rc, one("write-pad-segment", xid)


def case_p0_in_msg(new):
    """p0-in-msg: an RDMA_MSG call that also offers a position-zero Read
    chunk (here: a copy of the call itself); the server pulls it anyway"""
    rc, x = new()
    xid = x()
    rpc = g.nfs3(xid, 1, opaque(fh(6)))
    rc.send(0, g.rdma1_call(xid, rpc, reads=[(0, 0x3601, len(rpc), g.va(xid))]))
    rc.read(1, 0x3601, g.va(xid), rpc)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res()))
    return rc, one("p0-in-msg", xid)


def case_inline_oversize(new):
    """inline-oversize: the server advertised a 1 KB receive buffer"""
    rc, x = new(params=(True, 4096, 4096, True, 1024, 1024))
    xid = x()
    data = b"\x77" * 1400
    g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 7, g.nfs3_write_args(7, 0, data))),
             g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_write_res(1400)))
    return rc, one("inline-oversize", xid)


def case_credit_overrun(new):
    """credit-overrun: the server grants 2, the client has 3 calls out"""
    rc, x = new()
    xids = [x() for _ in range(3)]
    for xid in xids:
        rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(8)))))
    for xid in xids:
        rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res(), credits=2))
    xids = [x() for _ in range(3)]
    for xid in xids:
        rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(8)))))
    for xid in xids:
        rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res(), credits=2))
    return rc, one("credit-overrun", xids[2])   # 3 out, 2 granted by the first batch


def case_read_past_chunk(new):
    """read-past-chunk: the server reads 4096 bytes of a 3000-byte chunk"""
    rc, x = new()
    xid = x()
    data = bytes(range(256)) * 16
    rpc = g.nfs3(xid, 7, g.nfs3_write_args(9, 0, data[:3000], inline=False))
    rc.send(0, g.rdma1_call(xid, rpc, reads=[(len(rpc), 0x3901, 3000, g.va(xid))]))
    rc.read(1, 0x3901, g.va(xid), data)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_write_res(3000)))
    return rc, one("read-past-chunk", xid)


def case_write_past_chunk(new):
    """write-past-chunk: 8192 bytes written into a 4096-byte Write chunk"""
    rc, x = new()
    xid = x()
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(10, 0, 4096)), writes=[[(0x3a01, 4096, g.va(xid))]]))
    rc.write(1, 0x3a01, g.va(xid), b"\xaa" * 8192)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(4096, 0), writes=[[(0x3a01, 4096, g.va(xid))]]))
    return rc, one("write-past-chunk", xid)


def case_write_list_overrun(new):
    """write-list-overrun: the reply's Write list claims more than provided"""
    rc, x = new()
    xid = x()
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(11, 0, 4096)), writes=[[(0x3b01, 4096, g.va(xid))]]))
    rc.write(1, 0x3b01, g.va(xid), b"\xbb" * 4096)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(4096, 0), writes=[[(0x3b01, 8192, g.va(xid))]]))
    return rc, one("write-list-overrun", xid)


def case_unmatched_reply(new):
    """unmatched-reply: a reply no call in the capture asked for"""
    rc, x = new()
    xid = x()
    g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(12)))),
             g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res()))
    rc.send(1, g.rdma1_reply(0x0bad0001, w.rpc_reply(0x0bad0001) + g.nfs3_getattr_res()))
    return rc, one("unmatched-reply", 0x0bad0001)


def case_read_plus_write_chunk(new):
    """read-plus-write-chunk: NFSv4.2 READ_PLUS offered a Write chunk; the
    server (rightly) answers inline"""
    rc, x = new()
    xid = x()
    data = b"\x12" * 1000
    rpc = g.nfs4(xid, 2, [g.op_sequence(1), g.op_putfh(13), u32(68) + g.STATEID + u64(0) + u32(1000)])
    g.exchange(rc, g.rdma1_call(xid, rpc, writes=[[(0x3c01, 4096, g.va(xid))]]),
             g.rdma1_reply(xid, w.rpc_reply(xid) + g.compound_res([g.res_sequence(1), g.RES_PUTFH,
                                                              u32(68) + u32(0) + u32(1) + u32(1) + u32(0) + u64(0) +
                                                              opaque(data)]),
                         writes=[[(0x3c01, 0, g.va(xid))]]))
    return rc, one("read-plus-write-chunk", xid)


def case_rdma_unmatched(new):
    """rdma-unmatched: an RDMA WRITE into memory no call advertised"""
    rc, x = new()
    xid = x()
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(14, 0, 4096)), writes=[[(0x3d01, 4096, g.va(xid))]]))
    rc.tag = (None, "stray")     # tied to no RPC: the connection's finding
    rc.write(1, 0x3d99, 0x7e5500000000, b"\xdd" * 512)
    rc.tag = None
    rc.write(1, 0x3d01, g.va(xid), b"\xdd" * 4096)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(4096, 0), writes=[[(0x3d01, 4096, g.va(xid))]]))
    t = Truth()
    t.conn_finding("rdma-unmatched")
    return rc, t


def case_nomsg_without_reply_chunk(new):
    """nomsg-without-reply-chunk: RDMA_NOMSG reply to a call with no Reply chunk"""
    rc, x = new()
    xid = x()
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 17, opaque(fh(15)) + u64(0) + u64(0) + u32(4096) + u32(8192))))
    rc.send(1, w.rdma1(xid, 32, w.RDMA_NOMSG))
    return rc, one("nomsg-without-reply-chunk", xid)


# write-pad-segment's edges: (suffix, Write chunk body, last segment, fires)
PAD_EDGES = (("3", 4097, 3, True), ("5", 4099, 5, False), ("short", 4097, 2, False),
             ("aligned", 4096, 4, False))


def write_all(outdir):
    def new(params=(True, 4096, 4096, True, 4096, 4096)):
        rc = g.session(params)
        x = g.Xids(0x66000001)
        xid = x()
        g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 0, b"")), g.rdma1_reply(xid, w.rpc_reply(xid)))
        return rc, x

    def save(name, rc, truth):
        rc.cm_disconnect()
        g.save_rc(outdir, "xdr-f-" + name, rc)
        truth.write(outdir, "xdr-f-" + name, rc.out)

    for name, fn in sorted(globals().items()):
        if name.startswith("case_"):
            save(name[5:].replace("_", "-"), *fn(new))
    for suffix, body, pad, fires in PAD_EDGES:
        save("write-pad-segment-" + suffix, *case_write_pad_segment(new, body, pad, fires))
