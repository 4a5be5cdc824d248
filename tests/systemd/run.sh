#!/usr/bin/env bash
# tests/systemd/run.sh — dist/nfsrdmad.service under a real systemd.
#
# Boots a Debian bookworm root (tests/systemd/rootfs.sh, cached) with
# systemd as PID 1 under systemd-nspawn, installs the project into it with
# `make install PREFIX=/usr/local DESTDIR=...`, the unit and a config whose
# source is a bundled lab capture, then drives the unit with systemctl:
# enable --now, metrics = the kernel's ground truth, the hardening leaves
# the daemon working, restart, kill -9 -> Restart=on-failure, stop.  Also
# `systemd-analyze verify` of the unit against the installed root.
#
# Then the same unit with the sources a RoCE host runs, on a veth pair into
# the container: xdp:IFACE, live:IFACE and xdp:IFACE,mirror, the capture
# replayed into the host's end (inject.py); metrics = the same truth.
#
# Needs root, debootstrap, systemd-container (systemd-nspawn), iproute2,
# ethtool and python3; the first run downloads ~60 MB of Debian packages
# (about 40 s), later ones reuse the cached root.  The container gets its
# own network namespace (lo, and one end of a veth pair that nspawn
# creates and removes) and boots a throwaway overlay of the cached root;
# every mount lives in a private mount namespace and disappears with it.
#
# Prints one ok/FAIL line per check and "systemd: N passed, N failed".
set -uo pipefail
NAME=systemd
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Run everything in a private mount namespace: the overlay, and a tmpfs on
# /run/systemd/nspawn (nspawn refuses to clean up its propagation directory
# on a disk file system, and this host's /run is not a tmpfs).
if [ -z "${NFSRDMA_SD_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "$NAME: cannot run: needs root (mounts, systemd-nspawn)"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
	command -v unshare >/dev/null || { echo "$NAME: cannot run: unshare (util-linux) missing"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
	NFSRDMA_SD_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

. "$HERE/../daemon/lib.sh"   # SRC O BIN CAPS TMP, ok/bad/check/finish/cannot, wait_for, truth_ops
NSPAWN=
# Halt the container and unmount the overlay before lib.sh removes $TMP.
sd_cleanup() {
	if [ -n "$NSPAWN" ] && kill -0 "$NSPAWN" 2>/dev/null; then
		kill "$NSPAWN"   # nspawn halts the container on SIGTERM
		wait_for 20 sh -c "! kill -0 $NSPAWN" || kill -9 "$NSPAWN" 2>/dev/null
		wait "$NSPAWN" 2>/dev/null
	fi
	umount "$TMP/root" 2>/dev/null
	cleanup
}
trap sd_cleanup EXIT

CAP=${NFSRDMA_SD_CAPTURE:-smoke}
PORT=9464
UNIT=nfsrdmad.service
for t in systemd-nspawn systemd-analyze nsenter curl ip ethtool python3; do
	command -v $t >/dev/null || cannot $NAME "$t missing (apt-get install systemd-container)"
done
[ -f "$CAPS/$CAP.pcap" ] || cannot $NAME "no capture $CAPS/$CAP.pcap"

t0=$(date +%s.%N)
LOWER=$("$HERE/rootfs.sh") || cannot $NAME "no container root (tests/systemd/rootfs.sh failed)"
t_root=$(date +%s.%N)

# ---- a throwaway root: overlay of the cached one ----
R=$TMP/root
mkdir -p "$TMP/upper" "$TMP/work" "$R" /run/systemd/nspawn
mount -t tmpfs tmpfs /run/systemd/nspawn || cannot $NAME "mount tmpfs on /run/systemd/nspawn failed"
mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$TMP/upper,workdir=$TMP/work" "$R" ||
	cannot $NAME "overlay mount of $LOWER failed"

# ---- install the project as a package would ----
(cd "$SRC" && make -s O="$O" install PREFIX=/usr/local DESTDIR="$R") >"$TMP/install.log" 2>&1 ||
	cannot $NAME "make install failed: $(tail -n1 "$TMP/install.log")"
# /usr/local/lib/systemd/system is in systemd's unit search path; use the
# unit `make install` placed there, or dist/ if install does not ship it.
UDIR=$R/usr/local/lib/systemd/system
if [ ! -f "$UDIR/$UNIT" ]; then
	echo "note: make install did not install $UNIT; copying dist/$UNIT"
	install -D -m 0644 "$SRC/dist/$UNIT" "$UDIR/$UNIT"
fi
check "installed unit is dist/$UNIT" cmp -s "$SRC/dist/$UNIT" "$UDIR/$UNIT"
EXEC=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$UDIR/$UNIT")
check "ExecStart binary $EXEC is installed by make install (PREFIX=/usr/local)" test -x "$R$EXEC"

# The packaged config with a source that works in a container: a bundled
# lab capture, read flat out (the daemon stays up after the file ends).
install -D -m 0644 "$CAPS/$CAP.pcap" "$R/srv/nfsrdma/$CAP.pcap"
mkdir -p "$R/etc/nfsrdma"
[ -f "$R/etc/nfsrdma/nfsrdmad.conf" ] || cp "$SRC/dist/nfsrdmad.conf" "$R/etc/nfsrdma/nfsrdmad.conf"
sed -i -e "s|^source = .*|source = pcap:/srv/nfsrdma/$CAP.pcap|" \
	-e "s|^#metrics = .*|metrics = 127.0.0.1:$PORT|" \
	-e "s|^#export-dir = .*|export-dir = /var/lib/nfsrdma/export|" "$R/etc/nfsrdma/nfsrdmad.conf"
grep -q "^source = pcap:" "$R/etc/nfsrdma/nfsrdmad.conf" || bad "config: could not set the source line"
# No login prompt on the console.
ln -sf /dev/null "$R/etc/systemd/system/console-getty.service"

# ---- static check: systemd-analyze verify against the installed root ----
# (the Documentation= man page is looked up with man(1) on MANPATH)
MANPATH=$R/usr/local/share/man systemd-analyze --root="$R" verify "/usr/local/lib/systemd/system/$UNIT" \
	>"$TMP/verify.out" 2>&1
vrc=$?
check "systemd-analyze verify $UNIT: exit 0, no complaints" \
	sh -c "[ $vrc -eq 0 ] && ! grep -q . '$TMP/verify.out'"
[ -s "$TMP/verify.out" ] && sed 's/^/    verify: /' "$TMP/verify.out"

# ---- boot ----
# The container gets a veth pair: $CIF inside (the live sources attach
# there), $HIF on the host (the capture is replayed into it).  nspawn
# removes the pair when the container ends.
# The point is to test the unit's sandbox, not nspawn's, so the container
# gets what a RoCE host gives PID 1:
# --capability: nspawn keeps CAP_SYS_ADMIN but drops CAP_BPF and
#   CAP_PERFMON from the container's bounding set, which would cut the
#   unit's CapabilityBoundingSet down behind its back;
# --system-call-filter=bpf: nspawn's seccomp filter (systemd 252) fails
#   bpf() with EPERM whatever the capabilities.  Without it the xdp:
#   source fails in any unit, sandboxed or not: "libbpf: Error in
#   bpf_object__probe_loading():Operation not permitted(1)" and
#   "nfsrdmad: error: --source xdp:rx0: xdp: loading the XDP program:
#   Operation not permitted".
HIF=nfsrd$$ CIF=rx0
systemd-nspawn -D "$R" --machine="nfsrdma-sd$$" --register=no --keep-unit \
	--private-network --network-veth-extra="$HIF:$CIF" --capability=CAP_BPF,CAP_PERFMON --system-call-filter=bpf \
	--console=read-only -b >"$TMP/console.log" 2>&1 &
NSPAWN=$!
leader() { # the container's PID 1: nspawn's child running systemd
	local p
	for p in $(pgrep -P "$NSPAWN"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = systemd ] && { echo "$p"; return 0; }
	done
	return 1
}
wait_for 30 leader >/dev/null
LEADER=$(leader) || { sed 's/^/    console: /' "$TMP/console.log" | tail -n 20; cannot $NAME "systemd-nspawn did not start systemd (console above)"; }
# ct CMD...: run a command inside the container (all its namespaces)
ct() { nsenter -t "$LEADER" -a -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# systemctl answers nothing until PID 1's private socket exists (seen
# once in CI: an empty state right after systemd started): ask
# again; one deadline for all tries, so a hung systemctl cannot stall CI
state=""
deadline=$((SECONDS + 90))
while [ -z "$state" ] && [ "$SECONDS" -lt "$deadline" ]; do
	state=$(ct timeout $((deadline - SECONDS)) systemctl is-system-running --wait 2>/dev/null)
	[ -n "$state" ] || sleep 1
done
t_boot=$(date +%s.%N)
check "container booted systemd as PID 1 (is-system-running: $state)" \
	sh -c "[ '$state' = running ] || [ '$state' = degraded ]"
[ "$state" = running ] || ct systemctl --failed --no-legend | sed 's/^/    failed unit: /'
check "container PID 1 is systemd" sh -c "[ \"\$(nsenter -t $LEADER -p -m -- cat /proc/1/comm)\" = systemd ]"
# The veth: MTU 9000 for the capture's 4 KB RoCE frames, IPv6 off on both
# ends so the kernel puts nothing of its own on the wire, then up.
# (/proc/sys/net is the netns of the writer: nsenter -n reaches the container's.)
netup() { # netup NSENTER-PREFIX... IFACE
	local ifc=${*: -1}
	"${@:1:$#-1}" sh -c "echo 1 >/proc/sys/net/ipv6/conf/$ifc/disable_ipv6 && ip link set $ifc mtu 9000 up"
}
check "veth $HIF (host) - $CIF (container): MTU 9000, up, no IPv6" \
	bash -c "$(declare -f netup); netup env $HIF && netup nsenter -t $LEADER -n $CIF"

prop() { ct systemctl show -P "$1" "$UNIT"; }
metrics() { ct curl -sf -o /tmp/metrics.txt "http://127.0.0.1:$PORT/metrics" && ct cat /tmp/metrics.txt >"$TMP/metrics.txt"; }
# sum of nfsrdma_rpc_requests_total over every series
requests_sum() { awk '/^nfsrdma_rpc_requests_total\{/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt"; }

# Ground truth, independent of the daemon: the kernel client's RPCs
# (client.trace) and the dissector's XIDs, both for the same capture.
want=$(truth_ops "$CAPS/$CAP.truth/client.trace" | awk '{ s += $3 } END { print s + 0 }')
xids=$("$BIN/nfsrdma-dissect" --json "$CAPS/$CAP.pcap" 2>/dev/null | grep -c '"xid"')
[ "$want" -gt 0 ] || bad "ground truth: no rpc_stats_latency lines in $CAP.truth/client.trace"
# the metrics reached their final value (the file is read flat out)
metrics_done() { metrics && [ "$(requests_sum)" = "$want" ]; }

# ---- enable --now ----
ct systemctl enable --now "$UNIT" >"$TMP/enable.log" 2>&1
check "systemctl enable --now $UNIT" test $? -eq 0
check "is-enabled: enabled" sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-enabled $UNIT)\" = enabled ]"
wait_for 10 sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-active $UNIT)\" = active ]"
check "is-active: active" [ "$(ct systemctl is-active "$UNIT")" = active ]
pid1=$(prop MainPID)
check "metrics endpoint answers inside the container" wait_for 10 metrics
check "sum(nfsrdma_rpc_requests_total) = $want (kernel client's RPCs, $CAP.truth)" wait_for 10 metrics_done
check "dissector outside saw the same $want XIDs (nfsrdma-dissect --json: $xids)" [ "$xids" = "$want" ]
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
	done < <(truth_ops "$CAPS/$CAP.truth/client.trace")
}
check_ops ""

# ---- hardening does not get in the way ----
journal() { ct journalctl -q -o cat -u "$UNIT" --no-pager; }
journal >"$TMP/journal1.txt"
check "journal: no permission / read-only errors" \
	sh -c "! grep -Eiq 'permission denied|read-only file system|operation not permitted|EACCES|EPERM' '$TMP/journal1.txt'"
ct cat "/proc/$pid1/status" >"$TMP/status1.txt"   # MainPID is in the container's PID namespace
check "process runs as nobody (Uid 65534)" grep -Eq '^Uid:[[:space:]]+65534[[:space:]]' "$TMP/status1.txt"
check "NoNewPrivileges in effect (NoNewPrivs: 1)" grep -Eq '^NoNewPrivs:[[:space:]]+1' "$TMP/status1.txt"
capbnd=$(awk '/^CapBnd/ { print $2 }' "$TMP/status1.txt")
# bits: CAP_NET_RAW 13, CAP_SYS_MODULE 16, CAP_SYS_ADMIN 21, CAP_BPF 39
check "CapabilityBoundingSet in effect (CapBnd $capbnd: NET_RAW, SYS_ADMIN, BPF kept; SYS_MODULE gone)" \
	[ $(( (0x${capbnd:-0} >> 13 & 1) + (0x${capbnd:-0} >> 21 & 1) + (0x${capbnd:-0} >> 39 & 1) )) = 3 -a $(( 0x${capbnd:-0} >> 16 & 1 )) = 0 ]
check "ProtectSystem=strict in effect (/usr read-only in the service's namespace)" \
	sh -c "! nsenter -t $LEADER -a -- nsenter -t $pid1 -m -- touch /usr/nfsrdma-probe 2>/dev/null"
check "RuntimeDirectory /run/nfsrdma exists" ct test -d /run/nfsrdma
check "StateDirectory /var/lib/nfsrdma exists" ct test -d /var/lib/nfsrdma
check "control socket /run/nfsrdmad.sock created" ct test -S /run/nfsrdmad.sock
# export-dir = /var/lib/nfsrdma/export: the daemon writes there after
# dropping to "user", so the unit must hand that directory to it
exported() { ct sh -c 'for f in /var/lib/nfsrdma/export/*.pcapng; do [ -s "$f" ] && exit 0; done; exit 1'; }
check "pcapng export written under the StateDirectory as nobody" wait_for 10 exported
check "export directory owned by nobody" [ "$(ct stat -c %U /var/lib/nfsrdma/export 2>/dev/null)" = nobody ]

# ---- restart ----
ct systemctl restart "$UNIT"
check "systemctl restart: exit 0" test $? -eq 0
wait_for 10 sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-active $UNIT)\" = active ]"
pid2=$(prop MainPID)
check "restart: active with a new MainPID ($pid1 -> $pid2)" \
	sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-active $UNIT)\" = active ] && [ '$pid2' != '$pid1' ] && [ '$pid2' != 0 ]"
check "restart: metrics = truth again ($want)" wait_for 10 metrics_done

# ---- kill -9: Restart=on-failure brings it back ----
n0=$(prop NRestarts)
# (a number > 0 only: "kill -9 0" would hit our own process group)
case $pid2 in [1-9]*) ct sh -c "kill -9 $pid2" ;; esac   # minbase has no procps: the shell's kill
restarted() { local p; p=$(prop MainPID); [ "$p" != 0 ] && [ "$p" != "$pid2" ] && [ "$(ct systemctl is-active "$UNIT")" = active ]; }
# RestartSec=2
check "kill -9 $pid2: systemd restarts it (Restart=on-failure)" wait_for 15 restarted
pid3=$(prop MainPID)
check "NRestarts went up by one (${n0:-?} -> $(prop NRestarts))" [ "$(prop NRestarts)" = "$((n0 + 1))" ]
check "after the crash: metrics = truth again ($want)" wait_for 10 metrics_done
ct journalctl -q -o cat -u "$UNIT" --no-pager >"$TMP/journal2.txt"
check "journal records the SIGKILL" grep -Eq 'status=9/KILL|signal=KILL' "$TMP/journal2.txt"

# ---- stop ----
ct systemctl stop "$UNIT"
check "systemctl stop: exit 0" test $? -eq 0
check "stopped: inactive (not failed)" [ "$(ct systemctl is-active "$UNIT")" = inactive ]
check "clean exit: ExecMainStatus=0 Result=success" \
	[ "$(prop ExecMainStatus) $(prop Result)" = "0 success" ]
check "process $pid3 is gone" sh -c "! nsenter -t $LEADER -a -- test -d /proc/$pid3"
check "RuntimeDirectory removed on stop" sh -c "! nsenter -t $LEADER -a -- test -e /run/nfsrdma"
check "StateDirectory kept on stop" ct test -d /var/lib/nfsrdma
ct journalctl -q -o cat -u "$UNIT" --no-pager >"$TMP/journal3.txt"
check "journal: no permission / read-only errors over the whole run" \
	sh -c "! grep -Eiq 'permission denied|read-only file system|operation not permitted' '$TMP/journal3.txt'"

# ---- a bad configuration fails once, without a restart loop ----
# (nfsrdmad exits 2 on every configuration error; RestartPreventExitStatus=2)
# Each line is appended to the good config (a later setting wins, sources
# add up); the values the daemon only rejected when it used them (an
# address, a user, a source) exited 1, and restarted every 2 s for ever.
cp "$R/etc/nfsrdma/nfsrdmad.conf" "$TMP/good.conf"
for badline in "no-such-option = 1" "metrics = bogus" "metrics = 127.0.0.1:99999" \
	"user = nfsrdma-no-such-user" "socket-mode = 999" "source = bogus:nothing"; do
	{ cat "$TMP/good.conf"; echo "$badline"; } >"$R/etc/nfsrdma/nfsrdmad.conf"
	ct systemctl reset-failed "$UNIT" 2>/dev/null
	t0=$(date +%s)
	ct systemctl start "$UNIT"   # a manual start resets NRestarts to 0
	check "bad config '$badline': unit ends failed" \
		wait_for 10 sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-active $UNIT)\" = failed ]"
	sleep 5   # longer than RestartSec=2: a restart would have happened by now
	check "bad config '$badline': ExecMainStatus=2, still failed, no restart ($(prop ExecMainStatus) $(ct systemctl is-active "$UNIT") NRestarts $(prop NRestarts))" \
		[ "$(prop ExecMainStatus) $(ct systemctl is-active "$UNIT") $(prop NRestarts)" = "2 failed 0" ]
	ct journalctl -q -o cat -u "$UNIT" --no-pager --since "@$t0" >"$TMP/journal-bad.txt"
	why=$(grep 'nfsrdmad: error: ' "$TMP/journal-bad.txt" | grep -F -- "${badline%% =*}" | head -n1)
	check "bad config '$badline': the journal names the setting in an error line ($why)" [ -n "$why" ]
done
cp "$TMP/good.conf" "$R/etc/nfsrdma/nfsrdmad.conf"
ct systemctl reset-failed "$UNIT"

if [ "$nfail" -gt 0 ]; then
	sed 's/^/    journal: /' "$TMP/journal3.txt" | tail -n 30
fi

# ---- live sources on the container's interface ----
# The same unit and config, with the source a storage engineer deploys on
# a RoCE port: xdp:IFACE (XDP program, mmapped record rings, stats map
# read after the drop to nobody), live:IFACE (libpcap, AF_PACKET), and
# xdp:IFACE,mirror (a SPAN port).  The capture is replayed from the host
# into the other end of the veth (inject.py, raw AF_PACKET); the metrics
# must give the kernel client's per-operation counts for that capture,
# as for the file source above.  NMAL malformed RoCE frames follow the
# capture: with xdp: only the program's stats map (XS_MALFORMED) counts
# them, so nfsrdma_source_errors_total = NMAL shows the daemon still reads
# that map after dropping to nobody (a failed read would give 0); with
# live: the dissector counts them.  The journal must name the XDP attach
# mode and the drop to nobody (info lines: the packaged config sets
# verbose = yes).
NMAL=3
tx_packets() { cat "/sys/class/net/$HIF/statistics/tx_packets"; }
# the driver's own count of frames XDP dropped on the container's end
xdp_drops() { nsenter -t "$LEADER" -n ethtool -S "$CIF" 2>/dev/null | awk '/rx_queue_[0-9]+_xdp_drops:/ { s += $2 } END { print s + 0 }'; }
# (ip, not /sys: nsenter -n leaves the host's sysfs mounted)
cif_mac=$(nsenter -t "$LEADER" -n ip -o link show "$CIF" 2>/dev/null | sed -nE 's|.* link/ether ([0-9a-f:]{17}) .*|\1|p')
# From the capture, independently of the daemon: its frames, and those a
# mirror port drops (unicast, not for $CIF's address; the malformed
# frames inject.py adds are unicast to another host too).
read -r nframes nother < <(python3 - "$CAPS/$CAP.pcap" "$cif_mac" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
mac = bytes.fromhex(sys.argv[2].replace(":", ""))
o, n, other = 24, 0, 0
while o + 16 <= len(d):
    cap = struct.unpack_from("<I", d, o + 8)[0]
    f = d[o + 16:o + 16 + cap]
    other += len(f) >= 6 and not f[0] & 1 and f[:6] != mac
    o += 16 + cap; n += 1
print(n, other)
PY
)
check "capture $CAP: $nframes frames, $nother unicast to other hosts than $CIF ($cif_mac)" \
	sh -c "[ '${nframes:-0}' -gt 0 ] && [ -n '$cif_mac' ]"
metric() { awk -v m="$1" '$1 == m { print $2 + 0; f = 1 } END { if (!f) print "none" }' "$TMP/metrics.txt"; }
for spec in "xdp:$CIF" "live:$CIF" "xdp:$CIF,mirror"; do
	tag="[$spec] "
	sed -i "s|^source = .*|source = $spec|" "$R/etc/nfsrdma/nfsrdmad.conf"
	ct systemctl restart "$UNIT"
	check "${tag}systemctl restart: exit 0" test $? -eq 0
	wait_for 10 sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-active $UNIT)\" = active ]"
	inv=$(prop InvocationID)
	jl() { ct journalctl -q -o cat _SYSTEMD_INVOCATION_ID="$inv" --no-pager; }
	running_as_nobody() { jl >"$TMP/journal-src.txt" && grep -q 'running as nobody (uid 65534)' "$TMP/journal-src.txt"; }
	check "${tag}active; journal: running as nobody (uid 65534) after setup" wait_for 10 running_as_nobody
	pid=$(prop MainPID)
	ct cat "/proc/$pid/status" >"$TMP/status-src.txt" 2>/dev/null
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
	python3 "$HERE/inject.py" "$HIF" "$CAPS/$CAP.pcap" $NMAL >"$TMP/inject.txt" 2>&1
	rc=$?
	check "${tag}replayed $CAP.pcap into $HIF: $(tail -n1 "$TMP/inject.txt")" test $rc -eq 0
	check "${tag}$HIF sent all $nframes + $NMAL frames (tx_packets)" [ "$(( $(tx_packets) - tx0 ))" = "$((nframes + NMAL))" ]
	check "${tag}sum(nfsrdma_rpc_requests_total) = $want (kernel client's RPCs = dissector's XIDs)" wait_for 15 metrics_done
	check_ops "$tag"
	check "${tag}no records dropped (queue, source)" \
		[ "$(awk '/^nfsrdma_dropped_records_total\{/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt")" = 0 ]
	case $spec in *,mirror) wantd=$((nother + NMAL)) ;; *) wantd=0 ;; esac
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
ct systemctl stop "$UNIT"
check "live sources: stop exits 0, unit inactive" [ "$(ct systemctl is-active "$UNIT")" = inactive ]
cp "$TMP/good.conf" "$R/etc/nfsrdma/nfsrdmad.conf"

# ---- shut the container down ----
kill "$NSPAWN" 2>/dev/null   # nspawn halts the container on SIGTERM
wait_for 20 sh -c "! kill -0 $NSPAWN" || kill -9 "$NSPAWN" 2>/dev/null
wait "$NSPAWN" 2>/dev/null
NSPAWN=
t_end=$(date +%s.%N)
awk -v a="$t0" -v b="$t_root" -v c="$t_boot" -v d="$t_end" \
	'BEGIN { printf "time: root %.1f s, boot %.1f s, checks %.1f s, total %.1f s\n", b - a, c - b, d - c, d - a }'
finish $NAME
