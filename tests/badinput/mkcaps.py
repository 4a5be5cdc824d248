#!/usr/bin/env python3
"""Builds small RoCEv2 captures from the XDR, for the upper layers'
bad-input corpus (tests/badinput/<layer>/NAME.pcap + NAME.expected) and a
well-formed end-to-end sample (tests/badinput/ok/).  Stdlib only.

    tests/badinput/mkcaps.py [OUTDIR]     (default: tests/badinput)

Each NAME.expected holds the stderr line nfsrdma-dissect must print,
with FILE standing for the capture path (empty: none).  names/ holds
captures whose names are hostile (NAMES below: UTF-8, invalid UTF-8,
escape sequences, quotes, commas, newlines, a NUL, past the record's
bound), checked by tests/unit/names.sh; their messages also go to the
fuzz seeds of the decoders of names (tests/fuzz/seeds/{nfs3,nfs4,upper},
OUTDIR/../fuzz/seeds)."""
import os
import struct
import sys

CLIENT, SERVER = bytes([10, 9, 0, 2]), bytes([10, 9, 0, 1])
CQP, SQP = 0x11, 0x12


def u32(v):
    return struct.pack(">I", v & 0xffffffff)


def u64(v):
    return struct.pack(">Q", v)


def opaque(b):
    return u32(len(b)) + b + b"\0" * (-len(b) % 4)


def seg(h, n, off):
    return u32(h) + u32(n) + u64(off)


def rdma_hdr(xid, credits, proc):
    return u32(xid) + u32(1) + u32(credits) + u32(proc)


NOCHUNKS = u32(0) * 3


def rpc_call(xid, prog, vers, proc):
    cred = u32(0) + opaque(b"client") + u32(0) + u32(0) + u32(0)
    return u32(xid) + u32(0) + u32(2) + u32(prog) + u32(vers) + u32(proc) + u32(1) + opaque(cred) + u32(0) + u32(0)


RPC_CALL_HDR = len(rpc_call(0, 0, 0, 0))


def rpc_reply(xid):
    return u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0)


def fh(seed):
    return opaque(bytes((seed + i) & 0xff for i in range(32)))


class Cap:
    def __init__(self):
        self.frames = []
        self.t = 1_700_000_000_000_000  # usec
        self.psn = {0: 100, 1: 5000}

    def roce(self, d, opcode, payload, reth=None, aeth=None):
        src, dst = (CLIENT, SERVER) if d == 0 else (SERVER, CLIENT)
        qp = SQP if d == 0 else CQP
        sport = 49152 + d
        bth = bytes([opcode, 0, 0xff, 0xff]) + u32(qp) + u32(self.psn[d] & 0xffffff)
        self.psn[d] += 1
        ext = b""
        if reth:
            ext += u64(reth[0]) + u32(reth[1]) + u32(reth[2])
        if aeth is not None:
            ext += u32(aeth)
        ib = bth + ext + payload + b"\0" * (-len(payload) % 4)
        pad = (-len(payload)) % 4
        ib = bytes([opcode, pad << 4, 0xff, 0xff]) + ib[4:]
        udp = struct.pack(">HHHH", sport, 4791, 8 + len(ib) + 4, 0) + ib + b"\0\0\0\0"
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst) + udp
        eth = (b"\x52\x54\x00\x00\x00\x01" if d == 0 else b"\x52\x54\x00\x00\x00\x02") + \
              (b"\x52\x54\x00\x00\x00\x02" if d == 0 else b"\x52\x54\x00\x00\x00\x01") + b"\x08\x00" + ip
        self.t += 37
        self.frames.append((self.t, eth))

    def udp(self, d, payload, port=20048):
        """an RPC message over UDP (MOUNT, as a client sends it)"""
        src, dst = (CLIENT, SERVER) if d == 0 else (SERVER, CLIENT)
        sport, dport = (700, port) if d == 0 else (port, 700)
        udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst) + udp
        eth = b"\x52\x54\x00\x00\x00\x01\x52\x54\x00\x00\x00\x02" + b"\x08\x00" + ip
        self.t += 37
        self.frames.append((self.t, eth))

    def send(self, d, msg):
        self.roce(d, 0x04, msg)

    def ack(self, d):
        self.roce(d, 0x11, b"", aeth=0)

    def write(self, d, rkey, va, data):
        self.roce(d, 0x0a, data, reth=(va, rkey, len(data)))

    def read(self, d, rkey, va, data):
        # d issues the READ request; the peer answers with READ Response Only
        self.roce(d, 0x0c, b"", reth=(va, rkey, len(data)))
        self.psn[d ^ 1] = self.psn[d] - 1
        self.roce(d ^ 1, 0x10, data, aeth=0)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
            for t, fr in self.frames:
                f.write(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(fr), len(fr)))
                f.write(fr)


def good():
    c = Cap()
    # GETATTR inline
    c.send(0, rdma_hdr(0x101, 128, 0) + NOCHUNKS + rpc_call(0x101, 100003, 3, 1) + fh(1))
    c.send(1, rdma_hdr(0x101, 128, 0) + NOCHUNKS + rpc_reply(0x101) + u32(0) + u32(0))
    # READ 8 KB with a Write chunk
    va = (0x102 << 32) | 0x4000
    c.send(0, rdma_hdr(0x102, 128, 0) + u32(0) + u32(1) + u32(1) + seg(0x500, 8192, va) + u32(0) + u32(0)
           + rpc_call(0x102, 100003, 3, 6) + fh(1) + u64(0) + u32(8192))
    c.write(1, 0x500, va, b"\xab" * 4096)
    c.write(1, 0x500, va + 4096, b"\xcd" * 4096)
    c.send(1, rdma_hdr(0x102, 128, 0) + u32(0) + u32(1) + u32(1) + seg(0x500, 8192, va) + u32(0) + u32(0)
           + rpc_reply(0x102) + u32(0) + u32(0) + u32(8192) + u32(1) + u32(8192))
    # WRITE 3000 bytes with a Read chunk at the data position
    call = rpc_call(0x103, 100003, 3, 7) + fh(1) + u64(8192) + u32(3000) + u32(2) + u32(3000)
    va = (0x103 << 32) | 0x8000
    c.send(0, rdma_hdr(0x103, 128, 0) + u32(1) + u32(len(call)) + seg(0x600, 3000, va) + u32(0) + u32(0) + u32(0) + call)
    c.read(1, 0x600, va, b"\x11" * 3000)
    c.send(1, rdma_hdr(0x103, 128, 0) + NOCHUNKS + rpc_reply(0x103) + u32(0) + u32(0) + u32(0)
           + u32(3000) + u32(2) + u64(7))
    # LOOKUP as RDMA_NOMSG: whole call in a position-zero Read chunk
    call = rpc_call(0x104, 100003, 3, 3) + fh(2) + opaque(b"x" * 200)
    va = (0x104 << 32) | 0xc000
    c.send(0, rdma_hdr(0x104, 128, 1) + u32(1) + u32(0) + seg(0x700, len(call), va) + u32(0) + u32(0) + u32(0))
    c.read(1, 0x700, va, call)
    c.send(1, rdma_hdr(0x104, 128, 0) + NOCHUNKS + rpc_reply(0x104) + u32(2) + u32(0))
    return c


def bad_cases():
    """(layer, name, build(cap), expected stderr line with FILE, frame)"""
    cases = []

    def mk(layer, name, msg, expect):
        # A NULL call and reply first: they establish the connection as
        # RPC-over-RDMA (without CM private data, messages on a connection
        # not yet seen to carry RPC are taken as other RDMA traffic).
        c = Cap()
        c.send(0, rdma_hdr(0x999, 1, 0) + NOCHUNKS + rpc_call(0x999, 100003, 3, 0))
        c.send(1, rdma_hdr(0x999, 1, 0) + NOCHUNKS + rpc_reply(0x999))
        c.send(0, msg)
        cases.append((layer, name, c, expect))

    E = "nfsrdma-dissect: error: FILE: frame 3, offset %d: %s"
    mk("rpcrdma", "short-header", u32(1) + u32(1) + u32(1), E % (12, "rpcrdma: truncated rpcrdma proc"))
    mk("rpcrdma", "bad-proc", rdma_hdr(1, 1, 7), E % (12, "rpcrdma: invalid rpcrdma proc"))
    mk("rpcrdma", "bad-discriminator", rdma_hdr(1, 1, 0) + u32(5), E % (16, "rpcrdma: invalid read list discriminator"))
    mk("rpcrdma", "truncated-read-segment", rdma_hdr(1, 1, 0) + u32(1) + u32(0) + u32(7),
       E % (28, "rpcrdma: truncated rpcrdma segment length"))
    mk("rpcrdma", "write-chunk-too-many-segments", rdma_hdr(1, 1, 0) + u32(0) + u32(1) + u32(100000),
       E % (24, "rpcrdma: invalid write chunk segment count"))
    mk("rpcrdma", "bad-error-code", rdma_hdr(1, 1, 4) + u32(9), E % (16, "rpcrdma: invalid rdma_error code"))
    mk("rpc", "bad-msg-type", rdma_hdr(1, 1, 0) + NOCHUNKS + u32(1) + u32(5), E % (32, "rpc: invalid rpc msg_type"))
    mk("rpc", "bad-rpc-version", rdma_hdr(1, 1, 0) + NOCHUNKS + u32(1) + u32(0) + u32(3) + u32(100003) + u32(3) + u32(0),
       E % (36, "rpc: invalid rpc version (not 2)"))
    mk("rpc", "cred-too-long", rdma_hdr(1, 1, 0) + NOCHUNKS + u32(1) + u32(0) + u32(2) + u32(100003) + u32(3) + u32(0)
       + u32(1) + u32(1000), E % (56, "rpc: invalid rpc cred length (> 400)"))
    mk("rpc", "truncated-call", rdma_hdr(1, 1, 0) + NOCHUNKS + u32(1) + u32(0) + u32(2) + u32(100003),
       E % (44, "rpc: truncated rpc program version"))
    base = rdma_hdr(1, 1, 0) + NOCHUNKS + rpc_call(1, 100003, 3, 6)
    mk("nfs3", "truncated-fh", base + u32(32) + b"\0" * 8, E % (len(base) + 4, "nfs3: truncated file"))
    mk("nfs3", "fh-too-long", base + u32(65), E % (len(base), "nfs3: invalid file"))
    base = rdma_hdr(1, 1, 0) + NOCHUNKS + rpc_call(1, 100003, 4, 1)
    mk("nfs4", "too-many-ops", base + opaque(b"") + u32(1) + u32(100000), E % (len(base) + 8, "nfs4: invalid argarray count"))
    mk("nfs4", "unknown-op", base + opaque(b"") + u32(1) + u32(1) + u32(4242),
       E % (len(base) + 12, "nfs4: invalid nfs_opnum4 (unknown operation)"))
    mk("nfs4", "bad-claim", base + opaque(b"") + u32(0) + u32(1) + u32(18) + u32(0) + u32(2) + u32(0) + u64(1)
       + opaque(b"o") + u32(0) + u32(9), E % (len(base) + 48, "nfs4: invalid open_claim_type4"))
    return cases


# (xid, name bytes): the names of tests/badinput/names/, one RPC each
# (tests/unit/names.sh reads this list through --list)
NAMES = [
    (0x201, "café".encode()),
    (0x202, "日本".encode()),
    (0x203, b"inv\xff\xfeend"),
    (0x204, b"esc\x1b[31mred\x1b[0m"),
    (0x205, b'quo"te'),
    (0x206, b"back\\slash"),
    (0x207, b"com,ma"),
    (0x208, b"new\nline\r"),
    (0x209, b"c1\xc2\x9bcsi"),
    (0x20a, b"sp ace\ttab\x7fdel"),
    (0x20b, b"\xe2\x82"),                 # a character cut short by the wire
    (0x20c, b"L" * 46 + "é".encode() + b"tail"),  # the bound (47) splits the é
    (0x20d, b"A" * 60),
    (0x20e, b"nul\x00after"),
]


def roundtrip(c, call, reply):
    c.send(0, call)
    c.send(1, reply)


def null_first(c):
    # the connection shows RPC-over-RDMA before the names (see mk())
    roundtrip(c, rdma_hdr(0x999, 1, 0) + NOCHUNKS + rpc_call(0x999, 100003, 3, 0),
              rdma_hdr(0x999, 1, 0) + NOCHUNKS + rpc_reply(0x999))


def nfs3_name_msgs():
    """(xid, call, reply) RPC messages: a LOOKUP per name, a CREATE of the first"""
    out = []
    for xid, name in NAMES:
        out.append((xid, rpc_call(xid, 100003, 3, 3) + fh(1) + opaque(name),
                    rpc_reply(xid) + u32(2) + u32(0)))
    return out


def nfs4_name_msgs():
    """a COMPOUND per name: PUTROOTFH then LOOKUP, OPEN (CLAIM_NULL) or
    CREATE (a directory), in turn; the reply says NOENT at that op"""
    out = []
    for i, (xid, name) in enumerate(NAMES):
        xid |= 0x1000
        kind = i % 3
        if kind == 0:
            op, args = 15, opaque(name)
        elif kind == 1:
            op, args = 18, u32(0) + u32(2) + u32(0) + u64(1) + opaque(b"o") + u32(0) + u32(0) + opaque(name)
        else:
            op, args = 6, u32(2) + opaque(name) + u32(0) + opaque(b"")
        # the tag, shown only by -V, is hostile too (a terminal title, BEL)
        tag = b"t\x1b]0;owned\x07"
        call = rpc_call(xid, 100003, 4, 1) + opaque(tag) + u32(0) + u32(2) + u32(24) + u32(op) + args
        reply = rpc_reply(xid) + u32(2) + opaque(tag) + u32(2) + u32(24) + u32(0) + u32(op) + u32(2)
        out.append((xid, call, reply))
    return out


def mount_name_msgs():
    return [(xid | 0x2000, rpc_call(xid | 0x2000, 100005, 3, 1) + opaque(name),
             rpc_reply(xid | 0x2000) + u32(2)) for xid, name in NAMES]


# a MOUNT that succeeds, then one NFSv3 call: the export replay takes
EXPORT = b"/exp\x1b[2Jort caf\xc3\xa9 \"q\""


def export_msgs():
    return [(0x301, rpc_call(0x301, 100005, 3, 1) + opaque(EXPORT),
             rpc_reply(0x301) + u32(0) + fh(7) + u32(1) + u32(1)),
            (0x302, rpc_call(0x302, 100003, 3, 1) + fh(7), rpc_reply(0x302) + u32(70))]


def names_caps():
    caps = {}
    for cname, msgs in (("nfs3-names", nfs3_name_msgs()), ("nfs4-names", nfs4_name_msgs()),
                        ("mount-names", mount_name_msgs()), ("mount-export", export_msgs())):
        c = Cap()
        null_first(c)
        if cname == "mount-export":
            # MOUNT over UDP, as the Linux client mounts; NFS over RDMA
            xid, call, reply = msgs.pop(0)
            c.udp(0, call)
            c.udp(1, reply)
        for xid, call, reply in msgs:
            hdr = rdma_hdr(xid, 8, 0) + NOCHUNKS
            roundtrip(c, hdr + call, hdr + reply)
        caps[cname] = c
    return caps


def names_seeds(out):
    """the same messages as seeds of fuzz_nfs3, fuzz_nfs4 (fuzz_prog.h:
    byte 0 flags, 4 = with the -V tree, 0x80 = the other program; byte 1
    the procedure) and fuzz_upper (events: type, dir, len, rkey, va)"""
    seeds = {"nfs3": [], "nfs4": [], "upper": []}
    for xid, call, reply in nfs3_name_msgs():
        seeds["nfs3"].append(bytes([4, 3]) + call[RPC_CALL_HDR:])
    for xid, call, reply in mount_name_msgs():
        seeds["nfs3"].append(bytes([0x84, 1]) + call[RPC_CALL_HDR:])
    for xid, call, reply in nfs4_name_msgs():
        seeds["nfs4"].append(bytes([4, 1]) + call[RPC_CALL_HDR:])
    up = b""
    for xid, call, reply in nfs3_name_msgs() + nfs4_name_msgs():
        for d, m in ((0, call), (1, reply)):
            msg = rdma_hdr(xid, 8, 0) + NOCHUNKS + m
            up += bytes([0, d]) + struct.pack(">H", len(msg)) + b"\0" * 12 + msg
    seeds["upper"].append(up)
    for layer, items in seeds.items():
        d = os.path.join(out, layer)
        os.makedirs(d, exist_ok=True)
        for i, b in enumerate(items):
            with open(os.path.join(d, "names-%02d" % i), "wb") as f:
                f.write(b)


def main():
    if sys.argv[1:2] == ["--list"]:
        for xid, name in NAMES:
            print("%x %s" % (xid, name.hex()))
        return
    if sys.argv[1:2] == ["--export"]:
        print(EXPORT.hex())
        return
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    d = os.path.join(out, "names")
    os.makedirs(d, exist_ok=True)
    for cname, cap in names_caps().items():
        cap.save(os.path.join(d, cname + ".pcap"))
        open(os.path.join(d, cname + ".expected"), "w").close()
    names_seeds(os.path.join(out, "..", "fuzz", "seeds"))
    os.makedirs(os.path.join(out, "ok"), exist_ok=True)
    good().save(os.path.join(out, "ok", "nfs3-chunks.pcap"))
    for layer, name, cap, expect in bad_cases():
        d = os.path.join(out, layer)
        os.makedirs(d, exist_ok=True)
        cap.save(os.path.join(d, name + ".pcap"))
        with open(os.path.join(d, name + ".expected"), "w") as f:
            f.write(expect + "\n")


if __name__ == "__main__":
    main()
