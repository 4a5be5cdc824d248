#!/usr/bin/env python3
"""The -z diagnosis of fused records against an independent computation
from the same run's --json records: lab traces turned into probe records
(trace2records.py), joined with the capture by nfsrdma-dissect --join.
Per operation: the mean split is each phase's sum over the summed totals;
the p99 split is the same over the RPCs whose total lies in the
histogram bucket of the nearest-rank p99 sample or above (bucket layout of
src/stats/hist.h written out here from its comment: 2^5 sub-buckets per
power of two).  A merged span counts for its first phase.  Checks the
text line, the {"type":"diagnosis"} JSON lines and that every line is JSON;
then the same for the captures alone (the wire's phases, not joined), and
that nfsrdma-top -b prints the same diagnosis lines as -z, standalone and
through nfsrdmad's control socket.
Closing line: "join-diagnosis: N passed, N failed"."""
import json
import math
import os
import subprocess
import sys
import tempfile

O = os.environ.get("O", "build")
DISSECT = os.path.join(O, "bin", "nfsrdma-dissect")
HERE = os.path.dirname(os.path.abspath(__file__))
CAPS = ["nfs3-read-write", "nfs3-metadata", "parallel", "nfs41"]
RES = 5
NAMES = ["client_queue", "client_send", "net_out", "server_queue", "pull", "execute",
         "reply_build", "push", "net_back", "client_done"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL join-diagnosis: " + what)


def bucket_lo(v):
    """Lowest value of v's bucket: exact below 2^(RES+1), else 2^RES steps per power of two."""
    if v < (1 << (RES + 1)):
        return v
    e = v.bit_length() - 1
    return (v >> (e - RES)) << (e - RES)


def pct(part, whole):
    return int(math.floor(100.0 * part / whole + 0.5)) if whole else 0


FOLD = {"net_out": "net_out+net_back", "net_back": "net_out+net_back"}
PLACES = ["client_host", "client_net", "server_net", "server_queue", "execute", "pull", "push", "reply_wait"]
WORDS = ["client host", "client-side network", "server-side network", "server queue", "server execute",
         "argument pull", "result push", "reply wait"]


def verdicts(recs):
    """key -> (places, share per mille, words): the place-set whose summed
    share of the records' "places" is the largest (ties: the lower set of
    bits), over the time of all the row's places (docs/record.md)"""
    by = {}
    for r in recs:
        key = r["program"] + " " + r["procedure"]
        if r.get("transport", "rdma") != "rdma":
            key += " " + r["transport"]
        sets = by.setdefault(key, {})
        for p in r.get("places", []):
            bits = sum(1 << PLACES.index(n) for n in p["place"])
            sets[bits] = sets.get(bits, 0) + p["ns"]
    out = {}
    for key, sets in by.items():
        tot = sum(sets.values())
        if not tot:
            continue
        bits = max(sets, key=lambda b: (sets[b], -b))
        pm = (sets[bits] * 1000 + tot // 2) // tot
        names = [PLACES[i] for i in range(len(PLACES)) if bits & (1 << i)]
        words = [WORDS[i] for i in range(len(PLACES)) if bits & (1 << i)]
        w = words[0] if len(words) == 1 else "unresolved between " + ", ".join(words[:-1]) + " and " + words[-1]
        out[key] = (names, pm, "%s %d%%" % (w, (pm + 5) // 10))
    return out


WIRE = ["call", "queue", "pull", "server", "queue+server", "push", "wait", "reply"]


def expect(recs, names=None):
    """key -> (mean phase, mean pct, p99 phase, p99 pct, tail rpcs)"""
    by = {}
    for r in recs:
        key = r["program"] + " " + r["procedure"]
        if r.get("transport", "rdma") != "rdma":
            key += " " + r["transport"]
        ph = {}
        if r["ns"].get("total") is None:
            continue
        for k, v in r["ns"].items():
            if k != "total" and v is not None:
                first = k if names else k.split("+")[0]
                ph[first] = ph.get(first, 0) + v
        if not names:
            # the diagnosis names no direction: net_back counts with net_out
            ph["net_out"] = ph.get("net_out", 0) + ph.pop("net_back", 0)
        by.setdefault(key, []).append((r["ns"]["total"], ph))
    out = {}
    for key, rows in by.items():
        n = len(rows)
        names = names or NAMES

        def split(sel):
            tot = sum(t for t, _ in sel)
            sums = [sum(p.get(nm, 0) for _, p in sel) for nm in names]
            best = max(range(len(names)), key=lambda i: (sums[i], -i))
            return FOLD.get(names[best], names[best]) if names is NAMES else names[best], pct(sums[best], tot)
        totals = sorted(t for t, _ in rows)
        rank = max(1, math.ceil(0.99 * n - 1e-9))
        lo = bucket_lo(totals[rank - 1])
        tail = [x for x in rows if x[0] >= lo]
        out[key] = split(rows) + split(tail) + (len(tail),)
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name in CAPS:
            truth = os.path.join("tests/captures", name + ".truth")
            cj, sj = os.path.join(tmp, "c.jsonl"), os.path.join(tmp, "s.jsonl")
            for side, path in (("client", cj), ("server", sj)):
                with open(path, "w") as f:
                    subprocess.run([sys.executable, os.path.join(HERE, "trace2records.py"), side,
                                    os.path.join(truth, side + ".trace")], stdout=f, check=True)
            base = [DISSECT, "tests/captures/%s.pcap" % name, "--join", cj, "--join", sj]
            p = subprocess.run(base + ["--json"], capture_output=True, text=True)
            # fused records: their ns object holds the fused phases (whatever joined)
            recs = [o for o in map(json.loads, p.stdout.splitlines()) if "v" in o and
                    any(k.split("+")[0] in NAMES for k in o.get("ns", {}))]
            want = expect(recs)
            wantv = verdicts(recs)
            p = subprocess.run(base + ["-z", "proc", "--json"], capture_output=True, text=True)
            lines = p.stdout.splitlines()
            objs = []
            for ln in lines:
                try:
                    objs.append(json.loads(ln))
                except ValueError:
                    objs.append(None)
            check(p.returncode == 0 and lines and None not in objs, "%s: -z --json exit %d, every line JSON" %
                  (name, p.returncode))
            got = {o["key"]: o for o in objs if o and o.get("type") == "diagnosis"}
            check(len(got) >= 3 and set(got) == set(want), "%s: diagnosis rows %s, expected %s" %
                  (name, sorted(got), sorted(want)))
            for key, w in want.items():
                g = got.get(key)
                if not g:
                    continue
                gv = (g["mean"]["phase"], g["mean"]["pct"], g["p99"]["phase"], g["p99"]["pct"], g["p99"]["rpcs"])
                check(gv == w, "%s %s: JSON diagnosis %s, expected %s" % (name, key, gv, w))
                v = wantv.get(key)
                gv = g.get("verdict")
                check(v and gv and (gv["place"], round(gv["share"] * 1000)) == (v[0], v[1]),
                      "%s %s: JSON verdict %s, expected %s" % (name, key, gv, v))
            p = subprocess.run(base + ["-z", "proc"], capture_output=True, text=True)
            text = p.stdout
            # nfsrdma-top on the same joined records: its diagnosis lines
            # are -z's, the verdict aside (top's table has none).  NFSv4
            # rows aside: read back from JSON, a COMPOUND's row is not the
            # one -z gives it from the capture (a difference of the
            # aggregation's keys, not of the diagnosis); nfs41 has no other
            jl = os.path.join(tmp, "joined.jsonl")
            with open(jl, "w") as f:
                f.write(subprocess.run(base + ["--json"], capture_output=True, text=True).stdout)
            b = subprocess.run([os.path.join(O, "bin", "nfsrdma-top"), "--source", "jsonl:" + jl, "-b"],
                               capture_output=True, text=True).stdout
            bl = sorted(l[:-len(" fused")] for l in b.split("\ndiagnosis", 1)[-1].split("\n\n")[0].splitlines()
                        if l.endswith(" fused") and not l.startswith("NFSv4"))
            zl = sorted(l.split("; verdict: ")[0] for l in text.split("== diagnosis per operation", 1)[-1].splitlines()
                        if "; verdict: " in l and not l.startswith("NFSv4"))
            check(len(bl) >= 3 and bl == zl or (name == "nfs41" and bl == zl == []), "%s: top -b fused diagnoses differ from -z's: %s vs %s" %
                  (name, [x for x in bl if x not in zl][:2], [x for x in zl if x not in bl][:2]))
            for key, w in want.items():
                g = got.get(key)
                if not g:
                    continue
                p99 = g["p99_ns"]
                ms = "%.*f ms" % (3 if p99 < 10000000 else 1, p99 / 1e6)
                line = "%s p99 %s: %s %d %%" % (key, ms, w[2], w[3])
                check(("\n" + line + " (mean ") in text, "%s: text line %r missing" % (name, line))
                v = wantv.get(key)
                tail = "; verdict: %s\n" % v[2] if v else None
                check(tail and any(l.startswith(line + " (mean ") and l.endswith(tail[:-1])
                                   for l in text.splitlines()), "%s: text verdict %r missing" % (name, tail))
                check(not any(l.startswith(key + " p99 ") and (" net_out " in l or " net_back " in l)
                              for l in text.splitlines()), "%s %s: the diagnosis names a direction" % (name, key))
    # records not joined: the wire's phases, and nfsrdma-top -b prints the same lines as -z
    top = os.path.join(O, "bin", "nfsrdma-top")
    for name in CAPS:
        cap = "tests/captures/%s.pcap" % name
        z = subprocess.run([DISSECT, "-q", "-z", "proc", cap], capture_output=True, text=True).stdout
        b = subprocess.run([top, "-r", cap, "-b"], capture_output=True, text=True).stdout
        zl = sorted(l for l in z.split("== diagnosis per operation", 1)[-1].splitlines() if " p99 " in l)
        bl = sorted(l for l in b.split("\ndiagnosis", 1)[-1].split("\n\n")[0].splitlines() if " p99 " in l)
        p = subprocess.run([DISSECT, "--json", cap], capture_output=True, text=True)
        want = expect([o for o in map(json.loads, p.stdout.splitlines()) if "v" in o and "ns" in o], WIRE)
        p = subprocess.run([DISSECT, "-q", "-z", "proc", "--json", cap], capture_output=True, text=True)
        got = {o["key"]: o for o in map(json.loads, p.stdout.splitlines()) if o.get("type") == "diagnosis"}
        check(len(got) >= 3 and set(got) == set(want) and all(g["phases"] == "wire" for g in got.values()),
              "%s wire: diagnosis rows %s, expected %s" % (name, sorted(got), sorted(want)))
        for key, w in want.items():
            g = got.get(key)
            if g:
                gv = (g["mean"]["phase"], g["mean"]["pct"], g["p99"]["phase"], g["p99"]["pct"], g["p99"]["rpcs"])
                check(gv == w, "%s wire %s: JSON diagnosis %s, expected %s" % (name, key, gv, w))
        check(len(zl) >= 3 and zl == bl, "%s: -z and top -b diagnoses differ: %s vs %s" % (name, zl[:2], bl[:2]))
    # through the daemon's control socket (its D lines): the same lines again
    import time
    cap = "tests/captures/nfs3-read-write.pcap"
    z = subprocess.run([DISSECT, "-q", "-z", "proc", cap], capture_output=True, text=True).stdout
    zl = sorted(l for l in z.split("== diagnosis per operation", 1)[-1].splitlines() if " p99 " in l)
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, "d.sock")
        d = subprocess.Popen([os.path.join(O, "bin", "nfsrdmad"), "--source", "pcap:" + cap, "--socket", sock,
                              "--metrics", "none"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        bl = []
        try:
            for _ in range(40):
                time.sleep(0.25)
                b = subprocess.run([top, "--socket", sock, "-b", "-n", "1", "--connect-timeout", "2"],
                                   capture_output=True, text=True).stdout
                bl = sorted(l for l in b.split("\ndiagnosis", 1)[-1].split("\n\n")[0].splitlines() if " p99 " in l)
                if bl == zl:
                    break
        finally:
            d.terminate()
            d.wait()
        check(len(zl) >= 3 and bl == zl, "daemon socket: top -b diagnosis %s, -z %s" % (bl[:2], zl[:2]))
    print("join-diagnosis: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
