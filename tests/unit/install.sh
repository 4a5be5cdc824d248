#!/usr/bin/env bash
# `make install PREFIX=... DESTDIR=...` puts every tool, BPF object and man
# page under DESTDIR/PREFIX, and `make uninstall` takes them away again.
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
pass=0 fail=0
ok() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT

make --no-print-directory -s install ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" >/dev/null
ok test -d "$stage/opt/nfsrdma/bin"
for b in "$O"/bin/*; do
	[ -e "$b" ] || continue
	ok test -x "$stage/opt/nfsrdma/bin/${b##*/}"
done
for o in "$O"/bpf/*.bpf.o; do
	[ -e "$o" ] || continue
	ok test -f "$stage/opt/nfsrdma/share/nfsrdma/bpf/${o##*/}"
done
for m in docs/man/*.1; do
	[ -e "$m" ] || continue
	ok test -f "$stage/opt/nfsrdma/share/man/man1/${m##*/}"
done
# the unit, pointing at the installed daemon, and the default configuration
ok grep -q "^ExecStart=/opt/nfsrdma/bin/nfsrdmad " "$stage/opt/nfsrdma/lib/systemd/system/nfsrdmad.service"
ok cmp -s dist/nfsrdmad.conf "$stage/etc/nfsrdma/nfsrdmad.conf"
# a second install keeps a configuration the admin changed
echo "# changed" >>"$stage/etc/nfsrdma/nfsrdmad.conf"
make --no-print-directory -s install ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" >/dev/null
ok grep -q "^# changed" "$stage/etc/nfsrdma/nfsrdmad.conf"
make --no-print-directory -s uninstall ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" >/dev/null
ok test -f "$stage/etc/nfsrdma/nfsrdmad.conf"
rm -f "$stage/etc/nfsrdma/nfsrdmad.conf"
make --no-print-directory -s install ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" >/dev/null
make --no-print-directory -s uninstall ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" >/dev/null
ok test -z "$(find "$stage" -type f)"
# dist/mixin and dist/wireshark go under DATADIR by directory, whatever they
# hold (a stand-in pair of directories here: the tree may have neither)
fake=$(mktemp -d); trap 'rm -rf "$stage" "$fake"' EXIT
mkdir -p "$fake/mixin/dashboards_out" "$fake/wireshark"
echo '{}' >"$fake/mixin/dashboards_out/overview.json"
echo 'groups: []' >"$fake/mixin/rules.yaml"
echo '-- plugin' >"$fake/wireshark/nfsrdma.lua"
mkdir -p "$fake/mixin/.cache" "$fake/mixin/tests" "$fake/mixin/dashboards/tests"
echo vendor/ >"$fake/mixin/.gitignore"; echo x >"$fake/mixin/.cache/x"; echo x >"$fake/mixin/tests/t.yaml"
echo '{}' >"$fake/mixin/dashboards/tests/kept.json"   # only the top tests/ is the project's
make --no-print-directory -s install ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" \
	DIST_SHARE="$fake/mixin $fake/wireshark/" >/dev/null
d=$stage/opt/nfsrdma/share/nfsrdma
ok cmp -s "$fake/mixin/dashboards_out/overview.json" "$d/mixin/dashboards_out/overview.json"
ok cmp -s "$fake/mixin/rules.yaml" "$d/mixin/rules.yaml"
ok cmp -s "$fake/wireshark/nfsrdma.lua" "$d/wireshark/nfsrdma.lua"
ok test "$(stat -c %a "$d/mixin/rules.yaml")" = 644
ok test -z "$(find "$d" -name '.*')"
ok test ! -e "$d/mixin/tests"
ok test -f "$d/mixin/dashboards/tests/kept.json"
# installed again, a file gone from the directory is gone from the install
rm "$fake/mixin/rules.yaml"
make --no-print-directory -s install ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" \
	DIST_SHARE="$fake/mixin $fake/wireshark/" >/dev/null
ok test ! -e "$d/mixin/rules.yaml"
ok test -f "$d/mixin/dashboards_out/overview.json"
rm -f "$stage/etc/nfsrdma/nfsrdmad.conf"
make --no-print-directory -s uninstall ${SANITIZE:+SANITIZE=$SANITIZE} O="$O" PREFIX=/opt/nfsrdma DESTDIR="$stage" >/dev/null
ok test -z "$(find "$stage" -type f)"
echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
