#!/usr/bin/env bash
# tests/lab/smoke.sh — the lab tier of `make check`.
#
# Runs the `smoke` scenario (two real Debian kernels under qemu: 6.1, or
# LAB_KVERSION's; NFSv3 over soft-RoCE, one READ and one WRITE) into a temp dir and checks what it
# produced. One line per assertion, then exactly `lab: N passed, N failed`.
# Exits non-zero on any failure, including "the lab cannot run here" (CI
# must run every tier, so that is a failure, not a skip).
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PASSED=0 FAILED=0
OUT='' TOP=''

pass() { echo "PASS lab: $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL lab: $*"; FAILED=$((FAILED + 1)); }
check() { # check DESCRIPTION COMMAND...: run COMMAND, pass or fail.
    local what=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}
finish() {
    echo "lab: $PASSED passed, $FAILED failed"
    ((FAILED == 0))
    exit $?
}
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    [[ -n $TOP && ${LAB_KEEP:-0} != 1 ]] && rm -rf "$TOP"
    return 0
}
trap cleanup EXIT

# cannot_run REASON: the lab cannot run on this machine at all.
cannot_run() {
    echo "lab: cannot run the lab: $*"
    FAILED=$((FAILED + 1))
    finish
}

# count FILTER: frames of the capture matching a tshark display filter.
count() {
    tshark -r "$OUT/capture.pcap" -Y "$1" 2>/dev/null | wc -l
}

command -v qemu-system-x86_64 >/dev/null || cannot_run "qemu-system-x86_64 is not installed (scripts/deps.sh installs qemu-system-x86)"
command -v tshark >/dev/null || cannot_run "tshark is not installed (scripts/deps.sh installs it)"
[[ $(id -u) == 0 ]] || cannot_run "must run as root (the guests mount the host's / and the module cache)"

REPO=$(cd "$LAB_DIR/../.." && pwd)
# The build tree the guest runs project binaries from (O may be relative).
O=${O:-build}
[[ $O == /* ]] || O=$REPO/$O
export LAB_ARG_BIN=$O/bin
[[ -x $LAB_ARG_BIN/nfsrdma-dissect ]] || cannot_run "$LAB_ARG_BIN/nfsrdma-dissect is not built (run make)"

TOP=$(mktemp -d "${TMPDIR:-/tmp}/nfsrdma-smoke.XXXXXX")
OUT=$TOP
t0=$SECONDS
if log=$("$LAB_DIR/run-scenario" smoke "$OUT/run" 2>&1); then
    pass "smoke scenario ran ($((SECONDS - t0)) s)"
else
    fail "smoke scenario: $(tail -n1 <<< "$log")"
    [[ ${LAB_KEEP:-0} == 1 ]] && echo "lab: output kept in $OUT/run"
fi
OUT=$OUT/run

# Each guest ran the kernel series asked for (its own uname in its trace).
want=${LAB_KVERSION:-6.1}
for role in server client; do
    got=$(sed -n '1s/.* kernel=\([^ ]*\) .*/\1/p' "$OUT/$role.trace" 2>/dev/null)
    case $got in
        "$want".[0-9]*) pass "$role guest ran Debian's $want kernel ($got)" ;;
        *) fail "$role guest ran '$got', not Debian's $want kernel" ;;
    esac
done
check "mount was proto=rdma" grep -qE ' nfs .*proto=rdma' "$OUT/client.mounts"
check "capture.pcap is non-empty" test -s "$OUT/capture.pcap"
if [[ -s $OUT/capture.pcap ]]; then
    n=$(count 'udp.dstport == 4791')
    if ((n > 0)); then pass "capture holds RoCEv2 frames (UDP 4791: $n)"; else fail "capture holds no RoCEv2 frames (UDP 4791)"; fi
else
    fail "capture holds RoCEv2 frames (no capture)"
fi
check "client.trace is non-empty" test -s "$OUT/client.trace"
check "server.trace is non-empty" test -s "$OUT/server.trace"
check "client.trace has rpc_stats_latency for nfsv3 READ" grep -qE 'rpc_stats_latency: .* nfsv3 READ ' "$OUT/client.trace"
check "client.trace has rpc_stats_latency for nfsv3 WRITE" grep -qE 'rpc_stats_latency: .* nfsv3 WRITE ' "$OUT/client.trace"
check "server.trace has svc_process events" grep -q 'svc_process:' "$OUT/server.trace"
check "client trace lost nothing (overrun: 0)" grep -qx 'overrun: 0' "$OUT/client.trace-stats"
check "server trace lost nothing (overrun: 0)" grep -qx 'overrun: 0' "$OUT/server.trace-stats"
check "client.mountstats is non-empty and shows the rdma transport" grep -q 'xprt:[[:space:]]*rdma' "$OUT/client.mountstats"
check "commands.txt records the mount" grep -q 'mount -t nfs' "$OUT/commands.txt"
check "a project binary ran in the guest and its output came back" grep -q 'NFSv3 READ' "$OUT/guest-dissect.txt"
finish
