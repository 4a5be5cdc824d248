#!/usr/bin/env bash
# tests/lab/make-captures.sh [-j N] [-k KV] [NAME...] — regenerate the
# committed scenario catalogue under tests/captures/.
#
# For each scenario (default: all of CATALOGUE below) runs
# tests/lab/run-scenario into a temp dir, then installs
#   tests/captures/NAME.pcap        the capture (every frame on the wire)
#   tests/captures/NAME.truth/      the kernels' ground truth for it
# -k KV runs both guests on Debian's KV kernel (tests/lab/kernel.sh: 6.1, the
# default, or 6.12); a kernel other than 6.1 installs NAME-kKV.pcap and
# NAME-kKV.truth/, and its default list is CATALOGUE_K612.
# and rewrites tests/captures/README from the scenarios' env descriptions.
# -j N runs N scenarios at a time (default 1; 2 is the most that makes sense
# on 2 cores, each scenario already runs two single-CPU guests).
# A failed scenario leaves the committed files of that scenario untouched,
# keeps its run dir for debugging, and makes the script exit non-zero.
set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$LAB_DIR/../.." && pwd)
CAPTURES=$REPO/tests/captures
CATALOGUE=(smoke nfs3-metadata nfs3-read-write nfs3-readdirplus nfs3-symlink
    nfs40 nfs40-locks nfs40-deleg nfs41 nfs41-deleg nfs42 parallel server-restart midconn nfs3-tcp perftest
    multi-client mount-sequence)
# The same workloads on Debian's 6.12 kernel (installed as NAME-k6.12).
CATALOGUE_K612=(nfs3-read-write nfs3-metadata nfs41 parallel)
# Files of a run that are debugging aids, not ground truth (guest-dissect.txt:
# smoke's own check that a project binary runs in a guest, our output of the
# previously committed smoke.pcap).
NOT_TRUTH=(capture.pcap .lab-run server.console client.console server.qemu.log
    client.qemu.log server.monitor server.rc client.rc guest-dissect.txt)

usage() { echo "usage: $0 [-j N] [-k 6.1|6.12] [NAME...]" >&2; exit 2; }

# installed NAME: the catalogue name a run of scenario NAME gets (KV set).
installed() {
    if [[ $KV == 6.1 ]]; then echo "$1"; else echo "$1-k$KV"; fi
}

# describe NAME: the scenario's one-line description (first comment line of
# its env file, without the leading "# NAME: "); NAME-kKV says its kernel.
describe() {
    local line scen=${1%-k6.*} kv=''
    [[ $1 == "$scen" ]] || kv=" On Debian's ${1##*-k} kernel."
    line=$(sed -n '1s/^# *//p' "$LAB_DIR/scenarios/$scen/env" 2>/dev/null)
    echo "${line#"$scen": }$kv"
}

# install_run NAME DIR: copy a successful run into tests/captures.
install_run() {
    local name=$1 dir=$2 f
    rm -rf "$CAPTURES/$name.truth" "$CAPTURES/$name.pcap"
    mkdir -p "$CAPTURES/$name.truth"
    cp "$dir/capture.pcap" "$CAPTURES/$name.pcap"
    (
        shopt -s dotglob nullglob
        for f in "$dir"/*; do
            local base skip=0 n
            base=$(basename "$f")
            for n in "${NOT_TRUTH[@]}"; do [[ $base == "$n" ]] && skip=1; done
            ((skip)) || cp -r "$f" "$CAPTURES/$name.truth/"
        done
    )
}

# stop_runs: on INT/TERM, stop the running scenarios (each one kills its
# own qemu processes when it gets TERM).
stop_runs() {
    local f
    for f in "$WORK"/*.pid; do
        if [[ -e $f ]]; then kill -TERM "$(cat "$f")" 2>/dev/null || true; fi
    done
    echo "make-captures: interrupted; runs left in $WORK" >&2
    exit 130
}

write_readme() {
    local name
    {
        echo "Scenario captures made by tests/lab/make-captures.sh (see tests/lab/README.md)."
        echo "Each NAME.pcap is every Ethernet frame on the wire between two Debian 12"
        echo "guests on Debian's 6.1 kernel (NAME-k6.12: on its 6.12 kernel; server"
        echo "10.9.0.1, client 10.9.0.2, soft-RoCE, RoCEv2 = UDP 4791);"
        echo "NAME.truth/ holds the kernels' ground truth for it: client.trace and"
        echo "server.trace (tracefs: sunrpc/rpcrdma events), *.trace-stats (overrun),"
        echo "client.mountstats, client.mounts, client.rpc-stats, server.nfsd-stats,"
        echo "formats/ (tracepoint format files), uname, lab.conf, commands.txt."
        echo
        for name in "${ALL[@]}"; do
            printf '%-26s %s\n' "$name.pcap" "$(describe "$name")"
        done
        echo
        echo "Sizes (frames and seconds: capinfos; RPCs: the NFS and NFSACL RPCs the"
        echo "kernel client completed, rpc_stats_latency lines of client.trace; for"
        echo "midconn some of them precede the capture):"
        printf '%-26s %9s %7s %6s %8s\n' capture bytes frames RPCs seconds
        for name in "${ALL[@]}"; do
            [[ -e $CAPTURES/$name.pcap ]] || continue
            printf '%-26s %9s %7s %6s %8s\n' "$name.pcap" "$(stat -c %s "$CAPTURES/$name.pcap")" \
                "$(capinfos -M -c "$CAPTURES/$name.pcap" | sed -n 's/^Number of packets: *//p')" \
                "$(grep -c 'rpc_stats_latency: .* xid=0x[0-9a-f]* nfs\(acl\)\?v[0-9]' "$CAPTURES/$name.truth/client.trace")" \
                "$(capinfos -M -u "$CAPTURES/$name.pcap" | sed -n 's/^Capture duration: *\([0-9]*\.[0-9]\).*/\1/p')"
        done
    } > "$CAPTURES/README"
}

main() {
    local jobs=1
    KV=6.1
    while getopts j:k: opt; do
        case $opt in
            j) jobs=$OPTARG ;;
            k) KV=$OPTARG ;;
            *) usage ;;
        esac
    done
    shift $((OPTIND - 1))
    case $KV in 6.1 | 6.12) ;; *) usage ;; esac
    ALL=("${CATALOGUE[@]}")
    local n
    for n in "${CATALOGUE_K612[@]}"; do ALL+=("$n-k6.12"); done
    local -a names=("$@")
    if ((${#names[@]} == 0)); then
        if [[ $KV == 6.1 ]]; then names=("${CATALOGUE[@]}"); else names=("${CATALOGUE_K612[@]}"); fi
    fi
    local name
    for name in "${names[@]}"; do
        [[ -d $LAB_DIR/scenarios/$name ]] || { echo "make-captures: no scenario $name" >&2; exit 2; }
    done

    mkdir -p "$CAPTURES"
    local work
    work=$(mktemp -d "${TMPDIR:-/tmp}/nfsrdma-captures.XXXXXX")
    WORK=$work
    trap stop_runs INT TERM
    local t0=$SECONDS
    for name in "${names[@]}"; do
        while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
        echo "make-captures: $name ..."
        # The status goes to a file: wait -n above may reap a job before the
        # loop below asks for it.
        # The pid goes to a file for stop_runs.
        (
            LAB_KVERSION=$KV "$LAB_DIR/run-scenario" "$name" "$work/$name" > "$work/$name.log" 2>&1 &
            echo "$!" > "$work/$name.pid"
            rc=0
            wait "$!" || rc=$?
            echo "$rc" > "$work/$name.status"
        ) &
    done
    wait
    local failed=0 ok=0
    for name in "${names[@]}"; do
        if [[ $(cat "$work/$name.status" 2>/dev/null) == 0 ]]; then
            install_run "$(installed "$name")" "$work/$name"
            ok=$((ok + 1))
            echo "make-captures: $(installed "$name") ok ($(tail -n1 "$work/$name.log" | sed 's/.* ok in \([0-9]*\) s.*/\1 s/'), $(stat -c %s "$CAPTURES/$(installed "$name").pcap") bytes)"
        else
            failed=$((failed + 1))
            echo "make-captures: $name FAILED: $(tail -n1 "$work/$name.log")"
        fi
    done
    write_readme
    echo "make-captures: $ok ok, $failed failed in $((SECONDS - t0)) s"
    if ((failed)); then
        echo "make-captures: failed runs kept in $work" >&2
        exit 1
    fi
    rm -rf "$work"
}

main "$@"
