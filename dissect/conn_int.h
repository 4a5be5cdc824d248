/* Inside the connection table (conn.c, conn_index.c, conn_life.c,
 * conn_pair.c): its limits, the index, the per-connection state and the
 * functions the four files share.  Not for use outside them. */
#ifndef NFSRDMA_CONN_INT_H
#define NFSRDMA_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/conn.h"

#define READS_MAX        128          /* outstanding RDMA READs per requester */
#define HOLD_MAX_EVENTS  256
#define HOLD_MAX_BYTES   ((size_t)4 << 20)
#define HOLD_ALL_BYTES   ((size_t)64 << 20)
#define HOLD_MAX_NS      (5ull * 1000000000ull)
#define CLOSED_GRACE_NS  (1ull * 1000000000ull)
#define PENDING_REQS     64
#define PSN_WINDOW       (1 << 16)    /* how far back a PSN still matches */
#define WAIT_SCAN_MAX    64           /* candidates scored per unknown QP */

enum { HK_QP = 'Q', HK_COMM = 'C', HK_WAIT = 'W' };

/* 40-byte key: a QP (addr a, id = QPN), a CM comm ID (addr a = owner), or
 * an address pair of waiting one-sided connections (a unknown, b known). */
struct hkey {
	uint8_t  kind, fam;
	uint16_t pad;
	uint32_t id;
	uint8_t  a[16], b[16];
};

struct conn;

/* An endpoint address as the tables key it: family + 16 bytes. */
struct ep_key {
	uint8_t fam;
	uint8_t a[16];
};

struct hent {
	struct hkey k;
	struct conn *c;     /* HK_WAIT: head of the waiting list */
	uint8_t side;       /* HK_QP: which side of c the key is */
	uint8_t state;      /* 0 empty, 1 used, 2 deleted */
};

struct htab {
	struct hent *e;
	size_t cap, used, dead;
	/* Recent hits, by (QPN ^ last address byte) & 3: a connection's
	 * packets (and the ACKs coming back) come in runs. */
	struct hent *last[4];
};

/* ------------------------------------------------------------ structures */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* Frame numbers of a message (frame tracking only). */
struct fvec {
	uint64_t *f;
	uint32_t n, cap;
};

/* A message being reassembled. */
struct asm_msg {
	bool     active;
	uint8_t  type;          /* RDMA_EV_SEND / WRITE / READ */
	uint32_t flags;
	uint64_t ts_first, ts_last, frame_first, frame_last;
	uint32_t npkts, psn_first, psn_next;
	uint32_t nretrans;      /* packets of it that came again or late (rdma_event) */
	size_t   msg_len;
	uint32_t rkey, dma_len, imm, inv_rkey;
	uint64_t va;
	bool     nodata;        /* the data filter declined this message's payload */
	struct buf data;
	struct fvec frames;     /* frame tracking: every frame of the message */
};

/* An RDMA READ request waiting for its responses. */
struct rd_req {
	uint32_t psn, npsn;     /* npsn 0: path MTU unknown */
	uint32_t rkey, len;
	uint64_t va, ts, frame;
	uint32_t flags;
};

/* Everything requested by one side (see the header comment). */
struct dir_state {
	bool     req_sync;
	uint32_t req_epsn;      /* next request PSN expected */
	uint32_t req_slack;     /* extra PSNs a READ of unknown length may use */
	bool     gap_valid;
	uint32_t gap_lo, gap_hi;
	struct asm_msg req;     /* SEND or WRITE in progress */
	struct rd_req *reads;   /* ring of outstanding READs */
	unsigned rd_head, rd_n, rd_cap;
	struct asm_msg rresp;   /* READ response in progress */
	uint32_t rresp_npsn;
	bool     resp_sync;
	uint32_t resp_epsn;     /* next READ response PSN expected */
	bool     ack_seen;
	uint32_t last_ack;      /* PSN of the last positive ACK */
};

/* Events held while the roles of an inferred connection are unknown. */
struct held {
	struct rdma_event ev;
	size_t off;             /* of the data in the arena */
	size_t foff;            /* of the frame numbers in farena (frame tracking) */
};

struct holdq {
	struct held *ev;
	size_t n, cap;
	struct buf arena;
	struct buf farena;      /* frame numbers of the held events */
	uint64_t first_ts;
};

struct conn_state {
	struct dir_state d[2];
	struct holdq hold;
};

struct conn {
	struct rdma_conn pub;
	struct conn_state *st;  /* NULL once closed */
	bool     closed;
	uint64_t closed_ts;
	bool     holding, announced;
	bool     comm_known[2];
	uint32_t comm_id[2];
	bool     cm_psn_known[2];
	uint32_t cm_psn[2];     /* starting PSN in side i's CM message */
	uint32_t pmtu;          /* bytes, 0 unknown */
	uint8_t  key_fam[2];    /* hash family/address of each side */
	uint8_t  key_addr[2][16];
	bool     linked[2];     /* side's QP key is in the table */
	struct conn *wait_next, *wait_prev; /* in a HK_WAIT list */
	bool     waiting;
	bool     sport_learned; /* sport rule checked against this CM pair */
	uint64_t first_frame, last_frame;
};

/* A REQ waiting for its REP. */
struct pending_req {
	bool     used;
	uint64_t ts, frame;
	uint8_t  fam;
	uint8_t  addr[16], peer[16];
	struct rdma_endpoint ep;
	struct cm_msg m;        /* priv pointers are not kept */
};

enum sport_model { SPORT_RXE = 1, SPORT_FLOW = 2 };

struct conn_table {
	rdma_event_fn fn;
	diag_fn diag;
	void *ctx;
	struct transport_stats *st;
	size_t data_cap;
	rdma_data_filter_fn want;
	bool track;             /* frame tracking: events carry their frames, ACK events */
	bool frame_used;        /* the current frame went into a message or an ACK event */
	struct htab ht;
	struct conn **conns;
	size_t nconns, cap_conns;
	uint32_t *id_counter;     /* shared with the RPC streams; NULL: nconns + 1 */
	struct pending_req pend[PENDING_REQS];
	unsigned pend_next;
	size_t held_bytes;      /* across all connections */
	unsigned sport_model;   /* learned from CM-paired connections */
	bool sport_checked;
};

/* conn_index.c: the index and keys */
struct hent *conn_ht_find(struct htab *t, const struct hkey *k);
struct hent *conn_ht_find_qp(struct htab *t, const struct ep_key *e, uint32_t qpn);
struct hent *conn_ht_put(struct htab *t, const struct hkey *k, struct conn *c, int side);
void conn_ht_del(struct htab *t, struct hent *e);
void conn_frame_keys(const struct ib_frame *f, struct ep_key *src, struct ep_key *dst);
void conn_fill_endpoint(struct rdma_endpoint *ep, const struct ib_frame *f, bool source);
struct hkey conn_qp_key(const struct ep_key *e, uint32_t qpn);
struct hkey conn_comm_key(const struct ep_key *e, uint32_t id);
struct hkey conn_wait_key(const struct ep_key *unknown, const struct ep_key *known);
struct ep_key conn_side_key(const struct conn *c, int i);

/* conn_life.c: diagnostics, buffers, events, connections */
void conn_diag(struct conn_table *t, uint64_t frame, enum cur_err kind, const char *msg);
void conn_fpush(struct conn_table *t, struct fvec *v, uint64_t frame);
int conn_buf_reserve(struct buf *b, size_t need);
void conn_ev_at(struct rdma_event *ev, enum rdma_ev_type type, struct conn *c, int dir, uint64_t ts,
		uint64_t frame);
void conn_announce(struct conn_table *t, struct conn *c);
void conn_emit(struct conn_table *t, struct conn *c, const struct rdma_event *ev);
void conn_hold_release(struct conn_table *t, struct conn *c);
struct conn *conn_new(struct conn_table *t, uint64_t ts, uint64_t frame);
void conn_link_side(struct conn_table *t, struct conn *c, int i);
void conn_wait_add(struct conn_table *t, struct conn *c, int unknown);
void conn_wait_remove(struct conn_table *t, struct conn *c);
void conn_unlink_all(struct conn_table *t, struct conn *c);
void conn_swap(struct conn_table *t, struct conn *c);
int conn_role_of(const struct ib_pkt *p);
void conn_close(struct conn_table *t, struct conn *c, uint64_t ts, uint64_t frame);

/* conn.c: messages */
void conn_end(struct conn_table *t, struct conn *c, uint64_t ts, uint64_t frame);
void conn_finish_msg(struct conn_table *t, struct conn *c, int dir, struct asm_msg *m, uint32_t extra);
void conn_expire_read(struct conn_table *t, struct conn *c, int req_side, const struct rd_req *r, uint32_t flags);

/* conn_pair.c: pairing */
void conn_learn_sport_model(struct conn_table *t, const struct conn *c);
struct conn *conn_adopt_waiting(struct conn_table *t, const struct ep_key *src, const struct ep_key *dst,
				 const struct ib_frame *f, const struct ib_pkt *p, int *side);

#endif
