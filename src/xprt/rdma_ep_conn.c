/* The RPC-over-RDMA endpoint's connection (librdmacm): the CM private
 * data (RFC 8797), resolving and connecting, registering the buffers,
 * reconnecting with exponential backoff, tearing down and failing the
 * calls in flight; opening and destroying the endpoint.  See rdma_ep.c. */
#include "src/xprt/rdma_ep_state.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/xprt/xdr_enc.h"

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
static void rdma_ep_teardown(struct rdma_ep *ep)
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
	ep->x.max_qp = da.max_qp > 0 ? (uint32_t)da.max_qp : 0;   /* how many connections the replay may open */
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
		rdma_ep_recv_queue(ep, i);
	if ((ret = rdma_ep_recv_flush(ep)) < 0)
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
	rdma_ep_teardown(ep);
	return ret;
}

int rdma_ep_reconnect(struct rdma_ep *ep)
{
	unsigned limit = ep->o.reconnect_ms ? ep->o.reconnect_ms : 30000;
	uint64_t deadline = xprt_now_ns() + (uint64_t)limit * 1000000ull;
	unsigned backoff = 100;

	for (;;) {
		int ret = connect_once(ep);
		if (ret == 0) {
			ep->x.broken = false;
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
int rdma_ep_fail_all(struct rdma_ep *ep, const char *why)
{
	int n = 0;

	if (!ep->x.broken)
		log_warn("rdma: connection to %s lost (%s): %u call(s) in flight", ep->host, why,
			 ep->outstanding);
	ep->x.broken = true;
	rdma_ep_teardown(ep);
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

void rdma_ep_destroy(struct xprt *x)
{
	struct rdma_ep *ep = (struct rdma_ep *)x;

	rdma_ep_teardown(ep);
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
	ep->x.ops = &rdma_ep_ops;
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
		if (!o->quiet_connect)
			log_error("rdma: cannot connect to %s port %u: %s", ep->host, ep->o.port, strerror(-ret));
		goto fail;
	}
	*out = &ep->x;
	return 0;
fail:
	rdma_ep_destroy(&ep->x);
	return ret;
}
