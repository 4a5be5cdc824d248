#!/usr/bin/env python3
"""Judges a run of tests/replay/scenarios/replay-deleg (OUT dir):
nfsrdma-replay's reports of tests/captures/nfs41-deleg.pcap and
nfs40-deleg.pcap, and the lab's capture of those replays.  What each
trace holds (its delegations, the OPEN that claims one, the READs under
one) is read from the committed capture with the dissector and tshark,
not from the replay's report.  Prints one line per check and ends with
'replay-deleg: N passed, N failed'.

Usage: check-deleg.py OUTDIR DISSECT_BINARY NFS41-DELEG.pcap NFS40-DELEG.pcap
"""
import collections
import os
import subprocess
import sys

import checklib

out, dissect = sys.argv[1], sys.argv[2]
traces = {"nfs41-deleg": (sys.argv[3], 1), "nfs40-deleg": (sys.argv[4], 0)}
check = checklib.Checks("replay-deleg")
RUNS = 2   # per trace: the JSON and the text replay
ZERO = "000000000000000000000000"
CLAIM_CUR = {1: 5, 0: 2}    # CLAIM_DELEG_CUR_FH, CLAIM_DELEGATE_CUR
CLAIM_PLAIN = {1: 4, 0: 0}  # CLAIM_FH, CLAIM_NULL


def records(pcap):
    return checklib.records(dissect, pcap)


def tshark(pcap, flt, field="frame.number"):
    """Values of field in the frames matching flt (two-pass), one per frame."""
    p = subprocess.run(["tshark", "-2", "-r", pcap, "-Y", flt, "-T", "fields", "-e", field],
                       capture_output=True, text=True)
    if p.returncode != 0:   # a bad filter must not read as "nothing matched"
        check(False, f"tshark -Y '{flt}' on {os.path.basename(pcap)}: {p.stderr.strip()[:200]}")
    return [ln for ln in p.stdout.splitlines() if ln.strip()]


def last(field):
    return field.split(",")[-1]


cap = os.path.join(out, "capture.pcap")
# The dissector's records of RPC over RDMA (it decodes the TCP runs' RPCs
# too: those are checked through tshark, by transport)
rrecs = [r for r in records(cap) if r.get("transport", "rdma") == "rdma"] if os.path.exists(cap) else []
check(len(rrecs) > 40, f"capture: the replays' COMPOUNDs dissected ({len(rrecs)})")
anon_total = 0
for name, (trace, minor) in traces.items():
    prog = f"NFSv4.{minor}"
    mv = f"nfs.minorversion == {minor}"
    # ---- the trace ---------------------------------------------------------
    trecs = [r for r in records(trace) if r.get("program") == prog]
    tproc = collections.Counter(r.get("procedure") for r in trecs)
    claims = len(tshark(trace, f"nfs.open.claim_type == {CLAIM_CUR[minor]} && rpc.msgtyp == 0"))
    recalls = len(tshark(trace, "nfs.cb.operation == 4 && rpc.msgtyp == 0"))
    tdelegs = len(tshark(trace, "nfs.open.delegation_type == 1 && rpc.msgtyp == 1"))
    dret = set(tshark(trace, "nfs.opcode == 8 && rpc.msgtyp == 0", "nfs.stateid.other"))
    under = [s for s in tshark(trace, "nfs.opcode == 25 && rpc.msgtyp == 0", "nfs.stateid.other")
             if last(s) in dret]
    check(tdelegs == 2 and tproc["DELEGRETURN"] == 2 and claims == 1 and recalls == 1 and len(under) == 3,
          f"{name} trace: 2 read delegations, 2 DELEGRETURNs, 1 OPEN claiming one (claim "
          f"{CLAIM_CUR[minor]}), 1 CB_RECALL, 3 READs under a delegation stateid ({tdelegs}, "
          f"{tproc['DELEGRETURN']}, {claims}, {recalls}, {len(under)})")
    # ---- the JSON report ---------------------------------------------------
    rc, j, e = checklib.jstep(out, f"replay-{name}")
    if j:
        t = j["totals"]
        ops = {o["op"]: o for o in j["ops"]}
        v = j.get("nfs4", {})
        check(rc == 0 and t["mismatches"] == 0 and t["errors"] == 0 and t["lost"] == 0
              and t["skipped"] == 0 and t["refused"] == 0,
              f"replay-{name}: exit 0, no mismatch, error, loss, skip or refusal (rc {rc}, {t}, "
              f"{j.get('mismatches', [])[:3]})")
        check(t.get("no_delegation") == tproc["DELEGRETURN"]
              and ops.get(prog + " DELEGRETURN", {}).get("no_delegation") == tproc["DELEGRETURN"],
              f"replay-{name}: the trace's {tproc['DELEGRETURN']} DELEGRETURNs not sent, no_delegation "
              f"({t.get('no_delegation')})")
        check(v.get("minor") == minor and v.get("delegations_absent") == tdelegs
              and v.get("delegations_granted") == 0,
              f"replay-{name}: NFSv4.{minor}; the target granted none of the trace's {tdelegs} "
              f"delegations ({v})")
        check(v.get("delegation_claims_made_plain") == claims and v.get("delegation_io_anonymous") == 1,
              f"replay-{name}: the OPEN claiming a delegation sent as a plain OPEN, the READ under one "
              f"after its OPEN's CLOSE with the anonymous stateid ({v.get('delegation_claims_made_plain')}, "
              f"{v.get('delegation_io_anonymous')})")
        # the replay names calls as the dissector does: an OPEN by handle
        # is OPEN_NOATTR (as the Linux client names it), a row of its own
        want = {"OPEN": tproc["OPEN"], "READ": tproc["READ"], "CLOSE": tproc["CLOSE"]}
        if tproc["OPEN_NOATTR"]:
            want["OPEN_NOATTR"] = tproc["OPEN_NOATTR"]
        for o, n in want.items():
            s = ops.get(prog + " " + o, {})
            check(n > 0 and s.get("trace") == s.get("replayed") == s.get("same_status") == n,
                  f"replay-{name}: {n} {o} in the trace, all replayed with its status "
                  f"({s.get('replayed')} sent, {s.get('same_status')} same)")
    else:
        check(False, f"replay-{name}: JSON report (rc {rc}) {e[:300]}")
    # ---- the text report: the notes say what was done ----------------------
    rc, o, e = checklib.step(out, f"replay-{name}-text")
    check(rc == 0 and "never granted" in o and "plain opens" in o and "anonymous stateid" in o,
          f"replay-{name}-text: exit 0, notes on the delegations, the plain OPEN and the anonymous "
          f"stateid (rc {rc})")
    # ---- the lab's capture of the replays of this trace --------------------
    r4 = [r for r in rrecs if r.get("program") == prog]
    rs = collections.Counter((r.get("procedure"), r.get("status")) for r in r4)
    check(len(tshark(cap, f"nfs.open.claim_type == {CLAIM_CUR[minor]}")) == 0,
          f"capture: no NFSv4.{minor} OPEN claims a delegation (claim {CLAIM_CUR[minor]})")
    anon = [s for s in tshark(cap, f"nfs.opcode == 25 && rpc.msgtyp == 0 && {mv}", "nfs.stateid.other")
            if last(s) == ZERO]
    runs = RUNS + 1   # + the --delegations run over RDMA (below)
    check(len(anon) == RUNS and rs[("READ", "OK")] == runs * tproc["READ"],
          f"capture: every NFSv4.{minor} READ answered OK ({rs[('READ', 'OK')]}, trace {tproc['READ']} x "
          f"{runs}), one per run without delegations with the anonymous stateid ({len(anon)})")
    bad = [(r.get("xid"), r.get("procedure"), r.get("status")) for r in r4
           if r.get("status") in ("BAD_STATEID", "OLD_STATEID", "BAD_SEQID", "GRACE", "SEQ_MISORDERED")]
    check(not bad, f"capture: no NFSv4.{minor} reply says BAD/OLD_STATEID, BAD_SEQID, GRACE or "
          f"SEQ_MISORDERED ({bad[:4]})")
# ---- --delegations: the 4.1 trace again, the replay serving its back
# channel, over RDMA and over TCP; the server recalls the delegation on
# deleg/recalled as soon as the replay's client holds it (a local write),
# as the traced server did
trace41 = traces["nfs41-deleg"][0]
t41 = collections.Counter(r.get("procedure") for r in records(trace41) if r.get("program") == "NFSv4.1")


def cb_run(name, tag, served, min_callbacks, what_served):
    """One --delegations replay: its report and the server's recall."""
    rc, j, e = checklib.jstep(out, name)
    if j:
        t, v = j["totals"], j.get("nfs4", {})
        check(rc == 0 and t["mismatches"] == 0 and t["errors"] == 0 and t["lost"] == 0 and t["skipped"] == 0,
              f"{name} (--delegations): exit 0, every call's status as in the trace (rc {rc}, {t}, "
              f"{j.get('mismatches', [])[:3]})")
        check(v.get(served) is True and v.get("delegations_granted", 0) >= 2 and v.get("delegations_absent") == 0
              and v.get("callback_connections_refused", 0) == 0,
              f"{name}: {what_served}; the target granted the trace's 2 delegations to the replay too ({v})")
        check(v.get("callbacks", 0) >= min_callbacks and v.get("delegations_recalled") == 1
              and v.get("delegations_returned") == 1 + v.get("delegations_unasked", 0)
              and v.get("delegation_returns_failed") == 0,
              f"{name}: the callbacks answered ({v.get('callbacks')}, at least {min_callbacks}), one recall, its "
              f"delegation given back ({v.get('delegations_recalled')}, {v.get('delegations_returned')})")
        check(t.get("no_delegation") == 1 and v.get("delegation_claims_made_plain") == 1
              and v.get("delegation_io_anonymous") == 0,
              f"{name}: after the recall, the trace's OPEN claiming that delegation went plain and its "
              f"DELEGRETURN was not sent; the other delegation's DELEGRETURN and its READ after CLOSE went with "
              f"the target's delegation ({t.get('no_delegation')}, {v.get('delegation_claims_made_plain')}, "
              f"{v.get('delegation_io_anonymous')})")
        # the recall's DELEGRETURN (and, 4.0, the wait for the target's
        # callback probe) went on beside the run loop: no synchronous work
        # held back the calls (the replay's own timing of that work)
        b = j.get("blocking") or {}
        w = b.get("own_cb_probe_waits") or {}
        check(all((b.get(k) or {}).get("n") == 0 for k in ("setup", "cb_probe", "delegreturn"))
              and (w.get("n", 0) >= 1) == (tag == "v40"),
              f"{name}: nothing done synchronously in the run loop (setup, cb_probe, delegreturn: "
              f"{[(k, (b.get(k) or {}).get('n')) for k in ('setup', 'cb_probe', 'delegreturn')]}); "
              f"the 4.0 client's wait for the callback probe its own ({w})")
        print(f"info {name}: issue-time error {j.get('issue')}, holds {j.get('holds')}")
    else:
        check(False, f"{name}: JSON report (rc {rc}) {e[:300]}")
    wf = os.path.join(out, f"recall-write.{tag}.txt")
    w = open(wf).read().split() if os.path.exists(wf) else []
    check(w[:1] == ["ok"] and int(w[1]) <= 5,
          f"server ({tag} run): its write to deleg/recalled (which waits for the recall) finished in seconds ({w})")


for tr in ("rdma", "tcp"):
    cb_run(f"replay-nfs41-deleg-cb-{tr}", tr, "back_channel", 1, "back channel served")
# NFSv4.0: the replay's own callback server; knfsd probes it with CB_NULL
cb_run("replay-nfs40-deleg-cb", "v40", "callback_server", 2, "callback server up")
# (replies carry no minor version: the 4.0 one goes to the server's own
# callback connection, the 4.1 one over TCP to the NFS port's connection)
cb40 = tshark(cap, "nfs.cb.operation == 4 && rpc.msgtyp == 1 && tcp && tcp.dstport != 2049")
check(len(cb40) == 1, f"capture: the 4.0 CB_RECALL answered on the callback connection the server opened "
      f"to the replay (tshark: {len(cb40)} replies)")

check(len(tshark(cap, "nfs.open.claim_type == 4 && rpc.msgtyp == 0 && infiniband")) == RUNS + 1,
      "capture: the 4.1 trace's claim went as CLAIM_FH over RDMA, once per run (no other OPEN by handle)")
rp = collections.Counter((r.get("program"), r.get("procedure"), r.get("status")) for r in rrecs)
cb = [r for r in rrecs if r.get("program") == "NFSv4-CB"]
check(len(cb) == 1 and cb[0].get("procedure") == "CB_RECALL" and cb[0].get("status") == "OK"
      and len(tshark(cap, "nfs.cb.operation == 4 && rpc.msgtyp == 1 && infiniband")) == 1
      and len(tshark(cap, "nfs.cb.operation == 4 && rpc.msgtyp == 1 && tcp.dstport == 2049")) == 1,
      f"capture: one callback over RDMA in all the runs, the CB_RECALL of the --delegations run, answered OK "
      f"on the connection's backchannel (dissector and tshark); one over TCP, answered (tshark) "
      f"({[(r.get('procedure'), r.get('status')) for r in cb]})")
check(rp[("NFSv4.1", "DELEGRETURN", "OK")] == 2 and rp[("NFSv4.0", "DELEGRETURN", "OK")] == 2
      and sum(n for k, n in rp.items() if k[1] == "DELEGRETURN") == 4
      and len(tshark(cap, "nfs.opcode == 8 && rpc.msgtyp == 1 && tcp")) == 2,
      f"capture: over RDMA, two DELEGRETURNs in each --delegations run (the recalled one, the replay's own; "
      f"the trace's other one), all OK, none from the runs without; the same two over TCP "
      f"({t41['DELEGRETURN']} in each trace)")
check(len(tshark(cap, "nfs.cb_procedure == 0 && rpc.msgtyp == 0")) == len(tshark(cap, "nfs.cb_procedure == 0 && "
                                                                                 "rpc.msgtyp == 1 && tcp")) >= 1,
      "capture: CB_NULL only to the 4.0 callback server, and answered (the 4.0 replays without --delegations "
      "give an empty callback address)")
check.finish()
