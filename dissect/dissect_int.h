/* Internals of the dissector, shared by the files of dissect/ only (the
 * layering test keeps every other folder out). */
#ifndef NFSRDMA_DISSECT_INT_H
#define NFSRDMA_DISSECT_INT_H

#include "dissect/chunks.h"
#include "dissect/extract.h"
#include "dissect/dissect.h"
#include "dissect/rpcrdma.h"
#include "dissect/rpcrdma2.h"
#include "dissect/transport.h"
#include "dissect/xid.h"

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
	/* Calls whose RPC-over-RDMA header could not be read: a version this
	 * decoder does not know (reported as a diagnostic), or cut by the
	 * snap length (counted): their reply and the server's RDMA on their
	 * chunks match nothing, and that is not the peer's fault.  Kept until the reply or
	 * the call timeout; the oldest is overwritten beyond 8. */
	struct unknown_call { uint64_t ts; uint32_t xid; uint8_t dir, used; } unknown[8];
	uint8_t  unknown_next;
	/* RPC-over-RDMA version 2 */
	uint8_t  v2_layout;      /* enum rpcrdma2_layout once a message has shown it */
	uint32_t v2_rbsiz[2];    /* receive buffer size side i advertised (CONNPROP), 0 = default */
	/* frame notes: the requests each side sent lately (PSN span, RPC),
	 * so an ACK can be tied to the RPC it acknowledges */
	struct sentmsg { uint32_t psn_lo, psn_hi, xid; uint8_t call_dir, used; } (*sent)[32];  /* [2][32], on first use */
	uint8_t  sent_next[2];
	struct v2cont {          /* a continued message (CALL/REPLY_MIDDLE, F_MORE) being collected */
		bool     active;
		bool     oversize;   /* some part exceeded the inline threshold */
		uint32_t xid, limit, biggest;
		uint64_t ts_first, frame_first;
		uint32_t hdrs, sends;
		size_t   len, cap, msg_len;
		uint8_t *buf;
		uint64_t *frames;    /* frame notes: the frames of the parts so far */
		uint32_t nframes, cap_frames;
	} *cont;                 /* [2] per sending side, on first use (version 2 only) */
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
	/* Set while a reassembled v2 message is handled: the inline check was
	 * made per SEND (cont_oversize: a part went over cont_limit). */
	bool     cont_msg, cont_oversize;
	const struct rpcrdma2_hdr *h2;  /* the v2 header of the current SEND, NULL for v1 */
	bool     noted;          /* frame notes: the current event's frames are taken care of */
	uint32_t cont_biggest, cont_limit;
	/* the transport counters of the last feed run into it (feed.c) */
	struct transport_stats tstats;
	bool     tstats_valid;
	uint64_t now_ns;
	/* replies over TCP/UDP waiting for their call (rpc_hold.c), oldest first */
	struct early_reply *early_old, *early_new;
	size_t   early_n, early_bytes;
	/* the current event's message lost bytes to the capture's snap length */
	bool     ev_cut;
	size_t   ev_kept;
};

/* Shared by the parts of the dissector: dissect.c (set-up, diagnostics,
 * frame notes, the event switch), dissect_record.c (calls and replies ->
 * records), dissect_v2.c (RPC-over-RDMA version 2 SENDs). */
void dx_diag(struct dissect *d, uint64_t frame, size_t off, const char *layer,
	     enum cur_err kind, const char *msg);
/* Reports a failed cursor: "truncated: <field>" / "invalid: <field>". */
void dx_diag_cur(struct dissect *d, uint64_t frame, size_t base, const struct cursor *c,
		 const char *layer);
void dx_note_now(struct dissect *d, uint64_t frame, uint32_t conn_id, uint32_t xid, uint8_t role);
void dx_note_attach(struct dissect *d, struct xentry *x, const struct rdma_event *ev, uint8_t role);
void dx_note_record(struct dissect *d, struct xentry *x);
void dx_endpoint(struct rec_endpoint *e, const struct rdma_endpoint *s);
void dx_decode_call(struct dissect *d, struct xentry *x, const uint8_t *buf, size_t len,
		    uint64_t frame, size_t base);
void dx_decode_reply(struct dissect *d, struct xentry *x, const uint8_t *buf, size_t len,
		     uint64_t frame, size_t base);
/* The record of x is complete (or given up on): out it goes, x is freed. */
void dx_emit(struct dissect *d, struct xentry *x);
void dx_evict(struct dissect *d);
struct uconn *dx_uconn_get(struct dissect *d, const struct rdma_conn *c);
/* dissect_rpc.c: an ONC RPC message from TCP or UDP (RDMA_EV_RPC) */
void dx_on_rpc(struct dissect *d, const struct rdma_event *ev);
/* One RPC message over TCP/UDP, as the record needs it after its event. */
struct net_msg {
	const uint8_t *data;
	size_t   len, msg_len;
	uint64_t ts_first, ts_last, frame_first;
	uint32_t flags, npkts;
	uint32_t nretrans;          /* rdma_event.nretrans */
	uint8_t  ip_proto;
};
/* The reply m completes x (with its call, or none) and x goes out. */
void dx_rpc_reply(struct dissect *d, struct xentry *x, const struct net_msg *m);
/* rpc_hold.c: a reply that came before its call waits in x (copied);
 * false when the hold is full (counted) and it must go out now */
bool dx_hold_reply(struct dissect *d, struct xentry *x, const struct net_msg *m);
/* x's call has come and is filled in: its held reply completes it */
void dx_hold_pair(struct dissect *d, struct xentry *x);
/* x's held reply goes out with no call */
void dx_hold_release(struct dissect *d, struct xentry *x);
/* held replies older than the hold's time (d->now_ns) go out */
void dx_hold_sweep(struct dissect *d);
/* the connection closed: its calls have all come, its held replies go out */
void dx_hold_close(struct dissect *d, uint32_t conn_id);
/* the capture's end: every held reply goes out */
void dx_hold_flush(struct dissect *d);
void dx_hold_free(struct dissect *d);
/* c failed for want of bytes the capture's snap length cut off: counts the
 * message (a reply when is_reply) for dissect_snap_note instead of a
 * diagnostic per packet.  False (nothing counted) for any other failure. */
bool dx_snap_cut(struct dissect *d, const struct cursor *c, bool is_reply);
/* Takes the call of xid from side dir out of u->unknown: true if it was there. */
bool dx_unknown_call_answered(const struct dissect *d, struct uconn *u, int dir, uint32_t xid,
			      uint64_t now);
/* Inline threshold for messages sent by side dir (vers 1 or 2). */
uint32_t dx_inline_limit(const struct uconn *u, const struct rdma_conn *c, int dir, uint32_t vers);
void dx_handle_call(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
		    const struct rpcrdma_hdr *h);
void dx_handle_reply(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
		     const struct rpcrdma_hdr *h, struct xentry *x);
void dx_cont_drop(struct dissect *d, struct v2cont *k, uint64_t frame, const char *why);
void dx_on_send_v2(struct dissect *d, struct uconn *u, const struct rdma_event *ev);

#endif
