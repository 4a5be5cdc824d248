/* The contract between the RDMA transport layers (erf/ib/roce/conn, which
 * turn packets into RC messages) and the RPC-over-RDMA layers above (which
 * turn messages into RPCs and per-XID records).  The transport owns
 * connections and reassembly; the upper layers see only whole messages. */
#ifndef NFSRDMA_RDMA_EVENT_H
#define NFSRDMA_RDMA_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One side of an RC connection. */
struct rdma_endpoint {
	uint8_t  family;      /* 4, 6 (RoCEv2 IP), 'G' (RoCEv1/IB GID), 'L' (IB LID only) */
	uint8_t  addr[16];    /* IPv4 in the first 4 bytes; IPv6 or GID */
	uint16_t lid;         /* IB only */
	uint16_t udp_sport;   /* RoCEv2 only (entropy port of this sender) */
	uint32_t qpn;         /* this side's QP number (24 bits) */
	bool     qpn_known;   /* false until learned (CM or inference) */
};

/* How the two QPs of a connection were paired. */
enum rdma_pairing {
	PAIR_CM = 1,        /* from CM REQ/REP (/RTU) */
	PAIR_INFERRED,      /* mid-connection: from addresses, ACK/READ-response direction, PSNs */
	PAIR_ONE_SIDED,     /* only one direction seen */
};

struct rdma_conn {
	uint32_t id;                   /* 1, 2, ... in order of first sight */
	struct rdma_endpoint side[2];  /* side[0] = active opener (CM REQ sender; the RPC client) when known */
	enum rdma_pairing pairing;
	bool     client_known;         /* side[0] is known to be the requester */
	/* RFC 8797 RPC-over-RDMA connection parameters from the CM private data. */
	bool     cm_params[2];         /* side[i] sent valid parameters */
	uint32_t inline_send[2];       /* bytes; side[i]'s max send size */
	uint32_t inline_recv[2];       /* bytes; side[i]'s receive buffer size */
	bool     remote_inv[2];        /* side[i] accepts remote invalidation */
	uint64_t first_ns, last_ns;
	/* 0: an RDMA connection; 6 (TCP) or 17 (UDP): a TCP connection or a
	 * UDP flow carrying ONC RPC (dissect/rpc_net.h), side[i].udp_sport
	 * then being side i's TCP or UDP port */
	uint8_t  ip_proto;
	void    *upper;                /* owned by the upper layers */
};

enum rdma_ev_type {
	RDMA_EV_CONN_NEW = 1,  /* a connection was created (conn valid, no data) */
	RDMA_EV_SEND,          /* a whole SEND message (reassembled First..Last / Only) */
	RDMA_EV_WRITE,         /* a whole RDMA WRITE (First..Last / Only) into rkey/va */
	RDMA_EV_READ,          /* an RDMA READ: request + all of its responses */
	RDMA_EV_GAP,           /* packets missing (PSN gap) on conn/dir: state may be incomplete */
	RDMA_EV_CONN_CLOSE,    /* CM DREQ/DREP seen, or capture end (flush) */
	/* Only with frame tracking on (transport_set_frame_tracking): */
	RDMA_EV_ACK,           /* an ACK/NAK: dir = side whose requests it acknowledges, psn_first its PSN, imm the AETH syndrome */
	RDMA_EV_FRAME,         /* a frame in no message: CM MAD, other traffic, duplicate...; conn may be NULL */
	/* On a TCP / UDP connection (conn->ip_proto), any time: */
	RDMA_EV_RPC,           /* a whole ONC RPC message (record marks removed); GAP and
	                          CONN_NEW / CONN_CLOSE come for these connections too */
};

enum rdma_ev_flags {
	RDMA_EVF_INCOMPLETE   = 1u << 0, /* some packets of the message missing */
	RDMA_EVF_RETRANSMIT   = 1u << 1, /* contains retransmitted packets */
	RDMA_EVF_TRUNC_DATA   = 1u << 2, /* capture snaplen cut payload: data_len < msg_len */
	RDMA_EVF_HAS_IMM      = 1u << 3,
	RDMA_EVF_HAS_INV      = 1u << 4, /* SEND with Invalidate: inv_rkey valid */
	RDMA_EVF_NO_RESPONSE  = 1u << 5, /* READ request whose responses never came */
	RDMA_EVF_NO_DATA      = 1u << 6, /* payload not kept: the data filter declined it */
};

struct rdma_event {
	enum rdma_ev_type type;
	const struct rdma_conn *conn;
	int      dir;              /* sender: 0 = side[0] -> side[1], 1 = reverse.
	                              For READ: the side that issued the READ request */
	uint32_t flags;            /* rdma_ev_flags */
	uint64_t ts_first_ns;      /* first packet (READ: the request) */
	uint64_t ts_last_ns;       /* last packet (READ: last response) */
	uint64_t frame_first;      /* 1-based frame numbers in the capture */
	uint64_t frame_last;
	uint32_t npkts;
	uint32_t psn_first;
	/* Packets of this message the wire showed behind its PSN stream: a
	 * resend after a NAK or a timeout, or the capture's duplicate, while
	 * the message was reassembled; and a lost packet's resend that fills a
	 * gap (that message is delivered late, RDMA_EVF_RETRANSMIT set). */
	uint32_t nretrans;

	/* SEND: the message payload; WRITE: data written; READ: data returned. */
	const uint8_t *data;       /* valid only during the callback */
	size_t   data_len;         /* bytes captured */
	size_t   msg_len;          /* bytes on the wire (>= data_len) */

	/* WRITE / READ: the remote buffer (RETH) */
	uint32_t rkey;
	uint64_t va;
	uint32_t dma_len;

	uint32_t imm;              /* RDMA_EVF_HAS_IMM */
	uint32_t inv_rkey;         /* RDMA_EVF_HAS_INV */

	/* Frame tracking only (else NULL / 0): every frame of the event, in
	 * capture order (READ: the request, then its responses); valid during
	 * the callback.  RDMA_EV_FRAME: frame_kind 1 = CM MAD, 2 = other. */
	const uint64_t *frames;
	uint32_t nframes;
	uint8_t  frame_kind;
};

typedef void (*rdma_event_fn)(const struct rdma_event *ev, void *ctx);
/* Asked when a multi-packet RDMA WRITE (dir = writer) or RDMA READ (dir =
 * requester) starts, with its RETH: false = the payload is not needed, so
 * the transport does not copy it (the event still has every length, key
 * and time, data_len 0 and RDMA_EVF_NO_DATA).  ctx is the event callback's. */
typedef bool (*rdma_data_filter_fn)(const struct rdma_conn *c, int dir, int type, uint32_t rkey,
				    uint64_t va, uint32_t len, void *ctx);

#endif
