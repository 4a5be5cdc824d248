#!/usr/bin/env python3
"""Checks a fuse-chrony lab run (tests/join/lab/README.md): the client and
server probes' records with the hosts' {"type":"clock"} lines, chrony on
both guests, then the client's clock stepped +50 ms under a claim of
100 us.  Joined offline without the capture:
  nfsrdma-dissect --join client.jsonl --join server.jsonl --json
(hosts 1 = the client, 2 = the server).

  check_chrony.py OUTDIR DISSECT

Against the lab's truth (the beacons, truth.py) and the fault injected:
- the truth at a time is the beacons' within 2 s of it (chrony slews the
  monotonic clocks too: over the whole run their offset is no line);
- both guests' lines say synchronised before the lie (chrony), and the
  client's real-time clock moved 50 ms against its monotonic one between
  the lines around the lie (the fault is there);
- the honest part (the client's file cut at its first clock line after
  the lie): when the two hosts' claims add up to less than the causal
  uncertainty, the join uses them (source "hosts") and its estimate lies
  in the truth widened by its uncertainty; either way neither host is
  named;
- the whole run: the client is named (not trusted, contradicted, its
  step counted), the server is not, the pair is back on the causal
  bounds and its estimate lies in the truth widened by its uncertainty.
Closing line: "fuse-chrony: N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truth  # noqa: E402

NAME = "fuse-chrony"
STEP_NS = 50_000_000
WINDOW_NS = 2_000_000_000
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s: %s" % (NAME, what))
    return ok


def lines(path):
    out = []
    for line in open(path):
        try:
            out.append((line, json.loads(line)))
        except ValueError:
            pass
    return out


def notes(path):
    """client.clocks: WHAT mono=N real=N"""
    n = {}
    for line in open(path):
        p = line.split()
        if len(p) == 3:
            n[p[0]] = int(p[1].split("=")[1])
    return n


def join(dissect, files):
    args = [dissect, "--json"]
    for f in files:
        args += ["--join", f]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rep = [json.loads(l) for l in p.stdout.splitlines() if l.startswith('{"type":"join"')]
    return p.returncode, (rep[0] if rep else None), p.stderr


def newest_client_time(objs):
    t = 0
    for _, o in objs:
        c = o.get("vt", {}).get("client") if "xid" in o else None
        if c:
            t = max(t, next((v for v in (c["begin"], c["marshal"], c["send"], c["reply"], c["end"]) if v), 0))
    return t


def local(pair, at, span=WINDOW_NS):
    """The truth from the beacons within span of at only: a disciplined
    clock is slewed (its monotonic clock too), so the pair's offset is a
    line only piecewise, and one line over the whole run fits no bounds."""
    p = truth.Pair(pair.name, pair.res)
    p.lower = [(t, v) for t, v in pair.lower if abs(t - at) <= span]
    p.upper = [(t, v) for t, v in pair.upper if abs(t - at) <= span]
    return p if p.solve() else None


def in_truth(full, at, e, what):
    pair = local(full, at)
    if not check(pair is not None, "%s: the beacons within %.0f s fit no line" % (what, WINDOW_NS / 1e9)):
        return False
    lo, hi = pair.at(at)
    mid, hw = (lo + hi) // 2, (hi - lo) // 2
    ok = check(lo - e["uncertainty_ns"] <= e["offset_ns"] <= hi + e["uncertainty_ns"],
               "%s: estimate %d +- %d outside the truth %d +- %d" % (what, e["offset_ns"], e["uncertainty_ns"], mid, hw))
    print("%s: %s: source %s, estimate - truth = %+.1f us, +- %.1f us (causal +- %.1f us), truth +- %.1f us"
          % (NAME, what, e.get("source"), (e["offset_ns"] - mid) / 1e3, e["uncertainty_ns"] / 1e3,
             (e.get("causal_uncertainty_ns") or 0) / 1e3, hw / 1e3))
    return ok


def main():
    run, dissect = sys.argv[1], sys.argv[2]
    for f in ("client.jsonl", "server.jsonl", "client.beacons", "server.beacons", "capture.pcap", "client.clocks"):
        if not check(os.path.exists(os.path.join(run, f)), "%s missing" % f):
            print("%s: %d passed, %d failed" % (NAME, passed, failed))
            return 1
    for side in ("client", "server"):
        check(open(os.path.join(run, side + ".rc")).read().strip() == "0", "nfsrdmad %s exit status" % side)
    cl, sl = lines(os.path.join(run, "client.jsonl")), lines(os.path.join(run, "server.jsonl"))
    cclk = [o for _, o in cl if o.get("type") == "clock"]
    sclk = [o for _, o in sl if o.get("type") == "clock"]
    lie = notes(os.path.join(run, "client.clocks"))
    if not check("before-lie" in lie and "after-lie" in lie, "client.clocks has no lie notes"):
        print("%s: %d passed, %d failed" % (NAME, passed, failed))
        return 1
    pre = [o for o in cclk if o["mono_ns"] < lie["before-lie"]]
    post = [o for o in cclk if o["mono_ns"] > lie["after-lie"]]
    check(any(o["synced"] for o in pre), "the client's lines never synchronised before the lie (chrony)")
    check(any(o["synced"] for o in sclk), "the server's lines never synchronised")
    print("%s: client lines %d (%d synchronised before the lie, maxerror %s us), server lines %d (%d synchronised)"
          % (NAME, len(cclk), sum(o["synced"] for o in pre),
             "/".join("%.0f" % (o["maxerror_ns"] / 1e3) for o in pre if o["synced"]), len(sclk),
             sum(o["synced"] for o in sclk)))
    # the fault: the client's realtime - mono moved by the step
    if check(pre and post, "no client clock line on both sides of the lie"):
        jump = (post[0]["realtime_ns"] - post[0]["mono_ns"]) - (pre[-1]["realtime_ns"] - pre[-1]["mono_ns"])
        check(abs(jump - STEP_NS) < 1_000_000, "the client's clock moved %d ns at the lie, not ~%d" % (jump, STEP_NS))
        check(post[0]["synced"] and post[0]["maxerror_ns"] <= 1_000_000,
              "after the lie the client does not claim a small error: %s" % post[0])
    ps, _ = truth.pairs(run)
    cs = ps[(1, 2)]
    with tempfile.TemporaryDirectory() as tmp:
        cut = next((i for i, (_, o) in enumerate(cl) if o.get("type") == "clock" and o["mono_ns"] > lie["before-lie"]),
                   len(cl))
        honest = os.path.join(tmp, "client-honest.jsonl")
        with open(honest, "w") as f:
            f.writelines(line for line, _ in cl[:cut])
        rc, rep, err = join(dissect, [honest, os.path.join(run, "server.jsonl")])
        if check(rc == 0 and rep, "honest join: exit %d: %s" % (rc, err[-300:])):
            at = newest_client_time(cl[:cut])
            e = next((c for c in rep["clocks"] if (c["a"], c["b"]) == (1, 2)), None)
            claims = {c["host"]: c for c in rep.get("clock_claims", [])}
            if check(e and e["uncertainty_ns"] is not None, "honest join: no client-server estimate"):
                # the claims in force at the end, as the lines say (docs/clocks.md)
                lc = [o for o in cclk if o["mono_ns"] <= at][-1:]
                off = e["offset_ns"]
                ls = [o for o in sclk if o["mono_ns"] <= at + off][-1:]
                if lc and ls and lc[0]["synced"] and ls[0]["synced"]:
                    claim = lc[0]["maxerror_ns"] + lc[0]["spread_ns"] + ls[0]["maxerror_ns"] + ls[0]["spread_ns"]
                    tighter = claim < e["causal_uncertainty_ns"]
                    check(e["source"] == ("hosts" if tighter else "causal"),
                          "honest join: claims +- %d vs causal +- %d, but source %s"
                          % (claim, e["causal_uncertainty_ns"], e["source"]))
                    print("%s: honest part: the claims add up to +- %.1f us, the causal bounds +- %.1f us: %s"
                          % (NAME, claim / 1e3, e["causal_uncertainty_ns"] / 1e3,
                             "host clocks used" if tighter else "the bounds are tighter (claims not used)"))
                in_truth(cs, at, e, "honest part, client-server")
            check(all(c.get("trusted") for c in claims.values()) and set(claims) == {1, 2},
                  "honest join: a host named, or a host's claims missing: %s" % claims)
    rc, rep, err = join(dissect, [os.path.join(run, "client.jsonl"), os.path.join(run, "server.jsonl")])
    if check(rc == 0 and rep, "whole join: exit %d: %s" % (rc, err[-300:])):
        claims = {c["host"]: c for c in rep.get("clock_claims", [])}
        c1, c2 = claims.get(1, {}), claims.get(2, {})
        check(c1.get("trusted") is False and c1.get("contradicted", 0) > 0 and c1.get("steps", 0) >= 1,
              "the lying client not named: %s" % c1)
        check(c2.get("trusted") is True, "the server named: %s" % c2)
        print("%s: the lie: client contradicted by %s bounds (worst %.1f us beyond its claim), %s step(s) under a claim"
              % (NAME, c1.get("contradicted"), c1.get("worst_ns", 0) / 1e3, c1.get("steps")))
        for line in err.splitlines():
            if line.startswith("join: host clock") or line.startswith("join: clock"):
                print("%s: %s" % (NAME, line))
        e = next((c for c in rep["clocks"] if (c["a"], c["b"]) == (1, 2)), None)
        if check(e and e["uncertainty_ns"] is not None, "whole join: no client-server estimate"):
            check(e["source"] == "causal", "whole join: the pair still on the host clocks: %s" % e)
            in_truth(cs, newest_client_time(cl), e, "whole run, client-server")
    print("%s: %d passed, %d failed" % (NAME, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
