#!/usr/bin/env bash
# The generated captures cannot rot:
#  1. tests/gen/gen.py run again writes byte-for-byte the committed
#     tests/gen/out/*.pcap and the truth beside them, *.truth.json (no file
#     missing, none extra);
#  2. every re-framed lab capture (conv-*) dissects to the same RPCs as the
#     lab capture it came from: same lines once the addresses are cut off;
#     the IPoIB re-framings (ipoib-*) of tests/gen/src/nfs3-tcp-head.pcap
#     dissect to the same RPCs as it;
#  3. tshark decodes the same number of RPC-over-RDMA messages in each
#     conversion it can open as in the original (skipped without tshark;
#     it cannot open DLT_INFINIBAND nor a capture without ICRCs).
# Closing line: "gen: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=${O:-build}/bin/nfsrdma-dissect
SRC=tests/gen/src/nfs3-symlink.pcap   # frozen copy, see gen.py
export TZ=UTC LC_ALL=C
pass=0 fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL gen: $2"; fi; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if ! python3 tests/gen/gen.py "$work/out" >"$work/gen.log" 2>&1; then
	echo "FAIL gen: tests/gen/gen.py failed:"; head -20 "$work/gen.log"
	echo "gen: $pass passed, 1 failed"; exit 1
fi
for f in "$work"/out/*.pcap "$work"/out/*.truth.json; do
	n=${f##*/}
	if [ ! -e "tests/gen/out/$n" ]; then
		ok 1 "$n: generated but not committed in tests/gen/out"
	else
		cmp -s "$f" "tests/gen/out/$n"; ok $? "$n: regenerated file differs from tests/gen/out/$n"
	fi
done
for f in tests/gen/out/*.pcap tests/gen/out/*.truth.json; do
	[ -e "$work/out/${f##*/}" ]; ok $? "$f: committed but gen.py no longer writes it"
done

# 2. same RPCs over RDMA in every framing (native IB carries no TCP)
[ -x "$BIN" ] || { echo "FAIL gen: $BIN not built"; echo "gen: $pass passed, $((fail + 1)) failed"; exit 1; }
# the time and the endpoints go: "TIME ... [split] A > B xid X ..." (lid A, gid A in IB, RoCEv1)
strip() { sed -E 's/^[0-9:.]+ //; s/\] ((lid|gid) )?[^ ]+ > ((lid|gid) )?[^ ]+ xid /] xid /'; }
"$BIN" --transport rdma "$SRC" 2>&1 | strip >"$work/ref"
[ -s "$work/ref" ]; ok $? "$SRC: no output"
for f in tests/gen/out/conv-*.pcap; do
	"$BIN" --transport rdma "$f" 2>&1 | strip >"$work/got"
	if cmp -s "$work/ref" "$work/got"; then ok 0 ""; else
		ok 1 "$f: RPCs differ from $SRC:"; diff "$work/ref" "$work/got" | head -5; fi
done

# 2b. NFS over IPoIB (ipoib-*): the same RPCs as the Ethernet capture
# they were re-framed from
IPSRC=tests/gen/src/nfs3-tcp-head.pcap
"$BIN" "$IPSRC" 2>/dev/null | strip >"$work/ipref"
[ -s "$work/ipref" ]; ok $? "$IPSRC: no output"
for f in tests/gen/out/ipoib-*.pcap; do
	"$BIN" "$f" 2>/dev/null | strip >"$work/got"
	if cmp -s "$work/ipref" "$work/got"; then ok 0 ""; else
		ok 1 "$f: RPCs differ from $IPSRC:"; diff "$work/ipref" "$work/got" | head -5; fi
done

# 3. tshark agrees on the message count
if command -v tshark >/dev/null; then
	count() { tshark -r "$1" -Y rpcordma 2>/dev/null | wc -l; }
	want=$(count "$SRC")
	for f in tests/gen/out/conv-*.pcap; do
		case "$f" in *conv-ib-*|*conv-no-icrc*) continue ;; esac
		got=$(count "$f")
		[ "$got" = "$want" ]; ok $? "$f: tshark sees $got RPC-over-RDMA messages, $want in $SRC"
	done
else
	echo "SKIP gen: tshark not installed"
fi
echo "gen: $pass passed, $fail failed"
[ $fail -eq 0 ]
