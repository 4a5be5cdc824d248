#!/usr/bin/env bash
# `make bench`: runs every side-by-side benchmark (bench/*.sh but this one),
# or the ones named: bench/run.sh dissect xdp.  Each prints its own ratios
# against a peer measured in the same run; nothing here is pass/fail on time.
set -uo pipefail
cd "$(dirname "$0")/.."
export O=${O:-build}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in bench/*.sh; do
		n=${f##*/}; n=${n%.sh}
		[ "$n" = run ] || names+=("$n")
	done
fi
rc=0
for n in "${names[@]}"; do
	[ -x "bench/$n.sh" ] || { echo "bench: no bench/$n.sh"; rc=1; continue; }
	echo "=== bench $n ==="
	"bench/$n.sh" || { echo "bench $n: failed (exit $?)"; rc=1; }
done
exit $rc
