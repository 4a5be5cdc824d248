#!/usr/bin/env bash
# Names are the wire's bytes, escaped at the output (docs/record.md,
# "Names"): on the hostile names of tests/badinput/names/ (NAMES in
# tests/badinput/mkcaps.py), nfsrdma-dissect's text, -V, --json, --csv and
# --fields, and nfsrdma-replay --dry-run (text and --json), must each give
# back exactly the bytes put in (the record's: cut at 47 bytes on a
# character's boundary, or at a NUL, and flagged), print no raw control
# byte, and the two tools must show one XID's name alike.
# Closing line: "names: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
B=${O:-build}/bin
exec python3 - "$B" <<'PY'
import csv, io, json, re, subprocess, sys

B = sys.argv[1]
D = "tests/badinput/names/"
CUT = 1 << 14
npass = nfail = 0


def check(ok, what):
    global npass, nfail
    if ok:
        npass += 1
    else:
        nfail += 1
        print("FAIL names: " + what)


names = {}
for line in subprocess.run(["python3", "tests/badinput/mkcaps.py", "--list"], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    x, h = line.split()
    names[int(x, 16)] = bytes.fromhex(h)
check(len(names) >= 14, "mkcaps.py --list gave %d names" % len(names))


def keep(b, cap):
    """the record's bound (dissect/name_text.h name_keep), written again
    from its description: up to a NUL, at most cap bytes, never half a
    character"""
    k = b.find(b"\0")
    k = len(b) if k < 0 else k
    k = min(k, cap)
    if k < len(b) and k == cap:
        for back in range(1, 4):
            lead = b[k - back]
            n = 2 if 0xc2 <= lead <= 0xdf else 3 if 0xe0 <= lead <= 0xef else 4 if 0xf0 <= lead <= 0xf4 else 0
            if n > back:
                try:
                    b[k - back:k - back + n].decode("utf-8")
                    k -= back
                    break
                except UnicodeDecodeError:
                    pass
            if not 0x80 <= lead <= 0xbf:
                break
    return b[:k], k < len(b)


def rec_name(xid):
    return keep(names[xid & 0xfff], 47)


def run(args, binary="nfsrdma-dissect"):
    try:
        p = subprocess.run([B + "/" + binary] + args, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return -1, b"", b"did not end"
    return p.returncode, p.stdout, p.stderr


def unesc_text(s):
    """the text convention back to bytes: \\xHH, \\", \\\\; the rest UTF-8"""
    try:
        return unesc_text1(s)
    except (ValueError, IndexError):
        return None


def unesc_text1(s):
    out, i = b"", 0
    while i < len(s):
        if s[i] == "\\":
            if s[i + 1] == "x":
                out += bytes([int(s[i + 2:i + 4], 16)])
                i += 4
            else:
                out += s[i + 1].encode()
                i += 2
        else:
            out += s[i].encode()
            i += 1
    return out


def unesc_csv(s):
    """the CSV convention: JSON's escapes with '"' left as it is"""
    try:
        return json.loads('"' + s.replace('"', '\\"') + '"').encode("utf-8", "surrogateescape")
    except (ValueError, AttributeError):
        return None


def terminal_safe(out, what):
    try:
        t = out.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: not UTF-8 (%s)" % (what, e))
        return
    bad = [c for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
    check(not bad, "%s: raw control characters %r" % (what, bad[:5]))


QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(\.\.\.)?')
XID = re.compile(r"xid 0x([0-9a-f]{8})")

for cap in ("nfs3-names", "nfs4-names", "mount-names"):
    pcap = D + cap + ".pcap"
    # text: one line per RPC, its name quoted
    rc, out, err = run([pcap])
    check(rc == 0 and not err, "%s: text exit %d, stderr %r" % (cap, rc, err[:200]))
    terminal_safe(out, cap + " text")
    seen = 0
    for line in out.decode("utf-8", "replace").splitlines():
        m = XID.search(line)
        if not m or int(m.group(1), 16) == 0x999:
            continue
        xid = int(m.group(1), 16)
        want, cut = rec_name(xid)
        q = QUOTED.search(line)
        check(q and unesc_text(q.group(1)) == want and bool(q.group(2)) == cut,
              "%s text xid 0x%x: %r, want %r cut %s" % (cap, xid, line, want, cut))
        seen += 1
    check(seen == len(names), "%s text: %d named RPCs, want %d" % (cap, seen, len(names)))
    # -V: the tree's name line too
    rc, out, err = run(["-V", pcap])
    terminal_safe(out, cap + " -V")
    trees = re.findall(r'^\s+(?:name|dirpath|file|objname): "((?:[^"\\]|\\.)*)"(\.\.\.)?$',
                       out.decode("utf-8", "replace"), re.M)
    got = sorted((unesc_text(t[0]), bool(t[1])) for t in trees)
    check(got == sorted(rec_name(x) for x in names), "%s -V: names %r" % (cap, got[:4]))
    # JSON: decoded with surrogateescape, the bytes
    rc, out, err = run(["--json", pcap])
    js = {}
    for line in out.splitlines():
        r = json.loads(line)
        if "xid" in r and "flags" in r and int(r["xid"], 16) != 0x999:
            js[int(r["xid"], 16)] = r
    check(len(js) == len(names), "%s --json: %d records" % (cap, len(js)))
    check(rc == 0 and not err, "%s --json: exit %d, stderr %r" % (cap, rc, err[:200]))
    for xid, r in js.items():
        want, cut = rec_name(xid)
        got = r.get("name", "").encode("utf-8", "surrogateescape")
        check(got == want and r.get("name_cut", False) == cut and bool(r["flags"] & CUT) == cut,
              "%s --json xid 0x%x: %r cut %r flags %d, want %r cut %s" %
              (cap, xid, got, r.get("name_cut"), r["flags"], want, cut))
    terminal_safe(out, cap + " --json")
    # CSV (RFC 4180, Python's reader) and --fields
    for args, key, fl in ((["--csv"], "name", "flags"),
                          (["--fields", "rpc.xid,nfs.name,nfsrdma.flags"], "nfs.name", "nfsrdma.flags")):
        rc, out, err = run(args + [pcap])
        terminal_safe(out, cap + " " + args[0])
        rows = [r for r in csv.DictReader(io.StringIO(out.decode("utf-8", "replace")))
                if int(r.get("xid") or r.get("rpc.xid") or "0x999", 16) != 0x999]
        check(len(rows) == len(names), "%s %s: %d rows" % (cap, args[0], len(rows)))
        for r in rows:
            xid = int(r.get("xid") or r.get("rpc.xid"), 16)
            want, cut = rec_name(xid)
            got = unesc_csv(r.get(key))
            check(got == want and bool(int(r.get(fl) or 0) & CUT) == cut,
                  "%s %s xid 0x%x: %r (cell %r), want %r" % (cap, args[0], xid, got, r[key], want))

# nfsrdmad --json: the same record lines, from the capture and from
# nfsrdma-dissect's JSON Lines read back (jsonl:, the join's reader)
import tempfile
for cap in ("nfs3-names", "nfs4-names"):
    pcap = D + cap + ".pcap"
    _, dout, _ = run(["--json", pcap])
    want = {r["xid"]: (r.get("name"), r.get("name_cut")) for r in map(json.loads, dout.splitlines()) if "flags" in r}
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as t:
        t.write(dout)
        t.flush()
        for src in (pcap, "jsonl:" + t.name):
            rc, out, err = run(["--source", src, "--json", "--exit-at-end", "--metrics", "none",
                                "--socket", "none"], "nfsrdmad")
            got = {}
            for line in out.splitlines():
                r = json.loads(line)
                if "flags" in r and "xid" in r:
                    got[r["xid"]] = (r.get("name"), r.get("name_cut"))
            check(got == want, "nfsrdmad --source %s --json: names %r, want %r" %
                  (src, sorted(got.items())[:3], sorted(want.items())[:3]))

# nfsrdma-replay --dry-run: the trace's names whole (its bound is 255
# bytes), in its JSON and its text, and as nfsrdma-dissect shows them
for cap in ("nfs3-names", "nfs4-names"):
    pcap = D + cap + ".pcap"
    rc, out, err = run([pcap, "--dry-run", "--json"], "nfsrdma-replay")
    terminal_safe(out, cap + " replay --json")
    rj = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("type") == "call" and int(r["xid"], 16) != 0x999:
            nm = r["names"] if "names" in r else ([r["name"]] if "name" in r else [])
            rj[int(r["xid"], 16)] = [n.encode("utf-8", "surrogateescape") for n in nm]
    check(len(rj) == len(names), "%s replay --json: %d calls (exit %d, %r)" % (cap, len(rj), rc, err[:200]))
    _, dout, _ = run(["--json", pcap])
    dj = {int(r["xid"], 16): r for r in map(json.loads, dout.splitlines()) if "xid" in r}
    for xid, got in rj.items():
        full = names[xid & 0xfff]
        # a NUL ends a name both tools can show; NFSv3's replay keeps no
        # name with a NUL in it (it would not send a cut one)
        want = [] if (b"\0" in full and cap == "nfs3-names") else [keep(full, 255)[0]]
        check(got == want, "%s replay --json xid 0x%x: %r, want %r" % (cap, xid, got, want))
        d = dj[xid].get("name", "").encode("utf-8", "surrogateescape")
        same = (got and (got[0] == d if not dj[xid].get("name_cut") else got[0].startswith(d))) or \
               (not got and b"\0" in full)
        check(same, "%s xid 0x%x: dissect %r, replay %r" % (cap, xid, d, got))
    rc, out, err = run([pcap, "--dry-run"], "nfsrdma-replay")
    terminal_safe(out, cap + " replay text")
    n = 0
    for line in out.decode("utf-8", "replace").splitlines():
        m = XID.search(line)
        if not m or int(m.group(1), 16) == 0x999:
            continue
        xid = int(m.group(1), 16)
        q = [unesc_text(g[0]) for g in QUOTED.findall(line)]
        check(q == rj[xid], "%s replay text xid 0x%x: %r, want %r" % (cap, xid, line, rj[xid]))
        n += 1
    check(n == len(names), "%s replay text: %d calls" % (cap, n))

# the export replay takes from the trace's MOUNT: its bytes, mounted as
# they were, escaped in the dry run's text and JSON as dissect's name
export = bytes.fromhex(subprocess.run(["python3", "tests/badinput/mkcaps.py", "--export"], capture_output=True,
                                      text=True, check=True).stdout.strip())
pcap = D + "mount-export.pcap"
rc, out, err = run([pcap, "--dry-run"], "nfsrdma-replay")
terminal_safe(out, "mount-export replay text")
m = re.match(r"trace \S+: \d+ NFS calls, export (.*), root from MOUNT$", out.decode("utf-8", "replace").splitlines()[0])
check(m and unesc_text(m.group(1)) == export, "replay text export: %r, want %r" % (out[:200], export))
rc, out, err = run([pcap, "--dry-run", "--json"], "nfsrdma-replay")
tr = json.loads(out.splitlines()[0])
check(tr.get("export", "").encode("utf-8", "surrogateescape") == export, "replay --json export: %r" % tr)
_, dout, _ = run(["--json", pcap])
mnt = [r for r in map(json.loads, dout.splitlines()) if r.get("procedure") == "MNT"]
check(len(mnt) == 1 and mnt[0].get("name", "").encode("utf-8", "surrogateescape") == export,
      "dissect --json MNT name: %r" % mnt)

print("names: %d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
