#!/usr/bin/env bash
# tests/systemd/guest-checks.sh — the checks of tests/systemd/run.sh that
# need the unit running under systemd as PID 1, run inside the lab guest by
# nfsrdma-checks.service (which powers the guest off when this ends).
#
# run.sh installed the project, this script, inject.py, daemon/lib.sh and
# the capture with its truth (computed on the host, independently of the
# daemon) under /srv/nfsrdma-test in the guest's root.  One ok/FAIL line
# per check goes to checks.txt on the 9p share "labshare" (run.sh prints
# and counts them); "done" marks a run that got to the end.
set -uo pipefail
D=/srv/nfsrdma-test
mkdir -p /lab
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none labshare /lab || {
	echo "guest-checks: cannot mount the share labshare" >/dev/console
	exit 1
}
exec >/lab/checks.txt 2>/lab/checks.err
# shellcheck source=tests/daemon/lib.sh
NFSRDMA_SRCDIR=$D . "$D/lib.sh"   # ok/bad/check, wait_for, TMP
# CAP PORT UNIT KVER WANT CIF CIF_MAC NFRAMES NOTHER NMAL (run.sh)
# shellcheck source=/dev/null
. "$D/settings"
TRUTH=$D/truth-ops.txt   # "PROTOCOL OPERATION COUNT", the kernel client's RPCs
CONF=/etc/nfsrdma/nfsrdmad.conf
INJ=inj                  # the network namespace of the veth's sending end
TIF=tx0

check "guest runs kernel $KVER (uname -r: $(uname -r))" [ "$(uname -r)" = "$KVER" ]
# systemctl answers nothing until PID 1's private socket exists: ask
# again; one deadline for all tries, so a hung systemctl cannot stall
state=""
deadline=$((SECONDS + 120))
while [ -z "$state" ] && [ "$SECONDS" -lt "$deadline" ]; do
	state=$(timeout $((deadline - SECONDS)) systemctl is-system-running --wait 2>/dev/null)
	[ -n "$state" ] || sleep 1
done
cut -d' ' -f1 /proc/uptime >/lab/booted
check "guest booted systemd as PID 1 (is-system-running: $state)" \
	sh -c "[ '$state' = running ] || [ '$state' = degraded ]"
[ "$state" = running ] || systemctl --failed --no-legend | sed 's/^/    failed unit: /'
check "guest PID 1 is systemd" [ "$(cat /proc/1/comm)" = systemd ]

# The veth the live sources attach to: $CIF here, $TIF in namespace $INJ
# (the capture is replayed into it).  MTU 9000 for the capture's 4 KB RoCE
# frames, IPv6 off on both ends so the kernel puts nothing of its own on
# the wire, $CIF with the address run.sh counted the capture's unicast
# frames against.
veth_up() {
	modprobe veth && ip netns add $INJ &&
		ip link add "$CIF" address "$CIF_MAC" mtu 9000 type veth peer name $TIF mtu 9000 netns $INJ &&
		echo 1 >/proc/sys/net/ipv6/conf/"$CIF"/disable_ipv6 && ip link set "$CIF" up &&
		ip netns exec $INJ sh -c "echo 1 >/proc/sys/net/ipv6/conf/$TIF/disable_ipv6 && ip link set $TIF up"
}
check "veth $TIF (netns $INJ) - $CIF ($CIF_MAC): MTU 9000, up, no IPv6" veth_up

prop() { systemctl show -P "$1" "$UNIT"; }
metrics() { curl -sf -o "$TMP/metrics.txt" "http://127.0.0.1:$PORT/metrics"; }
# sum of nfsrdma_rpc_requests_total over every series of RPC over RDMA (the
# kernel client's NFS RPCs; the mount's rpcbind and MOUNT calls over TCP
# are series of their own)
requests_sum() { awk '/^nfsrdma_rpc_requests_total\{/ && /transport="rdma"/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt"; }
# the metrics reached their final value (the file is read flat out)
metrics_done() { metrics && [ "$(requests_sum)" = "$WANT" ]; }
active() { [ "$(systemctl is-active "$UNIT")" = "$1" ]; }

# ---- enable --now ----
systemctl enable --now "$UNIT" >"$TMP/enable.log" 2>&1
check "systemctl enable --now $UNIT" test $? -eq 0
check "is-enabled: enabled" [ "$(systemctl is-enabled "$UNIT")" = enabled ]
wait_for 10 active active
check "is-active: active" active active
pid1=$(prop MainPID)
check "metrics endpoint answers inside the guest" wait_for 10 metrics
check "sum(nfsrdma_rpc_requests_total) = $WANT (kernel client's RPCs, $CAP.truth)" wait_for 10 metrics_done
for fam in nfsrdma_rpc_requests_total nfsrdma_rpc_duration_seconds nfsrdma_rpc_phase_seconds_total \
	nfsrdma_rpc_chunks_total nfsrdma_records_total nfsrdma_dropped_records_total; do
	check "metric family $fam exported" grep -q "^# TYPE $fam " "$TMP/metrics.txt"
done
# per operation, as the kernel client counted them
check_ops() { # check_ops TAG: metrics.txt per operation = the kernel truth
	local p o n g
	while read -r p o n; do
		g=$(awk -v p="$p" -v o="$o" '$0 ~ "^nfsrdma_rpc_requests_total\\{protocol=\"" p "\",operation=\"" o "\"" { s += $NF } END { print s + 0 }' "$TMP/metrics.txt")
		check "$1requests $p $o = $n (truth)" [ "$g" = "$n" ]
	done <"$TRUTH"
}
check_ops ""

# ---- hardening does not get in the way ----
journal() { journalctl -q -o cat -u "$UNIT" --no-pager; }
journal >"$TMP/journal1.txt"
check "journal: no permission / read-only errors" \
	sh -c "! grep -Eiq 'permission denied|read-only file system|operation not permitted|EACCES|EPERM' '$TMP/journal1.txt'"
cat "/proc/$pid1/status" >"$TMP/status1.txt"
check "process runs as nobody (Uid 65534)" grep -Eq '^Uid:[[:space:]]+65534[[:space:]]' "$TMP/status1.txt"
check "NoNewPrivileges in effect (NoNewPrivs: 1)" grep -Eq '^NoNewPrivs:[[:space:]]+1' "$TMP/status1.txt"
capbnd=$(awk '/^CapBnd/ { print $2 }' "$TMP/status1.txt")
# bits: CAP_NET_RAW 13, CAP_SYS_MODULE 16, CAP_SYS_ADMIN 21, CAP_BPF 39
check "CapabilityBoundingSet in effect (CapBnd $capbnd: NET_RAW, SYS_ADMIN, BPF kept; SYS_MODULE gone)" \
	[ $(( (0x${capbnd:-0} >> 13 & 1) + (0x${capbnd:-0} >> 21 & 1) + (0x${capbnd:-0} >> 39 & 1) )) = 3 -a $(( 0x${capbnd:-0} >> 16 & 1 )) = 0 ]
# the probe itself must work outside the service's namespace, or the
# check below would pass whatever the sandbox
check "writing /usr works outside the service (the probe below means something)" \
	sh -c "touch /usr/nfsrdma-probe && rm /usr/nfsrdma-probe"
check "ProtectSystem=strict in effect (/usr read-only in the service's namespace)" \
	sh -c "nsenter -t $pid1 -m -- true && ! nsenter -t $pid1 -m -- touch /usr/nfsrdma-probe 2>/dev/null"
check "RuntimeDirectory /run/nfsrdma exists" test -d /run/nfsrdma
check "StateDirectory /var/lib/nfsrdma exists" test -d /var/lib/nfsrdma
check "control socket /run/nfsrdmad.sock created" test -S /run/nfsrdmad.sock
# export-dir = /var/lib/nfsrdma/export: the daemon writes there after
# dropping to "user", so the unit must hand that directory to it
exported() { for f in /var/lib/nfsrdma/export/*.pcapng; do [ -s "$f" ] && return 0; done; return 1; }
check "pcapng export written under the StateDirectory as nobody" wait_for 10 exported
check "export directory owned by nobody" [ "$(stat -c %U /var/lib/nfsrdma/export 2>/dev/null)" = nobody ]

# ---- restart ----
systemctl restart "$UNIT"
check "systemctl restart: exit 0" test $? -eq 0
wait_for 10 active active
pid2=$(prop MainPID)
check "restart: active with a new MainPID ($pid1 -> $pid2)" \
	sh -c "[ \"\$(systemctl is-active $UNIT)\" = active ] && [ '$pid2' != '$pid1' ] && [ '$pid2' != 0 ]"
check "restart: metrics = truth again ($WANT)" wait_for 10 metrics_done

# ---- kill -9: Restart=on-failure brings it back ----
n0=$(prop NRestarts)
# (a number > 0 only: "kill -9 0" would hit our own process group)
case $pid2 in [1-9]*) kill -9 "$pid2" ;; esac
restarted() { local p; p=$(prop MainPID); [ "$p" != 0 ] && [ "$p" != "$pid2" ] && active active; }
# RestartSec=2
check "kill -9 $pid2: systemd restarts it (Restart=on-failure)" wait_for 15 restarted
pid3=$(prop MainPID)
check "NRestarts went up by one (${n0:-?} -> $(prop NRestarts))" [ "$(prop NRestarts)" = "$((n0 + 1))" ]
check "after the crash: metrics = truth again ($WANT)" wait_for 10 metrics_done
journal >"$TMP/journal2.txt"
check "journal records the SIGKILL" grep -Eq 'status=9/KILL|signal=KILL' "$TMP/journal2.txt"

# ---- stop ----
systemctl stop "$UNIT"
check "systemctl stop: exit 0" test $? -eq 0
check "stopped: inactive (not failed)" active inactive
check "clean exit: ExecMainStatus=0 Result=success" \
	[ "$(prop ExecMainStatus) $(prop Result)" = "0 success" ]
check "process $pid3 is gone" test ! -d "/proc/$pid3"
check "RuntimeDirectory removed on stop" test ! -e /run/nfsrdma
check "StateDirectory kept on stop" test -d /var/lib/nfsrdma
journal >"$TMP/journal3.txt"
check "journal: no permission / read-only errors over the whole run" \
	sh -c "! grep -Eiq 'permission denied|read-only file system|operation not permitted' '$TMP/journal3.txt'"

# ---- a bad configuration fails once, without a restart loop ----
# (nfsrdmad exits 2 on every configuration error; RestartPreventExitStatus=2)
# Each line is appended to the good config (a later setting wins, sources
# add up); the values the daemon only rejected when it used them (an
# address, a user, a source) exited 1, and restarted every 2 s for ever.
cp "$CONF" "$TMP/good.conf"
for badline in "no-such-option = 1" "metrics = bogus" "metrics = 127.0.0.1:99999" \
	"user = nfsrdma-no-such-user" "socket-mode = 999" "source = bogus:nothing"; do
	{ cat "$TMP/good.conf"; echo "$badline"; } >"$CONF"
	systemctl reset-failed "$UNIT" 2>/dev/null
	t0=$(date +%s)
	systemctl start "$UNIT"   # a manual start resets NRestarts to 0
	check "bad config '$badline': unit ends failed" wait_for 10 active failed
	sleep 5   # longer than RestartSec=2: a restart would have happened by now
	check "bad config '$badline': ExecMainStatus=2, still failed, no restart ($(prop ExecMainStatus) $(systemctl is-active "$UNIT") NRestarts $(prop NRestarts))" \
		[ "$(prop ExecMainStatus) $(systemctl is-active "$UNIT") $(prop NRestarts)" = "2 failed 0" ]
	journalctl -q -o cat -u "$UNIT" --no-pager --since "@$t0" >"$TMP/journal-bad.txt"
	why=$(grep 'nfsrdmad: error: ' "$TMP/journal-bad.txt" | grep -F -- "${badline%% =*}" | head -n1)
	check "bad config '$badline': the journal names the setting in an error line ($why)" [ -n "$why" ]
done
cp "$TMP/good.conf" "$CONF"
systemctl reset-failed "$UNIT"

if [ "$nfail" -gt 0 ]; then
	sed 's/^/    journal: /' "$TMP/journal3.txt" | tail -n 30
fi

# ---- live sources on the guest's veth ----
# The same unit and config, with the source a storage engineer deploys on
# a RoCE port: xdp:IFACE (XDP program, mmapped record rings, stats map
# read after the drop to nobody), live:IFACE (libpcap, AF_PACKET), and
# xdp:IFACE,mirror (a SPAN port).  The capture is replayed into the other
# end of the veth (inject.py, raw AF_PACKET); the metrics must give the
# kernel client's per-operation counts for that capture, as for the file
# source above.  NMAL malformed RoCE frames follow the capture: with xdp:
# only the program's stats map (XS_MALFORMED) counts them, so
# nfsrdma_source_errors_total = NMAL shows the daemon still reads that map
# after dropping to nobody (a failed read would give 0); with live: the
# dissector counts them.  The journal must name the XDP attach mode and
# the drop to nobody (info lines: the packaged config sets verbose = yes).
tx_packets() { ip netns exec $INJ cat /sys/class/net/$TIF/statistics/tx_packets; }
# the driver's own count of frames XDP dropped on $CIF
xdp_drops() { ethtool -S "$CIF" 2>/dev/null | awk '/rx_queue_[0-9]+_xdp_drops:/ { s += $2 } END { print s + 0 }'; }
check "capture $CAP: $NFRAMES frames, $NOTHER unicast to other hosts than $CIF ($CIF_MAC)" \
	sh -c "[ '${NFRAMES:-0}' -gt 0 ] && [ \"\$(cat /sys/class/net/$CIF/address)\" = '$CIF_MAC' ]"
metric() { awk -v m="$1" '$1 == m { print $2 + 0; f = 1 } END { if (!f) print "none" }' "$TMP/metrics.txt"; }
for spec in "xdp:$CIF" "live:$CIF" "xdp:$CIF,mirror"; do
	tag="[$spec] "
	sed -i "s|^source = .*|source = $spec|" "$CONF"
	systemctl restart "$UNIT"
	check "${tag}systemctl restart: exit 0" test $? -eq 0
	wait_for 10 active active
	inv=$(prop InvocationID)
	jl() { journalctl -q -o cat _SYSTEMD_INVOCATION_ID="$inv" --no-pager; }
	running_as_nobody() { jl >"$TMP/journal-src.txt" && grep -q 'running as nobody (uid 65534)' "$TMP/journal-src.txt"; }
	check "${tag}active; journal: running as nobody (uid 65534) after setup" wait_for 10 running_as_nobody
	pid=$(prop MainPID)
	cat "/proc/$pid/status" >"$TMP/status-src.txt" 2>/dev/null
	check "${tag}MainPID $pid runs as nobody, no effective capabilities" \
		sh -c "grep -Eq '^Uid:[[:space:]]+65534[[:space:]]' '$TMP/status-src.txt' && grep -Eq '^CapEff:[[:space:]]+0+\$' '$TMP/status-src.txt'"
	case $spec in
	xdp:*)
		mode=$(sed -nE "s/.*xdp: attached to $CIF in ([a-z]+) mode.*/\1/p" "$TMP/journal-src.txt" | head -n1)
		# veth has a native XDP driver: generic here means the attach was refused
		check "${tag}journal names the attach mode: ${mode:-none} (veth: native expected)" [ "$mode" = native ]
		case $spec in *,mirror)
			check "${tag}journal: $CIF is a mirror port" grep -q "xdp: $CIF is a mirror port" "$TMP/journal-src.txt" ;;
		esac ;;
	esac
	rm -f "$TMP/metrics.txt"
	check "${tag}metrics endpoint answers before any traffic" wait_for 10 metrics
	check "${tag}no requests before the replay" [ "$(requests_sum)" = 0 ]
	tx0=$(tx_packets) xd0=$(xdp_drops)
	ip netns exec $INJ python3 "$D/inject.py" $TIF "$D/$CAP.pcap" "$NMAL" >"$TMP/inject.txt" 2>&1
	rc=$?
	check "${tag}replayed $CAP.pcap into $TIF: $(tail -n1 "$TMP/inject.txt")" test $rc -eq 0
	check "${tag}$TIF sent all $NFRAMES + $NMAL frames (tx_packets)" [ "$(( $(tx_packets) - tx0 ))" = "$((NFRAMES + NMAL))" ]
	check "${tag}sum(nfsrdma_rpc_requests_total) = $WANT (kernel client's RPCs = dissector's XIDs)" wait_for 15 metrics_done
	check_ops "$tag"
	check "${tag}no records dropped (queue, source)" \
		[ "$(awk '/^nfsrdma_dropped_records_total\{/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt")" = 0 ]
	case $spec in *,mirror) wantd=$((NOTHER + NMAL)) ;; *) wantd=0 ;; esac
	check "${tag}frames dropped at XDP on $CIF (ethtool -S): $(( $(xdp_drops) - xd0 )), want $wantd" \
		[ "$(( $(xdp_drops) - xd0 ))" = "$wantd" ]
	# xdp: the program's stats map (XS_MALFORMED), read as nobody;
	# live: the dissector's count of the same frames
	errs() { metrics && [ "$(metric nfsrdma_source_errors_total)" = "$NMAL" ]; }
	wait_for 5 errs
	check "${tag}source errors = the $NMAL malformed frames: $(metric nfsrdma_source_errors_total)" \
		[ "$(metric nfsrdma_source_errors_total)" = "$NMAL" ]
	jl >"$TMP/journal-src.txt"
	check "${tag}journal: no permission / memlock / attach errors" \
		sh -c "! grep -Eiq 'error|permission denied|operation not permitted|read-only file system|EPERM|EACCES|memlock|cannot|failed' '$TMP/journal-src.txt'"
	if [ "$nfail" -gt 0 ]; then sed "s/^/    journal $spec: /" "$TMP/journal-src.txt" | tail -n 15; fi
done
systemctl stop "$UNIT"
check "live sources: stop exits 0, unit inactive" active inactive
cp "$TMP/good.conf" "$CONF"
echo finished >/lab/done
