#!/usr/bin/env python3
"""bench/probes_cost.py: the table of bench/probes.sh from one probe-cost
lab run (tests/probe/scenarios/probe-cost).  Per side, every probe program
as the kernel accounts it (bpftool's run_time_ns / run_cnt), its ratio to
the median of its side's programs and to the empty program on the same
tracepoint in the same run; the side's cost per RPC (all its programs' run
time over the records it delivered) and its ratio to that median; then the
overhead: the host CPU time of the client guest for a round of READs with
the client probe on over off (ABBA rounds; ovcpu.txt): mean and spread.  TCG-emulated: read the ratios, not the nanoseconds.
    bench/probes_cost.py RUN_DIR KERNEL_LABEL PROBE_PLAN_C [--json]"""
import json, os, re, statistics, sys

run, label, plan = sys.argv[1], sys.argv[2], sys.argv[3]
as_json = "--json" in sys.argv[4:]
TP = re.compile(r'\{\s*"(\w+)",\s*"(\w+)",\s*([CS]),\s*"(\w+)"')
progs = {}  # full program name -> (tracepoint, side)
for line in open(plan):
    m = TP.search(line)
    if m:
        progs[m.group(4)] = ("%s:%s" % (m.group(1), m.group(2)), "client" if m.group(3) == "C" else "server")


def records(path):
    """The records the probe delivered, as its last summary counts them."""
    n = 0
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            if line.startswith('{"summary"'):
                n = json.loads(line)["summary"]["records"]
    return n


out = {"kernel": label, "sides": {}}
for side in ("client", "server"):
    bt = os.path.join(run, side + ".bpftool.json")
    if not os.path.exists(bt):
        out["sides"][side] = {"error": "no bpftool list"}
        continue
    listed = json.load(open(bt))
    byid = {p["id"]: p for p in listed}
    empty = {}
    idf = os.path.join(run, side + "-empty.ids")
    if os.path.exists(idf):
        for line in open(idf):
            pid, tp = line.split()
            p = byid.get(int(pid))
            if p and p.get("run_cnt"):
                empty[tp] = p["run_time_ns"] / p["run_cnt"]
    rows = []
    for p in listed:
        # the kernel keeps 15 characters of a name; bpftool gives the
        # whole name when the program has BTF
        name = p.get("name", "")
        full = [n for n, (tp, s) in progs.items() if s == side and (n == name or n[:15] == name)]
        if len(full) != 1 or not p.get("run_cnt"):
            continue
        tp = progs[full[0]][0]
        ns = p["run_time_ns"] / p["run_cnt"]
        rows.append({"program": full[0], "tracepoint": tp, "runs": p["run_cnt"], "run_time_ns": p["run_time_ns"],
                     "ns_per_run": ns, "empty_ns_per_run": empty.get(tp)})
    if not rows:
        out["sides"][side] = {"error": "no program ran"}
        continue
    med = statistics.median(r["ns_per_run"] for r in rows)
    for r in rows:
        r["x_median"] = r["ns_per_run"] / med
        r["x_empty"] = r["ns_per_run"] / r["empty_ns_per_run"] if r["empty_ns_per_run"] else None
    nrec = records(os.path.join(run, side + "-cost.jsonl"))
    tot = sum(r["run_time_ns"] for r in rows)
    out["sides"][side] = {"median_ns_per_run": med, "records": nrec, "programs": rows,
                          "ns_per_rpc": tot / nrec if nrec else None,
                          "rpc_x_median": tot / nrec / med if nrec else None}
ov = os.path.join(run, "ovcpu.txt")
if os.path.exists(ov):
    marks = {}
    for line in open(ov):
        name, ns = line.split()
        marks[name] = int(ns)
    t = {}
    for name, ns in marks.items():
        mode, r, ab = name.split(".")
        if ab == "a" and "%s.%s.b" % (mode, r) in marks:
            t.setdefault(int(r), {})[mode] = (marks["%s.%s.b" % (mode, r)] - ns) / 1e9
    slow = [100.0 * (v["on"] - v["off"]) / v["off"] for v in t.values() if "on" in v and "off" in v]
    if slow:
        out["overhead"] = {"rounds": len(slow), "mean_pct": statistics.mean(slow),
                           "stdev_pct": statistics.stdev(slow) if len(slow) > 1 else None,
                           "stderr_pct": statistics.stdev(slow) / len(slow) ** 0.5 if len(slow) > 1 else None,
                           "off_cpu_s": statistics.mean(v["off"] for v in t.values() if "off" in v)}
if as_json:
    json.dump(out, sys.stdout, indent=1)
    print()
    sys.exit(0)
for side, s in out["sides"].items():
    if "error" in s:
        print("probes %s %s: %s" % (label, side, s["error"]))
        continue
    print("probes %s %s: median %.0f ns/run; %d records; per RPC %.0f ns = %.1fx median" %
          (label, side, s["median_ns_per_run"], s["records"], s["ns_per_rpc"] or 0, s["rpc_x_median"] or 0))
    print("  %-24s %-36s %8s %10s %8s %10s %8s" % ("program", "tracepoint", "runs", "ns/run", "x med", "empty ns", "x empty"))
    for r in sorted(s["programs"], key=lambda r: -r["ns_per_run"]):
        print("  %-24s %-36s %8d %10.0f %8.1f %10s %8s" % (
            r["program"], r["tracepoint"], r["runs"], r["ns_per_run"], r["x_median"],
            "%.0f" % r["empty_ns_per_run"] if r["empty_ns_per_run"] else "-",
            "%.1f" % r["x_empty"] if r["x_empty"] else "-"))
o = out.get("overhead")
if o:
    print("probes %s overhead: the client guest's host CPU for a round of READs %.3f s, with the client probe %+.1f %% (stdev %.1f %%, standard error %.1f %%, %d rounds)" %
          (label, o["off_cpu_s"], o["mean_pct"], o["stdev_pct"] or 0, o["stderr_pct"] or 0, o["rounds"]))
