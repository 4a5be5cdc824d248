#!/usr/bin/env python3
"""Record the input series of the mixin's promtool tests from real runs of
nfsrdmad on committed lab captures (the sample values are kept as they
were scraped; only the timestamps become the test's 1 s steps).

  dist/mixin/tests/record-series.py BUILD_BIN_DIR > dist/mixin/tests/real-series.json

Run 1, "wire": nfsrdmad on tests/captures/server-restart.pcap at recorded
pace (--speed 1; knfsd stops and restarts, the client reconnects: a second
RDMA connection), /metrics scraped every second until the capture ends and
two more scrapes.  Run 2, "collector": tests/daemon/join-live.sh's set-up
(a forwarder sends nfs3-read-write's client-probe records, the collector
reads the capture and the server-probe records and joins them), its
/metrics and the forwarder's scraped once the join is done.

Only the families the alerts read are kept; each series gets the labels
Prometheus would add: job="nfsrdmad", instance="<run>:9464"."""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CAPS = os.path.join(SRC, "tests", "captures")
KEEP = ("nfsrdma_rpc_requests_total", "nfsrdma_rpc_unanswered_total", "nfsrdma_rpc_duration_seconds_bucket",
        "nfsrdma_rpc_phase_seconds_total", "nfsrdma_connection_credits", "nfsrdma_connection_requests_total",
        "nfsrdma_dropped_records_total", "nfsrdma_findings_total", "nfsrdma_records_total",
        "nfsrdma_forward_records_total", "nfsrdma_collect_records_total", "nfsrdma_join_records_total",
        "nfsrdma_join_negative_total", "nfsrdma_join_clock_uncertainty_seconds")
LINE = re.compile(r'^([a-z_]+)(\{[^}]*\})? (\S+)$')


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# the collector run adds what only a collector or a forwarder has
JOIN = ("nfsrdma_forward_records_total", "nfsrdma_collect_records_total", "nfsrdma_join_records_total",
        "nfsrdma_join_negative_total", "nfsrdma_join_clock_uncertainty_seconds", "nfsrdma_dropped_records_total")


def scrape(port, keep=KEEP):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2) as r:
            text = r.read().decode()
    except OSError:
        return None
    out = {}
    for l in text.splitlines():
        m = LINE.match(l)
        if m and m.group(1) in keep:
            out[(m.group(1), m.group(2) or "{}")] = float(m.group(3))
    return out


def wait_up(port):
    for _ in range(50):
        if scrape(port) is not None:
            return
        time.sleep(0.2)
    sys.exit("nfsrdmad on port %d never answered" % port)


def num(v):
    """The shortest text that reads back as the same float."""
    t = repr(v)
    return t[:-2] if t.endswith(".0") else t


def series(run, scrapes):
    """Per series its values in promtool's notation (_ before it was
    exported) and its last value."""
    keys = sorted({k for s in scrapes for k in s})
    out = []
    for name, labels in keys:
        lab = labels[1:-1]
        lab = 'job="nfsrdmad",instance="%s:9464"' % run + ("," + lab if lab else "")
        v = [s.get((name, labels)) for s in scrapes]
        # name and labels apart too: the tests pick series by them
        out.append({"series": "%s{%s}" % (name, lab), "name": name,
                    "labels": dict(re.findall(r'(\w+)="([^"]*)"', lab)),
                    "values": " ".join("_" if x is None else num(x) for x in v),
                    "last": num(v[-1])})
    return out


def wire(bindir):
    """The scrapes, one a second: the first ones are empty until the
    capture's first RPC is complete (its mount starts about 8 s in)."""
    port = free_port()
    cap = os.path.join(CAPS, "server-restart.pcap")
    d = subprocess.Popen([os.path.join(bindir, "nfsrdmad"), "--source", "pcap:" + cap, "--speed", "1",
                          "--socket", "none", "--metrics", "127.0.0.1:%d" % port],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(port)
        scrapes, t0 = [], time.monotonic()
        # the capture spans 17.3 s (capinfos): 19 scrapes cover it and two after
        for i in range(21):
            time.sleep(max(0.0, t0 + i - time.monotonic()))
            scrapes.append(scrape(port) or {})
    finally:
        d.terminate()
        d.wait()
    return series("server-restart", scrapes)


def collector(bindir):
    run = "nfs3-read-write"
    tmp = tempfile.mkdtemp(prefix="nfsrdma-mixin-")
    for side in ("client", "server"):
        with open(os.path.join(tmp, side + ".jsonl"), "w") as f:
            subprocess.run([sys.executable, os.path.join(SRC, "tests", "join", "trace2records.py"), side,
                            os.path.join(CAPS, run + ".truth", side + ".trace")], stdout=f, check=True)
    cport, mport, fport = free_port(), free_port(), free_port()
    d = os.path.join(bindir, "nfsrdmad")
    c = subprocess.Popen([d, "--collect", "127.0.0.1:%d" % cport, "--collect-allow", "127.0.0.1",
                          "--no-clock-hints", "--join-wait", "86400", "--source", os.path.join(CAPS, run + ".pcap"),
                          "--source", "jsonl:" + os.path.join(tmp, "server.jsonl"), "--socket", "none",
                          "--metrics", "127.0.0.1:%d" % mport], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    f = None
    try:
        wait_up(mport)
        f = subprocess.Popen([d, "--forward", "127.0.0.1:%d" % cport, "--host-name", "client-a", "--source",
                              "jsonl:" + os.path.join(tmp, "client.jsonl"), "--socket", "none",
                              "--metrics", "127.0.0.1:%d" % fport], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        wait_up(fport)
        cs, fs = [], []
        for _ in range(3):
            time.sleep(1)
            cs.append(scrape(mport, JOIN) or {})
            fs.append(scrape(fport, JOIN) or {})
    finally:
        for p in (f, c):
            if p:
                p.terminate()
                p.wait()
    return series("collector", cs) + series("forwarder", fs)


def main():
    bindir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build", "bin")
    out = {
        "about": "nfsrdmad /metrics scraped every second; tests/record-series.py wrote it (its docstring: how)",
        "wire": wire(bindir),
        "collector": collector(bindir),
    }
    # one series a line: a diff of a new recording reads as one
    w = sys.stdout.write
    w('{\n "about": %s,\n' % json.dumps(out["about"]))
    for i, run in enumerate(("wire", "collector")):
        w(' "%s": [\n' % run)
        w(",\n".join("  " + json.dumps(x, sort_keys=True) for x in out[run]))
        w("\n ]%s\n" % ("," if i == 0 else ""))
    w("}\n")


main()
