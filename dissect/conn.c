/* Connection table, QP pairing, PSN tracking and message reassembly.
 *
 * Model.  An RC connection joins QP a (at address A) and QP b (at B).  A
 * packet names only its destination QP, so the table is keyed by
 * (destination address, destination QPN) -> (connection, receiving side).
 * Everything a side *requests* lives in that side's dir_state: the PSNs of
 * its requests (seen in packets to the peer), its SEND/WRITE being
 * reassembled, its outstanding RDMA READs, and the READ responses and ACKs
 * that come back to it (packets to itself) -- responses carry the
 * requester's PSNs, so one PSN space per dir_state.
 *
 * Pairing.  CM REQ + REP give both QPNs (PAIR_CM).  Without CM the first
 * packet creates a one-sided connection (sender's QPN unknown) that waits
 * in an index keyed by (unknown address, known address); the first packet
 * in the other direction to an unknown QP adopts it if the evidence agrees
 * (PSN of an ACK/READ response matching the waiting side's requests, RoCE
 * UDP source port rules) -- PAIR_INFERRED.
 *
 * Roles.  side[0] is the client: the CM REQ sender, or, inferred, the side
 * that receives RDMA WRITEs/READ requests and sends READ responses (in
 * NFS/RDMA only the server initiates RDMA).  Until a connection without CM
 * shows that evidence its events are held (bounded), so side order and
 * `dir` never change after the upper layers have seen them; if the bound
 * is hit first, the first sender is side[0] and client_known stays false.
 *
 * Hot path: one hash lookup per packet, payload copied only for
 * multi-packet messages (Only packets are delivered in place), buffers
 * reused per connection; no allocation per packet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---------------------------------------------------------------- hash */

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

static inline unsigned memo_slot(const struct hkey *k)
{
	return (k->id ^ k->a[15]) & 3;
}

static uint64_t hkey_hash(const struct hkey *k)
{
	uint64_t w[5];
	memcpy(w, k, sizeof(w));
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

static struct hent *ht_find(struct htab *t, const struct hkey *k)
{
	if (!t->cap)
		return NULL;
	/* The slot's own key is compared, so a slot deleted and reused for
	 * another key is never taken for the old one. */
	struct hent **memo = &t->last[memo_slot(k)];
	if (*memo && (*memo)->state == 1 && memcmp(&(*memo)->k, k, sizeof(*k)) == 0)
		return *memo;
	size_t m = t->cap - 1, i = hkey_hash(k) & m;
	for (;;) {
		struct hent *e = &t->e[i];
		if (e->state == 0)
			return NULL;
		if (e->state == 1 && memcmp(&e->k, k, sizeof(*k)) == 0)
			return *memo = e;
		i = (i + 1) & m;
	}
}

/* ht_find for a QP key, built in registers: the packet path's lookup.
 * (A key assembled byte by byte in memory and read back at once as wide
 * words stalls store forwarding: that was most of conn_rc's time.)
 * Hashes exactly as hkey_hash does for the same hkey. */
static struct hent *ht_find_qp(struct htab *t, const struct ep_key *e, uint32_t qpn)
{
	if (!t->cap)
		return NULL;
	uint64_t w0 = (uint64_t)HK_QP | (uint64_t)e->fam << 8 | (uint64_t)qpn << 32, w1, w2;
	memcpy(&w1, e->a, 8);
	memcpy(&w2, e->a + 8, 8);
	struct hent **memo = &t->last[(qpn ^ e->a[15]) & 3];
	struct hent *x = *memo;
	uint64_t kw[5];
	if (x && x->state == 1) {
		memcpy(kw, &x->k, sizeof(kw));
		if (kw[0] == w0 && kw[1] == w1 && kw[2] == w2 && !kw[3] && !kw[4])
			return x;
	}
	uint64_t w[5] = { w0, w1, w2, 0, 0 }, h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	size_t m = t->cap - 1, i = h & m;
	for (;;) {
		struct hent *c = &t->e[i];
		if (c->state == 0)
			return NULL;
		if (c->state == 1) {
			memcpy(kw, &c->k, sizeof(kw));
			if (kw[0] == w0 && kw[1] == w1 && kw[2] == w2 && !kw[3] && !kw[4])
				return *memo = c;
		}
		i = (i + 1) & m;
	}
}

static int ht_grow(struct htab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024;
	if (t->used * 4 < t->cap)   /* mostly tombstones: rehash in place size */
		ncap = t->cap;
	struct hent *ne = calloc(ncap, sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct hent *e = &t->e[i];
		if (e->state != 1)
			continue;
		size_t j = hkey_hash(&e->k) & (ncap - 1);
		while (ne[j].state)
			j = (j + 1) & (ncap - 1);
		ne[j] = *e;
	}
	free(t->e);
	t->e = ne;
	t->cap = ncap;
	t->dead = 0;
	memset(t->last, 0, sizeof(t->last));
	return 0;
}

/* Inserts or replaces. */
static struct hent *ht_put(struct htab *t, const struct hkey *k, struct conn *c, int side)
{
	struct hent *e = ht_find(t, k);
	if (!e) {
		if ((t->used + t->dead + 1) * 2 > t->cap && ht_grow(t) < 0)
			return NULL;
		size_t m = t->cap - 1, i = hkey_hash(k) & m;
		while (t->e[i].state == 1)
			i = (i + 1) & m;
		e = &t->e[i];
		if (e->state == 2)
			t->dead--;
		e->k = *k;
		e->state = 1;
		t->used++;
	}
	e->c = c;
	e->side = (uint8_t)side;
	return e;
}

static void ht_del(struct htab *t, struct hent *e)
{
	e->state = 2;
	e->c = NULL;
	t->used--;
	t->dead++;
}

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
	struct pending_req pend[PENDING_REQS];
	unsigned pend_next;
	size_t held_bytes;      /* across all connections */
	unsigned sport_model;   /* learned from CM-paired connections */
	bool sport_checked;
};

/* ------------------------------------------------------------- helpers */

static void tdiag(struct conn_table *t, uint64_t frame, enum cur_err kind, const char *msg)
{
	if (!t->diag)
		return;
	struct diag d = { frame, 0, "rc", kind, msg };
	t->diag(&d, t->ctx);
}

/* Address used in keys: IP / GID, or the LID for native IB (a QP is found
 * by LID whether or not its packets carry a GRH). */

static void frame_keys(const struct ib_frame *f, struct ep_key *src, struct ep_key *dst)
{
	if (f->kind == IBF_IB) {
		memset(src, 0, sizeof(*src));
		memset(dst, 0, sizeof(*dst));
		src->fam = dst->fam = 'L';
		src->a[0] = (uint8_t)(f->slid >> 8);
		src->a[1] = (uint8_t)f->slid;
		dst->a[0] = (uint8_t)(f->dlid >> 8);
		dst->a[1] = (uint8_t)f->dlid;
		return;
	}
	/* Whole 8-byte words, built in registers: an IPv4 address sits in a
	 * zeroed 16-byte field written in two steps, and reading it back as
	 * one wide load right away would stall store forwarding. */
	uint64_t s0, s1, d0, d1;
	if (f->family == 4) {
		uint32_t a, b;
		memcpy(&a, f->src, 4);
		memcpy(&b, f->dst, 4);
		s0 = 0;
		d0 = 0;
		memcpy(&s0, &a, 4);   /* the same bytes first, whatever the byte order */
		memcpy(&d0, &b, 4);
		s1 = d1 = 0;
	} else {
		memcpy(&s0, f->src, 8);
		memcpy(&s1, f->src + 8, 8);
		memcpy(&d0, f->dst, 8);
		memcpy(&d1, f->dst + 8, 8);
	}
	src->fam = dst->fam = f->family;
	memcpy(src->a, &s0, 8);
	memcpy(src->a + 8, &s1, 8);
	memcpy(dst->a, &d0, 8);
	memcpy(dst->a + 8, &d1, 8);
}

static void fill_endpoint(struct rdma_endpoint *ep, const struct ib_frame *f, bool source)
{
	if (f->kind == IBF_IB) {
		ep->lid = source ? f->slid : f->dlid;
		if (f->has_grh) {
			ep->family = 'G';
			memcpy(ep->addr, source ? f->src : f->dst, 16);
		} else if (ep->family != 'G') {
			ep->family = 'L';
		}
	} else {
		ep->family = f->family;
		memcpy(ep->addr, source ? f->src : f->dst, 16);
	}
	if (source && f->kind == IBF_ROCE_V2)
		ep->udp_sport = f->sport;
}

static struct hkey qp_key(const struct ep_key *e, uint32_t qpn)
{
	struct hkey k;
	memset(&k, 0, sizeof(k));
	k.kind = HK_QP;
	k.fam = e->fam;
	k.id = qpn;
	memcpy(k.a, e->a, 16);
	return k;
}

static struct hkey comm_key(const struct ep_key *e, uint32_t id)
{
	struct hkey k = qp_key(e, id);
	k.kind = HK_COMM;
	return k;
}

static struct hkey wait_key(const struct ep_key *unknown, const struct ep_key *known)
{
	struct hkey k;
	memset(&k, 0, sizeof(k));
	k.kind = HK_WAIT;
	k.fam = unknown->fam;
	memcpy(k.a, unknown->a, 16);
	memcpy(k.b, known->a, 16);
	return k;
}

static void fpush(struct conn_table *t, struct fvec *v, uint64_t frame)
{
	if (!t->track)
		return;
	t->frame_used = true;
	if (v->n == v->cap) {
		uint32_t ncap = v->cap ? v->cap * 2 : 16;
		uint64_t *f = realloc(v->f, ncap * sizeof(*f));
		if (!f)
			return;
		v->f = f;
		v->cap = ncap;
	}
	v->f[v->n++] = frame;
}

static struct ep_key side_key(const struct conn *c, int i)
{
	struct ep_key e;
	e.fam = c->key_fam[i];
	memcpy(e.a, c->key_addr[i], 16);
	return e;
}

static int buf_reserve(struct buf *b, size_t need)
{
	if (need <= b->cap)
		return 0;
	size_t ncap = b->cap ? b->cap : 4096;
	while (ncap < need)
		ncap *= 2;
	uint8_t *p = realloc(b->p, ncap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = ncap;
	return 0;
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ------------------------------------------------------------- events */

static void hold_release(struct conn_table *t, struct conn *c);

static void deliver(struct conn_table *t, const struct rdma_event *ev)
{
	if (ev->flags & RDMA_EVF_INCOMPLETE)
		t->st->incomplete_msgs++;
	switch (ev->type) {
	case RDMA_EV_SEND:  t->st->sends++;  break;
	case RDMA_EV_WRITE: t->st->writes++; break;
	case RDMA_EV_READ:
		t->st->reads++;
		if (ev->flags & RDMA_EVF_NO_RESPONSE)
			t->st->reads_unanswered++;
		break;
	default: break;
	}
	if (t->fn)
		t->fn(ev, t->ctx);
}

/* An event at one frame of c; the fields not named here are zero. */
static void ev_at(struct rdma_event *ev, enum rdma_ev_type type, struct conn *c, int dir, uint64_t ts,
		  uint64_t frame)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->conn = &c->pub;
	ev->dir = dir;
	ev->ts_first_ns = ev->ts_last_ns = ts;
	ev->frame_first = ev->frame_last = frame;
}

static void announce(struct conn_table *t, struct conn *c)
{
	if (c->announced)
		return;
	c->announced = true;
	struct rdma_event ev;
	ev_at(&ev, RDMA_EV_CONN_NEW, c, 0, c->pub.first_ns, c->first_frame);
	if (t->fn)
		t->fn(&ev, t->ctx);
}

/* Copies an event into the connection's hold queue; false if it does not
 * fit the bounds (the caller then releases the queue and delivers). */
static bool hold_push(struct conn_table *t, struct conn *c, const struct rdma_event *ev)
{
	struct holdq *q = &c->st->hold;
	if (q->n && ev->ts_last_ns > q->first_ts + HOLD_MAX_NS)
		return false;
	if (q->n >= HOLD_MAX_EVENTS || q->arena.len + ev->data_len > HOLD_MAX_BYTES ||
	    t->held_bytes + ev->data_len > HOLD_ALL_BYTES)
		return false;
	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 16;
		struct held *n = realloc(q->ev, ncap * sizeof(*n));
		if (!n)
			return false;
		q->ev = n;
		q->cap = ncap;
	}
	if (ev->data_len && buf_reserve(&q->arena, q->arena.len + ev->data_len) < 0)
		return false;
	size_t fbytes = (size_t)ev->nframes * sizeof(uint64_t);
	if (fbytes && buf_reserve(&q->farena, q->farena.len + fbytes) < 0)
		return false;
	struct held *h = &q->ev[q->n++];
	h->ev = *ev;
	h->off = q->arena.len;
	h->foff = q->farena.len;
	if (fbytes) {
		memcpy(q->farena.p + q->farena.len, ev->frames, fbytes);
		q->farena.len += fbytes;
	}
	if (ev->data_len) {
		memcpy(q->arena.p + q->arena.len, ev->data, ev->data_len);
		q->arena.len += ev->data_len;
		t->held_bytes += ev->data_len;
	}
	if (q->n == 1)
		q->first_ts = ev->ts_first_ns;
	return true;
}

static void emit(struct conn_table *t, struct conn *c, const struct rdma_event *ev)
{
	if (c->holding) {
		if (hold_push(t, c, ev))
			return;
		hold_release(t, c);   /* bounds reached: first sender stays side[0] */
	}
	announce(t, c);
	deliver(t, ev);
}

static void hold_release(struct conn_table *t, struct conn *c)
{
	if (!c->holding)
		return;
	c->holding = false;
	announce(t, c);
	if (!c->st)
		return;
	struct holdq *q = &c->st->hold;
	for (size_t i = 0; i < q->n; i++) {
		struct rdma_event ev = q->ev[i].ev;
		ev.data = ev.data_len ? q->arena.p + q->ev[i].off : NULL;
		ev.frames = ev.nframes ? (const uint64_t *)(const void *)(q->farena.p + q->ev[i].foff) : NULL;
		deliver(t, &ev);
	}
	t->held_bytes -= q->arena.len;
	free(q->ev);
	buf_free(&q->arena);
	buf_free(&q->farena);
	memset(q, 0, sizeof(*q));
}

/* ---------------------------------------------------------- connections */

static void dir_free(struct dir_state *d)
{
	buf_free(&d->req.data);
	buf_free(&d->rresp.data);
	free(d->req.frames.f);
	free(d->rresp.frames.f);
	d->req.frames.f = d->rresp.frames.f = NULL;
	d->req.frames.n = d->req.frames.cap = d->rresp.frames.n = d->rresp.frames.cap = 0;
	free(d->reads);
	d->reads = NULL;
}

static struct conn *conn_new(struct conn_table *t, uint64_t ts, uint64_t frame)
{
	if (t->nconns == t->cap_conns) {
		size_t ncap = t->cap_conns ? t->cap_conns * 2 : 64;
		struct conn **n = realloc(t->conns, ncap * sizeof(*n));
		if (!n)
			return NULL;
		t->conns = n;
		t->cap_conns = ncap;
	}
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->st = calloc(1, sizeof(*c->st));
	if (!c->st) {
		free(c);
		return NULL;
	}
	c->pub.id = (uint32_t)t->nconns + 1;
	c->pub.first_ns = c->pub.last_ns = ts;
	c->first_frame = c->last_frame = frame;
	t->conns[t->nconns++] = c;
	t->st->conns++;
	return c;
}

static void link_side(struct conn_table *t, struct conn *c, int i)
{
	struct ep_key e = side_key(c, i);
	struct hkey k = qp_key(&e, c->pub.side[i].qpn);
	struct hent *h = ht_find(&t->ht, &k);
	if (h && h->c != c) {
		/* QPN reused: the old connection is over. */
		struct conn *old = h->c;
		old->linked[h->side] = false;
		ht_del(&t->ht, h);
	}
	if (ht_put(&t->ht, &k, c, i))
		c->linked[i] = true;
}

/* Waiting lists are doubly linked so leaving one costs O(1) however many
 * one-sided connections share an address pair. */
static void wait_add(struct conn_table *t, struct conn *c, int unknown)
{
	struct ep_key u = side_key(c, unknown), k = side_key(c, !unknown);
	struct hkey wk = wait_key(&u, &k);
	struct hent *h = ht_find(&t->ht, &wk);
	struct conn *head = h ? h->c : NULL;
	if (!ht_put(&t->ht, &wk, c, unknown))
		return;
	c->wait_next = head;
	c->wait_prev = NULL;
	if (head)
		head->wait_prev = c;
	c->waiting = true;
}

static void wait_remove(struct conn_table *t, struct conn *c)
{
	if (!c->waiting)
		return;
	c->waiting = false;
	if (c->wait_next)
		c->wait_next->wait_prev = c->wait_prev;
	if (c->wait_prev) {
		c->wait_prev->wait_next = c->wait_next;
	} else {
		/* c heads its list: the index entry moves to the next one */
		int unknown = c->pub.side[0].qpn_known ? 1 : 0;
		struct ep_key u = side_key(c, unknown), k = side_key(c, !unknown);
		struct hkey wk = wait_key(&u, &k);
		struct hent *h = ht_find(&t->ht, &wk);
		if (h && h->c == c) {
			if (c->wait_next)
				h->c = c->wait_next;
			else
				ht_del(&t->ht, h);
		}
	}
	c->wait_next = c->wait_prev = NULL;
}

static void unlink_all(struct conn_table *t, struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->linked[i]) {
			struct ep_key e = side_key(c, i);
			struct hkey k = qp_key(&e, c->pub.side[i].qpn);
			struct hent *h = ht_find(&t->ht, &k);
			if (h && h->c == c)
				ht_del(&t->ht, h);
			c->linked[i] = false;
		}
		if (c->comm_known[i]) {
			struct ep_key e = side_key(c, i);
			struct hkey k = comm_key(&e, c->comm_id[i]);
			struct hent *h = ht_find(&t->ht, &k);
			if (h && h->c == c)
				ht_del(&t->ht, h);
			c->comm_known[i] = false;
		}
	}
	wait_remove(t, c);
}

/* Swaps side[0] and side[1] (only while events are held). */
static void conn_swap(struct conn_table *t, struct conn *c)
{
	struct rdma_conn *p = &c->pub;
	struct rdma_endpoint ep = p->side[0]; p->side[0] = p->side[1]; p->side[1] = ep;
#define SWAP(a) do { __typeof__(a[0]) tmp_ = a[0]; a[0] = a[1]; a[1] = tmp_; } while (0)
	SWAP(p->cm_params); SWAP(p->inline_send); SWAP(p->inline_recv); SWAP(p->remote_inv);
	SWAP(c->comm_known); SWAP(c->comm_id); SWAP(c->cm_psn_known); SWAP(c->cm_psn);
	SWAP(c->key_fam); SWAP(c->linked); SWAP(c->st->d);
#undef SWAP
	uint8_t a[16];
	memcpy(a, c->key_addr[0], 16);
	memcpy(c->key_addr[0], c->key_addr[1], 16);
	memcpy(c->key_addr[1], a, 16);
	for (int i = 0; i < 2; i++) {
		if (!c->linked[i])
			continue;
		struct ep_key e = side_key(c, i);
		struct hkey k = qp_key(&e, p->side[i].qpn);
		struct hent *h = ht_find(&t->ht, &k);
		if (h && h->c == c)
			h->side = (uint8_t)i;
	}
	for (size_t i = 0; i < c->st->hold.n; i++) {
		struct rdma_event *ev = &c->st->hold.ev[i].ev;
		if (ev->type != RDMA_EV_CONN_NEW && ev->type != RDMA_EV_CONN_CLOSE)
			ev->dir = !ev->dir;
	}
}

/* What a packet says about its sender's role in NFS/RDMA: only the
 * server initiates RDMA (WRITE, READ request, atomics) or invalidates the
 * peer's keys; only the client answers RDMA READs.  +1 server, -1 client. */
static int role_of(const struct ib_pkt *p)
{
	switch (p->op->kind) {
	case IBK_WRITE_FIRST: case IBK_WRITE_ONLY: case IBK_READ_REQ:
	case IBK_ATOMIC: case IBK_ATOMIC_WRITE: case IBK_FLUSH:
		return 1;
	case IBK_READ_RESP_FIRST: case IBK_READ_RESP_MIDDLE:
	case IBK_READ_RESP_LAST: case IBK_READ_RESP_ONLY:
		return -1;
	default:
		return (p->op->hdrs & IBH_IETH) ? 1 : 0;
	}
}

static void finish_msg(struct conn_table *t, struct conn *c, int dir, struct asm_msg *m, uint32_t extra);
static void expire_read(struct conn_table *t, struct conn *c, int req_side, const struct rd_req *r, uint32_t flags);

/* Ends a connection: partial messages and unanswered READs go out
 * flagged, held events are released, then RDMA_EV_CONN_CLOSE. */
static void conn_close(struct conn_table *t, struct conn *c, uint64_t ts, uint64_t frame)
{
	if (c->closed)
		return;
	if (c->st) {
		for (int s = 0; s < 2; s++) {
			struct dir_state *d = &c->st->d[s];
			if (d->req.active)
				finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
			if (d->rresp.active)
				finish_msg(t, c, s, &d->rresp, RDMA_EVF_INCOMPLETE);
			while (d->rd_n) {
				struct rd_req r = d->reads[d->rd_head];
				d->rd_head = (d->rd_head + 1) % d->rd_cap;
				d->rd_n--;
				expire_read(t, c, s, &r, RDMA_EVF_NO_RESPONSE);
			}
		}
	}
	hold_release(t, c);
	announce(t, c);
	c->closed = true;
	c->closed_ts = ts;
	struct rdma_event ev;
	ev_at(&ev, RDMA_EV_CONN_CLOSE, c, 0, ts, frame);
	if (t->fn)
		t->fn(&ev, t->ctx);
	if (c->st) {
		for (int s = 0; s < 2; s++)
			dir_free(&c->st->d[s]);
		free(c->st);
		c->st = NULL;
	}
	wait_remove(t, c);
}

/* --------------------------------------------------------- reassembly */

/* CM DREP / REJ: the connection (NULL: none found) is over and forgotten. */
static void conn_end(struct conn_table *t, struct conn *c, uint64_t ts, uint64_t frame)
{
	if (!c)
		return;
	conn_close(t, c, ts, frame);
	unlink_all(t, c);
}

static void msg_start(struct asm_msg *m, uint8_t type, uint64_t ts, uint64_t frame, uint32_t psn)
{
	m->active = true;
	m->type = type;
	m->flags = 0;
	m->ts_first = m->ts_last = ts;
	m->frame_first = m->frame_last = frame;
	m->npkts = 0;
	m->psn_first = psn;
	m->psn_next = psn;
	m->msg_len = 0;
	m->rkey = m->dma_len = m->imm = m->inv_rkey = 0;
	m->va = 0;
	m->nodata = false;
	m->data.len = 0;
	m->frames.n = 0;
}

/* Asks the data filter whether a multi-packet RDMA WRITE / READ message
 * (its RETH known) needs its payload copied. */
static void msg_filter(struct conn_table *t, struct conn *c, int dir, struct asm_msg *m)
{
	if (t->want && !t->want(&c->pub, dir, m->type, m->rkey, m->va, m->dma_len, t->ctx))
		m->nodata = true;
}

static void msg_append(struct conn_table *t, struct asm_msg *m, const struct ib_pkt *p,
		       uint64_t ts, uint64_t frame)
{
	m->ts_last = ts;
	m->frame_last = frame;
	m->npkts++;
	fpush(t, &m->frames, frame);
	m->psn_next = psn_add(p->psn, 1);
	m->msg_len += p->payload_len;
	if (m->nodata)
		return;
	if (p->payload_cap < p->payload_len)
		m->flags |= RDMA_EVF_TRUNC_DATA;
	size_t n = p->payload_cap;
	if (m->data.len + n > t->data_cap) {
		n = t->data_cap > m->data.len ? t->data_cap - m->data.len : 0;
		m->flags |= RDMA_EVF_TRUNC_DATA;
	}
	if (n && buf_reserve(&m->data, m->data.len + n) < 0) {
		m->flags |= RDMA_EVF_TRUNC_DATA;
		return;
	}
	if (n) {
		memcpy(m->data.p + m->data.len, p->payload, n);
		m->data.len += n;
	}
}

static void msg_event(struct conn *c, int dir, const struct asm_msg *m, struct rdma_event *ev)
{
	ev_at(ev, (enum rdma_ev_type)m->type, c, dir, m->ts_first, m->frame_first);
	ev->ts_last_ns = m->ts_last;
	ev->frame_last = m->frame_last;
	ev->flags = m->flags;
	ev->npkts = m->npkts;
	ev->psn_first = m->psn_first;
	ev->data = m->data.len ? m->data.p : NULL;
	ev->data_len = m->data.len;
	if (m->nodata)
		ev->flags |= RDMA_EVF_NO_DATA;
	ev->frames = m->frames.n ? m->frames.f : NULL;
	ev->nframes = m->frames.n;
	ev->msg_len = m->msg_len;
	ev->rkey = m->rkey;
	ev->va = m->va;
	ev->dma_len = m->dma_len;
	ev->imm = m->imm;
	ev->inv_rkey = m->inv_rkey;
}

static void finish_msg(struct conn_table *t, struct conn *c, int dir, struct asm_msg *m, uint32_t extra)
{
	struct rdma_event ev;
	m->flags |= extra;
	msg_event(c, dir, m, &ev);
	m->active = false;
	emit(t, c, &ev);
	m->data.len = 0;
}

/* A READ whose responses are not (all) there. */
static void expire_read(struct conn_table *t, struct conn *c, int req_side, const struct rd_req *r, uint32_t flags)
{
	struct rdma_event ev;
	ev_at(&ev, RDMA_EV_READ, c, req_side, r->ts, r->frame);
	ev.flags = r->flags | flags;
	ev.npkts = 1;
	ev.psn_first = r->psn;
	ev.rkey = r->rkey;
	ev.va = r->va;
	ev.dma_len = r->len;
	if (t->track) {
		ev.frames = &r->frame;
		ev.nframes = 1;
	}
	emit(t, c, &ev);
}

static void emit_gap(struct conn_table *t, struct conn *c, int dir, uint32_t psn, uint32_t missing,
		     uint64_t ts, uint64_t frame)
{
	struct rdma_event ev;
	ev_at(&ev, RDMA_EV_GAP, c, dir, ts, frame);
	ev.flags = RDMA_EVF_INCOMPLETE;
	ev.npkts = missing;
	ev.psn_first = psn;
	t->st->psn_gaps++;
	emit(t, c, &ev);
}

static uint32_t read_npsn(uint32_t len, uint32_t pmtu)
{
	if (!pmtu)
		return 0;
	return len ? (len + pmtu - 1) / pmtu : 1;
}

static void learn_pmtu(struct conn *c, const struct ib_pkt *p)
{
	size_t n = p->payload_len;
	if (!c->pmtu && n >= 256 && n <= 4096 && (n & (n - 1)) == 0)
		c->pmtu = (uint32_t)n;
}

/* -------------------------------------------------------- request path */

static void pop_read(struct dir_state *d, struct rd_req *out)
{
	*out = d->reads[d->rd_head];
	d->rd_head = (d->rd_head + 1) % d->rd_cap;
	d->rd_n--;
}


/* PSN check for a request from side s.  Returns false for a packet that
 * is behind the stream (duplicate or retransmission: not reassembled). */
static bool req_psn(struct conn_table *t, struct conn *c, int s, const struct ib_pkt *p,
		    uint64_t ts, uint64_t frame)
{
	struct dir_state *d = &c->st->d[s];
	int r = !s;

	if (!d->req_sync) {
		d->req_sync = true;
		d->req_epsn = p->psn;
		d->req_slack = 0;
		/* With CM we know where the stream starts.  Linux (and the public
		 * captures) start a side's requests at the PSN the *peer* put in its
		 * CM message; accept either, report only a clear shortfall. */
		if (c->cm_psn_known[r] && p->psn != c->cm_psn[r] &&
		    !(c->cm_psn_known[s] && p->psn == c->cm_psn[s])) {
			int32_t diff = psn_diff(p->psn, c->cm_psn[r]);
			if (diff > 0 && diff < PSN_WINDOW) {
				d->gap_valid = true;
				d->gap_lo = c->cm_psn[r];
				d->gap_hi = p->psn;
				emit_gap(t, c, s, c->cm_psn[r], (uint32_t)diff, ts, frame);
			}
		}
	}
	int32_t diff = psn_diff(p->psn, d->req_epsn);
	if (diff < 0) {
		/* Behind: the requester went back (NAK or timeout), or the
		 * capture holds the packet twice.  Never reassembled again. */
		if (d->gap_valid && psn_diff(p->psn, d->gap_lo) >= 0 && psn_diff(p->psn, d->gap_hi) < 0)
			t->st->retransmits++;
		else
			t->st->duplicates++;
		if (d->req.active && psn_diff(p->psn, d->req.psn_first) >= 0)
			d->req.flags |= RDMA_EVF_RETRANSMIT;
		return false;
	}
	if ((uint32_t)diff > d->req_slack) {
		uint32_t missing = (uint32_t)diff - d->req_slack;
		uint32_t lo = psn_add(d->req_epsn, d->req_slack);
		d->gap_valid = true;
		d->gap_lo = lo;
		d->gap_hi = p->psn;
		if (d->req.active)
			d->req.flags |= RDMA_EVF_INCOMPLETE;
		emit_gap(t, c, s, lo, missing, ts, frame);
	}
	d->req_epsn = psn_add(p->psn, 1);
	d->req_slack = 0;
	return true;
}

static void req_packet(struct conn_table *t, struct conn *c, int s, const struct ib_pkt *p,
		       uint64_t ts, uint64_t frame)
{
	struct dir_state *d = &c->st->d[s];
	uint8_t k = p->op->kind;
	bool is_send = k <= IBK_SEND_ONLY;
	uint8_t type = is_send ? RDMA_EV_SEND : RDMA_EV_WRITE;

	if (!req_psn(t, c, s, p, ts, frame))
		return;

	switch (k) {
	case IBK_SEND_FIRST:
	case IBK_WRITE_FIRST:
		learn_pmtu(c, p);
		if (d->req.active)   /* the previous message lost its Last */
			finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		msg_start(&d->req, type, ts, frame, p->psn);
		if (k == IBK_WRITE_FIRST) {
			d->req.rkey = p->reth_rkey;
			d->req.va = p->reth_va;
			d->req.dma_len = p->reth_len;
			msg_filter(t, c, s, &d->req);
		}
		msg_append(t, &d->req, p, ts, frame);
		return;

	case IBK_SEND_MIDDLE:
	case IBK_WRITE_MIDDLE:
	case IBK_SEND_LAST:
	case IBK_WRITE_LAST:
		if (k == IBK_SEND_MIDDLE || k == IBK_WRITE_MIDDLE)
			learn_pmtu(c, p);
		if (d->req.active && (d->req.type != type ||
		    (type == RDMA_EV_WRITE && d->req.msg_len + p->payload_len > d->req.dma_len))) {
			finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		}
		if (!d->req.active) {
			/* Its First is missing: capture started mid-message or a gap. */
			msg_start(&d->req, type, ts, frame, p->psn);
			d->req.flags |= RDMA_EVF_INCOMPLETE;
		}
		msg_append(t, &d->req, p, ts, frame);
		if (k == IBK_SEND_LAST || k == IBK_WRITE_LAST) {
			if (p->op->hdrs & IBH_IMMDT) {
				d->req.imm = p->imm;
				d->req.flags |= RDMA_EVF_HAS_IMM;
			}
			if (p->op->hdrs & IBH_IETH) {
				d->req.inv_rkey = p->ieth_rkey;
				d->req.flags |= RDMA_EVF_HAS_INV;
			}
			finish_msg(t, c, s, &d->req, 0);
		}
		return;

	case IBK_SEND_ONLY:
	case IBK_WRITE_ONLY: {
		if (d->req.active)
			finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		/* One packet: deliver the payload in place, no copy. */
		struct rdma_event ev;
		ev_at(&ev, (enum rdma_ev_type)type, c, s, ts, frame);
		ev.npkts = 1;
		ev.psn_first = p->psn;
		ev.msg_len = p->payload_len;
		ev.data_len = p->payload_cap < t->data_cap ? p->payload_cap : t->data_cap;
		ev.data = ev.data_len ? p->payload : NULL;
		if (ev.data_len < ev.msg_len)
			ev.flags |= RDMA_EVF_TRUNC_DATA;
		if (t->track) {
			ev.frames = &frame;
			ev.nframes = 1;
			t->frame_used = true;
		}
		if (k == IBK_WRITE_ONLY) {
			ev.rkey = p->reth_rkey;
			ev.va = p->reth_va;
			ev.dma_len = p->reth_len;
		}
		if (p->op->hdrs & IBH_IMMDT) {
			ev.imm = p->imm;
			ev.flags |= RDMA_EVF_HAS_IMM;
		}
		if (p->op->hdrs & IBH_IETH) {
			ev.inv_rkey = p->ieth_rkey;
			ev.flags |= RDMA_EVF_HAS_INV;
		}
		emit(t, c, &ev);
		return;
	}

	case IBK_READ_REQ: {
		if (d->req.active)
			finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		struct rd_req r = { p->psn, read_npsn(p->reth_len, c->pmtu), p->reth_rkey, p->reth_len,
				    p->reth_va, ts, frame, 0 };
		/* The READ consumes one PSN per response packet; with the path MTU
		 * unknown, allow the most a 256-byte MTU would need. */
		if (r.npsn) {
			d->req_epsn = psn_add(p->psn, r.npsn);
		} else {
			uint32_t most = p->reth_len ? (p->reth_len + 255) / 256 : 1;
			d->req_slack = most - 1;
		}
		if (d->rd_n == d->rd_cap && d->rd_cap < READS_MAX) {
			unsigned ncap = d->rd_cap ? d->rd_cap * 2 : 8;
			struct rd_req *n = malloc(ncap * sizeof(*n));
			if (n) {
				for (unsigned i = 0; i < d->rd_n; i++)
					n[i] = d->reads[(d->rd_head + i) % d->rd_cap];
				free(d->reads);
				d->reads = n;
				d->rd_cap = ncap;
				d->rd_head = 0;
			}
		}
		if (!d->rd_cap) {
			tdiag(t, frame, CUR_INVALID, "out of memory for RDMA READ tracking");
			return;
		}
		if (d->rd_n == d->rd_cap) {
			/* More outstanding than any HCA allows: the oldest lost
			 * its responses. */
			struct rd_req old;
			pop_read(d, &old);
			expire_read(t, c, s, &old, RDMA_EVF_NO_RESPONSE);
		}
		d->reads[(d->rd_head + d->rd_n) % d->rd_cap] = r;
		if (t->track)
			t->frame_used = true;   /* its frame goes out with the READ event */
		d->rd_n++;
		return;
	}

	default:   /* atomics, FLUSH, ATOMIC WRITE, RESYNC: one PSN, counted */
		if (d->req.active)
			finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		if (k == IBK_ATOMIC)
			t->st->atomics++;
		else
			t->st->other_ops++;
		return;
	}
}

/* ------------------------------------------------------- response path */

/* True when psn falls after the request's PSN within the READ's response
 * range (known once the path MTU is). */
static bool psn_inside_read(const struct rd_req *r, uint32_t psn)
{
	return r->npsn && psn_diff(psn, r->psn) > 0 && psn_diff(psn, psn_add(r->psn, r->npsn)) < 0;
}

/* The responses answer the READ i places from the head of q's queue: the
 * older ones were skipped in the responder's order (their responses never
 * reached the capture) and expire; this one, popped into r, opens the
 * response message with its request frame. */
static void claim_read(struct conn_table *t, struct conn *c, int q, unsigned i, struct rd_req *r)
{
	struct dir_state *d = &c->st->d[q];

	while (i--) {
		struct rd_req old;
		pop_read(d, &old);
		expire_read(t, c, q, &old, RDMA_EVF_NO_RESPONSE | RDMA_EVF_INCOMPLETE);
	}
	pop_read(d, r);
	msg_start(&d->rresp, RDMA_EV_READ, r->ts, r->frame, r->psn);
	fpush(t, &d->rresp.frames, r->frame);
	d->rresp.rkey = r->rkey;
	d->rresp.va = r->va;
	d->rresp.dma_len = r->len;
	d->rresp.npkts = 1;   /* the request */
}

/* READ responses to side q (the requester), sent by its peer. */
static void read_resp(struct conn_table *t, struct conn *c, int q, const struct ib_pkt *p,
		      uint64_t ts, uint64_t frame)
{
	struct dir_state *d = &c->st->d[q];
	uint8_t k = p->op->kind;
	int responder = !q;
	if (k == IBK_READ_RESP_FIRST || k == IBK_READ_RESP_ONLY) {
		if (k == IBK_READ_RESP_FIRST)
			learn_pmtu(c, p);
		/* Responses come in request order: find the READ this answers. */
		unsigned i;
		for (i = 0; i < d->rd_n; i++)
			if (d->reads[(d->rd_head + i) % d->rd_cap].psn == p->psn)
				break;
		if (i == d->rd_n) {
			if (d->resp_sync && psn_diff(p->psn, d->resp_epsn) < 0) {
				t->st->duplicates++;   /* a READ answered again */
				return;
			}
			for (unsigned j = 0; j < d->rd_n; j++) {
				if (psn_inside_read(&d->reads[(d->rd_head + j) % d->rd_cap], p->psn)) {
					/* restarted mid-READ after a NAK: already counted */
					t->st->retransmits++;
					return;
				}
			}
		}
		if (d->rresp.active)   /* previous response lost its Last */
			finish_msg(t, c, q, &d->rresp, RDMA_EVF_INCOMPLETE);
		if (i < d->rd_n) {
			struct rd_req r;
			claim_read(t, c, q, i, &r);
			d->rresp.flags = r.flags;
			if (k != IBK_READ_RESP_ONLY)
				msg_filter(t, c, q, &d->rresp);
			d->rresp_npsn = r.npsn;
		} else {
			/* The request is not in the capture. */
			msg_start(&d->rresp, RDMA_EV_READ, ts, frame, p->psn);
			d->rresp.flags = RDMA_EVF_INCOMPLETE;
			d->rresp_npsn = 0;
		}
	} else {
		/* Middle / Last */
		if (k == IBK_READ_RESP_MIDDLE)
			learn_pmtu(c, p);
		if (d->rresp.active) {
			int32_t diff = psn_diff(p->psn, d->rresp.psn_next);
			if (diff < 0) {
				d->rresp.flags |= RDMA_EVF_RETRANSMIT;
				t->st->duplicates++;
				return;
			}
			if (diff > 0) {
				d->rresp.flags |= RDMA_EVF_INCOMPLETE;
				emit_gap(t, c, responder, d->rresp.psn_next, (uint32_t)diff, ts, frame);
			}
		} else {
			if (d->resp_sync && psn_diff(p->psn, d->resp_epsn) < 0) {
				t->st->duplicates++;
				return;
			}
			/* First is missing: attribute to a READ whose range holds the
			 * PSN when the MTU is known, else orphan. */
			unsigned i;
			for (i = 0; i < d->rd_n; i++)
				if (psn_inside_read(&d->reads[(d->rd_head + i) % d->rd_cap], p->psn))
					break;
			if (i < d->rd_n) {
				struct rd_req r;
				claim_read(t, c, q, i, &r);
				emit_gap(t, c, responder, r.psn, (uint32_t)psn_diff(p->psn, r.psn), ts, frame);
			} else {
				msg_start(&d->rresp, RDMA_EV_READ, ts, frame, p->psn);
			}
			d->rresp.flags |= RDMA_EVF_INCOMPLETE;
		}
	}
	msg_append(t, &d->rresp, p, ts, frame);
	d->resp_sync = true;
	d->resp_epsn = psn_add(p->psn, 1);
	if (k == IBK_READ_RESP_LAST || k == IBK_READ_RESP_ONLY) {
		/* Now the READ's PSN count is known exactly. */
		if (!d->rresp_npsn) {
			uint32_t n = (uint32_t)psn_diff(p->psn, d->rresp.psn_first) + 1;
			struct dir_state *rq = d;
			if (rq->req_slack && psn_diff(rq->req_epsn, d->rresp.psn_first) == 1 &&
			    n >= 1 && n - 1 <= rq->req_slack) {
				rq->req_epsn = psn_add(d->rresp.psn_first, n);
				rq->req_slack = 0;
			}
		}
		finish_msg(t, c, q, &d->rresp, 0);
	}
}

/* Frame tracking: an ACK / NAK as an event of its own (dir = the side
 * whose requests it acknowledges, psn_first = its PSN, imm = AETH
 * syndrome), so its frame can be tied to the message it acknowledges. */
static void ack_event(struct conn_table *t, struct conn *c, int q, const struct ib_pkt *p,
		      uint64_t ts, uint64_t frame)
{
	struct rdma_event ev;
	ev_at(&ev, RDMA_EV_ACK, c, q, ts, frame);
	ev.npkts = 1;
	ev.psn_first = p->psn;
	ev.imm = p->aeth_syn;
	ev.frames = &frame;
	ev.nframes = 1;
	t->frame_used = true;
	emit(t, c, &ev);
}

static void ack_packet(struct conn_table *t, struct conn *c, int q, const struct ib_pkt *p)
{
	struct dir_state *d = &c->st->d[q];
	unsigned cls = ib_aeth_class(p->aeth_syn);

	if (cls == AETH_ACK) {
		t->st->acks++;
		d->ack_seen = true;
		d->last_ack = p->psn;
		/* An ACK covers every request up to its PSN; a READ before it
		 * must have had its responses already -- the capture lost them. */
		while (d->rd_n) {
			const struct rd_req *r = &d->reads[d->rd_head];
			uint32_t last = psn_add(r->psn, r->npsn ? r->npsn - 1 : 0);
			if (psn_diff(p->psn, last) <= 0 || psn_diff(p->psn, r->psn) <= 0)
				break;
			struct rd_req old;
			pop_read(d, &old);
			expire_read(t, c, q, &old, RDMA_EVF_NO_RESPONSE | RDMA_EVF_INCOMPLETE);
		}
		return;
	}
	t->st->naks++;
	if (cls == AETH_RNR_NAK) {
		t->st->rnr_naks++;
		return;
	}
	switch (p->aeth_syn & 0x1f) {
	case NAK_PSN_SEQ:    t->st->nak_seq++; break;
	case NAK_INV_REQ:    t->st->nak_inv_req++; break;
	case NAK_REM_ACCESS: t->st->nak_access++; break;
	case NAK_REM_OP:     t->st->nak_op++; break;
	default: break;
	}
}

/* ------------------------------------------------------------- pairing */

/* Whether the capture's RoCE UDP source ports follow a known rule, learned
 * from connections whose QPNs came from CM. */
static void learn_sport_model(struct conn_table *t, const struct conn *c)
{
	const struct rdma_endpoint *a = &c->pub.side[0], *b = &c->pub.side[1];
	if (!a->qpn_known || !b->qpn_known || !a->udp_sport || !b->udp_sport)
		return;
	unsigned m = 0;
	if (a->udp_sport == roce_rxe_sport(a->qpn) && b->udp_sport == roce_rxe_sport(b->qpn))
		m = SPORT_RXE;
	else if (a->udp_sport == roce_flow_sport(a->qpn, b->qpn) &&
		 b->udp_sport == roce_flow_sport(a->qpn, b->qpn))
		m = SPORT_FLOW;
	if (!t->sport_checked) {
		t->sport_model = m;
		t->sport_checked = true;
	} else if (t->sport_model != m) {
		t->sport_model = 0;   /* mixed: trust no rule */
	}
}

/* Scores how well waiting connection w (unknown side u at the packet's
 * destination) fits a packet to QP qd from its known side; negative means
 * the evidence contradicts. */
static int pair_score(const struct conn_table *t, const struct conn *w, int u,
		      uint32_t qd, const struct ib_frame *f, const struct ib_pkt *p)
{
	int k = !u, score = 0;
	uint32_t qk = w->pub.side[k].qpn;
	uint16_t sp = f->kind == IBF_ROCE_V2 ? f->sport : 0;
	uint16_t usp = w->pub.side[u].udp_sport;   /* ports the unknown side used */

	if (sp) {
		bool rxe = sp == roce_rxe_sport(qk) && (!usp || usp == roce_rxe_sport(qd));
		bool flow = sp == roce_flow_sport(qk, qd) && (!usp || usp == sp);
		if (rxe || flow)
			score += 4;
		else if (t->sport_model)
			return -1;   /* the capture follows a rule this pair breaks */
		if (usp && usp == sp)
			score += 1;
	}
	if (w->st) {
		uint8_t kind = p->op->kind;
		const struct dir_state *du = &w->st->d[u], *dk = &w->st->d[k];
		bool resp = kind >= IBK_READ_RESP_FIRST && kind <= IBK_ATOMIC_ACK;
		if (resp && du->req_sync) {
			/* a response to QP qd: it must answer qd's requests to qk */
			/* (a NAK may name exactly the next expected PSN) */
			int32_t diff = psn_diff(p->psn, du->req_epsn);
			if (diff <= 0 && diff > -PSN_WINDOW)
				score += 4;
			else
				score -= 2;
		}
		if (!resp && dk->ack_seen) {
			/* a request from qk: continues after what qd acknowledged */
			int32_t diff = psn_diff(p->psn, dk->last_ack);
			if (diff > 0 && diff < PSN_WINDOW)
				score += 2;
		}
	}
	return score;
}

/* Looks for a one-sided connection this packet completes. */
static struct conn *adopt_waiting(struct conn_table *t, const struct ep_key *src, const struct ep_key *dst,
				  const struct ib_frame *f, const struct ib_pkt *p, int *side)
{
	struct hkey wk = wait_key(dst, src);
	struct hent *h = ht_find(&t->ht, &wk);
	if (!h)
		return NULL;
	struct conn *best = NULL;
	int best_score = -1000, n = 0, ties = 0;
	/* Bounded: a capture with thousands of one-sided QPs between two
	 * hosts must not cost a list walk per packet. */
	for (struct conn *w = h->c; w && n < WAIT_SCAN_MAX; w = w->wait_next) {
		int u = w->pub.side[0].qpn_known ? 1 : 0;
		if (w->closed)
			continue;
		int s = pair_score(t, w, u, p->dqpn, f, p);
		n++;
		if (s < 0)
			continue;
		if (s > best_score) {
			best = w;
			best_score = s;
			ties = 0;
		} else if (s == best_score) {
			ties++;
		}
	}
	/* With several candidates, only clear evidence decides. */
	if (!best || ties || (n > 1 && best_score == 0))
		return NULL;
	int u = best->pub.side[0].qpn_known ? 1 : 0;
	wait_remove(t, best);
	best->pub.side[u].qpn = p->dqpn;
	best->pub.side[u].qpn_known = true;
	if (best->pub.pairing == PAIR_ONE_SIDED) {
		best->pub.pairing = PAIR_INFERRED;
		t->st->conns_inferred++;
	}
	link_side(t, best, u);
	*side = u;
	return best;
}

/* ------------------------------------------------------------ RC entry */

void conn_rc(struct conn_table *t, uint64_t ts, uint64_t frame,
	     const struct ib_frame *f, const struct ib_pkt *p)
{
	struct ep_key src, dst;
	frame_keys(f, &src, &dst);
	struct hent *h = ht_find_qp(&t->ht, &dst, p->dqpn);
	struct conn *c = NULL;
	int r = 0;

	if (h) {
		c = h->c;
		r = h->side;
		if (c->closed) {
			if (ts < c->closed_ts + CLOSED_GRACE_NS) {
				t->st->late_packets++;
				return;
			}
			/* Long after the close: the QPN was reused without CM. */
			unlink_all(t, c);
			c = NULL;
		}
	}
	if (!c)
		c = adopt_waiting(t, &src, &dst, f, p, &r);
	if (!c) {
		c = conn_new(t, ts, frame);
		if (!c) {
			tdiag(t, frame, CUR_INVALID, "out of memory for a new connection");
			return;
		}
		/* First sender is side[0] until the roles are known. */
		r = 1;
		c->pub.pairing = PAIR_ONE_SIDED;
		c->holding = true;
		c->key_fam[0] = src.fam;
		memcpy(c->key_addr[0], src.a, 16);
		c->key_fam[1] = dst.fam;
		memcpy(c->key_addr[1], dst.a, 16);
		fill_endpoint(&c->pub.side[0], f, true);
		fill_endpoint(&c->pub.side[1], f, false);
		c->pub.side[1].qpn = p->dqpn;
		c->pub.side[1].qpn_known = true;
		link_side(t, c, 1);
		wait_add(t, c, 0);
	}
	int s = !r;
	c->pub.last_ns = ts;
	c->last_frame = frame;
	fill_endpoint(&c->pub.side[s], f, true);
	if (!c->st)
		return;
	if (c->holding && !c->pub.client_known) {
		int role = role_of(p);
		if (role) {
			/* Decide before this packet's events: side[0] is the client. */
			int client = role > 0 ? r : s;
			if (client != 0) {
				conn_swap(t, c);
				r = !r;
				s = !s;
			}
			c->pub.client_known = true;
			hold_release(t, c);
		}
	}
	if (c->pub.pairing == PAIR_CM && !c->sport_learned &&
	    c->pub.side[0].udp_sport && c->pub.side[1].udp_sport) {
		c->sport_learned = true;
		learn_sport_model(t, c);
	}

	uint8_t kind = p->op->kind;
	switch (kind) {
	case IBK_READ_RESP_FIRST: case IBK_READ_RESP_MIDDLE:
	case IBK_READ_RESP_LAST:  case IBK_READ_RESP_ONLY:
		read_resp(t, c, r, p, ts, frame);
		break;
	case IBK_ACK:
	case IBK_ATOMIC_ACK:
		ack_packet(t, c, r, p);
		if (t->track && c->st)
			ack_event(t, c, r, p, ts, frame);
		break;
	case IBK_CNP:
		break;
	default:
		req_packet(t, c, s, p, ts, frame);
		break;
	}
}

/* ------------------------------------------------------------------ CM */

static struct pending_req *pending_find(struct conn_table *t, const struct ep_key *owner, uint32_t comm_id)
{
	for (unsigned i = 0; i < PENDING_REQS; i++) {
		struct pending_req *q = &t->pend[i];
		if (q->used && q->m.local_comm_id == comm_id && q->fam == owner->fam &&
		    memcmp(q->addr, owner->a, 16) == 0)
			return q;
	}
	return NULL;
}

static void set_cm_params(struct conn *c, int i, const struct cm_msg *m)
{
	if (!m->has_rpcrdma || m->rr_version != RPCRDMA_CM_VERSION)
		return;
	c->pub.cm_params[i] = true;
	c->pub.inline_send[i] = m->rr_send_size;
	c->pub.inline_recv[i] = m->rr_recv_size;
	c->pub.remote_inv[i] = m->rr_flags & RPCRDMA_CM_REMOTE_INV;
}

static struct conn *find_by_comm(struct conn_table *t, const struct ep_key *owner, uint32_t id)
{
	struct hkey k = comm_key(owner, id);
	struct hent *h = ht_find(&t->ht, &k);
	return h ? h->c : NULL;
}

static void cm_rep(struct conn_table *t, uint64_t ts, uint64_t frame, const struct ib_frame *f,
		   const struct ep_key *src, const struct ep_key *dst, const struct cm_msg *m)
{
	struct pending_req *q = pending_find(t, dst, m->remote_comm_id);
	struct conn *c;

	/* A retransmitted REP for a connection we already built. */
	c = find_by_comm(t, src, m->local_comm_id);
	if (c && !c->closed)
		return;

	c = conn_new(t, q ? q->ts : ts, q ? q->frame : frame);
	if (!c) {
		tdiag(t, frame, CUR_INVALID, "out of memory for a new connection");
		return;
	}
	c->pub.pairing = PAIR_CM;
	c->pub.client_known = true;
	t->st->conns_cm++;
	/* side[0]: the REQ sender (destination of the REP). */
	c->key_fam[0] = dst->fam;
	memcpy(c->key_addr[0], dst->a, 16);
	c->key_fam[1] = src->fam;
	memcpy(c->key_addr[1], src->a, 16);
	if (q) {
		c->pub.side[0] = q->ep;
	} else {
		fill_endpoint(&c->pub.side[0], f, false);
	}
	fill_endpoint(&c->pub.side[1], f, true);
	/* CM MADs come from QP1: their UDP port says nothing about the QPs. */
	c->pub.side[0].udp_sport = c->pub.side[1].udp_sport = 0;
	c->pub.side[1].qpn = m->local_qpn;
	c->pub.side[1].qpn_known = true;
	c->cm_psn[1] = m->start_psn;
	c->cm_psn_known[1] = true;
	c->comm_id[1] = m->local_comm_id;
	set_cm_params(c, 1, m);
	if (q) {
		c->pub.side[0].qpn = q->m.local_qpn;
		c->pub.side[0].qpn_known = true;
		c->cm_psn[0] = q->m.start_psn;
		c->cm_psn_known[0] = true;
		c->comm_id[0] = q->m.local_comm_id;
		c->pmtu = ib_mtu_bytes(q->m.path_mtu);
		set_cm_params(c, 0, &q->m);
		q->used = false;
	}
	for (int i = 0; i < 2; i++) {
		if (i == 0 && !q)
			continue;
		struct ep_key e = side_key(c, i);
		struct hkey ck = comm_key(&e, c->comm_id[i]);
		struct hent *old = ht_find(&t->ht, &ck);
		if (old && old->c != c && old->c)
			conn_close(t, old->c, ts, frame);
		if (ht_put(&t->ht, &ck, c, i))
			c->comm_known[i] = true;
		/* A QP still bound to an older connection: that one ended. */
		struct hkey qk = qp_key(&e, c->pub.side[i].qpn);
		struct hent *oq = ht_find(&t->ht, &qk);
		if (oq && oq->c != c) {
			struct conn *o = oq->c;
			conn_close(t, o, ts, frame);
			unlink_all(t, o);
		}
		link_side(t, c, i);
	}
	if (!q)
		wait_add(t, c, 0);   /* REQ not captured: learn side[0]'s QPN */
	announce(t, c);
}

void conn_cm(struct conn_table *t, uint64_t ts, uint64_t frame,
	     const struct ib_frame *f, const struct cm_msg *m)
{
	struct ep_key src, dst;
	frame_keys(f, &src, &dst);

	switch (m->attr) {
	case CM_ATTR_REQ: {
		struct pending_req *q = pending_find(t, &src, m->local_comm_id);
		if (!q) {
			q = &t->pend[t->pend_next];
			t->pend_next = (t->pend_next + 1) % PENDING_REQS;
		}
		memset(q, 0, sizeof(*q));
		q->used = true;
		q->ts = ts;
		q->frame = frame;
		q->fam = src.fam;
		memcpy(q->addr, src.a, 16);
		memcpy(q->peer, dst.a, 16);
		fill_endpoint(&q->ep, f, true);
		q->m = *m;
		q->m.priv = NULL;
		q->m.priv_len = 0;
		break;
	}
	case CM_ATTR_REP:
		cm_rep(t, ts, frame, f, &src, &dst, m);
		break;
	case CM_ATTR_RTU:
		break;
	case CM_ATTR_DREQ: {
		struct hkey k = qp_key(&dst, m->remote_qpn);
		struct hent *h = ht_find(&t->ht, &k);
		struct conn *c = h ? h->c : find_by_comm(t, &src, m->local_comm_id);
		if (c)
			conn_close(t, c, ts, frame);
		break;
	}
	case CM_ATTR_DREP: {
		struct conn *c = find_by_comm(t, &src, m->local_comm_id);
		conn_end(t, c ? c : find_by_comm(t, &dst, m->remote_comm_id), ts, frame);
		break;
	}
	case CM_ATTR_REJ: {
		struct pending_req *q = pending_find(t, &dst, m->remote_comm_id);
		if (q)
			q->used = false;
		conn_end(t, find_by_comm(t, &dst, m->remote_comm_id), ts, frame);
		break;
	}
	default:
		break;
	}
}

/* -------------------------------------------------------------- public */

struct conn_table *conn_table_new(rdma_event_fn fn, diag_fn diag, void *ctx, struct transport_stats *st)
{
	struct conn_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->fn = fn;
	t->diag = diag;
	t->ctx = ctx;
	t->st = st;
	t->data_cap = TRANSPORT_DATA_CAP;
	return t;
}

void conn_set_data_filter(struct conn_table *t, rdma_data_filter_fn fn)
{
	t->want = fn;
}

void conn_set_frame_tracking(struct conn_table *t, bool on)
{
	t->track = on;
}

bool conn_frame_used(struct conn_table *t, bool reset)
{
	bool u = t->frame_used;
	if (reset)
		t->frame_used = false;
	return u;
}

void conn_set_data_cap(struct conn_table *t, size_t cap)
{
	t->data_cap = cap;
}

void conn_flush(struct conn_table *t)
{
	for (size_t i = 0; i < t->nconns; i++) {
		struct conn *c = t->conns[i];
		if (!c->closed)
			conn_close(t, c, c->pub.last_ns, c->last_frame);
	}
}

size_t conn_count(const struct conn_table *t)
{
	return t->nconns;
}

const struct rdma_conn *conn_get(const struct conn_table *t, size_t i)
{
	return i < t->nconns ? &t->conns[i]->pub : NULL;
}

void conn_table_free(struct conn_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nconns; i++) {
		struct conn *c = t->conns[i];
		if (c->st) {
			for (int s = 0; s < 2; s++)
				dir_free(&c->st->d[s]);
			free(c->st->hold.ev);
			buf_free(&c->st->hold.arena);
			free(c->st);
		}
		free(c);
	}
	free(t->conns);
	free(t->ht.e);
	free(t);
}
