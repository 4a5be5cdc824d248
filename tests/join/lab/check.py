#!/usr/bin/env python3
"""Checks one fuse lab run (tests/join/lab/fuse-*; tests/join/lab/README.md):
the real client and server probes (nfsrdmad in each guest), the host's
capture, the guests' clocks apart, joined offline by
  nfsrdma-dissect capture.pcap --join client.jsonl --join server.jsonl
and live by the collector in the server guest (live.jsonl).

  check.py OUTDIR DISSECT [--step]

Against the lab's truth, never the code's own output:
- every RDMA XID of the client's rpc_stats_latency (client.trace, while
  the client probe ran) is joined with client, wire and server;
- each pair's recovered offset (the join report's, and the one every
  joined record used) lies in the truth interval of the beacons
  (truth.py) widened by the estimate's stated uncertainty;
- fused execute = the server's svc_stats_latency execute; fused total =
  the client's task life as ftrace timed the probe's own events
  (rpc_task_begin .. rpc_stats_latency) and within the kernel's execute
  minus its backlog .. execute (the task's ftrace life when the kernel
  restarted it); every record's phases sum to its total;
  records with a negative phase are flagged, counted, their fraction told;
- live: the collector's fused XIDs (with their vantages) = the offline
  join's, but for RPCs its live capture never saw (counted as drops), the
  forwarder's records all received, the intruder (a
  forwarder from an address not allowed) refused and none of it joined;
  with --step (the server's wall clock stepped mid-run, which moves the
  live capture's clock) the step is counted and the sets still agree;
- bad input offline, made from the run's own records: duplicate XIDs
  counted, the client vantage stopped halfway (stopped_after, partials),
  every input record in exactly one output record.
Closing line: "NAME: N passed, N failed"."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truth  # noqa: E402

TRACE_RE = re.compile(r"^\s*\S.*?\s(\d+\.\d+): (\w+): (.*)$")
TASK_RE = re.compile(r"task:([0-9a-f]+)@([0-9a-f]+)")
# The probe against ftrace (the same tolerance as tests/probe/check.py):
# two consumers of one tracepoint stamp it apart, by up to milliseconds
# under emulation.
TOL_US = 8000
TOL_FRAC = 0.15


def tol(v_us):
    return TOL_US + TOL_FRAC * v_us
passed = failed = 0
NAME = "fuse"


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (NAME, what))
    return ok


def lines(path):
    out = []
    for line in open(path):
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def client_kernel(path):
    """xid -> dict(exec, backlog, life_us, rdma) for the RPCs that completed
    while the client probe ran (between its trace markers)."""
    on = False
    begin, out, marshalled = {}, {}, set()
    for line in open(path, errors="replace"):
        m = TRACE_RE.match(line)
        if not m:
            continue
        ts, ev, rest = float(m.group(1)), m.group(2), m.group(3)
        if ev == "tracing_mark_write":
            if "lab: probe client attached" in rest:
                on = True
            elif "lab: probe client stopping" in rest:
                on = False
            continue
        t = TASK_RE.search(rest)
        if ev == "rpc_task_begin" and t:
            begin[t.groups()] = ts
        x = re.search(r"xid=0x([0-9a-f]+)", rest)
        if ev == "xprtrdma_marshal" and x:
            marshalled.add(int(x.group(1), 16))
        if ev == "rpc_stats_latency" and x and on:
            xid = int(x.group(1), 16)
            ex = int(re.search(r"execute=(\d+)", rest).group(1))
            bl = int(re.search(r"backlog=(\d+)", rest).group(1))
            life = (ts - begin[t.groups()]) * 1e6 if t and t.groups() in begin else None
            out[xid] = dict(exec=ex, backlog=bl, life=life, rdma=xid in marshalled)
    return out


def server_kernel(path):
    out = {}
    for line in open(path, errors="replace"):
        m = TRACE_RE.match(line)
        if m and m.group(2) == "svc_stats_latency":
            x = re.search(r"xid=0x([0-9a-f]+)", m.group(3))
            e = re.search(r"execute-us=(\d+)", m.group(3))
            if x and e:
                out[int(x.group(1), 16)] = int(e.group(1))
    return out


def dissect(args):
    p = subprocess.run([DISSECT] + args, capture_output=True, text=True)
    recs, report = [], None
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if o.get("type") == "join":
            report = o
        elif "xid" in o:
            recs.append(o)
    return p.returncode, recs, report, p.stderr


def offsets(run, ps, recs, report):
    """Recovered offsets against the truth: the report's final ones, and the
    one each complete record used (its vantage's time on the wire clock
    minus the probe's own)."""
    raw = {"client": {}, "server": {}}
    for side in raw:
        for r in lines(os.path.join(run, side + ".jsonl")):
            if "xid" in r:
                raw[side].setdefault(int(r["xid"], 16), r)
    for (a, b), p in sorted(ps.items()):
        if not check(p.solve(), "%s: the beacons' bounds fit no line (%d lower, %d upper): %s"
                     % (p.name, len(p.lower), len(p.upper), p.conflict())):
            return
    # the report's estimate is at the newest time of host a
    last_wire = max(max(v for v in r["ts"].values()) for r in recs)
    last_client = max(r["ts"]["reply_last"] or r["ts"]["call_first"] for r in raw["client"].values())
    est = {(c["a"], c["b"]): c for c in report["clocks"]}
    for (a, b), at in (((0, 1), last_wire), ((0, 2), last_wire), ((1, 2), last_client)):
        p, e = ps[(a, b)], est.get((a, b))
        if not check(e is not None and e["uncertainty_ns"] is not None,
                     "%s: the join reports no bounded estimate: %s" % (p.name, e)):
            continue
        lo, hi = p.at(at)
        mid, hw = (lo + hi) // 2, (hi - lo) // 2
        err = e["offset_ns"] - mid
        check(lo - e["uncertainty_ns"] <= e["offset_ns"] <= hi + e["uncertainty_ns"],
              "%s: estimate %d +- %d outside the truth %d +- %d" % (p.name, e["offset_ns"], e["uncertainty_ns"], mid, hw))
        print("%s: clock %s: estimate - truth = %+.1f us (estimate +- %.1f us, truth +- %.1f us, drift %.2f ppm, truth %.1f..%.1f ppm)"
              % (NAME, p.name, err / 1e3, e["uncertainty_ns"] / 1e3, hw / 1e3, e["drift_ppm"], p.drift[0], p.drift[1]))
    # per record: the offset it was fused with
    worst = {"client": 0, "server": 0}
    bad = {"client": 0, "server": 0}
    n = 0
    for r in recs:
        if set(r.get("vantages", [])) != {"client", "wire", "server"}:
            continue
        xid = int(r["xid"], 16)
        n += 1
        for side, key, raw_key, pair in (("client", "send", "call_last", (0, 1)), ("server", "recv", "call_first", (0, 2))):
            rr = raw[side].get(xid)
            if rr is None or not r["vt"][side].get(key):
                continue
            t_raw = rr["vt"][side][key] if "vt" in rr and rr["vt"].get(side, {}).get(key) else rr["ts"][raw_key]
            used = t_raw - r["vt"][side][key]          # probe clock - wire clock
            lo, hi = ps[pair].at(r["ts"]["call_first"])
            u = r["uncertainty_ns"]
            miss = max(lo - u - used, used - hi - u, 0)
            worst[side] = max(worst[side], abs(used - (lo + hi) // 2))
            bad[side] += miss > 0
    for side in bad:
        check(bad[side] == 0, "%d of %d joined records used a %s offset outside truth +- their uncertainty"
              % (bad[side], n, side))
    print("%s: per record: the client offset used is within %.1f us of the truth's middle, the server's %.1f us (%d records)"
          % (NAME, worst["client"] / 1e3, worst["server"] / 1e3, n))


def kernels(run, full):
    ck = client_kernel(os.path.join(run, "client.trace"))
    sk = server_kernel(os.path.join(run, "server.trace"))
    rdma = {x for x, k in ck.items() if k["rdma"]}
    check(len(rdma) >= 50, "only %d RDMA XIDs of rpc_stats_latency while the probe ran" % len(rdma))
    missing = sorted(rdma - set(full))
    check(not missing, "%d of %d RDMA XIDs of rpc_stats_latency not joined with client+wire+server: %s"
          % (len(missing), len(rdma), ["0x%08x" % x for x in missing[:6]]))
    print("%s: %d of %d RDMA XIDs of the client's rpc_stats_latency joined with all three vantages"
          % (NAME, len(rdma & set(full)), len(rdma)))
    raw = {"client": {}, "server": {}}
    for side in raw:
        for r in lines(os.path.join(run, side + ".jsonl")):
            if "xid" in r:
                raw[side].setdefault(int(r["xid"], 16), r)
    own_bad = ex_bad = tot_bad = 0
    ex_worst = tot_worst = 0
    n_ex = n_tot = 0
    for xid, r in full.items():
        u = r["uncertainty_ns"]
        if r["fuse_flags"] & 1:
            continue   # a negative phase held at 0 moved a boundary: flagged, counted apart
        sr, cr = raw["server"].get(xid), raw["client"].get(xid)
        # the join's own job, exactly: the probes' execute and task span
        if sr and r["ns"].get("execute") is not None:
            own_bad += abs(r["ns"]["execute"] - sr["kernel"]["exec_us"] * 1000) > 1000
        if cr:
            span = cr["vt"]["client"]["end"] - cr["vt"]["client"]["begin"]
            own_bad += abs(r["ns"]["total"] - span) > 1000
        # against ftrace: the kernel computes svc_stats_latency's execute
        # anew for each consumer (ftrace's, BPF's), and the probe's task
        # span runs from rpc_task_begin, after tk_start: within the probe
        # suite's tolerance (tests/probe/check.py) plus the uncertainty
        if xid in sk and r["ns"].get("execute") is not None:
            d = abs(r["ns"]["execute"] - sk[xid] * 1000)
            n_ex += 1
            ex_worst = max(ex_worst, d)
            ex_bad += d > u + tol(sk[xid]) * 1000
        k = ck.get(xid)
        if k:
            # the kernel's execute runs from tk_start, the probe's span
            # from rpc_task_begin, later by up to the backlog; a task the
            # kernel restarted (tk_start reset) lives longer than its
            # execute, up to ftrace's rpc_task_begin..rpc_stats_latency
            n_tot += 1
            tot = r["ns"]["total"] / 1000
            hi = max(k["exec"], k["life"] or 0)
            tot_worst = max(tot_worst, abs(tot - k["exec"]))
            tot_bad += not (k["exec"] - k["backlog"] - tol(k["exec"]) - u / 1000 <= tot <= hi + tol(hi) + u / 1000)
    check(own_bad == 0, "%d fused executes or totals differ from the probes' own by more than 1 us" % own_bad)
    # a consumer preempted between the two readings (a timer under TCG)
    # is seen up to 20 ms apart: at most 2 % of the RPCs may be
    check(n_ex >= 50 and ex_bad <= n_ex // 50, "%d of %d fused executes differ from svc_stats_latency by more than their "
          "uncertainty + %d us + %d %%" % (ex_bad, n_ex, TOL_US, TOL_FRAC * 100))
    check(n_tot >= 50 and tot_bad == 0, "%d of %d fused totals outside rpc_stats_latency's execute - backlog .. "
          "execute (or the task's life when restarted)" % (tot_bad, n_tot))
    print("%s: fused execute = the server probe's, total = the client probe's span (1 us); vs ftrace: execute within %.1f us "
          "of svc_stats_latency (%d RPCs, %d past the tolerance), total within %.1f us of rpc_stats_latency's execute (%d)"
          % (NAME, ex_worst / 1e3, n_ex, ex_bad, tot_worst, n_tot))


def live(run, off, step):
    recs = lines(os.path.join(run, "live.jsonl"))
    summ = [r["summary"] for r in recs if "summary" in r]
    fused = {(int(r["xid"], 16), "+".join(r.get("vantages", []))) for r in recs if "xid" in r}
    check(open(os.path.join(run, "live.rc")).read().strip() == "0", "the collector's exit status")
    if not check(summ, "the collector printed no summary"):
        return
    s = summ[-1]
    offline = {(int(r["xid"], 16), "+".join(r.get("vantages", []))) for r in off}
    only_live, only_off = fused - offline, offline - fused
    full_live = {x for x, v in fused if v == "client+wire+server"}
    full_off = {x for x, v in offline if v == "client+wire+server"}
    if step:
        # only the RPCs before the server's wall clock step must agree
        # before: answered before the reading that precedes the step
        times = step_wire_times(run)
        if not check(times, "the step's time on the capture's clock: no truth (the beacons fit no line)"):
            return
        t_before, t_after = times
        pre = {int(r["xid"], 16) for r in off if max(r["ts"].values()) < t_before}
        around = sum(1 for r in off if max(r["ts"].values()) >= t_before and r["ts"]["call_first"] < t_after)
        print("%s: the step: %d RPCs answered before it, %d around it (%.1f s between the readings)"
              % (NAME, len(pre), around, (t_after - t_before) / 1e9))
        full_live, full_off = full_live & pre, full_off & pre
        post_lost = len({x for x, v in offline if v == "client+wire+server"} - pre
                        - {x for x, v in fused if v == "client+wire+server"})
        print("%s: live join after the step: %d of %d complete RPCs lost their wire vantage" %
              (NAME, post_lost, len({x for x, v in offline if v == "client+wire+server"} - pre)))
    # the live capture in the guest (libpcap under emulation) may drop
    # packets: RPCs it never saw are emitted without the wire, and the
    # daemon must have counted drops; the join is held to the rest
    live_wire = {x for x, v in fused if "wire" in v.split("+")}
    unseen = full_off - live_wire
    check(not unseen or s["drops"] > 0, "%d RPCs the live capture never saw, and no drop counted" % len(unseen))
    print("%s: live capture: %d complete RPCs of the offline join it never saw; the daemon counted %d drops"
          % (NAME, len(unseen), s["drops"]))
    full_off = full_off & live_wire
    check(full_live == full_off, "live and offline joins differ: %d complete only live, %d only offline"
          % (len(full_live - full_off), len(full_off - full_live)))
    print("%s: live join: %d complete (offline %d); (xid, vantages) only live %d, only offline %d: %s %s"
          % (NAME, len(full_live), len(full_off), len(only_live), len(only_off),
             sorted("0x%08x:%s" % p for p in only_live)[:4], sorted("0x%08x:%s" % p for p in only_off)[:4]))
    j = s["join"]
    check(j["emitted"] == j["complete"] + j["partial"] and j["pending"] == 0,
          "live join: emitted %d != complete %d + partial %d (pending %d)" % (j["emitted"], j["complete"], j["partial"], j["pending"]))
    nsent = sum(1 for r in lines(os.path.join(run, "client.jsonl")) if "xid" in r)
    col = s["collect"]
    peers = {p["host"]: p for p in col["peers"]}
    c = peers.get("client", {})
    check(nsent == c.get("received") and c.get("lost") == 0 and c.get("peer_dropped") == 0,
          "the client probe wrote %d records, the collector received %s" % (nsent, c))
    check(col["refused"] >= 1 and "intruder" not in peers and s["join"]["remote"] == c.get("received"),
          "the intruder: refused %d, its records joined: %s" % (col["refused"], s["join"]["remote"] != c.get("received")))
    err = open(os.path.join(run, "live.err")).read()
    check("refused %s" % "10.9.0.1" in err, "the refusal is not logged with the intruder's address")
    print("%s: collector: received %d of the client probe's %d records, refused %d (intruder)"
          % (NAME, c.get("received", 0), nsent, col["refused"]))
    if step:
        steps = [c for c in s["join"]["clocks"] if "wire" in (c["vantage_a"], c["vantage_b"]) and c.get("steps", 0) >= 1]
        unc = max(c["uncertainty_ns"] or 0 for c in s["join"]["clocks"] if "wire" in (c["vantage_a"], c["vantage_b"]))
        check(unc < 10_000_000, "after the step the wire's clock is known to +- %.1f ms only" % (unc / 1e6))
        check(steps, "the server's wall clock step is not counted in the live join's clocks: %s" % s["join"]["clocks"])
        print("%s: live: clock steps counted: %s" % (NAME, [(c["host_a"], c["vantage_a"], c["host_b"], c["vantage_b"],
                                                          c.get("steps")) for c in s["join"]["clocks"]]))


def step_wire_times(run):
    """The capture's times of the server's readings just before and just
    after its mid-run wall clock step (server.clocks; the step itself is
    in between, with python's start-up on either side): their monotonic
    readings put on the capture's clock by the beacons' truth, never by
    the join."""
    p = truth.pairs(run)[0][(0, 2)]
    if not p.solve():
        return None     # offsets() has failed the run on it
    out = []
    for tag in ("before-shift-", "after-shift-"):
        mono = None
        for line in open(os.path.join(run, "server.clocks")):
            if line.startswith(tag):
                mono = int(re.search(r"mono=(\d+)", line).group(1))
        lo, hi = p.at(mono - p.upper[0][1])   # a first guess of the time is enough: offsets move by ppm
        out.append(mono - (lo + hi) // 2)
    return out


def bad_input(run, tmp, report):
    cj, sj = os.path.join(run, "client.jsonl"), os.path.join(run, "server.jsonl")
    cap = os.path.join(run, "capture.pcap")
    recs = [l for l in open(cj) if '"xid"' in l]
    # duplicate XIDs: every tenth client record twice
    dup = os.path.join(tmp, "dup.jsonl")
    ndup = len(recs[::10])
    with open(dup, "w") as f:
        for i, l in enumerate(recs):
            f.write(l)
            if i % 10 == 0:
                f.write(l)
    rc, out, rep, err = dissect([cap, "--join", dup, "--join", sj, "--json"])
    check(rc == 0 and rep and rep["dup_xids"] == ndup and rep["complete"] == report["complete"],
          "duplicate XIDs: exit %d, dup_xids %s of %d, complete %s (without: %d)"
          % (rc, rep and rep["dup_xids"], ndup, rep and rep["complete"], report["complete"]))
    inputs(out, rep, "duplicate XIDs")
    # the client vantage stops halfway
    half = os.path.join(tmp, "half.jsonl")
    open(half, "w").writelines(recs[:len(recs) // 2])
    rc, out, rep, err = dissect([cap, "--join", half, "--join", sj, "--json"])
    check(rc == 0 and rep and rep["stopped_after"]["client"] >= len(recs) // 3 and rep["partial"] >= len(recs) // 3,
          "client stopped halfway: exit %d, stopped_after %s, partial %s" % (rc, rep and rep["stopped_after"], rep and rep["partial"]))
    inputs(out, rep, "client stopped halfway")
    print("%s: bad input: %d duplicate XIDs counted; client stopped halfway: stopped_after %s, partial %s"
          % (NAME, ndup, rep and rep["stopped_after"]["client"], rep and rep["partial"]))


def inputs(out, rep, what):
    """Nothing lost silently: each vantage's inputs are in the output records."""
    if not rep:
        return
    for v in ("client", "server", "wire"):
        n = sum(1 for r in out if v in r.get("vantages", []))
        check(n == rep["in"][v], "%s: %d records carry the %s vantage, %d went in" % (what, n, v, rep["in"][v]))


def push_in_exec(run, full):
    """Linux posts a READ's Write chunk from inside the procedure (the
    encoder hands the payload over before svc_stats_latency): the server
    probe's own write_post precedes its exec_done on one clock.  That is
    the kernel's order, not a contradiction: such a record is not flagged
    (it was, every READ: 12 of 171 and 12 of 151), and its reply_build+push
    runs from the execute's end to the reply's Send as the probe timed
    them (1 us: the join's job)."""
    srv = {}
    for r in lines(os.path.join(run, "server.jsonl")):
        if "xid" in r:
            srv.setdefault(int(r["xid"], 16), r)
    n = flagged = span_bad = 0
    for xid, r in full.items():
        s = srv.get(xid, {}).get("vt", {}).get("server", {})
        if not (s.get("write_post") and s.get("exec_done") and s["write_post"] < s["exec_done"]):
            continue
        n += 1
        flagged += r["fuse_flags"] & 1
        span = r["ns"].get("reply_build+push")
        if s.get("send_post"):
            span_bad += span is None or abs(span - (s["send_post"] - s["exec_done"])) > 1000
    check(flagged == 0, "%d of %d RPCs whose push the server posted within the execute flagged negative"
          % (flagged, n))
    check(span_bad == 0, "%d of %d such RPCs: reply_build+push is not exec_done .. send_post" % (span_bad, n))
    print("%s: %d complete RPCs pushed their results within the execute (READs), %d flagged" % (NAME, n, flagged))


def segments(full):
    """The clock-free segments on real probes: each side's round trip from
    the record's own vantage times (a difference within one vantage needs
    no clock), the network phases they must add up to, directions shown
    only where the stated uncertainty allows, and the places summing to
    the total with the verdict the largest of them."""
    bad_seg = bad_pair = bad_dir = bad_places = n = 0
    for xid, r in full.items():
        c, s, ts = r["vt"].get("client", {}), r["vt"].get("server", {}), r.get("ts", {})
        if not (c.get("send") and c.get("reply") and s.get("recv") and s.get("send_post")
                and ts.get("call_first") and ts.get("reply_first")):
            continue
        n += 1
        w_rtt = ts["reply_first"] - ts["call_first"]
        want_c, want_s = (c["reply"] - c["send"]) - w_rtt, w_rtt - (s["send_post"] - s["recv"])
        got = r["seg"]
        bad_seg += (got["client_net"], got["server_net"]) != (want_c if want_c >= 0 else None,
                                                               want_s if want_s >= 0 else None)
        ns = r["ns"]
        pair = ns.get("net_out+net_back")
        if pair is None and ns.get("net_out") is not None and ns.get("net_back") is not None:
            pair = ns["net_out"] + ns["net_back"]
            du = r.get("dir_uncertainty_ns")
            bad_dir += du is None or du * 1000 > pair * 250
        if not (r["fuse_flags"] & 1) and want_c >= 0 and want_s >= 0 and pair is not None:
            bad_pair += pair != want_c + want_s
        tot = ns["total"]
        pl = r.get("places", [])
        v = r.get("verdict")
        best = max(pl, key=lambda x: x["ns"]) if pl else None
        bad_places += (sum(x["ns"] for x in pl) != tot or not v or best["place"] != v["place"]
                       or abs(v["share"] - best["ns"] / tot) > 0.0006)
    check(n >= 50, "only %d complete RPCs with every segment boundary" % n)
    check(bad_seg == 0, "%d of %d records' client_net/server_net differ from their vantages' own round trips"
          % (bad_seg, n))
    check(bad_pair == 0, "%d of %d unflagged records: net_out + net_back != client_net + server_net" % (bad_pair, n))
    check(bad_dir == 0, "%d of %d records give net_out and net_back apart with an uncertainty over 25 %% of them"
          % (bad_dir, n))
    check(bad_places == 0, "%d of %d records: places do not sum to the total or the verdict is not the largest"
          % (bad_places, n))
    merged = sum(1 for r in full.values() if "net_out+net_back" in r["ns"])
    print("%s: segments on %d RPCs; directions merged on %d of %d complete" % (NAME, n, merged, len(full)))


def main():
    global NAME, DISSECT
    run, DISSECT = sys.argv[1], sys.argv[2]
    step = "--step" in sys.argv[3:]
    NAME = os.path.basename(os.path.normpath(run))
    for f in ("capture.pcap", "client.jsonl", "server.jsonl", "client.beacons", "server.beacons", "client.trace"):
        if not check(os.path.exists(os.path.join(run, f)), "%s missing" % f):
            print("%s: %d passed, %d failed" % (NAME, passed, failed))
            return 1
    for side in ("client", "server"):
        check(open(os.path.join(run, side + ".rc")).read().strip() == "0", "nfsrdmad %s exit status" % side)
    rc, recs, report, err = dissect([os.path.join(run, "capture.pcap"), "--join", os.path.join(run, "client.jsonl"),
                                     "--join", os.path.join(run, "server.jsonl"), "--json"])
    if not check(rc == 0 and report, "offline join: exit %d: %s" % (rc, err[-300:])):
        print("%s: %d passed, %d failed" % (NAME, passed, failed))
        return 1
    full = {int(r["xid"], 16): r for r in recs if set(r.get("vantages", [])) == {"client", "wire", "server"}}
    ps, _ = truth.pairs(run)
    offsets(run, ps, recs, report)
    kernels(run, full)
    sums = sum(1 for r in recs if sum(v for k, v in r["ns"].items() if k != "total" and v is not None) != r["ns"]["total"])
    check(sums == 0, "%d records' phases do not sum to their total" % sums)
    neg = sum(1 for r in recs if r["fuse_flags"] & 1)
    check(neg == report["negative"], "%d records flagged negative, the report says %d" % (neg, report["negative"]))
    print("%s: offline: %d records, %d complete; negative phase (flagged): %d = %.1f %% of the complete"
          % (NAME, len(recs), len(full), neg, 100.0 * neg / max(1, len(full))))
    push_in_exec(run, full)
    segments(full)
    inputs(recs, report, "offline join")
    live(run, recs, step)
    with tempfile.TemporaryDirectory() as tmp:
        bad_input(run, tmp, report)
    print("%s: %d passed, %d failed" % (NAME, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
