"""Captures for the phase split (docs/record.md "Where the time went"),
each with its truth (truth.py): gen-t-NAME.pcap and gen-t-NAME.truth.json.
Every boundary sits on packets that differ -- calls and replies of several
packets (SEND First/Middle/Last), RDMA READs and WRITEs of several, gaps
between them all different -- so moving any boundary to a neighbouring
packet changes a phase.  Then what a capture does to the packets:

  gen-t-split      one RPC per shape: inline, Read chunk (queue, pull,
                   server), Write chunk (push, wait), calls and replies
                   of several packets
  gen-t-reorder    capture times out of order: a reply's last packet
                   stamped before its first, a reply stamped before the
                   last RDMA WRITE, a READ response before its request
  gen-t-dup        a call's Middle packet captured twice, a reply's Last
                   captured again after the reply, a call sent again
                   under its XID before any reply (the first closes
                   unanswered), a reply sent twice (the second answers no
                   outstanding call: unmatched-reply)
  gen-t-lost       a reply lost before the capture point and resent after
                   the next RPC's reply (the capture sees a PSN gap, then
                   the resend: delivered late, rdma_retrans 1), the next
                   reply's go-back-N copy after it (a duplicate of a
                   finished message: counted on the connection only)
"""
import gen as g
import rdmawire as w
from rdmawire import u32, u64, opaque, fh
from truth import Truth

BIG = 65536     # RFC 8797 send/receive sizes: multi-packet SENDs stay inline


def new():
    """A connection with a 1024-byte path MTU: a COMPOUND with a tag of
    1000 bytes is two packets."""
    clk = w.Clock()
    client, server = w.endpoint(2, sport=0xc011), w.endpoint(1, sport=0xc012)
    rc = w.RC(clk, client, server, cqpn=0x11, sqpn=0x12, mtu=1024)
    rc.cm_connect((True, BIG, BIG, True, BIG, BIG))
    return rc, g.Xids(0x67000001)


def data(n, seed):
    return bytes((i * seed + 11) & 0xff for i in range(n))


def write_call(rc, xid, n, seed, gaps):
    """NFSv3 WRITE of n bytes pulled through a Read chunk, answered inline."""
    d = data(n, seed)
    rpc = g.nfs3(xid, 7, g.nfs3_write_args(seed, 0, d, inline=False))
    rc.send(0, g.rdma1_call(xid, rpc, reads=[(len(rpc), 0x4000 + seed, n, g.va(xid))]), us=gaps[0])
    rc.read(1, 0x4000 + seed, g.va(xid), d, us=gaps[1])
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_write_res(n)), us=gaps[2])


def read_call(rc, xid, n, seed, gaps):
    """NFSv3 READ of n bytes pushed through a Write chunk."""
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(seed, 0, n)),
                            writes=[[(0x5000 + seed, n, g.va(xid))]]), us=gaps[0])
    rc.write(1, 0x5000 + seed, g.va(xid), data(n, seed), us=gaps[1])
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(n, 0),
                             writes=[[(0x5000 + seed, n, g.va(xid))]]), us=gaps[2])


def v4_read(rc, xid, n, seed, gaps, tag):
    """An NFSv4.1 COMPOUND READ pushed through a Write chunk whose reply
    echoes a long tag: pushed results, then a reply of several packets."""
    ops = [g.op_sequence(seed), g.op_putfh(seed), u32(25) + g.STATEID + u64(0) + u32(n)]
    rpc = w.rpc_call(xid, g.NFS, 4, 1) + g.compound(1, ops, tag=tag)
    rc.send(0, g.rdma1_call(xid, rpc, writes=[[(0x5000 + seed, n, g.va(xid))]]), us=gaps[0])
    rc.write(1, 0x5000 + seed, g.va(xid), data(n, seed), us=gaps[1])
    res = g.compound_res([g.res_sequence(seed), g.RES_PUTFH, u32(25) + u32(0) + u32(0) + u32(n)], tag=tag)
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + res, writes=[[(0x5000 + seed, n, g.va(xid))]]), us=gaps[2])


def inline_write(rc, xid, n, seed, gaps):
    """NFSv3 WRITE of n bytes inline: a call of several packets."""
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 7, g.nfs3_write_args(seed, 0, data(n, seed)))), us=gaps[0])
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_write_res(n)), us=gaps[1])


def inline_read(rc, xid, n, seed, gaps):
    """NFSv3 READ answered inline: a reply of several packets."""
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 6, g.nfs3_read_args(seed, 0, n))), us=gaps[0])
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_read_res(n, 1, data(n, seed))), us=gaps[1])


def split(outdir):
    rc, x = new()
    inline_read(rc, x(), 64, 1, (5, 37))
    inline_read(rc, x(), 10000, 2, (7, 41))                 # reply: First, Middle, Last
    write_call(rc, x(), 9000, 3, (9, 13, 29))               # pull of 3 responses
    read_call(rc, x(), 12000, 4, (11, 17, 23))              # push of 3 packets
    inline_write(rc, x(), 9000, 5, (6, 31))                # call: First, Middle, Last
    inline_write(rc, x(), 5000, 6, (8, 27))                # call: First, Last
    v4_read(rc, x(), 8192, 7, (10, 14, 26), b"t" * 1000)    # push, then a reply of 2
    done(outdir, "split", rc, Truth())


def reorder(outdir):
    rc, x = new()
    # a reply's last packet stamped before its first
    xid = x()
    inline_read(rc, xid, 10000, 7, (5, 43))
    pk = [p for p in rc.out if p.tag and p.tag[1] == "reply" and p.tag[0] == (xid, 0)]
    pk[-1].ts = pk[0].ts - 3000
    # ... and before the call's first packet
    xid = x()
    inline_read(rc, xid, 10000, 8, (5, 43))
    pk = [p for p in rc.out if p.tag and p.tag[0] == (xid, 0)]
    pk[-1].ts = pk[0].ts - 1000
    # a one-packet reply stamped before the last RDMA WRITE
    xid = x()
    read_call(rc, xid, 12000, 9, (11, 17, 23))
    wr = [p for p in rc.out if p.tag and p.tag[0] == (xid, 0) and p.tag[1] == "write"]
    rp = [p for p in rc.out if p.tag and p.tag[0] == (xid, 0) and p.tag[1] == "reply"]
    rp[0].ts = wr[-1].ts - 5000
    # a READ response stamped before its request
    xid = x()
    write_call(rc, xid, 9000, 10, (9, 13, 29))
    rd = [p for p in rc.out if p.tag and p.tag[0] == (xid, 0) and p.tag[1] == "read"]
    rd[1].ts = rd[0].ts - 2000
    done(outdir, "reorder", rc, Truth())


def dup(outdir):
    rc, x = new()
    # a call's Middle packet captured twice (right after itself)
    xid = x()
    inline_write(rc, xid, 9000, 11, (6, 31))
    pk = [p for p in rc.out if p.tag and p.tag[0] == (xid, 0) and p.tag[1] == "call"]
    i = rc.out.index(pk[1])
    rc.out.insert(i + 1, w.Packet(pk[1].src, pk[1].dst, pk[1].ib, pk[1].ts + 1000, (None, "dup", 0)))
    t = Truth()
    t.flag((xid, 0), "retransmit")      # the copy came while the call was in progress
    t.resent((xid, 0), 1)
    # a reply's Last captured again after the reply
    xid = x()
    inline_read(rc, xid, 10000, 12, (5, 43))
    pk = [p for p in rc.out if p.tag and p.tag[0] == (xid, 0) and p.tag[1] == "reply"]
    rc.out.append(w.Packet(pk[-1].src, pk[-1].dst, pk[-1].ib, rc.clock.tick(3), (None, "dup", 0)))
    # a call sent again under its XID: the first closes unanswered
    xid = x()
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(13)))), us=4)
    rc.tag = ((xid, 1), "call")
    rc.send(0, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(13)))), us=300)
    rc.tag = ((xid, 1), "reply")
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res()), us=33)
    rc.tag = None
    # a reply sent twice: the second answers no outstanding call
    xid = x()
    g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 1, opaque(fh(14)))),
               g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res()), think_us=25)
    rc.tag = ((xid, 1), "reply")
    rc.send(1, g.rdma1_reply(xid, w.rpc_reply(xid) + g.nfs3_getattr_res()), us=200)
    rc.tag = None
    t.finding((xid, 1), "unmatched-reply")
    done(outdir, "dup", rc, t)


def lost(outdir):
    rc, x = new()
    t = Truth()
    a, b = x(), x()
    g.exchange(rc, g.rdma1_call(a, g.nfs3(a, 1, opaque(fh(21)))),
               g.rdma1_reply(a, w.rpc_reply(a) + g.nfs3_getattr_res()), think_us=40)
    g.exchange(rc, g.rdma1_call(b, g.nfs3(b, 1, opaque(fh(22)))),
               g.rdma1_reply(b, w.rpc_reply(b) + g.nfs3_getattr_res()), think_us=55)
    # a's reply never reached the capture the first time (nor its ACK
    # left the client): the server resends it after b's reply, 700 us on
    ra = next(p for p in rc.out if p.tag and p.tag[0] == (a, 0) and p.tag[1] == "reply")
    i = rc.out.index(ra)
    if i + 1 < len(rc.out) and rc.out[i + 1].tag is None:
        del rc.out[i + 1]
    rc.out.remove(ra)
    ra.ts = rc.clock.tick(700)
    rc.out.append(ra)
    t.flag((a, 0), "retransmit")
    t.resent((a, 0), 1)
    # go-back-N sends b's reply again: b's record is out already
    rb = next(p for p in rc.out if p.tag and p.tag[0] == (b, 0) and p.tag[1] == "reply")
    rc.out.append(w.Packet(rb.src, rb.dst, rb.ib, rc.clock.tick(4), (None, "dup", 0)))
    done(outdir, "lost", rc, t)


def done(outdir, name, rc, truth):
    rc.cm_disconnect()
    g.save_rc(outdir, "gen-t-" + name, rc)
    truth.write(outdir, "gen-t-" + name, rc.out)


def write_all(outdir):
    split(outdir)
    reorder(outdir)
    dup(outdir)
    lost(outdir)
