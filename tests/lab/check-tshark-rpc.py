#!/usr/bin/env python3
"""ONC RPC over TCP and UDP, per XID, nfsrdma-dissect --json against
tshark 4.0 (-2, PDML) on every committed capture: NFS over TCP
(nfs3-tcp), the NFSv4.0 callbacks (nfs40*), the mount-time rpcbind and
MOUNT calls of every NFS/RDMA capture, and NFS over IPoIB (the generated
tests/gen/out/ipoib-*: DLT_IPOIB, and datagram mode in ERF InfiniBand
records; RPC-over-RDMA, whose RoCEv2 is UDP too, is left out by its
port 4791, not by infiniband, which an IPoIB datagram has as well).

For every RPC message tshark decodes over TCP or UDP: the dissector has
the same call or reply (by XID), with the same program, version and
procedure; for a reply, the same accept status and, where tshark reads
one, the same program status (nfsstat3, the COMPOUND's nfsstat4,
mountstat3, NFSACL's).  And the dissector has no TCP/UDP call or reply
tshark does not.  tshark reads the UMNT of a MOUNT on port 802 as SSLv2:
TLS is disabled.  One PASS/FAIL line per assertion, closing with
"tshark-rpc: N passed, N failed"."""
import glob
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

top = os.environ.get("NFSRDMA_SRCDIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
binp = os.path.join(top, os.environ.get("O", "build"), "bin", "nfsrdma-dissect")
passed = failed = 0
# Program status fields, by the program whose reply holds them; the
# first one in the message is the call's status (a COMPOUND's own
# nfsstat4 comes before its operations').
STATUS = {"nfs.status3", "nfs.status", "nfs.nfsstat4", "mount.status"}


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("PASS tshark-rpc: " + what)
    else:
        failed += 1
        print("FAIL tshark-rpc: " + what)


def tshark(pcap):
    """{(xid, msgtyp): [(prog, vers, proc, accept, status)]}: None where
    tshark has no value (a reply whose call it did not see)."""
    r = subprocess.run(["tshark", "-2", "-r", pcap, "--disable-protocol", "tls", "-Y", "rpc && (tcp || udp) && !(udp.dstport == 4791)",
                        "-T", "pdml"], capture_output=True, text=True)
    out = {}
    root = ET.fromstring(r.stdout)
    for pkt in root.iter("packet"):
        cur = None
        # protos in wire order: each rpc starts a message, the program's
        # layer after it holds its status
        for proto in pkt.findall("proto"):
            if proto.get("name") == "rpc":
                cur = {}
                msgs = out
                def first(name, node=proto):
                    for f in node.iter("field"):
                        if f.get("name") == name:
                            return f.get("show")
                    return None
                xid, typ = first("rpc.xid"), first("rpc.msgtyp")
                if xid is None or typ is None:
                    cur = None
                    continue
                vals = [first("rpc.program"), first("rpc.programversion"), first("rpc.procedure"),
                        first("rpc.state_accept"), None]
                cur = [int(v, 0) if v is not None else None for v in vals]
                msgs.setdefault((int(xid, 16), int(typ)), []).append(cur)
            elif cur is not None and proto.get("name") not in ("tcp", "udp", "ip", "eth"):
                for f in proto.iter("field"):
                    if f.get("name") in STATUS and cur[4] is None:
                        cur[4] = int(f.get("show"), 0)
                        break
    return {k: [tuple(v) for v in vs] for k, vs in out.items()}


def ours(pcap):
    """The same from our --json: TCP and UDP records only."""
    r = subprocess.run([binp, "--json", pcap], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        rec = json.loads(line)
        if rec.get("transport") not in ("tcp", "udp"):
            continue
        xid = int(rec["xid"], 16)
        p = (rec["prog"], rec["vers"], rec["proc"])
        if rec["flags"] & 1:
            out.setdefault((xid, 0), []).append(p + (None, None))
        if rec["flags"] & 2:
            out.setdefault((xid, 1), []).append(p + (rec.get("rpc_status"), rec.get("prog_status")))
    return out


def same(t, o):
    """tshark's message t and ours o agree where tshark has a value."""
    return all(a is None or a == b for a, b in zip(t, o))


if not shutil.which("tshark"):
    ok(False, "tshark is not installed (scripts/deps.sh installs it)")
# and NFS over IP over InfiniBand (tests/gen/ipoib.py): DLT_IPOIB and IB UD in ERF
caps = sys.argv[1:] or (sorted(glob.glob(os.path.join(top, "tests", "captures", "*.pcap"))) +
                        sorted(glob.glob(os.path.join(top, "tests", "gen", "out", "ipoib-*.pcap"))))
for pcap in caps if shutil.which("tshark") else []:
    name = os.path.basename(pcap)[:-5]
    ts, mine = tshark(pcap), ours(pcap)
    if not ts and not mine:
        print("info tshark-rpc: %s: no RPC over TCP or UDP" % name)
        continue
    calls = sum(1 for k in ts if k[1] == 0)
    miss = sorted(k for k in ts if k not in mine)
    extra = sorted(k for k in mine if k not in ts)
    ok(not miss, "%s: each of tshark's %d TCP/UDP calls and %d replies is ours (missing %d: %s)" %
       (name, calls, len(ts) - calls, len(miss), [(hex(x), t) for x, t in miss[:4]]))
    ok(not extra, "%s: no TCP/UDP call or reply tshark does not decode (%d: %s)" %
       (name, len(extra), [(hex(x), t) for x, t in extra[:4]]))
    differ = []
    for k, tv in ts.items():
        for t in tv:
            if k in mine and not any(same(t, o) for o in mine[k]):
                differ.append((hex(k[0]), k[1], t, mine[k][0]))
    ok(not differ, "%s: same program, version, procedure, accept and program status for all %d "
       "(differ %d: %s)" % (name, len(ts), len(differ), differ[:3]))
    n_status = sum(1 for k, tv in ts.items() for t in tv if t[4] is not None)
    print("info tshark-rpc: %s: %d messages, %d with a program status" % (name, len(ts), n_status))
print("tshark-rpc: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
