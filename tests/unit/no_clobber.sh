#!/usr/bin/env bash
# Nothing overwrites an input: nfsrdma-dissect refuses -w / --plot naming
# the capture it reads (same name, a symbolic or a hard link), exit 2 with
# one line, and the capture is unchanged; outputs appear whole or not at
# all (no temporary file is left beside them); an output that cannot be
# made where it is named (nfsrdma-dissect -w, --plot; nfsrdma-replay
# --plot) is said before anything is read.
# Closing line: "no-clobber: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
BIN=$PWD/${O:-build}/bin/nfsrdma-dissect
case ${O:-build} in /*) BIN=$O/bin/nfsrdma-dissect ;; esac
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL no-clobber: $*"; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp tests/captures/nfs40.pcap "$work/x.pcap"
ln -s x.pcap "$work/sym.pcap"
ln "$work/x.pcap" "$work/hard.pcap"
sum=$(sha256sum <"$work/x.pcap")

refused() {   # NAME ARGS...: exit 2, one stderr line, nothing on stdout, input intact
	local name=$1; shift
	local out err rc
	out=$(cd "$work" && "$BIN" "$@" 2>"$work/err"); rc=$?
	err=$(cat "$work/err")
	[ "$rc" -eq 2 ] || { bad "$name: exit $rc, expected 2"; return; }
	[ "$(wc -l <"$work/err")" -eq 1 ] || { bad "$name: stderr is not one line: $err"; return; }
	[ -z "$out" ] || { bad "$name: printed to stdout"; return; }
	[ "$(sha256sum <"$work/x.pcap")" = "$sum" ] || { bad "$name: the capture changed"; return; }
	ok
}
refused "-w same file" -q -w x.pcap x.pcap
refused "--plot same file" -q --plot x.pcap x.pcap
refused "-w through a symbolic link" -q -w sym.pcap x.pcap
refused "--plot through a hard link" -q --plot hard.pcap x.pcap
refused "-w and --plot to one file" -q -w o.out --plot o.out x.pcap
grep -q 'refusing to overwrite' "$work/err" || grep -q 'same file' "$work/err" && ok || bad "message does not say why"
[ ! -e "$work/o.out" ] && ok || bad "a refused run created its output"

# a good run: both outputs whole, nothing temporary left behind
(cd "$work" && "$BIN" -q -w o.pcapng --plot o.svg x.pcap) && ok || bad "good run failed"
[ -s "$work/o.pcapng" ] && [ -s "$work/o.svg" ] && ok || bad "outputs missing"
tail -c 7 "$work/o.svg" | grep -q '</svg>' && ok || bad "svg not complete"
ls "$work" | grep -q '\.tmp-' && bad "temporary file left: $(ls "$work")" || ok
# a run that cannot write says so and exits non-zero
(cd "$work" && "$BIN" -q --plot x.pcap/o.svg hard.pcap 2>/dev/null); rc=$?
[ "$rc" -eq 1 ] && ok || bad "--plot into a path under a file: exit $rc, expected 1"
# an output that cannot be made where it is named is said before the
# capture is read (nothing on stdout), not after the whole run
cannot() {   # NAME WANT ARGS...: exit 1, one stderr line with WANT, nothing on stdout
	local name=$1 want=$2; shift 2
	local out rc
	out=$(cd "$work" && "$BIN" "$@" 2>"$work/err"); rc=$?
	[ "$rc" -eq 1 ] && [ -z "$out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q -- "$want" "$work/err" && ok ||
		bad "$name: exit $rc, $(printf '%s' "$out" | wc -l) lines out, stderr: $(cat "$work/err")"
}
cannot "-w into a directory that does not exist" "-w no/such/o.pcapng: cannot be written in no/such: No such file or directory" \
	-w no/such/o.pcapng x.pcap
mkdir -p "$work/adir"
cannot "--plot naming a directory" "--plot adir: is a directory" --plot adir x.pcap
cannot "--compare --plot into a directory that does not exist" "--plot no/such/c.svg: cannot be written" \
	--compare --plot no/such/c.svg x.pcap hard.pcap
# nfsrdma-replay --plot: a set-up failure (1, could not do the job, as in
# every tool) before the sweep, no target contacted
RP=${BIN%/*}/nfsrdma-replay
out=$(cd "$work" && timeout 10 "$RP" --generate read --sweep 4k --plot no/such/s.svg --target 192.0.2.1 2>"$work/err"); rc=$?
[ "$rc" -eq 1 ] && [ -z "$out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
	grep -q -- "--plot no/such/s.svg: cannot be written in no/such" "$work/err" && ok ||
	bad "replay --plot into a directory that does not exist: exit $rc, stderr: $(cat "$work/err")"
echo "no-clobber: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
