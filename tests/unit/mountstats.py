#!/usr/bin/env python3
"""The client's own per-op counts (client.mountstats, taken in the guest)
against (a) nfsrdma-dissect's records of the capture and (b) the kernel's
rpc_stats_latency lines of client.trace, for every lab capture with a
client.mountstats (tests/captures/NAME.truth/).

Only the NFS program of the mounts is compared (MOUNT, rpcbind and NFSACL
have no per-op line in mountstats), per op name as the client names it
(the dissector names NFSv4 COMPOUNDs the kernel's way: OPEN_NOATTR, ...).
A count differs only by these rules, each counted and printed as info;
whatever they leave over fails:

R1 snapshot: lab_client_finish reads /proc/self/mountstats after the
   client script ends (the trace's "client script exited" marker) and
   before unmounting: RPCs after the marker (DESTROY_SESSION, ...) are in
   the trace and the capture, not in mountstats.
R2 earlier mounts: a mount unmounted before the snapshot (mount-sequence)
   is gone from mountstats: RPCs before the first mount.nfs RPC that
   follows the client script's last umount (commands.txt; an NFSv3
   umount sends no NFS RPC to see it by) are not in it.
R3 shared nfs_client: mountstats adds the parent rpc_clnt's counts (the
   nfs_client's, whose first NFS RPC is the NULL ping: SETCLIENTID,
   EXCHANGE_ID, RENEW, ...) to every mount of the same server and version
   (nfs40-locks' two mounts): such an RPC counts once per mount.
R4 before the capture: an RPC the trace saw complete before the
   capture's first frame (midconn) is in mountstats, not in the capture.
R5 transport: the dissector's records of the mount's transport only (the
   xprt: line: rdma, or tcp for nfs3-tcp).
R6 backchannel: the server's callbacks (NFSv4-CB: CB_NULL, CB_RECALL)
   are not the client's RPCs.

A capture cut from a longer run (its NOTE says so: chimera-oversize) has
the whole run's mountstats and a cut trace: there the capture's calls per
op must lie within the kernel's transmissions, and an op the kernel resent
must show more than once.

Trace times map to capture times by the median offset over the XIDs in
both.  One PASS/FAIL line per assertion, closing with
"mountstats: N passed, N failed"."""
import collections
import csv
import glob
import io
import os
import re
import statistics
import struct
import subprocess
import sys

top = os.environ.get("NFSRDMA_SRCDIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
binp = os.environ.get("MOUNTSTATS_DISSECT") or os.path.join(top, os.environ.get("O", "build"), "bin",
                                                            "nfsrdma-dissect")
passed = failed = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("PASS mountstats: " + what)
    else:
        failed += 1
        print("FAIL mountstats: " + what)
    return cond


def mountstats(path):
    """[{server, fstype, prog, xprt, ops: {name: [ops, transmissions, ...]}}]
    for the NFS mounts of a /proc/self/mountstats."""
    mounts, cur, inops = [], None, False
    with open(path) as f:
        for line in f:
            if line.startswith("device "):
                cur, inops = None, False
                m = re.match(r"device (\S+?):\S* mounted on \S+ with fstype (nfs4?) ", line)
                if m:
                    cur = {"server": m.group(1), "fstype": m.group(2), "prog": None, "xprt": None, "ops": {}}
                    mounts.append(cur)
                continue
            if cur is None:
                continue
            s = line.strip()
            if s.startswith("xprt:"):
                cur["xprt"] = s.split()[1]
            elif s.startswith("RPC iostats"):
                cur["prog"] = s.split("p/v:")[1].split()[0]
            elif s == "per-op statistics":
                inops = True
            elif inops and ":" in s:
                name, vals = s.split(":", 1)
                cur["ops"][name.strip()] = [int(v) for v in vals.split()]
    return mounts


LAT = re.compile(r"^\s*(\S.*?-\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): rpc_stats_latency: task:\w+@(\w+) "
                 r"xid=0x([0-9a-f]+) (\S+?)v\d+ (\S+) ")


def trace(path):
    """(NFS RPCs [(time, comm-pid, clid, xid, op)], marker time, trace time
    minus wall clock) of a client.trace."""
    rpcs, marker, boot = [], None, None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"lab: start role=client .*realtime=([\d.]+) uptime=([\d.]+)", line)
            if m and boot is None:
                boot = float(m.group(2)) - float(m.group(1))
            if "tracing_mark_write: lab: client script exited" in line and marker is None:
                marker = float(line.split(": tracing_mark_write")[0].split()[-1])
                continue
            m = LAT.match(line)
            if m and m.group(5) == "nfs":
                rpcs.append((float(m.group(2)), m.group(1), m.group(3), int(m.group(4), 16), m.group(6)))
    return rpcs, marker, boot


def umounts(path):
    """Wall-clock times of the client script's umount commands (xtrace)."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\++ ([\d.]+) client: umount ", line)
            if m:
                out.append(float(m.group(1)))
    return out


def first_frame(pcap):
    """Time of the capture's first frame (classic pcap, either byte order)."""
    with open(pcap, "rb") as f:
        hdr = f.read(24 + 16)
    magic = struct.unpack("<I", hdr[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    nano = magic in (0xa1b23c4d, 0x4d3cb2a1)
    sec, frac = struct.unpack(end + "II", hdr[24:32])
    return sec + frac / (1e9 if nano else 1e6)


def dissected(pcap):
    r = subprocess.run([binp, "--csv", pcap], capture_output=True, text=True)
    out = []
    for row in csv.DictReader(io.StringIO(r.stdout)):
        if not row["program"].startswith("NFSv"):
            continue
        t = int(row["call_first"] or 0) or int(row["reply_first"] or 0)
        out.append((t / 1e9, int(row["xid"], 16), row["operation"], row["transport"], row["program"]))
    return out, r.returncode


def kernel_view(name, tdir, mounts, check):
    """The kernel's side of the comparison, rules R1-R3 applied, and (b)
    checked: {ms, weight (per XID, 0 if mountstats cannot hold it), why,
    rpcs, marker, gone} or None when the trace lacks its markers."""
    ms = collections.Counter()
    for m in mounts:
        for op, v in m["ops"].items():
            ms[op] += v[0]
    ms = +ms
    # No rule here accounts for a retransmission (none in the lab's runs):
    # one would show as transmissions above ops, and fail.
    re_tx = {op: v[1] - v[0] for m in mounts for op, v in m["ops"].items() if len(v) < 2 or v[1] != v[0]}
    check(not re_tx, "%s: every op sent once (transmissions = ops; differ: %s)" % (name, re_tx))
    rpcs, marker, boot = trace(os.path.join(tdir, "client.trace"))
    check(marker is not None and boot is not None,
       "%s: client.trace has the client script's start and end markers" % name)
    if marker is None or boot is None:
        return None
    # R2: the first mount after the script's last umount starts what
    # mountstats still holds.
    gone = -1.0
    cmds = os.path.join(tdir, "commands.txt")
    last = max(umounts(cmds), default=None) if os.path.exists(cmds) else None
    if last is not None:
        after = [t for t, comm, _, _, _ in rpcs if t > last + boot and comm.startswith("mount.nfs")]
        check(bool(after), "%s: an NFS mount follows the client script's last umount" % name)
        gone = min(after, default=marker) - 1e-6
    # R3: parents are the clids whose first NFS RPC is the NULL ping.
    firsts = {}
    for t, comm, clid, xid, op in rpcs:
        if gone < t < marker:
            firsts.setdefault(clid, op)
    parents = {c for c, op in firsts.items() if op == "NULL"}
    groups = collections.Counter((m["server"], m["prog"]) for m in mounts)
    share = max(groups.values())
    check(share == 1 or len(groups) == 1,
       "%s: mounts sharing an nfs_client are told apart (%d servers, at most %d mounts each)" %
       (name, len(groups), share))
    why = collections.Counter()
    weight = {}
    kern = collections.Counter()
    for t, comm, clid, xid, op in rpcs:
        if t >= marker:
            why["R1 after the snapshot (unmount)"] += 1
            weight[xid] = 0
        elif t <= gone:
            why["R2 mount gone before the snapshot"] += 1
            weight[xid] = 0
        else:
            w = share if clid in parents else 1
            if w > 1:
                why["R3 nfs_client's RPC counted in each of %d mounts" % w] += 1
            weight[xid] = w
            kern[op] += w
    check(kern == ms, "%s: (b) rpc_stats_latency per op = mountstats per op (%d RPCs; differ: trace %s, mountstats %s)" %
       (name, sum(ms.values()), dict(kern - ms), dict(ms - kern)))
    return dict(ms=ms, weight=weight, why=why, rpcs=rpcs, marker=marker, gone=gone)


def probe_compare(name, tdir, probe, window, check):
    """mountstats against a client probe's records ([(xid, op)] of the NFS
    program): what the probe lacks must be RPCs the kernel completed
    outside its window (set of XIDs between its attached and stopping
    markers), R1-R3 as for the capture."""
    mounts = mountstats(os.path.join(tdir, "client.mountstats"))
    kv = kernel_view(name, tdir, mounts, check) if mounts else None
    if not check(kv is not None, "%s: client.mountstats with an NFS mount and a trace with its markers" % name):
        return
    got, why, seen = collections.Counter(), collections.Counter(), set()
    for xid, op in probe:
        seen.add(xid)
        got[op] += kv["weight"].get(xid, 1)
    for t, comm, clid, xid, op in kv["rpcs"]:
        if xid not in seen and xid not in window and kv["weight"][xid]:
            why["P1 outside the probe's window"] += 1
            got[op] += kv["weight"][xid]
    got = +got
    check(got == kv["ms"], "%s: client probe per op = mountstats per op (%d RPCs, %s; differ: probe %s, "
          "mountstats %s)" % (name, sum(kv["ms"].values()), dict(why) or "no rule", dict(got - kv["ms"]),
                              dict(kv["ms"] - got)))


def compare(name, tdir, pcap):
    mounts = mountstats(os.path.join(tdir, "client.mountstats"))
    if not mounts:
        print("info mountstats: %s: no NFS mount in client.mountstats (not an NFS scenario)" % name)
        return
    xprts = {m["xprt"] for m in mounts}
    ok(len(xprts) == 1 and None not in xprts and all(m["prog"] and m["ops"] for m in mounts),
       "%s: %d NFS mount(s), each with its xprt: line (%s) and per-op statistics" %
       (name, len(mounts), ",".join(sorted(x or "none" for x in xprts))))
    xprt = sorted(x or "" for x in xprts)[0]
    kv = kernel_view(name, tdir, mounts, ok)
    if kv is None:
        return
    ms, weight, why, rpcs, marker, gone = (kv[k] for k in ("ms", "weight", "why", "rpcs", "marker", "gone"))
    recs, rc = dissected(pcap)
    ok(rc == 0, "%s: nfsrdma-dissect --csv exits 0 (%d)" % (name, rc))
    tmap = {xid: t for t, _, _, xid, _ in rpcs}
    offs = [r[0] - tmap[r[1]] for r in recs if r[1] in tmap and r[0] > 0]
    if not offs:
        ok(False, "%s: no dissected XID is in client.trace" % name)
        return
    off = statistics.median(offs)
    start = first_frame(pcap) - off
    dis = collections.Counter()
    seen = set()
    for t, xid, op, tr, prog in recs:
        if prog == "NFSv4-CB":
            why["R6 the server's callback"] += 1
            continue
        if tr != xprt:
            why["R5 other transport than the mount's %s" % xprt] += 1
            continue
        seen.add(xid)
        w = weight.get(xid)
        if w is None:   # not in the trace: placed by its capture time alone
            w = 0 if (t - off >= marker or t - off <= gone) else 1
        dis[op] += w
    for t, comm, clid, xid, op in rpcs:
        if gone < t < marker and xid not in seen and t < start:
            why["R4 completed before the capture's first frame"] += 1
            dis[op] += weight[xid]
    dis = +dis
    for k, n in sorted(why.items()):
        print("info mountstats: %s: %s: %d" % (name, k, n))
    ok(dis == ms, "%s: (a) nfsrdma-dissect per op = mountstats per op (%d RPCs; differ: dissector %s, mountstats %s)" %
       (name, sum(ms.values()), dict(dis - ms), dict(ms - dis)))


def compare_cut(name, tdir, pcap):
    """A capture cut from a longer run (NAME.truth/NOTE says so): its
    mountstats and trace hold the whole run. The capture is a prefix of
    it, so per op the dissector's calls are at most the kernel's
    transmissions, and an op the kernel sent more often than it ran
    (chimera-oversize: one READDIRPLUS resent on every reconnection) shows
    more than once in the capture."""
    tx, ops = collections.Counter(), collections.Counter()
    for m in mountstats(os.path.join(tdir, "client.mountstats")):
        for op, v in m["ops"].items():
            ops[op] += v[0]
            tx[op] += v[1] if len(v) > 1 else v[0]
    recs, rc = dissected(pcap)
    seen = collections.Counter(op for _, _, op, tr, _ in recs if tr == "rdma")
    over = {op: (n, tx[op]) for op, n in seen.items() if n > tx[op]}
    ok(rc == 0 and seen and not over,
          "%s (cut from a longer run): the capture's calls per op within the kernel's transmissions (over: %s)"
          % (name, over))
    resent = {op: tx[op] - ops[op] for op in tx if tx[op] > ops[op]}
    ok(all(seen[op] >= 2 for op in resent),
          "%s (cut): each op the kernel resent (%s) is in the capture more than once (%s)"
          % (name, resent, {op: seen[op] for op in resent}))


def main():
    caps = sys.argv[1:] or sorted(glob.glob(os.path.join(top, "tests", "captures", "*.pcap")))
    for pcap in caps:
        name = os.path.basename(pcap)[:-5]
        tdir = pcap[:-5] + ".truth"
        if not os.path.isdir(tdir):   # a run-scenario OUTDIR: capture.pcap beside the truth
            tdir = os.path.dirname(os.path.abspath(pcap))
        note = os.path.join(tdir, "NOTE")
        if os.path.exists(note) and "cut" in open(note).read():
            compare_cut(name, tdir, pcap)
        elif os.path.exists(os.path.join(tdir, "client.mountstats")):
            compare(name, tdir, pcap)
    if passed + failed == 0:
        ok(False, "no lab capture with a client.mountstats in %s" % " ".join(caps[:3]))
    print("mountstats: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
