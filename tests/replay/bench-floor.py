#!/usr/bin/env python3
"""bench/replay.sh floor: the platform's floor under the replay's
issue-time error, from a tests/replay/scenarios/replay-floor run (OUT
dir) and, optionally, the same program's runs on the host (JSON files
given after OUT).  One row per run of bench/sleep-floor: how late each
wait for a time of the schedule came back (p50, p99, max, how many over
1 ms), the sleeps' own lateness, and the guest's soft interrupts during
the run (NET_RX, TIMER, TASKLET: soft-RoCE's packet work runs in
NET_RX and tasklets).  Never fails on a number."""
import glob
import json
import os
import sys


def softirqs(path):
    """The soft interrupts counted during the run (after - before)."""
    try:
        text = open(path).read()
    except OSError:
        return {}
    parts = text.split("== after")
    if len(parts) != 2:
        return {}

    def counts(t):
        c = {}
        for line in t.splitlines():
            f = line.split()
            if len(f) >= 2 and f[0].endswith(":") and f[0][:-1].isupper() and f[1].isdigit():
                c[f[0][:-1]] = sum(int(x) for x in f[1:] if x.isdigit())
        return c
    a, b = counts(parts[0]), counts(parts[1])
    return {k: b[k] - a.get(k, 0) for k in b}


def host_side(out):
    """Per floor run, from tests/replay/host-cpu.py's markers: the client
    guest's vCPU thread's share of the window running, its time runnable
    and not running on the host (ms), and the host's busy cores."""
    recs = {}
    try:
        lines = open(os.path.join(out, "host-cpu.txt")).read().splitlines()
    except OSError:
        return {}
    meta = json.loads(lines[0]) if lines else {}
    for line in lines[1:]:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        recs[r["label"]] = r
    res = {}
    for label, a in recs.items():
        if not label.endswith(".start") or label[:-6] + ".end" not in recs:
            continue
        b = recs[label[:-6] + ".end"]
        secs = b["wall"] - a["wall"]
        sa, sb = a.get("sched", {}).get("client", {}), b.get("sched", {}).get("client", {})
        # the vCPU thread: named "CPU 0/TCG" with debug-threads, else
        # the thread that ran the most (the main loop and I/O workers
        # run far less under TCG)
        named = [t for t, v in sb.items() if "TCG" in v[0] or v[0].startswith("CPU ")]
        vcpu = named[0] if named else max(sb, key=lambda t: sb[t][1], default=None)
        run = wait = 0
        if vcpu in sa:
            run, wait = sb[vcpu][1] - sa[vcpu][1], sb[vcpu][2] - sa[vcpu][2]
        dh = [y - x for x, y in zip(a["host"], b["host"])]
        tot = sum(dh) or 1
        busy = (1 - (dh[3] + dh[4]) / tot) * meta.get("ncpu", 2)
        res[label[len("floor-"):-6]] = (run / 1e9 / secs if secs else 0, wait / 1e6, busy)
    return res


def per_ms(o):
    """The sleeps' lateness per millisecond asked (us): the same at every
    length if the guest's timer runs off its clock."""
    a = o.get("wakeups_asked_ns")
    return f"{o['wakeups_late_ns'] / a * 1e3:6.1f}" if a else "-"


def row(name, o, irq, host=None):
    la, wk = o["lateness"], o["wakeups"]
    s = irq or {}
    secs = o["took_ns"] / 1e9
    per_s = lambda k: f"{s[k] / secs:7.0f}" if k in s and secs else f"{'-':>7}"
    print(f"{name:22} {o['times'] * o['repeat']:5} {la['p50_ns'] / 1e3:8.1f} {la['p99_ns'] / 1e3:8.1f} "
          f"{la['max_ns'] / 1e3:8.1f} {o['lateness_over_1ms']:5} | {wk['calls']:5} {wk['p50_ns'] / 1e3:8.1f} "
          f"{wk['p99_ns'] / 1e3:8.1f} {wk['max_ns'] / 1e3:8.1f} {per_ms(o):6} | {o['runnable_not_running_ns'] / 1e6:7.1f} | "
          f"{per_s('NET_RX')} {per_s('TIMER')} {per_s('TASKLET')}" +
          (f" | {host[0] * 100:4.0f}% {host[1]:7.1f} {host[2]:4.1f}" if host else ""))


out = sys.argv[1]
print(f"{'run':22} {'times':>5} {'late p50':>8} {'p99':>8} {'max':>8} {'>1ms':>5} | {'sleeps':>5} {'late p50':>8} "
      f"{'p99':>8} {'max':>8} {'us/ms':>6} | {'waitms':>7} | softirq/s NET_RX TIMER TASKLET | vCPU  waitms busy")
print("(us; late: each wait for a time of the schedule; sleeps: each sleep that ran to its time, us/ms: their lateness per ms asked; "
      "waitms: runnable, not running; vCPU: the client guest's vCPU thread on the host, its share of the run "
      "running, its time runnable and not running, and the host's busy cores)")
hs = host_side(out)
for f in sorted(glob.glob(os.path.join(out, "floor-*.out")), key=os.path.getmtime):
    name = os.path.basename(f)[len("floor-"):-len(".out")]
    try:
        o = json.load(open(f))
    except (OSError, ValueError):
        print(f"{name:22} no result (see {f[:-4]}.err)")
        continue
    row("guest " + name, o, softirqs(f[:-4] + ".irq"), hs.get(name))
for f in sys.argv[2:]:
    try:
        o = json.load(open(f))
    except (OSError, ValueError):
        continue
    row("host " + o.get("label", ""), o, None)
for f in sorted(glob.glob(os.path.join(out, "floor-replay-*.json"))):
    try:
        o = json.load(open(f))
        i = o["issue"]
        print(f"beside it, the replay ({os.path.basename(f)}): issue-time error p50 {i['p50_ns'] / 1e3:.1f} us, "
              f"p99 {i['p99_ns'] / 1e3:.1f} us, max {i['max_ns'] / 1e3:.1f} us, {i['calls']} calls")
    except (OSError, ValueError, KeyError, TypeError):
        pass
g = os.path.join(out, "floor-guest.txt")
if os.path.exists(g):
    print("guest: " + "; ".join(open(g).read().split("\n")[1:4]))
