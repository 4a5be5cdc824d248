#!/usr/bin/env bash
# Observations per CPU second of the clock estimator, next to the bare
# minimum-delay filter on the same observations, and answers per second.
# Numbers in bench/README.md.   bench/clock_sync.sh
set -euo pipefail
cd "$(dirname "$0")/.."
O=${O:-build}
make --no-print-directory -s O="$O" lib
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -g -std=gnu11 -D_GNU_SOURCE -I. bench/clock_sync_speed.c -o "$tmp/clock_sync_speed" \
	"$O/libnfsrdma.a" -lm
"$tmp/clock_sync_speed"
