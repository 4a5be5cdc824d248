#!/usr/bin/env python3
"""Judges a run of tests/lab/chimera/replay: the lab's committed captures
(knfsd's answers in them) replayed by nfsrdma-replay against Chimera.

  check_replay.py OUTDIR

For every capture replayed: the report is valid JSON, the replay reached
the target (calls replayed, no transport error, nothing lost), and every
call whose status differs from knfsd's in the capture is one of the
differences tests/lab/chimera/replay-differences.txt explains (a different
server may answer differently and be right; each line says which it is).
Chimera must have run through every replay (chimera.deaths absent),
the last one a replay of nfs3-read-write whose connection is dropped
once a reply is in (--disconnect-after): the one drop made, a new
connection, every call answered.
Writes OUTDIR/replay-table.tsv: capture, calls, same, different, errors,
lost. Closing line: "chimera-replay: N passed, N failed"."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("PASS chimera-replay: " + what)
    else:
        failed += 1
        print("FAIL chimera-replay: " + what)
    return ok


def explained():
    """(capture, op, trace RPC accept status, its NFS status, replay RPC
    accept status, its NFS status) -> why."""
    out = {}
    for line in open(os.path.join(HERE, "replay-differences.txt")):
        if line.strip() and not line.startswith("#"):
            f = line.rstrip("\n").split("\t")
            out[(f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]))] = f[6]
    return out


def disconnect(out):
    """The injected drop (--disconnect-after, once) taken and survived: one
    drop, a new connection, and every call of the capture answered over
    the two, as in the plain replay (the same explained differences)."""
    name = "disconnect-nfs3-read-write"
    try:
        j = json.loads(open(os.path.join(out, name + ".out")).read())
    except (OSError, ValueError) as e:
        check(False, "%s: JSON report (%s)" % (name, e))
        return
    t, x = j["totals"], j["transport_stats"]
    check(x["dropped_on_request"] == 1 and x["reconnects"] >= 1,
          "%s: the one drop asked for was made (%d) and the replay connected again (%d reconnects)"
          % (name, x["dropped_on_request"], x["reconnects"]))
    check(t["replayed"] == t["trace"] and t["errors"] == 0 and x["replies"] + t["lost"] >= x["calls"],
          "%s: %d of %d calls replayed, %d errors, %d lost in the drop, %d replies to %d calls"
          % (name, t["replayed"], t["trace"], t["errors"], t["lost"], x["replies"], x["calls"]))
    known = {k[1] for k in explained() if k[0] == "nfs3-read-write"}
    ops_diff = {o["op"] for o in j["ops"] if o["mismatches"]}
    check(ops_diff <= known, "%s: every status as in the plain replay or explained (%s)"
          % (name, sorted(ops_diff - known) or "all explained"))


def main():
    out = sys.argv[1]
    known = explained()
    names = sorted(f[len("replay-"):-3] for f in os.listdir(out) if f.startswith("replay-") and f.endswith(".rc"))
    check(len(names) >= 5, "%d captures replayed (>= 5)" % len(names))
    rows = []
    for c in names:
        try:
            j = json.loads(open(os.path.join(out, "replay-%s.out" % c)).read())
        except (OSError, ValueError) as e:
            check(False, "%s: JSON report (%s): %s" % (c, e, open(os.path.join(out, "replay-%s.err" % c)).read()[-300:]))
            continue
        t = j["totals"]
        check(t["replayed"] > 0 and t["errors"] == 0 and t["lost"] == 0,
              "%s: %d of %d calls replayed, %d errors, %d lost" % (c, t["replayed"], t["trace"], t["errors"], t["lost"]))
        why = []
        for m in j["mismatches"]:
            k = (c, m["op"], m["trace_rpc"], m["trace_status"], m["replay_rpc"], m["replay_status"])
            if k in known:
                why.append(known[k])
            else:
                check(False, "%s: %s (xid %s) RPC/NFS status %d/%d, knfsd's in the capture %d/%d: not explained "
                      "in replay-differences.txt" % (c, m["op"], m["xid"], m["replay_rpc"], m["replay_status"],
                                                     m["trace_rpc"], m["trace_status"]))
        # the report lists the first differences (a sample when many); every
        # operation with a difference must have its explanation
        ops_diff = {o["op"] for o in j["ops"] if o["mismatches"]}
        ops_known = {k[1] for k in known if k[0] == c}
        check(len(why) == len(j["mismatches"]) and ops_diff <= ops_known,
              "%s: %d same status as knfsd, %d different, each explained (operations differing: %s)"
              % (c, t["same_status"], t["mismatches"], sorted(ops_diff - ops_known) or "all explained"))
        rows.append((c, t["trace"], t["replayed"], t["same_status"], t["mismatches"], t["errors"], t["lost"]))
    disconnect(out)
    deaths = os.path.join(out, "chimera.deaths")
    check(not os.path.exists(deaths), "Chimera ran through every replay%s"
          % (": " + open(deaths).read().strip() if os.path.exists(deaths) else ""))
    with open(os.path.join(out, "replay-table.tsv"), "w") as f:
        f.write("capture\ttrace\treplayed\tsame\tdifferent\terrors\tlost\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
            print("chimera-replay: %-18s trace %4d replayed %4d same %4d different %3d errors %d lost %d" % r)
    print("chimera-replay: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
