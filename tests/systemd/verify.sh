#!/usr/bin/env bash
# tests/systemd/verify.sh — static check of dist/nfsrdmad.service:
# `systemd-analyze verify` against a staged `make install PREFIX=/usr/local`
# (so ExecStart= and the Documentation= man page must really be installed),
# with the host's own systemd units for the dependencies (network-online,
# multi-user...).  Commands the unit runs from outside the install
# (ExecStartPre=) must exist on this Debian host and are staged from it.
# No root, no container: tests/systemd/run.sh runs the unit for real.
#
# Prints one ok/FAIL line per check and "systemd-verify: N passed, N failed".
set -uo pipefail
NAME=systemd-verify
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../daemon/lib.sh"   # SRC O TMP, ok/bad/check/finish/cannot

UNIT=nfsrdmad.service
command -v systemd-analyze >/dev/null || cannot $NAME "systemd-analyze missing (Debian package systemd)"
[ -d /usr/lib/systemd/system ] || cannot $NAME "no /usr/lib/systemd/system on this host (Debian package systemd)"

S=$TMP/stage
(cd "$SRC" && make -s O="$O" install PREFIX=/usr/local DESTDIR="$S") >"$TMP/install.log" 2>&1 ||
	cannot $NAME "make install failed: $(tail -n1 "$TMP/install.log")"
UDIR=$S/usr/local/lib/systemd/system
[ -f "$UDIR/$UNIT" ] || install -D -m 0644 "$SRC/dist/$UNIT" "$UDIR/$UNIT"
check "staged unit is dist/$UNIT" cmp -s "$SRC/dist/$UNIT" "$UDIR/$UNIT"
mkdir -p "$S/usr/lib/systemd"
cp -a /usr/lib/systemd/system "$S/usr/lib/systemd/"

# Exec*= commands outside PREFIX come from the host, when it has them.
sed -nE 's/^Exec[A-Za-z]*=[-+!@:]*(\/[^ ]+).*/\1/p' "$UDIR/$UNIT" | sort -u | while read -r cmd; do
	case $cmd in /usr/local/*) continue ;; esac
	if [ -x "$cmd" ]; then
		install -D -m 0755 "$cmd" "$S$cmd"
	else
		echo "FAIL $UNIT runs $cmd, which this host does not have"
	fi
done >"$TMP/host-cmds.txt"
check "commands the unit runs outside the install exist on the host" sh -c "! grep -q . '$TMP/host-cmds.txt'"
cat "$TMP/host-cmds.txt"

MANPATH=$S/usr/local/share/man systemd-analyze --root="$S" verify "/usr/local/lib/systemd/system/$UNIT" \
	>"$TMP/verify.out" 2>&1
vrc=$?
check "systemd-analyze verify $UNIT: exit 0" [ $vrc -eq 0 ]
check "systemd-analyze verify $UNIT: no complaints" sh -c "! grep -q . '$TMP/verify.out'"
sed 's/^/    verify: /' "$TMP/verify.out"

# verify must see the problems it is here for: a unit whose ExecStart is
# not installed fails it (otherwise the checks above prove nothing)
sed 's|^ExecStart=/usr/local/bin/|ExecStart=/usr/local/bin/not-installed-|' "$UDIR/$UNIT" >"$UDIR/nfsrdmad-broken.service"
MANPATH=$S/usr/local/share/man systemd-analyze --root="$S" verify \
	/usr/local/lib/systemd/system/nfsrdmad-broken.service >"$TMP/broken.out" 2>&1
check "systemd-analyze verify rejects a unit whose ExecStart is not installed" \
	grep -q 'not-installed-nfsrdmad is not executable' "$TMP/broken.out"
finish $NAME
