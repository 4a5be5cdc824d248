#!/usr/bin/env python3
"""Judges a run of tests/replay/scenarios/replay-nfs41-deleg (OUT dir):
nfsrdma-replay's reports of tests/captures/nfs41-deleg.pcap and the lab's
capture of those replays.  What the trace holds (its delegations, the
OPEN that claims one, the READ under one after its CLOSE) is read from
the committed capture with the dissector and tshark, not from the
replay's report.  Prints one line per check and ends with
'replay-nfs41-deleg: N passed, N failed'.

Usage: check-nfs41-deleg.py OUTDIR DISSECT_BINARY TRACE.pcap
"""
import collections
import json
import os
import subprocess
import sys

import checklib

out, dissect, trace = sys.argv[1], sys.argv[2], sys.argv[3]
check = checklib.Checks("replay-nfs41-deleg")
RUNS = 2   # the JSON and the text replay


def records(pcap):
    p = subprocess.run([dissect, "--json", pcap], capture_output=True, text=True)
    recs = []
    for line in p.stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
    return recs


def tshark(pcap, flt, field="frame.number"):
    """Values of field in the frames matching flt (two-pass), one per frame."""
    p = subprocess.run(["tshark", "-2", "-r", pcap, "-Y", flt, "-T", "fields", "-e", field],
                       capture_output=True, text=True)
    return [ln for ln in p.stdout.splitlines() if ln.strip()]


ZERO = "000000000000000000000000"

# ---- the trace -------------------------------------------------------------
trecs = records(trace)
t41 = [r for r in trecs if r.get("program") == "NFSv4.1"]
tproc = collections.Counter(r.get("procedure") for r in t41)
tcb = [r for r in trecs if r.get("program") == "NFSv4-CB"]
claims5 = len(tshark(trace, "nfs.open.claim_type == 5 && rpc.msgtyp == 0"))
tdelegs = len(tshark(trace, "nfs.open.delegation_type == 1 && rpc.msgtyp == 1"))
# READ calls by stateid: the delegations' others are those DELEGRETURN gives back
dret_others = set(tshark(trace, "nfs.opcode == 8 && rpc.msgtyp == 0", "nfs.stateid.other"))
read_sids = [s.split(",")[-1] for s in tshark(trace, "nfs.opcode == 25 && rpc.msgtyp == 0",
                                                "nfs.stateid.other")]
under_deleg = [s for s in read_sids if s in dret_others]
check(tdelegs == 2 and tproc["DELEGRETURN"] == 2 and claims5 == 1 and len(tcb) == 1
      and len(under_deleg) == 3,
      f"trace: 2 read delegations, 2 DELEGRETURNs, 1 OPEN CLAIM_DELEG_CUR_FH, 1 CB_RECALL, 3 READs "
      f"under a delegation stateid ({tdelegs}, {tproc['DELEGRETURN']}, {claims5}, {len(tcb)}, "
      f"{len(under_deleg)})")

# ---- 1. the JSON report ----------------------------------------------------
rc, j, e = checklib.jstep(out, "replay-nfs41-deleg")
if j:
    t = j["totals"]
    ops = {o["op"]: o for o in j["ops"]}
    v = j.get("nfs4", {})
    check(rc == 0 and t["mismatches"] == 0 and t["errors"] == 0 and t["lost"] == 0
          and t["skipped"] == 0 and t["refused"] == 0,
          f"replay-nfs41-deleg: exit 0, no mismatch, error, loss, skip or refusal (rc {rc}, {t}, "
          f"{j.get('mismatches', [])[:3]})")
    check(t.get("no_delegation") == tproc["DELEGRETURN"]
          and ops.get("v4 DELEGRETURN", {}).get("no_delegation") == tproc["DELEGRETURN"],
          f"replay-nfs41-deleg: the trace's {tproc['DELEGRETURN']} DELEGRETURNs not sent, no_delegation "
          f"({t.get('no_delegation')})")
    check(v.get("minor") == 1 and v.get("delegations_absent") == tdelegs and v.get("delegations_granted") == 0,
          f"replay-nfs41-deleg: NFSv4.1; the target granted none of the trace's {tdelegs} delegations ({v})")
    check(v.get("delegation_claims_made_plain") == claims5,
          f"replay-nfs41-deleg: the OPEN claiming a delegation sent as a plain OPEN "
          f"({v.get('delegation_claims_made_plain')}, trace {claims5})")
    check(v.get("delegation_io_anonymous") == 1,
          f"replay-nfs41-deleg: the READ under a delegation after its OPEN's CLOSE sent with the anonymous "
          f"stateid ({v.get('delegation_io_anonymous')})")
    # the replay counts by operation: the dissector's OPEN_NOATTR (an
    # OPEN by handle, as the Linux client names it) is an OPEN
    want = {"OPEN": tproc["OPEN"] + tproc["OPEN_NOATTR"], "READ": tproc["READ"], "CLOSE": tproc["CLOSE"]}
    for o, n in want.items():
        s = ops.get("v4 " + o, {})
        check(n > 0 and s.get("trace") == s.get("replayed") == s.get("same_status") == n,
              f"replay-nfs41-deleg: {n} {o} in the trace, all replayed with its status "
              f"({s.get('replayed')} sent, {s.get('same_status')} same)")
else:
    check(False, f"replay-nfs41-deleg: JSON report (rc {rc}) {e[:300]}")

# ---- 2. the text report: the notes say what was done -----------------------
rc, o, e = checklib.step(out, "replay-nfs41-deleg-text")
check(rc == 0 and "never granted" in o and "plain opens" in o and "anonymous stateid" in o,
      f"replay-nfs41-deleg-text: exit 0, notes on the delegations, the plain OPEN and the anonymous "
      f"stateid (rc {rc})")

# ---- 3. the lab's capture of both replays ----------------------------------
cap = os.path.join(out, "capture.pcap")
rrecs = records(cap) if os.path.exists(cap) else []
r41 = [r for r in rrecs if r.get("program") == "NFSv4.1"]
rs = collections.Counter((r.get("procedure"), r.get("status")) for r in r41)
rproc = collections.Counter(r.get("procedure") for r in r41)
check(len(r41) > 20, f"capture: NFSv4.1 COMPOUNDs of the replays dissected ({len(r41)})")
check(rproc["DELEGRETURN"] == 0 and not [r for r in rrecs if r.get("program") == "NFSv4-CB"],
      f"capture: no DELEGRETURN, and no callback (the replay's session has no back channel) "
      f"({rproc['DELEGRETURN']})")
check(len(tshark(cap, "nfs.open.claim_type == 5")) == 0
      and len(tshark(cap, "nfs.open.claim_type == 4 && rpc.msgtyp == 0")) == RUNS * claims5,
      f"capture: no OPEN claims a delegation; the trace's claim went as CLAIM_FH, once per run")
anon = [s for s in tshark(cap, "nfs.opcode == 25 && rpc.msgtyp == 0", "nfs.stateid.other")
        if s.split(",")[-1] == ZERO]
check(len(anon) == RUNS and rs[("READ", "OK")] == RUNS * tproc["READ"],
      f"capture: every READ answered OK ({rs[('READ', 'OK')]}, trace {tproc['READ']} x {RUNS}), "
      f"one per run with the anonymous stateid ({len(anon)})")
bad = [(r.get("xid"), r.get("procedure"), r.get("status")) for r in r41
       if r.get("status") in ("BAD_STATEID", "OLD_STATEID", "BAD_SEQID", "GRACE", "SEQ_MISORDERED")]
check(not bad, f"capture: no reply says BAD/OLD_STATEID, BAD_SEQID, GRACE or SEQ_MISORDERED ({bad[:4]})")

check.finish()
