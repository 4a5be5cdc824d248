#!/usr/bin/env python3
"""bench/replay.sh multi: calls/s of nfsrdma-replay at --asap on
multi-client.pcap, single replay vs --clients 1, 2, 4, 8, and the replay's
own CPU per call (user + system of the replay and its group processes),
from a tests/replay/scenarios/replay-bench-multi run (OUT dir), the
single replay of LAB_ARG_BASE_BIN's build beside it (singlebase); and the
issue-time error at --speed 1 (the scheduler's lateness, and the calls'
lateness with the intended holds in), of this build and of
LAB_ARG_BASE_BIN's.  Prints a table of medians over the repetitions;
never fails on a number."""
import glob
import json
import os
import statistics
import sys

out = sys.argv[1]


def run(name):
    try:
        o = json.load(open(os.path.join(out, name + ".out")))
        w, u, s = (float(x) for x in open(os.path.join(out, name + ".time")).read().split()[-3:])
    except (OSError, ValueError):
        return None
    if "groups" in o:
        tot = o["total"]
        sent, cps, ok, ex = tot["replayed"], tot["calls_per_s"], tot["same_status"], tot["exit"]
    else:
        sent, cps, ex = o["totals"]["replayed"], o["calls_per_s"], o["exit"]
        ok = o["totals"]["same_status"]
    return {"sent": sent, "cps": cps, "ok": ok, "exit": ex, "cpu_us": (u + s) / sent * 1e6 if sent else 0, "wall": w}


print(f"{'run':10} {'reps':>4} {'sent':>6} {'same':>6} {'calls/s':>9} {'vs single':>9} {'cpu us/call':>11} {'wall s':>7}")
base = None
for label in ["single", "singlebase", "x1", "x2", "x4", "x8"]:
    rs = [r for f in sorted(glob.glob(os.path.join(out, f"bm-{label}-*.out")))
          for r in [run(os.path.basename(f)[:-4])] if r]
    if not rs:
        print(f"{label:10} no run")
        continue
    cps = statistics.median(r["cps"] for r in rs)
    base = cps if label == "single" else base
    rel = f"{cps / base:.2f}x" if base else "-"
    print(f"{label:10} {len(rs):4} {rs[0]['sent']:6} {rs[0]['ok']:6} {cps:9.1f} {rel:>9} "
          f"{statistics.median(r['cpu_us'] for r in rs):11.1f} {statistics.median(r['wall'] for r in rs):7.2f}"
          f"{'' if all(r['exit'] == 0 for r in rs) else '  (exit ' + str([r['exit'] for r in rs]) + ')'}")


def speed1(name):
    try:
        o = json.load(open(os.path.join(out, name + ".out")))
    except (OSError, ValueError):
        return None
    return o


print()
print(f"{'--speed 1':14} {'reps':>4} {'issue p50':>9} {'p99':>9} {'max':>9} | {'with holds p50':>14} {'p99':>9} {'max':>9} | holds dep/order/inflight (us)")
for label, what in (("speed1", "this build"), ("speed1base", "base build")):
    rs = [o for f in sorted(glob.glob(os.path.join(out, f"bm-{label}-*.out")))
          for o in [speed1(os.path.basename(f)[:-4])] if o]
    if not rs:
        continue
    med = lambda f: statistics.median(f(o) for o in rs)
    # in us, from the report's ns (an older build's issue_us is in us already)
    def pick(o, *keys):
        for k in keys:
            v = o.get(k)
            if v:
                return v, k.endswith("_us")
        return {}, False
    def q_us(v, old, q):
        return v.get(q, 0) if old else v.get(q + "_ns", 0) / 1e3
    iss = lambda q: med(lambda o: q_us(*pick(o, "issue", "issue_us"), q))
    # an older build reports no holds: its issue has them in
    allq = lambda q: med(lambda o: q_us(*pick(o, "issue_with_holds", "issue_with_holds_us", "issue", "issue_us"), q))
    holds = rs[-1].get("holds")
    hs = "/".join(f"{holds[k]['calls']} calls p99 {holds[k].get('p99_ns', holds[k].get('p99', 0) * 1e3) / 1e3:.0f}"
                  for k in ("dep", "order", "inflight")) if holds else "-"
    print(f"{what:14} {len(rs):4} {iss('p50'):9.1f} {iss('p99'):9.1f} {iss('max'):9.1f} | "
          f"{allq('p50'):14.1f} {allq('p99'):9.1f} {allq('max'):9.1f} | {hs}"
          f"{'' if all(o.get('exit') == 0 for o in rs) else '  (exit ' + str([o.get('exit') for o in rs]) + ')'}")

# -v runs (LAB_ARG_SPEED1_FLAGS=-v, the per-call lines: --per-call after the rename, -v on a base build from before it and, with a warning, until the next release on this one): where the late calls' time went,
# added up over the calls at least 1 ms late, and the sleeps' wake-ups
rs = [o for f in sorted(glob.glob(os.path.join(out, "bm-speed1-*.out")))
      for o in [speed1(os.path.basename(f)[:-4])] if o and (o.get("late_parts") or o.get("late_parts_ms"))]
if rs:
    print()
    keys = ["asleep", "replies", "posting", "polling", "building", "scheduler", "runnable_not_running"]
    print("calls >= 1 ms late, where their time went (ms, per run): " + ", ".join(keys))
    for o in rs:
        w = o.get("wakeups") or {}
        if "late_parts" in o:   # ns; an older build's late_parts_ms is in ms
            lp = {k[:-3] if k.endswith("_ns") else k: (v / 1e6 if k.endswith("_ns") else v)
                  for k, v in o["late_parts"].items()}
            w = {k[:-3] + "_us" if k.endswith("_ns") else k: (v / 1e3 if k.endswith("_ns") else v) for k, v in w.items()}
        else:
            lp = o["late_parts_ms"]
        print(f"  {lp['calls']:3} calls, {lp['late']:8.1f} ms: " + " ".join(f"{lp.get(k, 0):7.1f}" for k in keys) +
              f" | wake-ups {w.get('timeouts', 0)} timed out, mean {w.get('late_mean_us', 0):.0f} us late, "
              f"{w.get('over_1ms', 0)} over 1 ms, max {w.get('late_max_us', 0):.0f} us")
