#!/usr/bin/env python3
"""Byte-for-byte comparison of two nfsrdmad builds' outputs, for changes
to the aggregation that must not change what it reports (bench/README.md,
"nfsrdmad and the aggregation engine").  For each capture: --json with a
summary (--exit-at-end prints the last one), then the running daemon's
/metrics and the control socket's SNAPSHOT once the file is read.

    bench/daemon-same.py OLD/bin NEW/bin CAPTURE...

The one line left out of /metrics is the process's memory gauge
(nfsrdma_aggregation_memory_bytes): what the engine holds is its own
business, and a change to how it keeps its counts may move it.

Prints one line per capture and output, and exits 1 on any difference.
Not a test tier: it needs a second build to compare against."""
import os, socket, subprocess, sys, tempfile, time, urllib.request


def run_json(bindir, cap):
    p = subprocess.run([os.path.join(bindir, "nfsrdmad"), "--source", "pcap:" + cap, "--json",
                        "--summary-interval", "1", "--metrics", "none", "--socket", "none",
                        "--exit-at-end"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)
    return p.stdout


MEMORY_GAUGE = b"nfsrdma_aggregation_memory_bytes "


def without_memory_gauge(metrics):
    return b"".join(l for l in metrics.splitlines(True) if not l.startswith(MEMORY_GAUGE))


def ctl(sock, cmd):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    f = s.makefile("rwb")
    f.readline()   # greeting
    f.write(cmd.encode() + b"\n")
    f.flush()
    out = []
    for line in f:
        out.append(line)
        if line == b"END\n":
            break
    s.close()
    return b"".join(out)


def run_live(bindir, cap, port, tmp):
    sock = os.path.join(tmp, "d.sock")
    d = subprocess.Popen([os.path.join(bindir, "nfsrdmad"), "--source", "pcap:" + cap,
                          "--metrics", "127.0.0.1:%d" % port, "--socket", sock],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = "http://127.0.0.1:%d/metrics" % port
        last, same, m = None, 0, b""
        # read until the file is done: the metrics stop changing
        for _ in range(600):
            time.sleep(0.1)
            try:
                m = without_memory_gauge(urllib.request.urlopen(url, timeout=5).read())
            except OSError:
                continue
            same = same + 1 if m == last else 0
            last = m
            if same >= 5:
                break
        snap = ctl(sock, "SNAPSHOT")
        return m, snap
    finally:
        d.terminate()
        d.wait()


def main():
    old, new, caps = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, cap in enumerate(caps):
            a, b = run_json(old, cap), run_json(new, cap)
            res = [("--json + summary", a, b)]
            ma, sa = run_live(old, cap, 19640 + 2 * (i % 50), tmp)
            mb, sb = run_live(new, cap, 19641 + 2 * (i % 50), tmp)
            res += [("/metrics", ma, mb), ("SNAPSHOT", sa, sb)]
            for what, x, y in res:
                ok = x == y and len(x) > 0
                bad += not ok
                print("%-4s %-40s %-18s %d lines" % ("same" if ok else "DIFF", os.path.basename(cap), what,
                                                        x.count(b"\n")))
    return 1 if bad else 0


sys.exit(main())
