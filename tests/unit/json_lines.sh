#!/usr/bin/env bash
# With --json, stdout holds JSON alone (docs/record.md, "JSON Lines: the
# types of line"): nfsrdma-dissect --json with every combination of -z
# proc|conn|client, --check and -q, on every lab capture and on the
# generated captures that break a rule (tests/gen/out/xdr-f-*).  Every
# stdout line must parse as JSON and be a record or carry a known type;
# the summary rows must hold the numbers of the text summary (-z without
# --json), the finding lines the findings of the text --check, and the
# check line their count and the records' count.
# Closing line: "json-lines: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
BIN=${O:-build}/bin/nfsrdma-dissect
command -v python3 >/dev/null || { echo "json-lines: python3 missing"; echo "json-lines: 0 passed, 1 failed"; exit 1; }
[ -x "$BIN" ] || { echo "json-lines: $BIN missing (make first)"; echo "json-lines: 0 passed, 1 failed"; exit 1; }
exec python3 - "$BIN" tests/captures/*.pcap tests/gen/out/xdr-f-*.pcap <<'PY'
import itertools, json, re, subprocess, sys

BIN, caps = sys.argv[1], sys.argv[2:]
TYPES = {"summary", "summary_total", "diagnosis", "finding", "check"}
passed = failed = 0
problems = []   # of the run being judged: one pass or fail per run

def check(cond, what):
    if not cond:
        problems.append(what)

def judge():
    global passed, failed
    if problems:
        failed += 1
        for p in problems:
            print("FAIL json-lines:", p)
    else:
        passed += 1
    del problems[:]

def run(args):
    p = subprocess.run([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape")

def text_summary(cap, kind):
    """rows of the text summary: key -> list of its fields as printed"""
    rc, out = run(["-q", "-z", kind, cap])
    rows = {}
    table = True
    for line in out.splitlines():
        if line.startswith("=="):
            # the diagnosis (and fused-phase) sections are not the table
            table = line.startswith("== summary")
            continue
        if not table or not line.strip():
            continue
        tok = line.split()
        if tok[0] in ("operation", "connection", "client") and tok[1] == "calls":
            continue
        if tok[0] == "total" and len(tok) == 7:
            rows[None] = tok[1:]
        else:
            rows[" ".join(tok[:-12])] = tok[-12:]
    return rows

def json_row(o):
    f = [str(o[k]) for k in ("calls", "replies", "errors", "unanswered", "bytes_inline", "bytes_ddp")]
    if o["type"] == "summary":
        f += ["%.1f" % (o[k] / 1000.0) for k in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")]
        c = o["chunks"]
        f.append("/".join(str(c[k]) for k in ("inline", "read", "write", "reply", "p0")))
    return f

nfind_total = 0
for cap in caps:
    name = cap.rsplit("/", 1)[-1]
    text = {k: text_summary(cap, k) for k in ("proc", "conn", "client")}
    rc, out = run(["--check", "-q", cap])
    text_findings = sorted(re.findall(r"^check: frame (\d+) conn (\d+) xid (0x[0-9a-f]{8}): ([^:]+):", out, re.M))
    rc, out = run(["--json", cap])
    nrec = len(out.splitlines())
    nfind_total += len(text_findings)
    for zs in itertools.chain.from_iterable(itertools.combinations(("proc", "conn", "client"), n) for n in range(4)):
        for chk, quiet in itertools.product((False, True), repeat=2):
            args = ["--json"] + [a for z in zs for a in ("-z", z)] + (["--check"] if chk else []) + (["-q"] if quiet else [])
            what = "%s %s" % (name, " ".join(args))
            rc, out = run(args + [cap])
            lines = out.splitlines()
            objs, bad = [], []
            for l in lines:
                try:
                    objs.append(json.loads(l))
                except ValueError:
                    bad.append(l)
            check(not bad, "%s: %d line(s) not JSON, e.g. %r" % (what, len(bad), bad[:1]))
            unknown = [o for o in objs if not (o.get("type") in TYPES or ("type" not in o and "v" in o and "xid" in o))]
            check(not unknown, "%s: lines of no known type: %r" % (what, unknown[:1]))
            recs = [o for o in objs if "type" not in o]
            check(len(recs) == (0 if quiet else nrec), "%s: %d records, expected %d" % (what, len(recs), 0 if quiet else nrec))
            for z in ("proc", "conn", "client"):
                rows = {o["key"]: json_row(o) for o in objs if o.get("type") == "summary" and o["by"] == z}
                tots = [json_row(o) for o in objs if o.get("type") == "summary_total" and o["by"] == z]
                if z in zs:
                    if tots:
                        rows[None] = tots[0]
                    check(rows == text[z] and len(tots) == 1,
                          "%s: -z %s differs from the text summary: %r vs %r" % (what, z, rows, text[z]))
                else:
                    check(not rows and not tots, "%s: a -z %s summary nobody asked for" % (what, z))
            fl = [o for o in objs if o.get("type") == "finding"]
            cl = [o for o in objs if o.get("type") == "check"]
            if chk:
                got = sorted((str(o["frame"]), str(o["conn"]), o["xid"], o["id"]) for o in fl)
                check(got == text_findings, "%s: findings %r, the text --check has %r" % (what, got, text_findings))
                check(len(cl) == 1 and cl[0]["findings"] == len(fl) and cl[0]["rpcs"] == nrec,
                      "%s: check line %r, expected findings %d rpcs %d" % (what, cl, len(fl), nrec))
                # every finding a record carries has its line
                inrec = sorted((r["xid"], f["id"]) for r in recs for f in r.get("findings", []))
                check(all((f[2], f[3]) in {(o["xid"], o["id"]) for o in fl} for f in [(0, 0, x, i) for x, i in inrec]),
                      "%s: a record's finding has no finding line" % what)
            else:
                check(not fl and not cl, "%s: finding or check lines without --check" % what)
            judge()

# the test saw what it is about: findings, and summaries of several rows
check(nfind_total > 0, "no capture has a finding: the finding lines went untested")
judge()
print("json-lines: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
