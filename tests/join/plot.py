#!/usr/bin/env python3
"""--plot of joined records: lab traces turned into probe records
(trace2records.py), joined with the capture by nfsrdma-dissect --join.
Checks the SVG parses as XML, names every fused phase in its legend, has
one waterfall row per RPC of the slowest N, and that those rows are the N
largest totals of the same run's --json records (ties at the Nth total
may go either way); --plot-slowest out of range or without --plot refused.
Closing line: "join-plot: N passed, N failed"."""
import json
import os
import subprocess
import sys
import tempfile
import xml.dom.minidom

O = os.environ.get("O", "build")
DISSECT = os.path.join(O, "bin", "nfsrdma-dissect")
HERE = os.path.dirname(os.path.abspath(__file__))
CAPS = ["nfs3-read-write", "parallel", "nfs41"]
NAMES = ["client_queue", "client_send", "net_out", "server_queue", "pull", "execute",
         "reply_build", "push", "net_back", "client_done"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL join-plot: " + what)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cj, sj = os.path.join(tmp, "c.jsonl"), os.path.join(tmp, "s.jsonl")
        for name in CAPS:
            truth = os.path.join("tests/captures", name + ".truth")
            for side, path in (("client", cj), ("server", sj)):
                with open(path, "w") as f:
                    subprocess.run([sys.executable, os.path.join(HERE, "trace2records.py"), side,
                                    os.path.join(truth, side + ".trace")], stdout=f, check=True)
            base = [DISSECT, "tests/captures/%s.pcap" % name, "--join", cj, "--join", sj]
            p = subprocess.run(base + ["--json"], capture_output=True, text=True)
            recs = [o for o in map(json.loads, p.stdout.splitlines()) if "v" in o and
                    any(k.split("+")[0] in NAMES for k in o.get("ns", {}))]
            totals = sorted((r["ns"]["total"] for r in recs), reverse=True)
            for n in (None, 3, 1000):
                svg = os.path.join(tmp, "p.svg")
                args = ["-q", "--plot", svg] + (["--plot-slowest", str(n)] if n else [])
                p = subprocess.run(base + args, capture_output=True, text=True)
                check(p.returncode == 0, "%s N=%s: exit %d %s" % (name, n, p.returncode, p.stderr[-200:]))
                try:
                    doc = xml.dom.minidom.parse(svg)
                except Exception as e:
                    check(False, "%s N=%s: SVG does not parse: %s" % (name, n, e))
                    continue
                check(doc.documentElement.tagName == "svg", "%s N=%s: root is svg" % (name, n))
                text = " ".join(t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild)
                check(all(nm in text for nm in NAMES), "%s N=%s: legend names every fused phase" % (name, n))
                rows = [g.getAttribute("id") for g in doc.getElementsByTagName("g") if g.getAttribute("class") == "rpc"]
                want_n = min(n or 20, len(recs))
                check(len(rows) == want_n and len(recs) > 3, "%s N=%s: %d waterfall rows, expected %d" %
                      (name, n, len(rows), want_n))
                cut = totals[want_n - 1]
                must = {"xid-" + r["xid"] for r in recs if r["ns"]["total"] > cut}
                may = {"xid-" + r["xid"] for r in recs if r["ns"]["total"] >= cut}
                check(must <= set(rows) <= may, "%s N=%s: rows %s are not the slowest (must %s)" %
                      (name, n, sorted(rows)[:5], sorted(must)[:5]))
        for bad in (["--plot", os.path.join(tmp, "x.svg"), "--plot-slowest", "0"],
                    ["--plot", os.path.join(tmp, "x.svg"), "--plot-slowest", "1001"],
                    ["--plot-slowest", "5"]):
            p = subprocess.run(base + bad, capture_output=True, text=True)
            check(p.returncode == 2 and "plot-slowest" in p.stderr and not p.stdout,
                  "%s refused (exit %d)" % (" ".join(bad[-2:]), p.returncode))
    print("join-plot: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
