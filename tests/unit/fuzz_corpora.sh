#!/usr/bin/env bash
# Every libFuzzer harness's committed corpus (tests/fuzz/corpus/NAME), its
# layer's bad-input corpus and its seeds, replayed through the harness with
# a plain driver ($O/tests/corpus/fuzz_NAME, tests/fuzz/corpus_main.c): no
# libFuzzer needed, and in the sanitizer build (make check SANITIZE=1) each
# input runs under ASan/UBSan.  A harness without a committed corpus fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
pass=0 fail=0
found=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	layer=${name#fuzz_}
	bin=$O/tests/corpus/$name
	found=$((found + 1))
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz-corpora: $bin not built (make tests)"; fail=$((fail + 1)); continue
	fi
	if [ -z "$(ls -A "tests/fuzz/corpus/$layer" 2>/dev/null)" ]; then
		echo "FAIL fuzz-corpora: $name has no committed corpus (tests/fuzz/campaign.sh $layer grows one)"
		fail=$((fail + 1)); continue
	fi
	dirs=(tests/fuzz/corpus/"$layer")
	for d in tests/badinput/"$layer" tests/fuzz/seeds/"$layer"; do
		[ -d "$d" ] && dirs+=("$d")
	done
	if out=$("$bin" "${dirs[@]}" 2>&1 | tail -5; exit "${PIPESTATUS[0]}"); then
		echo "ok   ${out##*fuzz-corpus }"
		pass=$((pass + 1))
	else
		echo "FAIL fuzz-corpora: $name: $out"
		fail=$((fail + 1))
	fi
done
[ $found -gt 0 ] || { echo "FAIL fuzz-corpora: no harness in tests/fuzz"; fail=1; }
echo "fuzz-corpora: $pass passed, $fail failed"
[ $fail -eq 0 ]
