#!/usr/bin/env bash
# The suite's mutation score: applies each mutation of tests/mutations.txt
# alone to a scratch copy of the tree, builds it, and runs the unit test
# binaries, the golden tier, tests/gen/check.sh and the unit scripts,
# stopping at the first failure; a mutation no test fails "survived".
# Not part of make check.
#   tests/mutate.sh [ID...]      (default: every mutation)
#
# The build it scores: the sanitizer build (SANITIZE=1, ASan + UBSan, as
# the sanitizer stage of CI builds it), so a mutant that reads one past an
# array's end is killed by the read itself: a defect CI would catch.
# SANITIZE=0 scores the plain build instead (weaker: say so when quoting).
# UNIT_SCRIPTS="a.sh b.sh" runs only those of tests/unit/*.sh (a quicker,
# weaker score: say so too).
#
# Kept short on a shared 2-core machine:
#  - the scratch copy ($WORK/tree) is made once and then only the tracked
#    files that differ are copied again, so a second run rebuilds nothing;
#  - a mutant rebuilds the objects its file reaches, then relinks only the
#    programs that hold one of them (found from their symbols);
#  - the revert is exact: the file comes back with its old time and every
#    build file the mutant touched comes back from a copy of the unmutated
#    build ($WORK/pristine), checked by `make -q` (nothing to redo);
#  - the killers run first: the test that killed this mutation last time
#    ($WORK/killers.txt), the relinked unit binaries named after the file,
#    then every test by its unmutated run time, cheapest first, and the
#    binaries the mutant did not relink last.  A kill needs one failing
#    test; a survivor has passed every one.
#
# tests/mutations.txt: one mutation a line, tab-separated:
#   ID  FILE  FROM  TO  [why it is there / why a survivor is equivalent]
# FROM must occur exactly once in FILE (so the list stays true as the code
# moves: a FROM no longer found is reported, never skipped).
# Prints one line per mutation (killed by WHICH / survived / stale) and
# "mutate: K killed of N (S %)"; results also in $OUT (default
# build-mutate/results.txt), the failing test's output in $WORK/logs/ID.log.
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
LIST=${LIST:-tests/mutations.txt}
WORK=${WORK:-$SRC/build-mutate}
OUT=${OUT:-$WORK/results.txt}
SANITIZE=${SANITIZE:-1}
if [ "$SANITIZE" = 1 ]; then O=build-san; else O=build; SANITIZE=0; fi
want=("$@")
mkdir -p "$WORK/logs"
tree=$WORK/tree
pristine=$WORK/pristine
KILLERS=$WORK/killers.txt
touch "$KILLERS"

# The scratch copy: the tracked files as they are in the working tree; a
# file copied again gets a new time, so make rebuilds what it reaches.
mkdir -p "$tree"
git ls-files -z | python3 -c '
import os, shutil, sys
tree = sys.argv[1]
want = set(f for f in sys.stdin.read().split("\0") if f)
# neither the unmutated build nor its tests read these two
quiet = {"tests/mutate.sh", "tests/mutations.txt"}
copied = []
for f in want:
    d = os.path.join(tree, f)
    if os.path.isfile(d) and open(f, "rb").read() == open(d, "rb").read():
        continue
    if f not in quiet:
        copied.append(f)
    os.makedirs(os.path.dirname(d) or ".", exist_ok=True)
    if os.path.lexists(d):
        os.remove(d)
    shutil.copy(f, d)
# a file no longer tracked would still be found by the Makefile wildcards
for root, dirs, files in os.walk(tree):
    rel = os.path.relpath(root, tree)
    if rel == "." :
        dirs[:] = [x for x in dirs if not x.startswith("build")]
    dirs[:] = [x for x in dirs if x != "__pycache__"]
    for x in files:
        r = os.path.normpath(os.path.join(rel, x))
        if r not in want:
            copied.append(r)
            os.remove(os.path.join(root, x))
# one a line, nothing at all when none: an empty list keeps the baseline
sys.stdout.write("".join(c + "\n" for c in copied))
' "$tree" >"$WORK/copied" || exit 2
# The unmutated tree passed before and no file changed since: not run
# again.  A run stopped in the middle of a mutation left its file
# mutated: copied back here, and rebuilt below, it is not a change.
[ -s "$WORK/mutating" ] && grep -vxF -f "$WORK/mutating" "$WORK/copied" >"$WORK/copied.new"; mv -f "$WORK/copied.new" "$WORK/copied" 2>/dev/null
rm -f "$WORK/mutating"
[ ! -s "$WORK/copied" ] && [ -d "$pristine" ] || rm -f "$WORK/baseline.ok"
ln -sfn "$(cd "$SRC/.." && pwd)/shared" "$WORK/shared" 2>/dev/null
cd "$tree" || exit 2
export NFSRDMA_SRCDIR=$tree O SANITIZE
MK=(make -s -j2 --no-print-directory O="$O" SANITIZE="$SANITIZE")
LIBS=("$O/libnfsrdma.a" "$O/libnfsrdma-dissect.a")
"${MK[@]}" all >/dev/null 2>"$WORK/build.log" || { echo "mutate: the unmutated tree does not build"; cat "$WORK/build.log"; exit 2; }

programs() { find "$O/bin" "$O/tests" "$O/bench" -type f -perm -u+x 2>/dev/null | sort; }

# Which program holds which library object: an object is linked in when
# one of the global symbols it defines is defined in the program.
map_objects() {
	local o b
	for o in $(find "$O/obj/dissect" "$O/obj/pcap" "$O/obj/src" -name '*.o'); do
		nm -g --defined-only "$o" 2>/dev/null | awk -v o="$o" 'NF == 3 { print $3 "\t" o }'
	done | sort -k1,1 >"$WORK/obj.syms"
	for b in $(programs); do
		nm --defined-only "$b" 2>/dev/null | awk -v b="$b" 'NF == 3 { print $3 "\t" b }'
	done | sort -k1,1 >"$WORK/prog.syms"
	join -t $'\t' "$WORK/obj.syms" "$WORK/prog.syms" | cut -f2,3 | sort -u >"$WORK/obj.map"
}

# Every test of the score, one a line: "bin PATH", "golden", "gen", "script PATH".
all_tests() {
	local t scripts=(tests/unit/*.sh)
	[ -n "${UNIT_SCRIPTS:-}" ] && read -ra scripts <<<"$(printf 'tests/unit/%s ' $UNIT_SCRIPTS)"
	for t in "$O"/tests/test_*; do [ -x "$t" ] && echo "bin $t"; done
	echo golden
	echo gen
	for t in "${scripts[@]}"; do echo "script $t"; done
}

# Runs one test; its output goes to $2.  Time-outs are generous (ten times
# the unmutated run, at least a minute): they only catch a mutant's hang.
# A program the mutant made stale is linked only now, when a test needs
# it: a mutant killed by its first test links little.
run_test() {
	local t=$1 log=$2 lim
	case "$t" in
	bin\ *)
		if [ ! -e "${t#bin }" ] && ! "${MK[@]}" $(printf -- '-o %s ' "${LIBS[@]}") "${t#bin }" >"$log" 2>&1; then
			echo "mutate: could not link ${t#bin }" >>"$log"; return 1
		fi ;;
	*)
		# the tools; the corpus drivers and `make install` want them all
		local what=bins
		case "$t" in *fuzz_corpora.sh|*install.sh) what=all ;; esac
		if [[ " ${linked:-} " != *" $what "* && " ${linked:-} " != *" all "* ]]; then
			"${MK[@]}" $(printf -- '-o %s ' "${LIBS[@]}") $what >"$log" 2>&1 ||
				{ echo "mutate: could not link the programs ($what)" >>"$log"; return 1; }
			# `make install` has no -o: the programs holding no
			# rebuilt object are older than the rebuilt library, and
			# relinking them all inside its time-out (a minute)
			# "killed" mutants that broke nothing; they are current
			# (the mutant is in none of them), so their times say so
			[ "$what" = all ] && "${MK[@]}" -t all >/dev/null 2>&1
			linked="${linked:-} $what"
		fi ;;
	esac
	# a test the last baseline did not time (new since) gets its kind's
	# default below, not the one-minute floor (mixin.sh takes 80 s)
	lim=$(awk -v t="$t" -F'\t' '$1 == t { s = $2; f = 1 } END { if (f) { s = s * 10; print (s < 60 ? 60 : s) } }' "$WORK/times.txt" 2>/dev/null)
	case "$t" in   # stdin from /dev/null: the callers read lists on theirs
	bin\ *) timeout "${lim:-300}" "${t#bin }" >"$log" 2>&1 ;;
	golden) timeout "${lim:-900}" tests/golden/run.sh >"$log" 2>&1 ;;
	gen) timeout "${lim:-900}" tests/gen/check.sh >"$log" 2>&1 ;;
	script\ *) timeout "${lim:-600}" "${t#script }" >"$log" 2>&1 ;;
	esac </dev/null
}

name_of() { local t=${1#bin }; t=${t#script }; echo "${t##*/}"; }

# The unmutated tree must pass everything; its run times order the tests.
linked=all
if [ -e "$WORK/baseline.ok" ]; then
	echo "mutate: the unmutated tree is the one that passed every test before (build $O)"
	# its build as it is now, file times included, for the reverts
	map_objects
	rm -rf "$pristine"; cp -a "$O" "$pristine"
else
all_tests >"$WORK/tests.txt"
: >"$WORK/times.new"
while IFS= read -r t; do
	s=$(date +%s%N)
	if ! run_test "$t" "$WORK/logs/unmutated.log"; then
		echo "mutate: the unmutated tree already fails $(name_of "$t") (build $O):"
		tail -20 "$WORK/logs/unmutated.log"; exit 2
	fi
	printf '%s\t%s\n' "$t" "$(( ($(date +%s%N) - s) / 1000000000 + 1 ))" >>"$WORK/times.new"
done <"$WORK/tests.txt"
mv "$WORK/times.new" "$WORK/times.txt"
map_objects
rm -rf "$pristine"; cp -a "$O" "$pristine"
touch "$WORK/baseline.ok"
fi

# The tests in the order to try for a mutant of $1 whose relinked programs
# are in $WORK/relinked: its last killer, the relinked binaries named after
# the file, every other test by run time, the untouched binaries last.
ordered_tests() {
	local id=$1 file=$2 stem prev
	stem=$(basename "${file%.*}")
	prev=$(awk -F'\t' -v id="$id" '$1 == id { k = $2 } END { print k }' "$KILLERS")
	{
		[ -n "$prev" ] && grep -Fx -- "$prev" "$WORK/tests.txt"
		grep '^bin ' "$WORK/tests.txt" | while IFS= read -r t; do
			grep -qFx -- "${t#bin }" "$WORK/relinked" && [[ ${t##*/} == *"$stem"* ]] && echo "$t"
		done
		while IFS= read -r t; do
			case "$t" in bin\ *) grep -qFx -- "${t#bin }" "$WORK/relinked" || continue ;; esac
			printf '%s\t%s\n' "$(awk -F'\t' -v t="$t" '$1 == t { print $2 }' "$WORK/times.txt")" "$t"
		done <"$WORK/tests.txt" | sort -n -s -k1,1 | cut -f2-
		grep '^bin ' "$WORK/tests.txt" | while IFS= read -r t; do
			grep -qFx -- "${t#bin }" "$WORK/relinked" || echo "$t"
		done
	} | awk '!seen[$0]++'
}

# the first test that fails (its output in $WORK/logs/$1.log), or nothing
first_failure() {
	local t
	while IFS= read -r t; do
		if ! run_test "$t" "$WORK/logs/$1.log" </dev/null; then
			echo "$t"; return
		fi
	done < <(ordered_tests "$1" "$2")
	rm -f "$WORK/logs/$1.log"
}

# Puts the tree back exactly: the file with its old time, every build file
# the mutant made or changed as the unmutated build had it.
revert() {
	local file=$1 f
	cp -p "$WORK/orig" "$file"
	find "$O" -newer "$WORK/stamp" -type f | while IFS= read -r f; do
		if [ -e "$pristine/${f#"$O"/}" ]; then cp -p "$pristine/${f#"$O"/}" "$f"; else rm -f "$f"; fi
	done
	find "$pristine" -type f | while IFS= read -r f; do
		[ -e "$O/${f#"$pristine"/}" ] || cp -p "$f" "$O/${f#"$pristine"/}"
	done
	if ! "${MK[@]}" -q all 2>/dev/null; then
		# should not happen; what make wanted goes to $WORK/revert.log,
		# and the copy is taken again so the next reverts stay exact
		echo "mutate: the revert of $file left work for make (see $WORK/revert.log); rebuilding" >&2
		{ echo "== $file"; "${MK[@]}" -n all 2>&1 | grep -oE ' -o [^ ]+' | head -20; } >>"$WORK/revert.log"
		"${MK[@]}" all >/dev/null 2>&1
		rm -rf "$pristine"; cp -a "$O" "$pristine"
		return 1
	fi
}

: >"$OUT"
n=0 killed=0 t0=$SECONDS
while IFS=$'\t' read -r id file from to why; do
	case "$id" in ''|'#'*) continue ;; esac
	if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qx -- "$id"; then continue; fi
	n=$((n + 1)) s=$SECONDS
	cnt=$(grep -cF -- "$from" "$file" 2>/dev/null)
	if [ "${cnt:-0}" != 1 ]; then
		echo "$id stale: '$from' occurs ${cnt:-0} times in $file (must be once)" | tee -a "$OUT"
		continue
	fi
	cp -p "$file" "$WORK/orig"
	echo "$file" >"$WORK/mutating"   # until the revert is done
	sleep 0.01; touch "$WORK/stamp"; sleep 0.01
	python3 - "$file" "$from" "$to" <<'PY'
import sys
p, a, b = sys.argv[1:]
s = open(p).read()
open(p, "w").write(s.replace(a, b, 1))
PY
	: >"$WORK/relinked"
	if ! "${MK[@]}" lib >/dev/null 2>"$WORK/build.log"; then
		res="killed by the build"
		killed=$((killed + 1))
	else
		# the programs the mutant makes stale: those holding a rebuilt
		# object, and those whose own source includes the mutated file;
		# removed here, linked when a test needs them (run_test)
		{
			find "$O/obj" -name '*.o' -newer "$WORK/stamp" | while IFS= read -r o; do
				awk -F'\t' -v o="$o" '$1 == o { print $2 }' "$WORK/obj.map"
			done
			grep -lF -- "$file" $(find "$O/obj/cli" "$O/obj/tests" "$O/obj/bench" -name '*.d' 2>/dev/null) 2>/dev/null |
				sed -E "s#^$O/obj/cli/(.*)\.d\$#$O/bin/\1#; s#^$O/obj/(tests|bench)/(.*)\.d\$#$O/\1/\2#"
		} | sort -u >"$WORK/relinked"
		xargs -r rm -f <"$WORK/relinked"
		linked=
		{
			f=$(first_failure "$id" "$file")
			if [ -n "$f" ]; then
				res="killed by $(name_of "$f")"
				grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$WORK/logs/$id.log" && res="$res (sanitizer)"
				killed=$((killed + 1))
				awk -F'\t' -v id="$id" '$1 != id' "$KILLERS" >"$KILLERS.new"
				printf '%s\t%s\n' "$id" "$f" >>"$KILLERS.new"; mv "$KILLERS.new" "$KILLERS"
			else
				res="SURVIVED"
			fi
		}
	fi
	revert "$file" && rm -f "$WORK/mutating"
	echo "$id $res, $(wc -l <"$WORK/relinked") relinked, $((SECONDS - s)) s ($file: '$from' -> '$to')" | tee -a "$OUT"
done <"$SRC/$LIST"
[ $n -gt 0 ] || { echo "mutate: no mutation selected"; exit 2; }
echo "mutate: $killed killed of $n ($((100 * killed / n)) %), build $O, $((SECONDS - t0)) s" | tee -a "$OUT"
