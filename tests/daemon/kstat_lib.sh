# What the kernel's counter files say, read by awk from the files
# themselves, held to nfsrdmad's /metrics (sourced by tests/daemon/kstat.sh
# and tests/daemon/kstat_lab.sh).  Each check takes two scrapes, LO and HI:
# a counter of the file must lie between them (the same scrape twice for
# copies that do not move; before and after the copy on a live host).

# expect_*: lines "METRIC LABELS WANT" (LABELS "-": none).
# expect_mountstats FILE: one per per-op field, bytes,
# events and transport field of every NFS mount (LABELS: a substring of
# the sample's label set)
expect_mountstats() {
	awk '
		BEGIN {
			split("requests transmissions major_timeouts sent_bytes received_bytes", opf, " ")
			split("read_bytes write_bytes direct_read_bytes direct_write_bytes total_read_bytes total_write_bytes read_pages write_pages", bf, " ")
			split("inode_revalidate dnode_revalidate data_invalidate attribute_invalidate vfs_open vfs_lookup vfs_access vfs_update_page vfs_read_page vfs_read_pages vfs_write_page vfs_write_pages vfs_getdents vfs_setattr vfs_flush vfs_fsync vfs_lock vfs_file_release congestion_wait truncation write_extension silly_rename short_read short_write jukebox_delay pnfs_read pnfs_write", ef, " ")
			# net/sunrpc/xprtrdma/transport.c xprt_rdma_print_stats: the
			# fields after "rdma" (port, connect_time and idle_time not compared)
			split("- bind_total connect_total - - sends_total receives_total bad_transaction_ids_total cumulative_active_requests_total backlog_queue_total rdma_read_chunks_total rdma_write_chunks_total rdma_reply_chunks_total rdma_request_bytes_total rdma_reply_bytes_total rdma_pullup_copies_total rdma_fixup_copies_total rdma_hardway_registers_total rdma_failed_marshals_total rdma_bad_replies_total rdma_nomsg_calls_total rdma_mrs_recovered_total rdma_mrs_orphaned_total rdma_mrs_allocated_total rdma_local_invalidates_total rdma_empty_sendctx_queue_total rdma_reply_waits_for_send_total", rf, " ")
			split("- bind_total connect_total - - sends_total receives_total bad_transaction_ids_total cumulative_active_requests_total backlog_queue_total maximum_rpc_slots sending_queue_total pending_queue_total", tf, " ")
		}
		function out(m, l, v) { print "nfsrdma_mountstats_nfs_" m, "mountpoint=\"" mp "\"" l, v }
		/^device / { nfs = ($8 == "nfs" || $8 == "nfs4"); mp = $5; ops = 0; next }
		!nfs { next }
		$1 == "per-op" { ops = 1; next }
		ops && NF >= 9 { o = $1; sub(/:$/, "", o)
			for (i = 1; i <= 5; i++) out("operations_" opf[i] "_total", ",operation=\"" o "\"", $(i + 1)) }
		$1 == "bytes:" { for (i = 1; i <= 8; i++) out(bf[i] "_total", "", $(i + 1)) }
		$1 == "events:" { for (i = 1; i <= 27; i++) out("event_" ef[i] "_total", "", $(i + 1)) }
		$1 == "xprt:" && $2 == "rdma" && NF == 29 { for (i = 1; i <= 27; i++) if (rf[i] != "-") out("transport_" rf[i], "", $(i + 2)) }
		$1 == "xprt:" && $2 == "tcp" && NF == 15 { for (i = 1; i <= 13; i++) if (tf[i] != "-") out("transport_" tf[i], "", $(i + 2)) }
	' "$1"
}

# expect_nfsd FILE: the procedure counts by position ("#N" = the N-th
# sample of that proto) and the RPC calls
expect_nfsd() {
	awk '$1 == "proc3" { for (i = 3; i <= NF; i++) print "nfsrdma_nfsd_requests_total", "proto=\"3\"#" i - 2, $i }
	     $1 == "proc4ops" { for (i = 6; i <= NF; i++) print "nfsrdma_nfsd_requests_total", "proto=\"4\"#" i - 5, $i }
	     $1 == "rpc" { print "nfsrdma_nfsd_server_rpcs_total", "-", $2 }
	     $1 == "th" { print "nfsrdma_nfsd_server_threads", "-", $2 }' "$1"
}

# expect_svcrdma DIR: each rdma_stat_* and max_* file's number
expect_svcrdma() {
	local f n
	for f in "$1"/*; do
		[ -r "$f" ] || continue
		n=${f##*/}
		case $n in
		rdma_stat_*) echo "nfsrdma_svcrdma_${n#rdma_stat_}_total" - "$(cat "$f")" ;;
		max_*) echo "nfsrdma_svcrdma_$n" - "$(cat "$f")" ;;
		esac
	done
}

# sample PROM METRIC LABELS: the sample's value ("" none); LABELS ("-":
# none) may end
# in "#N": the N-th sample whose labels hold the rest
sample() {
	local l=$3 nth=1
	if [[ $l == *"#"* ]]; then nth=${l##*#}; l=${l%#*}; fi
	awk -v m="$2" -v l="$l" -v n="$nth" '
		(index($0, m "{") == 1 || index($0, m " ") == 1) && (l == "" || index($0, l)) && ++k == n { print $NF; exit }' "$1"
}

# bracket NAME LO HI: expectation lines on stdin; each must lie in
# [value in LO, value in HI]; prints what differs (at most 5) and a count
bracket() {
	local name=$1 lo=$2 hi=$3 n=0 bad=0 m l w a b
	while read -r m l w; do
		[ "$l" = - ] && l=
		n=$((n + 1))
		a=$(sample "$lo" "$m" "$l"); b=$(sample "$hi" "$m" "$l")
		if [ -z "$a" ] || [ -z "$b" ] || [ "$w" -lt "${a%.*}" ] || [ "$w" -gt "${b%.*}" ]; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && echo "  $name: $m{$l}: file $w, /metrics ${a:-none}..${b:-none}"
		fi
	done
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ] && echo "  $name: $n values of the file within /metrics"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}
