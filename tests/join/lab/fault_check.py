#!/usr/bin/env python3
"""Checks one fault-matrix lab run (tests/join/lab/fault-matrix;
tests/join/lab/README.md, "The fault matrix"):

  fault_check.py OUTDIR DISSECT [--table FILE]

The truth is the injection: ROLE.faults, each guest's own notes of when
its part of a window's fault was in place, on its CLOCK_MONOTONIC (the
probes' clock).  The client's workload of a window ran between its
work-start and work-stop notes, which lie inside both guests' injection
(the client arms only after the server said "armed", and the server
disarms only after the client's work-stop), so a window's RPCs are the
ones whose client task (client.jsonl, the client probe's own clock)
began after work-start and ended before work-stop: no clock conversion.

What each fault must grow, from first principles (the README says why):

  fault       op            grows (amount)
  srv-delay   all           server_net (+D: the reply leaves the server D late)
              WRITE         pull (+D: the server's RDMA READ requests leave D late)
  cli-delay   all           client_net (+D: the call leaves the client D late)
              WRITE         pull (+D: the client's READ responses leave D late)
  both-delay  all           client_net, server_net (+D each); WRITE pull +2D
  loss        rdma_retrans  server_net or pull (the server's egress drops)
  slow        COMMIT        execute (>= the disk delay: one fsync, one write
                            at least; the journal may add more)
  threads     all           server_queue (a request waits for the one thread)
  slots       all           client_host (a task waits for one of 4 slots)

Per window: the verdict (the record's "verdict") names a grown place for
>= 95 % of the RPCs the fault touches; the added time (window mean minus
the clean window's, per operation) in the grown segment is the injected
amount within max(10 %, the stated uncertainty) where the amount is
known; segments the fault does not touch move by less than 10 % of it;
a one-way half the record states (not merged) holds its direction (the
undelayed direction did not grow beyond its uncertainty).  The segments
come from the fused phases: client_host = client_queue + client_send +
client_done; net = net_out + net_back (a clock-free sum: the client's
round trip minus the server's span); the record's "seg" gives each
side's share of it.
Closing line: "fault-matrix: N passed, N failed"."""
import json
import os
import subprocess
import sys

NAME = "fault-matrix"
DELAY_NS = 20_000_000      # faults.sh FAULT_DELAY_MS
DISK_NS = 20_000_000       # faults.sh FAULT_DISK_MS
SHARE = 0.95
passed = failed = 0
# metadata that reads (META_R) and that changes the file system (META_W:
# knfsd commits it to disk before it answers, so slow storage touches it)
META_R = {"GETATTR", "LOOKUP", "ACCESS"}
META_W = {"CREATE", "REMOVE", "SETATTR"}
OPS = ("READ", "WRITE", "COMMIT", "META_R", "META_W")
# fused phase -> coarse segment; reply_build and push are the server's
# result path after the execute
COARSE = {"client_queue": "client_host", "client_send": "client_host", "client_done": "client_host",
          "net_out": "net", "net_back": "net", "server_queue": "server_queue", "pull": "pull",
          "execute": "execute", "reply_build": "push", "push": "push"}
SEGS = ("client_host", "net", "server_queue", "pull", "execute", "push")


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (NAME, what))
    return ok


def read_faults(path):
    """window -> {event: (mono, what)} from ROLE.faults lines
    'WINDOW EVENT mono=N real=N WHAT'."""
    out = {}
    for line in open(path):
        parts = line.split(None, 4)
        if len(parts) < 4:
            continue
        out.setdefault(parts[0], {})[parts[1]] = (int(parts[2][5:]), parts[4].strip() if len(parts) > 4 else "")
    return out


def coarse(ns):
    """The record's fused phases summed into SEGS; None when a merged span
    crosses two of them (the record cannot tell them apart)."""
    seg = dict.fromkeys(SEGS, 0)
    for k, v in ns.items():
        if k == "total" or v is None:
            continue
        names = {COARSE.get(p) for p in k.split("+")}
        if len(names) != 1 or None in names:
            return None
        seg[names.pop()] += v
    return seg


def op_group(r):
    if r.get("program") != "NFSv3":
        return None
    p = r.get("procedure") or ""
    return "META_R" if p in META_R else "META_W" if p in META_W else p if p in OPS else None


def expected(window, op):
    """(places the verdict may name, {segment: added ns or None (grows, amount
    unknown)}) for an RPC of op in window."""
    D = DELAY_NS
    if window == "srv-delay":
        g = {"net": D, "server_net": D}
        if op == "WRITE":
            g["pull"] = D
        return {"server_net", "pull"} if op == "WRITE" else {"server_net"}, g
    if window == "cli-delay":
        g = {"net": D, "client_net": D}
        if op == "WRITE":
            g["pull"] = D
        return {"client_net", "pull"} if op == "WRITE" else {"client_net"}, g
    if window == "both-delay":
        g = {"net": 2 * D, "client_net": D, "server_net": D}
        if op == "WRITE":
            g["pull"] = 2 * D
        return {"client_net", "server_net"} | ({"pull"} if op == "WRITE" else set()), g
    if window == "loss":
        # a lost packet of the server's: its reply (server_net), or for a
        # WRITE an RDMA READ request of its pull
        return {"server_net", "pull"}, {"net+pull": None}
    if window == "slow":
        return {"execute"}, {"execute": DISK_NS}
    if window == "threads":
        return {"server_queue"}, {"server_queue": None}
    if window == "slots":
        return {"client_host"}, {"client_host": None}
    return set(), {}


def touched(window, op, r):
    if window == "loss":
        return (r.get("rdma_retrans") or 0) > 0
    if window == "slow":
        # FILE_SYNC WRITEs (the Linux client's O_DIRECT writes are stable:
        # no COMMIT follows), COMMITs, and metadata knfsd commits
        return op in ("WRITE", "COMMIT", "META_W")
    return window != "clean"


def mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def median(v):
    v = sorted(x for x in v if x is not None)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


# The added time is the window's median minus the clean window's: under
# TCG the clean window's tail is soft-RoCE's CPU (more RPCs per second
# than in a delayed window, each one's RDMA work on the same host CPUs),
# which moves the clean mean by up to 10 ms (clean META net: mean 12.2 ms,
# median 7.1 ms); both are printed.
CENTRE = median

def seg_of(r, name):
    """A segment's ns: the coarse ones from the fused phases, client_net and
    server_net from the record's "seg"."""
    if name in ("client_net", "server_net"):
        return (r.get("seg") or {}).get(name)
    c = r["_coarse"]
    if not c:
        return None
    return sum(c[p] for p in name.split("+"))


def dissect(run, exe):
    p = subprocess.run([exe, "--json", os.path.join(run, "capture.pcap"),
                        "--join", os.path.join(run, "client.jsonl"),
                        "--join", os.path.join(run, "server.jsonl")], capture_output=True, text=True)
    recs = []
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if "xid" in o and "type" not in o:
            recs.append(o)
    return p.returncode, recs, p.stderr


def assign(run, recs, windows):
    """window -> records whose client task lay inside its workload."""
    cli = {}
    for line in open(os.path.join(run, "client.jsonl")):
        if line.startswith("{"):
            o = json.loads(line)
            if "xid" in o and "type" not in o:
                cli.setdefault(int(o["xid"], 16), []).append(o)
    by = {}
    for r in recs:
        if set(r.get("vantages", [])) != {"client", "wire", "server"}:
            continue
        x = int(r["xid"], 16)
        if len(cli.get(x, [])) != 1:
            continue
        vt = cli[x][0].get("vt", {}).get("client", {})
        b, e = vt.get("begin") or vt.get("marshal"), vt.get("end")
        if not b or not e:
            continue
        for w, (ws, we) in windows.items():
            if ws <= b and e <= we:
                r["_coarse"] = coarse(r["ns"])
                by.setdefault(w, []).append(r)
    return by


def verdict_places(r):
    v = r.get("verdict")
    if not isinstance(v, dict) or not v.get("place"):
        return None
    return set(v["place"])


def check_window(w, recs, clean, what, rows):
    """One window's checks against the clean window (per operation)."""
    ops = [o for o in OPS if any(op_group(r) == o for r in recs)]
    for op in ops:
        rs = [r for r in recs if op_group(r) == op]
        places, grows = expected(w, op)
        t = [r for r in rs if touched(w, op, r)]
        if not t:
            continue
        cl = [r for r in clean if op_group(r) == op]
        # the verdict
        have = [r for r in t if verdict_places(r) is not None]
        right = [r for r in have if verdict_places(r) <= places]
        check(len(have) == len(t), "%s %s: %d of %d touched RPCs carry no verdict" % (w, op, len(t) - len(have), len(t)))
        if have:
            check(len(right) >= SHARE * len(have), "%s %s: the verdict names %s for %d of %d (want >= 95 %%); named instead: %s"
                  % (w, op, "/".join(sorted(places)), len(right), len(have),
                     sorted({"+".join(sorted(verdict_places(r))) for r in have if r not in right})[:5]))
        # the added time where it was put
        found, found_mean = {}, {}
        unc = mean([r.get("uncertainty_ns") for r in t]) or 0
        for s, amount in grows.items():
            a, b = CENTRE([seg_of(r, s) for r in t]), CENTRE([seg_of(r, s) for r in cl])
            if a is None or b is None:
                if s in ("client_net", "server_net"):
                    check(False, "%s %s: no %s in the records (seg)" % (w, op, s))
                continue
            found[s] = a - b
            found_mean[s] = mean([seg_of(r, s) for r in t]) - mean([seg_of(r, s) for r in cl])
            if amount is None:
                check(a - b > 0, "%s %s: %s did not grow (%+.1f ms)" % (w, op, s, (a - b) / 1e6))
            elif w == "slow":
                # at least one delayed write before the answer; the journal
                # and the other writers queued on it add an unknown number
                check(a - b >= 0.9 * amount, "%s %s: %s grew %+.2f ms, less than the disk's %.0f ms"
                      % (w, op, s, (a - b) / 1e6, amount / 1e6))
            else:
                tol = max(0.1 * amount, unc if s not in ("net", "client_net", "server_net", "pull") else 0)
                check(abs(a - b - amount) <= tol, "%s %s: %s grew %+.2f ms, injected %+.2f ms (tolerance %.2f ms)"
                      % (w, op, s, (a - b) / 1e6, amount / 1e6, tol / 1e6))
        # what the fault did not touch
        # the reference: the injected amount, or (unknown, or a lower bound)
        # what was found; a fault that did not take (nothing grew: failed
        # above) has no scale for the rest
        ref = max([v for v in grows.values() if v and w != "slow"] or [max(found.values() or [0])])
        moved = {}
        for s in SEGS:
            if any(s in g.split("+") for g in grows):
                continue
            a, b = CENTRE([seg_of(r, s) for r in t]), CENTRE([seg_of(r, s) for r in cl])
            if a is None or b is None:
                continue
            moved[s] = a - b
            if ref > 0:
                check(abs(a - b) < 0.1 * ref, "%s %s: untouched %s moved %+.2f ms (limit %.2f ms)"
                      % (w, op, s, (a - b) / 1e6, 0.1 * ref / 1e6))
        rows.append((w, what, op, len(t), len(right), len(have), found, found_mean, grows, moved, unc))
        directions(w, op, t, cl)


def directions(w, op, t, cl):
    """A one-way half stated (not merged) must hold its direction: in a
    one-sided delay the undelayed halves, where the records state them,
    stay where the clean window had them (median against median: one
    record's half jitters by milliseconds under TCG) within max(10 % of
    the delay, the records' median uncertainty)."""
    quiet = {"srv-delay": ("net_out", "server_net_out", "client_net_out", "client_net_back"),
             "cli-delay": ("net_back", "server_net_out", "server_net_back", "client_net_back")}.get(w)
    if not quiet:
        return
    for k in quiet:
        src = "ns" if k in ("net_out", "net_back") else "seg"
        stated = [r for r in t if (r.get(src) or {}).get(k) is not None]
        base = CENTRE([(r.get(src) or {}).get(k) for r in cl])
        if base is None or not stated:
            continue
        a = CENTRE([r[src][k] for r in stated])
        unc = CENTRE([r.get("dir_uncertainty_ns") or r.get("uncertainty_ns") or 0 for r in stated])
        check(a - base <= max(0.1 * DELAY_NS, unc),
              "%s %s: %s, stated in %d of %d records, grew %+.2f ms though the delay was the other way "
              "(limit %.2f ms)" % (w, op, k, len(stated), len(t), (a - base) / 1e6, max(0.1 * DELAY_NS, unc) / 1e6))


def fmt_row(row):
    w, what, op, n, right, have, found, found_mean, grows, moved, unc = row
    f = ", ".join("%s %+.1f (mean %+.1f)" % (s, v / 1e6, found_mean[s] / 1e6) for s, v in found.items())
    inj = ", ".join("%s %s" % (s, ("+%.0f" % (v / 1e6) if w != "slow" else ">= %.0f" % (v / 1e6)) if v else "grows")
                    for s, v in grows.items())
    mv = max(moved.values(), key=abs) if moved else None
    mvs = max(moved, key=lambda s: abs(moved[s])) if moved else "-"
    return "| %s (%s) | %s | %d | %s | %s | %s | %s |" % (
        w, what, op, n, "%d/%d" % (right, have) if have else "no verdict", f, inj,
        "%s %+.2f" % (mvs, mv / 1e6) if mv is not None else "-")


def main():
    global NAME
    run, exe = sys.argv[1], sys.argv[2]
    table = sys.argv[sys.argv.index("--table") + 1] if "--table" in sys.argv else None
    cf = read_faults(os.path.join(run, "client.faults"))
    sf = read_faults(os.path.join(run, "server.faults"))
    windows, what = {}, {}
    for w, ev in cf.items():
        if check("work-start" in ev and "work-stop" in ev, "%s: the client noted no workload bounds" % w):
            windows[w] = (ev["work-start"][0], ev["work-stop"][0])
        what[w] = "; ".join(x for x in (sf.get(w, {}).get("start", (0, ""))[1], ev.get("start", (0, ""))[1]) if x) or "none"
        for side, f in (("client", cf), ("server", sf)):
            e = f.get(w, {})
            if "start" in e or "stop" in e:
                check("start" in e and "stop" in e and e["start"][0] < e["stop"][0],
                      "%s: the %s's injection notes are not a start before a stop: %s" % (w, side, e))
    check("clean" in windows, "no clean window")
    rc, recs, err = dissect(run, exe)
    check(rc == 0, "nfsrdma-dissect --join exited %d: %s" % (rc, err.strip()[-300:]))
    by = assign(run, recs, windows)
    for w in windows:
        check(len(by.get(w, [])) >= 20, "%s: only %d RPCs joined with all three vantages inside it" % (w, len(by.get(w, []))))
        print("%s: window %s: %d RPCs (%s)" % (NAME, w, len(by.get(w, [])),
              ", ".join("%s %d" % (o, sum(op_group(r) == o for r in by.get(w, [])))
                        for o in OPS if any(op_group(r) == o for r in by.get(w, [])))))
    rows = []
    for w in windows:
        if w != "clean" and w in by:
            check_window(w, by[w], by.get("clean", []), what[w], rows)
    lost = by.get("loss", [])
    check(any((r.get("rdma_retrans") or 0) > 0 for r in lost),
          "loss: no RPC of the window shows an RDMA retransmission (%d RPCs)" % len(lost))
    lines = ["| fault (injected) | ops | RPCs touched | verdict right | added found: median (mean), ms | injected (ms) | untouched, largest move (ms) |",
             "| --- | --- | --- | --- | --- | --- | --- |"] + [fmt_row(r) for r in rows]
    print("\n".join(lines))
    if table:
        with open(table, "w") as f:
            f.write("\n".join(lines) + "\n")
    print("%s: %d passed, %d failed" % (NAME, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
