#!/usr/bin/env bash
# nfsrdmad --kernel-stats: the kernel's own counters on /metrics, held to
# the kernel's files the lab saved (tests/captures/*.truth: the 6.1 and
# 6.12 clients' /proc/self/mountstats, the servers' /proc/net/rpc/nfsd),
# read here by awk from the files themselves; then hostile files: a
# format not seen, cut lines, words that are not counts, a file that
# cannot be read: counted by file and reason, one log line each, the
# daemon serving on.
# Closing line: "kstat: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
D=$BIN/nfsrdmad
[ -x "$D" ] || cannot kstat "$D not built"
command -v promtool >/dev/null || cannot kstat "promtool not installed (scripts/deps.sh test)"
CAP=$CAPS/nfs3-read-write.pcap

# scrape ROOT OUT: nfsrdmad on a capture with --kernel-stats ROOT, /metrics
# into OUT, its stderr into OUT.err
scrape() {
	local root=$1 out=$2 port pid
	port=$(free_port)
	"$D" --source "$CAP" --kernel-stats "$root" --metrics "127.0.0.1:$port" --socket none \
		> /dev/null 2> "$out.err" &
	pid=$!
	PIDS+=("$pid")
	wait_for 10 curl -sf -o "$out" "http://127.0.0.1:$port/metrics"
	# a second scrape: the skip counters and log lines must not double up wrongly
	curl -sf -o "$out" "http://127.0.0.1:$port/metrics"
	kill -0 "$pid" 2>/dev/null && echo alive > "$out.alive"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

. "$(dirname "$0")/kstat_lib.sh"

mkroot() { # mkroot DIR MOUNTSTATS NFSD
	mkdir -p "$1/self" "$1/net/rpc"
	[ -n "$2" ] && cp "$2" "$1/self/mountstats"
	[ -n "$3" ] && cp "$3" "$1/net/rpc/nfsd"
	return 0
}
# the same files scraped: LO = HI
check_mountstats() { expect_mountstats "$2" | bracket "$1" "$3" "$3"; }
check_nfsd() { expect_nfsd "$2" | bracket "$1" "$3" "$3"; }

# --- the kernels' own files, 6.1 and 6.12, NFSv3 and v4.1, RDMA and TCP ---
for t in nfs3-read-write nfs3-read-write-k6.12 nfs41 nfs41-k6.12 nfs3-tcp; do
	tr=$CAPS/$t.truth
	[ -r "$tr/client.mountstats" ] || { bad "$t: $tr/client.mountstats missing"; continue; }
	kern=$(cat "$tr/uname" 2>/dev/null)
	R=$TMP/$t
	mkroot "$R" "$tr/client.mountstats" "$tr/server.nfsd-stats"
	scrape "$R" "$TMP/$t.prom"
	check "$t ($kern): per-op, bytes, events and transport counters equal the kernel's mountstats" \
		check_mountstats "$t" "$tr/client.mountstats" "$TMP/$t.prom"
	if [ -r "$tr/server.nfsd-stats" ]; then
		check "$t ($kern): nfsd's procedure counts equal /proc/net/rpc/nfsd's" \
			check_nfsd "$t" "$tr/server.nfsd-stats" "$TMP/$t.prom"
	fi
	check "$t: the exposition passes promtool check metrics" \
		bash -c "promtool check metrics < '$TMP/$t.prom' > '$TMP/$t.lint' 2>&1 || ! grep -qiE 'error|kstat|mountstats|nfsd' '$TMP/$t.lint'"
	check "$t: nothing skipped in the kernel's own files" \
		bash -c "! grep -E '^nfsrdma_kstat_skipped_total\\{' '$TMP/$t.prom' | grep -qv ' 0\$'"
done
check "the TCP mount's protocol label is tcp" grep -q 'nfsrdma_mountstats_nfs_transport_sends_total{export="[^"]*",protocol="tcp"' "$TMP/nfs3-tcp.prom"

# --- hostile files ---
MS=$CAPS/nfs3-read-write.truth/client.mountstats
H=$TMP/hostile
mkroot "$H" "" ""
{
	cat "$MS"
	# a second NFS mount whose lines are each broken in one way
	echo "device 10.9.0.9:/other mounted on /mnt/other with fstype nfs statvers=1.1"
	echo "	opts:	rw,vers=3,proto=rdma,addr=10.9.0.9"
	echo "	age:	12"
	echo "	events:	1 2 3"                                   # short
	echo "	bytes:	1 2 x 4 5 6 7 8"                          # not a count
	echo "	xprt:	rdma 0 0 1 0 1 27 27 0 37 0 4 4 3 553220 524424 1024 1024 0 0 0 0 0 0 11 3 0 0 99"  # a newer layout
	echo "	brandnew:	1 2 3"                                # a line of a kind not known
	echo "	per-op statistics"
	echo "	        READ: 5 5 0 520 525952 84 327 413 0"
	echo "	       WRITE: 5 5 0 525872"                       # cut short
	echo "	      COMMIT: 1 1 0 104 128 3 11 99999999999999999999999 0"   # overflows
	printf '	      GETATTR: 2 2 0 160 224 0 8'                # the file ends mid-line
} > "$H/self/mountstats"
# net: not a count; newline: a kind not known; proc3: says 22, gives 3 (cut)
printf 'rc 0 7 22\nio 525312 525312\nth 8 0 0.000\nnet 29 0 x 0\nnewline 1 2\nproc3 22 1 2 0\n' > "$H/net/rpc/nfsd"
mkdir -p "$H/sys/sunrpc/svc_rdma"
echo 128 > "$H/sys/sunrpc/svc_rdma/max_requests"
echo 7 > "$H/sys/sunrpc/svc_rdma/rdma_stat_recv"
echo "lots" > "$H/sys/sunrpc/svc_rdma/rdma_stat_read"
echo 1 > "$H/sys/sunrpc/svc_rdma/svcrdma_new_knob"
scrape "$H" "$TMP/h.prom"
check "hostile: the daemon served on" test -e "$TMP/h.prom.alive"
check "hostile: the good mount is still whole" check_mountstats hostile-good "$MS" "$TMP/h.prom"
check "hostile: the broken mount's good lines kept (age 12, READ 5)" \
	bash -c "[ \"\$(awk '/^nfsrdma_mountstats_nfs_age_seconds_total\\{.*mountpoint=\"\\/mnt\\/other\"/ {print \$NF}' '$TMP/h.prom')\" = 12 ] &&
		 grep -q 'nfsrdma_mountstats_nfs_operations_requests_total{.*mountpoint=\"/mnt/other\",operation=\"READ\"} 5\$' '$TMP/h.prom'"
check "hostile: none of the broken lines' values exported (no events, bytes, transport, WRITE, COMMIT, GETATTR of /mnt/other)" \
	bash -c "! grep -E 'mountpoint=\"/mnt/other\"' '$TMP/h.prom' | grep -qE '_event_|_nfs_(read|write|direct_read|direct_write|total_read|total_write)_bytes_total\\{|_pages_total\\{|_transport_|operation=\"(WRITE|COMMIT|GETATTR)\"'"
# each broken thing counted under its file and reason (two scrapes: twice)
for fw in "mountstats short 4" "mountstats not_a_number 4" "mountstats xprt_layout 2" "mountstats unknown_line 2" \
	  "nfsd not_a_number 2" "nfsd unknown_line 2" "nfsd short 2" "svc_rdma not_a_number 2" "svc_rdma unknown_line 2"; do
	set -- $fw
	got=$(awk -v l="{file=\"$1\",why=\"$2\"}" 'index($0, "nfsrdma_kstat_skipped_total" l) == 1 { print $NF }' "$TMP/h.prom")
	check "hostile: $1 $2 counted $3 times over two scrapes (got ${got:-none})" test "${got:-none}" = "$3"
done
check "hostile: the nfsd lines that parse are exported (rc, io, threads 8)" \
	bash -c "grep -q '^nfsrdma_nfsd_server_threads 8\$' '$TMP/h.prom' && grep -q '^nfsrdma_nfsd_reply_cache_nocache_total 22\$' '$TMP/h.prom'"
check "hostile: the bad net line exports no packets" bash -c "! grep -q '^nfsrdma_nfsd_packets_total' '$TMP/h.prom'"
check "hostile: svc_rdma's good files exported (max_requests 128, recv 7)" \
	bash -c "grep -q '^nfsrdma_svcrdma_max_requests 128\$' '$TMP/h.prom' && grep -q '^nfsrdma_svcrdma_recv_total 7\$' '$TMP/h.prom'"
nwarn=$(grep -c 'kernel counters:' "$TMP/h.prom.err")
check "hostile: one log line per file and reason (9), not per scrape (got $nwarn)" test "$nwarn" = 9
check "hostile: still a valid exposition (promtool check metrics: no error)" bash -c "! promtool check metrics < '$TMP/h.prom' 2>&1 | grep -qi error"

# --- no files: a host that is neither side ---
E=$TMP/empty
mkdir -p "$E"
scrape "$E" "$TMP/e.prom"
check "no kernel files: no mountstats or nfsd families, nothing skipped, no log line" \
	bash -c "! grep -qE '^nfsrdma_(mountstats|nfsd|svcrdma)_' '$TMP/e.prom' && ! grep -q 'kernel counters' '$TMP/e.prom.err' &&
		 ! grep -E '^nfsrdma_kstat_skipped_total' '$TMP/e.prom' | grep -qv ' 0\$'"
check "--kernel-stats takes an absolute directory only" bash -c "! '$D' --source '$CAP' --kernel-stats rel/dir --metrics none --socket none 2>/dev/null"
finish kstat
