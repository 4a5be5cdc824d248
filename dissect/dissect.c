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

/* ---- frame notes (dissect_cbs.frame_note) -------------------------- */

bool dissect_wants_frames(const struct dissect *d)
{
	return d->cbs.frame_note != NULL;
}

static void note_now(struct dissect *d, uint64_t frame, uint32_t conn_id, uint32_t xid, uint8_t role)
{
	struct dissect_frame_note n = { frame, conn_id, xid, role, NULL };
	d->cbs.frame_note(&n, d->cbs.ctx);
}

static void note_push(struct xentry *x, uint64_t frame, uint8_t role)
{
	if (x->nnotes == x->cap_notes) {
		uint32_t cap = x->cap_notes ? x->cap_notes * 2 : 16;
		struct xnote *n = realloc(x->notes, cap * sizeof(*n));
		if (!n)
			return;
		x->notes = n;
		x->cap_notes = cap;
	}
	x->notes[x->nnotes].frame = frame;
	x->notes[x->nnotes++].role = role;
}

static inline bool psn_in(uint32_t psn, uint32_t lo, uint32_t hi)
{
	return ((psn - lo) & 0xffffff) <= ((hi - lo) & 0xffffff);
}

static struct uconn *uconn_get(struct dissect *d, const struct rdma_conn *c);

/* The frames of ev belong to x's RPC.  READ: the request first when the
 * event has one (its RETH), then responses. */
static void note_attach(struct dissect *d, struct xentry *x, const struct rdma_event *ev, uint8_t role)
{
	if (!d->cbs.frame_note || !ev->nframes || d->noted)
		return;
	d->noted = true;
	bool req = ev->type == RDMA_EV_READ && (ev->rkey || ev->dma_len);
	for (uint32_t i = 0; i < ev->nframes; i++)
		note_push(x, ev->frames[i], role == DFR_READ_REQ && !(req && i == 0) ? DFR_READ_RESP : role);
	/* remember what the sender asked, for its ACKs */
	if (ev->type == RDMA_EV_READ || !ev->conn || ev->conn->id >= d->nconns)
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
	note_now(d, ev->frame_first, cid, xid, DFR_ACK);
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
		note_now(d, ev->frames[i], cid, 0, role);
	}
}

/* With the record: its frames, in frame order. */
static void note_record(struct dissect *d, struct xentry *x)
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
static uint32_t inline_limit(const struct uconn *u, const struct rdma_conn *c, int dir, uint32_t vers)
{
	int rx = dir ^ 1;

	/* Version 2: the receiver's Receive Buffer Size property, 4096 when
	 * it sent none (draft-07 sections 4.2.2, 5.2.2). */
	if (vers == 2)
		return u && u->v2_rbsiz[rx] ? u->v2_rbsiz[rx] : 4096;

	if (c->pairing == PAIR_CM) {
		if (c->cm_params[rx] && c->inline_recv[rx])
			return c->inline_recv[rx];
		return c->cm_params[dir] ? 4096 : 1024;
	}
	return 4096;
}

static void tree_rpcrdma2(struct dtree *t, const struct rpcrdma2_hdr *h2, size_t msglen);

static void tree_rpcrdma(struct dtree *t, const struct rpcrdma_hdr *h, const struct rpcrdma2_hdr *h2,
			 size_t msglen)
{
	if (!t)
		return;
	if (h2) {
		tree_rpcrdma2(t, h2, msglen);
		if (h->hdr_len != h2->hdr_len)
			dt_add(t, "    (continued: %zu header bytes in all)", h->hdr_len);
	} else {
		dt_add(t, "RPC-over-RDMA v1: xid 0x%08x credits %u %s, header %zu bytes, message %zu bytes",
		       h->xid, h->credits, rpcrdma_proc_name(h->proc), h->hdr_len, msglen);
	}
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
	if (h->proc == RDMA_ERROR && !h2)
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
	if (d->cbs.frame_note)
		note_record(d, x);
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

/* RFC 8166 section 3.3.2 (v2: draft-07 section 4.2.2): a SEND larger
 * than the receiver's inline threshold.  A reassembled v2 message was
 * checked part by part. */
static void check_inline(struct dissect *d, const struct uconn *u, const struct rdma_event *ev,
			 const struct rpcrdma_hdr *h, struct nfsrdma_record *r)
{
	if (d->cont_msg) {
		if (d->cont_oversize)
			rec_add_finding(r, FND_INLINE_OVERSIZE, d->cont_biggest, d->cont_limit);
		return;
	}
	uint32_t lim = inline_limit(u, ev->conn, ev->dir, h->vers);
	if (ev->msg_len > lim)
		rec_add_finding(r, FND_INLINE_OVERSIZE, (uint32_t)ev->msg_len, lim);
}

/* impl-exp §3.6: a Requester may give an unaligned Write chunk an extra
 * segment to catch the XDR pad (the Linux client does, with a 4-byte
 * segment); RFC 8166 §3.4.6 says it SHOULD NOT. */
static void check_pad_segments(const struct rpcrdma_hdr *h, struct nfsrdma_record *r)
{
	for (unsigned i = 0; i < h->nwchunks; i++) {
		const struct rpcrdma_wchunk *w = &h->wchunks[i];
		if (w->nsegs < 2 || w->nsegs != w->nsegs_wire)
			continue;
		uint32_t last = h->wsegs[w->first + w->nsegs - 1].length;
		uint64_t body = w->length - last;
		if (last >= 1 && last <= 4 && (body & 3) && last >= 4 - (body & 3))
			rec_add_finding(r, FND_WRITE_PAD_SEGMENT, i, last);
	}
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
	note_attach(d, x, ev, DFR_CALL);
	if (chunks_register_call(&d->segs, x, c->id, ev->dir, h))
		diag(d, ev->frame_first, 0, "chunks", CUR_INVALID, "out of memory registering segments");
	if (d->opts.tree)
		tree_rpcrdma(&x->tree, h, d->h2, ev->msg_len);

	/* credits: the responder's last grant bounds the caller's outstanding calls */
	u->inflight[ev->dir]++;
	/* (version 2 credits are cumulative counters, not a window) */
	if (h->vers == 1 && u->granted_known[ev->dir] && u->inflight[ev->dir] > u->granted[ev->dir])
		rec_add_finding(r, FND_CREDIT_OVERRUN, u->inflight[ev->dir], u->granted[ev->dir]);
	check_inline(d, u, ev, h, r);
	check_pad_segments(h, r);

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
	note_attach(d, x, ev, DFR_REPLY);
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
	if (h->vers == 1) {
		u->granted[ev->dir ^ 1] = h->credits;
		u->granted_known[ev->dir ^ 1] = true;
	} else {
		r->rdma_vers = 2;
	}
	if (d->opts.tree)
		tree_rpcrdma(&x->tree, h, d->h2, ev->msg_len);

	/* The Write list the reply returns: lengths actually written. */
	for (unsigned i = 0; i < h->nwchunks && i < XDR_DDP_MAX; i++) {
		x->reply_ddp.write_len[x->reply_ddp.nwrite++] = h->wchunks[i].length;
		r->write_list_echo += h->wchunks[i].length;
	}
	check_inline(d, u, ev, h, r);

	/* The call may still be waiting for its position-zero chunk. */
	if (x->p0buf && !x->call_decoded) {
		if (x->p0got < x->p0len)
			r->flags |= RECF_CALL_PARTIAL;
		decode_call(d, x, x->p0buf, x->p0got < x->p0len ? x->p0got : x->p0len, r->frame_call, 0);
	}

	if (h->proc == RDMA_ERROR) {
		r->flags |= RECF_RDMA_ERROR;
		/* 201/202: version 1's ERR_VERS and ERR_CHUNK; 300 + rdma_err for
		 * a version 2 RDMA2_ERROR */
		if (h->vers == 2)
			r->rpc_status = REC_RPC_RDMA2_ERR + (h->err > 0xfff ? 0xfff : h->err);
		else
			r->rpc_status = h->err == ERR_VERS ? REC_RPC_RDMA_ERR_VERS : REC_RPC_RDMA_ERR_CHUNK;
		rec_add_finding(r, FND_RDMA_ERROR, h->err, h->vers);
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

static void tree_rpcrdma2(struct dtree *t, const struct rpcrdma2_hdr *h2, size_t msglen)
{
	if (!t)
		return;
	dt_add(t, "RPC-over-RDMA v2 (draft %s): xid 0x%08x credits %u %s, header %zu bytes, message %zu bytes",
	       h2->layout == RPCRDMA2_DRAFT00 ? "-00..-02" : "-07", h2->xid, h2->credits,
	       rpcrdma2_htype_name(h2), h2->hdr_len, msglen);
	dt_push(t);
	if (h2->layout == RPCRDMA2_DRAFT00)
		dt_add(t, "flags: 0x%x%s%s", h2->flags, h2->flags & R2OLD_F_RESPONSE ? " RESPONSE" : "",
		       h2->flags & R2OLD_F_MORE ? " MORE" : "");
	if (h2->inv_handle)
		dt_add(t, "inv_handle: 0x%08x", h2->inv_handle);
	if (h2->htype == R2_CALL_MIDDLE || h2->htype == R2_REPLY_MIDDLE)
		dt_add(t, "remaining: %u bytes", h2->remaining);
	if (h2->htype == R2_ERROR || (h2->layout == RPCRDMA2_DRAFT00 && h2->htype == R2OLD_ERROR))
		dt_add(t, "error: %s (%u) detail %u %u", rpcrdma2_err_name(h2->err), h2->err, h2->err_a,
		       h2->err_b);
	dt_pop(t);
}

/* Frame notes: the frames of a continued message's parts so far. */
static void cont_frames(struct dissect *d, struct v2cont *k, const struct rdma_event *ev)
{
	if (!d->cbs.frame_note)
		return;
	d->noted = true;
	if (!ev->nframes)
		return;
	if (k->nframes + ev->nframes > k->cap_frames) {
		uint32_t cap = k->cap_frames ? k->cap_frames : 16;
		while (cap < k->nframes + ev->nframes)
			cap *= 2;
		uint64_t *f = realloc(k->frames, cap * sizeof(*f));
		if (!f)
			return;
		k->frames = f;
		k->cap_frames = cap;
	}
	memcpy(k->frames + k->nframes, ev->frames, ev->nframes * sizeof(*ev->frames));
	k->nframes += ev->nframes;
}

static void cont_drop(struct dissect *d, struct v2cont *k, uint64_t frame, const char *why)
{
	if (!k->active)
		return;
	if (d->cbs.frame_note) {
		for (uint32_t i = 0; i < k->nframes; i++)
			note_now(d, k->frames[i], 0, k->xid, DFR_OTHER);
		k->nframes = 0;
	}
	char msg[128];
	snprintf(msg, sizeof(msg), "invalid v2 continuation: xid 0x%08x %s (INVAL_CONT)", k->xid, why);
	diag(d, frame, 0, "rpcrdma2", CUR_INVALID, msg);
	k->active = false;
	k->len = 0;
}

/* Appends one part of a continued message (the bytes after its header). */
static bool cont_add(struct v2cont *k, const uint8_t *p, size_t n)
{
	if (!n)
		return true;
	if (k->len + n > CHUNK_REASM_MAX)
		return false;
	if (k->len + n > k->cap) {
		size_t cap = k->cap ? k->cap : 8192;
		while (cap < k->len + n)
			cap *= 2;
		uint8_t *b = realloc(k->buf, cap);
		if (!b)
			return false;
		k->buf = b;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, p, n);
	k->len += n;
	return true;
}

/* Version 2 (draft-07 header types and the -00..-02 layout): the types
 * that carry an RPC (inline, in a chunk, or continued over several SENDs)
 * map onto the v1 paths; CONNPROP sets the inline thresholds; GRANT is
 * counted. */
static void on_send_v2(struct dissect *d, struct uconn *u, const struct rdma_event *ev)
{
	struct rpcrdma2_hdr h2;
	struct cursor c = cur_make(ev->data, ev->data_len);
	struct rpcrdma_hdr *h = &d->hdr;
	if (!u->cont && !(u->cont = calloc(2, sizeof(*u->cont))))
		return;
	struct v2cont *k = &u->cont[ev->dir];

	if (rpcrdma2_decode(&h2, &c, (enum rpcrdma2_layout)u->v2_layout)) {
		if (!u->is_rpcrdma) {
			d->st.not_rpcrdma++;
			return;
		}
		d->st.bad_rpcrdma++;
		diag_cur(d, ev->frame_first, 0, &c, "rpcrdma2");
		return;
	}
	bool old = h2.layout == RPCRDMA2_DRAFT00;
	uint32_t t = h2.htype;
	if (t <= 1 || t >= 7)   /* types only one layout defines */
		u->v2_layout = (uint8_t)h2.layout;
	u->is_rpcrdma = true;
	d->st.rpcrdma_v2++;

	bool conn_msg = old ? (t == R2OLD_CONNPROP || t == R2OLD_GRANT)
			    : (t == R2_GRANT || t == R2_CONNPROP_MIDDLE || t == R2_CONNPROP_FINAL);
	if (conn_msg) {
		for (unsigned i = 0; i < h2.nprops; i++)
			if (h2.prop_id[i] == R2PROP_RBSIZ && h2.prop_val[i] >= 1024)
				u->v2_rbsiz[ev->dir] = h2.prop_val[i];
		return;
	}

	/* Continuation: parts accumulate until the final INLINE message. */
	uint32_t lim = inline_limit(u, ev->conn, ev->dir, 2);
	if (rpcrdma2_is_middle(&h2)) {
		if (k->active && k->xid != h2.xid)
			cont_drop(d, k, ev->frame_first, "interrupted by another xid");
		if (!k->active) {
			k->active = true;
			k->oversize = false;
			k->xid = h2.xid;
			k->ts_first = ev->ts_first_ns;
			k->frame_first = ev->frame_first;
			k->hdrs = k->sends = 0;
			k->len = k->msg_len = 0;
			k->biggest = 0;
			k->nframes = 0;
		}
		cont_frames(d, k, ev);
		k->hdrs += (uint32_t)h2.hdr_len;
		k->sends++;
		k->msg_len += ev->msg_len;
		if (ev->msg_len > k->biggest)
			k->biggest = (uint32_t)ev->msg_len;
		if (ev->msg_len > lim) {
			k->oversize = true;
			k->limit = lim;
		}
		if (ev->data_len < ev->msg_len ||
		    !cont_add(k, ev->data + h2.hdr_len, ev->data_len - h2.hdr_len))
			cont_drop(d, k, ev->frame_first, "too large or not captured whole");
		return;
	}
	bool final_inline = old ? t == R2OLD_MSG : (t == R2_CALL_INLINE || t == R2_REPLY_INLINE);
	struct rdma_event cev;
	const struct rdma_event *e = ev;
	if (k->active) {
		if (!final_inline || k->xid != h2.xid) {
			cont_drop(d, k, ev->frame_first, "not followed by its final part");
		} else if (ev->data_len < ev->msg_len ||
			   !cont_add(k, ev->data + h2.hdr_len, ev->data_len - h2.hdr_len)) {
			cont_drop(d, k, ev->frame_first, "too large or not captured whole");
		} else {
			/* The whole message: one event spanning every part. */
			cev = *ev;
			cev.data = k->buf;
			cev.data_len = k->len;
			cev.msg_len = k->msg_len + ev->msg_len;
			cev.ts_first_ns = k->ts_first;
			cev.frame_first = k->frame_first;
			cev.npkts += k->sends;
			if (d->cbs.frame_note) {
				cont_frames(d, k, ev);
				d->noted = false;   /* the whole message's frames go with it */
				cev.frames = k->frames;
				cev.nframes = k->nframes;
				k->nframes = 0;
			}
			e = &cev;
			d->cont_msg = true;
			d->cont_oversize = k->oversize || ev->msg_len > lim;
			d->cont_biggest = ev->msg_len > k->biggest ? (uint32_t)ev->msg_len : k->biggest;
			d->cont_limit = lim;
			k->active = false;
		}
	}

	*h = h2.lists;
	h->xid = h2.xid;
	h->vers = 2;
	h->credits = h2.credits;
	h->hdr_len = h2.hdr_len;
	h->body_off = e == ev ? h2.hdr_len : 0;
	if (e != ev)
		h->hdr_len = k->hdrs + h2.hdr_len;
	struct xentry *pending = xid_find(&d->xids, ev->conn->id, ev->dir ^ 1, h->xid);
	struct xentry *x = NULL;
	bool reply = rpcrdma2_is_reply(&h2);
	d->h2 = &h2;

	if (old && t == R2OLD_MSG && !reply && rpc_peek_type(e->data + h->body_off, e->data_len - h->body_off) == RPC_REPLY)
		reply = true;   /* a sender that forgot F_RESPONSE */
	if ((!old && t == R2_ERROR) || (old && t == R2OLD_ERROR)) {
		h->proc = RDMA_ERROR;
		h->err = h2.err;
		handle_reply(d, u, e, h, pending);
	} else if (reply) {
		h->proc = ((!old && t == R2_REPLY_EXTERNAL) || (old && t == R2OLD_NOMSG)) ? RDMA_NOMSG : RDMA_MSG;
		handle_reply(d, u, e, h, pending);
	} else {
		h->proc = ((!old && t == R2_CALL_EXTERNAL) || (old && t == R2OLD_NOMSG)) ? RDMA_NOMSG : RDMA_MSG;
		handle_call(d, u, e, h);
		x = xid_find(&d->xids, ev->conn->id, ev->dir, h->xid);
	}
	if (x)
		x->rec.rdma_vers = 2;
	d->cont_msg = false;
	d->h2 = NULL;
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
		on_send_v2(d, u, ev);
		d->now_ns = ev->ts_last_ns;
		evict(d);
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
	note_attach(d, m.x, ev, ev->type == RDMA_EV_READ ? DFR_READ_REQ : DFR_WRITE);
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
	d->noted = false;
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
		/* what only an open connection needs: memory follows open
		 * connections, not every connection the capture ever had */
		if (ev->conn && ev->conn->id < d->nconns) {
			struct uconn *u = &d->conns[ev->conn->id];
			for (int k = 0; u->cont && k < 2; k++) {
				cont_drop(d, &u->cont[k], ev->frame_first, "cut by the connection's end");
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
	}
	if (d->cbs.frame_note && ev->nframes && !d->noted)
		note_unclaimed(d, ev);
}
