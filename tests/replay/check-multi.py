#!/usr/bin/env python3
"""Judges a run of tests/replay/scenarios/replay-multi (OUT dir):
nfsrdma-replay of tests/captures/multi-client.pcap and mount-sequence.pcap
against a fresh export each.  What each trace holds (its clients, its calls
and their statuses) is read from the committed capture with the
dissector; what the replay sent and got, from the lab's capture of the
replays (a connection per traced connection, each replay's after the
one before, in the order client.sh runs them; how many a replay opened is
the one number taken from its report), not from the replay's report.  Prints one line per check and ends
with 'replay-multi: N passed, N failed'.

Usage: check-multi.py OUTDIR DISSECT_BINARY MULTI-CLIENT.pcap MOUNT-SEQUENCE.pcap
"""
import collections
import os
import re
import sys

import checklib

out, dissect = sys.argv[1], sys.argv[2]
traces = {"multi": sys.argv[3], "mountseq": sys.argv[4]}
# the clients the lab scenarios ran (tests/lab/scenarios/multi-client, mount-sequence)
CLIENTS = {"multi": ["10.9.0.2 NFSv4.1", "10.9.0.3 NFSv3", "10.9.0.4 NFSv4.2", "10.9.0.5 NFSv4.1"],
           "mountseq": ["10.9.0.2 NFSv4.1", "10.9.0.2 NFSv4.2", "10.9.0.2 NFSv3"]}
RUNS = ["multi", "mountseq", "multi-text", "multi-deleg"]   # client.sh's replays, in order
check = checklib.Checks("replay-multi")


def calls(recs):
    """The RPCs over RDMA: the replay's (and the trace's) NFS calls; the
    mount-time rpcbind and MOUNT calls over TCP are not the replay's."""
    return [r for r in recs if "procedure" in r and "frame_call" in r and r.get("transport", "rdma") == "rdma"]


def key(r):
    return (r.get("program"), r.get("procedure"), r.get("status"))


cap = os.path.join(out, "capture.pcap")
rrecs = calls(checklib.records(dissect, cap)) if os.path.exists(cap) else []
by_conn = collections.OrderedDict()
for r in sorted(rrecs, key=lambda r: r["frame_call"]):
    by_conn.setdefault(r.get("conn"), []).append(r)
conns = list(by_conn.values())


def nconn(o):
    """How many connections a replay opened: its JSON report's, or its
    text report's 'N connection(s)'."""
    if isinstance(o, dict):
        return (o.get("transport_stats") or {}).get("connections") or 0
    return sum(int(m) for m in re.findall(r"; (\d+) connections?, ", o or ""))


def programs(cs):
    """The NFS versions each connection carries, sorted: one client's
    calls on each (NFSv4.1, NFSv3...)."""
    return sorted(",".join(sorted({r.get("program") for r in c})) for c in cs)


at = 0   # the next run's first connection

for k, run in enumerate(RUNS):
    name = "multi" if run.startswith("multi") else run
    trecs = calls(checklib.records(dissect, traces[name]))
    rc, o, err = checklib.jstep(out, run) if run != "multi-text" else checklib.step(out, run)
    check(rc == 0, f"{run}: exit {rc} (0: every call replayed with its traced status){' ' + err.strip()[:200] if rc else ''}")
    if isinstance(o, dict):
        t = o.get("totals", {})
        check(t.get("unsupported") == 0 and t.get("trace") == len(trecs),
              f"{run}: {t.get('trace')} calls (the trace has {len(trecs)}), {t.get('unsupported')} unsupported")
        cl = o.get("clients", [])
        check([c.get("label") for c in cl] == CLIENTS[name],
              f"{run}: replay clients {[c.get('label') for c in cl]}")
        if run == "multi-deleg":
            v4 = [c for c in cl if c.get("vers") == 4]
            check(v4 and all((c.get("callbacks") or {}).get("served") for c in v4),
                  f"{run}: every NFSv4 client serves its callbacks: "
                  f"{[(c.get('label'), c.get('callbacks')) for c in v4]}")
        for c in cl:
            check(c.get("replayed") == c.get("trace") and c.get("same_status") == c.get("replayed"),
                  f"{run}: client {c.get('label')}: {c.get('trace')} calls, {c.get('replayed')} sent, "
                  f"{c.get('same_status')} with the traced status")
        # no client's calls waited on another client's set-up, callback
        # probe or DELEGRETURN: the replay's own timing of what its run loop
        # did synchronously (none of it now)
        b = o.get("blocking") or {}
        kinds = ("setup", "cb_probe", "delegreturn", "path", "open_confirm")
        check(all((b.get(kk) or {}).get("n") == 0 for kk in kinds),
              f"{run}: nothing done synchronously in the run loop, holding back every client: "
              f"{[(kk, (b.get(kk) or {}).get('n')) for kk in kinds]}")
        # issue-time error, measured at --speed 1 (reported; the goal,
        # p99 <= 1 ms, is bench/'s, not a timed assertion here)
        iss = o.get("issue") or {}
        check(iss.get("calls") == t.get("replayed") and all(isinstance(iss.get(q), int)
                                                           for q in ("p50_ns", "p99_ns", "max_ns"))
              and all((c.get("issue") or {}).get("calls") == c.get("replayed") for c in cl),
              f"{run}: issue-time error over every sent call, in total and per client, in integer ns: "
              f"p50 {iss.get('p50_ns')} ns, p99 {iss.get('p99_ns')} ns, max {iss.get('max_ns')} ns "
              f"({iss.get('calls')} calls, {t.get('replayed')} sent)")
    elif run == "multi-text":
        check("cross-client:" in o and "10.9.0.3 NFSv3" in o and "issue-time error" in o
              and "held back as intended" in o,
              f"{run}: text report has the client rows, the issue-time error and the holds")
        # -v: a line per call sent with how late it left (and its hold)
        # and, for a call at least 1 ms late, where that time went
        late = re.findall(r"^  xid 0x[0-9a-f]{8} .*: c(\d) left ([0-9.]+) us late(?:, after a hold of ([0-9.]+) us \((\w+)\))?"
                          r"(?:: ((?:[a-z ]+ [0-9.]+(?:, )?)+) ms(?:; runnable, not running ([0-9.]+) ms)?)?$", o, re.M)
        check(len(late) == len(trecs), f"{run}: -v: {len(late)} calls with their issue-time error (trace {len(trecs)})")
        sync = re.findall(r"^  c\d+: .* done synchronously: every client held .*$", o, re.M)
        check(not sync, f"{run}: -v: no work done synchronously, holding back every client ({sync[:3]})")
        worst = sorted(late, key=lambda m: -float(m[1]))[:5]
        print(f"info {run}: latest calls (client, us late, held us, why, where): {worst}")
        # the parts partition the lateness (printed to 0.01 ms each)
        bad = []
        for m in late:
            us, parts = float(m[1]), m[4]
            if us < 1000:
                if parts:
                    bad.append((m[1], "explained under 1 ms"))
                continue
            got = sum(float(v) for v in re.findall(r"[a-z ]+ ([0-9.]+)", parts)) * 1000 if parts else -1
            if abs(got - us) > 10 * 8:
                bad.append((m[1], parts))
        check(not bad, f"{run}: -v: every call at least 1 ms late says where its time went, the parts "
              f"adding up to its lateness ({sum(float(m[1]) >= 1000 for m in late)} such calls)"
              f"{'; not so: ' + str(bad[:3]) if bad else ''}")
    # each traced connection its own replay connection, carrying the
    # same client's calls
    tconns = collections.OrderedDict()
    for r in sorted(trecs, key=lambda r: r["frame_call"]):
        tconns.setdefault(r.get("conn"), []).append(r)
    n = nconn(o)
    mine = conns[at:at + n]
    at += n
    check(n == len(tconns) and len(mine) == n and programs(mine) == programs(tconns.values()),
          f"{run}: capture: {len(mine)} connections of the replay ({n} in its report; the trace "
          f"had {len(tconns)}), each with one client's versions: {programs(mine)} (trace: "
          f"{programs(tconns.values())})")
    rep = [r for c in mine for r in c]
    got = collections.Counter(key(r) for r in rep)
    want = collections.Counter(key(r) for r in trecs)
    short = {kk: (v, got[kk]) for kk, v in want.items() if got[kk] < v}
    check(not short, f"{run}: capture: every traced (program, call, status) sent and answered so "
          f"({sum(want.values())} traced, {len(rep)} on the wire){'; short: ' + str(list(short.items())[:4]) if short else ''}")
    if name != "multi":
        continue
    # cross-client order on the wire: c2's READs and REMOVE of xc/new go
    # after the replies to c1's WRITEs and RENAME
    c1_done = [r.get("frame_reply", 0) for r in rep if r.get("program") == "NFSv4.1"
               and r.get("procedure") in ("WRITE", "RENAME")]
    c2 = [r["frame_call"] for r in rep if r.get("program") == "NFSv3" and r.get("procedure") in ("READ", "REMOVE")]
    check(c1_done and c2 and min(c2) > max(c1_done),
          f"{run}: capture: c2's READ/REMOVE (first call frame {min(c2) if c2 else None}) after the replies "
          f"to c1's WRITE/RENAME (last reply frame {max(c1_done) if c1_done else None})")

# --clients 4: four groups at once (a connection per traced connection
# each, after the runs above), each in its own directory
GROUPS = [("mountseq-x4", "mountseq", True), ("mountseq-x4-deleg", "mountseq", True),
          ("multi-x4-text", "multi", False)]
for g, (run, name, js) in enumerate(GROUPS):
    trecs = calls(checklib.records(dissect, traces[name]))
    rc, o, err = checklib.jstep(out, run) if js else checklib.step(out, run)
    check(rc == 0, f"{run}: exit {rc}{' ' + err.strip()[:200] if rc else ''}")
    if js:
        o = o if isinstance(o, dict) else {}
        grp, tot = o.get("groups", []), o.get("total", {})
        check(len(grp) == 4 and tot.get("groups") == 4 and tot.get("replayed") == 4 * len(trecs)
              and tot.get("same_status") == 4 * len(trecs) and tot.get("unsupported") == 0,
              f"{run}: total of {tot.get('groups')} groups: {tot.get('replayed')} sent, "
              f"{tot.get('same_status')} with the traced status (4 x {len(trecs)})")
        n = 0
        if run == "mountseq-x4-deleg":
            # --delegations: what the target granted beyond the trace was
            # given back (DESTROY_CLIENTID found no state: checked above,
            # every call's status as traced)
            nf = [(gr.get("report") or {}).get("nfs4") or {} for gr in grp]
            check(all(v.get("delegations_returned") == v.get("delegations_unasked")
                      and v.get("delegation_returns_failed") == 0 for v in nf),
                  f"{run}: each group gave back every delegation the target granted where the trace's "
                  f"OPEN got none: {[(v.get('delegations_unasked'), v.get('delegations_returned')) for v in nf]}")
        if name == "mountseq":
            # an export without them: each group made its own
            check([gr.get("made") for gr in grp] == [True] * 4,
                  f"{run}: each group made its directory on the target ({[gr.get('made') for gr in grp]})")
        for gr in grp:
            r = gr.get("report") or {}
            n += nconn(r)
            t = r.get("totals", {})
            check(gr.get("exit") == 0 and t.get("trace") == len(trecs) and t.get("same_status") == len(trecs)
                  and t.get("unsupported") == 0 and len(r.get("clients", [])) == len(CLIENTS[name]),
                  f"{run}: group {gr.get('group')} ({gr.get('directory')}): exit {gr.get('exit')}, "
                  f"{t.get('same_status')} of {len(trecs)} calls with the traced status, "
                  f"{len(r.get('clients', []))} clients")
    else:
        n = nconn(o)
        heads = [ln for ln in o.splitlines() if ln.startswith("== group ")]
        check(len(heads) == 4 and all(ln.endswith("exit 0") for ln in heads)
              and "total of 4 groups" in o and o.count("10.9.0.3 NFSv3") >= 4,
              f"{run}: four group reports with their client rows, and the total ({heads})")
    ntrace = len({r.get("conn") for r in trecs})
    gconns = conns[at:at + n]
    at += n
    check(n == 4 * ntrace and len(gconns) == n,
          f"{run}: capture: {len(gconns)} connections ({n} in the reports; 4 groups x {ntrace} traced)")
    # a group's PUTROOTFH goes as PUTFH of its directory: the dissector
    # names those COMPOUNDs otherwise than LOOKUP_ROOT
    want = collections.Counter(key(r) for r in trecs if r.get("procedure") != "LOOKUP_ROOT")
    got = collections.Counter(key(r) for c in gconns for r in c)
    short = {kk: (4 * v, got[kk]) for kk, v in want.items() if got[kk] < 4 * v}
    check(not short, f"{run}: capture: the groups' connections: every traced (program, call, status) "
          f"sent and answered so, 4 times{'; short: ' + str(list(short.items())[:4]) if short else ''}")
# the capture without its NFSv4 clients' set-up: each of them gets a
# session of the replay's own before the start, all at once (each on its
# own connection, the next step as its reply comes), then every call
run = "multi-cut"
cutcap = os.path.join(out, "multi-cut.pcap")
trecs = calls(checklib.records(dissect, cutcap)) if os.path.exists(cutcap) else []
tsetup = [r for r in trecs if r.get("procedure") in ("EXCHANGE_ID", "CREATE_SESSION", "RECLAIM_COMPLETE")]
check(trecs and not tsetup, f"{run}: the cut capture has {len(trecs)} calls, no set-up ({len(tsetup)})")
rc, o, err = checklib.jstep(out, run)
o = o if isinstance(o, dict) else {}
t, b = o.get("totals", {}), o.get("blocking") or {}
check(rc == 0 and t.get("trace") == len(trecs) and t.get("same_status") == len(trecs),
      f"{run}: exit {rc}, {t.get('same_status')} of {len(trecs)} calls with the traced status"
      f"{' ' + err.strip()[:200] if rc else ''}")
v4 = [c for c in o.get("clients", []) if c.get("vers") == 4]
check(len(v4) == 3 and (b.get("setup") or {}).get("n") == 0 and (b.get("before_start") or {}).get("n") == 1,
      f"{run}: the {len(v4)} NFSv4 clients' own sessions set up before the start, in one go "
      f"(before_start {b.get('before_start')}), none inline (setup {b.get('setup')})")
n = nconn(o)
mine = conns[at:at + n]
at += n
rep = sorted((r for c in mine for r in c), key=lambda r: r["frame_call"])
own = [r for r in rep if r.get("procedure") in ("EXCHANGE_ID", "CREATE_SESSION", "RECLAIM_COMPLETE")]
rest = [r for r in rep if r not in own]
exid = [r for r in own if r.get("procedure") == "EXCHANGE_ID"]
check(collections.Counter(r.get("procedure") for r in own) ==
      {"EXCHANGE_ID": 3, "CREATE_SESSION": 3, "RECLAIM_COMPLETE": 3}
      and all(r.get("status") == "OK" for r in own) and rest
      and max(r["frame_call"] for r in own) < rest[0]["frame_call"],
      f"{run}: capture: the replay's own EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, three of each, all OK, "
      f"before the trace's first call ({collections.Counter((r.get('procedure'), r.get('status')) for r in own)})")
# at once, not one client after another: one after another, a client's
# EXCHANGE_ID would follow the previous client's RECLAIM_COMPLETE.  (Not
# "before the first reply": the posts are back to back, but on a loaded
# host soft-RoCE can put a reply on the wire before the third call.)
rcl = [r["frame_call"] for r in own if r.get("procedure") == "RECLAIM_COMPLETE"]
check(len(exid) == 3 and len({r.get("conn") for r in exid}) == 3 and rcl
      and max(r["frame_call"] for r in exid) < min(rcl),
      f"{run}: capture: the three EXCHANGE_IDs at once, each on its client's connection, all sent before the "
      f"first RECLAIM_COMPLETE (EXCHANGE_ID calls {[r['frame_call'] for r in exid]}, replies "
      f"{[r.get('frame_reply') for r in exid]}; RECLAIM_COMPLETE calls {rcl})")
# --clients 2 without --allow-mutations of a capture that changes state
rc, o, err = checklib.step(out, "multi-x2-ro")
check(rc == 4 and "changes state on the server" in err and "--allow-mutations" in err,
      f"multi-x2-ro: --clients 2 without --allow-mutations refused: exit {rc}, {err.strip()[:200]!r}")
check.finish()
