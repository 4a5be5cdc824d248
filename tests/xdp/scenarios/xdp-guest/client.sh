# xdp-guest client: nfsrdmad with XDP sources (generic mode) writes per-XID
# JSON to $LAB_OUT while an NFSv3/RDMA workload runs.
#  - xdp:eth0,generic       the brief's setup: XDP on the client's own port.
#    XDP sees received frames only (replies, ACKs, RDMA Read requests and
#    Write data from the server), not the client's transmits.
#  - xdp:xmir1,generic,mirror  a SPAN port: span.py copies every frame of
#    eth0, both directions, into a veth pair and XDP runs on its far end, so
#    it sees every frame; as a mirror port it drops the copies (none is for
#    xmir1) after recording them.
# shellcheck shell=bash
bin=${LAB_ARG_BIN:-$LAB_REPO/build/bin}
modprobe veth 2>/dev/null || true
ip link add xmir0 mtu 9000 type veth peer name xmir1 mtu 9000
ip link set xmir0 up
ip link set xmir1 up
python3 "$LAB_SCENARIO_DIR/span.py" eth0 xmir0 2>"$LAB_OUT/span.log" &
span=$!
for _ in $(seq 1 50); do [ -e /run/span.ready ] && break; sleep 0.1; done
mir=xmir1
run_xdp() {   # NAME IFACE [,OPTIONS]
	"$bin/nfsrdmad" --source "xdp:$2,generic${3:-}" --snaplen 512 --json --metrics none \
		--socket none -v >"$LAB_OUT/xdp-$1.jsonl" 2>"$LAB_OUT/xdp-$1.log" &
}
run_xdp eth0 eth0
p1=$!
run_xdp mirror "$mir" ,mirror
p2=$!
for i in $(seq 1 60); do   # attached (or failed) before the first NFS frame
	n=$(cat "$LAB_OUT"/xdp-*.log 2>/dev/null | grep -ci "xdp.*attach\|generic" || true)
	[ "$n" -ge 2 ] && break
	kill -0 $p1 2>/dev/null && kill -0 $p2 2>/dev/null || break
	sleep 0.5
done
lab_log "xdp sources up"
lab_mount
dd if=/dev/urandom of=/tmp/data bs=128k count=2 status=none
dd if=/tmp/data of="$LAB_MNT/xdp.dat" bs=128k count=2 oflag=direct status=none
dd if="$LAB_MNT/xdp.dat" of=/tmp/back bs=128k count=2 iflag=direct status=none
cmp /tmp/data /tmp/back
mkdir "$LAB_MNT/d"
for i in 1 2 3 4 5; do echo "$i" >"$LAB_MNT/d/f$i"; done
ls -l "$LAB_MNT/d" >/dev/null
cat "$LAB_MNT"/d/f* >/dev/null
rm -r "$LAB_MNT/d"
echo ok >"$LAB_OUT/nfs.ok"
sleep 1
kill -INT $p1 $p2 2>/dev/null || true   # (gone if the load failed: the host side reports it)
wait $p1 || echo "nfsrdmad eth0 exit $?" >>"$LAB_OUT/xdp-eth0.log"
wait $p2 || echo "nfsrdmad mirror exit $?" >>"$LAB_OUT/xdp-mirror.log"
kill $span 2>/dev/null; wait $span 2>/dev/null
ip -s link show > "$LAB_OUT/links.txt" 2>&1   # per-NIC counters, for the host side's messages
