#!/usr/bin/env bash
# Grows a harness's committed corpus (tests/fuzz/corpus/NAME/) with a long
# libFuzzer campaign, then minimizes it with -merge=1 so only inputs that add
# coverage are kept:
#   tests/fuzz/campaign.sh NAME [MINUTES] [MAX_FILES]   (default 30, 2000)
# Prints one line: executions, edges before (the committed corpus plus the
# seeds) and after, new files, and any finding (a crash input is kept in
# $O/fuzz/findings/NAME/ and the script exits 1).  Run under `nice` in the
# background; it never touches other harnesses' corpora.
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
name=${1:?usage: $0 NAME [MINUTES] [MAX_FILES]}
mins=${2:-30}
max_files=${3:-2000}
h=$O/fuzz/fuzz_$name
[ -x "$h" ] || { echo "campaign $name: $h not built (make fuzz)"; exit 2; }
layer=$name
dst=tests/fuzz/corpus/$name
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/merged" "$O/fuzz/findings/$name" "$dst"
cp -r "$dst/." "$work/in/" 2>/dev/null
[ -d "tests/badinput/$layer" ] && cp -r "tests/badinput/$layer/." "$work/in/" 2>/dev/null
[ -d "tests/fuzz/seeds/$layer" ] && cp -r "tests/fuzz/seeds/$layer/." "$work/in/" 2>/dev/null
edges() {   # corpus dir -> the coverage libFuzzer reports after reading it
	"$h" -runs=0 -rss_limit_mb=2048 "$1" 2>&1 | grep -Eo 'INITED cov: [0-9]+' | grep -Eo '[0-9]+$' | tail -1
}
before=$(edges "$work/in")
"$h" -max_total_time=$((mins * 60)) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$O/fuzz/findings/$name/" "$work/in" >"$work/log" 2>&1
rc=$?
execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$work/log" | grep -Eo '[0-9]+$')
finding=none
if [ $rc -ne 0 ]; then
	finding=$(grep -m1 -E 'ERROR: |SUMMARY: ' "$work/log")
	cp "$work/log" "$O/fuzz/findings/$name/log"
fi
# keep only what adds coverage, then bound the size: the smallest files first
"$h" -merge=1 -rss_limit_mb=2048 "$work/merged" "$work/in" >"$work/merge.log" 2>&1
n=$(find "$work/merged" -type f | wc -l)
if [ "$n" -gt "$max_files" ]; then
	find "$work/merged" -type f -printf '%s %p\n' | sort -n | tail -n +$((max_files + 1)) | cut -d' ' -f2- | xargs rm -f
fi
old=$(find "$dst" -type f | wc -l)
rm -rf "$dst" && mkdir -p "$dst" && cp "$work/merged/"* "$dst/" 2>/dev/null
after=$(edges "$dst")
echo "campaign $name: ${mins} min, ${execs:-?} executions, edges ${before:-?} -> ${after:-?}, corpus $old -> $(find "$dst" -type f | wc -l) files ($(du -sk "$dst" | cut -f1) KiB), finding: $finding"
[ $rc -eq 0 ]
