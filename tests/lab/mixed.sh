#!/usr/bin/env bash
# tests/lab/mixed.sh — client and server on different kernels.
#
# Two lab runs, each with Debian 12's 6.1 on one side and 6.12 on the other:
#   nfs3-read-write  server 6.12, client 6.1   (NFSv3 over RDMA)
#   nfs41            server 6.1,  client 6.12  (NFSv4.1 over RDMA)
# For each: the guests booted the kernels asked for (each guest's own uname
# in its trace header), the mount negotiated what the scenario asked, and
# the capture meets the kernels' ground truth as every catalogue capture
# must (tests/unit/truth.py: every client XID found with its procedure,
# per-procedure counts, no conformance finding, tshark agreement). The
# dissector's summary of each run is printed for the reader: the two
# kernels' chunk choices, credits and inline sizes meet in it.
# Ends with "mixed: N passed, N failed". Needs root and the lab.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
O=${O:-build}
case $O in /*) ;; *) O=$PWD/$O ;; esac
pass=0 fail=0
ok() { echo "PASS mixed: $*"; pass=$((pass + 1)); }
no() { echo "FAIL mixed: $*"; fail=$((fail + 1)); }
end() { echo "mixed: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
[ "$(id -u)" -eq 0 ] || { no "needs root (qemu lab)"; end; }
DISSECT=$O/bin/nfsrdma-dissect
[ -x "$DISSECT" ] || { no "$DISSECT missing (make O=$O)"; end; }

base=$(mktemp -d "${TMPDIR:-/tmp}/lab-mixed.XXXXXX")
[ "${LAB_KEEP:-0}" = 1 ] || trap 'rm -rf "$base"' EXIT

# series KVER: the Debian series a kernel release belongs to.
series() {
    case $1 in
        6.1.*) echo 6.1 ;;
        6.12.*) echo 6.12 ;;
        *) echo "unknown($1)" ;;
    esac
}

# run_mixed SCENARIO SERVER_KV CLIENT_KV VERS
run_mixed() {
    local scen=$1 skv=$2 ckv=$3 vers=$4 out=$base/$1 t0=$SECONDS role want got line p f
    local tag="$scen (server $skv, client $ckv)"
    if ! LAB_KVERSION_SERVER=$skv LAB_KVERSION_CLIENT=$ckv LAB_ARG_BIN=$O/bin \
            tests/lab/run-scenario "$scen" "$out" > "$base/$scen.log" 2>&1; then
        no "$tag: lab run failed: $(tail -n1 "$base/$scen.log")"
        return
    fi
    ok "$tag: ran ($((SECONDS - t0)) s)"
    for role in server client; do
        want=$([ $role = server ] && echo "$skv" || echo "$ckv")
        got=$(sed -n '1s/.* kernel=\([^ ]*\) .*/\1/p' "$out/$role.trace")
        if [ "$(series "$got")" = "$want" ]; then
            ok "$tag: the $role guest ran $got"
        else
            no "$tag: the $role guest ran '$got', not Debian's $want"
        fi
    done
    if grep -qE " nfs4? .*vers=$vers,.*proto=rdma" "$out/client.mounts"; then
        ok "$tag: mounted NFS version $vers over RDMA"
    else
        no "$tag: mount is not vers=$vers proto=rdma: $(grep ' nfs' "$out/client.mounts" | head -n1)"
    fi
    # The catalogue's truth checks on this run's capture.
    line=$(python3 tests/unit/truth.py "$out/capture.pcap" 2>&1)
    printf '%s\n' "$line" | sed -E "s#^(PASS|FAIL|info) truth: capture:#\1 truth: $scen (server $skv, client $ckv):#" | grep -E '^(PASS|FAIL|info)'
    read -r p f < <(sed -nE 's/^truth: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' <<<"$line")
    if [ -z "${p:-}" ] || [ "$p" -lt 4 ]; then
        no "$tag: truth.py gave no verdict: $(tail -n1 <<<"$line")"
    else
        pass=$((pass + p)) fail=$((fail + f))
    fi
    echo "--- $tag: nfsrdma-dissect -z conn,proc"
    "$DISSECT" -q -z conn -z proc "$out/capture.pcap" 2>&1 | sed 's/^/    /'
}

run_mixed nfs3-read-write 6.12 6.1 3
run_mixed nfs41 6.1 6.12 4.1
end
