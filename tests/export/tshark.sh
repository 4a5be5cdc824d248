#!/usr/bin/env bash
# Wireshark-compatible exports, checked with real tshark 4.0:
#  - nfsrdma-dissect -w out.pcapng: same packets and RPC decode as the
#    original, comments in frame.comment that name the XID tshark itself
#    decodes at that frame, interface description present;
#  - every RDMA READ request / response and RDMA WRITE First..Last frame of
#    each lab capture with chunks carries the XID of the RPC that tshark's
#    own decode ties it to (rdma_xids.py: the chunk segment whose handle
#    and offset the RETH names, PSN order for responses and later packets);
#  - --fields: every row's rpcordma.xid / rpc.procedure equal tshark's at
#    the same frame.number;
#  - --plot: well-formed SVG naming every operation;
#  - nfsrdmad --export-dir: rotated pcapng files, at most --export-keep,
#    each readable by tshark.
# Tier: golden (needs tshark; no root).
set -uo pipefail
. "$(dirname "$0")/../daemon/lib.sh"
NAME=export
command -v tshark >/dev/null || cannot $NAME "tshark not installed"
D=$BIN/nfsrdma-dissect
"$D" --help | grep -q -- '--write' || cannot $NAME "$D has no -w (apply the cli/nfsrdma-dissect.c patch)"
TS() { tshark "$@" 2>/dev/null; }

for cap in nfs3-read-write nfs41 parallel; do
	in=$CAPS/$cap.pcap out=$TMP/$cap.pcapng
	check "$cap: -w writes a pcapng" "$D" -q -w "$out" "$in"
	check "$cap: pcapng magic" bash -c "[ \"\$(head -c4 '$out' | od -An -tx1 | tr -d ' ')\" = 0a0d0d0a ]"
	n_in=$(TS -r "$in" | wc -l); n_out=$(TS -r "$out" | wc -l)
	check "$cap: same packet count ($n_in = $n_out)" bash -c "[ $n_in -gt 0 ] && [ $n_in = $n_out ]"
	TS -r "$in" -Y rpc -T fields -e frame.number -e rpc.xid -e rpc.msgtyp -e rpc.procedure >"$TMP/a"
	TS -r "$out" -Y rpc -T fields -e frame.number -e rpc.xid -e rpc.msgtyp -e rpc.procedure >"$TMP/b"
	check "$cap: same RPC decode ($(wc -l <"$TMP/a") RPC frames)" bash -c "[ -s '$TMP/a' ] && cmp -s '$TMP/a' '$TMP/b'"
	# the XID of RPC-over-RDMA, or of RPC itself over TCP (the mount's
	# rpcbind and MOUNT calls; a UMNT from port 802 is SSLv2 to tshark)
	TS -r "$out" --disable-protocol tls -Y frame.comment -T fields -e frame.number -e rpcordma.xid -e rpc.xid -e frame.comment >"$TMP/c"
	check "$cap: comments visible in frame.comment ($(wc -l <"$TMP/c"))" [ -s "$TMP/c" ]
	# every call/reply comment names the XID Wireshark decodes in that frame
	wrong=$(awk -F'\t' '$4 ~ /role=(call|reply)/ { match($4, /xid=0x[0-9a-f]+/); x = substr($4, RSTART + 4, RLENGTH - 4)
		if (index($2 ? $2 : $3, x) == 0) print $1 }' "$TMP/c" | head -3)
	calls=$(grep -c 'role=call' "$TMP/c")
	check "$cap: $calls call comments, XIDs agree with tshark (${wrong:-all})" bash -c "[ '$calls' -gt 0 ] && [ -z '$wrong' ]"
	check "$cap: filter on a comment works (op=\"NFSv3 or op=\"NFSv4)" \
		bash -c "[ \$(tshark -r '$out' -Y 'frame.comment contains \"op=\\\"NFSv\"' 2>/dev/null | wc -l) -gt 0 ]"
	# a call's comment names the RPC as nfsrdma-dissect's own line does
	# ("NFSv4.1 READ", not a spelling of the export's own)
	awk -F'\t' '$4 ~ /role=call/ { match($4, /xid=0x[0-9a-f]+/); x = substr($4, RSTART + 4, RLENGTH - 4)
		match($4, /op="[^"]*"/); print x "\t" substr($4, RSTART + 4, RLENGTH - 5) }' "$TMP/c" | sort -u >"$TMP/cop"
	# the name every output gives an RPC: its record's program and procedure
	"$D" --json "$in" 2>/dev/null | python3 -c 'import json, sys
for l in sys.stdin:
    r = json.loads(l); print("%s\t%s %s" % (r["xid"], r["program"], r["procedure"]))' >"$TMP/lop"
	unnamed=$(awk -F'\t' 'NR == FNR { name[$1] = $2; next }
		name[$1] != $2 { print $1 " " $2; exit }' "$TMP/lop" "$TMP/cop")
	check "$cap: comments' op= are the line output's names ($(wc -l <"$TMP/cop") calls, $(head -1 "$TMP/cop" | cut -f2)${unnamed:+; not: $unnamed})" \
		bash -c "[ -s '$TMP/cop' ] && [ -z '$unnamed' ]"
done
# RDMA READ / WRITE frames: the XID tshark's decode gives, frame by frame
for cap in smoke nfs3-read-write nfs3-readdirplus nfs3-symlink nfs40 nfs41 nfs42 parallel server-restart midconn; do
	in=$CAPS/$cap.pcap out=$TMP/$cap.pcapng
	[ -s "$out" ] || "$D" -q -w "$out" "$in"
	res=$(python3 "$SRC/tests/export/rdma_xids.py" "$in" "$out" 2>&1)
	rc=$?
	check "$cap: RDMA READ/WRITE frames carry tshark's XID ($(tail -1 <<<"$res"))" [ $rc = 0 ]
	[ $rc = 0 ] || head -5 <<<"$res"
done
check "interface description visible" bash -c "tshark -r '$TMP/parallel.pcapng' -T fields -e frame.interface_description -c 1 2>/dev/null | grep -q 'nfsrdma export of'"

# --fields joined with tshark on frame.number
"$D" --fields frame.number,rpcordma.xid,rpc.procedure,nfsrdma.op --tsv "$CAPS/nfs3-metadata.pcap" >"$TMP/f.tsv"
check "--fields header uses Wireshark names" bash -c "head -1 '$TMP/f.tsv' | grep -q \$'^frame.number\trpcordma.xid\trpc.procedure'"
# (a call over TCP has no rpcordma.xid, in tshark as here: both empty)
TS -r "$CAPS/nfs3-metadata.pcap" -Y 'rpc.msgtyp == 0' -T fields -e frame.number -e rpcordma.xid -e rpc.procedure |
	sort >"$TMP/t.tsv"
tail -n +2 "$TMP/f.tsv" | cut -f1-3 | sort >"$TMP/o.tsv"
check "--fields: $(wc -l <"$TMP/o.tsv") rows, xid and procedure equal tshark's" \
	bash -c "[ -s '$TMP/o.tsv' ] && [ -z \"\$(join -t \$'\t' -v1 '$TMP/o.tsv' '$TMP/t.tsv')\" ] && [ -z \"\$(comm -23 '$TMP/o.tsv' '$TMP/t.tsv')\" ]"
"$D" --fields default "$CAPS/nfs3-metadata.pcap" >"$TMP/f.csv"
# one row per RPC the kernel client made (its rpc_stats_latency lines, lib.sh truth_ops)
# and per rpcbind/MOUNT call of the mount over TCP (tshark's, tcp_ops)
nrpc=$({ truth_ops "$CAPS/nfs3-metadata.truth/client.trace"; tcp_ops "$CAPS/nfs3-metadata.pcap"; } |
	awk '{ s += $3 } END { print s + 0 }')
check "--fields CSV parses, one row per RPC ($nrpc in the kernel's and tshark's truth)" python3 -c '
import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); n=int(sys.argv[2]); sys.exit(0 if n > 0 and len(rows)==n and all(r["rpc.xid"].startswith("0x") and
    r["rpcordma.xid"] == (r["rpc.xid"] if r["nfsrdma.transport"] == "rdma" else "") for r in rows) else 1)' "$TMP/f.csv" "$nrpc"
check "--fields rejects an unknown name" bash -c "! '$D' --fields no.such.field '$CAPS/smoke.pcap' >/dev/null 2>&1"

# --plot
check "--plot writes an SVG" "$D" -q --plot "$TMP/p.svg" "$CAPS/nfs3-read-write.pcap"
check "--plot SVG is well-formed and names every operation" python3 -c '
import sys, subprocess, itertools, xml.etree.ElementTree as ET
ET.parse(sys.argv[1]); svg=open(sys.argv[1]).read()
table=itertools.takewhile(lambda l: l, subprocess.run([sys.argv[2],"-q","-z","proc",sys.argv[3]],capture_output=True,text=True).stdout.splitlines()[2:])
ops=[l.split()[1] for l in table if not l.startswith("total")]
missing=[o for o in ops if o not in svg]; print("missing:", missing) if missing else None; sys.exit(1 if missing or not ops else 0)' "$TMP/p.svg" "$D" "$CAPS/nfs3-read-write.pcap"

# nfsrdmad rotating exports
mkdir -p "$TMP/exp"
"$BIN/nfsrdmad" --source "pcap:$CAPS/parallel.pcap" --socket none --metrics none --exit-at-end \
	--export-dir "$TMP/exp" --rotate-size 200k --export-keep 3 >/dev/null 2>"$TMP/d.err"
nfiles=$(ls "$TMP/exp"/*.pcapng 2>/dev/null | wc -l)
check "daemon export rotated and kept at most 3 files ($nfiles)" bash -c "[ $nfiles -ge 2 ] && [ $nfiles -le 3 ]"
okfiles=0
for f in "$TMP/exp"/*.pcapng; do capinfos -c "$f" >/dev/null 2>&1 && okfiles=$((okfiles + 1)); done
check "every rotated file opens in capinfos ($okfiles)" [ "$okfiles" = "$nfiles" ]
# an export directory that is not there: refused before the run (exit 2,
# one line naming it), not a run that exports nothing after a warning
"$BIN/nfsrdmad" --source "pcap:$CAPS/parallel.pcap" --socket none --metrics none --exit-at-end \
	--export-dir "$TMP/no/such/dir" --rotate-size 200k >"$TMP/d2.out" 2>"$TMP/d2.err"; rc=$?
check "export dir not there: exit 2 ($rc), one line naming it, nothing run: $(head -c 200 "$TMP/d2.err")" \
	bash -c "[ $rc = 2 ] && [ \$(wc -l <'$TMP/d2.err') = 1 ] && grep -q 'error: --export-dir $TMP/no/such/dir: No such file or directory' '$TMP/d2.err' && [ ! -s '$TMP/d2.out' ]"
finish $NAME
