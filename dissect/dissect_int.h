/* Internals shared by dissect.c (events -> records) and dissect_run.c
 * (capture file -> transport -> events). */
#ifndef NFSRDMA_DISSECT_INT_H
#define NFSRDMA_DISSECT_INT_H

#include "dissect/chunks.h"
#include "dissect/dissect.h"
#include "dissect/rpcrdma.h"
#include "dissect/xid.h"

struct transport;

/* Upper-layer state of one connection, indexed by rdma_conn id. */
struct uconn {
	const struct rdma_conn *conn;
	uint32_t granted[2];     /* credits last granted to side i (as caller) */
	bool     granted_known[2];
	uint32_t inflight[2];    /* calls outstanding from side i */
	uint32_t gaps;
	bool     credit_reported[2];
	/* Seen to carry RPC-over-RDMA (RFC 8797 CM data, or a message that
	 * decoded down to a valid RPC header).  Until then, messages that do
	 * not decode are counted as other RDMA traffic, not reported: perftest
	 * and friends must not drown the output in errors. */
	bool     is_rpcrdma;
};

struct dissect {
	struct dissect_opts opts;
	struct dissect_cbs cbs;
	struct dissect_stats st;
	struct xid_table xids;
	struct seg_table segs;
	struct uconn *conns;
	size_t nconns;
	struct rpcrdma_hdr hdr;      /* scratch: decoded header of the current SEND */
	struct transport *tp;
	void (*tp_free)(struct transport *);   /* set by dissect_run.c */
	uint64_t now_ns;
};

#endif
