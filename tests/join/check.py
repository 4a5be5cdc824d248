#!/usr/bin/env python3
"""The join against the kernels' own numbers: lab captures with their client
and server ftrace (tests/captures/NAME.truth), the traces turned into the
probe records nfsrdmad writes (trace2records.py: version 3, each guest's
own clock), joined by nfsrdma-dissect --join, with and without the capture.

Checks, per capture: every RDMA XID of the client's rpc_stats_latency
comes out joined with all three vantages; fused execute equals the
server's svc_stats_latency execute and the fused total the client's
rpc_stats_latency execute, within the record's stated uncertainty; the
phases of every record sum to its total; the flagged negatives are the
ones the join report counts, and they are exactly the RPCs whose kernel
trace contradicts itself (self_contradictions), with that kernel named as
the reason (nfs3-tcp: none; the server's svc_process is no arrival);
the client-server clock from the direct pair
agrees with the one through the wire within their uncertainties.  Then
bad input: a corrupt line names file:line and the run goes on; flags
that cannot go with --join are refused; today's wire JSON (version 3
fixture) is read as a vantage.
Closing line: "join-traces: N passed, N failed"."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

O = os.environ.get("O", "build")
DISSECT = os.path.join(O, "bin", "nfsrdma-dissect")
HERE = os.path.dirname(os.path.abspath(__file__))
CAPS = ["nfs3-read-write", "nfs3-metadata", "parallel", "nfs41", "nfs3-read-write-k6.12", "nfs41-k6.12", "nfs3-tcp"]
NEG_CLIENT, NEG_SERVER, NEG_REASONS = 128, 512, 128 | 256 | 512 | 1024
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL join-traces: " + what)


def kernel_truth(trace, event, field):
    """xid -> (value us, is_rdma) from the trace itself, not from our records."""
    out = {}
    marshalled = set()
    for line in open(trace, encoding="utf-8", errors="replace"):
        m = re.search(r": (\w+): .*xid=0x([0-9a-f]+)", line)
        if not m:
            continue
        xid = int(m.group(2), 16)
        if m.group(1) in ("xprtrdma_marshal", "svcrdma_decode_rqst"):
            marshalled.add(xid)
        if m.group(1) == event:
            v = re.search(field + r"=(\d+)", line)
            out[xid] = (int(v.group(1)), xid in marshalled)
    return out


def self_contradictions(truth):
    """xid -> fuse_flags reason bits of the kernels' own contradictions, from
    the traces alone: a client whose task begin (rpc_stats_latency time -
    execute) comes after its xprtrdma_marshal; a server whose rq_stime
    (svc_stats_latency time - execute-us) comes before its
    svcrdma_decode_rqst.  Microseconds both: truncation cannot do it."""
    out = {}
    for side, first, last, field, bit in (("client", "xprtrdma_marshal", "rpc_stats_latency", "execute", NEG_CLIENT),
                                          ("server", "svcrdma_decode_rqst", "svc_stats_latency", "execute-us",
                                           NEG_SERVER)):
        seen = {}
        for line in open(os.path.join(truth, side + ".trace"), encoding="utf-8", errors="replace"):
            m = re.search(r"\s(\d+)\.(\d{6}): (\w+): .*xid=0x([0-9a-f]+)", line)
            if not m:
                continue
            t, ev, xid = int(m.group(1)) * 1000000 + int(m.group(2)), m.group(3), int(m.group(4), 16)
            if ev == first:
                seen.setdefault(xid, t)
            elif ev == last and xid in seen:
                start = t - int(re.search(field + r"=(\d+)", line).group(1))
                if (start > seen[xid]) if side == "client" else (start < seen[xid]):
                    out[xid] = out.get(xid, 0) | bit
                del seen[xid]
    return out


def run(args):
    p = subprocess.run([DISSECT] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def records(stdout):
    recs, report = [], None
    for line in stdout.splitlines():
        o = json.loads(line)
        if o.get("type") == "join":
            report = o
        elif "v" in o:
            recs.append(o)
    return recs, report


def phases_sum(r):
    ns = r["ns"]
    return sum(v for k, v in ns.items() if k != "total" and v is not None) == ns["total"]


def one(name, tmp):
    truth = os.path.join("tests/captures", name + ".truth")
    cj, sj = os.path.join(tmp, name + "-client.jsonl"), os.path.join(tmp, name + "-server.jsonl")
    for side, out in (("client", cj), ("server", sj)):
        with open(out, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "trace2records.py"), side,
                            os.path.join(truth, side + ".trace")], stdout=f, check=True)
    client = kernel_truth(os.path.join(truth, "client.trace"), "rpc_stats_latency", "execute")
    server = kernel_truth(os.path.join(truth, "server.trace"), "svc_stats_latency", "execute-us")
    rdma = {x for x, (_, r) in client.items() if r}
    for label, args in (("capture", ["tests/captures/%s.pcap" % name]), ("no capture", [])):
        rc, out, err = run(args + ["--join", cj, "--join", sj, "--json"])
        check(rc == 0, "%s (%s): exit %d: %s" % (name, label, rc, err[-300:]))
        recs, report = records(out)
        want = {"client", "wire", "server"} if args else {"client", "server"}
        full = {int(r["xid"], 16): r for r in recs if set(r.get("vantages", [])) == want}
        missing = sorted(rdma - set(full))
        check(not missing, "%s (%s): %d RDMA XIDs of rpc_stats_latency not joined with %s: %s" %
              (name, label, len(missing), "+".join(sorted(want)), ["0x%08x" % x for x in missing[:5]]))
        check(all(phases_sum(r) for r in recs), "%s (%s): a record's phases do not sum to its total" % (name, label))
        exec_bad = total_bad = 0
        for xid, r in full.items():
            if r["fuse_flags"] & 1:
                continue  # a negative phase held at 0 moved a boundary: flagged, counted below
            unc = r["uncertainty_ns"]
            if xid in server and r["ns"].get("execute") is not None:
                exec_bad += abs(r["ns"]["execute"] - server[xid][0] * 1000) > unc
            if xid in client:
                total_bad += abs(r["ns"]["total"] - client[xid][0] * 1000) > unc
        check(exec_bad == 0, "%s (%s): %d fused executes differ from svc_stats_latency" % (name, label, exec_bad))
        check(total_bad == 0, "%s (%s): %d fused totals differ from rpc_stats_latency" % (name, label, total_bad))
        # every negative phase among the joined RPCs is a kernel's own
        # contradiction the trace shows, flagged with that kernel's name:
        # none comes from the alignment or from how the records were read
        flagged = {x: r["fuse_flags"] & NEG_REASONS for x, r in full.items() if r["fuse_flags"] & 1}
        kernel = {x: b for x, b in self_contradictions(truth).items() if x in full}
        check(flagged == kernel, "%s (%s): flagged negative %s, the traces' own contradictions %s" %
              (name, label, {"0x%08x" % x: b for x, b in flagged.items()},
               {"0x%08x" % x: b for x, b in kernel.items()}))
        neg = sum(1 for r in recs if r["fuse_flags"] & 1)
        by = {k: sum(1 for r in recs if r["fuse_flags"] & b) for k, b in
              (("client", 128), ("wire", 256), ("server", 512), ("clock", 1024))}
        check(report is not None and report.get("negative_by") == by,
              "%s (%s): negatives by reason %s, report says %s" % (name, label, by, report and report.get("negative_by")))
        # -z counts the same per row (joined records of any vantage set)
        rc, zout, _ = run(args + ["--join", cj, "--join", sj, "--json", "-q", "-z", "proc"])
        zby = {k: 0 for k in by}
        for line in zout.splitlines():
            o = json.loads(line)
            if o.get("type") == "summary" and "fused" in o:
                for k in zby:
                    zby[k] += o["fused"]["negative_by"][k]
        check(rc == 0 and zby == by, "%s (%s): -z proc negatives by reason %s, records say %s" % (name, label, zby, by))
        check(report is not None and report["negative"] == neg,
              "%s (%s): negative-phase records %d, report says %s" % (name, label, neg, report and report["negative"]))
        print("join-traces: %s (%s): %d joined, %d with a negative phase (flagged), %d emitted" %
              (name, label, len(full), neg, len(recs)))
        if args and report:
            c = {(k["a"], k["b"]): k for k in report["clocks"]}
            cw, ws, cs = c.get((0, 1)), c.get((0, 2)), c.get((1, 2))
            ok = cw and ws and cs and None not in (cw["uncertainty_ns"], ws["uncertainty_ns"], cs["uncertainty_ns"])
            # hosts: 0 capture, 1 client, 2 server; offset(b) - offset(a)
            if ok:
                via_wire = ws["offset_ns"] - cw["offset_ns"]
                slack = cw["uncertainty_ns"] + ws["uncertainty_ns"] + cs["uncertainty_ns"]
                ok = abs(via_wire - cs["offset_ns"]) <= slack
            check(ok, "%s: client-server clock direct and through the wire disagree: %s" % (name, report["clocks"]))


def bad_input(tmp):
    src = os.path.join(tmp, "nfs3-read-write-client.jsonl")
    bad = os.path.join(tmp, "bad.jsonl")
    lines = open(src).read().splitlines()
    lines.insert(3, '{"v":3,"source":"client-probe","xid":"zz"}')
    lines.insert(5, "not json at all")
    lines.insert(7, '{"v":99,"source":"wire","xid":"0x1"}')
    open(bad, "w").write("\n".join(lines) + "\n")
    rc, out, err = run(["tests/captures/nfs3-read-write.pcap", "--join", bad, "--join",
                        os.path.join(tmp, "nfs3-read-write-server.jsonl"), "--json"])
    named = [l for l in err.splitlines() if re.search(re.escape(bad) + r":(4|6|8): ", l)]
    check(rc == 0 and len(named) == 3, "bad lines: exit %d, %d of 3 named file:line: %s" % (rc, len(named), err[-400:]))
    recs, report = records(out)
    check(report and report["in"]["client"] == len(lines) - 3, "bad lines: the other records all joined")
    for flag in (["--check"], ["--fields", "frame.number"], ["-w", os.path.join(tmp, "x.pcapng")]):
        rc, out, err = run(["tests/captures/smoke.pcap", "--join", src] + flag)
        check(rc == 2 and "--join" in err and not out, "--join with %s refused (exit %d)" % (" ".join(flag), rc))
    fields_join(src, os.path.join(tmp, "nfs3-read-write-server.jsonl"))
    rc, _, err = run(["--join", src])
    check(rc == 2, "--join with one file and no capture refused (exit %d)" % rc)
    rc, _, err = run(["tests/captures/smoke.pcap", "--join", src, "--join", src])
    check(rc == 2, "the same --join file twice refused (exit %d)" % rc)
    # today's wire JSON (record version 3, kept from before version 4) as a vantage
    fx = os.path.join(HERE, "fixtures", "v3-wire-nfs3-read-write.jsonl")
    rc, out, err = run(["--join", fx, "--join", src, "--json"])
    recs, report = records(out)
    both = [r for r in recs if set(r.get("vantages", [])) == {"client", "wire"}]
    check(rc == 0 and report and report["in"]["wire"] == len(open(fx).read().splitlines()) and len(both) >= 29,
          "the version 3 wire fixture joins with the client: %d records (exit %d) %s" % (len(both), rc, err[-200:]))
    for fmt in ([], ["-V"], ["--csv"], ["-q", "-z", "proc"]):
        rc, out, err = run(["tests/captures/nfs3-read-write.pcap", "--join", src, "--join",
                            os.path.join(tmp, "nfs3-read-write-server.jsonl")] + fmt)
        ok = rc == 0 and "client+wire+server" in out and "join: clock" in err
        if fmt == ["--csv"]:
            ok = ok and out.splitlines()[0].startswith("ts_call,") and "ns_execute" in out.splitlines()[0]
        if fmt == ["-q", "-z", "proc"]:
            ok = rc == 0 and "== fused phases per operation" in out and "p99:" in out
        check(ok, "output format %s prints the fused records (exit %d)" % (fmt or "line", rc))


def fields_join(client, server):
    """--fields with --join: a row per joined record with its identity,
    segments and verdict.  Each row against the record's --json: the
    segment as the record gives it, and the verdict re-derived from the
    record's places (the largest share, per mille of the total); a wire
    field is refused, a joined one without --join too."""
    base = ["tests/captures/nfs3-read-write.pcap", "--join", client, "--join", server]
    rc, out, err = run(base + ["--fields", "default"])
    rows = list(csv.DictReader(io.StringIO(out)))
    _, js, _ = run(base + ["--json"])
    recs, _ = records(js)
    check(rc == 0 and len(rows) == len(recs) > 20, "--join --fields default: a row per joined record (%d, %d; exit %d)"
          % (len(rows), len(recs), rc))
    cols = "ip.src,ip.dst,rpc.xid,nfsrdma.program,nfsrdma.op,nfsrdma.status,nfsrdma.seg_client_net," \
           "nfsrdma.seg_server_net,nfsrdma.verdict,nfsrdma.verdict_share,nfsrdma.transport"
    check(out.splitlines()[0] == cols if out else False, "--join --fields default: its columns")
    bad = []
    seen = 0
    for row, r in zip(rows, recs):
        if row["rpc.xid"] != r["xid"]:
            bad.append("order: %s %s" % (row["rpc.xid"], r["xid"]))
            continue
        for sg in ("client_net", "server_net"):
            v = (r.get("seg") or {}).get(sg)
            want = "" if v is None else "%d.%09d" % (v // 10**9, v % 10**9)
            if row["nfsrdma.seg_" + sg] != want:
                bad.append("%s %s: %r, record %r" % (r["xid"], sg, row["nfsrdma.seg_" + sg], want))
        pl = r.get("places") or []
        tot = sum(p["ns"] for p in pl)
        if not pl or not tot:
            ok = row["nfsrdma.verdict"] == row["nfsrdma.verdict_share"] == ""
        else:
            best = max(pl, key=lambda p: p["ns"])
            pm = (best["ns"] * 1000 + tot // 2) // tot
            ok = row["nfsrdma.verdict"] == "|".join(best["place"]) and row["nfsrdma.verdict_share"] == "%d.%03d" % (pm // 1000, pm % 1000)
            seen += 1
        if not ok:
            bad.append("%s verdict %s %s, places %s" % (r["xid"], row["nfsrdma.verdict"], row["nfsrdma.verdict_share"], pl))
    check(not bad and seen > 20, "--join --fields: segments as the records give them, the verdict their largest place "
          "(%d verdicts) %s" % (seen, bad[:3]))
    rc, out, err = run(base + ["--fields", "rpc.xid,nfsrdma.verdict", "--tsv"])
    check(rc == 0 and out.splitlines()[0] == "rpc.xid\tnfsrdma.verdict" and len(out.splitlines()) == len(recs) + 1,
          "--join --fields a list, --tsv (exit %d)" % rc)
    rc, out, err = run(["tests/captures/nfs3-read-write.pcap", "--fields", "nfsrdma.verdict"])
    check(rc == 2 and not out and "needs --join" in err, "--fields nfsrdma.verdict without --join refused (exit %d)" % rc)


def main():
    if not os.access(DISSECT, os.X_OK):
        print("join-traces: %s not built" % DISSECT)
        print("join-traces: 0 passed, 1 failed")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for name in CAPS:
            one(name, tmp)
        bad_input(tmp)
    print("join-traces: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
