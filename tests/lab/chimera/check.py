#!/usr/bin/env python3
"""Checks one lab run of the kernel's NFS client against Chimera's server
(tests/lab/chimera/nfs3, nfs41; knfsd-* the same workload served by knfsd),
or of Chimera's userspace client against knfsd (client-nfs3: then the
probes are knfsd's, the truth its svc_stats_latency, and the vantages
server and wire; read "client" below as that side)
(tests/lab/chimera/README.md):

  check.py OUTDIR DISSECT NAME

Against the lab's truth (the client kernel's own tracepoints, what the
workload did), never the code's own output:
- the workload ran: the client script's status (it compares every byte it
  read back and counts the directory it listed), the mount is the asked
  version over RDMA, Chimera was still running when the client was done;
- every XID of the client's rpc_stats_latency while its probe ran is found
  by the dissector in the capture and by the client probe (client.jsonl);
- the join of the capture with the client probe: each of those XIDs is one
  record with the client and wire vantages and no server one (Chimera runs
  in userspace: no server probe, and the record says so), its phases
  partition its total, its places sum to it and the verdict is the largest;
  client_net equals the client's round trip less the wire's (one clock
  each), server_net is null (no server vantage);
- the capture has each chunk type the workload makes: Read chunks
  (O_DIRECT WRITE), Write chunks (O_DIRECT READ), Reply chunks
  (READDIRPLUS of 80 long names, or a COMPOUND with a large reply);
- `--check` on both directions: every finding is one tests/lab/chimera/
  findings.txt explains (a Chimera bug, a Linux bug, or a check fixed);
  the table of them is written to OUTDIR/findings.tsv.
Closing line: "chimera-NAME: N passed, N failed"."""
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("joincheck", os.path.join(HERE, "..", "..", "join", "lab", "check.py"))
joincheck = importlib.util.module_from_spec(spec)
spec.loader.exec_module(joincheck)

passed = failed = 0
NAME = "chimera"


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("PASS %s: %s" % (NAME, what))
    else:
        failed += 1
        print("FAIL %s: %s" % (NAME, what))
    return ok


def jlines(text):
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def run(dissect, args):
    p = subprocess.run([dissect] + args, capture_output=True, text=True)
    return p.returncode, jlines(p.stdout), p.stderr


def explained(path):
    """findings.txt: `ID<TAB>SECTION<TAB>verdict: why` per explained finding
    (ID: the finding's name, as --check --json gives it)."""
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                f = line.rstrip("\n").split("\t")
                out[f[0]] = f[2] if len(f) > 2 else ""
    return out


def read(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def workload(out, vers, side):
    """The run's own facts: the workload's status, the mount, the server."""
    role = "client"
    check(read(os.path.join(out, "client.rc")) == "0",
          "the workload (128 KB and 1 KB O_DIRECT write/read compared, 80 entries listed, "
          "parallel writers and metadata) succeeded (client.rc %s)" % read(os.path.join(out, "client.rc"), "?"))
    if side == "client":
        mounts = read(os.path.join(out, "client.mounts"))
        check(any(" nfs" in m and ("vers=%s," % vers) in m and "proto=rdma" in m for m in mounts.splitlines()),
              "mounted NFS version %s over RDMA" % vers)
    if NAME.startswith("chimera-knfsd-") or side == "server":   # knfsd served it
        check("rdma 20049" in read(os.path.join(out, "server.portlist")), "knfsd served RDMA on 20049")
    if not NAME.startswith("chimera-knfsd-"):
        role = "server" if side == "client" else "client"
        alive = read(os.path.join(out, role + ".chimera-alive"), "unknown")
        check(alive == "yes", "Chimera (in the %s guest) still running when the workload was done (%s)" % (role, alive))
    check(read(os.path.join(out, side + ".nfsrdmad.rc"), "missing") == "0",
          "nfsrdmad (%s probes) exit status" % side)


def truth_xids(out, side):
    """The kernel's own RPCs while its probe ran: (all XIDs, RDMA XIDs)."""
    if side == "client":
        kern = joincheck.client_kernel(os.path.join(out, "client.trace"))
        return set(kern), {x for x, v in kern.items() if v["rdma"]}
    # knfsd's svc_stats_latency: every RPC it executed (the probes attached
    # before it served); the MOUNT and portmap calls went over TCP
    kern = set(joincheck.server_kernel(os.path.join(out, "server.trace")))
    rdma = set()
    for line in open(os.path.join(out, "server.trace"), errors="replace"):
        m = joincheck.TRACE_RE.match(line)
        if m and m.group(2) == "svcrdma_decode_rqst":
            x = joincheck.re.search(r"xid=0x([0-9a-f]+)", m.group(3))
            if x:
                rdma.add(int(x.group(1), 16))
    return kern, kern & rdma


def main():
    global NAME
    out, dissect, NAME = sys.argv[1], sys.argv[2], "chimera-" + sys.argv[3]
    vers = {"41": "4.1", "42": "4.2"}.get(sys.argv[3][-2:], "3")
    # the side whose kernel has the probes: the client's, but when Chimera
    # is the client (client-*): then knfsd's
    side = "server" if sys.argv[3].startswith("client-") else "client"
    other = "server" if side == "client" else "client"
    cap = os.path.join(out, "capture.pcap")
    workload(out, vers, side)
    if not os.path.exists(cap) or not os.path.exists(os.path.join(out, side + ".trace")):
        check(False, "capture.pcap or %s.trace missing" % side)
        print("%s: %d passed, %d failed" % (NAME, passed, failed))
        return 1

    kern, rdma = truth_xids(out, side)
    check(len(rdma) >= 100, "%d RDMA RPCs in the %s kernel's trace while its probe ran (>= 100)" % (len(rdma), side))

    rc, recs, err = run(dissect, ["--json", cap])
    check(rc == 0, "dissector exit status %d %s" % (rc, err[-200:]))
    wire = {int(r["xid"], 16): r for r in recs if "xid" in r}
    miss = sorted(set(kern) - set(wire))
    check(not miss, "every %s XID (%d, any transport) found by the dissector: missing %d %s"
          % (side, len(kern), len(miss), ["%#x" % x for x in miss[:5]]))
    probe = {int(r["xid"], 16) for r in jlines(read(os.path.join(out, side + ".jsonl"))) if "xid" in r}
    miss = sorted(rdma - probe)
    check(not miss, "every %s RDMA XID (%d) found by the %s probe: missing %d %s"
          % (side, len(rdma), side, len(miss), ["%#x" % x for x in miss[:5]]))

    w = [wire[x] for x in rdma if x in wire]
    rd = sum(1 for r in w if r["chunks"]["read_chunks"] > 0)
    wr = sum(1 for r in w if r["chunks"]["write_chunks"] > 0)
    rp = sum(1 for r in w if r["chunks"]["reply_segs"] > 0)
    check(rd > 0 and wr > 0 and (rp > 0 or side == "server"),
          "the workload used the chunk types: %d calls with Read chunks, %d with Write chunks, %d with Reply chunks"
          % (rd, wr, rp))

    rc, recs, err = run(dissect, [cap, "--join", os.path.join(out, side + ".jsonl"), "--json"])
    check(rc == 0, "offline join exit status %d %s" % (rc, err[-200:]))
    joined = {int(r["xid"], 16): r for r in recs if "xid" in r}
    two = [x for x in rdma if x in joined and set(joined[x].get("vantages", [])) == {side, "wire"}]
    check(len(two) == len(rdma), "%d of %d %s RDMA XIDs joined with exactly the %s and wire vantages (no %s)"
          % (len(two), len(rdma), side, side, other))
    bad_sum = bad_places = bad_seg = nseg = 0
    for x in two:
        r = joined[x]
        ns = r["ns"]
        tot = ns["total"]
        bad_sum += sum(v for k, v in ns.items() if k != "total" and v is not None) != tot
        pl, v = r.get("places", []), r.get("verdict")
        best = max(pl, key=lambda p: p["ns"]) if pl else None
        bad_places += bool(tot) and (sum(p["ns"] for p in pl) != tot or not v or best["place"] != v["place"])
        vt, ts, seg = r["vt"].get(side, {}), r.get("ts", {}), r.get("seg", {})
        a, b = ("send", "reply") if side == "client" else ("recv", "send_post")
        if vt.get(a) and vt.get(b) and ts.get("call_first") and ts.get("reply_first"):
            nseg += 1
            w_rtt = ts["reply_first"] - ts["call_first"]
            want = (vt[b] - vt[a]) - w_rtt if side == "client" else w_rtt - (vt[b] - vt[a])
            bad_seg += seg.get(side + "_net") != (want if want >= 0 else None) or seg.get(other + "_net") is not None
    check(bad_sum == 0, "%d of %d joined records' phases do not sum to their total" % (bad_sum, len(two)))
    check(bad_places == 0, "%d of %d joined records: places do not sum to the total or the verdict is not the largest"
          % (bad_places, len(two)))
    check(nseg >= len(two) // 2 and bad_seg == 0,
          "%s_net from the %s's own round trip and the wire's, %s_net null: %d wrong of %d with both boundaries"
          % (side, side, other, bad_seg, nseg))

    rc, lines, err = run(dissect, ["--check", "--json", "-q", cap])
    fnd = [o for o in lines if o.get("type") == "finding"]
    summ = [o for o in lines if o.get("type") == "check"]
    check(rc == 0 and len(summ) == 1, "--check ran to the end (exit %d, %d summary lines)" % (rc, len(summ)))
    known = explained(os.path.join(HERE, "findings.txt"))
    counts = {}
    for f in fnd:
        k = (f["id"], f.get("section", ""), f.get("text", "").split(":")[0])
        counts[k] = counts.get(k, 0) + 1
    with open(os.path.join(out, "findings.tsv"), "w") as t:
        for (i, sec, txt), n in sorted(counts.items()):
            t.write("%s\t%s\t%d\t%s\n" % (i, sec, n, known.get(i, "UNEXPLAINED")))
            print("%s: finding %s (%s): %d x, %s" % (NAME, i, sec, n, known.get(i, "UNEXPLAINED")))
    unexplained = sorted({i for (i, _, _) in counts if i not in known})
    check(not unexplained, "%d --check findings in %d RPCs, every one explained in findings.txt (unexplained ids: %s)"
          % (len(fnd), summ[0]["rpcs"] if summ else 0, unexplained))
    print("%s: %d %s XIDs (%d RDMA), Read/Write/Reply chunk calls %d/%d/%d, joined %s+wire %d"
          % (NAME, len(kern), side, len(rdma), rd, wr, rp, side, len(two)))
    print("%s: %d passed, %d failed" % (NAME, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
