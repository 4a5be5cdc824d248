/* Inside the RPC-over-TCP/UDP half of the transport (rpc_net.c,
 * tcp_reasm.c, rpc_record.c, ip_frag.c): limits, the stream table and
 * the functions they share.  Not for use outside them. */
#ifndef NFSRDMA_RPC_NET_INT_H
#define NFSRDMA_RPC_NET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/ip_l4.h"
#include "dissect/rpc_net.h"

#define RN_STREAMS_MAX   4096               /* TCP streams and UDP flows tracked at once */
#define RN_HASH          8192               /* buckets (power of two) */
#define RN_COPY_MAX      TRANSPORT_DATA_CAP /* bytes of one RPC message kept */
#define RN_MARK_MAX      ((uint32_t)16 << 20) /* a longer record fragment is taken for garbage */
#define RN_OOO_SEGS      256                /* out-of-order segments held per direction */
#define RN_OOO_BYTES     ((size_t)4 << 20)
#define RN_BUDGET        ((size_t)256 << 20) /* every stream's buffers together */
#define RN_HEAD_KEEP     512                /* bytes a message keeps past the budget */
#define RN_KEEP_BUF      ((size_t)64 << 10) /* a message buffer kept between messages */
#define RN_IDLE_NS       (600ull * 1000000000ull) /* a stream this quiet is closed */
#define RN_SCAN_MAX      65536              /* bytes searched for a record mark per segment */
#define RN_RECENT_CALLS  16
#define RN_MAX_PORTS     16

/* One held out-of-order TCP segment. */
struct rn_seg {
	struct rn_seg *next;        /* by sequence number */
	uint32_t seq;
	uint32_t cap, wire;         /* bytes held / on the wire */
	uint64_t ts, frame;
	uint8_t  data[];
};

/* One direction of a stream (sender = side[dir]). */
struct rn_dir {
	/* TCP ordering */
	bool     seq_known;
	uint32_t next_seq;          /* the next byte expected */
	struct rn_seg *ooo;
	uint32_t ooo_n;
	size_t   ooo_bytes;
	bool     fin;
	/* record marking */
	bool     sync;              /* at or inside a record the marks describe */
	bool     ever_sync;
	uint8_t  mark[4];
	uint8_t  mark_have;
	uint32_t frag_left;         /* bytes of the current fragment to come */
	bool     last_frag;
	bool     in_frag;
	uint64_t hunted;            /* bytes skipped looking for a record mark */
	/* the message being built */
	bool     started;
	bool     hole;              /* bytes missing: copying stopped there */
	uint8_t *buf;
	size_t   len, cap;          /* bytes copied, allocated */
	size_t   msg_len;           /* bytes on the wire so far */
	uint32_t flags;             /* RDMA_EVF_* */
	uint32_t npkts;
	uint64_t ts_first, ts_last, frame_first, frame_last, frame_pushed;
	uint64_t *frames;           /* frame tracking: the message's frames */
	uint32_t nframes, cap_frames;
	/* xids of the calls this side sent lately (a reply is plausible) */
	uint32_t calls[RN_RECENT_CALLS];
	uint8_t  calls_next, ncalls;
	bool     replied;           /* this side sent a reply: it serves */
};

struct rn_stream {
	struct rdma_conn conn;      /* id 0 until the flow is known to carry RPC */
	struct rn_stream *hnext, *older, *newer;
	uint8_t  proto;             /* IPPROTO_TCP_NUM / IPPROTO_UDP_NUM */
	bool     rpc;               /* carries RPC: a port of the list, or a plausible call */
	bool     listed;            /* on a port of the list: search anywhere after a gap */
	bool     opened;            /* RDMA_EV_CONN_NEW sent */
	bool     reported;          /* its "no RPC found" line was said */
	uint8_t  fam;
	uint64_t last_ns;
	struct rn_dir d[2];
};

struct ip_frag;

struct rpc_net {
	rdma_event_fn fn;
	diag_fn diag;
	void *ctx;
	struct transport_stats *st;
	uint32_t *next_id;
	bool     enabled, track, used;
	uint16_t ports[RN_MAX_PORTS];
	unsigned nports;
	struct rn_stream *hash[RN_HASH];
	struct rn_stream *oldest, *newest;   /* by last activity */
	size_t   nstreams;
	size_t   budget_used;               /* bytes of message buffers and held segments */
	struct ip_frag *frags;
	uint64_t frame;                     /* the frame being decoded */
	char     msg[200];
};

/* rpc_net.c */
void rn_diag(struct rpc_net *n, uint64_t frame, size_t off, const char *layer, enum cur_err kind,
	     const char *msg);
/* The flow carries RPC from now on: give it its id, say it is new. */
void rn_make_rpc(struct rpc_net *n, struct rn_stream *s);
/* Could body (n bytes captured of an RPC message of msg_len bytes sent by
 * side dir) be the start of an RPC message on s? */
bool rn_rpc_plausible(const struct rn_stream *s, int dir, const uint8_t *body, size_t n,
		      size_t msg_len);
void rn_emit(struct rpc_net *n, struct rn_stream *s, int dir, const uint8_t *data, size_t len,
	     size_t msg_len, uint32_t flags, uint64_t ts_first, uint64_t ts_last, uint64_t frame_first,
	     uint64_t frame_last, uint32_t npkts, const uint64_t *frames, uint32_t nframes);
void rn_event(struct rpc_net *n, struct rn_stream *s, int dir, int type, uint64_t ts, uint64_t frame);
void rn_frame_other(struct rpc_net *n, uint64_t ts, uint64_t frame);

/* tcp_reasm.c: one TCP segment of stream s from side dir, in capture order */
void tcp_segment(struct rpc_net *n, struct rn_stream *s, int dir, uint64_t ts, uint64_t frame,
		 const struct l4_pkt *p);
/* the stream ends (FIN both ways, RST, idle, eviction, capture end) */
void tcp_close(struct rpc_net *n, struct rn_stream *s, uint64_t ts);
void tcp_dir_free(struct rpc_net *n, struct rn_dir *d);

/* rpc_record.c: in-order bytes of direction dir: cap captured of wire */
void rr_bytes(struct rpc_net *n, struct rn_stream *s, int dir, const uint8_t *p, size_t cap,
	      size_t wire, uint64_t ts, uint64_t frame);
/* the direction's SYN was seen: on a port of the list its first byte
 * is a record mark (no search, whatever the segments' sizes) */
void rr_start(struct rpc_net *n, struct rn_stream *s, int dir);
/* wire bytes lost (a gap in the sequence space) */
void rr_lost(struct rpc_net *n, struct rn_stream *s, int dir, size_t wire, uint64_t ts, uint64_t frame);
/* the direction ends: a message still being built goes out incomplete */
void rr_end(struct rpc_net *n, struct rn_stream *s, int dir, const char *why);

/* ip_frag.c: IP fragments of UDP datagrams */
struct ip_frag *ip_frag_new(void);
void ip_frag_free(struct ip_frag *f);
/* Adds one fragment (of frame, its IP header at base) to n->frags; when it completes a
 * datagram, returns its IP payload (valid until the next call) with
 * *len, and when its first fragment came.  NULL otherwise.  Datagrams
 * given up (30 s old, more than 64 in progress, the capture's end:
 * ip_frag_flush) and fragments refused are counted, one line each. */
const uint8_t *ip_frag_add(struct rpc_net *n, uint64_t ts, uint64_t frame, size_t base,
			   const struct l4_pkt *p, size_t *len, uint64_t *ts_first);
void ip_frag_flush(struct rpc_net *n);

#endif
