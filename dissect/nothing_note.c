/* The "nothing found" line (dissect_nothing_note in dissect.h): what a
 * run that found no RPC saw instead, so an empty output is never silent,
 * whichever tool read the capture. */
#include "dissect/dissect.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/transport.h"

void dissect_nothing_note(char *buf, size_t len, const struct dissect_stats *s, const struct transport_stats *t)
{
	size_t n;

#define ADD(...) (n = strlen(buf), snprintf(buf + n, len - n, __VA_ARGS__))
	if (!len)
		return;
	/* RPC over TCP and UDP is looked for too: "no RPC-over-RDMA" would
	 * wrongly say a capture of NFS over TCP was read as RDMA only */
	snprintf(buf, len, "no RPC found (RDMA, TCP or UDP)");
	if (!t)
		return;
	ADD(" in %" PRIu64 " frames:", t->frames);
	if (!t->frames) {
		ADD(" the capture is empty");
		return;
	}
	if (t->roce_v2 + t->roce_v1 + t->ib_native == 0) {
		ADD(" none is RoCE or InfiniBand, and none of the %" PRIu64 " other frames (%" PRIu64
		    " TCP segments, %" PRIu64 " UDP datagrams) carries ONC RPC (another port? --rpc-port)",
		    t->non_rdma, t->tcp_segments, t->udp_datagrams);
		return;
	}
	ADD(" RoCEv2 %" PRIu64 ", RoCEv1 %" PRIu64 ", InfiniBand %" PRIu64 ", other %" PRIu64
	    "; %" PRIu64 " RC packets on %" PRIu64 " connection(s), %" PRIu64 " SENDs",
	    t->roce_v2, t->roce_v1, t->ib_native, t->non_rdma, t->rc_packets, t->conns, s->sends);
	if (s->not_rpcrdma)
		ADD(", %" PRIu64 " of them not RPC-over-RDMA (another RDMA application?)", s->not_rpcrdma);
	if (s->bad_rpcrdma)
		ADD(", %" PRIu64 " with a broken RPC-over-RDMA header", s->bad_rpcrdma);
	if (!s->sends && t->rc_packets)
		ADD(" (RDMA traffic without SENDs: only the data of a transfer was captured?)");
	if (t->tcp_segments + t->udp_datagrams)
		ADD("; %" PRIu64 " TCP segments, %" PRIu64 " UDP datagrams, no ONC RPC in them",
		    t->tcp_segments, t->udp_datagrams);
#undef ADD
}
