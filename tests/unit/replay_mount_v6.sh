#!/usr/bin/env bash
# The replay finds the traced MOUNT (the export path and the root handle)
# on any link the dissector reads, IPv4 or IPv6, TCP or UDP: it takes the
# RPC messages the dissector's feed reassembled, not a parser of its own.
# Input: ../shared/captures/third-party/zeek-nfs_base.pcap (NFSv3 and its
# MOUNT over UDP/TCP, IPv4), and the same capture rewritten here to IPv6
# (each IPv4 header replaced by an IPv6 one carrying the same payload).
# Truth: tshark's reading of each file (the MNT call's dirpath, the
# number of NFS calls), never the replay's.  Per file: `nfsrdma-replay
# --dry-run --json`'s trace line names the MNT's path as the export and
# "from MOUNT" as the root, and lists as many calls as tshark has NFS
# calls.  Closing line: "replay-mount-v6: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}" || exit 1
BIN=${O:-build}/bin/nfsrdma-replay
CAP=../shared/captures/third-party/zeek-nfs_base.pcap
n=replay-mount-v6
for x in "$BIN" "$CAP"; do
    [ -e "$x" ] || { echo "$n: $x missing"; echo "$n: 0 passed, 1 failed"; exit 1; }
done
command -v tshark >/dev/null || { echo "$n: tshark missing"; echo "$n: 0 passed, 1 failed"; exit 1; }
exec python3 - "$BIN" "$CAP" <<'PY'
import json, os, struct, subprocess, sys, tempfile
binary, cap = sys.argv[1], sys.argv[2]
name = "replay-mount-v6"
passed = failed = 0

def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print("%s %s: %s" % ("ok  " if ok else "FAIL", name, what))

def to_v6(src, dst):
    """Ethernet + IPv4 -> Ethernet + IPv6, the L4 bytes untouched (the
    dissector and tshark take RPC from them; checksums are not checked)."""
    data = open(src, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic == 0xa1b2c3d4, "a little-endian pcap in microseconds"
    out, off, n = [data[:24]], 24, 0
    while off + 16 <= len(data):
        ts, tu, caplen, wirelen = struct.unpack("<IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if len(pkt) >= 34 and pkt[12:14] == b"\x08\x00" and pkt[14] >> 4 == 4:
            ihl = (pkt[14] & 15) * 4
            tot = struct.unpack(">H", pkt[16:18])[0]
            l4 = pkt[14 + ihl:14 + tot]
            v6 = struct.pack(">IHBB", 6 << 28, len(l4), pkt[23], 64) + \
                b"\x20\x01\x0d\xb8" + b"\0" * 8 + pkt[26:30] + b"\x20\x01\x0d\xb8" + b"\0" * 8 + pkt[30:34]
            pkt = pkt[:12] + b"\x86\xdd" + v6 + l4
            n += 1
        out.append(struct.pack("<IIII", ts, tu, len(pkt), len(pkt)) + pkt)
    open(dst, "wb").write(b"".join(out))
    return n

def tshark(path, *args):
    return subprocess.run(["tshark", "-r", path] + list(args), capture_output=True, text=True).stdout

tmp = tempfile.mkdtemp()
v6 = os.path.join(tmp, "nfs_base-v6.pcap")
conv = to_v6(cap, v6)
check(conv > 0, "%d IPv4 packets rewritten to IPv6" % conv)
check("ipv6" in tshark(v6, "-c", "1", "-T", "fields", "-e", "frame.protocols"), "tshark reads the rewrite as IPv6")
for path in (cap, v6):
    label = os.path.basename(path)
    paths = [p for p in tshark(path, "-Y", "mount.procedure_v3 == 1 && rpc.msgtyp == 0", "-T", "fields",
                                "-e", "mount.path").split() if p]
    ncalls = len(tshark(path, "-Y", "nfs && rpc.msgtyp == 0", "-T", "fields", "-e", "rpc.xid").split())
    check(len(paths) >= 1 and ncalls > 0, "%s: tshark finds a MNT of %s and %d NFS calls" % (label, paths, ncalls))
    p = subprocess.run([binary, "--dry-run", "--json", path], capture_output=True, text=True)
    try:
        tr = json.loads(p.stdout.splitlines()[0])
    except (IndexError, ValueError) as e:
        check(False, "%s: the dry run's first line is JSON (%s; %s)" % (label, e, p.stderr.strip()[-200:]))
        continue
    check(tr.get("type") == "trace" and paths and tr.get("export") == paths[0] and tr.get("root") == "from MOUNT",
          "%s: export %r, root %r (tshark's MNT: %r)" % (label, tr.get("export"), tr.get("root"), paths[:1]))
    check(tr.get("calls") == ncalls, "%s: %s calls, tshark's NFS calls %d" % (label, tr.get("calls"), ncalls))
print("%s: %d passed, %d failed" % (name, passed, failed))
sys.exit(1 if failed else 0)
PY
