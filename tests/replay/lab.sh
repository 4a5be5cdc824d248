#!/usr/bin/env bash
# tests/replay/lab.sh [basic] [nfs40-locks] [deleg] [rebind] [multi]: the replay
# tool's lab tier (default: all, one boot after the other; 2 cores).
#  basic: tests/replay/scenarios/replay-basic (the endpoint against knfsd
#   over rxe: every call type and chunk kind, TCP, RDMA_ERROR, replays of
#   the catalogue on a fresh export each, read-only refusal, knfsd
#   restarted under load), judged by tests/replay/check-basic.py;
#  nfs40-locks: tests/replay/scenarios/replay-nfs40-locks (the NFSv4.0
#   lock capture: lock-owner seqids, DENIED, OPEN_DOWNGRADE,
#   RELEASE_LOCKOWNER, read-only refusal of LOCK), judged by
#   tests/replay/check-nfs40-locks.py;
#  deleg: tests/replay/scenarios/replay-deleg (the NFSv4.1 and 4.0
#   delegation captures: their OPEN CLAIM_DELEG_CUR_FH / CLAIM_DELEGATE_CUR
#   made plain OPENs, their READ under a delegation after CLOSE sent with
#   the anonymous stateid, their DELEGRETURNs not sent), judged by
#   tests/replay/check-deleg.py;
#  rebind: tests/replay/scenarios/replay-rebind (the 4.1 delegation
#   capture with --delegations --disconnect-after: the new connection
#   bound to the back channel with BIND_CONN_TO_SESSION, the server's
#   recall reaching the replay on it, RDMA and TCP), judged by
#   tests/replay/check-rebind.py;
#  multi: tests/replay/scenarios/replay-multi (multi-client.pcap, four
#   clients of v3, v4.1 and v4.2 with a cross-client dependency, and
#   mount-sequence.pcap, v4.1 then v4.2 then v3: every call with its traced
#   status, none unsupported, the dependency order on the wire; also in
#   four groups with --delegations, the delegations the target grants
#   beyond the trace given back), judged by
#   tests/replay/check-multi.py.
# Ends with 'replay: N passed, N failed'.  Needs root and the lab
# (tests/lab/README.md); O= picks the build dir (default build).
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
bin=$(cd "$O/bin" 2>/dev/null && pwd) || { echo "replay: no $O/bin (build first)"; echo "replay: 0 passed, 1 failed"; exit 1; }
for b in nfsrdma-replay nfsrdma-dissect; do
    [ -x "$bin/$b" ] || { echo "replay: $bin/$b missing"; echo "replay: 0 passed, 1 failed"; exit 1; }
done
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(basic nfs40-locks deleg rebind multi)
P=0 F=0
# run_suite SCENARIO CHECK [CHECK ARGS...]: one boot, then its checker.
run_suite() {
    local scen=$1 chk=$2 out line p f
    shift 2
    out=$(mktemp -d "${TMPDIR:-/tmp}/replay-lab.XXXXXX")
    if ! LAB_ARG_BIN=$bin tests/lab/run-scenario "tests/replay/scenarios/$scen" "$out"; then
        echo "replay: $scen: lab run failed; see $out/*.console"
        F=$((F + 1))
        return
    fi
    python3 "tests/replay/$chk" "$out" "$bin/nfsrdma-dissect" "$@" | tee "$out/check.txt"
    line=$(tail -n 1 "$out/check.txt")
    p=$(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1/p' <<<"$line")
    f=$(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\2/p' <<<"$line")
    [ -n "$p" ] || { p=0; f=1; }
    if [ "$f" = 0 ] && [ -z "${LAB_KEEP:-}" ]; then rm -rf "$out"; else echo "replay: $scen outputs kept in $out"; fi
    P=$((P + p)) F=$((F + f))
}
for s in "${suites[@]}"; do
    case $s in
    basic) run_suite replay-basic check-basic.py ;;
    nfs40-locks) run_suite replay-nfs40-locks check-nfs40-locks.py tests/captures/nfs40-locks.pcap ;;
    deleg) run_suite replay-deleg check-deleg.py tests/captures/nfs41-deleg.pcap tests/captures/nfs40-deleg.pcap ;;
    rebind) run_suite replay-rebind check-rebind.py ;;
    multi) run_suite replay-multi check-multi.py tests/captures/multi-client.pcap tests/captures/mount-sequence.pcap ;;
    *) echo "replay: no suite $s (basic, nfs40-locks, deleg, rebind, multi)"; F=$((F + 1)) ;;
    esac
done
echo "replay: $P passed, $F failed"
[ "$F" = 0 ]
