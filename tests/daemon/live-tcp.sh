#!/usr/bin/env bash
# nfsrdmad --source live:IFACE sees ONC RPC over TCP: NFS over TCP
# (tests/captures/nfs3-tcp.pcap) replayed frame by frame into one end of a
# veth pair (tests/systemd/inject.py, raw AF_PACKET) while the daemon
# captures on the other; its Prometheus requests with transport="tcp"
# must reach the records `nfsrdma-dissect -z transport` finds in the file,
# per operation too, and none may be RDMA.
# Tier: bpf (root: a veth pair and a live capture).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=live-tcp
[ "$(id -u)" -eq 0 ] || cannot $NAME "needs root (a veth pair, a live capture)"
command -v ip >/dev/null || cannot $NAME "ip (iproute2) not installed"
command -v curl >/dev/null || cannot $NAME "curl not installed"
[ -x "$BIN/nfsrdmad" ] || cannot $NAME "$BIN/nfsrdmad not built"
CAP=$CAPS/nfs3-tcp.pcap
A=nrt$$a B=nrt$$b          # unique names: other runs may hold veths too
ip link add "$A" type veth peer name "$B" || cannot $NAME "cannot make a veth pair"
cleanup_veth() { cleanup; ip link del "$A" 2>/dev/null; }   # the daemon first
trap cleanup_veth EXIT
for i in "$A" "$B"; do
	echo 1 >"/proc/sys/net/ipv6/conf/$i/disable_ipv6" 2>/dev/null
	ip link set "$i" mtu 9000 up
done

# what the file holds: "NFSv3 READ 6" per operation, TCP only
"$BIN/nfsrdma-dissect" -q -z proc "$CAP" |
	awk '/^== diagnosis/{exit} /^== |^operation |^total /{next} $3 == "tcp" { print $1, $2, $5 + $7 }' | sort >"$TMP/want"
want=$(awk '{ s += $3 } END { print s + 0 }' "$TMP/want")
check "the file holds TCP RPCs ($want)" [ "$want" -gt 0 ]

port=$(free_port)
"$BIN/nfsrdmad" --source "live:$B" --metrics "127.0.0.1:$port" --socket none \
	--summary-interval 3600 >"$TMP/d.out" 2>"$TMP/d.err" &
PIDS+=($!)
up() { curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"; }
check "nfsrdmad on live:$B serves /metrics" wait_for 10 up
sleep 1   # the capture is open before the first frame goes
sent=$(python3 "$SRC/tests/systemd/inject.py" "$A" "$CAP" 2>&1); rc=$?
check "inject.py sends the capture into $A ($(tail -1 <<<"$sent"))" [ $rc = 0 ]
got() {
	curl -sf -o "$TMP/m" "http://127.0.0.1:$port/metrics" &&
		[ "$(sed -nE 's/^nfsrdma_rpc_requests_total\{.*transport="tcp"\} ([0-9]+)$/\1/p' "$TMP/m" |
			awk '{ s += $1 } END { print s + 0 }')" = "$want" ]
}
check "the daemon counts every TCP RPC of the capture ($want)" wait_for 20 got
sed -nE 's/^nfsrdma_rpc_requests_total\{protocol="([^"]*)",operation="([^"]*)",.*transport="tcp"\} ([0-9]+)$/\1 \2 \3/p' "$TMP/m" |
	awk '{ s[$1 " " $2] += $3 } END { for (k in s) print k, s[k] }' | sort >"$TMP/got"
check "per operation as in the file ($(wc -l <"$TMP/got") operations)" cmp -s "$TMP/want" "$TMP/got"
check "no RPC taken for RDMA" bash -c "! grep -q 'transport=\"rdma\"' '$TMP/m'"
finish $NAME
