/* A connection's life: creation, its entries in the index and the
 * waiting lists, the events it delivers (held, bounded, while the roles of
 * an inferred connection are unknown), the role swap, the close; and the
 * table's creation, flush and release.  See conn.c for the model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/grow.h"
#include "dissect/conn_int.h"

/* ------------------------------------------------------------- helpers */

void conn_diag(struct conn_table *t, uint64_t frame, enum cur_err kind, const char *msg)
{
	if (!t->diag)
		return;
	struct diag d = { frame, 0, "rc", kind, msg };
	t->diag(&d, t->ctx);
}

void conn_fpush(struct conn_table *t, struct fvec *v, uint64_t frame)
{
	if (!t->track)
		return;
	t->frame_used = true;
	if (ARR_RESERVE(v->f, v->cap, v->n + 1, 16) < 0)
		return;
	v->f[v->n++] = frame;
}

int conn_buf_reserve(struct buf *b, size_t need)
{
	return ARR_RESERVE(b->p, b->cap, need, 4096);
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ------------------------------------------------------------- events */


static void conn_deliver(struct conn_table *t, const struct rdma_event *ev)
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
void conn_ev_at(struct rdma_event *ev, enum rdma_ev_type type, struct conn *c, int dir, uint64_t ts,
		uint64_t frame)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->conn = &c->pub;
	ev->dir = dir;
	ev->ts_first_ns = ev->ts_last_ns = ts;
	ev->frame_first = ev->frame_last = frame;
}

void conn_announce(struct conn_table *t, struct conn *c)
{
	if (c->announced)
		return;
	c->announced = true;
	struct rdma_event ev;
	conn_ev_at(&ev, RDMA_EV_CONN_NEW, c, 0, c->pub.first_ns, c->first_frame);
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
	if (ARR_RESERVE(q->ev, q->cap, q->n + 1, 16) < 0)
		return false;
	if (ev->data_len && conn_buf_reserve(&q->arena, q->arena.len + ev->data_len) < 0)
		return false;
	size_t fbytes = (size_t)ev->nframes * sizeof(uint64_t);
	if (fbytes && conn_buf_reserve(&q->farena, q->farena.len + fbytes) < 0)
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

void conn_emit(struct conn_table *t, struct conn *c, const struct rdma_event *ev)
{
	if (c->holding) {
		if (hold_push(t, c, ev))
			return;
		conn_hold_release(t, c);   /* bounds reached: first sender stays side[0] */
	}
	conn_announce(t, c);
	conn_deliver(t, ev);
}

void conn_hold_release(struct conn_table *t, struct conn *c)
{
	if (!c->holding)
		return;
	c->holding = false;
	conn_announce(t, c);
	if (!c->st)
		return;
	struct holdq *q = &c->st->hold;
	for (size_t i = 0; i < q->n; i++) {
		struct rdma_event ev = q->ev[i].ev;
		ev.data = ev.data_len ? q->arena.p + q->ev[i].off : NULL;
		ev.frames = ev.nframes ? (const uint64_t *)(const void *)(q->farena.p + q->ev[i].foff) : NULL;
		conn_deliver(t, &ev);
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

struct conn *conn_new(struct conn_table *t, uint64_t ts, uint64_t frame)
{
	if (ARR_RESERVE(t->conns, t->cap_conns, t->nconns + 1, 64) < 0)
		return NULL;
	struct conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->st = calloc(1, sizeof(*c->st));
	if (!c->st) {
		free(c);
		return NULL;
	}
	c->pub.id = t->id_counter ? (*t->id_counter)++ : (uint32_t)t->nconns + 1;
	c->pub.first_ns = c->pub.last_ns = ts;
	c->first_frame = c->last_frame = frame;
	t->conns[t->nconns++] = c;
	t->st->conns++;
	return c;
}

void conn_link_side(struct conn_table *t, struct conn *c, int i)
{
	struct ep_key e = conn_side_key(c, i);
	struct hkey k = conn_qp_key(&e, c->pub.side[i].qpn);
	struct hent *h = conn_ht_find(&t->ht, &k);
	if (h && h->c != c) {
		/* QPN reused: the old connection is over. */
		struct conn *old = h->c;
		old->linked[h->side] = false;
		conn_ht_del(&t->ht, h);
	}
	if (conn_ht_put(&t->ht, &k, c, i))
		c->linked[i] = true;
}

/* Waiting lists are doubly linked so leaving one costs O(1) however many
 * one-sided connections share an address pair. */
void conn_wait_add(struct conn_table *t, struct conn *c, int unknown)
{
	struct ep_key u = conn_side_key(c, unknown), k = conn_side_key(c, !unknown);
	struct hkey wk = conn_wait_key(&u, &k);
	struct hent *h = conn_ht_find(&t->ht, &wk);
	struct conn *head = h ? h->c : NULL;
	if (!conn_ht_put(&t->ht, &wk, c, unknown))
		return;
	c->wait_next = head;
	c->wait_prev = NULL;
	if (head)
		head->wait_prev = c;
	c->waiting = true;
}

void conn_wait_remove(struct conn_table *t, struct conn *c)
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
		struct ep_key u = conn_side_key(c, unknown), k = conn_side_key(c, !unknown);
		struct hkey wk = conn_wait_key(&u, &k);
		struct hent *h = conn_ht_find(&t->ht, &wk);
		if (h && h->c == c) {
			if (c->wait_next)
				h->c = c->wait_next;
			else
				conn_ht_del(&t->ht, h);
		}
	}
	c->wait_next = c->wait_prev = NULL;
}

void conn_unlink_all(struct conn_table *t, struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->linked[i]) {
			struct ep_key e = conn_side_key(c, i);
			struct hkey k = conn_qp_key(&e, c->pub.side[i].qpn);
			struct hent *h = conn_ht_find(&t->ht, &k);
			if (h && h->c == c)
				conn_ht_del(&t->ht, h);
			c->linked[i] = false;
		}
		if (c->comm_known[i]) {
			struct ep_key e = conn_side_key(c, i);
			struct hkey k = conn_comm_key(&e, c->comm_id[i]);
			struct hent *h = conn_ht_find(&t->ht, &k);
			if (h && h->c == c)
				conn_ht_del(&t->ht, h);
			c->comm_known[i] = false;
		}
	}
	conn_wait_remove(t, c);
}

/* Swaps side[0] and side[1] (only while events are held). */
void conn_swap(struct conn_table *t, struct conn *c)
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
		struct ep_key e = conn_side_key(c, i);
		struct hkey k = conn_qp_key(&e, p->side[i].qpn);
		struct hent *h = conn_ht_find(&t->ht, &k);
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
int conn_role_of(const struct ib_pkt *p)
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


/* Ends a connection: partial messages and unanswered READs go out
 * flagged, held events are released, then RDMA_EV_CONN_CLOSE. */
void conn_close(struct conn_table *t, struct conn *c, uint64_t ts, uint64_t frame)
{
	if (c->closed)
		return;
	if (c->st) {
		for (int s = 0; s < 2; s++) {
			struct dir_state *d = &c->st->d[s];
			if (d->req.active)
				conn_finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
			if (d->rresp.active)
				conn_finish_msg(t, c, s, &d->rresp, RDMA_EVF_INCOMPLETE);
			while (d->rd_n) {
				struct rd_req r = d->reads[d->rd_head];
				d->rd_head = (d->rd_head + 1) % d->rd_cap;
				d->rd_n--;
				conn_expire_read(t, c, s, &r, RDMA_EVF_NO_RESPONSE);
			}
		}
	}
	conn_hold_release(t, c);
	conn_announce(t, c);
	c->closed = true;
	c->closed_ts = ts;
	struct rdma_event ev;
	conn_ev_at(&ev, RDMA_EV_CONN_CLOSE, c, 0, ts, frame);
	if (t->fn)
		t->fn(&ev, t->ctx);
	if (c->st) {
		for (int s = 0; s < 2; s++)
			dir_free(&c->st->d[s]);
		free(c->st);
		c->st = NULL;
	}
	conn_wait_remove(t, c);
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

void conn_set_id_counter(struct conn_table *t, uint32_t *counter)
{
	t->id_counter = counter;
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
