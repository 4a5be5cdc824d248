#!/usr/bin/env python3
"""Judges a run of tests/replay/scenarios/replay-rebind (OUT dir):
nfsrdma-replay --delegations --disconnect-after of
tests/captures/nfs41-deleg.pcap over RDMA and over TCP, and the lab's
capture of both.  The replay drops its connection once the target has
granted it the delegation the server then recalls; the new connection
must be bound to the session's back channel (BIND_CONN_TO_SESSION) and
the recall must come, and be answered, on it.  Which connection carried
what is read from the capture (the dissector for RDMA, tshark for both),
not from the replay's report.  Prints one line per check and ends with
'replay-rebind: N passed, N failed'.

Usage: check-rebind.py OUTDIR DISSECT_BINARY
"""
import collections
import os
import subprocess
import sys

import checklib

out, dissect = sys.argv[1], sys.argv[2]
check = checklib.Checks("replay-rebind")
cap = os.path.join(out, "capture.pcap")


def tshark(flt, *fields):
    """Rows (tuples of fields) of the frames matching flt (two-pass)."""
    args = ["tshark", "-2", "-r", cap, "-Y", flt, "-T", "fields"]
    for f in fields or ("frame.number",):
        args += ["-e", f]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:   # a bad filter must not read as "nothing matched"
        check(False, f"tshark -Y '{flt}': {p.stderr.strip()[:200]}")
    return [tuple(ln.split("\t")) for ln in p.stdout.splitlines() if ln.strip()]


MAX_IDLE = 1.5   # the scenario's --max-idle (client.sh)


def idle_truth(trace):
    """The trace's idle stretches (no NFS call in flight) over MAX_IDLE, by
    tshark: how many, and the time --max-idle leaves out (ns)."""
    p = subprocess.run(["tshark", "-r", trace, "-Y", "rpc.program == 100003", "-T", "fields",
                        "-e", "frame.time_epoch", "-e", "rpc.xid", "-e", "rpc.msgtyp"],
                       capture_output=True, text=True)
    calls, busy_end, n, removed = {}, None, 0, 0
    for ln in p.stdout.splitlines():
        ts, xid, typ = ln.split("\t")[:3]
        t_ns = int(round(float(ts) * 1e9))
        if typ == "0":
            if busy_end is not None and t_ns - busy_end > MAX_IDLE * 1e9:
                n += 1
                removed += t_ns - busy_end - int(MAX_IDLE * 1e9)
            calls[xid] = t_ns
            busy_end = max(busy_end or 0, t_ns)
        elif xid in calls:
            busy_end = max(busy_end or 0, t_ns)
    return n, removed


TRACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures", "nfs41-deleg.pcap")
idle_n, idle_removed = idle_truth(TRACE)

# ---- the replays' reports -------------------------------------------------
for t in ("rdma", "tcp"):
    name = f"replay-rebind-{t}"
    rc, j, e = checklib.jstep(out, name)
    if not j:
        check(False, f"{name}: JSON report (rc {rc}) {e[:300]}")
        continue
    tot, st, v = j["totals"], j["transport_stats"], j.get("nfs4", {})
    # --max-idle: the stretches tshark finds idle, the time left out within
    # 1 ms of theirs (the capture's timestamps are microseconds; the
    # replay's are the dissector's reading of the same frames)
    ic = j.get("idle_cut") or {}
    check(idle_n >= 1 and ic.get("max_idle_ns") == int(MAX_IDLE * 1e9) and ic.get("stretches") == idle_n
          and abs(ic.get("removed_ns", -10**12) - idle_removed) < 1_000_000,
          f"{name}: --max-idle {MAX_IDLE}: {idle_n} idle stretch(es) of the trace cut, "
          f"{idle_removed / 1e9:.3f} s left out (tshark); the report: {ic}")
    check(rc == 0 and tot["mismatches"] == 0 and tot["errors"] == 0 and tot["lost"] == 0
          and tot["skipped"] == 0,
          f"{name}: exit 0, every call's status as in the trace, none lost (one call at a time: "
          f"nothing in flight at the drop) (rc {rc}, {tot}, {j.get('mismatches', [])[:3]})")
    check(st.get("dropped_on_request") == 1 and st.get("reconnects") == 1,
          f"{name}: the connection dropped once on request and opened again once "
          f"({st.get('dropped_on_request')}, {st.get('reconnects')})")
    check(v.get("back_channel") is True and v.get("connections_bound") == 1
          and v.get("connection_binds_failed") == 0 and v.get("bound_dir") == "both",
          f"{name}: the new connection bound to the session, fore and back channels ({v})")
    # the bind went beside the run loop (it held every client 12-13 ms
    # when it waited): nothing the run loop did synchronously
    b = j.get("blocking") or {}
    kinds = ("setup", "cb_probe", "delegreturn", "path", "open_confirm")
    check(all(isinstance((b.get(k) or {}).get("n"), int) and b[k]["n"] == 0 for k in kinds),
          f"{name}: the bind sent without holding any client: nothing done synchronously in the "
          f"run loop ({[(k, (b.get(k) or {}).get('n')) for k in kinds]})")
    check(v.get("delegations_granted", 0) >= 2 and v.get("delegations_recalled") == 1
          and v.get("delegations_returned") == 1 + v.get("delegations_unasked", 0)
              and v.get("delegation_returns_failed") == 0,
          f"{name}: the target granted the trace's delegations, recalled one after the reconnect, "
          f"and got it back ({v.get('delegations_granted')}, {v.get('delegations_recalled')}, "
          f"{v.get('delegations_returned')})")
    check("dropping the connection after xid 0xb3be3cc2" in e and "reconnected" in e,
          f"{name}: says where it dropped the connection and that it reconnected")
    wf = os.path.join(out, f"recall-write.rebind-{t}.txt")
    w = open(wf).read().split() if os.path.exists(wf) else []
    check(w[:1] == ["ok"] and int(w[1]) <= 5,
          f"server ({t}): its write to deleg/recalled, made once the replay was back on a new "
          f"connection, finished in seconds: the recall reached the replay ({w})")
    first = os.path.join(out, f"rebind-conns.rebind-{t}.first")
    second = os.path.join(out, f"rebind-conns.rebind-{t}.second")
    check(os.path.exists(first) and os.path.exists(second),
          f"server ({t}): saw the replay's first connection, then a new one")

# ---- the capture: RDMA, by the dissector -----------------------------------
# RPC over RDMA only: the dissector decodes the TCP run too (checked below by tshark)
recs = [r for r in checklib.records(dissect, cap) if r.get("transport", "rdma") == "rdma"] if os.path.exists(cap) else []
by = collections.defaultdict(list)
for r in recs:
    by[r.get("procedure")].append(r)
cs = [r.get("conn") for r in by["CREATE_SESSION"]]
bc = [(r.get("conn"), r.get("status")) for r in by["BIND_CONN_TO_SESSION"]]
rc_ = [(r.get("conn"), r.get("status")) for r in by["CB_RECALL"]]
check(len(cs) == 1 and len(bc) == 1 and len(rc_) == 1,
      f"capture, RDMA (dissector): one CREATE_SESSION, one BIND_CONN_TO_SESSION, one CB_RECALL "
      f"({len(cs)}, {len(bc)}, {len(rc_)})")
if len(cs) == 1 and len(bc) == 1 and len(rc_) == 1:
    check(bc[0][1] == "OK" and rc_[0][1] == "OK" and bc[0][0] == rc_[0][0] != cs[0],
          f"capture, RDMA: BIND_CONN_TO_SESSION answered OK on a connection other than the session's "
          f"first, and the CB_RECALL came and was answered OK on that one (conns: session {cs[0]}, "
          f"bind {bc[0]}, recall {rc_[0]})")
    # a SEQUENCE first would bind the connection to the fore channel and the
    # bind for the back channel be refused (a CI run: INVAL, eight times)
    on = sorted((r for r in recs if r.get("conn") == bc[0][0] and r.get("prog") == 100003),
                key=lambda r: r["ts"]["call_first"])
    b = [r for r in on if r.get("procedure") == "BIND_CONN_TO_SESSION"]
    before = [r.get("procedure") for r in on
              if b and r is not b[0] and r["ts"]["call_first"] < (b[0]["ts"]["reply_first"] or 2**63)]
    check(on and on[0].get("procedure") == "BIND_CONN_TO_SESSION" and not before,
          f"capture, RDMA: the bind the first call on the new connection, none sent before its "
          f"answer (first {[r.get('procedure') for r in on[:3]]}, before the answer {before})")
v = subprocess.run([dissect, "-V", cap], capture_output=True, text=True).stdout
check("dir: BACK_OR_BOTH rdma_mode: false" in v and "bound: BOTH rdma_mode: false" in v,
      "capture, RDMA (dissector -V): the bind asked for BACK_OR_BOTH and got BOTH")

# ---- the capture: both transports, by tshark --------------------------------
for t, flt, conn in (("RDMA", "infiniband", None), ("TCP", "tcp.port == 2049", "tcp.stream")):
    fields = ("frame.number",) + ((conn,) if conn else ())
    binds = tshark(f"{flt} && nfs.opcode == 41 && rpc.msgtyp == 0", *(fields + ("nfs.bctsa_dir",)))
    bound = tshark(f"{flt} && nfs.opcode == 41 && rpc.msgtyp == 1", *(fields + ("nfs.bctsr_dir",)))
    recalls = tshark(f"{flt} && nfs.cb.operation == 4 && rpc.msgtyp == 0", *fields)
    answers = tshark(f"{flt} && nfs.cb.operation == 4 && rpc.msgtyp == 1", *fields)
    check(len(binds) == 1 and len(bound) == 1 and int(binds[0][-1], 0) == 7
          and int(bound[0][-1], 0) == 3,
          f"capture, {t} (tshark): one BIND_CONN_TO_SESSION, dir BACK_OR_BOTH (7), answered BOTH (3) "
          f"({binds}, {bound})")
    check(len(recalls) == 1 and len(answers) == 1 and binds and int(recalls[0][0]) > int(binds[0][0]),
          f"capture, {t} (tshark): the CB_RECALL after the bind, and answered ({recalls}, {answers})")
    if conn:
        sess = tshark(f"{flt} && nfs.opcode == 43 && rpc.msgtyp == 0", *fields)
        check(len(sess) == 1 and binds and recalls and answers
              and binds[0][1] == recalls[0][1] == answers[0][1] != sess[0][1],
              f"capture, TCP (tshark): the bind and the recall on the new connection, not the session's "
              f"first (streams: session {sess}, bind {binds}, recall {recalls})")
        if binds and bound:
            calls = tshark(f"{flt} && tcp.stream == {binds[0][1]} && rpc.program == 100003 "
                           f"&& rpc.msgtyp == 0", "frame.number", "nfs.opcode")
            early = [c for c in calls if int(c[0]) < int(bound[0][0]) and c[0] != binds[0][0]]
            check(calls and calls[0][0] == binds[0][0] and not early,
                  f"capture, TCP (tshark): the bind the first call on the new connection, none "
                  f"sent before its answer (first {calls[:3]}, before the answer {early})")
check.finish()
