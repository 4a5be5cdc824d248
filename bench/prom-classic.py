#!/usr/bin/env python3
"""What classic buckets could do: Prometheus's histogram_quantile over
classic bounds, computed here (its algorithm: rank q * count, the first
bucket whose cumulative count reaches it, linear inside it from the bound
below, 0 below the first; the +Inf bucket answers the highest finite
bound), for bound layouts of several sizes, on the RPCs of the lab's NFSv3
captures (nfsrdma-dissect --json, ns.total of every answered RPC), against
nfsrdma-top's p50/p99 for the same captures.

    bench/prom-classic.py [O=build]

Prints per layout: bounds, the series the duration histograms would add
to the text exposition, and the worst error of p50 and p99 over the
operations with >= 100 RPCs and over all.  The series count of today's
exposition is taken from a scrape of nfsrdmad on the same captures.  Not
a test: the numbers go to bench/README.md ("Percentiles in Prometheus").
"""
import json, math, os, subprocess, sys, time, urllib.request, socket

O = os.environ.get("O", "build")
BIN = os.path.join(O, "bin")
CAPS = ["nfs3-metadata", "nfs3-metadata-k6.12", "nfs3-readdirplus", "nfs3-read-write", "nfs3-read-write-k6.12",
        "parallel", "parallel-k6.12", "smoke", "nfs3-symlink"]
paths = ["tests/captures/%s.pcap" % c for c in CAPS]


def key_of(r):
    k = r["program"] + " " + r["procedure"]
    return k if r["transport"] == "rdma" else k + " " + r["transport"]


durs, series = {}, set()
for p in paths:
    out = subprocess.run([BIN + "/nfsrdma-dissect", "--json", p], capture_output=True, text=True).stdout
    for line in out.splitlines():
        r = json.loads(line)
        if "xid" not in r or (r["flags"] & 3) != 3 or r["ns"].get("total") is None:
            continue
        durs.setdefault(key_of(r), []).append(r["ns"]["total"] / 1e9)
        series.add((key_of(r), r["caller"]["addr"], r["callee"]["addr"]))

srcs = sum((["--source", "pcap:" + p] for p in paths), [])
top = {r["key"]: r for r in json.loads(subprocess.run([BIN + "/nfsrdma-top", "-b", "--json", "-n", "1"] + srcs,
                                                        capture_output=True, text=True).stdout)["rows"]}

# today's exposition: how many samples a text scrape holds
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
d = subprocess.Popen([BIN + "/nfsrdmad"] + srcs + ["--metrics", "127.0.0.1:%d" % port, "--socket", "none"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
want, text = sum(t["records"] for t in top.values()), ""
try:
    for _ in range(100):
        time.sleep(0.2)
        try:
            text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port).read().decode()
        except OSError:
            continue
        if "nfsrdma_records_total %d\n" % want in text:
            break
finally:
    d.terminate(); d.wait()
samples = sum(1 for l in text.splitlines() if l and not l.startswith("#"))
nhist = sum(1 for l in text.splitlines() if l.startswith("nfsrdma_rpc_duration_seconds_count{"))


def quantile(bounds, xs, q):
    cnt = [0] * (len(bounds) + 1)
    for x in xs:
        i = 0
        while i < len(bounds) and x > bounds[i]:
            i += 1
        cnt[i] += 1
    rank, cum = q * len(xs), 0
    for i, c in enumerate(cnt):
        if cum + c >= rank and c:
            if i == len(bounds):
                return bounds[-1]
            lo = bounds[i - 1] if i else 0.0
            return lo + (bounds[i] - lo) * (rank - cum) / c
        cum += c
    return bounds[-1]


def geometric(lo, hi, n):
    return [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]


today = [1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 1.0, 10.0]
extra = samples // nhist   # bounds per histogram that would double the exposition
layouts = [("today: 1-2.5-5, 10 us .. 10 s", today),
           ("%d geometric, 10 us .. 10 s (doubles the series)" % (16 + extra), geometric(1e-5, 10, 16 + extra)),
           ("%d geometric, 100 us .. 1 s (doubles the series)" % (16 + extra), geometric(1e-4, 1, 16 + extra)),
           ("100 geometric, 100 us .. 1 s", geometric(1e-4, 1, 100)),
           ("200 geometric, 100 us .. 1 s", geometric(1e-4, 1, 200))]
print("today: %d samples in the text exposition, %d duration histograms (label sets)" % (samples, nhist))
print("| classic layout | bounds | text samples | worst p50, ops >= 100 RPCs | worst p99, ops >= 100 | worst p50, all ops | worst p99, all |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, b in layouts:
    worst = {}
    for k, xs in durs.items():
        t = top.get(k)
        if not t:
            continue
        for q, f in ((0.5, "p50_ns"), (0.99, "p99_ns")):
            e = abs(quantile(b, xs, q) - t[f] / 1e9) / (t[f] / 1e9)
            for big in ((True, False) if t["records"] >= 100 else (False,)):
                worst[(q, big)] = max(worst.get((q, big), 0), e)
    print("| %s | %d | %d | %.1f %% | %.1f %% | %.1f %% | %.1f %% |" % (
        name, len(b), samples + nhist * (len(b) - 16), 100 * worst[(0.5, True)], 100 * worst[(0.99, True)],
        100 * worst[(0.5, False)], 100 * worst[(0.99, False)]))
