#!/usr/bin/env bash
# One meaning per flag across the four tools (issue 28): the spellings
# renamed still work until the next release.  For every "OLD is NEW" of a
# tool's --help "Renamed" line: OLD in a context the test gives (below)
# behaves as NEW (the same exit status, the same stderr) but for exactly
# one warning line naming NEW; no renamed spelling is offered by --help's
# option lines or by --completion; every tool's --help has been read.
# -v's old meanings (replay's per-call lines, dissect's counters) go on
# one release with a warning, and not when the new flag is given too.
# Closing line: "renamed-flags: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL renamed-flags: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
CAP=tests/captures/nfs3-read-write.pcap

# the context each renamed spelling is tried in: arguments after it (its
# value first); each one ends in a refusal, so nothing is sent
context() {   # TOOL OLD
	case "$1 $2" in
	"nfsrdma-replay -q") echo "4 --target 192.0.2.1 $CAP" ;;            # --qd needs --generate
	"nfsrdma-replay -w") echo "1 --target 192.0.2.1 $CAP" ;;            # --warmup needs --generate
	"nfsrdma-replay -s") echo "2 --generate null --target 192.0.2.1" ;; # --speed is a replay's
	"nfsrdma-replay -d") echo "1 --target 192.0.2.1 $CAP" ;;            # --duration needs --generate
	"nfsrdma-replay --transport") echo "udp --generate null --target 192.0.2.1" ;;
	"nfsrdma-replay --svg") echo "$tmp/x.svg --generate read --target 192.0.2.1" ;;  # needs --sweep
	*) return 1 ;;
	esac
}

renamed=0
for bin in "$O"/bin/*; do
	tool=${bin##*/}
	"$bin" --help >"$tmp/help" 2>&1 || { bad "$tool --help failed"; continue; }
	"$bin" --completion bash >"$tmp/compl" 2>&1 || { bad "$tool --completion bash failed"; continue; }
	while read -r old new; do
		renamed=$((renamed + 1))
		args=$(context "$tool" "$old") || { bad "$tool $old: no context in this test"; continue; }
		# shellcheck disable=SC2086  # the context is words
		"$bin" "$old" $args >/dev/null 2>"$tmp/old.err"; rc_old=$?
		# shellcheck disable=SC2086
		"$bin" "$new" $args >/dev/null 2>"$tmp/new.err"; rc_new=$?
		warn=$(grep -c "warning: $old is renamed $new" "$tmp/old.err")
		grep -v "warning: $old is renamed $new" "$tmp/old.err" >"$tmp/old.rest"
		if [ "$warn" = 1 ]; then ok; else bad "$tool $old: $warn warning lines naming $new"; fi
		if [ "$rc_old" = "$rc_new" ] && cmp -s "$tmp/old.rest" "$tmp/new.err" && [ -s "$tmp/new.err" ]; then ok; else
			bad "$tool $old: exit $rc_old vs $rc_new, stderr [$(cat "$tmp/old.rest")] vs [$(cat "$tmp/new.err")]"
		fi
		grep -qE -- "^ +(-., )?$old( |\$)|^  $old," "$tmp/help" && bad "$tool --help still offers $old" || ok
		grep -qE -- "(^|[ \"|])$old( |\\||\"|\\))" "$tmp/compl" && bad "$tool --completion offers $old" || ok
	done < <(grep '^Renamed' "$tmp/help" | grep -oE -- ' (-[A-Za-z0-9]|--[a-z0-9-]+) is --[a-z0-9-]+' | sed 's/ is / /')
done
[ "$renamed" -ge 6 ] && ok || bad "only $renamed renamed spellings found in the tools' --help"

# -v: replay's per-call lines and dissect's counters, one release more
R=$O/bin/nfsrdma-replay D=$O/bin/nfsrdma-dissect
"$R" --dry-run -v tests/captures/nfs3-read-write.pcap >"$tmp/v.out" 2>"$tmp/v.err"
"$R" --dry-run --per-call tests/captures/nfs3-read-write.pcap >"$tmp/pc.out" 2>"$tmp/pc.err"
"$R" --dry-run -v --per-call tests/captures/nfs3-read-write.pcap >"$tmp/vpc.out" 2>"$tmp/vpc.err"
grep -q "warning: -v: its line per replayed call is --per-call now" "$tmp/v.err" && ok || bad "replay -v: no warning: $(cat "$tmp/v.err")"
# (a dry run prints its calls either way: the lab's replay-multi checks
# --per-call's lines of a real replay)
cmp -s "$tmp/v.out" "$tmp/pc.out" && [ -s "$tmp/v.out" ] && ok || bad "replay -v and --per-call print differently"
grep -q "warning" "$tmp/vpc.err" && bad "replay -v --per-call warns: $(cat "$tmp/vpc.err")" || ok
"$D" -q -v "$CAP" >/dev/null 2>"$tmp/dv.err"
"$D" -q --stats "$CAP" >/dev/null 2>"$tmp/ds.err"
"$D" -q -v --stats "$CAP" >/dev/null 2>"$tmp/dvs.err"
grep -q "warning: -v: the counters at the end are --stats now" "$tmp/dv.err" && ok || bad "dissect -v: no warning"
grep -v "warning: -v:" "$tmp/dv.err" | grep -v "^nfsrdma-dissect: info" >"$tmp/dv.rest"
[ -s "$tmp/ds.err" ] && cmp -s "$tmp/dv.rest" <(grep -v "^nfsrdma-dissect: info" "$tmp/ds.err") && ok ||
	bad "dissect -v's counters are not --stats's: [$(head -3 "$tmp/dv.rest")] vs [$(head -3 "$tmp/ds.err")]"
grep -q "warning" "$tmp/dvs.err" && bad "dissect -v --stats warns" || ok
echo "renamed-flags: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
