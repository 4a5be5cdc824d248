#!/usr/bin/env bash
# Lab tier: the fault matrix (tests/join/lab/README.md, "The fault
# matrix"): one boot of the fault-matrix scenario (real client and server
# probes, the host's capture, sequential fault windows), checked by
# tests/join/lab/fault_check.py against the injections the guests logged.
# FAULT_TABLE=FILE keeps the matrix table (markdown).
# Ends with "fault-matrix: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
bail() { echo "fault-matrix: $*"; echo "fault-matrix: 0 passed, 1 failed"; exit 1; }

[ "$(id -u)" -eq 0 ] || bail "cannot run: the lab needs root"
for f in "$O/bin/nfsrdmad" "$O/bin/nfsrdma-dissect"; do
    [ -x "$f" ] || bail "$f missing (run make O=$O)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fault-lab.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
if ! LAB_ARG_NFSRDMAD=$O/bin/nfsrdmad tests/lab/run-scenario tests/join/lab/fault-matrix "$tmp/run" \
        > "$tmp/run.log" 2>&1; then
    tail -5 "$tmp/run.log"
    tail -20 "$tmp/run"/*.console 2>/dev/null | tail -40
    bail "scenario fault-matrix did not run"
fi
echo "fault-matrix: scenario ran in $((SECONDS - start)) s (kernel ${LAB_KVERSION:-6.1})"
python3 tests/join/lab/fault_check.py "$tmp/run" "$O/bin/nfsrdma-dissect" ${FAULT_TABLE:+--table "$FAULT_TABLE"}
