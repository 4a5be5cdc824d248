/* Calls and replies -> records: the RPC decode of a call and its reply,
 * the record built from both, completion, expiry and eviction of calls
 * that wait too long, and the -V tree of the RPC-over-RDMA header. */
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

/* The inline threshold of messages sent by side `dir`: the receiver's
 * advertised receive size when CM private data says so (RFC 8797), 1024
 * when the connection was set up without it, 4096 (Linux default) when
 * the capture missed the handshake. */
uint32_t dx_inline_limit(const struct uconn *u, const struct rdma_conn *c, int dir, uint32_t vers)
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

void dx_decode_call(struct dissect *d, struct xentry *x, const uint8_t *buf, size_t len,
		    uint64_t frame, size_t base)
{
	struct nfsrdma_record *r = &x->rec;
	struct dtree *t = d->opts.tree ? &x->tree : NULL;
	struct cursor c = cur_make(buf, len);
	struct rpc_msg m;

	x->call_decoded = true;
	if (rpc_decode(&m, &c, t)) {
		r->flags |= RECF_CALL_PARTIAL;
		if (dx_snap_cut(d, &c, false))
			return;
		dx_diag_cur(d, frame, base, &c, "rpc");
		d->st.decode_errors++;
		return;
	}
	if (m.mtype != RPC_CALL || m.xid != r->xid) {
		char msg[96];
		snprintf(msg, sizeof(msg), "invalid rpc: %s with xid 0x%08x inside call 0x%08x",
			 m.mtype == RPC_CALL ? "call" : "reply", m.xid, r->xid);
		dx_diag(d, frame, base, "rpc", CUR_INVALID, msg);
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
		dx_diag_cur(d, frame, base, &pd.c, p->layer);
		r->flags |= RECF_CALL_PARTIAL;
		d->st.decode_errors++;
	}
}

void dx_decode_reply(struct dissect *d, struct xentry *x, const uint8_t *buf, size_t len,
		     uint64_t frame, size_t base)
{
	struct nfsrdma_record *r = &x->rec;
	struct dtree *t = d->opts.tree ? &x->tree : NULL;
	struct cursor c = cur_make(buf, len);
	struct rpc_msg m;

	if (rpc_decode(&m, &c, t)) {
		r->flags |= RECF_REPLY_PARTIAL;
		if (dx_snap_cut(d, &c, true))
			return;
		dx_diag_cur(d, frame, base, &c, "rpc");
		d->st.decode_errors++;
		return;
	}
	if (m.mtype != RPC_REPLY || m.xid != r->xid) {
		char msg[96];
		snprintf(msg, sizeof(msg), "invalid rpc: %s with xid 0x%08x inside reply 0x%08x",
			 m.mtype == RPC_CALL ? "call" : "reply", m.xid, r->xid);
		dx_diag(d, frame, base, "rpc", CUR_INVALID, msg);
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
		dx_diag_cur(d, frame, base, &pd.c, p->layer);
		r->flags |= RECF_REPLY_PARTIAL;
		d->st.decode_errors++;
	}
}

/* ---- completion --------------------------------------------------- */

void dx_emit(struct dissect *d, struct xentry *x)
{
	struct nfsrdma_record *r = &x->rec;
	struct uconn *u = r->conn_id < d->nconns ? &d->conns[r->conn_id] : NULL;

	if (x->p0buf && !x->call_decoded) {
		/* The position-zero chunk never fully arrived: decode what did. */
		if (x->p0got < x->p0len)
			r->flags |= RECF_CALL_PARTIAL;
		dx_decode_call(d, x, x->p0buf, x->p0got < x->p0len ? x->p0got : x->p0len, r->frame_call, 0);
	}
	if (u) {
		if (r->flags & RECF_CALL && u->inflight[x->call_dir])
			u->inflight[x->call_dir]--;
		if (u->gaps != x->gap_epoch)
			r->flags |= RECF_GAP;
	}
	rec_derive(r);
	if (d->opts.tree && r->transport != REC_TR_RDMA)
		dt_add(&x->tree, "bytes: call %u reply %u", r->call_inline, r->reply_inline);
	else if (d->opts.tree)
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
	if (d->cbs.frame_note)
		dx_note_record(d, x);
	chunks_release(&d->segs, x);
	free(x->p0buf);
	free(x->rcbuf);
	x->p0buf = x->rcbuf = NULL;
	xid_remove(&d->xids, x);
}

/* x is given up on unanswered. */
static void dx_expire(struct dissect *d, struct xentry *x)
{
	x->rec.flags |= RECF_TIMEOUT;
	x->rec.rpc_status = REC_RPC_NONE;
	d->st.timeouts++;
	dx_emit(d, x);
}

/* Keeps state bounded: too many calls in flight, or calls so old their
 * reply will not come (lost, or outside the capture). */
void dx_evict(struct dissect *d)
{
	struct xentry *x;

	while ((x = xid_oldest(&d->xids)) &&
	       (d->xids.count > d->opts.max_inflight ||
		(!x->early && d->now_ns > x->rec.t_call_first &&
		 d->now_ns - x->rec.t_call_first > d->opts.timeout_ns))) {
		d->st.evicted++;
		if (x->early)
			dx_hold_release(d, x);
		else
			dx_expire(d, x);
	}
}

void dissect_flush(struct dissect *d)
{
	struct xentry *x;

	dx_hold_flush(d);
	while ((x = xid_oldest(&d->xids)))
		dx_expire(d, x);
}

/* ---- SENDs: calls and replies ------------------------------------- */

static void rec_init(struct nfsrdma_record *r, const struct rdma_conn *c, int caller, uint32_t xid)
{
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_WIRE;
	r->rdma_vers = 1;
	r->conn_id = c->id;
	r->xid = xid;
	dx_endpoint(&r->caller, &c->side[caller]);
	dx_endpoint(&r->callee, &c->side[caller ^ 1]);
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
	uint32_t lim = dx_inline_limit(u, ev->conn, ev->dir, h->vers);
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

void dx_handle_call(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
		    const struct rpcrdma_hdr *h)
{
	const struct rdma_conn *c = ev->conn;
	struct xentry *x = xid_find(&d->xids, c->id, ev->dir, h->xid);

	d->st.calls++;
	if (x) {
		/* Same XID again before a reply: a retransmission (after a
		 * reconnect) or XID reuse.  Close the old one unanswered. */
		dx_expire(d, x);
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
	rec_add_retrans(r, ev->nretrans);
	r->t_call_first = ev->ts_first_ns;
	r->t_call_last = ev->ts_last_ns;
	r->frame_call = ev->frame_first;
	r->call_inline = (uint32_t)ev->msg_len;
	r->call_hdr = (uint32_t)h->hdr_len;
	r->credits_asked = (uint16_t)(h->credits > 0xffff ? 0xffff : h->credits);
	r->call_rdma_proc = (uint8_t)h->proc;
	dx_note_attach(d, x, ev, DFR_CALL);
	if (chunks_register_call(&d->segs, x, c->id, ev->dir, h))
		dx_diag(d, ev->frame_first, 0, "chunks", CUR_INVALID, "out of memory registering segments");
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
	dx_decode_call(d, x, ev->data + h->body_off, ev->data_len - h->body_off, ev->frame_first,
		    h->body_off);
}

void dx_handle_reply(struct dissect *d, struct uconn *u, const struct rdma_event *ev,
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
		/* the call was there, with a header of unknown version (reported) */
		if (!dx_unknown_call_answered(d, u, ev->dir ^ 1, h->xid, ev->ts_first_ns))
			rec_add_finding(&y->rec, FND_UNMATCHED_REPLY, h->xid, 0);
		x = y;
	}
	struct nfsrdma_record *r = &x->rec;
	dx_note_attach(d, x, ev, DFR_REPLY);
	/* A connection's first call goes out before the callee has sent a
	 * packet of its own (the CM MADs travel on QP1 from another port):
	 * its reply shows the port, and the QPN when nothing told it before. */
	if (!r->callee.port)
		r->callee.port = c->side[ev->dir].udp_sport;
	if (!r->callee.qpn && c->side[ev->dir].qpn_known)
		r->callee.qpn = c->side[ev->dir].qpn;
	r->flags |= RECF_REPLY;
	if (ev->flags & RDMA_EVF_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;
	rec_add_retrans(r, ev->nretrans);
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
		dx_decode_call(d, x, x->p0buf, x->p0got < x->p0len ? x->p0got : x->p0len, r->frame_call, 0);
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
			dx_decode_reply(d, x, x->rcbuf, (size_t)n, ev->frame_first, 0);
		else
			r->flags |= RECF_REPLY_PARTIAL;
	} else {
		dx_decode_reply(d, x, ev->data + h->body_off, ev->data_len - h->body_off,
			     ev->frame_first, h->body_off);
	}
	dx_emit(d, x);
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
