#!/usr/bin/env python3
"""tests/replay/host-cpu.py OUTDIR PID: the host's side of replay-bench's
CPU accounting.  While process PID (run-scenario) lives, finds the two qemu
processes of the run writing OUTDIR/{server,client}.console, watches the
run's share for the client's cpu.LABEL markers and, on each, appends one
JSON line to OUTDIR/host-cpu.txt: the host's /proc/stat cpu ticks and every
qemu thread's user+system ticks (vCPU thread 'CPU 0/TCG', main loop, I/O
workers), with the host's wall clock (the capture's time base); and, in
"sched", each thread's time running and runnable-not-running on the host
(/proc/PID/task/TID/schedstat, ns: how long the host kept a guest's vCPU
waiting for a core)."""
import json
import os
import sys
import time

out, watched = os.path.abspath(sys.argv[1]), int(sys.argv[2])


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def find_qemus():
    found, share = {}, None
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            args = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in args]
        for role in ("server", "client"):
            if f"file:{out}/{role}.console" in args:
                found[role] = int(d)
                for a in args:
                    if "mount_tag=labshare" in a:
                        for kv in a.split(","):
                            if kv.startswith("path="):
                                share = kv[5:]
    return found, share


def other_qemus(ours):
    """qemu processes of other lab runs: they share the host's cores."""
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) not in ours:
            try:
                if open(f"/proc/{d}/comm").read().startswith("qemu-system"):
                    n += 1
            except OSError:
                pass
    return n


def threads(pid):
    res = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return res
    for t in tids:
        try:
            s = open(f"/proc/{pid}/task/{t}/stat").read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        f = s[s.rindex(")") + 2:].split()
        res[t] = [comm, int(f[11]), int(f[12])]  # utime, stime
    return res


def sched(pid):
    res = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return res
    for t in tids:
        try:
            comm = open(f"/proc/{pid}/task/{t}/comm").read().strip()
            run, wait = (int(x) for x in open(f"/proc/{pid}/task/{t}/schedstat").read().split()[:2])
        except (OSError, ValueError):
            continue
        res[t] = [comm, run, wait]
    return res


def host_stat():
    for line in open("/proc/stat"):
        if line.startswith("cpu "):
            return [int(x) for x in line.split()[1:]]
    return []


qemus, share, seen = {}, None, set()
with open(os.path.join(out, "host-cpu.txt"), "a") as log:
    log.write(json.dumps({"clk_tck": os.sysconf("SC_CLK_TCK"), "ncpu": os.cpu_count()}) + "\n")
    while alive(watched):
        if len(qemus) < 2 or not share:
            qemus, share = find_qemus()
            time.sleep(0.2)
            continue
        try:
            names = os.listdir(os.path.join(share, "sync"))
        except OSError:
            names = []
        for n in sorted(names):
            if not n.startswith("cpu.") or n in seen:
                continue
            seen.add(n)
            rec = {"label": n[4:], "wall": time.time(), "mono": time.monotonic(),
                   "host": host_stat(), "other_qemus": other_qemus(set(qemus.values())), "qemu": {r: threads(p) for r, p in qemus.items()},
                   "sched": {r: sched(p) for r, p in qemus.items()}}
            log.write(json.dumps(rec) + "\n")
            log.flush()
        time.sleep(0.05)
