#!/usr/bin/env bash
# tests/dist/deb.sh — the Debian package (debian/): built, linted,
# installed, run and purged in a container without network.
#
#  1. A copy of the tree (git's files: tracked, and untracked ones not
#     ignored) in a temporary directory: `dpkg-buildpackage -us -uc -b`
#     there, never in the source tree.  What it holds: the tools, the man
#     pages, the unit, the conffile; the mixin and the Wireshark plugin
#     under /usr/share/nfsrdma/ when dist/ has them; no BPF objects (the
#     tools carry them as skeletons).
#  2. lintian on the .changes: no E: and no W: line.
#  3. systemd-nspawn boots this host's own Debian 12 root, a throwaway
#     overlay of it (upper layer on a tmpfs), with systemd as PID 1 and
#     --private-network (only lo: CI has no network, and nothing here needs
#     it: the host that built the package has every library it depends on).
#     nspawn will not take "/" itself (--directory=/ wants --volatile=yes
#     or =state, which leave /etc or /var empty or read-only for dpkg), so
#     the overlay is mounted here and handed to it as a directory.  The
#     host's own enabled units (its databases, Prometheus, knfsd) are left
#     out of the boot, and Docker's policy-rc.d, which would hide whether
#     the package's scripts start the unit, is removed in the overlay.
#     Inside: dpkg -i; the unit enabled and never started; nfsrdmad started
#     by the unit on a committed capture (tests/captures) through the
#     installed conffile; /metrics scraped with curl, its RPC count = the
#     kernel client's own count for that capture (rpc_stats_latency);
#     apt-get purge; every path the package brought, /etc/nfsrdma,
#     /var/lib/nfsrdma and the unit's enablement gone, the daemon stopped,
#     and no name with "nfsrdma" left in what the container changed.
#
# Needs root (mounts, nspawn), dpkg-dev, debhelper, lintian,
# systemd-container, and the build's -dev packages (scripts/deps.sh build
# deb).  Takes a few minutes (the build).  Prints one ok/FAIL line per
# check and "deb: N passed, N failed".
set -uo pipefail
NAME=deb
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Every mount (the overlay, nspawn's tmpfs) in a private mount namespace:
# they vanish with it.
if [ -z "${NFSRDMA_DEB_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "$NAME: cannot run: needs root (mounts, systemd-nspawn)"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
	command -v unshare >/dev/null || { echo "$NAME: cannot run: unshare (util-linux) missing"; echo "$NAME: 0 passed, 1 failed"; exit 1; }
	NFSRDMA_DEB_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

. "$HERE/../daemon/lib.sh"   # SRC TMP CAPS, ok/bad/check/finish/cannot, wait_for, truth_ops
NSPAWN=
deb_cleanup() {
	if [ -n "$NSPAWN" ] && kill -0 "$NSPAWN" 2>/dev/null; then
		kill "$NSPAWN"   # nspawn halts the container on SIGTERM
		wait_for 20 sh -c "! kill -0 $NSPAWN" || kill -9 "$NSPAWN" 2>/dev/null
		wait "$NSPAWN" 2>/dev/null
	fi
	umount "$TMP/root" 2>/dev/null
	umount "$TMP/ovl" 2>/dev/null
	cleanup
}
trap deb_cleanup EXIT

CAP=smoke
PORT=9464   # nfsrdmad's default metrics address, 127.0.0.1:9464
UNIT=nfsrdmad.service
for t in dpkg-buildpackage dh lintian systemd-nspawn nsenter git; do
	command -v $t >/dev/null || cannot $NAME "$t missing (scripts/deps.sh build deb)"
done
[ -f "$CAPS/$CAP.pcap" ] || cannot $NAME "no capture $CAPS/$CAP.pcap"
t0=$(date +%s)

# ---- 1. build in a copy ----
srcstate() { (cd "$SRC" && git status --porcelain --ignored -- debian/); }
srcstate >"$TMP/src-before"
B=$TMP/build
mkdir -p "$B/nfsrdma"
(cd "$SRC" && git ls-files -co --exclude-standard -z | tar -cf - --null -T -) | tar -xf - -C "$B/nfsrdma" ||
	cannot $NAME "copying the tree to $B failed"
check "the copy has debian/rules" test -x "$B/nfsrdma/debian/rules"
(cd "$B/nfsrdma" && DEB_BUILD_OPTIONS=parallel=2 nice dpkg-buildpackage -us -uc -b) >"$TMP/build.log" 2>&1
brc=$?
t_build=$(date +%s)
check "dpkg-buildpackage -us -uc -b: exit 0 ($((t_build - t0)) s)" [ $brc -eq 0 ]
[ $brc -eq 0 ] || { tail -n 25 "$TMP/build.log" | sed 's/^/    build: /'; finish $NAME; exit 1; }
DEB=$(ls "$B"/nfsrdma_*_amd64.deb 2>/dev/null | head -n1)
CHANGES=$(ls "$B"/nfsrdma_*_amd64.changes 2>/dev/null | head -n1)
check "the build made nfsrdma_*.deb and its .changes" test -f "$DEB" -a -f "$CHANGES"
check "the source tree's debian/ untouched by the build (git status --ignored as before)" \
	sh -c "srcstate() { cd '$SRC' && git status --porcelain --ignored -- debian/; }; srcstate | cmp -s - '$TMP/src-before'"

# What the package holds: its paths, as dpkg will list them.
dpkg-deb --fsys-tarfile "$DEB" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' | grep -v '^/\?$' | sort >"$TMP/paths"
has() { grep -qxF "$1" "$TMP/paths"; }
for p in /usr/bin/nfsrdma-dissect /usr/bin/nfsrdma-replay /usr/bin/nfsrdma-top /usr/bin/nfsrdmad \
	/lib/systemd/system/$UNIT /etc/nfsrdma/nfsrdmad.conf /usr/share/doc/nfsrdma/copyright; do
	check "package holds $p" has "$p"
done
for m in "$SRC"/docs/man/*.[158]; do
	s=${m##*.}
	check "package holds man$s/${m##*/}.gz" has "/usr/share/man/man$s/${m##*/}.gz"
done
check "no BPF object in the package (the tools carry their skeletons)" sh -c "! grep -q '\.bpf\.o$' '$TMP/paths'"
check "the unit in the package starts /usr/bin/nfsrdmad with /etc/nfsrdma/nfsrdmad.conf" \
	sh -c "dpkg-deb --fsys-tarfile '$DEB' | tar -xOf - ./lib/systemd/system/$UNIT | grep -qx 'ExecStart=/usr/bin/nfsrdmad --config /etc/nfsrdma/nfsrdmad.conf'"
check "conffiles: /etc/nfsrdma/nfsrdmad.conf" sh -c "dpkg-deb -I '$DEB' conffiles | grep -qx /etc/nfsrdma/nfsrdmad.conf"
# dist/mixin and dist/wireshark, by directory: every file of each the tree has
shared=0
for d in mixin wireshark; do
	[ -d "$SRC/dist/$d" ] || { echo "note: dist/$d not in this tree: nothing of it to package"; continue; }
	shared=1
	while IFS= read -r f; do
		check "package holds /usr/share/nfsrdma/$d/$f" has "/usr/share/nfsrdma/$d/$f"
	done < <(cd "$SRC/dist/$d" && git ls-files -co --exclude-standard | grep -Ev '(^|/)\.|^tests/')   # not dot files, not its tests
done
[ $shared = 1 ] || check "no /usr/share/nfsrdma without dist/mixin or dist/wireshark (no empty directory)" \
	sh -c "! grep -q '^/usr/share/nfsrdma' '$TMP/paths'"

# ---- 2. lintian ----
lintian "$CHANGES" >"$TMP/lintian.out" 2>"$TMP/lintian.err"
lrc=$?
sed 's/^/    lintian: /' "$TMP/lintian.out"
check "lintian ran (exit $lrc; 0 or 1 = tags found)" [ $lrc -le 1 ]
check "lintian: no error (E:)" sh -c "! grep -q '^E: ' '$TMP/lintian.out'"
check "lintian: no warning (W:)" sh -c "! grep -q '^W: ' '$TMP/lintian.out'"
# the same package with a known fault (a VCS file in it): lintian must
# say W:, or the two checks above prove nothing
dpkg-deb -R "$DEB" "$TMP/faulty" && touch "$TMP/faulty/usr/share/doc/nfsrdma/.gitignore" &&
	dpkg-deb -b "$TMP/faulty" "$TMP/faulty.deb" >/dev/null
lintian "$TMP/faulty.deb" >"$TMP/lintian-faulty.out" 2>/dev/null
check "lintian flags the fault injected in a copy (W: package-contains-vcs-control-file)" \
	grep -q '^W: nfsrdma: package-contains-vcs-control-file' "$TMP/lintian-faulty.out"
t_lint=$(date +%s)

# ---- 3. a container: overlay of this host's root ----
R=$TMP/root
mkdir -p "$TMP/ovl" "$R" /run/systemd/nspawn
# upper and work on a tmpfs: not inside the lower layer ("/")
mount -t tmpfs -o mode=0755 tmpfs "$TMP/ovl" || cannot $NAME "tmpfs on $TMP/ovl failed"
mkdir -p "$TMP/ovl/upper" "$TMP/ovl/work"
# nspawn will not clean its propagation directory up on a disk file system
mount -t tmpfs tmpfs /run/systemd/nspawn || cannot $NAME "tmpfs on /run/systemd/nspawn failed"
mount -t overlay overlay -o "lowerdir=/,upperdir=$TMP/ovl/upper,workdir=$TMP/ovl/work" "$R" ||
	cannot $NAME "overlay of / failed"
U=$TMP/ovl/upper
rm -f "$R"/etc/systemd/system/*.wants/* "$R/usr/sbin/policy-rc.d"
mkdir -p "$R/srv/captest" "$R/var/tmp/pkg"
cp "$CAPS/$CAP.pcap" "$R/srv/captest/"
cp "$DEB" "$R/var/tmp/pkg/"
PKG=/var/tmp/pkg/${DEB##*/}

systemd-nspawn -D "$R" --machine="debtest$$" --register=no --keep-unit \
	--private-network --console=read-only -b >"$TMP/console.log" 2>&1 &
NSPAWN=$!
leader() { # the container's PID 1: nspawn's child running systemd
	local p
	for p in $(pgrep -P "$NSPAWN"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = systemd ] && { echo "$p"; return 0; }
	done
	return 1
}
wait_for 60 leader >/dev/null
LEADER=$(leader) || { tail -n 20 "$TMP/console.log" | sed 's/^/    console: /'; cannot $NAME "systemd-nspawn did not start systemd (console above)"; }
# ct CMD...: a command inside the container (all its namespaces)
ct() { nsenter -t "$LEADER" -a -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# systemctl answers nothing until PID 1's private socket exists: ask
# again, with one deadline for all tries
state="" deadline=$((SECONDS + 120))
while [ -z "$state" ] && [ "$SECONDS" -lt "$deadline" ]; do
	state=$(ct timeout $((deadline - SECONDS)) systemctl is-system-running --wait 2>/dev/null)
	[ -n "$state" ] || sleep 1
done
t_boot=$(date +%s)
check "container booted, systemd is PID 1 (is-system-running: $state, $((t_boot - t_lint)) s)" \
	sh -c "[ '$state' = running ] || [ '$state' = degraded ]"
[ "$state" = running ] || ct systemctl --failed --no-legend --plain | sed 's/^/    failed unit (not ours): /'
check "container has no network but lo" sh -c "[ \"\$(nsenter -t $LEADER -n ip -o link | awk -F': ' '{print \$2}')\" = lo ]"

# ---- install ----
# The host's root may hold nfsrdma already (the package, or `make install
# PREFIX=/usr`): take it out of the overlay first, so what is checked
# below is this package's doing.
if [ "$(ct dpkg-query -W -f='${db:Status-Abbrev}' nfsrdma 2>/dev/null | cut -c1)" = i ]; then
	echo "note: the host has the nfsrdma package installed: purged in the container first"
	ct dpkg --purge nfsrdma >"$TMP/prepurge.log" 2>&1 || sed 's/^/    dpkg: /' "$TMP/prepurge.log"
fi
ct sh -c 'while read -r p; do if [ ! -d "$p" ] && { [ -e "$p" ] || [ -L "$p" ]; }; then echo "$p"; fi; done; \
	for p in /etc/nfsrdma /var/lib/nfsrdma; do [ -e "$p" ] && echo "$p"; done; :' <"$TMP/paths" >"$TMP/host-has"
while read -r p; do
	echo "note: the host's root has $p (not from a package): removed in the container first"
	ct rm -rf "$p" </dev/null
done <"$TMP/host-has"
# what of the package's paths the root has already: shared directories only
ct sh -c 'while read -r p; do if [ -e "$p" ] || [ -L "$p" ]; then echo "$p"; fi; done' <"$TMP/paths" >"$TMP/before"
ct sh -c 'while read -r p; do [ -d "$p" ] || echo "$p"; done' <"$TMP/before" >"$TMP/before-files"
sed 's/^/    there before install: /' "$TMP/before-files"
check "container clean: none of the package's files there before ($(wc -l <"$TMP/before") shared directories)" \
	sh -c "! grep -q . '$TMP/before-files' && ! grep -qx /etc/nfsrdma '$TMP/before'"
ct dpkg -i "$PKG" >"$TMP/install.log" 2>&1
irc=$?
check "dpkg -i ${PKG##*/}: exit 0" [ $irc -eq 0 ]
[ $irc -eq 0 ] || sed 's/^/    dpkg: /' "$TMP/install.log"
check "dpkg: nfsrdma installed (ii)" [ "$(ct dpkg-query -W -f='${db:Status-Abbrev}' nfsrdma | tr -d ' ')" = ii ]
ct dpkg -L nfsrdma | grep -v '^/\.$' | sort >"$TMP/listed"
check "dpkg -L nfsrdma = the package's paths ($(wc -l <"$TMP/paths"))" cmp -s "$TMP/paths" "$TMP/listed"
prop() { ct systemctl show -P "$1" "$UNIT"; }
check "unit enabled (is-enabled: $(ct systemctl is-enabled $UNIT))" [ "$(ct systemctl is-enabled $UNIT)" = enabled ]
check "unit wanted by multi-user.target" ct test -L /etc/systemd/system/multi-user.target.wants/$UNIT
check "unit not running after install (is-active: $(ct systemctl is-active $UNIT))" [ "$(ct systemctl is-active $UNIT)" = inactive ]
check "unit never started (InactiveExitTimestampMonotonic 0, no MainPID)" \
	[ "$(prop InactiveExitTimestampMonotonic) $(prop MainPID)" = "0 0" ]
conf_same() { ct cat /etc/nfsrdma/nfsrdmad.conf | cmp -s - "$SRC/dist/nfsrdmad.conf"; }
check "installed config = dist/nfsrdmad.conf" conf_same
runs() { ct /usr/bin/nfsrdmad --version | grep -q .; }
check "installed nfsrdmad runs (--version: $(ct /usr/bin/nfsrdmad --version 2>&1 | head -n1))" runs

# ---- run: the unit on a capture, through the installed conffile ----
ct sed -i "s|^source = kernel$|source = pcap:/srv/captest/$CAP.pcap|" /etc/nfsrdma/nfsrdmad.conf
check "conffile edited to the capture source" ct grep -qx "source = pcap:/srv/captest/$CAP.pcap" /etc/nfsrdma/nfsrdmad.conf
ct systemctl start "$UNIT"
check "systemctl start $UNIT: active" [ "$(ct systemctl is-active $UNIT)" = active ]
want=$(truth_ops "$CAPS/$CAP.truth/client.trace" | awk '{ s += $3 } END { print s + 0 }')
[ "$want" -gt 0 ] || bad "ground truth: no rpc_stats_latency lines in $CAP.truth/client.trace"
metrics() { ct curl -sf "http://127.0.0.1:$PORT/metrics" >"$TMP/metrics.txt"; }
# RPCs over RDMA (the capture's MOUNT and rpcbind calls go over TCP/UDP)
requests_sum() { awk '/^nfsrdma_rpc_requests_total\{/ && /transport="rdma"/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt"; }
metrics_done() { metrics && [ "$(requests_sum)" = "$want" ]; }
wait_for 30 metrics_done
check "curl /metrics: RPCs over RDMA counted = the kernel client's $want for $CAP (nfsrdma_rpc_requests_total: $(requests_sum))" \
	[ "$(requests_sum)" = "$want" ]
pid=$(prop MainPID)
check "the daemon is the installed /usr/bin/nfsrdmad" [ "$(ct readlink "/proc/$pid/exe")" = /usr/bin/nfsrdmad ]
check "the daemon dropped to the conffile's user nobody" [ "$(ct stat -c %U "/proc/$pid")" = nobody ]
check "StateDirectory /var/lib/nfsrdma made (purge must take it)" ct test -d /var/lib/nfsrdma/export
check "control socket /run/nfsrdmad.sock there while it runs" ct test -S /run/nfsrdmad.sock

# ---- purge: nothing left ----
rm -f "$R$PKG"; rmdir "$R/var/tmp/pkg"
ct apt-get purge -y -q nfsrdma >"$TMP/purge.log" 2>&1
prc=$?
check "apt-get purge nfsrdma: exit 0" [ $prc -eq 0 ]
[ $prc -eq 0 ] || sed 's/^/    apt: /' "$TMP/purge.log"
forgotten() { ! ct dpkg-query -W nfsrdma >/dev/null 2>&1; }
check "dpkg knows no nfsrdma after purge" forgotten
check "the running daemon was stopped (is-active: $(ct systemctl is-active $UNIT))" [ "$(ct systemctl is-active $UNIT)" != active ]
no_daemon() { ! ct sh -c 'for c in /proc/[0-9]*/comm; do read -r n <"$c" 2>/dev/null && [ "$n" = nfsrdmad ] && exit 0; done; exit 1'; }
check "no nfsrdmad process left" no_daemon
left=0
while read -r p; do
	grep -qxF "$p" "$TMP/before" && continue
	if ct sh -c "[ -e '$p' ] || [ -L '$p' ]"; then echo "    left: $p"; left=$((left + 1)); fi
done <"$TMP/paths"
check "every path the package brought is gone ($(grep -cvxFf "$TMP/before" "$TMP/paths") checked, $left left)" [ $left -eq 0 ]
for p in /etc/nfsrdma /var/lib/nfsrdma /etc/systemd/system/multi-user.target.wants/$UNIT \
	/var/lib/systemd/deb-systemd-helper-enabled/$UNIT /run/nfsrdma /run/nfsrdmad.sock; do
	check "gone: $p" ct sh -c "! [ -e '$p' ] && ! [ -L '$p' ]"
done
# what the container wrote to its root (the overlay's upper layer; a
# character device there is a deletion): no name from the package
(cd "$U" && find . ! -type c -iname '*nfsrdma*') >"$TMP/upper-left"
sed 's/^/    left in the container: /' "$TMP/upper-left"
check "nothing named nfsrdma left in what the container changed ($(cd "$U" && find . | wc -l) paths)" \
	sh -c "! grep -q . '$TMP/upper-left'"

kill "$NSPAWN" 2>/dev/null
wait_for 20 sh -c "! kill -0 $NSPAWN" || kill -9 "$NSPAWN" 2>/dev/null
wait "$NSPAWN" 2>/dev/null
NSPAWN=
echo "$NAME: build $((t_build - t0)) s, lintian $((t_lint - t_build)) s, container $(($(date +%s) - t_lint)) s"
finish $NAME
