#!/usr/bin/env python3
"""Which RPC each RDMA READ / WRITE frame of a capture belongs to, from
tshark's own decode of the original capture (never from nfsrdma), checked
against the comments of nfsrdma's pcapng export.

Oracle, frame by frame in capture order:
  - every RPC-over-RDMA message tshark decodes advertises chunk segments
    (rpcordma.rdma_handle / rdma_offset / rdma_length) under its XID;
  - an RDMA WRITE First/Only and an RDMA READ request carry an RETH
    (infiniband.reth.r_key / va): the RPC is the one whose latest
    advertised segment with that handle covers va;
  - WRITE Middle/Last packets continue the WRITE in progress on the same
    path (ip.src, ip.dst, bth.destqp);
  - a READ response with PSN q answers the READ request of the opposite
    path whose PSN is the largest one <= q among that side's requests
    (a READ request reserves one PSN per response).

usage: rdma_xids.py ORIGINAL.pcap EXPORT.pcapng
Prints one line per disagreement (at most 5), then
"frames=N reads=N writes=N missing=N wrong=N"; exits 1 when any frame
lacks the oracle's XID in its comment, when the oracle found nothing, or
when the two files do not line up.
"""
import re
import subprocess
import sys

WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM = 6, 7, 8, 9, 10, 11
READ_REQ, READ_RESP = 12, (13, 14, 15, 16)
ACK = 17


def tshark(path, fields, dfilter=None):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"]
    if dfilter:
        cmd += ["-Y", dfilter]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def ints(s, base=0):
    return [int(v, base) for v in s.split(",") if v] if s else []


def oracle(cap):
    rows = tshark(cap, ["frame.number", "ip.src", "ip.dst", "infiniband.bth.opcode",
                        "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.reth.r_key",
                        "infiniband.reth.va", "rpcordma.xid", "rpcordma.rdma_handle",
                        "rpcordma.rdma_offset", "rpcordma.rdma_length"],
                  "infiniband.bth")
    segs = {}          # handle -> [(offset, length, xid)], latest last
    writing = {}       # (src, dst, destqp) -> xid of the WRITE in progress
    requests = {}      # (src, dst) -> {psn: xid or None (not a READ)}
    want = {}          # frame -> (kind, xid)
    for r in rows:
        frame, src, dst, op, qp, psn, rkey, va, xid, hs, offs, lens = (r + [""] * 12)[:12]
        if not op:
            continue
        frame, op, psn = int(frame), int(op.split(",")[0]), int(psn.split(",")[0] or 0)
        if xid and hs:
            x = int(xid.split(",")[0], 0)
            for h, o, n in zip(ints(hs), ints(offs), ints(lens)):
                segs.setdefault(h, []).append((o, n, x))

        def owner():
            if not rkey:
                return None
            k, v = int(rkey.split(",")[0], 0), int(va.split(",")[0], 0)
            for o, n, x in reversed(segs.get(k, [])):
                if o <= v < o + max(n, 1):
                    return x
            return None
        path = (src, dst, qp)
        if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM):
            writing[path] = owner()
            want[frame] = ("rdma-write", writing[path])
        elif op in (WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM):
            want[frame] = ("rdma-write", writing.get(path))
        if op in READ_RESP:
            side = requests.get((dst, src), {})
            best = None
            for p, x in side.items():
                d = (psn - p) & 0xffffff
                if d < 0x800000 and (best is None or d < best[0]):
                    best = (d, x)
            want[frame] = ("rdma-read-response", best[1] if best else None)
        elif op != ACK:
            x = owner() if op == READ_REQ else None
            requests.setdefault((src, dst), {})[psn] = x
            if op == READ_REQ:
                want[frame] = ("rdma-read-request", x)
    return want


def main():
    cap, exp = sys.argv[1], sys.argv[2]
    want = oracle(cap)
    got = {int(f): c for f, c in (r[:2] for r in tshark(exp, ["frame.number", "frame.comment"]) if len(r) > 1)}
    n_in = len(tshark(cap, ["frame.number"]))
    n_out = len(tshark(exp, ["frame.number"]))
    missing = wrong = reads = writes = unknown = 0
    shown = 0
    for frame in sorted(want):
        kind, x = want[frame]
        if x is None:
            unknown += 1       # tshark saw no advertisement for it: not counted
            continue
        reads += kind.startswith("rdma-read")
        writes += kind == "rdma-write"
        c = got.get(frame, "")
        xids = {int(v, 16) for v in re.findall(r"xid=0x([0-9a-f]{8})", c)}
        if not xids:
            missing += 1
        elif xids != {x} or ("role=" + kind) not in c:
            wrong += 1
        else:
            continue
        if shown < 5:
            print(f"frame {frame}: tshark says {kind} of xid 0x{x:08x}; comment: {c or '(none)'}")
            shown += 1
    print(f"frames={n_out}/{n_in} reads={reads} writes={writes} unadvertised={unknown} "
          f"missing={missing} wrong={wrong}")
    ok = n_in == n_out and reads + writes > 0 and missing == 0 and wrong == 0
    sys.exit(0 if ok else 1)


main()
