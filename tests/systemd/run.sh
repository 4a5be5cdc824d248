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
# Needs root, debootstrap and systemd-container (systemd-nspawn); the first
# run downloads ~60 MB of Debian packages (about 40 s), later ones reuse
# the cached root.  The container gets its own network namespace (only lo)
# and boots a throwaway overlay of the cached root; every mount lives in a
# private mount namespace and disappears with it.
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
for t in systemd-nspawn systemd-analyze nsenter curl; do
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
systemd-nspawn -D "$R" --machine="nfsrdma-sd$$" --register=no --keep-unit \
	--private-network --console=read-only -b >"$TMP/console.log" 2>&1 &
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
state=$(ct timeout 60 systemctl is-system-running --wait 2>/dev/null)
t_boot=$(date +%s.%N)
check "container booted systemd as PID 1 (is-system-running: $state)" \
	sh -c "[ '$state' = running ] || [ '$state' = degraded ]"
[ "$state" = running ] || ct systemctl --failed --no-legend | sed 's/^/    failed unit: /'
check "container PID 1 is systemd" sh -c "[ \"\$(nsenter -t $LEADER -p -m -- cat /proc/1/comm)\" = systemd ]"

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
while read -r p o n; do
	g=$(awk -v p="$p" -v o="$o" '$0 ~ "^nfsrdma_rpc_requests_total\\{protocol=\"" p "\",operation=\"" o "\"" { s += $NF } END { print s + 0 }' "$TMP/metrics.txt")
	check "requests $p $o = $n (truth)" [ "$g" = "$n" ]
done < <(truth_ops "$CAPS/$CAP.truth/client.trace")

# ---- hardening does not get in the way ----
journal() { ct journalctl -q -o cat -u "$UNIT" --no-pager; }
journal >"$TMP/journal1.txt"
check "journal: no permission / read-only errors" \
	sh -c "! grep -Eiq 'permission denied|read-only file system|operation not permitted|EACCES|EPERM' '$TMP/journal1.txt'"
ct cat "/proc/$pid1/status" >"$TMP/status1.txt"   # MainPID is in the container's PID namespace
check "process runs as nobody (Uid 65534)" grep -Eq '^Uid:[[:space:]]+65534[[:space:]]' "$TMP/status1.txt"
check "NoNewPrivileges in effect (NoNewPrivs: 1)" grep -Eq '^NoNewPrivs:[[:space:]]+1' "$TMP/status1.txt"
capbnd=$(awk '/^CapBnd/ { print $2 }' "$TMP/status1.txt")
# bits: CAP_NET_RAW 13, CAP_SYS_MODULE 16, CAP_SYS_ADMIN 21
check "CapabilityBoundingSet in effect (CapBnd $capbnd: NET_RAW, SYS_ADMIN kept; SYS_MODULE gone)" \
	[ $(( (0x${capbnd:-0} >> 13 & 1) + (0x${capbnd:-0} >> 21 & 1) )) = 2 -a $(( 0x${capbnd:-0} >> 16 & 1 )) = 0 ]
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
# (nfsrdmad exits 2 on bad configuration; RestartPreventExitStatus=2)
cp "$R/etc/nfsrdma/nfsrdmad.conf" "$TMP/good.conf"
echo "no-such-option = 1" >>"$R/etc/nfsrdma/nfsrdmad.conf"
ct systemctl start "$UNIT"   # a manual start resets NRestarts to 0
check "bad config: unit ends failed" wait_for 10 sh -c "[ \"\$(nsenter -t $LEADER -a -- systemctl is-active $UNIT)\" = failed ]"
sleep 5   # longer than RestartSec=2: a restart would have happened by now
check "bad config: ExecMainStatus=2, still failed, no restart (NRestarts $(prop NRestarts))" \
	[ "$(prop ExecMainStatus) $(ct systemctl is-active "$UNIT") $(prop NRestarts)" = "2 failed 0" ]
cp "$TMP/good.conf" "$R/etc/nfsrdma/nfsrdmad.conf"
ct systemctl reset-failed "$UNIT"

if [ "$nfail" -gt 0 ]; then
	sed 's/^/    journal: /' "$TMP/journal3.txt" | tail -n 30
fi

# ---- shut the container down ----
kill "$NSPAWN" 2>/dev/null   # nspawn halts the container on SIGTERM
wait_for 20 sh -c "! kill -0 $NSPAWN" || kill -9 "$NSPAWN" 2>/dev/null
wait "$NSPAWN" 2>/dev/null
NSPAWN=
t_end=$(date +%s.%N)
awk -v a="$t0" -v b="$t_root" -v c="$t_boot" -v d="$t_end" \
	'BEGIN { printf "time: root %.1f s, boot %.1f s, checks %.1f s, total %.1f s\n", b - a, c - b, d - c, d - a }'
finish $NAME
