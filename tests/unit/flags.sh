#!/usr/bin/env bash
# One meaning of -v and -V across the tools (their man pages, OPTIONS):
#   - --version prints "TOOL VERSION" on stdout and exits 0 in every tool,
#     and so does -V, but in nfsrdma-dissect, where -V is the decode tree
#     (tshark's -V, which the goldens use) and --help says so;
#   - -v is --verbose wherever a tool has it, and no tool gives --verbose
#     another letter;
#   - nfsrdma-dissect: -V = --tree (one decode, the same bytes), and -v
#     leaves stdout as it was and, until the next release, puts on stderr
#     what --stats puts there after one warning saying so (issue 28: -v
#     logs more in every tool); --compare refuses -v by its name.
# Closing line: "flags: N passed, N failed".
set -uo pipefail
cd "${NFSRDMA_SRCDIR:-$(dirname "$0")/../..}"
B=${O:-build}/bin
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL flags: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cap=tests/captures/nfs3-symlink.pcap
ver=$(sed -nE 's/^#define NFSRDMA_VERSION "(.*)"/\1/p' src/base/version.h)
[ -n "$ver" ] || bad "no NFSRDMA_VERSION in src/base/version.h"

ntools=0
for bin in "$B"/*; do
	[ -x "$bin" ] || continue
	ntools=$((ntools + 1))
	tool=${bin##*/}
	"$bin" --version >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
	if [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$tool $ver" ] && [ ! -s "$tmp/err" ]; then ok; else
		bad "$tool --version: exit $rc, stdout '$(head -c 80 "$tmp/out")', stderr '$(head -c 80 "$tmp/err")'"
	fi
	"$bin" --help >"$tmp/help" 2>&1
	vline=$(grep -E '^  -V, ' "$tmp/help")
	if [ "$tool" = nfsrdma-dissect ]; then
		# -V is the tree, and its help says where the version is
		if grep -qE -- '--tree .*--version alone' <<<"$vline" && grep -qE '^       --version ' "$tmp/help"; then ok; else
			bad "$tool --help: -V is not '--tree ... --version alone' ($vline)"
		fi
	else
		"$bin" -V >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
		if [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$tool $ver" ] && [ ! -s "$tmp/err" ]; then ok; else
			bad "$tool -V: exit $rc, stdout '$(head -c 80 "$tmp/out")', stderr '$(head -c 80 "$tmp/err")'"
		fi
		if grep -qE -- '^  -V, --version ' "$tmp/help"; then ok; else bad "$tool --help: no '-V, --version' line"; fi
	fi
	# --verbose, where a tool has it, is -v
	if vb=$(grep -E -- ' --verbose ' "$tmp/help"); then
		if grep -qE -- '^  -v, --verbose ' <<<"$vb"; then ok; else bad "$tool --help: --verbose is not -v ($vb)"; fi
	fi
done
[ $ntools -ge 4 ] && ok || bad "$ntools tools in $B (run make)"

D=$B/nfsrdma-dissect
"$D" -V "$cap" >"$tmp/V" 2>/dev/null
"$D" --tree "$cap" >"$tmp/tree" 2>/dev/null
"$D" "$cap" >"$tmp/line" 2>/dev/null
if [ -s "$tmp/V" ] && cmp -s "$tmp/V" "$tmp/tree" && [ "$(wc -l <"$tmp/V")" -gt "$(wc -l <"$tmp/line")" ]; then ok; else
	bad "nfsrdma-dissect: -V and --tree differ, or print no more than the lines ($(wc -l <"$tmp/V") vs $(wc -l <"$tmp/line"))"
fi
"$D" -v "$cap" >"$tmp/v.out" 2>"$tmp/v.err"; rc=$?
"$D" --stats "$cap" >/dev/null 2>"$tmp/stats.err"
if [ $rc -eq 0 ] && cmp -s "$tmp/v.out" "$tmp/line"; then ok; else bad "nfsrdma-dissect -v: stdout not the plain run's (exit $rc)"; fi
grep -v '^nfsrdma-dissect: warning: -v: the counters at the end are --stats now' "$tmp/v.err" >"$tmp/v.rest"
if [ -s "$tmp/v.rest" ] && cmp -s "$tmp/v.rest" "$tmp/stats.err" && [ "$(wc -l <"$tmp/v.err")" -eq $(($(wc -l <"$tmp/v.rest") + 1)) ]; then ok; else
	bad "nfsrdma-dissect -v: stderr is not one warning and --stats' counters ($(head -c 120 "$tmp/v.err"))"
fi
"$D" --compare -v "$cap" "$cap" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q -- '--compare and -v cannot be combined' "$tmp/err"; then ok; else
	bad "nfsrdma-dissect --compare -v: exit $rc, stderr '$(head -c 120 "$tmp/err")'"
fi

echo "flags: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
