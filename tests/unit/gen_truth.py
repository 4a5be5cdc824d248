#!/usr/bin/env python3
"""Generated captures against the truth the generator wrote beside them
(tests/gen/out/NAME.truth.json, tests/gen/truth.py): nfsrdma-dissect
--json and -q --check on each, every record held to its truth entry --
the eight boundaries (ns), the phases (ns, null when one did not happen),
the total, the frames of the call and the reply, the flags the generator
knows (call, reply, backchannel, timeout, no_call, retransmit) and its
findings (name and section) -- with no record missing and none extra; every --check line
is a finding the generator injected, and every injected finding has its
line.  Closing line: "gen_truth: N passed, N failed".
"""
import glob
import json
import os
import subprocess
import sys

SRC = os.environ.get("NFSRDMA_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BIN = os.path.join(SRC, os.environ.get("O", "build"), "bin", "nfsrdma-dissect")
PHASES = ("call", "queue", "pull", "server", "queue+server", "push", "wait", "reply")
# record.h's flags the truth holds (docs/record.md)
FLAGS = {"call": 1 << 0, "reply": 1 << 1, "backchannel": 1 << 2, "timeout": 1 << 3,
         "no_call": 1 << 4, "retransmit": 1 << 10}
BOUNDS = ("call_first", "call_last", "read_first", "read_last",
          "write_first", "write_last", "reply_first", "reply_last")

passed = failed = 0


def ok(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL gen_truth: " + what)


def run(args):
    p = subprocess.run([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, TZ="UTC", LC_ALL="C"))
    return p.stdout.decode("utf-8")


def order(ts):
    """Two records of one XID (a call sent again, a reply again) in the
    order they began."""
    return (ts["call_first"] or ts["reply_first"], ts["reply_first"])


def check_record(where, rec, want):
    for b in BOUNDS:
        ok(rec["ts"].get(b) == want["ts"][b],
           "%s: %s is %s, the generator laid it at %s" % (where, b, rec["ts"].get(b), want["ts"][b]))
    for ph in PHASES:
        ok(rec["ns"].get(ph) == want["ns"][ph],
           "%s: phase %s is %s ns, truth %s" % (where, ph, rec["ns"].get(ph), want["ns"][ph]))
    ok(rec["ns"].get("total") == want["total"],
       "%s: total is %s ns, truth %s" % (where, rec["ns"].get("total"), want["total"]))
    for k in ("frame_call", "frame_reply"):
        ok((rec.get(k) or None) == want[k], "%s: %s is %s, truth %s" % (where, k, rec.get(k), want[k]))
    mask = sum(FLAGS.values())
    ok(rec["flags"] & mask == sum(FLAGS[f] for f in want["flags"]),
       "%s: flags 0x%x, truth %s" % (where, rec["flags"] & mask, want["flags"]))
    ok(rec.get("rdma_retrans") == want.get("rdma_retrans", 0),
       "%s: rdma_retrans %s, the generator resent %s" % (where, rec.get("rdma_retrans"), want.get("rdma_retrans", 0)))
    got = sorted((f["id"], f["section"]) for f in rec.get("findings", []))
    exp = sorted((f["id"], f["section"]) for f in want["findings"])
    ok(got == exp, "%s: findings %s, injected %s" % (where, got, exp))


def check_capture(truth_path):
    doc = json.load(open(truth_path, encoding="utf-8"))
    cap = os.path.join(os.path.dirname(truth_path), doc["capture"])
    name = doc["capture"]
    recs = [json.loads(l) for l in run(["--json", cap]).splitlines() if l.strip()]
    recs = [r for r in recs if "type" not in r]
    by = {}
    for r in recs:
        by.setdefault(int(r["xid"], 16), []).append(r)
    want = {}
    for t in doc["records"]:
        want.setdefault(t["xid"], []).append(t)
    ok(len(doc["records"]) > 0, "%s: the truth holds no record" % name)
    for xid in sorted(set(by) | set(want)):
        got, exp = sorted(by.get(xid, []), key=lambda r: order(r["ts"])), \
            sorted(want.get(xid, []), key=lambda t: order(t["ts"]))
        ok(len(got) == len(exp), "%s xid 0x%08x: %d record(s), the generator laid down %d"
           % (name, xid, len(got), len(exp)))
        for i, (r, t) in enumerate(zip(got, exp)):
            check_record("%s xid 0x%08x #%d" % (name, xid, i), r, t)
    # --check: one line per injected finding, the connection's included
    lines = [l for l in run(["-q", "--check", cap]).splitlines()
             if l.startswith("check: frame ")]
    got = []
    for l in lines:
        head, rest = l.split(": ", 2)[1:]
        xid = int(head.split(" xid ")[1], 16)
        fname = rest.split(":", 1)[0]
        got.append((xid, fname, rest.rsplit("[", 1)[1].rstrip("]")))
    exp = [(t["xid"], f["id"], f["section"]) for t in doc["records"] for f in t["findings"]]
    exp += [(0, f["id"], f["section"]) for f in doc["conn_findings"]]
    ok(sorted(got) == sorted(exp), "%s: --check says %s, injected %s" % (name, sorted(got), sorted(exp)))


def main():
    if not os.access(BIN, os.X_OK):
        print("FAIL gen_truth: %s not built" % BIN)
        print("gen_truth: 0 passed, 1 failed")
        return 1
    files = sorted(glob.glob(os.path.join(SRC, "tests", "gen", "out", "*.truth.json")))
    ok(len(files) > 0, "no tests/gen/out/*.truth.json")
    for f in files:
        check_capture(f)
    print("gen_truth: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
