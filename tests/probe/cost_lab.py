#!/usr/bin/env python3
"""The probes' cost on /metrics held to the kernel's own accounting, in a
lab run (tests/join/lab/lib.sh kstat_snapshot): each guest's nfsrdmad was
scraped before and after `bpftool -j prog show`; every program nfsrdmad
exports (nfsrdma_probe_runs_total / _run_seconds_total, labelled with the
kernel's program id) must lie between its two scrapes as bpftool counts it,
the record-emitting programs must have run at least once per record the
daemon delivered, and the cost per record must be the programs' run time
over the records.
    tests/probe/cost_lab.py OUT KERNEL
Closing line: "probe-cost-lab: N passed, N failed"."""
import json, os, re, sys

out, kv = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "?"
npass = nfail = 0


def check(desc, ok, detail=""):
    global npass, nfail
    if ok:
        npass += 1
        print("ok   %s %s" % (kv, desc))
    else:
        nfail += 1
        print("FAIL %s %s%s" % (kv, desc, (": " + detail) if detail else ""))


SAMPLE = re.compile(r'^(nfsrdma_probe_(?:runs_total|run_seconds_total|cost_per_rpc_seconds))\{([^}]*)\} (\S+)$')


def scrape(path):
    got = {}
    with open(path) as f:
        for line in f:
            m = SAMPLE.match(line.strip())
            if m:
                labels = dict(kv_.split("=", 1) for kv_ in re.findall(r'(\w+="[^"]*")', m.group(2)))
                labels = {k: v.strip('"') for k, v in labels.items()}
                got[(m.group(1), labels.get("id", labels.get("source")))] = (labels, float(m.group(3)))
    return got


def records(name):
    n = 0
    with open(os.path.join(out, name + ".jsonl"), errors="replace") as f:
        for line in f:
            if '"xid"' in line:
                n += 1
    return n


for name in ("client", "server"):
    b, a, bt = (os.path.join(out, name + s) for s in (".metrics.before", ".metrics.after", ".bpftool.json"))
    if not all(os.path.exists(p) for p in (b, a, bt)):
        check("%s: the scrapes and bpftool's list were saved" % name, False, "missing")
        continue
    before, after = scrape(b), scrape(a)
    try:
        progs = {str(p["id"]): p for p in json.load(open(bt))}
    except (ValueError, OSError) as e:
        check("%s: bpftool's list reads" % name, False, str(e))
        continue
    runs = [(k, v) for k, v in after.items() if k[0] == "nfsrdma_probe_runs_total"]
    check("%s: programs' costs exported (%d programs)" % (name, len(runs)), len(runs) >= 3)
    bad = []
    for (metric, pid), (labels, hi) in sorted(after.items()):
        if metric == "nfsrdma_probe_cost_per_rpc_seconds":
            continue
        lo = before.get((metric, pid), (None, None))[1]
        p = progs.get(pid)
        if p is None or lo is None:
            bad.append("%s id %s: %s" % (labels.get("program"), pid, "not in bpftool's list" if p is None else "not in the first scrape"))
            continue
        truth = p.get("run_cnt", 0) if metric.endswith("runs_total") else p.get("run_time_ns", 0) / 1e9
        if not (lo - 1e-9 <= truth <= hi + 1e-9):
            bad.append("%s %s: bpftool %s not in %s..%s" % (labels.get("program"), metric, truth, lo, hi))
    check("%s: every program's runs and run time within /metrics as bpftool counts them" % name, not bad,
          "; ".join(bad[:4]))
    emit = "tp_rpc_stats_latency" if name == "client" else "tp_svc_stats_latency"
    nrec = records(name)
    er = [v[1] for k, v in after.items() if k[0] == "nfsrdma_probe_runs_total" and v[0].get("program") == emit]
    check("%s: %s ran at least once per record delivered (%s runs, %d records)" % (name, emit, er, nrec),
          bool(er) and nrec > 0 and er[0] >= nrec)
    tot = sum(v[1] for k, v in after.items() if k[0] == "nfsrdma_probe_run_seconds_total")
    per = [v[1] for k, v in after.items() if k[0] == "nfsrdma_probe_cost_per_rpc_seconds"]
    check("%s: cost per record = run time / records (%.1f us over %d records; exported %s)" %
          (name, tot * 1e6, nrec, ["%.1f us" % (x * 1e6) for x in per]),
          len(per) == 1 and nrec > 0 and abs(per[0] - tot / nrec) <= 0.05 * per[0] + 1e-9)
print("probe-cost-lab: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
