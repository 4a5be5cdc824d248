#!/usr/bin/env python3
"""Judges a run of tests/replay/scenarios/replay-nfs40-locks (OUT dir):
nfsrdma-replay's reports of tests/captures/nfs40-locks.pcap and the lab's
capture of those replays, both dissected by nfsrdma-dissect.  What the
trace holds (how many LOCKs, which were DENIED...) is read from the
committed capture with the dissector, not from the replay's report.
Prints one line per check and ends with 'replay-nfs40-locks: N passed,
N failed'.

Usage: check-nfs40-locks.py OUTDIR DISSECT_BINARY TRACE.pcap
"""
import collections
import os
import sys

import checklib

out, dissect, trace = sys.argv[1], sys.argv[2], sys.argv[3]
check = checklib.Checks("replay-nfs40-locks")


def jstep(name):
    return checklib.jstep(out, name)


LOCK_OPS = ("LOCK", "LOCKU", "LOCKT", "OPEN_DOWNGRADE", "RELEASE_LOCKOWNER")


def records(pcap):
    return [r for r in checklib.records(dissect, pcap) if r.get("program") == "NFSv4.0"]


def by_status(recs):
    """{(procedure, status): count} of NFSv4.0 COMPOUNDs."""
    return collections.Counter((r.get("procedure"), r.get("status")) for r in recs)


# ---- the trace, read by the dissector ------------------------------------
trecs = records(trace)
tc = by_status(trecs)
tproc = collections.Counter(r.get("procedure") for r in trecs)
check(all(tproc[o] >= 1 for o in LOCK_OPS) and tc[("LOCK", "DENIED")] == 1
      and tc[("LOCKT", "DENIED")] == 1,
      f"trace: LOCK, LOCKU, LOCKT, OPEN_DOWNGRADE, RELEASE_LOCKOWNER; one LOCK and one LOCKT DENIED "
      f"({ {o: tproc[o] for o in LOCK_OPS} })")

# ---- 1. --allow-mutations: every call as in the trace ----------------------
rc, j, e = jstep("replay-nfs40-locks")
if j:
    t = j["totals"]
    ops = {o["op"]: o for o in j["ops"]}
    v = j.get("nfs4", {})
    check(t["mismatches"] == 0 and t["errors"] == 0 and t["lost"] == 0
          and t["refused"] == 0 and t["after_refused"] == 0,
          f"replay-nfs40-locks: no mismatch, error, loss or refusal (rc {rc}, {t}, {j['mismatches'][:3]})")
    # The trace's client held read delegations; the replay's (empty
    # callback) gets none (docs/replay.md, "No callbacks").  Its
    # DELEGRETURNs are not sent, counted as no_delegation (not an error,
    # exit 0); the I/O it did under a delegation stateid goes with the
    # open stateid of the OPEN that granted it, and gets the trace's status.
    nodeleg = {k: o["no_delegation"] for k, o in ops.items() if o.get("no_delegation")}
    check(rc == 0 and t["skipped"] == 0 and t.get("no_delegation") == tproc["DELEGRETURN"] > 0
          and nodeleg == {"NFSv4.0 DELEGRETURN": tproc["DELEGRETURN"]},
          f"replay-nfs40-locks: exit 0, nothing skipped, the trace's {tproc['DELEGRETURN']} DELEGRETURNs "
          f"not sent, counted no_delegation (rc {rc}, skipped {t['skipped']}, {nodeleg})")
    rd = ops.get("NFSv4.0 READ", {})
    check(tproc["READ"] > 0 and rd.get("trace") == rd.get("replayed") == rd.get("same_status") == tproc["READ"],
          f"replay-nfs40-locks: the trace's {tproc['READ']} READ (under a delegation stateid) replayed "
          f"with its status ({rd.get('replayed')} sent, {rd.get('same_status')} same)")
    check(v.get("delegations_absent", 0) >= tproc["DELEGRETURN"] and v.get("delegations_granted") == 0,
          f"replay-nfs40-locks: the target granted no delegation; each trace delegation stood for "
          f"by its OPEN's open stateid ({v})")
    check(v.get("minor") == 0 and v.get("seqid_errors") == 0,
          f"replay-nfs40-locks: NFSv4.0, no owner seqid refused by the target ({v})")
    for o in LOCK_OPS + ("OPEN", "CLOSE", "OPEN_CONFIRM"):
        s = ops.get("NFSv4.0 " + o, {})
        check(s.get("trace") == tproc[o] and s.get("replayed") == tproc[o]
              and s.get("same_status") == tproc[o],
              f"replay-nfs40-locks: {tproc[o]} {o} in the trace, all replayed with its status ({s.get('replayed')} sent, "
              f"{s.get('same_status')} same)")
else:
    check(False, f"replay-nfs40-locks: JSON report (rc {rc}) {e[:300]}")

# ---- 1b. the same replay, text report: the category and its reason -------
rc, o, e = checklib.step(out, "replay-nfs40-locks-text")
row = next((ln.split() for ln in o.splitlines() if ln.startswith("NFSv4.0 DELEGRETURN ")), [])
check(rc == 0 and "nodeleg" in o and "never granted" in o and len(row) > 11
      and row[3] == "0" and row[11] == str(tproc["DELEGRETURN"]),
      f"replay-nfs40-locks-text: exit 0, DELEGRETURN row: 0 sent, {tproc['DELEGRETURN']} nodeleg, "
      f"and the note says why (rc {rc}, row {row[:12]})")

# ---- 2. read-only: LOCK is a mutation --------------------------------------
rc, j, e = jstep("replay-nfs40-locks-readonly")
if j:
    t = j["totals"]
    ops = {o["op"]: o for o in j["ops"]}
    lk = ops.get("NFSv4.0 LOCK", {})
    check(rc == 4 and lk.get("refused") == tproc["LOCK"] and lk.get("replayed") == 0,
          f"replay-nfs40-locks-readonly: exit 4, all {tproc['LOCK']} LOCKs refused ({lk})")
    check(t["errors"] == 0 and t["lost"] == 0 and j.get("nfs4", {}).get("seqid_errors") == 0,
          f"replay-nfs40-locks-readonly: no error, no owner seqid refused ({t}, {j.get('nfs4')})")
    lu = ops.get("NFSv4.0 LOCKU", {})
    check(lu.get("replayed") == 0 and lu.get("after_refused") == tproc["LOCKU"],
          f"replay-nfs40-locks-readonly: every LOCKU names a refused LOCK's stateid: after_refused ({lu})")
else:
    check(False, f"replay-nfs40-locks-readonly: JSON report (rc {rc}) {e[:300]}")

# ---- 2b. at --speed 1 against a 10 s lease: the replay's RENEWs ----------
rc, j, e = jstep("replay-nfs40-locks-renew")
if j:
    t, v, b = j["totals"], j.get("nfs4", {}), j.get("blocking") or {}
    kinds = ("setup", "cb_probe", "delegreturn", "path", "open_confirm")
    check(rc == 0 and t["mismatches"] == 0 and t["errors"] == 0 and t["lost"] == 0
          and t["same_status"] == t["replayed"] > 0,
          f"replay-nfs40-locks-renew: exit 0, every call with the traced status over the trace's 14 s "
          f"(rc {rc}, {t})")
    check(v.get("lease_s") == 10 and v.get("renews", 0) >= 1,
          f"replay-nfs40-locks-renew: the target's 10 s lease learned, RENEWed at least once "
          f"(lease_s {v.get('lease_s')}, renews {v.get('renews')})")
    check(all(isinstance((b.get(k) or {}).get("n"), int) and b[k]["n"] == 0 for k in kinds),
          f"replay-nfs40-locks-renew: the RENEWs held no client: nothing done synchronously in the run "
          f"loop ({[(k, (b.get(k) or {}).get('n')) for k in kinds]})")
else:
    check(False, f"replay-nfs40-locks-renew: JSON report (rc {rc}) {e[:300]}")
    v = {}

# ---- 3. the lab's capture of the replays ----------------------------------
cap = os.path.join(out, "capture.pcap")
rrecs = records(cap) if os.path.exists(cap) else []
rs = by_status(rrecs)
rproc = collections.Counter(r.get("procedure") for r in rrecs)
check(len(rrecs) > 40, f"capture: NFSv4.0 COMPOUNDs of the replays dissected ({len(rrecs)})")
# the read-only run sends no LOCK: the wire holds the three runs with
# --allow-mutations (JSON and text report, --speed 1) only
MUT = 3
check(rproc["LOCK"] == MUT * tproc["LOCK"] and rs[("LOCK", "DENIED")] == MUT
      and rs[("LOCKT", "DENIED")] == MUT,
      f"capture: the replays' LOCKs ({rproc['LOCK']}, trace {tproc['LOCK']} x {MUT} runs); the conflicting "
      f"LOCK and LOCKT DENIED by the target as in the trace, in each run")
bad = [(r.get("xid"), r.get("procedure"), r.get("status")) for r in rrecs
       if r.get("status") in ("BAD_SEQID", "BAD_STATEID", "OLD_STATEID", "STALE_CLIENTID", "GRACE")]
check(not bad, f"capture: no NFSv4.0 reply says BAD_SEQID, BAD/OLD_STATEID, STALE_CLIENTID or GRACE ({bad[:4]})")
check(rproc["DELEGRETURN"] == 0 and rs[("READ", "OK")] == MUT * tproc["READ"],
      f"capture: no DELEGRETURN on the wire (trace {tproc['DELEGRETURN']}); the trace's READ under a "
      f"delegation answered OK in each run ({rs[('READ', 'OK')]})")
check(rs[("OPEN_DOWNGRADE", "OK")] == MUT * tproc["OPEN_DOWNGRADE"]
      and rs[("LOCKU", "OK")] == MUT * tproc["LOCKU"]
      and rs[("RELEASE_LOCKOWNER", "OK")] >= MUT * tproc["RELEASE_LOCKOWNER"],
      f"capture: OPEN_DOWNGRADE, LOCKU and RELEASE_LOCKOWNER answered OK on the wire "
      f"({ {o: rproc[o] for o in LOCK_OPS} })")

# RENEW is in no run but the --speed 1 one (the others last under 5 s)
check(rproc["RENEW"] == v.get("renews", -1) >= 1 and rs[("RENEW", "OK")] == rproc["RENEW"],
      f"capture: the replay's RENEWs on the wire, each answered OK ({rproc['RENEW']} sent, "
      f"{rs[('RENEW', 'OK')]} OK, the report says {v.get('renews')})")

check.finish()
