#!/usr/bin/env bash
# Lab tier for the kernel probes: builds tests/probe/probe_dump, runs an
# NFSv3 and an NFSv4.1 scenario over RDMA (one at a time) with the probes
# on client and server, and checks them against the kernels' own ftrace
# records and the dissected capture (tests/probe/check.py).  The NFSv3 run
# also runs a server probe with the reply events configured away, the
# NFSv4.1 run a client probe started while rpcrdma is not loaded: both
# must degrade as docs/probes.md says.  Both runs also start probes with the
# in-kernel filters (minimum latency, program, address) on the same
# workload, checked against the kernels' ftrace records, and the server
# push end (svcrdma_wc_write) is checked against ftrace and the wire.
# A third run stops the server's answers for a known time and checks
# nfsrdmad's in-flight gauges against it (tests/probe/stall_check.py).
#   tests/probe/lab.sh [nfs3] [nfs41] [stall]   (default: all three;
#   LAB_KVERSION chooses the kernel, tests/lab/run-scenario)
# Ends with "probe: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
pass=0 fail=0
say_fail() { echo "FAIL: $*"; fail=$((fail + 1)); }

if [ "$(id -u)" -ne 0 ]; then
    echo "probe: cannot run: the lab needs root"
    echo "probe: 0 passed, 1 failed"; exit 1
fi
for f in "$O/libnfsrdma.a" "$O/bin/nfsrdma-dissect"; do
    [ -e "$f" ] || { echo "probe: $f missing (run make O=$O)"; echo "probe: 0 passed, 1 failed"; exit 1; }
done
mkdir -p "$O/tests/probe"
PD=$O/tests/probe/probe_dump
# Same flags as the project's programs (common.mk).
if ! ${CC:-cc} -std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter -Werror -O2 -g -D_GNU_SOURCE -I. -isystem "$O" \
        tests/probe/probe_dump.c -o "$PD" "$O/libnfsrdma.a" \
        $(make -s --no-print-directory print-ldlibs); then
    echo "probe: building probe_dump failed"; echo "probe: 0 passed, 1 failed"; exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/probe-lab.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
# WRITE payload of the workload (tests/probe/scenarios/client.sh): 2 x 128 KB
write_bytes=262144

run() {   # scenario degrade-mode [nfsrdmad]
    local sc=$1 mode=$2 out="$tmp/$1" line p f
    if ! LAB_ARG_PROBE_DUMP=$PD LAB_ARG_PROBE_DEGRADE=${mode#degrade-} LAB_ARG_NFSRDMAD=${3:-} \
            tests/lab/run-scenario "tests/probe/scenarios/$sc" "$out" > "$tmp/$sc.log" 2>&1; then
        say_fail "scenario $sc did not run:"; tail -5 "$tmp/$sc.log"
        tail -20 "$out"/*.err "$out"/*.console 2>/dev/null | tail -40
        return
    fi
    line=$(python3 tests/probe/check.py "$out" "$O/bin/nfsrdma-dissect" "$write_bytes" "$mode" 2>&1)
    printf '%s\n' "$line" | grep -v '^probe-' | head -40
    read -r p f < <(sed -nE 's/^probe-.*: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' <<<"$line")
    if [ -z "${p:-}" ]; then say_fail "check.py $sc: $line"; return; fi
    printf '%s\n' "$line" | grep '^probe-'
    pass=$((pass + p)); fail=$((fail + f))
}

# the server sends nothing for STALL_S seconds; nfsrdmad's gauges
# scraped at 1.5 s and 7 s into it, --stall-after 3 s
STALL_S=12 STALL_AFTER=3
run_stall() {
    local out="$tmp/probe-stall" line p f
    if ! LAB_ARG_NFSRDMAD=$O/bin/nfsrdmad LAB_ARG_STALL_S=$STALL_S LAB_ARG_STALL_AFTER=$STALL_AFTER \
            tests/lab/run-scenario tests/probe/scenarios/probe-stall "$out" > "$tmp/probe-stall.log" 2>&1; then
        say_fail "scenario probe-stall did not run:"; tail -5 "$tmp/probe-stall.log"
        tail -20 "$out"/*.err "$out"/*.console 2>/dev/null | tail -40
        return
    fi
    line=$(python3 tests/probe/stall_check.py "$out" "$STALL_AFTER" 2>&1)
    printf '%s\n' "$line"
    read -r p f < <(sed -nE 's/^probe-stall: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' <<<"$line")
    if [ -z "${p:-}" ]; then say_fail "stall_check.py: $line"; return; fi
    pass=$((pass + p)); fail=$((fail + f))
}

runs=${*:-nfs3 nfs41 stall}
for r in $runs; do
    case $r in
    nfs3) run probe-nfs3 degrade-server ;;
    nfs41)
        # nfsrdmad (the daemon) also runs the server probes in the NFSv4.1 run
        if [ -x "$O/bin/nfsrdmad" ]; then
            run probe-nfs41 degrade-client "$O/bin/nfsrdmad"
        else
            echo "probe: $O/bin/nfsrdmad not built: the NFSv4.1 run goes without it"
            run probe-nfs41 degrade-client
        fi ;;
    stall)
        if [ -x "$O/bin/nfsrdmad" ]; then run_stall; else say_fail "stall: $O/bin/nfsrdmad not built"; fi ;;
    *) say_fail "unknown run '$r' (nfs3, nfs41, stall)" ;;
    esac
done
echo "probe: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
