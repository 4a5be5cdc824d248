#!/usr/bin/env python3
"""Builds small RoCEv2 captures from the XDR, for the upper layers'
bad-input corpus (tests/badinput/<layer>/NAME.pcap + NAME.expected) and a
well-formed end-to-end sample (tests/badinput/ok/).  Stdlib only.

    tests/badinput/mkcaps.py [OUTDIR]     (default: tests/badinput)

Each NAME.expected holds the stderr line nfsrdma-dissect must print,
with FILE standing for the capture path."""
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


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
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
