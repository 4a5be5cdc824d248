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
	if (d->tp && d->tp_free)
		d->tp_free(d->tp);
	xid_table_free(&d->xids);
	seg_table_free(&d->segs);
	free(d->conns);
	free(d);
}

const struct dissect_stats *dissect_stats(const struct dissect *d) { return &d->st; }

static void diag(struct dissect *d, uint64_t frame, size_t off, const char *layer,
		 enum cur_err kind, const char *msg)
{
	if (!d->cbs.diag)
		return;
	struct diag g = { frame, off, layer, kind, msg };
	d->cbs.diag(&g, d->cbs.ctx);
}

/* Reports a failed cursor: "truncated: <field>" / "invalid: <field>". */
static void diag_cur(struct dissect *d, uint64_t frame, size_t base, const struct cursor *c,
		     const char *layer)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s %s", cur_err_name(c->err), c->err_what ? c->err_what : "data");
	diag(d, frame, base + c->err_off, layer, c->err, msg);
}

static void finding(struct dissect *d, uint32_t conn_id, uint32_t xid, uint64_t frame,
		    uint64_t ts, unsigned id, uint32_t a, uint64_t b)
{
	if (!d->cbs.finding)
		return;
	struct dissect_finding f = { conn_id, xid, frame, ts, (uint16_t)id, a, b };
	d->cbs.finding(&f, d->cbs.ctx);
}

static struct uconn *uconn_get(struct dissect *d, const struct rdma_conn *c)
{
	if (c->id >= d->nconns) {
		size_t n = d->nconns ? d->nconns : 16;
		while (n <= c->id)
			n *= 2;
		struct uconn *u = realloc(d->conns, n * sizeof(*u));
		if (!u)
			return NULL;
		memset(u + d->nconns, 0, (n - d->nconns) * sizeof(*u));
		d->conns = u;
		d->nconns = n;
	}
	struct uconn *u = &d->conns[c->id];
	if (!u->conn)
		d->st.conns++;
	u->conn = c;
	return u;
}

static void endpoint(struct rec_endpoint *e, const struct rdma_endpoint *s)
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

/* The inline threshold of messages sent by side `dir`: the receiver's
 * advertised receive size when CM private data says so (RFC 8797), 1024
 * when the connection was set up without it, 4096 (Linux default) when
 * the capture missed the handshake. */
static uint32_t inline_limit(const struct rdma_conn *c, int dir)
{
	int rx = dir ^ 1;

	if (c->pairing == PAIR_CM) {
		if (c->cm_params[rx] && c->inline_recv[rx])
			return c->inline_recv[rx];
		return c->cm_params[dir] ? 4096 : 1024;
	}
	return 4096;
}

static void tree_rpcrdma(struct dtree *t, const struct rpcrdma_hdr *h, size_t msglen)
{
	if (!t)
		return;
	dt_add(t, "RPC-over-RDMA v1: xid 0x%08x credits %u %s, header %zu bytes, message %zu bytes",
	       h->xid, h->credits, rpcrdma_proc_name(h->proc), h->hdr_len, msglen);
	dt_push(t);
	for (unsigned i = 0; i < h->nrsegs; i++)
		dt_add(t, "read segment: position %u handle 0x%08x length %u offset 0x%016" PRIx64,
		       h->rsegs[i].position, h->rsegs[i].seg.handle, h->rsegs[i].seg.length,
		       h->rsegs[i].seg.offset);
	for (unsigned c = 0; c < h->nwchunks; c++) {
		dt_add(t, "write chunk %u: %u segment(s), %" PRIu64 " bytes", c,
		       h->wchunks[c].nsegs_wire, h->wchunks[c].length);
		dt_push(t);
		for (unsigned k = 0; k < h->wchunks[c].nsegs; k++) {
			const struct rpcrdma_seg *s = &h->wsegs[h->wchunks[c].first + k];
			dt_add(t, "segment: handle 0x%08x length %u offset 0x%016" PRIx64,
			       s->handle, s->length, s->offset);
		}
		dt_pop(t);
	}
	if (h->has_reply) {
		dt_add(t, "reply chunk: %u segment(s), %" PRIu64 " bytes", h->nrpsegs_wire, h->reply_len);
		dt_push(t);
		for (unsigned k = 0; k < h->nrpsegs; k++)
			dt_add(t, "segment: handle 0x%08x length %u offset 0x%016" PRIx64,
			       h->rpsegs[k].handle, h->rpsegs[k].length, h->rpsegs[k].offset);
		dt_pop(t);
	}
	if (h->proc == RDMA_ERROR)
		dt_add(t, "error: %s", rpcrdma_err_name(h->err));
	dt_pop(t);
}

/* ---- RPC decode --------------------------------------------------- */

static void decode_call(struct dissect *d, struct xentry *x, const uint8_t *buf, size_t len,
			uint64_t frame, size_t base)
{
	struct nfsrdma_record *r = &x->rec;
	struct dtree *t = d->opts.tree ? &x->tree : NULL;
	struct cursor c = cur_make(buf, len);
	struct rpc_msg m;

	x->call_decoded = true;
	if (rpc_decode(&m, &c, t)) {
		diag_cur(d, frame, base, &c, "rpc");
		r->flags |= RECF_CALL_PARTIAL;
		d->st.decode_errors++;
		return;
	}
	if (m.mtype != RPC_CALL || m.xid != r->xid) {
		char msg[96];
		snprintf(msg, sizeof(msg), "invalid rpc: %s with xid 0x%08x inside call 0x%08x",
			 m.mtype == RPC_CALL ? "call" : "reply", m.xid, r->xid);
		diag(d, frame, base, "rpc", CUR_INVALID, msg);
		r->flags |= RECF_CALL_PARTIAL;
		d->st.decode_errors++;
		if (m.mtype != RPC_CALL)
			return;
	}
	if (r->conn_id < d->nconns)
		d->conns[r->conn_id].is_rpcrdma = true;
	r->prog = m.prog;
	r->vers = m.vers;
	r->proc = m.proc;
	r->auth_flavor = m.cred_flavor;
	if (m.prog == PROG_NFS_CB)
		r->flags |= RECF_BACKCHANNEL;
	if (m.cred_flavor == AUTH_SYS) {
		r->auth_uid = m.sys_uid;
		r->auth_gid = m.sys_gid;
	} else if (m.cred_flavor == RPCSEC_GSS) {
		r->gss_proc = m.gss_proc;
		r->gss_service = m.gss_svc;
		r->gss_seq = m.gss_seq;
		if (m.gss_proc == 0 && m.gss_svc != RPC_GSS_SVC_NONE) {
			r->flags |= RECF_GSS_BODY;
			return;
		}
	}
	const struct prog_info *p = prog_lookup(m.prog, m.vers);
	if (!p || !p->decode_call)
		return;
	struct pdec pd = { .c = c, .rec = r, .ddp = &x->call_ddp, .tree = t, .reply = false,
			   .vers = m.vers, .proc = m.proc, .layer = p->layer };
	if (t) {
		const char *pn = p->proc_name ? p->proc_name(m.vers, m.proc) : NULL;
		dt_add(t, "%s v%u %s call", p->name, m.vers, pn ? pn : "?");
		dt_push(t);
	}
	p->decode_call(&pd);
	dt_pop(t);
	if (!cur_ok(&pd.c)) {
		/* Truncated args are normal with a short snaplen; say so once. */
		diag_cur(d, frame, base, &pd.c, p->layer);
		r->flags |= RECF_CALL_PARTIAL;
		d->st.decode_errors++;
	}
}

static void decode_reply(struct dissect *d, struct xentry *x, const uint8_t *buf, size_t len,
			 uint64_t frame, size_t base)
{
	struct nfsrdma_record *r = &x->rec;
	struct dtree *t = d->opts.tree ? &x->tree : NULL;
	struct cursor c = cur_make(buf, len);
	struct rpc_msg m;

	if (rpc_decode(&m, &c, t)) {
		diag_cur(d, frame, base, &c, "rpc");
		r->flags |= RECF_REPLY_PARTIAL;
		d->st.decode_errors++;
		return;
	}
	if (m.mtype != RPC_REPLY || m.xid != r->xid) {
		char msg[96];
		snprintf(msg, sizeof(msg), "invalid rpc: %s with xid 0x%08x inside reply 0x%08x",
			 m.mtype == RPC_CALL ? "call" : "reply", m.xid, r->xid);
		diag(d, frame, base, "rpc", CUR_INVALID, msg);
		r->flags |= RECF_REPLY_PARTIAL;
		d->st.decode_errors++;
		return;
	}
	if (r->conn_id < d->nconns)
		d->conns[r->conn_id].is_rpcrdma = true;
	if (m.reply_stat == RPC_MSG_DENIED) {
		r->rpc_status = m.reject_stat == 0 ? REC_RPC_DENIED_MISMATCH : REC_RPC_DENIED_AUTH;
		return;
	}
	r->rpc_status = m.accept_stat;
	if (m.accept_stat != 0 || !(r->flags & RECF_CALL) || !x->call_decoded || !r->prog ||
	    (r->flags & RECF_GSS_BODY))
		return;
	const struct prog_info *p = prog_lookup(r->prog, r->vers);
	if (!p || !p->decode_reply)
		return;
	struct pdec pd = { .c = c, .rec = r, .ddp = &x->reply_ddp, .tree = t, .reply = true,
			   .vers = r->vers, .proc = r->proc, .layer = p->layer };
	if (t) {
		const char *pn = p->proc_name ? p->proc_name(r->vers, r->proc) : NULL;
		dt_add(t, "%s v%u %s reply", p->name, r->vers, pn ? pn : "?");
		dt_push(t);
	}
	p->decode_reply(&pd);
	dt_pop(t);
	if (!cur_ok(&pd.c)) {
		diag_cur(d, frame, base, &pd.c, p->layer);
		r->flags |= RECF_REPLY_PARTIAL;
		d->st.decode_errors++;
	}
}

/* ---- completion --------------------------------------------------- */

static void emit(struct dissect *d, struct xentry *x)
{
	struct nfsrdma_record *r = &x->rec;
	struct uconn *u = r->conn_id < d->nconns ? &d->conns[r->conn_id] : NULL;

	if (x->p0buf && !x->call_decoded) {
		/* The position-zero chunk never fully arrived: decode what did. */
		if (x->p0got < x->p0len)
			r->flags |= RECF_CALL_PARTIAL;
		decode_call(d, x, x->p0buf, x->p0got < x->p0len ? x->p0got : x->p0len, r->frame_call, 0);
	}
	if (u) {
		if (r->flags & RECF_CALL && u->inflight[x->call_dir])
			u->inflight[x->call_dir]--;
		if (u->gaps != x->gap_epoch)
			r->flags |= RECF_GAP;
	}
	rec_derive(r);
	if (d->opts.tree)
		dt_add(&x->tree, "bytes: inline call %u reply %u; Read chunks %" PRIu64 " advertised, %" PRIu64
		       " pulled; Write chunks %" PRIu64 " provided, %" PRIu64 " pushed, %" PRIu64
		       " returned; Reply chunk %" PRIu64 " provided, %" PRIu64 " written",
		       r->call_inline, r->reply_inline, r->read_chunk_bytes, r->read_bytes,
		       r->write_chunk_bytes, r->write_bytes, r->write_list_echo, r->reply_chunk_bytes,
		       r->reply_bytes);
	check_record(r, r->prog ? prog_lookup(r->prog, r->vers) : NULL, &x->call_ddp,
		     &x->reply_ddp, x->wchunk_len, x->nwchunks);
	d->st.records++;
	if (d->cbs.record)
		d->cbs.record(r, d->opts.tree ? &x->tree : NULL, d->cbs.ctx);
	if (d->cbs.finding) {
		for (unsigned i = 0; i < r->nfindings; i++)
			finding(d, r->conn_id, r->xid, r->flags & RECF_REPLY ? r->frame_reply : r->frame_call,
				r->t_reply_first ? r->t_reply_first : r->t_call_first,
				r->finding[i].id, r->finding[i].a, r->finding[i].b);
	}
	chunks_release(&d->segs, x);
	free(x->p0buf);
	free(x->rcbuf);
	x->p0buf = x->rcbuf = NULL;
	xid_remove(&d->xids, x);
}

static void expire(struct dissect *d, struct xentry *x)
{
	x->rec.flags |= RECF_TIMEOUT;
	x->rec.rpc_status = REC_RPC_NONE;
	d->st.timeouts++;
	emit(d, x);
}

/* Keeps state bounded: too many calls in flight, or calls so old their
 * reply will not come (lost, or outside the capture). */
static void evict(struct dissect *d)
{
	struct xentry *x;

	while ((x = xid_oldest(&d->xids)) &&
	       (d->xids.count > d->opts.max_inflight ||
		(d->now_ns > x->rec.t_call_first &&
		 d->now_ns - x->rec.t_call_first > d->opts.timeout_ns))) {
		d->st.evicted++;
		expire(d, x);
	}
}

void dissect_flush(struct dissect *d)
{
	struct xentry *x;

	while ((x = xid_oldest(&d->xids)))
		expire(d, x);
}

/* ---- SENDs: calls and replies ------------------------------------- */

static void rec_init(struct nfsrdma_record *r, const struct rdma_conn *c, int caller, uint32_t xid)
{
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_WIRE;
	r->rdma_vers = 1;
	r->conn_id = c->id;
	r->xid = xid;
	endpoint(&r->caller, &c->side[caller]);
	endpoint(&r->callee, &c->side[caller ^ 1]);
	r->rpc_status = REC_RPC_NONE;
	r->status = REC_STATUS_NONE;
	r->call_rdma_proc = r->reply_rdma_proc = 0xff;
	if (c->client_known && caller == 1)
		r->flags |= RECF_BACKCHANNEL;
	for (unsigned i = 0; i < REC_MAX_OPS; i++)
		r->ops[i].status = REC_STATUS_NONE;
}

static void handle_call(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
			const struct rpcrdma_hdr *h)
{
	const struct rdma_conn *c = ev->conn;
	struct xentry *x = xid_find(&d->xids, c->id, ev->dir, h->xid);

	d->st.calls++;
	if (x) {
		/* Same XID again before a reply: a retransmission (after a
		 * reconnect) or XID reuse.  Close the old one unanswered. */
		expire(d, x);
	}
	x = xid_add(&d->xids, c->id, ev->dir, h->xid);
	if (!x)
		return;
	if (d->xids.count > d->st.max_inflight)
		d->st.max_inflight = d->xids.count;
	x->gap_epoch = u->gaps;
	struct nfsrdma_record *r = &x->rec;
	rec_init(r, c, ev->dir, h->xid);
	r->flags |= RECF_CALL;
	if (ev->flags & RDMA_EVF_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;
	r->t_call_first = ev->ts_first_ns;
	r->t_call_last = ev->ts_last_ns;
	r->frame_call = ev->frame_first;
	r->call_inline = (uint32_t)ev->msg_len;
	r->call_hdr = (uint32_t)h->hdr_len;
	r->credits_asked = (uint16_t)(h->credits > 0xffff ? 0xffff : h->credits);
	r->call_rdma_proc = (uint8_t)h->proc;
	if (chunks_register_call(&d->segs, x, c->id, ev->dir, h))
		diag(d, ev->frame_first, 0, "chunks", CUR_INVALID, "out of memory registering segments");
	if (d->opts.tree)
		tree_rpcrdma(&x->tree, h, ev->msg_len);

	/* credits: the responder's last grant bounds the caller's outstanding calls */
	u->inflight[ev->dir]++;
	if (u->granted_known[ev->dir] && u->inflight[ev->dir] > u->granted[ev->dir])
		rec_add_finding(r, FND_CREDIT_OVERRUN, u->inflight[ev->dir], u->granted[ev->dir]);
	uint32_t lim = inline_limit(c, ev->dir);
	if (ev->msg_len > lim)
		rec_add_finding(r, FND_INLINE_OVERSIZE, (uint32_t)ev->msg_len, lim);

	bool p0 = rpcrdma_has_p0(h);
	if (h->proc == RDMA_NOMSG || (p0 && h->proc != RDMA_NOMSG)) {
		if (h->proc != RDMA_NOMSG)
			rec_add_finding(r, FND_P0_IN_MSG, h->nrsegs, rpcrdma_read_chunk_len(h, 0));
		r->flags |= RECF_ARGS_DDP;
		/* decoded once the RDMA READs have pulled it in */
		if (h->proc == RDMA_NOMSG)
			return;
	}
	decode_call(d, x, ev->data + h->body_off, ev->data_len - h->body_off, ev->frame_first,
		    h->body_off);
}

static void handle_reply(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
			 const struct rpcrdma_hdr *h, struct xentry *x)
{
	const struct rdma_conn *c = ev->conn;

	d->st.replies++;
	if (!x) {
		/* No call: report it as a record of its own. */
		struct xentry *y = xid_add(&d->xids, c->id, ev->dir ^ 1, h->xid);
		if (!y)
			return;
		d->st.unmatched_replies++;
		rec_init(&y->rec, c, ev->dir ^ 1, h->xid);
		y->rec.flags |= RECF_NO_CALL;
		y->gap_epoch = u->gaps;
		rec_add_finding(&y->rec, FND_UNMATCHED_REPLY, h->xid, 0);
		x = y;
	}
	struct nfsrdma_record *r = &x->rec;
	r->flags |= RECF_REPLY;
	if (ev->flags & RDMA_EVF_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;
	r->t_reply_first = ev->ts_first_ns;
	r->t_reply_last = ev->ts_last_ns;
	r->frame_reply = ev->frame_first;
	r->reply_inline = (uint32_t)ev->msg_len;
	r->reply_hdr = (uint32_t)h->hdr_len;
	r->credits_granted = (uint16_t)(h->credits > 0xffff ? 0xffff : h->credits);
	r->reply_rdma_proc = (uint8_t)h->proc;
	u->granted[ev->dir ^ 1] = h->credits;
	u->granted_known[ev->dir ^ 1] = true;
	if (d->opts.tree)
		tree_rpcrdma(&x->tree, h, ev->msg_len);

	/* The Write list the reply returns: lengths actually written. */
	for (unsigned i = 0; i < h->nwchunks && i < XDR_DDP_MAX; i++) {
		x->reply_ddp.write_len[x->reply_ddp.nwrite++] = h->wchunks[i].length;
		r->write_list_echo += h->wchunks[i].length;
	}
	uint32_t lim = inline_limit(c, ev->dir);
	if (ev->msg_len > lim)
		rec_add_finding(r, FND_INLINE_OVERSIZE, (uint32_t)ev->msg_len, lim);

	/* The call may still be waiting for its position-zero chunk. */
	if (x->p0buf && !x->call_decoded) {
		if (x->p0got < x->p0len)
			r->flags |= RECF_CALL_PARTIAL;
		decode_call(d, x, x->p0buf, x->p0got < x->p0len ? x->p0got : x->p0len, r->frame_call, 0);
	}

	if (h->proc == RDMA_ERROR) {
		r->flags |= RECF_RDMA_ERROR;
		r->rpc_status = h->err == ERR_VERS ? REC_RPC_RDMA_ERR_VERS : REC_RPC_RDMA_ERR_CHUNK;
		rec_add_finding(r, FND_RDMA_ERROR, h->err, 0);
		d->st.rdma_errors++;
	} else if (h->proc == RDMA_NOMSG) {
		r->flags |= RECF_RES_DDP;
		if (!r->reply_chunk_bytes && (r->flags & RECF_CALL))
			rec_add_finding(r, FND_NOMSG_NO_CHUNK, 0, 0);
		/* The reply's Reply chunk says how much was written. */
		uint64_t n = h->has_reply ? h->reply_len : x->rcgot;
		if (n > x->rclen)
			n = x->rclen;
		if (n > x->rcgot) {
			r->flags |= RECF_REPLY_PARTIAL;
			n = x->rcgot;
		}
		if (x->rcbuf && n)
			decode_reply(d, x, x->rcbuf, (size_t)n, ev->frame_first, 0);
		else
			r->flags |= RECF_REPLY_PARTIAL;
	} else {
		decode_reply(d, x, ev->data + h->body_off, ev->data_len - h->body_off,
			     ev->frame_first, h->body_off);
	}
	emit(d, x);
}

/* Version 2: the header types that carry a whole RPC (inline or in a
 * chunk) map onto the v1 paths; *_MIDDLE continuations, GRANT and
 * CONNPROP are counted but make no record. */
static void on_send_v2(struct dissect *d, struct uconn *u, const struct rdma_event *ev)
{
	struct rpcrdma2_hdr h2;
	struct cursor c = cur_make(ev->data, ev->data_len);
	struct rpcrdma_hdr *h = &d->hdr;

	if (rpcrdma2_decode(&h2, &c)) {
		if (!u->is_rpcrdma) {
			d->st.not_rpcrdma++;
			return;
		}
		d->st.bad_rpcrdma++;
		diag_cur(d, ev->frame_first, 0, &c, "rpcrdma2");
		return;
	}
	*h = h2.lists;
	h->xid = h2.xid;
	h->vers = 2;
	h->credits = h2.credits;
	h->hdr_len = h->body_off = h2.hdr_len;
	bool old = h2.layout == RPCRDMA2_DRAFT00;
	uint32_t t = h2.htype;
	struct xentry *pending = xid_find(&d->xids, ev->conn->id, ev->dir ^ 1, h->xid);
	struct xentry *x = NULL;

	if ((!old && t == R2_CALL_INLINE) || (old && t == R2OLD_MSG)) {
		h->proc = RDMA_MSG;
		int k = rpc_peek_type(ev->data + h->body_off, ev->data_len - h->body_off);
		if (k == RPC_REPLY && old)
			handle_reply(d, u, ev, h, pending);
		else
			handle_call(d, u, ev, h);
		x = k == RPC_REPLY ? NULL : xid_find(&d->xids, ev->conn->id, ev->dir, h->xid);
	} else if ((!old && t == R2_CALL_EXTERNAL) || (old && t == R2OLD_NOMSG && rpcrdma_has_p0(h))) {
		h->proc = RDMA_NOMSG;
		handle_call(d, u, ev, h);
		x = xid_find(&d->xids, ev->conn->id, ev->dir, h->xid);
	} else if (!old && t == R2_REPLY_INLINE) {
		h->proc = RDMA_MSG;
		handle_reply(d, u, ev, h, pending);
	} else if ((!old && t == R2_REPLY_EXTERNAL) || (old && t == R2OLD_NOMSG)) {
		h->proc = RDMA_NOMSG;
		handle_reply(d, u, ev, h, pending);
	} else if (t == R2_ERROR && pending) {
		h->proc = RDMA_ERROR;
		h->err = h2.err == 1 ? ERR_VERS : ERR_CHUNK;
		handle_reply(d, u, ev, h, pending);
	}
	if (x)
		x->rec.rdma_vers = 2;
}

static void on_send(struct dissect *d, const struct rdma_event *ev)
{
	struct uconn *u = uconn_get(d, ev->conn);
	struct rpcrdma_hdr *h = &d->hdr;

	if (!u)
		return;
	d->st.sends++;
	uint32_t vers = rpcrdma_peek_vers(ev->data, ev->data_len);
	if (vers == 2) {
		d->st.rpcrdma_v2++;
		on_send_v2(d, u, ev);
		return;
	}
	if (vers != 1) {
		d->st.not_rpcrdma++;
		return;
	}
	if (ev->conn->cm_params[0] || ev->conn->cm_params[1])
		u->is_rpcrdma = true;
	struct cursor c = cur_make(ev->data, ev->data_len);
	if (rpcrdma_decode(h, &c)) {
		if (!u->is_rpcrdma) {
			d->st.not_rpcrdma++;
			return;
		}
		d->st.bad_rpcrdma++;
		diag_cur(d, ev->frame_first, 0, &c, "rpcrdma");
		return;
	}
	d->st.rpcrdma_v1++;
	if (h->overflow)
		diag(d, ev->frame_first, 0, "rpcrdma", CUR_INVALID,
		     "invalid chunk lists: more segments than kept (counted, not tracked)");

	struct xentry *pending = xid_find(&d->xids, ev->conn->id, ev->dir ^ 1, h->xid);
	switch (h->proc) {
	case RDMA_MSG:
	case RDMA_MSGP: {
		int t = rpc_peek_type(ev->data + h->body_off, ev->data_len - h->body_off);
		if (t == RPC_CALL)
			handle_call(d, u, ev, h);
		else if (t == RPC_REPLY)
			handle_reply(d, u, ev, h, pending);
		else if (!u->is_rpcrdma) {
			d->st.not_rpcrdma++;
		} else {
			struct cursor rc = cur_make(ev->data, ev->data_len);
			rc.off = h->body_off;
			cur_fail(&rc, ev->data_len - h->body_off < 8 ? CUR_TRUNCATED : CUR_INVALID,
				 "rpc msg_type");
			rc.err_off = h->body_off + 4;
			diag_cur(d, ev->frame_first, 0, &rc, "rpc");
			d->st.decode_errors++;
		}
		break;
	}
	case RDMA_NOMSG:
		/* No RPC header inline: a call carries it in a position-zero
		 * Read chunk, a reply in the Reply chunk the call offered. */
		if (rpcrdma_has_p0(h))
			handle_call(d, u, ev, h);
		else
			handle_reply(d, u, ev, h, pending);
		break;
	case RDMA_ERROR:
		handle_reply(d, u, ev, h, pending);
		break;
	case RDMA_DONE:
		d->st.rdma_done++;
		break;
	default:
		break;
	}
	d->now_ns = ev->ts_last_ns;
	evict(d);
}

static void on_rdma(struct dissect *d, const struct rdma_event *ev)
{
	struct chunk_match m;

	if (ev->type == RDMA_EV_READ)
		d->st.reads++;
	else
		d->st.writes++;
	struct uconn *u = uconn_get(d, ev->conn);
	if (!u)
		return;
	if (!chunks_apply(&d->segs, &d->xids, ev->conn->id, ev, &m)) {
		if (!u->is_rpcrdma)
			return;   /* plain RDMA traffic (perftest ...) */
		d->st.rdma_unmatched++;
		finding(d, ev->conn->id, 0, ev->frame_first, ev->ts_first_ns, FND_RDMA_UNMATCHED,
			ev->rkey, ev->va);
		return;
	}
	if (m.seg)
		d->st.rdma_matched++;
	else
		d->st.rdma_hinted++;
	if (m.past_end)
		rec_add_finding(&m.x->rec, ev->type == RDMA_EV_READ ? FND_READ_PAST_CHUNK
								    : FND_WRITE_PAST_CHUNK,
				m.past_end, ev->rkey);
	if (m.p0_complete)
		decode_call(d, m.x, m.x->p0buf, m.x->p0len, m.x->rec.frame_call, 0);
}

void dissect_event(const struct rdma_event *ev, void *ctx)
{
	struct dissect *d = ctx;

	d->st.events++;
	switch (ev->type) {
	case RDMA_EV_CONN_NEW:
		uconn_get(d, ev->conn);
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
		struct uconn *u = uconn_get(d, ev->conn);
		d->st.gaps++;
		if (u)
			u->gaps++;
		break;
	}
	case RDMA_EV_CONN_CLOSE:
		break;
	}
}
