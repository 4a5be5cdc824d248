#!/usr/bin/env bash
# Runs every libFuzzer harness (build/fuzz/fuzz_*) for a bounded time each,
# under ASan/UBSan, starting from its committed corpus (tests/fuzz/corpus/),
# tests/badinput/ and tests/fuzz/seeds/.  The run's new inputs are thrown
# away (long campaigns, tests/fuzz/campaign.sh, grow the corpus), but what
# it finds is kept (as many harnesses at once as there are CPUs): a crash, leak or time-out input is copied to
# $O/fuzz/findings/NAME/ and printed (base64) so CI's log holds it.
#   tests/fuzz/run.sh [SECONDS_PER_HARNESS]
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
secs=${1:-20}
pass=0 fail=0

make --no-print-directory -s fuzz || { echo "fuzz: build failed"; echo "fuzz: 0 passed, 1 failed"; exit 1; }
# One harness: its lines into $out/NAME.txt, its verdict into NAME.rc.
fuzz_one() {
	local h=$1 out=$2 name=${1##*/} corpus log findings layer
	corpus=$(mktemp -d)
	# Seeds: the harness's committed corpus (grown by tests/fuzz/campaign.sh),
	# the bad-input corpus of that layer and its hand-made seeds.
	layer=${name#fuzz_}
	[ -d "tests/fuzz/corpus/$layer" ] && cp -r "tests/fuzz/corpus/$layer/." "$corpus/" 2>/dev/null
	[ -d "tests/badinput/$layer" ] && cp -r "tests/badinput/$layer/." "$corpus/" 2>/dev/null
	[ -d "tests/fuzz/seeds/$layer" ] && cp -r "tests/fuzz/seeds/$layer/." "$corpus/" 2>/dev/null
	log=$(mktemp)
	findings=$O/fuzz/findings/$name
	mkdir -p "$findings"
	{
		if "$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$findings/" "$corpus" >"$log" 2>&1; then
			echo "ok   $name: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)"
			echo 0 >"$out/$name.rc"
		else
			echo "FAIL $name: $(grep -m1 -E 'ERROR|SUMMARY' "$log")"
			cp "$log" "$findings/log"
			for f in "$findings"/*; do
				case "$f" in */log) continue ;; esac
				[ -f "$f" ] || continue
				echo "finding $f ($(stat -c %s "$f") bytes); base64:"
				head -c 4096 "$f" | base64 -w 76
			done
			tail -30 "$log"
			echo 1 >"$out/$name.rc"
		fi
	} >"$out/$name.txt"
	rm -rf "$corpus" "$log"
}

# The harnesses a CPU each at a time (each is one process), their lines
# printed in name order once all are done.
jobs_max=$(nproc 2>/dev/null || echo 1)
out=$(mktemp -d)
names=()
for h in "$O"/fuzz/fuzz_*; do
	[ -x "$h" ] || continue
	names+=("${h##*/}")
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n 2>/dev/null || true
	done
	fuzz_one "$h" "$out" &
done
wait
for name in "${names[@]}"; do
	cat "$out/$name.txt" 2>/dev/null
	if [ "$(cat "$out/$name.rc" 2>/dev/null)" = 0 ]; then
		pass=$((pass + 1))
	else
		[ -f "$out/$name.rc" ] || echo "FAIL $name: no verdict (the run died)"
		fail=$((fail + 1))
	fi
done
rm -rf "$out"
[ $((pass + fail)) -gt 0 ] || { echo "fuzz: no harness built"; fail=1; }
echo "fuzz: $pass passed, $fail failed"
[ $fail -eq 0 ]
