#!/usr/bin/env bash
# tests/lab/chimera/lab.sh [nfs3] [nfs41] [nfs42] [client-nfs3] [replay]: the lab
# tier against a second RPC-over-RDMA implementation, Chimera
# (tests/lab/chimera/README.md; default: all five, one boot after the
# other). nfs3/nfs41/nfs42: the kernel's client with its probes and the capture
# against Chimera's server; client-nfs3: Chimera's userspace client against
# knfsd with the server probes; each judged by check.py and truth.py;
# replay: the catalogue replayed against Chimera, by check_replay.py. LAB_KVERSION picks the client's kernel (the
# server guest only hosts Chimera). Ends with "chimera-lab: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../../.."
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
pass=0 fail=0
no() { echo "FAIL chimera-lab: $*"; fail=$((fail + 1)); }

if [ "$(id -u)" -ne 0 ]; then
    echo "chimera-lab: cannot run: the lab needs root"; echo "chimera-lab: 0 passed, 1 failed"; exit 1
fi
for f in nfsrdmad nfsrdma-dissect nfsrdma-replay; do
    [ -x "$O/bin/$f" ] || { echo "chimera-lab: $O/bin/$f missing (run make O=$O)"; echo "chimera-lab: 0 passed, 1 failed"; exit 1; }
done
# Built once (cached) before any guest boots, so a build failure is told
# as such and its time is not charged to a scenario's timeout.
if [ -n "${LAB_CHIMERA_BIN:-}" ]; then
    echo "chimera-lab: using LAB_CHIMERA_BIN=$LAB_CHIMERA_BIN, not the build of tests/lab/chimera/build.sh"
elif ! tests/lab/chimera/build.sh > /tmp/chimera-build.$$ 2>&1; then
    cat /tmp/chimera-build.$$; rm -f /tmp/chimera-build.$$
    echo "chimera-lab: 0 passed, 1 failed"; exit 1
fi
rm -f /tmp/chimera-build.$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chimera-lab.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] && echo "chimera-lab: keeping $tmp" || trap 'rm -rf "$tmp"' EXIT

count() {   # NAME OUTPUT: add the closing "NAME: N passed, N failed"
    local p f
    read -r p f < <(sed -nE "s/^$1: ([0-9]+) passed, ([0-9]+) failed\$/\\1 \\2/p" <<<"$2")
    if [ -z "${p:-}" ]; then no "$1 gave no count"; return; fi
    pass=$((pass + p)) fail=$((fail + f))
}

scenario() {   # NAME: boot it, keep its output in $tmp/NAME
    local t0=$SECONDS
    if ! LAB_ARG_NFSRDMAD=$O/bin/nfsrdmad LAB_ARG_BIN=$O/bin \
            tests/lab/run-scenario "tests/lab/chimera/$1" "$tmp/$1" > "$tmp/$1.log" 2>&1; then
        no "scenario $1 did not run: $(tail -n1 "$tmp/$1.log")"
        tail -20 "$tmp/$1"/server.console "$tmp/$1"/chimera.log "$tmp/$1"/*.err 2>/dev/null | tail -40
        return 1
    fi
    echo "chimera-lab: $1 ran in $((SECONDS - t0)) s (client $(cat "$tmp/$1/client.kernel"))"
}

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(nfs3 nfs41 nfs42 client-nfs3 replay)
for s in "${suites[@]}"; do
    case $s in
    nfs3 | nfs41 | nfs42 | client-nfs3 | knfsd-nfs3 | knfsd-nfs41)
        scenario "$s" || continue
        out=$(python3 tests/lab/chimera/check.py "$tmp/$s" "$O/bin/nfsrdma-dissect" "$s" 2>&1)
        printf '%s\n' "$out"
        count "chimera-$s" "$out"
        # the second opinion: the kernel's XIDs and tshark against the dissector
        # (client-nfs3: the client guest kernel's RPCs went to Chimera over
        # loopback, never on the wire: its trace is not this capture's truth)
        [ "$s" = client-nfs3 ] && mv "$tmp/$s/client.trace" "$tmp/$s/client-loopback.trace"
        # (named chimera-*: truth.py then holds findings to findings.txt)
        ln -sf capture.pcap "$tmp/$s/chimera-$s.pcap"
        out=$(python3 tests/unit/truth.py "$tmp/$s/chimera-$s.pcap" 2>&1)
        printf '%s\n' "$out" | grep -E '^(PASS|FAIL|info) '
        count truth "$out"
        [ -n "${CHIMERA_KEEP_CAPTURES:-}" ] && cp "$tmp/$s/capture.pcap" "$CHIMERA_KEEP_CAPTURES/chimera-$s.pcap"
        ;;
    replay)
        scenario replay || continue
        out=$(python3 tests/lab/chimera/check_replay.py "$tmp/replay" 2>&1)
        printf '%s\n' "$out"
        count chimera-replay "$out"
        ;;
    *) no "unknown suite $s (nfs3, nfs41, nfs42, client-nfs3, knfsd-nfs3, knfsd-nfs41, replay)" ;;
    esac
done
echo "chimera-lab: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
