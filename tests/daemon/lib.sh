# Shared helpers for the daemon/top/export test scripts (sourced).
# Sets SRC (repo root), O (build dir), BIN; pass/fail counting; a per-test
# temp dir removed on exit; the processes a test starts are killed by PID.
SRC=${NFSRDMA_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
O=${O:-build}
case $O in /*) ;; *) O=$SRC/$O ;; esac
BIN=${NFSRDMA_BIN:-$O/bin}
CAPS=$SRC/tests/captures
npass=0 nfail=0
PIDS=()
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfsrdma-test.XXXXXX")
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

ok()   { npass=$((npass + 1)); echo "ok   $*"; }
bad()  { nfail=$((nfail + 1)); echo "FAIL $*"; }
check() { # check DESC CMD...
	local d=$1; shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
finish() { echo "$1: $npass passed, $nfail failed"; [ "$nfail" -eq 0 ]; }
# cannot NAME WHY: the suite cannot run; counts as a failure, says why
cannot() { echo "$1: cannot run: $2"; echo "$1: 0 passed, 1 failed"; exit 1; }

# prom_config FILE PORT: a Prometheus configuration scraping nfsrdmad on
# 127.0.0.1:PORT every second
prom_config() {
	cat >"$1" <<EOC
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: nfsrdmad
    static_configs:
      - targets: ['127.0.0.1:$2']
EOC
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# wait_for SECONDS CMD...: retry CMD every 0.2 s until it succeeds
wait_for() {
	local t=$1 i; shift
	for ((i = 0; i < t * 5; i++)); do "$@" 2>/dev/null && return 0; sleep 0.2; done
	return 1
}
# Ground truth: "PROTOCOL OPERATION COUNT" per RPC the kernel client made
# over RDMA, from the lab's client.trace (sunrpc:rpc_stats_latency).
# rpcbind and MOUNT go over TCP/UDP to rpc.mountd, never over RDMA.
# The rpcbind and MOUNT calls over TCP/UDP in a capture (what the kernel's
# NFS trace does not count: userspace mount and umount), by tshark, named
# as the decoders name them: "PROTO OP N" lines like truth_ops'.
tcp_ops() {
	command -v tshark >/dev/null || return 0
	for f in "$@"; do
		# (port 802 would be taken for SSLv2 by its heuristic)
		tshark --disable-protocol tls -r "$f" -Y "rpc.msgtyp == 0 && !infiniband && (tcp || udp)" -T fields -E occurrence=f \
			-e rpc.program -e rpc.programversion -e rpc.procedure 2>/dev/null
	done | awk -F'\t' '
		$1 == 100000 { p = "PORTMAPv" $2; split("NULL SET UNSET GETPORT DUMP CALLIT", n, " ") }
		$1 == 100005 { p = "MOUNTv" $2; split("NULL MNT DUMP UMNT UMNTALL EXPORT", n, " ") }
		{ c[p " " n[$3 + 1]]++ } END { for (k in c) print k, c[k] }' | sort
}

truth_ops() {
	grep -h rpc_stats_latency "$@" |
		sed -nE 's/.* xid=0x[0-9a-f]+ ([a-z]+)v([0-9]+) ([A-Z_0-9]+) .*/\1 \2 \3/p' |
		awk '$1 == "nfs" { p = "NFSv" $2 } $1 == "nfsacl" { p = "NFSACLv" $2 }
		     $1 == "nfs" || $1 == "nfsacl" { n[p " " $3]++ }
		     END { for (k in n) print k, n[k] }' | sort
}
