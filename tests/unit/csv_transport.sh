#!/usr/bin/env bash
# --csv and --fields say what carried each RPC, in a column named and
# valued as -z transport, nfsrdma-top and the Prometheus label say it
# (transport: rdma, tcp, udp), and leave what only RPC-over-RDMA has
# empty for an RPC over TCP or UDP: rpcordma.xid, rpcordma.vers,
# rpcordma.flow_control, rpcordma.msg_type, nfsrdma.credits_granted and
# the CSV's credits_asked, credits_granted (they used to print the XID
# and 0s there); rpc.xid names every RPC.  The truth per XID is tshark's:
# a call over InfiniBand/RoCE is rdma, else tcp or udp (frame.protocols).
# Captures: nfs3-read-write (NFS over RDMA, MOUNT and rpcbind over TCP)
# and nfs3-tcp.  Closing line: "csv-transport: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
O=${O:-build}
X=$O/bin/nfsrdma-dissect
NAME=csv-transport
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); echo "ok   $d"; else fail=$((fail + 1)); echo "FAIL $d"; fi; }
if [ ! -x "$X" ] || ! command -v tshark >/dev/null; then
	echo "$NAME: cannot run: $X or tshark missing"; echo "$NAME: 0 passed, 1 failed"; exit 1
fi

for cap in tests/captures/nfs3-read-write.pcap tests/captures/nfs3-tcp.pcap; do
	b=$(basename "$cap" .pcap)
	tshark -r "$cap" -Y "rpc.msgtyp == 0" -T fields -E occurrence=f -e rpc.xid -e frame.protocols 2>/dev/null |
		awk '{ t = $2 ~ /infiniband/ ? "rdma" : $2 ~ /:tcp:/ ? "tcp" : $2 ~ /:udp:/ ? "udp" : "?"; print $1, t }' |
		sort -u >"$TMP/$b.truth"
	"$X" --csv "$cap" >"$TMP/$b.csv" 2>/dev/null
	"$X" --fields default "$cap" >"$TMP/$b.fdef" 2>/dev/null
	"$X" --fields rpc.xid,rpcordma.xid,rpcordma.vers,rpcordma.flow_control,rpcordma.msg_type,nfsrdma.credits_granted,nfsrdma.transport \
		"$cap" >"$TMP/$b.fsel" 2>/dev/null
	check "$b: tshark's truth has calls ($(wc -l <"$TMP/$b.truth"))" [ -s "$TMP/$b.truth" ]
	check "$b --csv: column transport = tshark's per XID; credits empty exactly off RDMA" python3 - "$TMP/$b.truth" "$TMP/$b.csv" <<'PY'
import csv, sys
truth = dict(l.split() for l in open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
bad = [r["xid"] for r in rows if r["xid"] not in truth or r.get("transport") != truth[r["xid"]] or
       (r["credits_asked"] == "" or r["credits_granted"] == "") != (truth[r["xid"]] != "rdma")]
print(len(rows), "rows; wrong:", bad[:5])
sys.exit(0 if rows and not bad and {r["xid"] for r in rows} == set(truth) else 1)
PY
	check "$b --fields: nfsrdma.transport = tshark's; rpcordma.* and credits empty exactly off RDMA; rpc.xid always" \
		python3 - "$TMP/$b.truth" "$TMP/$b.fsel" "$TMP/$b.fdef" <<'PY'
import csv, sys
truth = dict(l.split() for l in open(sys.argv[1]))
rdma_only = ["rpcordma.xid", "rpcordma.vers", "rpcordma.flow_control", "nfsrdma.credits_granted"]
bad = []
rows = list(csv.DictReader(open(sys.argv[2])))
for r in rows:
    t = truth.get(r["rpc.xid"])
    empty = [k for k in rdma_only if r[k] == ""]
    if r["nfsrdma.transport"] != t or (empty != [] if t == "rdma" else empty != rdma_only) or \
       (t != "rdma" and r["rpcordma.msg_type"] != ""):
        bad.append(r["rpc.xid"])
d = list(csv.DictReader(open(sys.argv[3])))
ok_def = d and all(r["nfsrdma.transport"] == truth.get(r["rpc.xid"]) for r in d)
print(len(rows), "rows; wrong:", bad[:5], "default list right:", bool(ok_def))
sys.exit(0 if rows and not bad and ok_def else 1)
PY
done
echo "$NAME: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
