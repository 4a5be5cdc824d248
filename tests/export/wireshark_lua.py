#!/usr/bin/env python3
"""dist/wireshark/nfsrdma.lua in Debian's tshark 4.0, on every capture in
tests/captures (each named in the output; none skipped):

  - tshark -Y "nfsrdma.total >= 0.01" selects the RPCs that
    nfsrdma-dissect --min-latency 10000 (its own filter: total >= 10 ms)
    keeps: the same (XID, call frame, reply frame) set;
  - on every frame of every RPC (call and reply), nfsrdma.xid, the links
    (nfsrdma.call_frame, nfsrdma.reply_frame), nfsrdma.total and each
    nfsrdma.phase.* equal the record's, and no other frame has a tree;
  - against Wireshark's own decode: the XID Wireshark decodes in each
    annotated frame (rpc.xid, rpcordma.xid) is nfsrdma.xid, and the
    reply's first packet lies within the total after the call's
    (frame.time_epoch of the two linked frames);
  - a joined records file (the lab traces as probe records, --join):
    nfsrdma.fused.* and nfsrdma.verdict equal the joined record's;
  - findings (generated captures with one rule broken): nfsrdma.finding
    is the record's text;
  - bad input: records of another capture, one XID changed, a frame past
    the capture (the capture cut by editcap), lines that do not parse, a
    single pass: one warning on stderr and no nfsrdma field.

Closing line: "wireshark-lua: N passed, N failed".  Tier: golden."""
import glob
import json
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get("NFSRDMA_SRCDIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
O = os.environ.get("O", "build")
O = O if os.path.isabs(O) else os.path.join(SRC, O)
DISSECT = os.path.join(O, "bin", "nfsrdma-dissect")
PLUGIN = os.path.join(SRC, "dist", "wireshark", "nfsrdma.lua")
CAPS = os.path.join(SRC, "tests", "captures")
PHASES = ["call", "queue", "pull", "server", "queue+server", "push", "wait", "reply"]
FPHASES = ["client_queue", "client_send", "net_out", "server_queue", "pull", "execute",
           "reply_build", "push", "net_back", "client_done"]
NAME = "wireshark-lua"
passed = failed = 0
TMP = tempfile.mkdtemp(prefix="nfsrdma-lua.")


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)
    return ok


def cannot(why):
    print("%s: cannot run: %s" % (NAME, why))
    print("%s: 0 passed, 1 failed" % NAME)
    sys.exit(1)


def records(cap, extra=()):
    """The dissector's records (its own JSON Lines), file and parsed."""
    out = os.path.join(TMP, "%s%s.jsonl" % (os.path.basename(cap), "".join(extra).replace("/", "_")))
    with open(out, "w") as f:
        rc = subprocess.run([DISSECT, "--json", *extra, "-r", cap], stdout=f, stderr=subprocess.DEVNULL).returncode
    recs = [json.loads(l) for l in open(out)]
    return out, [r for r in recs if "type" not in r], rc


def tshark(cap, recfile, fields, yfilter=None, two_pass=True, extra=()):
    args = ["tshark", "-n"]
    if two_pass:
        args += ["-2", "-R", "frame"]
    args += ["-X", "lua_script:" + PLUGIN, "-r", cap, "-T", "fields",
             "-E", "occurrence=a", "-E", "aggregator=`"]
    if recfile is not None:
        args += ["-o", "nfsrdma.records:" + recfile]
    if yfilter:
        args += ["-Y", yfilter]
    for f in fields:
        args += ["-e", f]
    p = subprocess.run(args + list(extra), capture_output=True, text=True)
    rows = [l.split("\t") for l in p.stdout.splitlines()]
    warns = [l for l in p.stderr.splitlines() if l.startswith("nfsrdma:")]
    return rows, warns, p.returncode


def secs(ns):
    """A relative time as tshark -T fields prints it."""
    return "%d.%09d" % (ns // 10**9, ns % 10**9)


def vals(cell):
    return sorted(v for v in cell.split("`") if v != "")


def xid_int(s):
    return int(s, 16) if s.startswith("0x") else int(s)


def check_capture(cap):
    name = os.path.basename(cap)[:-5]
    recfile, recs, rc = records(cap)
    if not recs:
        # perftest: RDMA traffic without RPCs; the dissector says so (exit 3)
        rows, warns, trc = tshark(cap, recfile, ["nfsrdma.xid"])
        check(rc == 3 and trc == 0 and not any(r[0] for r in rows) and len(warns) == 1 and "no record" in warns[0],
              "%s: no RPC (dissector exit %d): no field, one warning (%s)" % (name, rc, warns[:1]))
        return
    # the selection: tshark's filter against the dissector's own
    _, slow, _ = records(cap, ["--min-latency", "10000"])
    want = {(r["xid"], r["frame_call"], r["frame_reply"]) for r in slow}
    rows, warns, trc = tshark(cap, recfile, ["nfsrdma.xid", "nfsrdma.call_frame", "nfsrdma.reply_frame", "nfsrdma.total"],
                              "nfsrdma.total >= 0.01")
    got = set()
    for xs, cs, rs, ts in rows:
        for x, c, r, t in zip(*(c.split("`") for c in (xs, cs, rs, ts))):
            if t and float(t) >= 0.01:
                got.add(("0x%08x" % xid_int(x), int(c or 0), int(r or 0)))
    check(trc == 0 and not warns and got == want and len(want) > 0,
          "%s: -Y 'nfsrdma.total >= 0.01' selects the %d RPCs of --min-latency 10000 (tshark %d%s)"
          % (name, len(want), len(got), "; " + warns[0] if warns else ""))
    # every RPC's frames: values equal the record's
    fields = ["frame.number", "nfsrdma.xid", "nfsrdma.role", "nfsrdma.call_frame", "nfsrdma.reply_frame",
              "nfsrdma.total", "rpc.xid", "rpcordma.xid", "frame.time_epoch"] + \
             ["nfsrdma.phase." + p.replace("+", "_") for p in PHASES]
    rows, warns, trc = tshark(cap, recfile, fields)
    by_frame = {}
    for r in recs:
        for role in ("call", "reply"):
            f = r["frame_" + role]
            if f:
                by_frame.setdefault(f, []).append((r, role))
    seen, bad, times = set(), [], {}
    for row in rows:
        fno = int(row[0])
        times[fno] = float(row[8])
        if not row[1]:
            continue
        seen.add(fno)
        exp = by_frame.get(fno, [])
        exp_cells = [
            sorted("0x%08x" % int(r["xid"], 16) for r, _ in exp),
            sorted(role for _, role in exp),
            sorted(str(r["frame_call"]) for r, _ in exp if r["frame_call"]),
            sorted(str(r["frame_reply"]) for r, _ in exp if r["frame_reply"]),
            sorted(secs(r["ns"]["total"]) for r, _ in exp if r["ns"]["total"] is not None),
        ] + [sorted(secs(r["ns"][p]) for r, _ in exp if r["ns"][p] is not None) for p in PHASES]
        got_cells = [sorted("0x%08x" % xid_int(v) for v in vals(row[1]))] + [vals(c) for c in row[2:6]] + \
            [vals(c) for c in row[9:]]
        if got_cells != exp_cells:
            bad.append("frame %d: %s != %s" % (fno, got_cells, exp_cells))
    # Wireshark's own XIDs in each annotated frame, when it decodes one
    # there; over TCP the frame holding a message's last byte, where
    # Wireshark decodes it (a frame may end one message and begin another)
    ws = {int(row[0]): {xid_int(v) for v in vals(row[6]) + vals(row[7])} for row in rows}
    tns = {int(row[0]): int(row[8].replace(".", "")) for row in rows}
    for fno in seen:
        for r, role in by_frame[fno]:
            x = int(r["xid"], 16)
            if not ws[fno] or x in ws[fno]:
                continue
            last = r["ts"][role + "_last"]
            if r["transport"] == "rdma" or not any(x in ws[g] and tns[g] == last for g in ws if g >= fno):
                bad.append("frame %d: nfsrdma.xid 0x%08x, Wireshark's %s" % (fno, x, sorted(ws[fno])))
    missing = sorted(set(by_frame) - seen)
    nph = sum(1 for r in recs for p in PHASES if r["ns"][p] is not None)
    check(trc == 0 and not warns and not bad and not missing,
          "%s: %d RPCs, %d frames, %d phase values: every field equals the record's, XIDs Wireshark's%s"
          % (name, len(recs), len(seen), nph, "; " + "; ".join((bad + ["missing frames %s" % missing[:5]])[:2]) if bad or missing else ""))
    # the linked frames' times against the total: the reply's first packet
    # comes after the call's first, no later than the total
    late = [r["xid"] for r in recs if r["frame_call"] and r["frame_reply"] and r["ns"]["total"] is not None
            and not (-1e-6 <= times[r["frame_reply"]] - times[r["frame_call"]] <= r["ns"]["total"] / 1e9 + 1e-6)]
    both = sum(1 for r in recs if r["frame_call"] and r["frame_reply"])
    check(both > 0 and not late, "%s: %d call-reply links: reply frame within the total after the call frame%s"
          % (name, both, " (not: %s)" % late[:3] if late else ""))


def check_joined(name):
    cap = os.path.join(CAPS, name + ".pcap")
    truth = os.path.join(CAPS, name + ".truth")
    side = {}
    for s in ("client", "server"):
        side[s] = os.path.join(TMP, "%s.%s.jsonl" % (name, s))
        with open(side[s], "w") as f:
            subprocess.run([sys.executable, os.path.join(SRC, "tests", "join", "trace2records.py"), s,
                            os.path.join(truth, s + ".trace")], stdout=f, check=True)
    recfile, recs, _ = records(cap, ["--join", side["client"], "--join", side["server"]])
    recs = [r for r in recs if r.get("source") == "joined" and r["frame_call"]]
    fields = ["frame.number", "nfsrdma.fused.total", "nfsrdma.verdict", "nfsrdma.verdict_share"] + \
        ["nfsrdma.fused." + p for p in FPHASES]
    rows, warns, trc = tshark(cap, recfile, fields, "nfsrdma.role == \"call\"")
    got = {int(r[0]): r[1:] for r in rows}
    bad, nverd = [], 0
    for r in recs:
        ns = r["ns"]
        spans = {p: ns[k] for k in ns if k != "total" for p in [k.split("+")[0]] if ns[k] is not None}
        exp = [secs(ns["total"]) if ns["total"] is not None else ""]
        v = r.get("verdict")
        exp += ["|".join(v["place"]), "%.3f" % v["share"]] if v else ["", ""]
        nverd += 1 if v else 0
        exp += [secs(spans[p]) if p in spans else "" for p in FPHASES]
        g = got.get(r["frame_call"])
        if g is None:
            bad.append("frame %d: no tree" % r["frame_call"])
            continue
        g = list(g)
        g[2] = "%.3f" % float(g[2]) if g[2] else ""
        if g != exp:
            bad.append("frame %d: %s != %s" % (r["frame_call"], g, exp))
    check(trc == 0 and not warns and recs and not bad,
          "%s joined: %d RPCs with all fused phases, %d verdicts equal the joined records'%s"
          % (name, len(recs), nverd, "; " + bad[0] if bad else ""))


def check_findings():
    caps = sorted(glob.glob(os.path.join(SRC, "tests", "gen", "out", "xdr-f-*.pcap")))
    n, bad = 0, []
    for cap in caps:
        recfile, recs, _ = records(cap)
        rows, warns, _ = tshark(cap, recfile, ["frame.number", "nfsrdma.finding"], "nfsrdma.role == \"call\"")
        got = {int(r[0]): vals(r[1]) for r in rows}
        for r in recs:
            if not r["frame_call"]:
                continue
            exp = sorted(f["text"] for f in r.get("findings", []))
            n += len(exp)
            if got.get(r["frame_call"], []) != exp:
                bad.append("%s frame %d: %s != %s" % (os.path.basename(cap), r["frame_call"], got.get(r["frame_call"]), exp))
    check(caps and n > 0 and not bad, "findings: %d captures, %d findings, nfsrdma.finding = the record's text%s"
          % (len(caps), n, "; " + bad[0] if bad else ""))


def check_bad():
    cap = os.path.join(CAPS, "nfs3-read-write.pcap")
    good, recs, _ = records(cap)
    lines = open(good).read().splitlines()

    def bad_case(what, recfile, capfile=cap, two_pass=True, expect="not this capture"):
        rows, warns, rc = tshark(capfile, recfile, ["nfsrdma.xid", "nfsrdma.total"], two_pass=two_pass)
        fields = [r for r in rows if any(r)]
        check(rc == 0 and not fields and len(warns) == 1 and expect in warns[0],
              "bad input: %s: no field (%d rows with one), one warning: %s" % (what, len(fields), warns))

    other, _, _ = records(os.path.join(CAPS, "nfs41.pcap"))
    bad_case("nfs41's records on nfs3-read-write", other)
    # one XID changed: the record of a call in the middle of the capture
    mid = len(lines) // 2
    r = json.loads(lines[mid])
    r["xid"] = "0x%08x" % (int(r["xid"], 16) ^ 0x1)
    f = os.path.join(TMP, "xid.jsonl")
    open(f, "w").write("\n".join(lines[:mid] + [json.dumps(r)] + lines[mid + 1:]) + "\n")
    bad_case("XID of frame %d changed (%s)" % (r["frame_call"], r["transport"]), f)
    # and of the first record, the mount's PORTMAP call over TCP
    r = json.loads(lines[0])
    r["xid"] = "0x%08x" % (int(r["xid"], 16) ^ 0x100)
    open(f, "w").write("\n".join([json.dumps(r)] + lines[1:]) + "\n")
    bad_case("XID of frame %d changed (%s)" % (r["frame_call"], r["transport"]), f)
    # a capture cut short: the records' later frames are past its end
    cut = os.path.join(TMP, "cut.pcap")
    subprocess.run(["editcap", "-r", cap, cut, "1-300"], check=True, capture_output=True)
    bad_case("capture cut to 300 frames, records of the whole", good, cut, expect="past the capture")
    for what, text, expect in [
            ("a truncated line", lines[0] + "\n" + lines[1][:120] + "\n", ":2: "),
            ("a line that is not JSON", lines[0] + "\nnot json\n", ":2: unexpected 'n' at offset 0"),
            ("a bad escape", lines[0].replace('"source"', '"sou\\qrce"', 1) + "\n", ":1: bad escape"),
            ("a record without frame numbers", json.dumps({"xid": "0x1"}) + "\n", "without xid, frame_call"),
            ("an empty file", "", "no record"),
            ("nesting 40 deep", "[" * 40 + "]" * 40 + "\n", "nested deeper"),
            ("a 2 MiB line", lines[0] + "\n" + " " * (2 << 20) + "\n", ":2: line longer than 1048576 bytes")]:
        f = os.path.join(TMP, "bad.jsonl")
        open(f, "w").write(text)
        bad_case(what, f, expect=expect)
    bad_case("a records file that does not exist", os.path.join(TMP, "none.jsonl"), expect="No such file")
    bad_case("tshark reading once (no -2)", good, two_pass=False, expect="read it once")
    # the script's argument and the environment name the file too
    args = ["tshark", "-n", "-2", "-R", "frame", "-X", "lua_script:" + PLUGIN, "-r", cap, "-T", "fields", "-e", "nfsrdma.xid"]
    n_arg = sum(1 for l in subprocess.run(args + ["-X", "lua_script1:" + good], capture_output=True, text=True).stdout.split() if l)
    env = dict(os.environ, NFSRDMA_RECORDS=good)
    n_env = sum(1 for l in subprocess.run(args, capture_output=True, text=True, env=env).stdout.split() if l)
    n = sum((1 if r["frame_call"] else 0) + (1 if r["frame_reply"] else 0) for r in recs)
    check(n_arg == n_env == n, "records named by -X lua_script1:FILE (%d frames) and NFSRDMA_RECORDS (%d): all %d"
          % (n_arg, n_env, n))


def main():
    try:
        v = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    except OSError:
        cannot("tshark not installed (scripts/deps.sh test)")
    if not os.access(DISSECT, os.X_OK):
        cannot("%s missing (make)" % DISSECT)
    print("# " + v)
    caps = sorted(glob.glob(os.path.join(CAPS, "*.pcap")))
    print("# captures: " + " ".join(os.path.basename(c)[:-5] for c in caps))
    for cap in caps:
        check_capture(cap)
    for name in ("nfs3-read-write", "nfs41"):
        check_joined(name)
    check_findings()
    check_bad()
    subprocess.run(["rm", "-rf", TMP])
    print("%s: %d passed, %d failed" % (NAME, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
