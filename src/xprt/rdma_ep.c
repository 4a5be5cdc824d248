/* RPC-over-RDMA version 1 client endpoint (RFC 8166) on librdmacm and
 * libibverbs.  See rdma_ep.h.
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
#include "src/xprt/xprt.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "dissect/extract.h"
#include "dissect/rpcrdma.h"
#include "src/base/log.h"
#include "src/xprt/xdr_enc.h"

#define EP_HDR_MAX 128       /* our transport headers are at most 16 + 28 + 28 + 28 bytes */
/* Backchannel replies: one at a time (the server's back channel has the
 * one slot we ask for in CREATE_SESSION), from their own buffer. */
#define EP_BC_BUF 1024
#define EP_BC_WRID UINT64_MAX
#define EP_BC_CREDITS 1
#define EP_EXTRA_RECVS 4
#define EP_MAX_INLINE 256    /* asked of the QP; a NULL call is 68 bytes */
/* Default completion moderation (see ep_poll).  Measured in the lab:
 * docs/replay.md, "Benchmark". */
#define EP_MODERATE_US 1000

struct ep_slot {
	struct xprt_req *req;    /* NULL: free */
	bool send_pending;       /* unused: a slot is free once its reply is in (below) */
	struct ibv_sge sge;      /* its SEND, while it waits in the post batch */
	struct ibv_send_wr wr;
	uint8_t *send;
	uint8_t *bulk;
	uint8_t *rchunk;
	struct ibv_mr *bulk_mr, *rchunk_mr;
	uint32_t xid;
};

struct rdma_ep {
	struct xprt x;
	struct xprt_opts o;
	char host[256];
	struct sockaddr_storage addr;
	socklen_t addrlen;

	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	bool connected;
	bool broken;             /* torn down, reconnect pending */

	uint32_t nslots, nrecvs, inline_send, inline_recv, recv_size;
	uint32_t max_inline;     /* the QP's max_inline_data: smaller SENDs go inline */
	uint32_t moderate_us;    /* 0: never nap */
	bool armed;              /* a CQ event is requested and not yet read */
	uint32_t bulk_size, rchunk_size;
	uint8_t *send_region, *recv_region, *bulk_region, *rchunk_region;
	struct ibv_mr *send_mr, *recv_mr;
	uint8_t *bc_buf;
	struct ibv_mr *bc_mr;
	bool bc_busy;            /* a backchannel reply's SEND has not completed */
	bool bc_warned;
	struct ep_slot *slots;
	uint32_t granted, outstanding;
	struct rpcrdma_hdr hdr;  /* scratch for decoding replies */
	/* Send queue: SENDs are posted in batches (one doorbell for many
	 * calls) and only every sq_signal-th is signaled; a signaled
	 * completion retires every WR posted before it. */
	uint32_t sq_depth, sq_signal;
	uint64_t sq_posted, sq_done;
	uint32_t since_signal;
	struct ibv_send_wr *batch_head, *batch_tail;
	uint32_t batch_n;
	/* Receives to re-post, chained: one ibv_post_recv per CQ batch. */
	struct ibv_recv_wr *rwr;
	struct ibv_sge *rsge;
	struct ibv_recv_wr *rpend_head, *rpend_tail;
	struct ibv_wc wc[64];
};

uint64_t xprt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rpcrdma_cm_priv_encode(uint8_t out[8], uint32_t send, uint32_t recv, bool remote_inv)
{
	xenc_put_u32_at(out, RPCRDMA_CMP_MAGIC);
	out[4] = 1;
	out[5] = remote_inv ? 1 : 0;
	out[6] = (uint8_t)((send >> 10) - 1);
	out[7] = (uint8_t)((recv >> 10) - 1);
}

bool rpcrdma_cm_priv_decode(const uint8_t *p, size_t len, uint32_t *send, uint32_t *recv,
			    bool *remote_inv)
{
	if (!p || len < 8 || xenc_get_u32(p) != RPCRDMA_CMP_MAGIC || p[4] != 1)
		return false;
	*remote_inv = p[5] & 1;
	*send = ((uint32_t)p[6] + 1) << 10;
	*recv = ((uint32_t)p[7] + 1) << 10;
	return true;
}

/* ------------------------------------------------------------ set-up -- */

static int wait_cm_event(struct rdma_ep *ep, enum rdma_cm_event_type want, int timeout_ms,
			 uint8_t *priv, size_t *privlen)
{
	struct pollfd pfd = { .fd = ep->ech->fd, .events = POLLIN };
	int ret = poll(&pfd, 1, timeout_ms);
	if (ret == 0)
		return -ETIMEDOUT;
	if (ret < 0)
		return -errno;
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(ep->ech, &ev))
		return -errno;
	enum rdma_cm_event_type got = ev->event;
	int status = ev->status;
	if (got == want && priv && privlen) {
		size_t n = ev->param.conn.private_data_len;
		if (n > *privlen)
			n = *privlen;
		if (ev->param.conn.private_data && n)
			memcpy(priv, ev->param.conn.private_data, n);
		*privlen = ev->param.conn.private_data ? n : 0;
	}
	rdma_ack_cm_event(ev);
	if (got != want) {
		log_debug("rdma: %s: got %s (status %d), wanted %s", ep->host, rdma_event_str(got),
			  status, rdma_event_str(want));
		return got == RDMA_CM_EVENT_REJECTED ? -ECONNREFUSED :
		       got == RDMA_CM_EVENT_UNREACHABLE ? -EHOSTUNREACH : -ECONNABORTED;
	}
	return 0;
}

static void free_buffers(struct rdma_ep *ep)
{
	if (ep->slots) {
		for (uint32_t i = 0; i < ep->nslots; i++) {
			if (ep->slots[i].rchunk_mr)
				ibv_dereg_mr(ep->slots[i].rchunk_mr);
			if (ep->slots[i].bulk_mr)
				ibv_dereg_mr(ep->slots[i].bulk_mr);
			ep->slots[i].rchunk_mr = ep->slots[i].bulk_mr = NULL;
		}
	}
	if (ep->bc_mr)
		ibv_dereg_mr(ep->bc_mr);
	if (ep->recv_mr)
		ibv_dereg_mr(ep->recv_mr);
	if (ep->send_mr)
		ibv_dereg_mr(ep->send_mr);
	ep->recv_mr = ep->send_mr = ep->bc_mr = NULL;
}

/* Tears down everything bound to the current cm_id (QP, CQ, PD, MRs). */
static void teardown(struct rdma_ep *ep)
{
	if (ep->id) {
		if (ep->connected)
			rdma_disconnect(ep->id);
		if (ep->id->qp)
			rdma_destroy_qp(ep->id);
	}
	free_buffers(ep);
	if (ep->cq)
		ibv_destroy_cq(ep->cq);
	if (ep->cch)
		ibv_destroy_comp_channel(ep->cch);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->id)
		rdma_destroy_id(ep->id);
	if (ep->ech)
		rdma_destroy_event_channel(ep->ech);
	ep->rpend_head = ep->rpend_tail = NULL;
	ep->cq = NULL;
	ep->cch = NULL;
	ep->pd = NULL;
	ep->id = NULL;
	ep->ech = NULL;
	ep->connected = false;
}

/* Receive i goes on the chain that recv_flush() posts. */
static void recv_queue(struct rdma_ep *ep, uint32_t i)
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

static int recv_flush(struct rdma_ep *ep)
{
	struct ibv_recv_wr *bad;

	if (!ep->rpend_head)
		return 0;
	int ret = ibv_post_recv(ep->id->qp, ep->rpend_head, &bad);
	ep->rpend_head = ep->rpend_tail = NULL;
	ep->x.st.recv_posts++;
	return ret ? -ret : 0;
}

static int reg_buffers(struct rdma_ep *ep)
{
	int acc_remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	ep->send_mr = ibv_reg_mr(ep->pd, ep->send_region, (size_t)ep->nslots * ep->o.inline_max, 0);
	if (!ep->send_mr)
		return -errno;
	ep->recv_mr = ibv_reg_mr(ep->pd, ep->recv_region, (size_t)ep->nrecvs * ep->recv_size,
				 IBV_ACCESS_LOCAL_WRITE);
	if (!ep->recv_mr)
		return -errno;
	ep->bc_mr = ibv_reg_mr(ep->pd, ep->bc_buf, EP_BC_BUF, 0);
	if (!ep->bc_mr)
		return -errno;
	for (uint32_t i = 0; i < ep->nslots; i++) {
		struct ep_slot *s = &ep->slots[i];
		/* The server reads WRITE data from (Read chunk) and writes READ
		 * data into (Write chunk) the bulk buffer. */
		s->bulk_mr = ibv_reg_mr(ep->pd, s->bulk, ep->bulk_size, acc_remote);
		if (!s->bulk_mr)
			return -errno;
		s->rchunk_mr = ibv_reg_mr(ep->pd, s->rchunk, ep->rchunk_size,
					  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!s->rchunk_mr)
			return -errno;
	}
	return 0;
}

static int resolve_host(struct rdma_ep *ep)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	char port[8];

	snprintf(port, sizeof(port), "%u", ep->o.port);
	int ret = getaddrinfo(ep->host, port, &hints, &res);
	if (ret) {
		log_error("rdma: %s: %s", ep->host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	memcpy(&ep->addr, res->ai_addr, res->ai_addrlen);
	ep->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int connect_once(struct rdma_ep *ep)
{
	int ret;

	ep->ech = rdma_create_event_channel();
	if (!ep->ech)
		return -errno;
	if (rdma_create_id(ep->ech, &ep->id, ep, RDMA_PS_TCP)) {
		ret = -errno;
		goto fail;
	}
	if (rdma_resolve_addr(ep->id, NULL, (struct sockaddr *)&ep->addr, 2000)) {
		ret = -errno;
		goto fail;
	}
	if ((ret = wait_cm_event(ep, RDMA_CM_EVENT_ADDR_RESOLVED, 3000, NULL, NULL)) < 0)
		goto fail;
	if (rdma_resolve_route(ep->id, 2000)) {
		ret = -errno;
		goto fail;
	}
	if ((ret = wait_cm_event(ep, RDMA_CM_EVENT_ROUTE_RESOLVED, 3000, NULL, NULL)) < 0)
		goto fail;

	struct ibv_device_attr da;
	if (ibv_query_device(ep->id->verbs, &da)) {
		ret = -errno;
		goto fail;
	}
	ep->pd = ibv_alloc_pd(ep->id->verbs);
	if (!ep->pd) {
		ret = -errno;
		goto fail;
	}
	ep->cch = ibv_create_comp_channel(ep->id->verbs);
	if (!ep->cch) {
		ret = -errno;
		goto fail;
	}
	int cqe = (int)(ep->sq_depth + ep->nrecvs + 8);
	if (cqe > da.max_cqe)
		cqe = da.max_cqe;
	ep->cq = ibv_create_cq(ep->id->verbs, cqe, ep, ep->cch, 0);
	if (!ep->cq) {
		ret = -errno;
		goto fail;
	}
	if ((ret = set_nonblock(ep->cch->fd)) < 0)
		goto fail;
	if (ibv_req_notify_cq(ep->cq, 0)) {
		ret = -errno;
		goto fail;
	}
	struct ibv_qp_init_attr qa = {
		.send_cq = ep->cq, .recv_cq = ep->cq,
		.cap = { .max_send_wr = ep->sq_depth, .max_recv_wr = ep->nrecvs,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = EP_MAX_INLINE },
		.qp_type = IBV_QPT_RC,
	};
	if (rdma_create_qp(ep->id, ep->pd, &qa)) {
		/* a provider without inline data: copy from the send buffer */
		qa.cap.max_inline_data = 0;
	}
	if (!ep->id->qp && rdma_create_qp(ep->id, ep->pd, &qa)) {
		ret = -errno;
		goto fail;
	}
	if ((ret = reg_buffers(ep)) < 0)
		goto fail;
	ep->max_inline = qa.cap.max_inline_data;
	ep->rpend_head = ep->rpend_tail = NULL;
	for (uint32_t i = 0; i < ep->nrecvs; i++)
		recv_queue(ep, i);
	if ((ret = recv_flush(ep)) < 0)
		goto fail;
	ep->armed = true;        /* by the ibv_req_notify_cq above */

	uint8_t priv[8], rpriv[64];
	size_t rlen = sizeof(rpriv);
	rpcrdma_cm_priv_encode(priv, ep->o.inline_max, ep->o.inline_max, false);
	struct rdma_conn_param cp = {
		.private_data = priv, .private_data_len = sizeof(priv),
		/* the server RDMA-READs our Read chunks: we are the responder */
		.responder_resources = (uint8_t)(da.max_qp_rd_atom > 16 ? 16 : da.max_qp_rd_atom),
		.initiator_depth = (uint8_t)(da.max_qp_init_rd_atom > 16 ? 16 : da.max_qp_init_rd_atom),
		.retry_count = 7, .rnr_retry_count = 7,
	};
	if (rdma_connect(ep->id, &cp)) {
		ret = -errno;
		goto fail;
	}
	if ((ret = wait_cm_event(ep, RDMA_CM_EVENT_ESTABLISHED, 5000, rpriv, &rlen)) < 0)
		goto fail;
	ep->connected = true;
	if ((ret = set_nonblock(ep->ech->fd)) < 0)
		goto fail;

	/* RFC 8797: the server's receive size bounds what we send inline, its
	 * send size is what it may send us (we post inline_max either way).
	 * Without valid parameters RFC 8166 says 1024 both ways. */
	uint32_t psend, precv;
	bool pinv;
	if (rpcrdma_cm_priv_decode(rpriv, rlen, &psend, &precv, &pinv)) {
		ep->x.st.peer_cm_params = true;
		ep->x.st.peer_send = psend;
		ep->x.st.peer_recv = precv;
		ep->inline_send = precv < ep->o.inline_max ? precv : ep->o.inline_max;
		ep->inline_recv = psend < ep->o.inline_max ? psend : ep->o.inline_max;
	} else {
		ep->x.st.peer_cm_params = false;
		ep->inline_send = ep->inline_recv = 1024;
	}
	ep->x.st.inline_send = ep->inline_send;
	ep->x.st.inline_recv = ep->inline_recv;
	ep->granted = 1;
	ep->outstanding = 0;
	ep->bc_busy = false;
	ep->sq_posted = ep->sq_done = 0;
	ep->since_signal = 0;
	ep->batch_head = ep->batch_tail = NULL;
	ep->batch_n = 0;
	for (uint32_t i = 0; i < ep->nslots; i++) {
		ep->slots[i].req = NULL;
		ep->slots[i].send_pending = false;
	}
	log_info("rdma: connected to %s port %u: inline send %u recv %u%s", ep->host, ep->o.port,
		 ep->inline_send, ep->inline_recv,
		 ep->x.st.peer_cm_params ? "" : " (server sent no RFC 8797 parameters)");
	return 0;
fail:
	teardown(ep);
	return ret;
}

static int reconnect(struct rdma_ep *ep)
{
	unsigned limit = ep->o.reconnect_ms ? ep->o.reconnect_ms : 30000;
	uint64_t deadline = xprt_now_ns() + (uint64_t)limit * 1000000ull;
	unsigned backoff = 100;

	for (;;) {
		int ret = connect_once(ep);
		if (ret == 0) {
			ep->broken = false;
			ep->x.st.reconnects++;
			log_warn("rdma: reconnected to %s", ep->host);
			return 0;
		}
		ep->x.st.connect_failures++;
		log_info("rdma: reconnect to %s: %s; retrying in %u ms", ep->host, strerror(-ret), backoff);
		if (xprt_now_ns() + (uint64_t)backoff * 1000000ull > deadline)
			return -ENOTCONN;
		usleep(backoff * 1000u);
		backoff = backoff * 2 > 3200 ? 3200 : backoff * 2;
	}
}

/* Connection lost: every call in flight is completed as lost. */
static int fail_all(struct rdma_ep *ep, const char *why)
{
	int n = 0;

	if (!ep->broken)
		log_warn("rdma: connection to %s lost (%s): %u call(s) in flight", ep->host, why,
			 ep->outstanding);
	ep->broken = true;
	teardown(ep);
	ep->batch_head = ep->batch_tail = NULL;
	ep->batch_n = 0;
	for (uint32_t i = 0; i < ep->nslots; i++) {
		struct ep_slot *s = &ep->slots[i];
		struct xprt_req *r = s->req;
		s->req = NULL;
		s->send_pending = false;
		if (!r)
			continue;
		struct xprt_reply rep = { .err = -EPIPE, .rdma_proc = 0xff, .t_done_ns = xprt_now_ns() };
		ep->x.st.lost++;
		r->done(r, &rep);
		n++;
	}
	ep->outstanding = 0;
	return n;
}

/* ------------------------------------------------------------ calls --- */

static unsigned ep_can_send(const struct xprt *x)
{
	const struct rdma_ep *ep = (const struct rdma_ep *)x;
	uint32_t limit = ep->granted < ep->nslots ? ep->granted : ep->nslots;
	if (ep->broken)
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
	if (!ep->batch_head || ep->broken)
		return 0;
	/* a done callback may have submitted before its batch's receives
	 * went back: every call in flight needs a receive posted */
	if (recv_flush(ep) < 0) {
		fail_all(ep, "cannot repost a receive");
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
	int ret = ibv_post_send(ep->id->qp, ep->batch_head, &bad);
	ep->x.st.doorbells++;
	ep->sq_posted = seq;
	ep->batch_head = ep->batch_tail = NULL;
	ep->batch_n = 0;
	if (ret) {
		log_warn("rdma: post_send: %s", strerror(ret));
		fail_all(ep, "post_send failed");
		return -EIO;
	}
	return 0;
}

static int ep_submit(struct xprt *x, struct xprt_req *r)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;

	if (ep->broken) {
		int ret = reconnect(ep);
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

	/* Which chunks (RFC 8166 section 3.5; the caller applied RFC 8267 by
	 * saying what is DDP-eligible). */
	uint32_t hdr_base = 16 + 4 + 4 + 4;  /* fixed + three empty lists */
	size_t inline_len = r->len + (r->has_ddp ? ((size_t)r->ddp_len + 3) / 4 * 4 : 0);
	/* msg[0..head] + DDP data + pad + msg[head..len] */
	size_t head = r->has_ddp && r->ddp_at && r->ddp_at <= r->len ? r->ddp_at : r->len;
	size_t tail = r->len - head;
	const uint8_t *dsrc = r->ddp ? r->ddp : s->bulk;
	uint32_t dpad = r->has_ddp ? (4 - (r->ddp_len & 3)) & 3 : 0;
	bool read_chunk = false, p0 = false, wchunk = false, rchunk = false;
	if (hdr_base + inline_len > ep->inline_send) {
		if (r->has_ddp && hdr_base + 24 + r->len <= ep->inline_send)
			read_chunk = true;
		else
			p0 = true;
	}
	if (r->wchunk && (uint64_t)r->wchunk + r->reply_max > ep->inline_recv - 28)
		wchunk = true;
	if ((wchunk ? r->reply_max : r->reply_max + r->wchunk) > ep->inline_recv - 28)
		rchunk = true;
	if (p0 && (inline_len > ep->bulk_size || wchunk))
		return -EMSGSIZE;  /* needs two bulk buffers: not supported */

	struct xenc e;
	xenc_init(&e, s->send, ep->o.inline_max);
	xenc_u32(&e, r->xid);
	xenc_u32(&e, 1);
	xenc_u32(&e, ep->nslots);            /* credits asked */
	xenc_u32(&e, p0 ? 1 : 0);            /* RDMA_NOMSG : RDMA_MSG */
	if (read_chunk || p0) {
		uint32_t len = p0 ? (uint32_t)inline_len : r->ddp_len;
		uint32_t pos = p0 ? 0 : (uint32_t)head;
		if (p0) {
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
		enc_seg(&e, s->bulk_mr->rkey, len, (uintptr_t)s->bulk);
	}
	xenc_u32(&e, 0);                     /* end of Read list */
	if (wchunk) {
		uint32_t len = (r->wchunk + 3) & ~3u;
		if (len > ep->bulk_size)
			len = ep->bulk_size;
		xenc_u32(&e, 1);
		xenc_u32(&e, 1);
		enc_seg(&e, s->bulk_mr->rkey, len, (uintptr_t)s->bulk);
	}
	xenc_u32(&e, 0);                     /* end of Write list */
	if (rchunk) {
		uint32_t len = wchunk ? r->reply_max : r->reply_max + r->wchunk;
		len = len < ep->rchunk_size ? (len + 3) & ~3u : ep->rchunk_size;
		if (len > ep->rchunk_size)
			len = ep->rchunk_size;
		xenc_u32(&e, 1);
		xenc_u32(&e, 1);
		enc_seg(&e, s->rchunk_mr->rkey, len, (uintptr_t)s->rchunk);
	} else {
		xenc_u32(&e, 0);
	}
	if (!p0) {
		if (r->has_ddp && !read_chunk) {
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

	s->sge = (struct ibv_sge){ .addr = (uintptr_t)s->send, .length = (uint32_t)e.len,
				   .lkey = ep->send_mr->lkey };
	/* small calls (NULL, GETATTR, READ) go inline: the provider copies
	 * them into the WQE and needs no memory lookup for them */
	bool inl = e.len <= ep->max_inline;
	s->wr = (struct ibv_send_wr){ .sg_list = &s->sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				      .send_flags = inl ? IBV_SEND_INLINE : 0 };
	ep->x.st.inline_sends += inl;
	r->t_submit_ns = xprt_now_ns();
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
		return 0;   /* completed as lost by fail_all */
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
	recv_queue(ep, idx);
	return done;
}

static int drain_cq(struct rdma_ep *ep)
{
	struct ibv_wc *wc = ep->wc;
	int n = 0, total = 0;

	while (ep->cq && (n = ibv_poll_cq(ep->cq, 64, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				ep->x.st.wc_errors++;
				char why[96];
				snprintf(why, sizeof(why), "completion error: %s",
					 ibv_wc_status_str(wc[i].status));
				return total + fail_all(ep, why);
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
		if (ep->cq && recv_flush(ep) < 0)
			return total + fail_all(ep, "cannot repost a receive");
	}
	if (ep->cq && n < 0)
		return total + fail_all(ep, "poll_cq failed");
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
			return fail_all(ep, rdma_event_str(t));
		}
	}
	return 0;
}

static int ep_poll(struct xprt *x, int timeout_ms)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;
	int total = 0;

	if (ep->broken)
		return ep->outstanding ? 0 : (reconnect(ep) < 0 ? -ENOTCONN : 0);
	if (ep_flush(ep) < 0)
		return 0;
	int n = drain_cq(ep);
	if (n || ep->broken)
		return n;
	if (ep->o.busy_poll && timeout_ms) {
		/* spin on the CQ (user space for most providers); the CM
		 * event channel is a syscall: look at it once a millisecond */
		uint64_t now = xprt_now_ns(), end = now + (uint64_t)timeout_ms * 1000000ull;
		uint64_t cm_at = now + 1000000ull;
		do {
			n = drain_cq(ep);
			if (n || ep->broken)
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
		nanosleep(&ts, NULL);
		n = drain_cq(ep);
		if (n || ep->broken)
			return n;
	}
	/* Arm the CQ only when about to sleep (an event is one per arming),
	 * and look once more: what completed before the arming raises no
	 * event. */
	if (!ep->armed) {
		if (ibv_req_notify_cq(ep->cq, 0))
			return fail_all(ep, "req_notify_cq failed");
		ep->armed = true;
		n = drain_cq(ep);
		if (n || ep->broken)
			return n;
	}
	struct pollfd pfd[2] = {
		{ .fd = ep->cch->fd, .events = POLLIN },
		{ .fd = ep->ech->fd, .events = POLLIN },
	};
	ep->x.st.sleeps++;
	int ret = poll(pfd, 2, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[0].revents & POLLIN) {
		struct ibv_cq *cq;
		void *cqctx;
		if (ibv_get_cq_event(ep->cch, &cq, &cqctx) == 0) {
			ibv_ack_cq_events(cq, 1);
			ep->x.st.cq_events++;
			ep->armed = false;
		}
		total += drain_cq(ep);
		if (ep->broken)
			return total;
	}
	if (pfd[1].revents & POLLIN)
		total += check_cm(ep);
	return total;
}

static void ep_destroy(struct xprt *x)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;

	teardown(ep);
	free(ep->slots);
	free(ep->rsge);
	free(ep->rwr);
	free(ep->bc_buf);
	free(ep->rchunk_region);
	free(ep->bulk_region);
	free(ep->recv_region);
	free(ep->send_region);
	free(ep);
}

static void ep_drop(struct xprt *x, const char *why)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;
	if (!ep->broken)
		fail_all(ep, why);  /* teardown() disconnects: the server sees a DREQ */
}

static const struct xprt_ops rdma_ops = {
	.name = "rdma", .submit = ep_submit, .poll = ep_poll, .can_send = ep_can_send,
	.inflight = ep_inflight, .destroy = ep_destroy, .drop = ep_drop,
};

static void *page_alloc(size_t n, uint8_t fill)
{
	void *p = NULL;
	if (posix_memalign(&p, 4096, n ? n : 4096))
		return NULL;
	memset(p, fill, n);
	return p;
}

int xprt_rdma_open(struct xprt **out, const struct xprt_opts *o)
{
	struct rdma_ep *ep = calloc(1, sizeof(*ep));
	int ret = -ENOMEM;

	if (!ep)
		return -ENOMEM;
	ep->x.ops = &rdma_ops;
	ep->o = *o;
	if (!ep->o.port)
		ep->o.port = 20049;
	if (!ep->o.inline_max)
		ep->o.inline_max = 4096;
	if (ep->o.inline_max < 1024 || ep->o.inline_max > 256 * 1024 || (ep->o.inline_max & 1023)) {
		free(ep);
		return -EINVAL;
	}
	ep->nslots = o->slots ? o->slots : 32;
	if (ep->nslots > 256)
		ep->nslots = 256;
	ep->nrecvs = ep->nslots + EP_EXTRA_RECVS;
	/* every call is one SEND; a quarter of the slots go unsignaled between
	 * two signaled ones, and the queue holds twice the slots */
	ep->sq_depth = 2 * ep->nslots + 8;
	ep->sq_signal = ep->nslots / 4 ? ep->nslots / 4 : 1;
	ep->recv_size = ep->o.inline_max;
	ep->moderate_us = EP_MODERATE_US;
	const char *mod = getenv("NFSRDMA_RDMA_MODERATE_US");
	if (mod && *mod) {
		char *end;
		unsigned long v = strtoul(mod, &end, 10);
		if (*end || v > 100000)
			log_warn("rdma: NFSRDMA_RDMA_MODERATE_US=%s: not 0..100000, ignored", mod);
		else
			ep->moderate_us = (uint32_t)v;
	}
	if (o->moderate_us)
		ep->moderate_us = o->moderate_us == UINT32_MAX ? 0 : o->moderate_us;
	ep->bulk_size = ((o->max_bulk ? o->max_bulk : 65536) + 4095) & ~4095u;
	if (ep->bulk_size < ep->o.inline_max)
		ep->bulk_size = ep->o.inline_max;
	ep->rchunk_size = ((o->reply_chunk_max ? o->reply_chunk_max : 70 * 1024) + 4095) & ~4095u;
	ep->x.max_bulk = ep->bulk_size;
	ep->x.next_xid = (uint32_t)(xprt_now_ns() >> 10) ^ (uint32_t)getpid() << 16;
	ep->x.st.credits_asked = ep->nslots;
	snprintf(ep->host, sizeof(ep->host), "%s", o->host);

	ep->send_region = page_alloc((size_t)ep->nslots * ep->o.inline_max, 0);
	ep->recv_region = page_alloc((size_t)ep->nrecvs * ep->recv_size, 0);
	ep->bulk_region = page_alloc((size_t)ep->nslots * ep->bulk_size, o->fill);
	ep->rchunk_region = page_alloc((size_t)ep->nslots * ep->rchunk_size, 0);
	ep->bc_buf = page_alloc(EP_BC_BUF, 0);
	ep->slots = calloc(ep->nslots, sizeof(*ep->slots));
	ep->rwr = calloc(ep->nrecvs, sizeof(*ep->rwr));
	ep->rsge = calloc(ep->nrecvs, sizeof(*ep->rsge));
	if (!ep->send_region || !ep->recv_region || !ep->bulk_region || !ep->rchunk_region || !ep->bc_buf ||
	    !ep->slots || !ep->rwr || !ep->rsge)
		goto fail;
	for (uint32_t i = 0; i < ep->nslots; i++) {
		ep->slots[i].send = ep->send_region + (size_t)i * ep->o.inline_max;
		ep->slots[i].bulk = ep->bulk_region + (size_t)i * ep->bulk_size;
		ep->slots[i].rchunk = ep->rchunk_region + (size_t)i * ep->rchunk_size;
	}
	if ((ret = resolve_host(ep)) < 0)
		goto fail;
	if ((ret = connect_once(ep)) < 0) {
		log_error("rdma: cannot connect to %s port %u: %s", ep->host, ep->o.port, strerror(-ret));
		goto fail;
	}
	*out = &ep->x;
	return 0;
fail:
	ep_destroy(&ep->x);
	return ret;
}

/* Shared by both transports. */
struct sync_ctx {
	bool done;
	int err;
	uint8_t *rbuf;
	size_t rcap, rlen;
};

static void sync_done(struct xprt_req *r, const struct xprt_reply *rep)
{
	struct sync_ctx *c = r->ctx;
	c->done = true;
	c->err = rep->err;
	if (!rep->err) {
		size_t n = rep->len < c->rcap ? rep->len : c->rcap;
		if (n)
			memcpy(c->rbuf, rep->msg, n);
		c->rlen = n;
	}
}

int xprt_call_sync(struct xprt *x, struct xprt_req *r, uint8_t *rbuf, size_t rcap, size_t *rlen,
		   int timeout_ms)
{
	struct sync_ctx c = { .rbuf = rbuf, .rcap = rcap };
	uint64_t end = xprt_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int ret;

	r->done = sync_done;
	r->ctx = &c;
	while ((ret = xprt_submit(x, r)) == -EAGAIN) {
		if ((ret = xprt_poll(x, 100)) < 0)
			return ret;
		if (xprt_now_ns() > end)
			return -ETIMEDOUT;
	}
	if (ret < 0)
		return ret;
	while (!c.done) {
		if ((ret = xprt_poll(x, 100)) < 0 && !c.done)
			return ret;
		if (!c.done && xprt_now_ns() > end)
			return -ETIMEDOUT;
	}
	if (rlen)
		*rlen = c.rlen;
	return c.err;
}
