#!/usr/bin/env python3
"""Checks nfsrdma-dissect against the kernel's ground truth and tshark for
every lab capture (tests/captures/NAME.pcap with NAME.truth/, and the lab
runs kept in tests/gen/real/):

1. every XID in the client's sunrpc:rpc_stats_latency lines appears in the
   dissector's output with the same program/version and procedure, over
   any transport (RPC-over-RDMA, and rpcbind, MOUNT, NFSv4.0 callbacks and
   NFS over TCP/UDP): all of them, not only those xprtrdma marshalled;
2. per-procedure counts match (over those XIDs);
3. tshark -2 (RPC-over-RDMA and ONC RPC over TCP/UDP, Wireshark 4.0) finds
   no call or reply the dissector missed, and on NFS/TCP captures agrees
   with it on every call and reply: procedure and status.

One PASS/FAIL line per assertion, closing with "truth: N passed, N failed".
Captures absent: says so and passes nothing."""
import collections
import csv
import glob
import io
import os
import re
import shutil
import struct
import subprocess
import sys

top = os.environ.get("NFSRDMA_SRCDIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
binp = os.path.join(top, os.environ.get("O", "build"), "bin", "nfsrdma-dissect")
passed = failed = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("PASS truth: " + what)
    else:
        failed += 1
        print("FAIL truth: " + what)


LAT = re.compile(r"rpc_stats_latency:.*?xid=0x([0-9a-f]+) (\S+?)v(\d+) (\S+) ")
# The kernel's names for what the decoders call otherwise: rpcbind is the
# portmapper program (100000), MOUNT's MNT the kernel's "MOUNT".
ALIAS = {("portmap", None): "rpcbind", ("mount", "MNT"): "MOUNT"}


def kname(p, proc):
    return ALIAS.get((p, None), p), ALIAS.get((p, proc), proc)


def truth(path):
    """{xid: (prog, vers, procname)} from a client.trace: every RPC the
    client completed, whatever carried it."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = LAT.search(line)
            if m:
                out[int(m.group(1), 16)] = (m.group(2).lower(), int(m.group(3)), m.group(4))
    return out


SVC = re.compile(r" (?:svc_stats_latency|svcrdma_decode_rqst): .*?xid=0x([0-9a-f]+)")


def server_xids(path):
    """{xid} from a server.trace: every RPC knfsd received over RDMA
    (svcrdma_decode_rqst) or executed (svc_stats_latency), whatever its
    client: the server's own account, as client.trace is the client's."""
    with open(path, errors="replace") as f:
        return {int(m.group(1), 16) for m in map(SVC.search, f) if m}


def ours(pcap):
    r = subprocess.run([binp, "--csv", pcap], capture_output=True, text=True)
    recs = {}
    for row in csv.DictReader(io.StringIO(r.stdout)):
        xid = int(row["xid"], 16)
        prog = row["program"].lower()
        m = re.match(r"([a-z]+)v(\d+)", prog)
        p, v = (m.group(1), int(m.group(2))) if m else (prog, 0)
        p, proc = kname(p, row["operation"])
        recs.setdefault(xid, []).append((p, v, proc, row["flags"], row["callee"]))
    return recs, r.returncode, r.stderr


def tshark_msgs(pcap, ports=()):
    """{(xid, 0 call / 1 reply)} tshark decodes; ports: TCP/UDP ports it
    is told carry ONC RPC (a server on a port it has no rule for)."""
    if not shutil.which("tshark"):
        return None
    decode_as = []
    for p in sorted(ports)[:16]:
        decode_as += ["-d", "tcp.port==%d,rpc" % p, "-d", "udp.port==%d,rpc" % p]
    r = subprocess.run(["tshark", "-2", "-r", pcap] + decode_as + ["-Y", "rpc", "-T", "fields", "-e", "rpc.xid",
                        "-e", "rpc.msgtyp"], capture_output=True, text=True)
    s = set()
    for line in r.stdout.splitlines():
        xids, types = (line.split("\t") + [""])[:2]
        for x, t in zip(xids.split(","), types.split(",")):
            if x and t:
                s.add((int(x, 16), int(t)))
    return s


def reviewed(path):
    """{(capture, xid, 0 call / 1 reply)}: messages only we decode, each
    looked at by hand, with the reason it is a real one."""
    out = set()
    with open(path) as f:
        for line in f:
            w = line.split(None, 3)
            if not w or w[0].startswith("#"):
                continue
            if len(w) < 4 or w[2] not in ("call", "reply") or len(w[3].strip()) < 20:
                raise SystemExit("truth: %s: a line needs CAPTURE XID call|reply REASON: %s" % (path, line.strip()))
            out.add((w[0], int(w[1], 16), 1 if w[2] == "reply" else 0))
    return out


REVIEWED = reviewed(os.path.join(top, "tests", "unit", "truth-reviewed.txt"))
def chimera_explained():
    """The finding names tests/lab/chimera/findings.txt gives a verdict for."""
    path = os.path.join(top, "tests", "lab", "chimera", "findings.txt")
    with open(path) as f:
        return {line.split("\t")[0] for line in f if line.strip() and not line.startswith("#")}


caps = sys.argv[1:] or (sorted(glob.glob(os.path.join(top, "tests", "captures", "*.pcap"))) +
                        sorted(glob.glob(os.path.join(top, "tests", "gen", "real", "*.pcap"))))
if not caps:
    print("truth: no lab captures in tests/captures (skipped)")
for pcap in caps:
    name = os.path.basename(pcap)[:-5]
    tdir = pcap[:-5] + ".truth"
    if not os.path.isdir(tdir):   # a run-scenario OUTDIR: capture.pcap beside the truth
        tdir = os.path.dirname(os.path.abspath(pcap))
    recs, rc, err = ours(pcap)
    no_rdma = name in ("perftest",)   # captures without RPC
    # exit 3 (documented): read to the end, nothing found, said on stderr
    ok(rc == (3 if no_rdma else 0), "%s: nfsrdma-dissect exits %d (%d)" % (name, 3 if no_rdma else 0, rc))
    # The Linux client and server must not be flagged: no --check finding
    # and no diagnostic on any lab capture, and the run says so.
    r = subprocess.run([binp, "-q", "--check", pcap], capture_output=True, text=True)
    if no_rdma:
        ok(r.returncode == 3 and not r.stdout and "no RPC" in r.stderr
           and r.stderr.count("\n") == 1,
           "%s: one line saying no RPC was found (%s)" % (name, r.stderr.strip()[:160]))
    elif name.startswith("chimera-"):
        # A second implementation (tests/lab/chimera): a finding is allowed
        # only when tests/lab/chimera/findings.txt gives its verdict.
        found = set(re.findall(r"^check: frame \d+ conn \d+ xid 0x[0-9a-f]+: ([a-z0-9-]+):", r.stdout, re.M))
        bad = sorted(found - chimera_explained())
        ok(r.returncode == 0 and not bad and not r.stderr and r.stdout.count("\n") >= 1,
           "%s: every conformance finding explained in tests/lab/chimera/findings.txt (%s; unexplained: %s)"
           % (name, sorted(found) or "none", bad or "none"))
    else:
        want = "check: no findings in %d RPCs\n" % sum(len(v) for v in recs.values())
        ok(r.returncode == 0 and r.stdout == want and not r.stderr,
           "%s: no conformance finding, no diagnostic (%s)" % (name, (r.stdout + r.stderr).strip()[:160] or "none"))
    tr = os.path.join(tdir, "client.trace")
    ktruth = None
    if os.path.exists(tr) and not no_rdma:
        t = ktruth = truth(tr)
        # A call made before the capture started (midconn) cannot be in
        # it: keep only XIDs whose bytes occur somewhere in the capture.
        with open(pcap, "rb") as f:
            raw = f.read()
        absent = [x for x in t if x not in recs and struct.pack(">I", x) not in raw]
        if absent:
            print("info truth: %s: %d ground-truth XIDs are not in the capture at all (before it started)" %
                  (name, len(absent)))
            t = {x: v for x, v in t.items() if x not in absent}
        missing = [x for x in t if x not in recs]
        wrong = []
        for x, (p, v, proc) in t.items():
            if x in recs and not any(r[0] == p and r[1] == v and r[2] == proc for r in recs[x]):
                wrong.append((hex(x), (p, v, proc), recs[x][0][:3]))
        ok(not missing, "%s: all %d ground-truth XIDs present (missing %d: %s)" %
           (name, len(t), len(missing), [hex(x) for x in missing[:5]]))
        ok(not wrong, "%s: same procedure for every XID (%d differ: %s)" % (name, len(wrong), wrong[:3]))
        tc = collections.Counter("%sv%d %s" % v for v in t.values())
        oc = collections.Counter()
        for x in t:
            if x in recs:
                r = recs[x][0]
                oc["%sv%d %s" % r[:3]] += 1
        ok(tc == oc, "%s: per-procedure counts match (%s)" % (name, dict(tc - oc) or dict(oc - tc) or "equal"))
    # The backchannel: every delegation recall knfsd sent (its own
    # nfsd_cb_recall tracepoint) is one CB_RECALL the dissector shows, in
    # the RDMA connection's reverse direction or (NFSv4.0) on the TCP
    # connection the server opened to the client, and one tshark decodes.
    st = os.path.join(tdir, "server.trace")
    if os.path.exists(st):
        with open(st, errors="replace") as f:
            lines = f.readlines()
        krecalls = sum(1 for line in lines if " nfsd_cb_recall: " in line)
        tcp_cb = any(" nfsd_cb_setup: " in line and "proto=tcp" in line for line in lines)
        if krecalls:
            mine = sum(1 for rs in recs.values() for r in rs if r[2] == "CB_RECALL")
            tsr = None
            if shutil.which("tshark"):
                r = subprocess.run(["tshark", "-2", "-r", pcap, "-Y", "nfs.cb.operation == 4 && rpc.msgtyp == 0 && " +
                                    ("tcp" if tcp_cb else "infiniband")], capture_output=True, text=True)
                tsr = len([ln for ln in r.stdout.splitlines() if ln.strip()])
            ok(mine == krecalls and tsr in (None, krecalls),
               "%s: %d CB_RECALLs knfsd sent (nfsd_cb_recall) on its %s callback channel, %d dissected, "
               "tshark %s" % (name, krecalls, "TCP" if tcp_cb else "RDMA", mine, tsr))
    if not no_rdma:
        ts = tshark_msgs(pcap)
        if ts is None:
            print("SKIP truth: %s: tshark not installed" % name)
            continue
        mine = set()
        for x, rs in recs.items():
            for r in rs:
                fl = int(r[3], 16)
                if fl & 1:
                    mine.add((x, 0))
                if fl & 2:
                    mine.add((x, 1))
        miss = ts - mine
        ok(not miss, "%s: every call/reply tshark decodes is ours (%d of %d missing: %s)" %
           (name, len(miss), len(ts), sorted(miss)[:5]))
        # The other way: a message we decode that neither the kernel's
        # trace (an RPC the client completed, or one knfsd received: the
        # client may be no kernel, as Chimera's in the lab) nor tshark
        # knows is invented, unless tests/unit/truth-reviewed.txt says why
        # it is real.
        known = set(ktruth) if ktruth is not None else set()
        if os.path.exists(st):
            known |= server_xids(st)
        # tshark knows RPC over TCP/UDP only on the ports it has rules for:
        # told the ports of our extra messages' servers, does it see them?
        ports = set()
        for x, d in mine - ts:
            for r in recs.get(x, ()):
                m = re.search(r"\.(\d+)$", r[4])
                if m and int(m.group(1)) not in (4791,):
                    ports.add(int(m.group(1)))
        ts_told = tshark_msgs(pcap, ports) if ports else set()
        unknown = sorted((x, d) for x, d in mine - ts - ts_told if x not in known)
        unreviewed = [(x, d) for x, d in unknown if (name, x, d) not in REVIEWED]
        ok(not unreviewed,
           "%s: every message we decode is known to a kernel (client or server) or tshark, or reviewed "
           "(tshark %d, ours %d, ours-only %d, of them known to the kernel's trace or to tshark told their "
           "ports %s: %d, reviewed %d, unexplained %d: %s)" %
           (name, len(ts), len(mine), len(mine - ts), sorted(ports), len(mine - ts) - len(unknown),
            len(unknown) - len(unreviewed), len(unreviewed),
            ["0x%08x %s" % (x, "reply" if d else "call") for x, d in unreviewed[:5]]))
print("truth: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
