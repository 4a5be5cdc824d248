/* Events -> records, the front of the dissector: set-up, diagnostics and
 * findings, frame notes, per-connection state, and the switch that sends
 * each transport event (SEND, RDMA READ/WRITE, connection end) on its way.
 * Calls and replies become records in dissect_record.c; RPC-over-RDMA
 * version 2 SENDs are taken apart in dissect_v2.c. */
#include "dissect/grow.h"
#include "dissect/dissect.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/dissect_int.h"
#include "dissect/programs.h"
#include "dissect/rpc.h"
#include "dissect/rpcrdma2.h"

#define DEFAULT_MAX_INFLIGHT (1u << 20)
#define DEFAULT_TIMEOUT_NS   (600ull * 1000000000ull)

struct dissect *dissect_new(const struct dissect_opts *opts, const struct dissect_cbs *cbs)
{
	struct dissect *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (opts)
		d->opts = *opts;
	if (!d->opts.max_inflight)
		d->opts.max_inflight = DEFAULT_MAX_INFLIGHT;
	if (!d->opts.timeout_ns)
		d->opts.timeout_ns = DEFAULT_TIMEOUT_NS;
	if (cbs)
		d->cbs = *cbs;
	if (xid_table_init(&d->xids) || seg_table_init(&d->segs)) {
		dissect_free(d);
		return NULL;
	}
	return d;
}

void dissect_free(struct dissect *d)
{
	if (!d)
		return;
	dx_hold_free(d);
	xid_table_free(&d->xids);
	seg_table_free(&d->segs);
	for (size_t i = 0; i < d->nconns; i++) {
		struct uconn *u = &d->conns[i];
		for (int k = 0; u->cont && k < 2; k++) {
			free(u->cont[k].buf);
			free(u->cont[k].frames);
		}
		free(u->cont);
		free(u->sent);
	}
	free(d->conns);
	free(d);
}

const struct dissect_stats *dissect_stats(const struct dissect *d) { return &d->st; }

void dx_diag(struct dissect *d, uint64_t frame, size_t off, const char *layer,
	     enum cur_err kind, const char *msg)
{
	if (!d->cbs.diag)
		return;
	struct diag g = { frame, off, layer, kind, msg };
	d->cbs.diag(&g, d->cbs.ctx);
}

/* Reports a failed cursor: "truncated: <field>" / "invalid: <field>". */
void dx_diag_cur(struct dissect *d, uint64_t frame, size_t base, const struct cursor *c,
		 const char *layer)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s %s", cur_err_name(c->err), c->err_what ? c->err_what : "data");
	dx_diag(d, frame, base + c->err_off, layer, c->err, msg);
}

bool dx_snap_cut(struct dissect *d, const struct cursor *c, bool is_reply)
{
	if (!d->ev_cut || c->err != CUR_TRUNCATED)
		return false;
	if (is_reply)
		d->st.snap_cut_replies++;
	else
		d->st.snap_cut_calls++;
	if (d->ev_kept > d->st.snap_cut_kept)
		d->st.snap_cut_kept = d->ev_kept;
	return true;
}

bool dissect_snap_note(const struct dissect_stats *st, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (!st->snap_cut_calls && !st->snap_cut_replies)
		return false;
	/* 512: RPC-over-RDMA header with a few chunk segments, the RPC
	 * header with an AUTH_SYS credential and the start of the arguments */
	snprintf(buf, len, "capture snap length cuts RPC-over-RDMA/RPC headers (messages kept to "
		 "%llu bytes): %llu calls and %llu replies could not be named; capture with -s 0 "
		 "(or at least 512)", (unsigned long long)st->snap_cut_kept,
		 (unsigned long long)st->snap_cut_calls, (unsigned long long)st->snap_cut_replies);
	return true;
}

static void dx_finding(struct dissect *d, uint32_t conn_id, uint32_t xid, uint64_t frame,
		uint64_t ts, unsigned id, uint32_t a, uint64_t b)
{
	if (!d->cbs.finding)
		return;
	struct dissect_finding f = { conn_id, xid, frame, ts, (uint16_t)id, a, b };
	d->cbs.finding(&f, d->cbs.ctx);
}

/* ---- frame notes (dissect_cbs.frame_note) -------------------------- */

bool dissect_wants_frames(const struct dissect *d)
{
	return d->cbs.frame_note != NULL;
}

void dx_note_now(struct dissect *d, uint64_t frame, uint32_t conn_id, uint32_t xid, uint8_t role)
{
	struct dissect_frame_note n = { frame, conn_id, xid, role, NULL };
	d->cbs.frame_note(&n, d->cbs.ctx);
}

static void note_push(struct xentry *x, uint64_t frame, uint8_t role)
{
	if (ARR_RESERVE(x->notes, x->cap_notes, x->nnotes + 1, 16) < 0)
		return;
	x->notes[x->nnotes].frame = frame;
	x->notes[x->nnotes++].role = role;
}

static inline bool psn_in(uint32_t psn, uint32_t lo, uint32_t hi)
{
	return ((psn - lo) & 0xffffff) <= ((hi - lo) & 0xffffff);
}


/* The frames of ev belong to x's RPC.  READ: the request first when the
 * event has one (its RETH), then responses. */
void dx_note_attach(struct dissect *d, struct xentry *x, const struct rdma_event *ev, uint8_t role)
{
	if (!d->cbs.frame_note || !ev->nframes || d->noted)
		return;
	d->noted = true;
	bool req = ev->type == RDMA_EV_READ && (ev->rkey || ev->dma_len);
	for (uint32_t i = 0; i < ev->nframes; i++)
		note_push(x, ev->frames[i], role == DFR_READ_REQ && !(req && i == 0) ? DFR_READ_RESP : role);
	/* remember what the sender asked, for its ACKs */
	if (ev->type == RDMA_EV_READ || !ev->conn || ev->conn->ip_proto || ev->conn->id >= d->nconns)
		return;
	struct uconn *u = &d->conns[ev->conn->id];
	int dir = ev->dir & 1;
	if (!u->sent && !(u->sent = calloc(2, sizeof(*u->sent))))
		return;
	struct sentmsg *m = &u->sent[dir][u->sent_next[dir]++ % 32];
	m->psn_lo = ev->psn_first;
	m->psn_hi = (ev->psn_first + (ev->npkts ? ev->npkts - 1 : 0)) & 0xffffff;
	m->xid = x->rec.xid;
	m->call_dir = (uint8_t)x->call_dir;
	m->used = 1;
}

/* An ACK: to the RPC of the request it acknowledges, if still open. */
static void note_ack(struct dissect *d, const struct rdma_event *ev)
{
	uint32_t xid = 0;
	uint32_t cid = ev->conn ? ev->conn->id : 0;

	d->noted = true;
	if (ev->conn && cid < d->nconns && d->conns[cid].sent) {
		const struct uconn *u = &d->conns[cid];
		int dir = ev->dir & 1;
		for (unsigned i = 0; i < 32; i++) {
			const struct sentmsg *m = &u->sent[dir][(u->sent_next[dir] - 1 - i) % 32];
			if (!m->used || !psn_in(ev->psn_first, m->psn_lo, m->psn_hi))
				continue;
			xid = m->xid;
			struct xentry *x = xid_find(&d->xids, cid, m->call_dir, m->xid);
			if (x) {
				note_push(x, ev->frame_first, DFR_ACK);
				return;
			}
			break;
		}
	}
	dx_note_now(d, ev->frame_first, cid, xid, DFR_ACK);
}

/* Frames of an event no RPC claimed. */
static void note_unclaimed(struct dissect *d, const struct rdma_event *ev)
{
	uint32_t cid = ev->conn ? ev->conn->id : 0;
	bool req = ev->type == RDMA_EV_READ && (ev->rkey || ev->dma_len);

	for (uint32_t i = 0; i < ev->nframes; i++) {
		uint8_t role = DFR_OTHER;
		if (ev->type == RDMA_EV_READ)
			role = req && i == 0 ? DFR_READ_REQ : DFR_READ_RESP;
		else if (ev->type == RDMA_EV_WRITE)
			role = DFR_WRITE;
		else if (ev->type == RDMA_EV_FRAME && ev->frame_kind == 1)
			role = DFR_CM;
		dx_note_now(d, ev->frames[i], cid, 0, role);
	}
}

/* With the record: its frames, in frame order. */
void dx_note_record(struct dissect *d, struct xentry *x)
{
	struct xnote *n = x->notes;
	for (uint32_t i = 1; i < x->nnotes; i++) {   /* nearly sorted already */
		struct xnote v = n[i];
		uint32_t j = i;
		while (j && n[j - 1].frame > v.frame) {
			n[j] = n[j - 1];
			j--;
		}
		n[j] = v;
	}
	for (uint32_t i = 0; i < x->nnotes; i++) {
		struct dissect_frame_note fn = { n[i].frame, x->rec.conn_id, x->rec.xid, n[i].role, &x->rec };
		d->cbs.frame_note(&fn, d->cbs.ctx);
	}
	x->nnotes = 0;
}

struct uconn *dx_uconn_get(struct dissect *d, const struct rdma_conn *c)
{
	if (c->id >= d->nconns) {
		size_t old = d->nconns;
		if (ARR_RESERVE(d->conns, d->nconns, (size_t)c->id + 1, 16) < 0)
			return NULL;
		memset(d->conns + old, 0, (d->nconns - old) * sizeof(*d->conns));
	}
	struct uconn *u = &d->conns[c->id];
	if (!u->conn)
		d->st.conns++;
	u->conn = c;
	return u;
}

void dx_endpoint(struct rec_endpoint *e, const struct rdma_endpoint *s)
{
	memset(e, 0, sizeof(*e));
	e->family = s->family;
	memcpy(e->addr, s->addr, sizeof(e->addr));
	e->qpn = s->qpn_known ? s->qpn : 0;
	e->lid = s->lid;
	e->port = s->udp_sport;
}

const char *dissect_addr_str(const struct rec_endpoint *e, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];

	switch (e->family) {
	case 4:
		inet_ntop(AF_INET, e->addr, tmp, sizeof(tmp));
		snprintf(buf, len, "%s", tmp);
		break;
	case 6:
	case 'G':
		inet_ntop(AF_INET6, e->addr, tmp, sizeof(tmp));
		snprintf(buf, len, "%s%s", e->family == 'G' ? "gid " : "", tmp);
		break;
	case 'L':
		snprintf(buf, len, "lid 0x%04x", e->lid);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}

static void remember_unreadable(struct uconn *u, const struct rdma_event *ev, uint32_t xid)
{
	struct unknown_call *k = &u->unknown[u->unknown_next++ % 8];

	*k = (struct unknown_call){ .ts = ev->ts_first_ns, .xid = xid, .dir = (uint8_t)ev->dir, .used = 1 };
}

/* A SEND on an RPC-over-RDMA connection whose version word is neither 1
 * nor 2: nothing past it can be read (RFC 8166 §4.2: the version decides
 * the layout), so say which frame and remember the xid (the first word in
 * both versions), to keep the reply that follows from being blamed on the
 * peer. */
static void on_unknown_version(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
			       uint32_t vers)
{
	char msg[96];
	struct cursor c = cur_make(ev->data, ev->data_len);
	uint32_t xid = cur_be32(&c, "rpcrdma xid");

	d->st.bad_rpcrdma++;
	snprintf(msg, sizeof(msg), "unknown RPC-over-RDMA version %u (this decoder knows 1 and 2)", vers);
	dx_diag(d, ev->frame_first, 4, "rpcrdma", CUR_INVALID, msg);
	remember_unreadable(u, ev, xid);
}

static bool unknown_live(const struct dissect *d, const struct unknown_call *k, uint64_t now)
{
	return k->used && (now <= k->ts || now - k->ts <= d->opts.timeout_ns);
}

bool dx_unknown_call_answered(const struct dissect *d, struct uconn *u, int dir, uint32_t xid,
			      uint64_t now)
{
	for (unsigned i = 0; i < 8; i++) {
		struct unknown_call *k = &u->unknown[i];
		if (unknown_live(d, k, now) && k->dir == dir && k->xid == xid) {
			k->used = 0;
			return true;
		}
	}
	return false;
}

/* True while a call of unknown version on u may still be answered. */
static bool dx_unknown_call_pending(const struct dissect *d, const struct uconn *u, uint64_t now)
{
	for (unsigned i = 0; i < 8; i++)
		if (unknown_live(d, &u->unknown[i], now))
			return true;
	return false;
}

/* A SEND whose header could not be read: a reply if a call of its xid
 * (the first word in every version) is waiting for one, or if it comes
 * from the side that did not open the connection (side 0 did). */
static bool answers_call(struct dissect *d, const struct rdma_event *ev)
{
	struct cursor c = cur_make(ev->data, ev->data_len);
	uint32_t xid = cur_be32(&c, "rpcrdma xid");

	if (cur_ok(&c) && xid_find(&d->xids, ev->conn->id, ev->dir ^ 1, xid))
		return true;
	return ev->conn->client_known && ev->dir == 1;
}

static void on_send(struct dissect *d, const struct rdma_event *ev)
{
	struct uconn *u = dx_uconn_get(d, ev->conn);
	struct rpcrdma_hdr *h = &d->hdr;

	if (!u)
		return;
	d->st.sends++;
	uint32_t vers = rpcrdma_peek_vers(ev->data, ev->data_len);
	if (vers == 2) {
		dx_on_send_v2(d, u, ev);
		d->now_ns = ev->ts_last_ns;
		dx_evict(d);
		return;
	}
	if (ev->conn->cm_params[0] || ev->conn->cm_params[1])
		u->is_rpcrdma = true;
	if (vers != 1) {
		if (u->is_rpcrdma && ev->data_len >= 8)
			on_unknown_version(d, u, ev, vers);
		else
			d->st.not_rpcrdma++;
		return;
	}
	struct cursor c = cur_make(ev->data, ev->data_len);
	if (rpcrdma_decode(h, &c)) {
		if (!u->is_rpcrdma) {
			d->st.not_rpcrdma++;
			return;
		}
		d->st.bad_rpcrdma++;
		bool reply = answers_call(d, ev);
		if (!dx_snap_cut(d, &c, reply))
			dx_diag_cur(d, ev->frame_first, 0, &c, "rpcrdma");
		else if (!reply)   /* a call whose chunks are unknown, like an unknown version */
			remember_unreadable(u, ev, h->xid);
		return;
	}
	d->st.rpcrdma_v1++;
	if (h->overflow)
		dx_diag(d, ev->frame_first, 0, "rpcrdma", CUR_INVALID,
		     "invalid chunk lists: more segments than kept (counted, not tracked)");

	struct xentry *pending = xid_find(&d->xids, ev->conn->id, ev->dir ^ 1, h->xid);
	switch (h->proc) {
	case RDMA_MSG:
	case RDMA_MSGP: {
		int t = rpc_peek_type(ev->data + h->body_off, ev->data_len - h->body_off);
		if (t == RPC_CALL)
			dx_handle_call(d, u, ev, h);
		else if (t == RPC_REPLY)
			dx_handle_reply(d, u, ev, h, pending);
		else if (!u->is_rpcrdma) {
			d->st.not_rpcrdma++;
		} else {
			struct cursor rc = cur_make(ev->data, ev->data_len);
			rc.off = h->body_off;
			cur_fail(&rc, ev->data_len - h->body_off < 8 ? CUR_TRUNCATED : CUR_INVALID,
				 "rpc msg_type");
			rc.err_off = h->body_off + 4;
			if (!dx_snap_cut(d, &rc, pending != NULL)) {
				dx_diag_cur(d, ev->frame_first, 0, &rc, "rpc");
				d->st.decode_errors++;
			}
		}
		break;
	}
	case RDMA_NOMSG:
		/* No RPC header inline: a call carries it in a position-zero
		 * Read chunk, a reply in the Reply chunk the call offered. */
		if (rpcrdma_has_p0(h))
			dx_handle_call(d, u, ev, h);
		else
			dx_handle_reply(d, u, ev, h, pending);
		break;
	case RDMA_ERROR:
		dx_handle_reply(d, u, ev, h, pending);
		break;
	case RDMA_DONE:
		d->st.rdma_done++;
		break;
	default:
		break;
	}
	d->now_ns = ev->ts_last_ns;
	dx_evict(d);
}

static void on_rdma(struct dissect *d, const struct rdma_event *ev)
{
	struct chunk_match m;

	if (ev->type == RDMA_EV_READ)
		d->st.reads++;
	else
		d->st.writes++;
	struct uconn *u = dx_uconn_get(d, ev->conn);
	if (!u)
		return;
	if (!chunks_apply(&d->segs, &d->xids, ev->conn->id, ev, &m)) {
		if (!u->is_rpcrdma)
			return;   /* plain RDMA traffic (perftest ...) */
		d->st.rdma_unmatched++;
		if (dx_unknown_call_pending(d, u, ev->ts_first_ns))
			return;   /* likely that call's chunks: its header was not readable */
		dx_finding(d, ev->conn->id, 0, ev->frame_first, ev->ts_first_ns, FND_RDMA_UNMATCHED,
			ev->rkey, ev->va);
		return;
	}
	dx_note_attach(d, m.x, ev, ev->type == RDMA_EV_READ ? DFR_READ_REQ : DFR_WRITE);
	if (m.seg)
		d->st.rdma_matched++;
	else
		d->st.rdma_hinted++;
	if (m.past_end)
		rec_add_finding(&m.x->rec, ev->type == RDMA_EV_READ ? FND_READ_PAST_CHUNK
								    : FND_WRITE_PAST_CHUNK,
				m.past_end, ev->rkey);
	if (m.p0_complete)
		dx_decode_call(d, m.x, m.x->p0buf, m.x->p0len, m.x->rec.frame_call, 0);
}

void dissect_event(const struct rdma_event *ev, void *ctx)
{
	struct dissect *d = ctx;

	d->st.events++;
	d->noted = false;
	d->ev_cut = (ev->flags & RDMA_EVF_TRUNC_DATA) && ev->data_len < ev->msg_len;
	d->ev_kept = ev->data_len;
	switch (ev->type) {
	case RDMA_EV_CONN_NEW:
		dx_uconn_get(d, ev->conn);
		break;
	case RDMA_EV_SEND:
		if (ev->data)
			on_send(d, ev);
		break;
	case RDMA_EV_READ:
	case RDMA_EV_WRITE:
		on_rdma(d, ev);
		break;
	case RDMA_EV_GAP: {
		struct uconn *u = dx_uconn_get(d, ev->conn);
		d->st.gaps++;
		if (u)
			u->gaps++;
		break;
	}
	case RDMA_EV_CONN_CLOSE:
		/* what only an open connection needs: memory follows open
		 * connections, not every connection the capture ever had */
		if (ev->conn && ev->conn->ip_proto)
			dx_hold_close(d, ev->conn->id);
		if (ev->conn && ev->conn->id < d->nconns) {
			struct uconn *u = &d->conns[ev->conn->id];
			for (int k = 0; u->cont && k < 2; k++) {
				dx_cont_drop(d, &u->cont[k], ev->frame_first, "cut by the connection's end");
				free(u->cont[k].buf);
				free(u->cont[k].frames);
			}
			free(u->cont);
			free(u->sent);
			u->cont = NULL;
			u->sent = NULL;
		}
		break;
	case RDMA_EV_ACK:
		if (d->cbs.frame_note)
			note_ack(d, ev);
		break;
	case RDMA_EV_FRAME:
		break;
	case RDMA_EV_RPC:
		if (ev->data)
			dx_on_rpc(d, ev);
		break;
	}
	if (d->cbs.frame_note && ev->nframes && !d->noted)
		note_unclaimed(d, ev);
}
