#!/usr/bin/env bash
# The join's rate on one core (target >= 1 M records/s): bench/join_speed.c
# against the built library, synthetic RPCs of three vantages on three
# clocks.  Usage: bench/join.sh [RPCS]   (default 1000000: 3 M records)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
case "$O" in /*) ;; *) O=$SRC/$O ;; esac
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
[ -r "$O/libnfsrdma.a" ] || { echo "join bench: $O/libnfsrdma.a not built (make O=$O)"; exit 1; }
cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$SRC" "$SRC/bench/join_speed.c" -o "$TMP/join_speed" "$O/libnfsrdma.a" \
	$(make -s --no-print-directory -C "$SRC" print-ldlibs) || { echo "join bench: cannot build the driver"; exit 1; }
# one core: pinned when taskset is there
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
for run in 1 2 3; do
	"${pin[@]}" "$TMP/join_speed" "${1:-1000000}"
done
