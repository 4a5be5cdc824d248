#!/usr/bin/env bash
# The first screen of nfsrdma-dissect (issue 26): what a storage engineer
# scans first leads the line, and a terminal gets the per-operation table.
#  - every text line of the lab captures starts with the call's time of
#    day (UTC, from the record's JSON time), the operation, the status and
#    "total T", as the record's JSON has them; all of that within 80
#    columns; the phase named after the total is the one the JSON's "ns"
#    gives most time (when two phases have time), then " | ";
#  - on a terminal (script(1) gives the tool a pty) the lines end with the
#    -z proc table and its diagnosis: "== summary per operation ==" once,
#    after the last line, and a diagnosis line last; --no-summary, a pipe,
#    --json and --csv have no table; -z proc asked for is printed once;
#  - -z's diagnosis leaves out a row whose one phase holds all its time
#    ("queue+server 100 % (mean ...: queue+server 100 %)"), keeps the rest.
# Closing line: "first-screen: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
command -v script >/dev/null || { echo "first-screen: cannot run: script(1) missing"; echo "first-screen: 0 passed, 1 failed"; exit 1; }
exec python3 - "$BIN" tests/captures/*.pcap <<'PY'
import json, re, subprocess, sys, time
binp, caps = sys.argv[1], sys.argv[2:]
npass = nfail = 0
def ok(c, what):
    global npass, nfail
    if c: npass += 1
    else:
        nfail += 1
        print("FAIL first-screen:", what)
def run(*a):
    return subprocess.run([binp] + list(a), capture_output=True, text=True, env={"TZ": "UTC", "PATH": "/usr/bin:/bin"}).stdout
def tty(*a):
    # script -c runs the tool on a pseudo-terminal; its \r\n back to \n
    cmd = " ".join([binp] + list(a))
    out = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL).stdout
    return out.replace("\r\n", "\n")
PH = ["call", "queue", "pull", "server", "queue+server", "push", "wait", "reply"]
lines = 0
for cap in caps:
    name = cap.rsplit("/", 1)[-1]
    recs = [json.loads(l) for l in run("--json", cap).splitlines()]
    txt = run(cap).splitlines()
    ok(len(recs) == len(txt), "%s: %d records, %d lines" % (name, len(recs), len(txt)))
    bad = []
    for r, t in zip(recs, txt):
        ts = r["ts"]["call_first"] or r["ts"]["reply_first"]
        tod = time.strftime("%H:%M:%S", time.gmtime(ts // 10**9)) + ".%06d" % (ts % 10**9 // 1000)
        head = "%s %s %s " % (tod, r["program"], r["procedure"])
        if not t.startswith(head):
            if not t.startswith(head.rstrip() + " (backchannel) "):
                bad.append("%s: %r does not start %r" % (r["xid"], t[:60], head)); continue
        m = re.match(r"(.*? total (\S+))( (\S+) (\d+)%)? \| ", t)
        if not m or len(m.group(1)) > 80 or (" " + r["status"] + " total ") not in m.group(1):
            bad.append("%s: head %r (status %s) not within 80 columns" % (r["xid"], m.group(1) if m else t[:90], r["status"])); continue
        ns = r["ns"]
        timed = [k for k in PH if ns[k]]
        if len(timed) >= 2:
            top = max(timed, key=lambda k: ns[k])
            if not m.group(3) or (m.group(4) != top and ns[m.group(4)] < ns[top] - 1000):
                bad.append("%s: dominant %r, JSON's largest %s" % (r["xid"], m.group(3), top))
        elif m.group(3):
            bad.append("%s: one phase timed, yet %r" % (r["xid"], m.group(3)))
        lines += 1
    ok(not bad, "%s: %d lines break the head: %s" % (name, len(bad), "; ".join(bad[:2])))
ok(lines > 900, "lines checked: %d" % lines)

cap = "tests/captures/nfs3-read-write.pcap"
out = tty(cap).rstrip("\n").split("\n")
heads = [i for i, l in enumerate(out) if l == "== summary per operation =="]
recl = [i for i, l in enumerate(out) if re.match(r"\d\d:\d\d:\d\d\.\d{6} ", l)]
ok(len(heads) == 1 and recl and heads[0] > recl[-1] and re.search(r" p99 .*\(mean .*\)$", out[-1]),
   "terminal: the -z proc table and diagnosis end the output (tables at %s, last line %r)" % (heads, out[-1][:80]))
ok(len(recl) == len(run(cap).splitlines()), "terminal: every line before the table (%d)" % len(recl))
for args in (["--no-summary"], ["--json"], ["--csv"]):
    ok("== summary" not in tty(*(args + [cap])), "terminal with %s: no table" % args[0])
ok(tty("-z", "proc", cap).count("== summary per operation ==") == 1, "terminal with -z proc: the table once")
ok(tty("-V", cap).count("== summary per operation ==") == 1, "terminal with -V: the table after the trees")
ok("== summary" not in run(cap), "pipe: no table")

useless = re.compile(r": (\S+) 100 % \(mean [^:]*: \1 100 %\)$")
for c in ("tests/captures/nfs3-tcp.pcap", "tests/captures/nfs3-metadata.pcap", cap):
    z = run("-q", "-z", "proc", c).splitlines()
    d = [l for l in z if useless.search(l)]
    ok(not d, "%s: diagnosis lines with one phase at 100 %%: %s" % (c, d[:2]))
z = run("-q", "-z", "proc", cap)
ok(re.search(r"^NFSv3 WRITE p99 .*: server \d+ %", z, re.M) and re.search(r"^NFSv3 READ p99 .*: push \d+ %", z, re.M),
   "the diagnosis of rows that split their time stays (NFSv3 WRITE: server, READ: push)")
print("first-screen: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
