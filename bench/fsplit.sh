#!/usr/bin/env bash
# The fused split's rate on one core: bench/fsplit_speed.c against the
# built library (what nfsrdmad adds per joined record for nfsrdma-top's
# fused view).  Usage: bench/fsplit.sh [RECORDS]   (default 3000000)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
case "$O" in /*) ;; *) O=$SRC/$O ;; esac
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
[ -r "$O/libnfsrdma.a" ] || { echo "fsplit bench: $O/libnfsrdma.a not built (make O=$O)"; exit 1; }
cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$SRC" "$SRC/bench/fsplit_speed.c" -o "$TMP/fsplit_speed" "$O/libnfsrdma.a" \
	$(make -s --no-print-directory -C "$SRC" print-ldlibs) || { echo "fsplit bench: cannot build the driver"; exit 1; }
pin=(); command -v taskset >/dev/null && pin=(taskset -c 0)
for run in 1 2 3; do
	"${pin[@]}" "$TMP/fsplit_speed" "${1:-3000000}"
done
