#!/usr/bin/env bash
# Lab tier for the join across hosts (tests/join/lab/README.md):
#   tests/join/lab.sh [fuse-nfs3] [fuse-nfs41] [fuse-chrony]  (default: all)
# the fuse-nfs3 and fuse-nfs41 scenarios, one at a time, each with the real
# client and server probes (nfsrdmad in both guests), the host's capture,
# the guests' clocks apart and clock beacons for the truth, the live join
# in the server guest; each run checked by tests/join/lab/check.py.
# fuse-nfs41 also steps the server's wall clock back 30 min mid-run (the
# live capture's clock; LAB_ARG_STEP): the live join must follow it.
# fuse-chrony: chrony on both guests, the hosts' clock lines used by the
# join, then a lying clock it must name (tests/join/lab/check_chrony.py).
# Ends with "fuse-lab: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
pass=0 fail=0
say_fail() { echo "FAIL: $*"; fail=$((fail + 1)); }

if [ "$(id -u)" -ne 0 ]; then
    echo "fuse-lab: cannot run: the lab needs root"; echo "fuse-lab: 0 passed, 1 failed"; exit 1
fi
for f in "$O/bin/nfsrdmad" "$O/bin/nfsrdma-dissect"; do
    [ -x "$f" ] || { echo "fuse-lab: $f missing (run make O=$O)"; echo "fuse-lab: 0 passed, 1 failed"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuse-lab.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT

run() {   # scenario [step-seconds [checker]]
    local sc=$1 step=${2:-} checker=${3:-check.py} out="$tmp/$1" line p f
    if ! LAB_ARG_NFSRDMAD=$O/bin/nfsrdmad LAB_ARG_STEP=$step \
            tests/lab/run-scenario "tests/join/lab/$sc" "$out" > "$tmp/$sc.log" 2>&1; then
        say_fail "scenario $sc did not run:"; tail -5 "$tmp/$sc.log"
        tail -20 "$out"/*.err "$out"/*.console 2>/dev/null | tail -40
        return
    fi
    line=$(python3 "tests/join/lab/$checker" "$out" "$O/bin/nfsrdma-dissect" ${step:+--step} 2>&1)
    printf '%s\n' "$line"
    read -r p f < <(sed -nE "s/^$sc: ([0-9]+) passed, ([0-9]+) failed\$/\\1 \\2/p" <<<"$line")
    if [ -z "${p:-}" ]; then say_fail "check.py $sc gave no count"; return; fi
    pass=$((pass + p)); fail=$((fail + f))
}

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(fuse-nfs3 fuse-nfs41 fuse-chrony)
want() { printf '%s\n' "${suites[@]}" | grep -qx "$1"; }
want fuse-nfs3 && run fuse-nfs3
# the kernel's counters both guests' nfsrdmad exported in that run
if want fuse-nfs3 && [ -d "$tmp/fuse-nfs3" ]; then
    line=$(tests/daemon/kstat_lab.sh "$tmp/fuse-nfs3" "$(cat "$tmp/fuse-nfs3/uname" 2>/dev/null || echo "kernel ?")" 2>&1)
    printf '%s\n' "$line"
    read -r p f < <(sed -nE 's/^kstat-lab: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' <<<"$line")
    if [ -z "${p:-}" ]; then say_fail "kstat_lab.sh gave no count"; else pass=$((pass + p)); fail=$((fail + f)); fi
    # what the probes cost, held to the kernel's accounting (bpftool)
    line=$(python3 tests/probe/cost_lab.py "$tmp/fuse-nfs3" "$(cat "$tmp/fuse-nfs3/uname" 2>/dev/null || echo "kernel ?")" 2>&1)
    printf '%s\n' "$line"
    p= f=
    read -r p f < <(sed -nE 's/^probe-cost-lab: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' <<<"$line")
    if [ -z "${p:-}" ]; then say_fail "cost_lab.py gave no count"; else pass=$((pass + p)); fail=$((fail + f)); fi
fi
want fuse-nfs41 && run fuse-nfs41 1800
want fuse-chrony && run fuse-chrony "" check_chrony.py
echo "fuse-lab: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
