#!/usr/bin/env bash
# tests/systemd/run.sh — dist/nfsrdmad.service under a real systemd, on the
# lab's guest kernel: LAB_KVERSION = 6.1 (default) or 6.12 (Debian 12's).
#
# Boots a lab guest (qemu, TCG, the kernel and initramfs of
# tests/lab/kernel.sh) whose root is a throwaway overlay of a cached Debian
# bookworm root (tests/systemd/rootfs.sh) with the project installed into
# it by `make install PREFIX=/usr/local DESTDIR=...`, the unit, and a
# config whose source is a bundled lab capture; /lib/systemd/systemd is
# PID 1 (the initramfs's lab.rootdir= and lab.init=).  A unit in the guest
# (nfsrdma-checks.service, tests/systemd/guest-checks.sh) then drives
# nfsrdmad.service with systemctl: enable --now, metrics = the kernel's
# ground truth, the hardening leaves the daemon working, restart, kill -9
# -> Restart=on-failure, stop, a bad config fails once; then the same unit
# with the sources a RoCE host runs, on a veth pair inside the guest:
# xdp:IFACE, live:IFACE and xdp:IFACE,mirror, the capture replayed into
# the other end (inject.py); metrics = the same truth.  It writes one
# ok/FAIL line per check to a 9p share and powers the guest off; this
# script prints them.  On the host: `systemd-analyze verify` of the unit
# against the installed root, and the truth the guest compares with.
#
# Needs root, qemu-system-x86_64, debootstrap, systemd-analyze and python3;
# the first run downloads ~70 MB of Debian packages, later ones reuse the
# cached root (and kernel.sh's cached kernels).  The overlay is mounted in
# a private mount namespace (qemu exports the host's "/" from there) and
# disappears with it; the guest writes only to its tmpfs and the share.
#
# Prints "systemd: guest kernel KVER", one ok/FAIL line per check, the
# time taken and "systemd: N passed, N failed".
set -uo pipefail
NAME=systemd
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ -z "${NFSRDMA_SD_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "$NAME: cannot run: needs root (mounts, qemu over the host's /)"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
	command -v unshare >/dev/null || { echo "$NAME: cannot run: unshare (util-linux) missing"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
	NFSRDMA_SD_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

. "$HERE/../daemon/lib.sh"   # SRC O BIN CAPS TMP, ok/bad/check/finish/cannot, wait_for, truth_ops
QEMU=
# Stop the guest (by PID) and unmount the overlay before lib.sh removes $TMP.
sd_cleanup() {
	if [ -n "$QEMU" ] && kill -0 "$QEMU" 2>/dev/null; then
		kill "$QEMU"
		wait_for 10 sh -c "! kill -0 $QEMU" || kill -9 "$QEMU" 2>/dev/null
		wait "$QEMU" 2>/dev/null
	fi
	umount "$TMP/root" 2>/dev/null
	cleanup
}
trap sd_cleanup EXIT

CAP=${NFSRDMA_SD_CAPTURE:-smoke}
PORT=9464
UNIT=nfsrdmad.service
# The guest's veth end the live sources attach to, with a fixed address so
# the capture's frames for other hosts can be counted here.
CIF=rx0 CIF_MAC=02:6e:66:73:72:01
NMAL=3             # malformed RoCE frames inject.py adds after the capture
GUEST_TIMEOUT=${NFSRDMA_SD_TIMEOUT:-600}
for t in qemu-system-x86_64 systemd-analyze python3; do
	command -v $t >/dev/null || cannot $NAME "$t missing"
done
[ -f "$CAPS/$CAP.pcap" ] || cannot $NAME "no capture $CAPS/$CAP.pcap"

t0=$(date +%s.%N)
kvars=$("$SRC/tests/lab/kernel.sh" "${LAB_KVERSION:-6.1}") || cannot $NAME "tests/lab/kernel.sh ${LAB_KVERSION:-6.1} failed"
eval "$kvars"
echo "$NAME: guest kernel $LAB_KVER"
LOWER=$("$HERE/rootfs.sh") || cannot $NAME "no guest root (tests/systemd/rootfs.sh failed)"
t_root=$(date +%s.%N)

# ---- a throwaway root: overlay of the cached one ----
R=$TMP/root
mkdir -p "$TMP/upper" "$TMP/work" "$R"
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

# The packaged config with a source that works anywhere: a bundled lab
# capture, read flat out (the daemon stays up after the file ends).
install -D -m 0644 "$CAPS/$CAP.pcap" "$R/srv/nfsrdma/$CAP.pcap"
mkdir -p "$R/etc/nfsrdma"
[ -f "$R/etc/nfsrdma/nfsrdmad.conf" ] || cp "$SRC/dist/nfsrdmad.conf" "$R/etc/nfsrdma/nfsrdmad.conf"
sed -i -e "s|^source = .*|source = pcap:/srv/nfsrdma/$CAP.pcap|" \
	-e "s|^#metrics = .*|metrics = 127.0.0.1:$PORT|" \
	-e "s|^#export-dir = .*|export-dir = /var/lib/nfsrdma/export|" "$R/etc/nfsrdma/nfsrdmad.conf"
grep -q "^source = pcap:" "$R/etc/nfsrdma/nfsrdmad.conf" || bad "config: could not set the source line"
# No login prompt on the consoles (the getty generator would start one on
# the serial console the kernel logs to).
ln -sf /dev/null "$R/etc/systemd/system/console-getty.service"
ln -sf /dev/null "$R/etc/systemd/system/serial-getty@ttyS0.service"

# ---- static check: systemd-analyze verify against the installed root ----
# (the Documentation= man page is looked up with man(1) on MANPATH)
MANPATH=$R/usr/local/share/man systemd-analyze --root="$R" verify "/usr/local/lib/systemd/system/$UNIT" \
	>"$TMP/verify.out" 2>&1
vrc=$?
check "systemd-analyze verify $UNIT: exit 0, no complaints" \
	sh -c "[ $vrc -eq 0 ] && ! grep -q . '$TMP/verify.out'"
[ -s "$TMP/verify.out" ] && sed 's/^/    verify: /' "$TMP/verify.out"

# ---- the truth the guest compares with, computed here ----
# The kernel client's RPCs (client.trace) and the dissector's XIDs, both
# for the same capture, independently of the daemon.
G=$R/srv/nfsrdma-test
mkdir -p "$G"
truth_ops "$CAPS/$CAP.truth/client.trace" >"$G/truth-ops.txt"
want=$(awk '{ s += $3 } END { print s + 0 }' "$G/truth-ops.txt")
xids=$("$BIN/nfsrdma-dissect" --json --transport rdma "$CAPS/$CAP.pcap" 2>/dev/null | grep -c '"xid"')
[ "$want" -gt 0 ] || bad "ground truth: no rpc_stats_latency lines in $CAP.truth/client.trace"
check "dissector on the host saw the same $want XIDs (nfsrdma-dissect --json: $xids)" [ "$xids" = "$want" ]
# The capture's frames, and those a mirror port drops (unicast, not for
# $CIF's address; the malformed frames inject.py adds are unicast to
# another host too).
read -r nframes nother < <(python3 - "$CAPS/$CAP.pcap" "$CIF_MAC" <<'PY'
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

# ---- the guest's part: checks, settings, the unit that runs them ----
cp "$HERE/guest-checks.sh" "$HERE/inject.py" "$G/"
cp "$SRC/tests/daemon/lib.sh" "$G/lib.sh"
cp "$CAPS/$CAP.pcap" "$G/"
printf '%s=%q\n' CAP "$CAP" PORT "$PORT" UNIT "$UNIT" KVER "$LAB_KVER" WANT "$want" \
	CIF "$CIF" CIF_MAC "$CIF_MAC" NFRAMES "${nframes:-0}" NOTHER "${nother:-0}" NMAL "$NMAL" >"$G/settings"
install -m 0644 "$HERE/nfsrdma-checks.service" "$R/etc/systemd/system/"
mkdir -p "$R/etc/systemd/system/multi-user.target.wants"
ln -sf ../nfsrdma-checks.service "$R/etc/systemd/system/multi-user.target.wants/"

# ---- boot ----
# The lab's guest (tests/lab/run-scenario): TCG, no NIC, the host's "/"
# read-only over 9p (this namespace's, with the overlay above) and a
# writable share for the results.
SHARE=$TMP/share
mkdir -p "$SHARE"
qemu-system-x86_64 -name "nfsrdma-systemd-$$" -nodefaults -no-user-config \
	-machine pc,accel=tcg -m 1024 -smp "${LAB_SMP:-1}" -display none -no-reboot \
	-kernel "$LAB_KERNEL" -initrd "$LAB_INITRD" \
	-append "console=ttyS0 panic=1 mitigations=off lab.kroot=$LAB_KROOT lab.rootdir=$R lab.init=/lib/systemd/systemd" \
	-serial "file:$TMP/console.log" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$SHARE,mount_tag=labshare,security_model=none,multidevs=remap" \
	>"$TMP/qemu.log" 2>&1 &
QEMU=$!
t_qemu=$(date +%s.%N)
deadline=$((SECONDS + GUEST_TIMEOUT))
while kill -0 "$QEMU" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
if kill -0 "$QEMU" 2>/dev/null; then
	bad "guest powered off within ${GUEST_TIMEOUT} s (NFSRDMA_SD_TIMEOUT)"
	kill "$QEMU"; wait_for 10 sh -c "! kill -0 $QEMU" || kill -9 "$QEMU" 2>/dev/null
fi
wait "$QEMU" 2>/dev/null
QEMU=
t_end=$(date +%s.%N)

# ---- the guest's results ----
if [ -f "$SHARE/checks.txt" ]; then
	cat "$SHARE/checks.txt"
	npass=$((npass + $(grep -c '^ok ' "$SHARE/checks.txt")))
	nfail=$((nfail + $(grep -c '^FAIL ' "$SHARE/checks.txt")))
fi
check "guest ran every check (the checks' last step marks the share)" test -f "$SHARE/done"
if [ "$nfail" -gt 0 ]; then
	[ -s "$SHARE/checks.err" ] && sed 's/^/    guest stderr: /' "$SHARE/checks.err" | tail -n 20
	sed 's/^/    console: /' "$TMP/console.log" | tail -n 30
fi
booted=$(cat "$SHARE/booted" 2>/dev/null)
awk -v a="$t0" -v b="$t_root" -v q="$t_qemu" -v u="${booted:-0}" -v d="$t_end" \
	'BEGIN { printf "time: kernel+root %.1f s, install %.1f s, guest boot %.1f s, checks in the guest %.1f s, total %.1f s\n",
		b - a, q - b, u, d - q - u, d - a }'
finish $NAME
