#!/usr/bin/env bash
# tests/lab/chimera/install-capture.sh RUNDIR NAME: commit one run of a
# Chimera scenario (kept by `LAB_KEEP=1 tests/lab/chimera/lab.sh SUITE`:
# /tmp/chimera-lab.*/SUITE) as tests/captures/NAME.pcap with its ground
# truth in NAME.truth/, as tests/lab/make-captures.sh does for the
# catalogue: every file of the run but the capture itself and the guests'
# consoles, statuses and qemu logs. NAME: chimera-SUITE for Chimera's
# traffic (truth.py then holds its findings to findings.txt),
# interop-knfsd-SUITE for a knfsd reference run of the same workload.
set -euo pipefail
[[ $# -eq 2 && -f $1/capture.pcap ]] || { echo "usage: $0 RUNDIR NAME (RUNDIR/capture.pcap)" >&2; exit 2; }
run=$1 name=$2
CAPTURES=$(cd "$(dirname "$0")/../../captures" && pwd)
NOT_TRUTH=(capture.pcap .lab-run server.console client.console server.qemu.log client.qemu.log
    server.monitor server.rc client.rc "chimera-${run##*/}.pcap" findings.tsv client.kstat
    client.metrics.before client.metrics.after client.bpftool.json client.bpftool.err client-formats)
rm -rf "$CAPTURES/$name.truth" "$CAPTURES/$name.pcap"
mkdir -p "$CAPTURES/$name.truth"
cp "$run/capture.pcap" "$CAPTURES/$name.pcap"
shopt -s dotglob nullglob
for f in "$run"/*; do
    base=${f##*/} skip=0
    for n in "${NOT_TRUTH[@]}"; do [[ $base == "$n" ]] && skip=1; done
    ((skip)) || cp -r "$f" "$CAPTURES/$name.truth/"
done
echo "installed $CAPTURES/$name.pcap ($(stat -c %s "$CAPTURES/$name.pcap") bytes) and $name.truth/"
