#!/usr/bin/env bash
# The kernel's counters in a lab run (tests/join/lab/lib.sh kstat_snapshot):
# each guest's nfsrdmad, started on its kernel probes (--kernel-stats on
# by default), scraped before and after a copy of the files it reads; every
# counter of the copy (the client's mountstats: per-op, bytes, events, the
# rdma transport line; the server's /proc/net/rpc/nfsd and every file of
# /proc/sys/sunrpc/svc_rdma/) lies between the two scrapes.
#   tests/daemon/kstat_lab.sh OUT KERNEL
# Closing line: "kstat-lab: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/kstat_lib.sh"
out=${1:?usage: kstat_lab.sh OUT KERNEL}
kv=${2:-?}
npass=0 nfail=0
check() { local d=$1; shift; if "$@"; then npass=$((npass + 1)); echo "ok   $d"; else nfail=$((nfail + 1)); echo "FAIL $d"; fi; }
have() { [ -s "$out/$1.metrics.before" ] && [ -s "$out/$1.metrics.after" ] && [ -d "$out/$1.kstat" ]; }

check "$kv client: the snapshot was taken (metrics before/after, the files)" have client
if have client; then
	check "$kv client: mountstats has an NFS mount over rdma" \
		grep -q 'xprt:[[:space:]]*rdma' "$out/client.kstat/self/mountstats"
	check "$kv client: every mountstats counter within /metrics" \
		bash -c ". '$(dirname "$0")/kstat_lib.sh'; expect_mountstats '$out/client.kstat/self/mountstats' |
			 bracket client '$out/client.metrics.before' '$out/client.metrics.after'"
	check "$kv client: nothing skipped" \
		bash -c "! grep -E '^nfsrdma_kstat_skipped_total\\{' '$out/client.metrics.after' | grep -qv ' 0\$'"
fi
check "$kv server: the snapshot was taken" have server
if have server; then
	check "$kv server: /proc/net/rpc/nfsd within /metrics" \
		bash -c ". '$(dirname "$0")/kstat_lib.sh'; expect_nfsd '$out/server.kstat/net/rpc/nfsd' |
			 bracket server-nfsd '$out/server.metrics.before' '$out/server.metrics.after'"
	n=$(ls "$out/server.kstat/sys/sunrpc/svc_rdma" 2>/dev/null | wc -l)
	check "$kv server: svc_rdma has files ($n)" test "$n" -gt 0
	check "$kv server: every svc_rdma file within /metrics" \
		bash -c ". '$(dirname "$0")/kstat_lib.sh'; expect_svcrdma '$out/server.kstat/sys/sunrpc/svc_rdma' |
			 bracket server-svc_rdma '$out/server.metrics.before' '$out/server.metrics.after'"
	check "$kv server: nothing skipped" \
		bash -c "! grep -E '^nfsrdma_kstat_skipped_total\\{' '$out/server.metrics.after' | grep -qv ' 0\$'"
fi
echo "kstat-lab: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
