/* RPC-over-RDMA version 1 client endpoint (RFC 8166) on librdmacm and
 * libibverbs.  See xprt.h.
 *
 * Memory: every slot (one call in flight) owns a send buffer (inline
 * size), a bulk buffer (Read chunk source / Write chunk sink) and a Reply
 * chunk buffer.  The bulk and Reply chunk buffers are registered per slot
 * once per connection, so each call exposes only its own slot's memory,
 * with its own R_key, and nothing is registered on the fast path.  We do
 * not offer remote invalidation (RFC 8797 flags bit 0 clear).
 *
 * Credits: at most min(granted, slots) calls are outstanding; the grant
 * starts at 1 and follows the credits field of every reply.
 *
 * Failure: a completion error, a DISCONNECTED event or a reply that breaks
 * the protocol tears the connection down; every call in flight completes
 * with -EPIPE (lost) and the next poll reconnects with exponential backoff. */
#include "src/xprt/rdma_ep_state.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "src/base/log.h"
#include "src/xprt/xdr_enc.h"

/* Receive i goes on the chain that rdma_ep_recv_flush() posts. */
void rdma_ep_recv_queue(struct rdma_ep *ep, uint32_t i)
{
	struct ibv_recv_wr *w = &ep->rwr[i];

	ep->rsge[i] = (struct ibv_sge){
		.addr = (uintptr_t)(ep->recv_region + (size_t)i * ep->recv_size),
		.length = ep->recv_size,
		.lkey = ep->recv_mr->lkey,
	};
	*w = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &ep->rsge[i], .num_sge = 1 };
	if (ep->rpend_tail)
		ep->rpend_tail->next = w;
	else
		ep->rpend_head = w;
	ep->rpend_tail = w;
}

int rdma_ep_recv_flush(struct rdma_ep *ep)
{
	struct ibv_recv_wr *bad;

	if (!ep->rpend_head)
		return 0;
	int ret = ibv_post_recv(ep->id->qp, ep->rpend_head, &bad);
	ep->rpend_head = ep->rpend_tail = NULL;
	ep->x.st.recv_posts++;
	return ret ? -ret : 0;
}

static unsigned ep_can_send(const struct xprt *x)
{
	const struct rdma_ep *ep = (const struct rdma_ep *)x;
	uint32_t limit = ep->granted < ep->nslots ? ep->granted : ep->nslots;
	if (ep->x.broken)
		return 1;  /* submit() reconnects */
	return ep->outstanding >= limit ? 0 : limit - ep->outstanding;
}

static unsigned ep_inflight(const struct xprt *x)
{
	return ((const struct rdma_ep *)x)->outstanding;
}

static void enc_seg(struct xenc *e, uint32_t handle, uint32_t len, uint64_t va)
{
	xenc_u32(e, handle);
	xenc_u32(e, len);
	xenc_u64(e, va);
}

/* Posts the batch of SENDs with one ibv_post_send (one doorbell).  The
 * last WR of the batch is signaled when sq_signal WRs went unsignaled
 * since the last signaled one (or the queue would fill up).  Returns 0,
 * or -EIO after failing every call in flight. */
static int ep_flush(struct rdma_ep *ep)
{
	if (!ep->batch_head || ep->x.broken)
		return 0;
	/* a done callback may have submitted before its batch's receives
	 * went back: every call in flight needs a receive posted */
	if (rdma_ep_recv_flush(ep) < 0) {
		rdma_ep_fail_all(ep, "cannot repost a receive");
		return -EIO;
	}
	uint64_t seq = ep->sq_posted;
	for (struct ibv_send_wr *w = ep->batch_head; w; w = w->next) {
		seq++;
		w->wr_id = seq;
		bool sig = ++ep->since_signal >= ep->sq_signal;
		/* near full: the last one is signaled, or nothing would ever
		 * free the queue */
		if (!w->next && seq - ep->sq_done + ep->sq_signal >= ep->sq_depth)
			sig = true;
		w->send_flags = (w->send_flags & IBV_SEND_INLINE) | (sig ? IBV_SEND_SIGNALED : 0);
		if (sig) {
			ep->since_signal = 0;
			ep->x.st.signaled++;
		}
	}
	ep->batch_tail->next = NULL;
	struct ibv_send_wr *bad = NULL;
	uint64_t t = xprt_now_ns();
	int ret = ibv_post_send(ep->id->qp, ep->batch_head, &bad);
	xprt_time.post_ns += xprt_now_ns() - t;
	xprt_time.posts++;
	/* handed to the kernel when the doorbell rang (with rxe the system
	 * call then builds and sends the packets itself) */
	if (!ret)
		for (struct ibv_send_wr *w = ep->batch_head; w; w = w->next) {
			struct ep_slot *s = (struct ep_slot *)(void *)((char *)w - offsetof(struct ep_slot, wr));
			if (s->req)
				s->req->t_post_ns = t;
		}
	ep->x.st.doorbells++;
	ep->sq_posted = seq;
	ep->batch_head = ep->batch_tail = NULL;
	ep->batch_n = 0;
	if (ret) {
		log_warn("rdma: post_send: %s", strerror(ret));
		rdma_ep_fail_all(ep, "post_send failed");
		return -EIO;
	}
	return 0;
}

/* How a call goes (RFC 8166 section 3.5; the caller applied RFC 8267 by
 * saying what is DDP-eligible): its DDP data in a Read chunk, or the whole
 * call in a position-zero one (RDMA_NOMSG), a Write chunk for a READ's
 * data, a Reply chunk for a large reply. */
struct chunks {
	bool read_chunk, p0, wchunk, rchunk;
	size_t inline_len, head, tail;   /* msg[0..head] + DDP data + pad + msg[head..len] */
	uint32_t dpad;
};

/* 0, or -EMSGSIZE for a call that would need two bulk buffers. */
static int choose_chunks(const struct rdma_ep *ep, const struct xprt_req *r, struct chunks *ch)
{
	uint32_t hdr_base = 16 + 4 + 4 + 4;  /* fixed + three empty lists */

	memset(ch, 0, sizeof(*ch));
	ch->inline_len = r->len + (r->has_ddp ? ((size_t)r->ddp_len + 3) / 4 * 4 : 0);
	ch->head = r->has_ddp && r->ddp_at && r->ddp_at <= r->len ? r->ddp_at : r->len;
	ch->tail = r->len - ch->head;
	ch->dpad = r->has_ddp ? (4 - (r->ddp_len & 3)) & 3 : 0;
	if (hdr_base + ch->inline_len > ep->inline_send) {
		if (r->has_ddp && hdr_base + 24 + r->len <= ep->inline_send)
			ch->read_chunk = true;
		else
			ch->p0 = true;
	}
	if (r->wchunk && (uint64_t)r->wchunk + r->reply_max > ep->inline_recv - 28)
		ch->wchunk = true;
	if ((ch->wchunk ? r->reply_max : r->reply_max + r->wchunk) > ep->inline_recv - 28)
		ch->rchunk = true;
	if (ch->p0 && (ch->inline_len > ep->bulk_size || ch->wchunk))
		return -EMSGSIZE;  /* needs two bulk buffers: not supported */
	return 0;
}

/* The RPC-over-RDMA header, its chunk lists and the call (or its part
 * not in a chunk) into the slot's send buffer; *len its length.  0 or
 * -EMSGSIZE. */
static int encode_call(struct rdma_ep *ep, struct ep_slot *s, const struct xprt_req *r,
		       const struct chunks *ch, size_t *len)
{
	const uint8_t *dsrc = r->ddp ? r->ddp : s->bulk;
	size_t head = ch->head, tail = ch->tail;
	uint32_t dpad = ch->dpad;
	struct xenc e;

	xenc_init(&e, s->send, ep->o.inline_max);
	xenc_u32(&e, r->xid);
	xenc_u32(&e, 1);
	xenc_u32(&e, ep->nslots);            /* credits asked */
	xenc_u32(&e, ch->p0 ? 1 : 0);        /* RDMA_NOMSG : RDMA_MSG */
	if (ch->read_chunk || ch->p0) {
		uint32_t clen = ch->p0 ? (uint32_t)ch->inline_len : r->ddp_len;
		uint32_t pos = ch->p0 ? 0 : (uint32_t)head;
		if (ch->p0) {
			/* the whole call in the bulk buffer (it may hold the
			 * DDP data already: move the tail first) */
			if (tail)
				memmove(s->bulk + head + (r->has_ddp ? r->ddp_len + dpad : 0),
					r->msg + head, tail);
			if (r->has_ddp) {
				if (r->ddp)
					memmove(s->bulk + head, r->ddp, r->ddp_len);
				else if (head)
					memmove(s->bulk + head, s->bulk, r->ddp_len);
				if (dpad)
					memset(s->bulk + head + r->ddp_len, 0, dpad);
			}
			memcpy(s->bulk, r->msg, head);
		} else if (r->ddp) {
			memcpy(s->bulk, r->ddp, r->ddp_len);
		}
		xenc_u32(&e, 1);
		xenc_u32(&e, pos);
		enc_seg(&e, s->bulk_mr->rkey, clen, (uintptr_t)s->bulk);
	}
	xenc_u32(&e, 0);                     /* end of Read list */
	if (ch->wchunk) {
		uint32_t clen = (r->wchunk + 3) & ~3u;
		if (clen > ep->bulk_size)
			clen = ep->bulk_size;
		xenc_u32(&e, 1);
		xenc_u32(&e, 1);
		enc_seg(&e, s->bulk_mr->rkey, clen, (uintptr_t)s->bulk);
	}
	xenc_u32(&e, 0);                     /* end of Write list */
	if (ch->rchunk) {
		uint32_t clen = ch->wchunk ? r->reply_max : r->reply_max + r->wchunk;
		clen = clen < ep->rchunk_size ? (clen + 3) & ~3u : ep->rchunk_size;
		if (clen > ep->rchunk_size)
			clen = ep->rchunk_size;
		xenc_u32(&e, 1);
		xenc_u32(&e, 1);
		enc_seg(&e, s->rchunk_mr->rkey, clen, (uintptr_t)s->rchunk);
	} else {
		xenc_u32(&e, 0);
	}
	if (!ch->p0) {
		if (r->has_ddp && !ch->read_chunk) {
			uint8_t *p = xenc_reserve(&e, head);
			if (p)
				memcpy(p, r->msg, head);
			xenc_fixed(&e, dsrc, r->ddp_len);
			p = xenc_reserve(&e, tail);
			if (p && tail)
				memcpy(p, r->msg + head, tail);
		} else {
			xenc_fixed(&e, r->msg, r->len);
		}
	}
	if (!xenc_ok(&e))
		return -EMSGSIZE;
	*len = e.len;
	return 0;
}

static int ep_submit(struct xprt *x, struct xprt_req *r)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;

	if (ep->x.broken) {
		int ret = rdma_ep_reconnect(ep);
		if (ret < 0)
			return ret;
	}
	if (!ep_can_send(x)) {
		ep->x.st.credit_waits++;
		return -EAGAIN;
	}
	struct ep_slot *s = NULL;
	for (uint32_t i = 0; i < ep->nslots; i++)
		if (!ep->slots[i].req) {
			s = &ep->slots[i];
			break;
		}
	if (!s)
		return -EAGAIN;
	/* room in the send queue (unsignaled WRs hold it until a later
	 * signaled one completes) */
	if (ep->sq_posted + ep->batch_n - ep->sq_done + 1 >= ep->sq_depth) {
		ep_flush(ep);
		ep->x.st.credit_waits++;
		return -EAGAIN;   /* poll() reaps the signaled completions */
	}
	if (r->len < 24 || (r->has_ddp && r->ddp_len > ep->bulk_size) || r->wchunk > ep->bulk_size)
		return -EMSGSIZE;

	r->xid = ep->x.next_xid++;
	xenc_put_u32_at(r->msg, r->xid);
	r->used_read_chunk = r->used_write_chunk = r->used_reply_chunk = r->used_p0 = 0;

	struct chunks ch;
	size_t len;
	if (choose_chunks(ep, r, &ch) < 0 || encode_call(ep, s, r, &ch, &len) < 0)
		return -EMSGSIZE;
	bool read_chunk = ch.read_chunk, p0 = ch.p0, wchunk = ch.wchunk, rchunk = ch.rchunk;

	s->sge = (struct ibv_sge){ .addr = (uintptr_t)s->send, .length = (uint32_t)len,
				   .lkey = ep->send_mr->lkey };
	/* small calls (NULL, GETATTR, READ) go inline: the provider copies
	 * them into the WQE and needs no memory lookup for them */
	bool inl = len <= ep->max_inline;
	s->wr = (struct ibv_send_wr){ .sg_list = &s->sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				      .send_flags = inl ? IBV_SEND_INLINE : 0 };
	ep->x.st.inline_sends += inl;
	r->t_submit_ns = xprt_now_ns();
	r->t_post_ns = 0;
	s->req = r;
	s->xid = r->xid;
	if (ep->batch_tail)
		ep->batch_tail->next = &s->wr;
	else
		ep->batch_head = &s->wr;
	ep->batch_tail = &s->wr;
	ep->batch_n++;
	ep->outstanding++;
	if (ep->batch_n >= ep->sq_signal && ep_flush(ep) < 0)
		return 0;   /* completed as lost by rdma_ep_fail_all */
	if (ep->outstanding > ep->x.st.max_inflight)
		ep->x.st.max_inflight = ep->outstanding;
	ep->x.st.calls++;
	r->used_read_chunk = read_chunk;
	r->used_write_chunk = wchunk;
	r->used_reply_chunk = rchunk;
	r->used_p0 = p0;
	ep->x.st.read_chunks += read_chunk;
	ep->x.st.write_chunks += wchunk;
	ep->x.st.reply_chunks += rchunk;
	ep->x.st.p0_calls += p0;
	ep->x.st.inline_calls += !(read_chunk || p0);
	return 0;
}

/* One received message: returns 1 if a call completed, 0 if not, negative
 * when the connection must be dropped. */
/* A call from the server (RFC 8167: an RDMA_MSG whose RPC message is a
 * CALL): answered through x.bc_call, the reply SENT inline with the same
 * XID.  It does not touch the forward credits: those are the server's
 * grant for our calls. */
static void bc_call(struct rdma_ep *ep, uint32_t xid, const uint8_t *msg, size_t len)
{
	ep->x.st.bc_calls++;
	if (!ep->x.bc_call || ep->bc_busy) {
		ep->x.st.bc_dropped++;
		if (!ep->bc_warned)
			log_warn("rdma: xid 0x%08x: a call from the server (backchannel) %s", xid,
				 ep->bc_busy ? "while the last reply is still being sent: dropped"
					     : "that nothing here serves: dropped");
		ep->bc_warned = true;
		return;
	}
	size_t n = ep->x.bc_call(ep->x.bc_ctx, msg, len, ep->bc_buf + 28, EP_BC_BUF - 28);
	if (!n)
		return;
	struct xenc e;
	xenc_init(&e, ep->bc_buf, 28);
	xenc_u32(&e, xid);
	xenc_u32(&e, 1);
	xenc_u32(&e, EP_BC_CREDITS);
	xenc_u32(&e, RDMA_MSG);
	xenc_u32(&e, 0);
	xenc_u32(&e, 0);
	xenc_u32(&e, 0);
	struct ibv_sge sge = { .addr = (uintptr_t)ep->bc_buf, .length = (uint32_t)(28 + n),
			       .lkey = ep->bc_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = EP_BC_WRID, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;
	if (sge.length <= ep->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	int ret = ibv_post_send(ep->id->qp, &wr, &bad);
	if (ret) {
		ep->x.st.bc_dropped++;
		log_warn("rdma: backchannel reply xid 0x%08x: post_send: %s", xid, strerror(ret));
		return;
	}
	ep->bc_busy = true;
	ep->x.st.bc_replies++;
}

static int handle_recv(struct rdma_ep *ep, uint32_t idx, uint32_t byte_len)
{
	const uint8_t *buf = ep->recv_region + (size_t)idx * ep->recv_size;
	struct rpcrdma_hdr *h = &ep->hdr;
	int done = 0;

	if (byte_len > ep->recv_size)
		byte_len = ep->recv_size;
	struct cursor c = cur_make(buf, byte_len);
	if (rpcrdma_peek_vers(buf, byte_len) != 1 || rpcrdma_decode(h, &c) < 0) {
		ep->x.st.bad_replies++;
		log_warn("rdma: undecodable reply header (%u bytes)", byte_len);
		goto repost;
	}
	if (h->proc == RDMA_MSG && byte_len >= h->hdr_len + 8 &&
	    xenc_get_u32(buf + h->hdr_len + 4) == 0 /* msg_type CALL */) {
		bc_call(ep, h->xid, buf + h->hdr_len, byte_len - h->hdr_len);
		goto repost;
	}
	struct ep_slot *s = NULL;
	for (uint32_t i = 0; i < ep->nslots; i++)
		if (ep->slots[i].req && ep->slots[i].xid == h->xid) {
			s = &ep->slots[i];
			break;
		}
	if (!s) {
		ep->x.st.bad_replies++;
		log_warn("rdma: reply for unknown xid 0x%08x", h->xid);
		goto repost;
	}
	/* The grant: never zero (RFC 8166 3.3.1: at least 1), never more than
	 * our slots. */
	uint32_t g = h->credits ? h->credits : 1;
	ep->granted = g > ep->nslots ? ep->nslots : g;
	ep->x.st.credits_granted = h->credits;

	struct xprt_req *r = s->req;
	struct xprt_reply rep = { .rdma_proc = (uint8_t)h->proc, .t_done_ns = xprt_now_ns() };
	switch (h->proc) {
	case RDMA_MSG:
		rep.msg = buf + h->hdr_len;
		rep.len = byte_len - h->hdr_len;
		break;
	case RDMA_NOMSG:
		if (!h->has_reply || !r->used_reply_chunk) {
			rep.err = -EPROTO;
			break;
		}
		rep.msg = s->rchunk;
		rep.len = h->reply_len > ep->rchunk_size ? ep->rchunk_size : h->reply_len;
		rep.reply_chunk = true;
		break;
	case RDMA_ERROR:
		rep.err = -EPROTO;
		rep.rdma_err = h->err;
		ep->x.st.rdma_errors++;
		log_warn("rdma: xid 0x%08x: RDMA_ERROR %s", h->xid, rpcrdma_err_name(h->err));
		break;
	default:
		rep.err = -EPROTO;
		ep->x.st.bad_replies++;
		break;
	}
	if (!rep.err && r->used_write_chunk && h->nwchunks >= 1) {
		uint64_t n = h->wchunks[0].length;
		rep.bulk = s->bulk;
		rep.bulk_len = (uint32_t)(n > ep->bulk_size ? ep->bulk_size : n);
		rep.bulk_moved = true;
	}
	s->req = NULL;
	ep->outstanding--;
	ep->x.st.replies++;
	r->done(r, &rep);
	done = 1;
repost:
	rdma_ep_recv_queue(ep, idx);
	return done;
}

static int drain_cq(struct rdma_ep *ep)
{
	struct ibv_wc *wc = ep->wc;
	int n = 0, total = 0;

	/* a budget stops after that many replies (what is left stays queued
	 * for the next poll: drain_cq is called before any sleep) */
	uint32_t budget = ep->x.poll_budget;
	int want = budget && budget < 64 ? (int)budget : 64;
	while (ep->cq && (!budget || total < (int)budget) && (n = ibv_poll_cq(ep->cq, want, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				ep->x.st.wc_errors++;
				char why[96];
				snprintf(why, sizeof(why), "completion error: %s",
					 ibv_wc_status_str(wc[i].status));
				return total + rdma_ep_fail_all(ep, why);
			}
			if (wc[i].opcode == IBV_WC_SEND && wc[i].wr_id == EP_BC_WRID) {
				ep->bc_busy = false;
			} else if (wc[i].opcode == IBV_WC_SEND) {
				/* every WR up to this signaled one is done */
				if (wc[i].wr_id > ep->sq_done && wc[i].wr_id <= ep->sq_posted)
					ep->sq_done = wc[i].wr_id;
			} else if (wc[i].opcode & IBV_WC_RECV) {
				if (wc[i].wr_id >= ep->nrecvs)
					continue;
				total += handle_recv(ep, (uint32_t)wc[i].wr_id, wc[i].byte_len);
			}
		}
		/* the batch's receives in one chain, before anything new is
		 * sent (so every call in flight has a receive posted) */
		if (ep->cq && rdma_ep_recv_flush(ep) < 0)
			return total + rdma_ep_fail_all(ep, "cannot repost a receive");
	}
	if (ep->cq && n < 0)
		return total + rdma_ep_fail_all(ep, "poll_cq failed");
	return total;
}

static int check_cm(struct rdma_ep *ep)
{
	struct rdma_cm_event *ev;

	while (ep->ech && rdma_get_cm_event(ep->ech, &ev) == 0) {
		enum rdma_cm_event_type t = ev->event;
		rdma_ack_cm_event(ev);
		if (t == RDMA_CM_EVENT_DISCONNECTED || t == RDMA_CM_EVENT_DEVICE_REMOVAL ||
		    t == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			ep->connected = t != RDMA_CM_EVENT_DISCONNECTED ? ep->connected : false;
			return rdma_ep_fail_all(ep, rdma_event_str(t));
		}
	}
	return 0;
}

/* Arm the CQ only when about to sleep (an event is one per arming),
 * and look once more: what completed before the arming raises no
 * event. */
static int ep_wait_fds(struct xprt *x, struct pollfd *p, unsigned *np)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;
	int n;

	*np = 0;
	if (ep->x.broken)
		return ep->outstanding ? 0 : (rdma_ep_reconnect(ep) < 0 ? -ENOTCONN : 0);
	if (ep_flush(ep) < 0)
		return 0;
	if ((n = drain_cq(ep)) || ep->x.broken)
		return n;
	if (!ep->armed) {
		if (ibv_req_notify_cq(ep->cq, 0))
			return rdma_ep_fail_all(ep, "req_notify_cq failed");
		ep->armed = true;
		n = drain_cq(ep);
		if (n || ep->x.broken)
			return n;
	}
	p[0] = (struct pollfd){ .fd = ep->cch->fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = ep->ech->fd, .events = POLLIN };
	*np = 2;
	return 0;
}

static int ep_wait_done(struct xprt *x, const struct pollfd *pfd, unsigned np)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;
	int total = 0;

	if (np < 2 || ep->x.broken)
		return 0;
	if (pfd[0].revents & POLLIN) {
		struct ibv_cq *cq;
		void *cqctx;
		if (ibv_get_cq_event(ep->cch, &cq, &cqctx) == 0) {
			ibv_ack_cq_events(cq, 1);
			ep->x.st.cq_events++;
			ep->armed = false;
		}
		total += drain_cq(ep);
		if (ep->x.broken)
			return total;
	}
	if (pfd[1].revents & POLLIN)
		total += check_cm(ep);
	return total;
}

static int ep_poll(struct xprt *x, int timeout_ms)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;

	if (ep->x.broken)
		return ep->outstanding ? 0 : (rdma_ep_reconnect(ep) < 0 ? -ENOTCONN : 0);
	if (ep_flush(ep) < 0)
		return 0;
	int n = drain_cq(ep);
	if (n || ep->x.broken)
		return n;
	/* not waiting: the completion queue was all there was to look at
	 * (no arming, no system call; a sleep looks at the CM events) */
	if (timeout_ms == 0)
		return 0;
	if (ep->o.busy_poll) {
		/* spin on the CQ (user space for most providers); the CM
		 * event channel is a syscall: look at it once a millisecond */
		uint64_t now = xprt_now_ns(), end = now + (uint64_t)timeout_ms * 1000000ull;
		uint64_t cm_at = now + 1000000ull;
		do {
			n = drain_cq(ep);
			if (n || ep->x.broken)
				return n;
			now = xprt_now_ns();
			if (now >= cm_at) {
				if ((n = check_cm(ep)))
					return n;
				cm_at = now + 1000000ull;
			}
		} while (now < end);
		return 0;
	}
	/* Moderation: with half the credits or more in flight the replies
	 * keep coming; a short nap reaps a batch of them with one system
	 * call, where arming the CQ costs a wakeup, a poll, a read and a
	 * re-arm per few replies (all system calls with rxe, and under
	 * emulation every one of them is CPU the server's guest could use). */
	uint32_t limit = ep->granted < ep->nslots ? ep->granted : ep->nslots;
	if (ep->moderate_us && timeout_ms > 0 && limit >= 8 && ep->outstanding >= limit / 2) {
		uint64_t nap = ep->moderate_us;
		if (nap > (uint64_t)timeout_ms * 1000)
			nap = (uint64_t)timeout_ms * 1000;
		struct timespec ts = { .tv_sec = (time_t)(nap / 1000000),
				       .tv_nsec = (long)(nap % 1000000) * 1000 };
		ep->x.st.naps++;
		uint64_t t = xprt_now_ns();
		nanosleep(&ts, NULL);
		xprt_time.blocked_ns += xprt_now_ns() - t;
		xprt_time.sleeps++;
		n = drain_cq(ep);
		if (n || ep->x.broken)
			return n;
	}
	struct pollfd pfd[XPRT_WAIT_FDS];
	unsigned np = 0;
	if ((n = ep_wait_fds(x, pfd, &np)) != 0 || !np)
		return n;
	ep->x.st.sleeps++;
	int ret = xprt_sleep_poll(pfd, np, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	return ret ? ep_wait_done(x, pfd, np) : 0;
}

static void ep_drop(struct xprt *x, const char *why)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;
	if (!ep->x.broken)
		rdma_ep_fail_all(ep, why);  /* rdma_ep_teardown() disconnects: the server sees a DREQ */
}

static int ep_flush_op(struct xprt *x)
{
	return ep_flush((struct rdma_ep *)x);
}

const struct xprt_ops rdma_ep_ops = {
	.name = "rdma", .submit = ep_submit, .poll = ep_poll, .can_send = ep_can_send,
	.inflight = ep_inflight, .destroy = rdma_ep_destroy, .drop = ep_drop,
	.wait_fds = ep_wait_fds, .wait_done = ep_wait_done, .flush = ep_flush_op,
};
