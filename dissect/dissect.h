/* Top-level glue used by every tool: capture source -> transport ->
 * RPC-over-RDMA -> RPC -> programs -> per-XID records and findings,
 * delivered through callbacks.  dissect_event() is the seam between the
 * transport half and the upper half (unit tests feed it directly). */
#ifndef NFSRDMA_DISSECT_H
#define NFSRDMA_DISSECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/diag.h"
#include "dissect/dtree.h"
#include "dissect/rdma_event.h"
#include "dissect/record.h"

struct dissect;

/* A finding not tied to one record (e.g. an RDMA operation that matched
 * no advertised segment); record findings live in the record. */
struct dissect_finding {
	uint32_t conn_id;
	uint32_t xid;         /* 0 if none */
	uint64_t frame;
	uint64_t ts_ns;
	uint16_t id;          /* enum finding_id */
	uint32_t a;
	uint64_t b;
};

struct dissect_opts {
	bool     tree;           /* build -V decode trees */
	size_t   max_inflight;   /* evict the oldest call beyond this (0: 1M) */
	uint64_t timeout_ns;     /* a call older than this is flushed unanswered (0: 600 s) */
	/* ONC RPC over TCP/UDP (dissect/rpc_net.h), for the packet feeds:
	 * more ports to take for RPC from the first byte, and a switch off */
	uint16_t rpc_ports[16];
	unsigned n_rpc_ports;
	bool     no_rpc_net;
};

/* What a frame was, for dissect_cbs.frame_note. */
enum dissect_frame_role {
	DFR_CALL = 1,       /* a packet of the call's SEND (v2: of any of its parts) */
	DFR_REPLY,          /* a packet of the reply's SEND (RDMA_ERROR included) */
	DFR_READ_REQ,       /* an RDMA READ request */
	DFR_READ_RESP,      /* an RDMA READ response */
	DFR_WRITE,          /* an RDMA WRITE packet */
	DFR_ACK,            /* an ACK / NAK of one of the above */
	DFR_CM,             /* a CM MAD (never part of an RPC) */
	DFR_OTHER,          /* anything else: other RDMA traffic, connection-level
			     * RPC-over-RDMA messages (v2 CONNPROP, GRANT, RDMA_DONE),
			     * undecodable messages, duplicates, non-RDMA frames */
};

/* One frame of the capture and what it was part of. */
struct dissect_frame_note {
	uint64_t frame;       /* 1-based frame number in the capture */
	uint32_t conn_id;     /* 0 when not on a connection (CM, other traffic) */
	uint32_t xid;         /* the RPC it belonged to; 0 if none */
	uint8_t  role;        /* enum dissect_frame_role */
	/* The record the frame ended up in, valid only during the callback;
	 * NULL for frames of no RPC, and for frames of an RPC whose record was
	 * already delivered (the ACK of a reply comes after the reply: xid
	 * still says which RPC). */
	const struct nfsrdma_record *rec;
};

struct dissect_cbs {
	/* One per RPC, in completion order.  tree is NULL unless opts.tree. */
	void (*record)(const struct nfsrdma_record *r, const struct dtree *tree, void *ctx);
	/* Findings tied to no record (an RDMA operation no advertised
	 * segment explains, ...); a record's own findings are in the record
	 * only, so each finding reaches the caller once.  May be NULL. */
	void (*finding)(const struct dissect_finding *f, void *ctx);
	diag_fn diag;                                                 /* may be NULL */
	void *ctx;
	/* May be NULL (then it costs nothing: the transport does not even
	 * collect frame numbers).  Called once for every frame of the capture:
	 * the frames of an RPC (its call, reply, RDMA READ requests and
	 * responses, RDMA WRITEs and the ACKs of those seen before the reply)
	 * right after record() delivered its record, in frame order, with rec
	 * pointing at it; every other frame as soon as it is known, with rec
	 * NULL.  A packet feed (dissect/feed.h) turns frame tracking on by
	 * itself; a program that drives its own transport into dissect_event()
	 * must call transport_set_frame_tracking(t, dissect_wants_frames(d)). */
	void (*frame_note)(const struct dissect_frame_note *n, void *ctx);
};

struct dissect_stats {
	uint64_t events, sends, reads, writes, gaps, conns;
	uint64_t rpcrdma_v1, rpcrdma_v2, not_rpcrdma, bad_rpcrdma;
	uint64_t calls, replies, records, unmatched_replies, timeouts, evicted;
	uint64_t rdma_errors, rdma_done, rdma_matched, rdma_hinted, rdma_unmatched;
	uint64_t decode_errors;
	uint64_t max_inflight;
	/* The capture's snap length cut the RPC-over-RDMA or RPC header: calls
	 * and replies that could not be named (reported once, by
	 * dissect_snap_note, instead of a diagnostic per packet), and the
	 * most bytes of such a message the capture kept. */
	uint64_t snap_cut_calls, snap_cut_replies, snap_cut_kept;
	/* TCP/UDP replies decoded before their call (dissect_rpc.c): held
	 * to wait for it, paired with it later, given up on after the hold's
	 * time, and not held because the hold was full */
	uint64_t early_held, early_paired, early_expired, early_full;
};

struct dissect *dissect_new(const struct dissect_opts *opts, const struct dissect_cbs *cbs);
void dissect_free(struct dissect *d);

/* Feeds one transport event (the rdma_event_fn of transport.h). */
void dissect_event(const struct rdma_event *ev, void *d);
/* Flushes every call still waiting for its reply (capture end). */
void dissect_flush(struct dissect *d);
const struct dissect_stats *dissect_stats(const struct dissect *d);
/* True when cbs.frame_note is set: the transport must track frames. */
bool dissect_wants_frames(const struct dissect *d);

/* Transport counters of the last packet feed run into d (dissect/feed.h,
 * e.g. by dissect_file() of pcap/dissect_run.h), or NULL if none. */
const struct transport_stats *dissect_transport_stats(const struct dissect *d);

/* The one line that says a snap length hid calls and replies (see
 * dissect_stats.snap_cut_*), written into buf; false (buf empty) when
 * none was hidden. */
bool dissect_snap_note(const struct dissect_stats *st, char *buf, size_t len);

/* The one line that says a run found no RPC and what the input held
 * instead (frames per link, RDMA connections, SENDs that are not
 * RPC-over-RDMA, TCP and UDP without ONC RPC), written into buf without
 * a file name: "no RPC found (RDMA, TCP or UDP) in N frames: ...". */
struct transport_stats;
void dissect_nothing_note(char *buf, size_t len, const struct dissect_stats *s, const struct transport_stats *t);

/* Formats an endpoint ("10.9.0.1", "fe80::1", "gid fe80::...", "lid 0x12"). */
const char *dissect_addr_str(const struct rec_endpoint *e, char *buf, size_t len);

#endif
