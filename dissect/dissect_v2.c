/* RPC-over-RDMA version 2 SENDs: header types, continued messages
 * collected over several SENDs, connection properties. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/grow.h"
#include "dissect/check.h"
#include "dissect/dissect_int.h"
#include "dissect/programs.h"
#include "dissect/rpc.h"
#include "dissect/rpcrdma2.h"

/* Frame notes: the frames of a continued message's parts so far. */
static void cont_frames(struct dissect *d, struct v2cont *k, const struct rdma_event *ev)
{
	if (!d->cbs.frame_note)
		return;
	d->noted = true;
	if (!ev->nframes)
		return;
	if (ARR_RESERVE(k->frames, k->cap_frames, k->nframes + ev->nframes, 16) < 0)
		return;
	memcpy(k->frames + k->nframes, ev->frames, ev->nframes * sizeof(*ev->frames));
	k->nframes += ev->nframes;
}

void dx_cont_drop(struct dissect *d, struct v2cont *k, uint64_t frame, const char *why)
{
	if (!k->active)
		return;
	if (d->cbs.frame_note) {
		for (uint32_t i = 0; i < k->nframes; i++)
			dx_note_now(d, k->frames[i], 0, k->xid, DFR_OTHER);
		k->nframes = 0;
	}
	char msg[128];
	snprintf(msg, sizeof(msg), "invalid v2 continuation: xid 0x%08x %s (INVAL_CONT)", k->xid, why);
	dx_diag(d, frame, 0, "rpcrdma2", CUR_INVALID, msg);
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
	if (ARR_RESERVE(k->buf, k->cap, k->len + n, 8192) < 0)
		return false;
	memcpy(k->buf + k->len, p, n);
	k->len += n;
	return true;
}

/* Version 2 (draft-07 header types and the -00..-02 layout): the types
 * that carry an RPC (inline, in a chunk, or continued over several SENDs)
 * map onto the v1 paths; CONNPROP sets the inline thresholds; GRANT is
 * counted. */
void dx_on_send_v2(struct dissect *d, struct uconn *u, const struct rdma_event *ev)
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
		dx_diag_cur(d, ev->frame_first, 0, &c, "rpcrdma2");
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
	uint32_t lim = dx_inline_limit(u, ev->conn, ev->dir, 2);
	if (rpcrdma2_is_middle(&h2)) {
		if (k->active && k->xid != h2.xid)
			dx_cont_drop(d, k, ev->frame_first, "interrupted by another xid");
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
			dx_cont_drop(d, k, ev->frame_first, "too large or not captured whole");
		return;
	}
	bool final_inline = old ? t == R2OLD_MSG : (t == R2_CALL_INLINE || t == R2_REPLY_INLINE);
	struct rdma_event cev;
	const struct rdma_event *e = ev;
	if (k->active) {
		if (!final_inline || k->xid != h2.xid) {
			dx_cont_drop(d, k, ev->frame_first, "not followed by its final part");
		} else if (ev->data_len < ev->msg_len ||
			   !cont_add(k, ev->data + h2.hdr_len, ev->data_len - h2.hdr_len)) {
			dx_cont_drop(d, k, ev->frame_first, "too large or not captured whole");
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
		dx_handle_reply(d, u, e, h, pending);
	} else if (reply) {
		h->proc = ((!old && t == R2_REPLY_EXTERNAL) || (old && t == R2OLD_NOMSG)) ? RDMA_NOMSG : RDMA_MSG;
		dx_handle_reply(d, u, e, h, pending);
	} else {
		h->proc = ((!old && t == R2_CALL_EXTERNAL) || (old && t == R2OLD_NOMSG)) ? RDMA_NOMSG : RDMA_MSG;
		dx_handle_call(d, u, e, h);
		x = xid_find(&d->xids, ev->conn->id, ev->dir, h->xid);
	}
	if (x)
		x->rec.rdma_vers = 2;
	d->cont_msg = false;
	d->h2 = NULL;
}
