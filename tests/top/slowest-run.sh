#!/usr/bin/env bash
# nfsrdma-top reading a capture file flat out (-b -r, --json -r) lists the
# slowest RPCs of the whole run, and says so ("slowest RPCs of the whole
# run", JSON "slow_of":"run"): the list used to keep only the last
# window's (10 s), so a 46.9 ms WRITE at the start of a 30 s capture was
# missing and the list topped out at a 0.1 ms GETATTR.  The capture is
# built here (tests/gen's encoders: one NFSv3 WRITE the server answers in
# 46.9 ms, then a GETATTR a second for 30 s); the truth is tshark's
# rpc.time of every reply, not nfsrdma's.
# Tier: golden (no root).
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=top-slowest-run
TOP=$BIN/nfsrdma-top
[ -x "$TOP" ] || cannot $NAME "$TOP not built"
command -v tshark >/dev/null || cannot $NAME "tshark missing (the truth)"
python3 - "$SRC/tests/gen" "$TMP/slow-early.pcap" <<'PY' || cannot $NAME "capture not built"
import os, sys
sys.path.insert(0, sys.argv[1])
import gen as g
rc = g.session()
x = g.Xids(0x51000001)
xid = x()
g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 7, g.nfs3_write_args(5, 0, b"w" * 1024))),
           g.rdma1_reply(xid, g.w.rpc_reply(xid) + g.nfs3_write_res(1024)), think_us=46900.0)
for i in range(30):
    rc.clock.tick(1e6)
    xid = x()
    g.exchange(rc, g.rdma1_call(xid, g.nfs3(xid, 1, g.w.opaque(g.fh(5)))),
               g.rdma1_reply(xid, g.w.rpc_reply(xid) + g.nfs3_getattr_res()), think_us=100.0 + i)
rc.cm_disconnect()
open(sys.argv[2], "wb").write(g.w.pcap_bytes(g.w.LINKTYPE_ETHERNET,
                              [(p.ts, g.w.eth(p, 0x0800, g.w.roce_v2_ip4(p))) for p in rc.out]))
PY
# truth: "xid total_us" of the 20 slowest replies (top keeps 20), slowest first
tshark -r "$TMP/slow-early.pcap" -Y rpc.time -T fields -e rpc.xid -e rpc.time 2>/dev/null |
	awk '{ printf "%s %.1f\n", $1, $2 * 1e6 }' | sort -k2,2gr | head -20 >"$TMP/truth"
[ "$(wc -l <"$TMP/truth")" = 20 ] || cannot $NAME "tshark found $(wc -l <"$TMP/truth") replies, not 31"

"$TOP" -b -r "$TMP/slow-early.pcap" >"$TMP/b.txt" 2>"$TMP/b.err"
sed -n '/^slowest /,/^$/p' "$TMP/b.txt" | awk 'NF && $1 ~ /^0x/ { print $1, $6 }' >"$TMP/got"
check "-b -r: the list is headed as the whole run's ($(grep '^slowest' "$TMP/b.txt"))" \
	grep -qx 'slowest RPCs of the whole run:' "$TMP/b.txt"
check "-b -r: the slowest RPC is tshark's ($(head -1 "$TMP/truth") = $(head -1 "$TMP/got"))" \
	[ "$(head -1 "$TMP/got")" = "$(head -1 "$TMP/truth")" ]
check "-b -r: the 20 listed are tshark's 20 slowest of the run" \
	diff <(sort "$TMP/truth") <(sort "$TMP/got")
"$TOP" --json -r "$TMP/slow-early.pcap" >"$TMP/j.json" 2>>"$TMP/b.err"
read -r txid tus < <(head -1 "$TMP/truth")
check "--json -r: \"slow_of\":\"run\", slow[0] is tshark's slowest ($txid, $tus us)" python3 - "$TMP/j.json" "$txid" "$tus" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read())
s = d["slow"][0]
sys.exit(0 if d["slow_of"] == "run" and s["xid"] == sys.argv[2] and abs(s["total_ns"] / 1e3 - float(sys.argv[3])) < 0.05 else 1)
PY
check "nothing on stderr" [ ! -s "$TMP/b.err" ]
finish $NAME
