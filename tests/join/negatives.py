#!/usr/bin/env python3
"""Which boundary of a joined RPC goes negative, and why: for every lab
capture with client and server ftrace (tests/captures/NAME.truth), the
traces as probe records (trace2records.py), the three-vantage join, then
per flagged record the causal chain of its boundaries on the record's
clock (client, wire, server: the fused record's own times), marking each
one that comes before one it must follow, the raw own-clock times of the
probe records it came from, and the kernels' trace lines of its XID.
Closing table: per capture the joined RPCs, those with a negative phase
by reason (fuse_flags 128 client, 256 wire, 512 server, 1024 clock) and
the fraction with none.  A measurement, not a test:

  O=build python3 tests/join/negatives.py [-q] [NAME...]"""
import json
import os
import re
import subprocess
import sys
import tempfile

O = os.environ.get("O", "build")
DISSECT = os.path.join(O, "bin", "nfsrdma-dissect")
HERE = os.path.dirname(os.path.abspath(__file__))
CAPS = "tests/captures"
REASONS = (("client", 128), ("wire", 256), ("server", 512), ("clock", 1024))


def chain(r):
    """The boundaries in the order the RPC must pass them: (what, vantage, t)."""
    c, s, w = r["vt"].get("client", {}), r["vt"].get("server", {}), r.get("ts", {})
    out = [("task begin", "client", c.get("begin")), ("marshal", "client", c.get("marshal")),
           ("Send posted", "client", c.get("send")), ("call first pkt", "wire", w.get("call_first")),
           ("call last pkt", "wire", w.get("call_last")), ("request received", "server", s.get("recv")),
           ("READ posted", "server", s.get("read_post")), ("execute start", "server", s.get("dispatch")),
           ("execute done", "server", s.get("exec_done")), ("WRITE posted", "server", s.get("write_post")),
           ("reply Send posted", "server", s.get("send_post")), ("reply first pkt", "wire", w.get("reply_first")),
           ("reply last pkt", "wire", w.get("reply_last")), ("reply received", "client", c.get("reply")),
           ("task end", "client", c.get("end"))]
    return [b for b in out if b[2]]


def show(name, r, raw, trace_lines):
    reasons = [n for n, bit in REASONS if r["fuse_flags"] & bit]
    print("== %s xid %s %s: negative, reason %s, uncertainty %.1f us" %
          (name, r["xid"], r.get("procedure", "?"), "+".join(reasons) or "?", r["uncertainty_ns"] / 1e3))
    top, top_what = None, None
    for what, v, t in chain(r):
        mark = ""
        if top is not None and t < top:
            mark = "  <-- %.3f us before %s" % ((top - t) / 1e3, top_what)
        else:
            top, top_what = t, "%s (%s)" % (what, v)
        print("   %-18s %-6s %d%s" % (what, v, t, mark))
    for side in ("client", "server"):
        rec = raw[side].get(r["xid"])
        if rec:
            print("   raw %s record (own clock): ts %s kernel %s" % (side, json.dumps(rec["ts"]),
                                                                   json.dumps(rec["kernel"])))
    for l in trace_lines:
        print("   " + l)


def one(name, tmp, quiet):
    truth = os.path.join(CAPS, name + ".truth")
    raw, files, lines = {}, [], {}
    for side in ("client", "server"):
        out = os.path.join(tmp, "%s-%s.jsonl" % (name, side))
        with open(out, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "trace2records.py"), side,
                            os.path.join(truth, side + ".trace")], stdout=f, check=True)
        files += ["--join", out]
        raw[side] = {json.loads(l)["xid"]: json.loads(l) for l in open(out)}
    p = subprocess.run([DISSECT, os.path.join(CAPS, name + ".pcap")] + files + ["--json"],
                       capture_output=True, text=True)
    recs = [json.loads(l) for l in p.stdout.splitlines()]
    joined = [r for r in recs if set(r.get("vantages", [])) == {"client", "wire", "server"}]
    neg = [r for r in joined if r["fuse_flags"] & 1]
    if neg and not quiet:
        for side in ("client", "server"):
            for l in open(os.path.join(truth, side + ".trace"), errors="replace"):
                m = re.search(r"xid=(0x[0-9a-f]+)", l)
                if m:
                    lines.setdefault(m.group(1), []).append(side + ": " + l.strip())
        for r in neg:
            show(name, r, raw, lines.get(r["xid"], []))
    by = {n: sum(1 for r in neg if r["fuse_flags"] & bit) for n, bit in REASONS}
    return len(joined), len(neg), by


def main():
    args = [a for a in sys.argv[1:] if a != "-q"]
    names = args or sorted(n[:-6] for n in os.listdir(CAPS)
                           if n.endswith(".truth") and os.path.exists(os.path.join(CAPS, n, "server.trace")))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            if os.path.exists(os.path.join(CAPS, n + ".pcap")):
                rows.append((n,) + one(n, tmp, "-q" in sys.argv))
    print("%-24s %7s %8s %7s %5s %7s %6s  %s" % ("capture", "joined", "negative", "client", "wire", "server",
                                                "clock", "non-negative"))
    tj = tn = 0
    for n, j, k, by in rows:
        tj, tn = tj + j, tn + k
        print("%-24s %7d %8d %7d %5d %7d %6d  %s" % (n, j, k, by["client"], by["wire"], by["server"], by["clock"],
                                                    "%.2f %%" % (100.0 * (j - k) / j) if j else "-"))
    print("%-24s %7d %8d %37s" % ("all", tj, tn, "%.2f %%" % (100.0 * (tj - tn) / tj) if tj else "-"))


if __name__ == "__main__":
    main()
