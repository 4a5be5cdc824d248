#!/usr/bin/env bash
# tests/lab/check-tshark.sh — golden-tier check of the committed captures.
#
# For every tests/captures/NAME.pcap: Wireshark's own dissector must find
# what the scenario put on the wire — RPC-over-RDMA frames for every NFS
# over RDMA capture, RPC for nfs3-tcp, RoCE/InfiniBand frames for perftest —
# and NAME.truth/ must hold non-empty ground-truth files. Needs tshark only
# (no qemu). One line per assertion, then `tshark-captures: N passed, N failed`.
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CAPTURES=${1:-$(cd "$LAB_DIR/../captures" 2>/dev/null && pwd || echo "$LAB_DIR/../captures")}
PASSED=0 FAILED=0
# Ground-truth files every capture must have, non-empty.
TRUTH_FILES=(client.trace server.trace client.trace-stats server.trace-stats
    client.mountstats commands.txt uname lab.conf)

pass() { echo "PASS tshark-captures: $*"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL tshark-captures: $*"; FAILED=$((FAILED + 1)); }
finish() {
    echo "tshark-captures: $PASSED passed, $FAILED failed"
    ((FAILED == 0))
    exit $?
}

if ! command -v tshark >/dev/null; then
    fail "tshark is not installed (scripts/deps.sh installs it)"
    finish
fi

# Wireshark calls the RPC-over-RDMA protocol "rpcordma" (4.0); accept a
# future "rpcrdma" too.
RPCRDMA=rpcordma
tshark -G protocols 2>/dev/null | awk -F'\t' '$3 == "rpcrdma" { f = 1 } END { exit !f }' && RPCRDMA=rpcrdma

# frames FILE FILTER: number of frames matching a display filter (two-pass,
# so replies are matched to calls and reassembly is complete).
frames() {
    tshark -2 -r "$1" -Y "$2" 2>/dev/null | wc -l
}

shopt -s nullglob
pcaps=("$CAPTURES"/*.pcap)
((${#pcaps[@]})) || { fail "no captures in $CAPTURES"; finish; }

for pcap in "${pcaps[@]}"; do
    name=$(basename "$pcap" .pcap)
    case $name in
        nfs3-tcp) filter=rpc ;;
        perftest) filter=infiniband ;;
        *) filter=$RPCRDMA ;;
    esac
    n=$(frames "$pcap" "$filter")
    if ((n > 0)); then
        pass "$name: $n frames match '$filter'"
    else
        fail "$name: no frames match '$filter'"
    fi
    truth=$CAPTURES/$name.truth
    missing=()
    for f in "${TRUTH_FILES[@]}"; do
        [[ -s $truth/$f ]] || missing+=("$f")
    done
    [[ -n $(find "$truth/formats" -name format -size +0 2>/dev/null | head -n1) ]] || missing+=(formats/)
    if ((${#missing[@]} == 0)); then
        pass "$name: ground truth complete"
    else
        fail "$name: ground truth missing or empty: ${missing[*]}"
    fi
done
finish
