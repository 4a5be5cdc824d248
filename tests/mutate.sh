#!/usr/bin/env bash
# The suite's mutation score: applies each mutation of tests/mutations.txt
# alone to a scratch copy of the tree, builds it, and runs the unit test
# binaries, then the golden tier, then the unit scripts, stopping at the
# first failure; a mutation no test fails "survived".  Not part of make
# check (each mutation rebuilds and re-runs the tiers).
#   tests/mutate.sh [ID...]      (default: every mutation)
# UNIT_SCRIPTS="a.sh b.sh" runs only those of tests/unit/*.sh (a quicker,
# weaker score: say so when quoting it).
# tests/mutations.txt: one mutation a line, tab-separated:
#   ID  FILE  FROM  TO  [why it is there / why a survivor is equivalent]
# FROM must occur exactly once in FILE (so the list stays true as the code
# moves: a FROM no longer found is reported, never skipped).
# Prints one line per mutation (killed by WHICH / survived / stale) and
# "mutate: K killed of N (S %)"; results also in $OUT (default
# build-mutate/results.txt).
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
LIST=${LIST:-tests/mutations.txt}
WORK=${WORK:-$SRC/build-mutate}
OUT=${OUT:-$WORK/results.txt}
want=("$@")
mkdir -p "$WORK"
tree=$WORK/tree
# the scratch copy: the tracked files as they are in the working tree
rm -rf "$tree"; mkdir -p "$tree"
git ls-files -z | (cd "$SRC" && xargs -0 cp --parents -t "$tree")
ln -sfn "$(cd "$SRC/.." && pwd)/shared" "$WORK/shared" 2>/dev/null
cd "$tree" || exit 2
export NFSRDMA_SRCDIR=$tree O=build
make -s -j2 all >/dev/null 2>"$WORK/build.log" || { echo "mutate: the unmutated tree does not build"; cat "$WORK/build.log"; exit 2; }

# the first test that fails, or nothing when all pass
first_failure() {
	local t
	for t in build/tests/test_*; do
		[ -x "$t" ] || continue
		timeout 300 "$t" >/dev/null 2>&1 || { echo "${t##*/}"; return; }
	done
	timeout 900 tests/golden/run.sh >/dev/null 2>&1 || { echo golden; return; }
	timeout 900 tests/gen/check.sh >/dev/null 2>&1 || { echo gen; return; }
	local scripts=(tests/unit/*.sh)
	[ -n "${UNIT_SCRIPTS:-}" ] && read -ra scripts <<<"$(printf 'tests/unit/%s ' $UNIT_SCRIPTS)"
	for t in "${scripts[@]}"; do
		timeout 600 "$t" >/dev/null 2>&1 || { echo "${t##*/}"; return; }
	done
}
base=$(first_failure)
[ -z "$base" ] || { echo "mutate: the unmutated tree already fails $base"; exit 2; }

: >"$OUT"
n=0 killed=0
while IFS=$'\t' read -r id file from to why; do
	case "$id" in ''|'#'*) continue ;; esac
	if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qx -- "$id"; then continue; fi
	n=$((n + 1))
	cnt=$(grep -cF -- "$from" "$file" 2>/dev/null)
	if [ "${cnt:-0}" != 1 ]; then
		echo "$id stale: '$from' occurs ${cnt:-0} times in $file (must be once)" | tee -a "$OUT"
		continue
	fi
	cp "$file" "$WORK/orig"
	python3 - "$file" "$from" "$to" <<'PY'
import sys
p, a, b = sys.argv[1:]
s = open(p).read()
open(p, "w").write(s.replace(a, b, 1))
PY
	if ! make -s -j2 all >/dev/null 2>"$WORK/build.log"; then
		res="killed by the build"
		killed=$((killed + 1))
	else
		f=$(first_failure)
		if [ -n "$f" ]; then res="killed by $f"; killed=$((killed + 1)); else res="SURVIVED"; fi
	fi
	cp "$WORK/orig" "$file"
	touch "$file"
	echo "$id $res ($file: '$from' -> '$to')" | tee -a "$OUT"
done <"$SRC/$LIST"
make -s -j2 all >/dev/null 2>&1
[ $n -gt 0 ] || { echo "mutate: no mutation selected"; exit 2; }
echo "mutate: $killed killed of $n ($((100 * killed / n)) %)" | tee -a "$OUT"
