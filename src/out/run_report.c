/* The --stats counters and the "nothing found" line (run_report.h). */
#include "src/out/run_report.h"

#include <inttypes.h>
#include <string.h>

void run_report_stats(FILE *f, const struct dissect_stats *s, const struct transport_stats *t)
{
	if (t)
		fprintf(f, "transport: frames %llu bytes %llu rc %llu sends %llu writes %llu reads %llu "
			"psn-gaps %llu dups %llu truncated %llu invalid %llu\n",
			(unsigned long long)t->frames, (unsigned long long)t->bytes,
			(unsigned long long)t->rc_packets, (unsigned long long)t->sends,
			(unsigned long long)t->writes, (unsigned long long)t->reads,
			(unsigned long long)t->psn_gaps, (unsigned long long)t->duplicates,
			(unsigned long long)t->truncated, (unsigned long long)t->invalid);
	/* ONC RPC over TCP/UDP, when the capture had any */
	if (t && (t->rpc_streams || t->rpc_bad_marks || t->rpc_no_record || t->rpc_udp_bad))
		fprintf(f, "rpc-net: streams %llu tcp-msgs %llu udp-msgs %llu segments %llu datagrams %llu "
			"out-of-order %llu retransmits %llu gaps %llu gap-bytes %llu resyncs %llu bad-marks %llu "
			"cut %llu dropped %llu no-record %llu udp-bad %llu capped %llu idle %llu evicted %llu "
			"ip-frags %llu reassembled %llu frag-dropped %llu reply-first %llu paired-late %llu "
			"hold-expired %llu hold-full %llu\n",
			(unsigned long long)t->rpc_streams, (unsigned long long)t->rpc_msgs_tcp,
			(unsigned long long)t->rpc_msgs_udp, (unsigned long long)t->tcp_segments,
			(unsigned long long)t->udp_datagrams, (unsigned long long)t->tcp_out_of_order,
			(unsigned long long)t->tcp_retransmits, (unsigned long long)t->tcp_gaps,
			(unsigned long long)t->tcp_gap_bytes, (unsigned long long)t->rpc_resyncs,
			(unsigned long long)t->rpc_bad_marks, (unsigned long long)t->rpc_msgs_cut,
			(unsigned long long)t->rpc_msgs_dropped, (unsigned long long)t->rpc_no_record,
			(unsigned long long)t->rpc_udp_bad, (unsigned long long)t->rpc_buf_capped,
			(unsigned long long)t->rpc_streams_idle, (unsigned long long)t->rpc_streams_evicted,
			(unsigned long long)t->ip_frags, (unsigned long long)t->ip_reassembled,
			(unsigned long long)t->ip_frag_dropped, (unsigned long long)s->early_held,
			(unsigned long long)s->early_paired, (unsigned long long)s->early_expired,
			(unsigned long long)s->early_full);
	if (t && t->ipoib)
		fprintf(f, "transport: ipoib %llu (IP over InfiniBand packets)\n", (unsigned long long)t->ipoib);
	if (t && t->icrc_absent)
		fprintf(f, "transport: the capture keeps no ICRC after RoCE packets (seen at frame %llu)\n",
			(unsigned long long)t->icrc_absent_from);
	fprintf(f, "dissect: conns %llu sends %llu rpcrdma-v1 %llu v2 %llu other %llu bad %llu "
		"calls %llu replies %llu records %llu unmatched-replies %llu no-reply %llu "
		"rdma-matched %llu hinted %llu unmatched %llu decode-errors %llu max-inflight %llu\n",
		(unsigned long long)s->conns, (unsigned long long)s->sends,
		(unsigned long long)s->rpcrdma_v1, (unsigned long long)s->rpcrdma_v2,
		(unsigned long long)s->not_rpcrdma, (unsigned long long)s->bad_rpcrdma,
		(unsigned long long)s->calls, (unsigned long long)s->replies,
		(unsigned long long)s->records, (unsigned long long)s->unmatched_replies,
		(unsigned long long)s->timeouts, (unsigned long long)s->rdma_matched,
		(unsigned long long)s->rdma_hinted, (unsigned long long)s->rdma_unmatched,
		(unsigned long long)s->decode_errors, (unsigned long long)s->max_inflight);
}

void run_report_nothing(char *buf, size_t len, const char *file, const struct dissect_stats *s,
			const struct transport_stats *t)
{
	int n = snprintf(buf, len, "%s: ", file);

	if (n >= 0 && (size_t)n < len)
		dissect_nothing_note(buf + n, len - (size_t)n, s, t);
}
