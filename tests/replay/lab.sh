#!/usr/bin/env bash
# tests/replay/lab.sh: the replay tool's lab tier.  One boot of
# tests/replay/scenarios/replay-basic (the endpoint against knfsd over rxe:
# every call type and chunk kind, TCP, RDMA_ERROR, replays of the NFSv3
# catalogue on a fresh export each, read-only refusal, knfsd restarted
# under load), then tests/replay/check-basic.py on its outputs and capture.
# Ends with 'replay: N passed, N failed'.  Needs root and the lab
# (tests/lab/README.md); O= picks the build dir (default build).
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
bin=$(cd "$O/bin" 2>/dev/null && pwd) || { echo "replay: no $O/bin (build first)"; echo "replay: 0 passed, 1 failed"; exit 1; }
for b in nfsrdma-replay nfsrdma-dissect; do
    [ -x "$bin/$b" ] || { echo "replay: $bin/$b missing"; echo "replay: 0 passed, 1 failed"; exit 1; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/replay-lab.XXXXXX")
if ! LAB_ARG_BIN=$bin tests/lab/run-scenario tests/replay/scenarios/replay-basic "$out"; then
    echo "replay: lab run failed; see $out/*.console"
    echo "replay: 0 passed, 1 failed"
    exit 1
fi
python3 tests/replay/check-basic.py "$out" "$bin/nfsrdma-dissect" | tee "$out/check.txt"
line=$(tail -n 1 "$out/check.txt")
p=$(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1/p' <<<"$line")
f=$(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\2/p' <<<"$line")
[ -n "$p" ] || { p=0; f=1; }
if [ "$f" = 0 ] && [ -z "${LAB_KEEP:-}" ]; then rm -rf "$out"; else echo "replay: outputs kept in $out"; fi
echo "replay: $p passed, $f failed"
[ "$f" = 0 ]
