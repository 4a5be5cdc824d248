"""Wire-format building blocks for tests/gen/gen.py (stdlib only).

  * XDR and ONC RPC encoders
  * InfiniBand transport packets (BTH and extended headers) for one RC
    connection: SEND / RDMA WRITE / RDMA READ split at the path MTU, PSNs,
    ACKs, and CM REQ/REP/RTU/DREQ/DREP MADs with RFC 8797 private data
  * framings of such a packet: RoCEv2 over IPv4 / IPv6 (optionally
    VLAN-tagged), RoCEv1 (Ethertype 0x8915), native InfiniBand (LRH with
    or without GRH, for DLT_INFINIBAND and ERF), Linux SLL / SLL2, with the
    real ICRC (and VCRC on native IB)
  * a classic pcap writer and reader

Everything is deterministic: the same call sequence gives the same bytes,
so tests/gen/check.sh can regenerate the committed captures and compare.
"""
import struct
import zlib

# --------------------------------------------------------------------------
# XDR / RPC

def u32(v):
    return struct.pack(">I", v & 0xffffffff)


def u64(v):
    return struct.pack(">Q", v & 0xffffffffffffffff)


def opaque(b):
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)


def fixed(b):
    return b + b"\0" * (-len(b) % 4)


def string(s):
    return opaque(s.encode())


def auth_sys(machine=b"client", uid=0, gid=0):
    body = u32(0) + opaque(machine) + u32(uid) + u32(gid) + u32(0)
    return u32(1) + opaque(body)


AUTH_NONE = u32(0) + u32(0)


def rpc_call(xid, prog, vers, proc, cred=None):
    return (u32(xid) + u32(0) + u32(2) + u32(prog) + u32(vers) + u32(proc) +
            (cred if cred is not None else auth_sys()) + AUTH_NONE)


def rpc_reply(xid, accept_stat=0):
    """Accepted reply header (verifier AUTH_NONE); the results follow."""
    return u32(xid) + u32(1) + u32(0) + AUTH_NONE + u32(accept_stat)


def fh(seed, n=32):
    return bytes((seed * 7 + i) & 0xff for i in range(n))


# RPC-over-RDMA version 1 (RFC 8166 section 4.1)
RDMA_MSG, RDMA_NOMSG, RDMA_MSGP, RDMA_DONE, RDMA_ERROR = range(5)


def seg(handle, length, offset):
    return u32(handle) + u32(length) + u64(offset)


def read_list(rsegs):
    """rsegs: [(position, handle, length, offset)]"""
    out = b""
    for p, h, n, o in rsegs:
        out += u32(1) + u32(p) + seg(h, n, o)
    return out + u32(0)


def write_list(chunks):
    """chunks: [[(handle, length, offset), ...], ...]"""
    out = b""
    for c in chunks:
        out += u32(1) + u32(len(c)) + b"".join(seg(*s) for s in c)
    return out + u32(0)


def reply_chunk(segs):
    if segs is None:
        return u32(0)
    return u32(1) + u32(len(segs)) + b"".join(seg(*s) for s in segs)


def rdma1(xid, credits, proc, reads=(), writes=(), reply=None):
    return (u32(xid) + u32(1) + u32(credits) + u32(proc) + read_list(reads) +
            write_list(writes) + reply_chunk(reply))


def rdma1_error(xid, credits, err, low=1, high=1):
    b = u32(xid) + u32(1) + u32(credits) + u32(RDMA_ERROR) + u32(err)
    if err == 1:  # ERR_VERS: rdma_vers_low, rdma_vers_high
        b += u32(low) + u32(high)
    return b


# --------------------------------------------------------------------------
# CRCs

def icrc(masked_prefix, rest):
    """ICRC: CRC-32 (the Ethernet one) over the masked headers and the rest
    of the packet, stored least significant byte first, as rxe and real
    HCAs do (rxe_icrc.c: crc32_le seeded with 8 bytes of 0xff for the
    missing LRH, complemented)."""
    return struct.pack("<I", zlib.crc32(rest, zlib.crc32(masked_prefix)) & 0xffffffff)


_VCRC_TABLE = []
for _n in range(256):
    _c = _n
    for _k in range(8):
        _c = (_c >> 1) ^ 0xd008 if _c & 1 else _c >> 1
    _VCRC_TABLE.append(_c)


def vcrc(data):
    """VCRC: CRC-16, polynomial 0x100B (reflected 0xD008), seed 0xFFFF,
    complemented, over LRH..ICRC."""
    c = 0xffff
    for b in data:
        c = _VCRC_TABLE[(c ^ b) & 0xff] ^ (c >> 8)
    return struct.pack("<H", c ^ 0xffff)


def mask_bth(bth):
    """BTH with the resv8a byte (byte 4) set to ones for the ICRC."""
    return bth[:4] + b"\xff" + bth[5:]


# --------------------------------------------------------------------------
# InfiniBand transport packets

OP_SEND_FIRST, OP_SEND_MIDDLE, OP_SEND_LAST, OP_SEND_LAST_IMM, OP_SEND_ONLY = 0x00, 0x01, 0x02, 0x03, 0x04
OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_LAST, OP_WRITE_ONLY = 0x06, 0x07, 0x08, 0x0a
OP_READ_REQ, OP_READ_RESP_FIRST, OP_READ_RESP_MIDDLE, OP_READ_RESP_LAST, OP_READ_RESP_ONLY = 0x0c, 0x0d, 0x0e, 0x0f, 0x10
OP_ACK = 0x11
OP_SEND_LAST_INV, OP_SEND_ONLY_INV = 0x16, 0x17
OP_UD_SEND_ONLY = 0x64


def bth(opcode, dqpn, psn, pad=0, se=False, ack_req=False, pkey=0xffff):
    b1 = (0x80 if se else 0) | (pad & 3) << 4  # M = 0, TVer = 0
    return (bytes([opcode, b1]) + struct.pack(">H", pkey) +
            u32(dqpn & 0xffffff) + u32((0x80000000 if ack_req else 0) | (psn & 0xffffff)))


def reth(va, rkey, length):
    return u64(va) + u32(rkey) + u32(length)


def aeth(syndrome, msn):
    return u32((syndrome & 0xff) << 24 | (msn & 0xffffff))


class Packet:
    """One IB transport packet: BTH .. payload .. pad (no ICRC), plus the
    endpoints it travels between (Endpoint objects).  tag: what the
    generator meant it to be, (key, role, op number) or None (ACK, CM), for
    the truth sidecar (truth.py)."""
    __slots__ = ("src", "dst", "ib", "ts", "tag")

    def __init__(self, src, dst, ib, ts, tag=None):
        self.src, self.dst, self.ib, self.ts, self.tag = src, dst, ib, ts, tag


class Endpoint:
    """One host on the wire: MAC, IPv4, IPv6, LID, GID, UDP source port."""

    def __init__(self, idx, ip4, ip6, lid, gid, mac, sport):
        self.idx, self.ip4, self.ip6, self.lid, self.gid, self.mac = idx, ip4, ip6, lid, gid, mac
        self.sport = sport


def _ip4(s):
    return bytes(int(x) for x in s.split("."))


def _ip6(s):
    import ipaddress
    return ipaddress.IPv6Address(s).packed


def endpoint(idx, sport=49152):
    """Host idx: 10.9.0.idx like the lab (server 1, client 2)."""
    return Endpoint(idx, _ip4("10.9.0.%d" % idx), _ip6("fd09::%d" % idx), idx,
                    _ip6("fe80::2:c903:0:%x" % (0x100 + idx)),
                    bytes([0x52, 0x54, 0x00, 0x09, 0x00, idx]), sport)


class Clock:
    def __init__(self, start_ns=1_700_000_000 * 10**9):
        self.ns = start_ns

    def tick(self, us=2.0):
        self.ns += int(us * 1000)
        return self.ns


class Side:
    def __init__(self, ep, qpn, psn):
        self.ep, self.qpn, self.psn, self.msn = ep, qpn, psn, 0


class RC:
    """One reliable connection between side 0 (client, CM active side) and
    side 1 (server).  Methods append Packets to self.out."""

    def __init__(self, clock, client, server, cqpn=0x11, sqpn=0x12, cpsn=0x100, spsn=0x5000,
                 mtu=4096, out=None, gap_us=2.0):
        self.clock = clock
        self.side = [Side(client, cqpn, cpsn), Side(server, sqpn, spsn)]
        self.mtu = mtu
        self.out = out if out is not None else []
        self.gap = gap_us
        self.comm_id = [0x1a2b0000 | cqpn, 0x3c4d0000 | sqpn]
        # the truth's tags: tag (key, role) set by the generator wins; else a
        # SEND is tagged by its rdma_xid (side 0 calls, side 1 replies) and
        # an RDMA READ/WRITE by the client's last call
        self.tag, self.last_call, self.opn = None, None, 0

    def _role(self, d, kind, msg=b""):
        self.opn += 1
        if self.tag is not None:
            return self.tag + (self.opn,)
        if kind == "send" and len(msg) >= 4:
            key = (struct.unpack(">I", msg[:4])[0], 0)
            if d == 0:
                self.last_call = key
            return (key, "call" if d == 0 else "reply", self.opn)
        return (self.last_call, kind, self.opn)

    def _emit(self, d, ib, us=None, tag=None):
        ts = self.clock.tick(self.gap if us is None else us)
        s, p = self.side[d], self.side[d ^ 1]
        self.out.append(Packet(s.ep, p.ep, ib, ts, tag))

    def _bth(self, d, op, psn, payload_len, ack_req=False):
        pad = -payload_len % 4
        return bth(op, self.side[d ^ 1].qpn, psn, pad, ack_req=ack_req), pad

    def ack(self, d, psn=None):
        """Side d acknowledges the peer's requests up to psn (default: all)."""
        p = self.side[d ^ 1]
        psn = (p.psn - 1) if psn is None else psn
        self.side[d].msn += 1
        b, _ = self._bth(d, OP_ACK, psn, 0)
        self._emit(d, b + aeth(0x1f, self.side[d].msn))

    def send(self, d, msg, ack=True, inv_rkey=None, us=None):
        s = self.side[d]
        tag = self._role(d, "send", msg)
        chunks = [msg[i:i + self.mtu] for i in range(0, len(msg), self.mtu)] or [b""]
        for i, c in enumerate(chunks):
            last = i == len(chunks) - 1
            if len(chunks) == 1:
                op = OP_SEND_ONLY_INV if inv_rkey is not None else OP_SEND_ONLY
            elif i == 0:
                op = OP_SEND_FIRST
            elif last:
                op = OP_SEND_LAST_INV if inv_rkey is not None else OP_SEND_LAST
            else:
                op = OP_SEND_MIDDLE
            b, pad = self._bth(d, op, s.psn, len(c), ack_req=last)
            ext = u32(inv_rkey) if last and inv_rkey is not None else b""
            self._emit(d, b + ext + c + b"\0" * pad, us if i == 0 else None, tag)
            s.psn += 1
        if ack:
            self.ack(d ^ 1)

    def write(self, d, rkey, va, data, ack=False, us=None):
        s = self.side[d]
        tag = self._role(d, "write")
        chunks = [data[i:i + self.mtu] for i in range(0, len(data), self.mtu)] or [b""]
        for i, c in enumerate(chunks):
            last = i == len(chunks) - 1
            op = (OP_WRITE_ONLY if len(chunks) == 1 else OP_WRITE_FIRST if i == 0 else
                  OP_WRITE_LAST if last else OP_WRITE_MIDDLE)
            b, pad = self._bth(d, op, s.psn, len(c), ack_req=last)
            ext = reth(va, rkey, len(data)) if i == 0 else b""
            self._emit(d, b + ext + c + b"\0" * pad, us if i == 0 else None, tag)
            s.psn += 1
        if ack:
            self.ack(d ^ 1)

    def read(self, d, rkey, va, data, length=None, us=None):
        """Side d reads len(data) bytes (or length, as asked in the RETH)
        from the peer; the peer answers with data."""
        s, p = self.side[d], self.side[d ^ 1]
        ask = len(data) if length is None else length
        tag = self._role(d, "read")
        b, _ = self._bth(d, OP_READ_REQ, s.psn, 0, ack_req=True)
        self._emit(d, b + reth(va, rkey, ask), us, tag)
        chunks = [data[i:i + self.mtu] for i in range(0, len(data), self.mtu)] or [b""]
        psn = s.psn
        s.psn += len(chunks)
        for i, c in enumerate(chunks):
            last = i == len(chunks) - 1
            op = (OP_READ_RESP_ONLY if len(chunks) == 1 else OP_READ_RESP_FIRST if i == 0 else
                  OP_READ_RESP_LAST if last else OP_READ_RESP_MIDDLE)
            pad = -len(c) % 4
            hdr = bth(op, s.qpn, psn + i, pad)
            ext = b""
            if op in (OP_READ_RESP_ONLY, OP_READ_RESP_FIRST, OP_READ_RESP_LAST):
                p.msn += 1 if last else 0
                ext = aeth(0x1f, p.msn)
            self._emit(d ^ 1, hdr + ext + c + b"\0" * pad, None, tag)

    # ---- CM ------------------------------------------------------------
    def _mad(self, d, attr, data, tid):
        hdr = bytes([1, 7, 2, 3]) + u32(0) + u64(tid) + struct.pack(">H", attr) + b"\0\0" + u32(0)
        mad = hdr + data + b"\0" * (232 - len(data))
        assert len(mad) == 256
        b = bth(OP_UD_SEND_ONLY, 1, self._cm_psn(d), 0)
        deth = u32(0x80010000) + u32(1)
        self._emit(d, b + deth + mad, 50.0)

    def _cm_psn(self, d):
        self._cmp = getattr(self, "_cmp", [0x10, 0x20])
        self._cmp[d] += 1
        return self._cmp[d]

    def cm_connect(self, params=(True, 4096, 4096, True, 4096, 4096), port=20049):
        """REQ / REP / RTU.  params: (client sends RFC 8797 data, its send
        size, recv size, server sends, send size, recv size); None = no
        private data at all."""
        c, s = self.side
        tid = 0x4711000000000000 | c.qpn

        def pdata(send, recv, inv):
            return (u32(0xf6ab0e18) + bytes([1, 1 if inv else 0, (send >> 10) - 1, (recv >> 10) - 1]))
        # REQ (IBA 12.6.5): service ID for an IP-based rdma_cm service, then
        # librdmacm's cma_hdr (version 0, IPv4, source port, addresses)
        req = bytearray(232)
        struct.pack_into(">I", req, 0, self.comm_id[0])
        struct.pack_into(">Q", req, 8, (1 << 24) | (6 << 16) | port)
        struct.pack_into(">I", req, 32, c.qpn << 8 | 0x10)      # local QPN, responder resources
        struct.pack_into(">I", req, 44, s.psn << 8 | 0x37)      # starting PSN (the server's), ...
        req[50] = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}[self.mtu] << 4 | 0x07   # path MTU
        struct.pack_into(">HH", req, 52, 0xffff, 0xffff)
        req[56:72] = b"\0" * 10 + b"\xff\xff" + c.ep.ip4
        req[72:88] = b"\0" * 10 + b"\xff\xff" + s.ep.ip4
        cma = bytes([0, 0x40]) + struct.pack(">H", 40000) + b"\0" * 12 + c.ep.ip4 + b"\0" * 12 + s.ep.ip4
        priv = cma + (pdata(params[1], params[2], params[3]) if params and params[0] else b"")
        req[140:140 + len(priv)] = priv
        self._mad(0, 0x10, bytes(req), tid)
        rep = bytearray(232)
        struct.pack_into(">II", rep, 0, self.comm_id[1], self.comm_id[0])
        struct.pack_into(">I", rep, 12, s.qpn << 8)
        struct.pack_into(">I", rep, 20, c.psn << 8)
        if params and params[4] is not None:
            priv = pdata(params[4], params[5], False) if params[3] is not None else b""
            rep[36:36 + len(priv)] = priv
        self._mad(1, 0x13, bytes(rep), tid)
        rtu = struct.pack(">II", self.comm_id[0], self.comm_id[1])
        self._mad(0, 0x14, rtu, tid)

    def cm_disconnect(self):
        c, s = self.side
        tid = 0x4712000000000000 | c.qpn
        self._mad(0, 0x15, struct.pack(">II", self.comm_id[0], self.comm_id[1]) + u32(s.qpn << 8), tid)
        self._mad(1, 0x16, struct.pack(">II", self.comm_id[1], self.comm_id[0]), tid)


# --------------------------------------------------------------------------
# Framings: Packet -> link-layer frame bytes

def _ipv4_hdr(src, dst, length, tos=0x02, ttl=64):
    h = struct.pack(">BBHHHBBH4s4s", 0x45, tos, length, 0, 0x4000, ttl, 17, 0, src, dst)
    s = sum(struct.unpack(">10H", h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return h[:10] + struct.pack(">H", ~s & 0xffff) + h[12:]


def roce_v2_ip4(p, with_icrc=True):
    udp_len = 8 + len(p.ib) + 4
    ip = _ipv4_hdr(p.src.ip4, p.dst.ip4, 20 + udp_len)
    udp = struct.pack(">HHHH", p.src.sport, 4791, udp_len, 0)
    masked = (b"\xff" * 8 + ip[:1] + b"\xff" + ip[2:8] + b"\xff" + ip[9:10] + b"\xff\xff" + ip[12:] +
              udp[:6] + b"\xff\xff" + mask_bth(p.ib[:12]))
    crc = icrc(masked, p.ib[12:])
    if not with_icrc:
        udp_len -= 4
        ip = _ipv4_hdr(p.src.ip4, p.dst.ip4, 20 + udp_len)
        udp = struct.pack(">HHHH", p.src.sport, 4791, udp_len, 0)
        crc = b""
    return ip + udp + p.ib + crc


def roce_v2_icrc_of(ip_packet):
    """The ICRC a RoCEv2 IPv4 packet (IP header onwards) should carry."""
    ihl = (ip_packet[0] & 15) * 4
    ip, udp = ip_packet[:ihl], ip_packet[ihl:ihl + 8]
    ulen = struct.unpack(">H", udp[4:6])[0]
    ib = ip_packet[ihl + 8:ihl + ulen - 4]
    masked = (b"\xff" * 8 + ip[:1] + b"\xff" + ip[2:8] + b"\xff" + ip[9:10] + b"\xff\xff" + ip[12:] +
              udp[:6] + b"\xff\xff" + mask_bth(ib[:12]))
    return icrc(masked, ib[12:])


def roce_v2_ip6(p):
    udp_len = 8 + len(p.ib) + 4
    ip = struct.pack(">IHBB", 6 << 28 | 2 << 20 | 0x12345, udp_len, 17, 64) + p.src.ip6 + p.dst.ip6
    udp = struct.pack(">HHHH", p.src.sport, 4791, udp_len, 0)
    masked = (b"\xff" * 8 + bytes([0x6f, 0xff, 0xff, 0xff]) + ip[4:7] + b"\xff" + ip[8:] +
              udp[:6] + b"\xff\xff" + mask_bth(p.ib[:12]))
    return ip + udp + p.ib + icrc(masked, p.ib[12:])


def grh(p, paylen, sgid, dgid):
    return struct.pack(">IHBB", 6 << 28 | 0 << 20 | 0, paylen, 0x1b, 64) + sgid + dgid


def _grh_masked(g):
    return bytes([0x6f, 0xff, 0xff, 0xff]) + g[4:7] + b"\xff" + g[8:]


def roce_v1(p):
    g = grh(p, len(p.ib) + 4, b"\0" * 10 + b"\xff\xff" + p.src.ip4, b"\0" * 10 + b"\xff\xff" + p.dst.ip4)
    crc = icrc(b"\xff" * 8 + _grh_masked(g) + mask_bth(p.ib[:12]), p.ib[12:])
    return g + p.ib + crc


def ib_native(p, with_grh=False):
    """LRH (+GRH) .. ICRC, VCRC.  LIDs from the endpoints."""
    ghdr = b""
    if with_grh:
        ghdr = grh(p, len(p.ib) + 4, p.src.gid, p.dst.gid)
    words = (8 + len(ghdr) + len(p.ib) + 4) // 4
    sl = 0
    lrh = bytes([0x00, sl << 4 | (3 if with_grh else 2)]) + struct.pack(">HHH", p.dst.lid, words & 0x7ff, p.src.lid)
    masked_lrh = bytes([0xf0 | lrh[0] & 0x0f]) + lrh[1:]
    pre = masked_lrh + (_grh_masked(ghdr) if ghdr else b"") + mask_bth(p.ib[:12])
    pkt = lrh + ghdr + p.ib
    pkt += icrc(pre, p.ib[12:])
    return pkt + vcrc(pkt)


def eth(p, ethertype, payload, vlan=None):
    dst, src = p.dst.mac, p.src.mac
    tag = b""
    if vlan is not None:
        tag = struct.pack(">HH", 0x8100, vlan)
    return dst + src + tag + struct.pack(">H", ethertype) + payload


def sll(p, ethertype, payload, outgoing):
    return (struct.pack(">HHH", 4 if outgoing else 0, 1, 6) + p.src.mac + b"\0\0" +
            struct.pack(">H", ethertype) + payload)


def sll2(p, ethertype, payload, outgoing):
    return (struct.pack(">HHIHBB", ethertype, 0, 2, 1, 4 if outgoing else 0, 6) + p.src.mac + b"\0\0" +
            payload)


def erf_record(ts_ns, erf_type, pkt, pad_to=8):
    body = pkt + b"\0" * (-len(pkt) % pad_to)
    sec, nsec = divmod(ts_ns, 10**9)
    frac = (nsec << 32) // 10**9
    hdr = struct.pack("<Q", sec << 32 | frac) + bytes([erf_type, 0x04]) + struct.pack(">HHH", 16 + len(body), 0, len(pkt))
    return hdr + body


# --------------------------------------------------------------------------
# pcap

LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_ERF, LINKTYPE_INFINIBAND, LINKTYPE_LINUX_SLL2 = 1, 113, 197, 247, 276


def pcap_bytes(linktype, frames, snaplen=262144):
    """frames: [(ts_ns, bytes)] -> classic pcap (microsecond) bytes."""
    out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, linktype)]
    for ts, fr in frames:
        sec, ns = divmod(ts, 10**9)
        out.append(struct.pack("<IIII", sec, ns // 1000, len(fr), len(fr)))
        out.append(fr)
    return b"".join(out)


def pcap_read(path):
    """-> (linktype, [(ts_ns, bytes)]) for classic pcap (us or ns)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic == 0xa1b2c3d4:
        scale = 1000
    elif magic == 0xa1b23c4d:
        scale = 1
    else:
        raise ValueError("%s: not a little-endian classic pcap" % path)
    linktype = struct.unpack_from("<I", data, 20)[0]
    off, frames = 24, []
    while off + 16 <= len(data):
        sec, sub, caplen, _ = struct.unpack_from("<IIII", data, off)
        off += 16
        frames.append((sec * 10**9 + sub * scale, data[off:off + caplen]))
        off += caplen
    return linktype, frames
