/* RPC over TCP with record marking (RFC 5531 section 11): the same
 * struct xprt interface as the RDMA endpoint, so the same calls can be
 * compared over both transports.  DDP-eligible data travels inline. */
#include "src/xprt/xprt.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/xprt/xdr_enc.h"

struct tcp_slot {
	struct xprt_req *req;
	uint32_t xid;
};

struct tcp_xprt {
	struct xprt x;
	struct xprt_opts o;
	char host[256];
	int fd;
	uint32_t nslots, outstanding;
	struct tcp_slot *slots;
	uint8_t *bulk;          /* source for ddp == NULL calls */
	/* receive side */
	uint8_t *rbuf;
	size_t rcap, rlen;      /* bytes of the current record gathered */
	uint8_t mark[4];
	size_t mark_got;
	uint32_t frag_left;
	bool frag_last, in_frag;
	bool bc_warned;
};

static int tcp_connect(struct tcp_xprt *t)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	char port[8];
	int ret = -EHOSTUNREACH;

	snprintf(port, sizeof(port), "%u", t->o.port);
	int g = getaddrinfo(t->host, port, &hints, &res);
	if (g) {
		if (!t->o.quiet_connect)   /* else the caller's one line */
			log_error("tcp: %s: %s", t->host, gai_strerror(g));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			t->fd = fd;
			ret = 0;
			break;
		}
		ret = -errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (ret == 0) {
		t->rlen = t->mark_got = 0;
		t->in_frag = false;
		t->outstanding = 0;
	}
	return ret;
}

static int tcp_fail_all(struct tcp_xprt *t, const char *why)
{
	int n = 0;

	if (!t->x.broken)
		log_warn("tcp: connection to %s lost (%s): %u call(s) in flight", t->host, why,
			 t->outstanding);
	t->x.broken = true;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	for (uint32_t i = 0; i < t->nslots; i++) {
		struct xprt_req *r = t->slots[i].req;
		t->slots[i].req = NULL;
		if (!r)
			continue;
		struct xprt_reply rep = { .err = -EPIPE, .rdma_proc = 0xff, .t_done_ns = xprt_now_ns() };
		t->x.st.lost++;
		r->done(r, &rep);
		n++;
	}
	t->outstanding = 0;
	return n;
}

static int tcp_reconnect(struct tcp_xprt *t)
{
	unsigned limit = t->o.reconnect_ms ? t->o.reconnect_ms : 30000, backoff = 100;
	uint64_t deadline = xprt_now_ns() + (uint64_t)limit * 1000000ull;

	for (;;) {
		int ret = tcp_connect(t);
		if (ret == 0) {
			t->x.broken = false;
			t->x.st.reconnects++;
			log_warn("tcp: reconnected to %s", t->host);
			return 0;
		}
		t->x.st.connect_failures++;
		if (xprt_now_ns() + (uint64_t)backoff * 1000000ull > deadline)
			return -ENOTCONN;
		usleep(backoff * 1000u);
		backoff = backoff * 2 > 3200 ? 3200 : backoff * 2;
	}
}

static unsigned tcp_can_send(const struct xprt *x)
{
	const struct tcp_xprt *t = (const struct tcp_xprt *)x;
	if (t->x.broken)
		return 1;
	return t->outstanding >= t->nslots ? 0 : t->nslots - t->outstanding;
}

static unsigned tcp_inflight(const struct xprt *x)
{
	return ((const struct tcp_xprt *)x)->outstanding;
}

/* The whole of iov out (a full socket buffer waits for room): the time
 * it takes is the call's hand-over to the kernel (xprt_time.post_ns). */
static int write_all(int fd, struct iovec *iov, int n)
{
	uint64_t t = xprt_now_ns();
	int ret = 0;
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd p = { .fd = fd, .events = POLLOUT };
				poll(&p, 1, 1000);
				continue;
			}
			ret = -errno;
			break;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	xprt_time.post_ns += xprt_now_ns() - t;
	xprt_time.posts++;
	return ret;
}

static int tcp_submit(struct xprt *x, struct xprt_req *r)
{
	struct tcp_xprt *t = (struct tcp_xprt *)x;

	if (t->x.broken && tcp_reconnect(t) < 0)
		return -ENOTCONN;
	if (!tcp_can_send(x)) {
		t->x.st.credit_waits++;
		return -EAGAIN;
	}
	if (r->len < 24 || (r->has_ddp && r->ddp_len > t->x.max_bulk))
		return -EMSGSIZE;
	struct tcp_slot *s = NULL;
	for (uint32_t i = 0; i < t->nslots; i++)
		if (!t->slots[i].req) {
			s = &t->slots[i];
			break;
		}
	if (!s)
		return -EAGAIN;
	r->xid = t->x.next_xid++;
	xenc_put_u32_at(r->msg, r->xid);
	r->used_read_chunk = r->used_write_chunk = r->used_reply_chunk = r->used_p0 = 0;
	static const uint8_t zero[4];
	uint32_t dlen = r->has_ddp ? r->ddp_len : 0, pad = (4 - (dlen & 3)) & 3;
	uint32_t total = (uint32_t)r->len + dlen + pad;
	uint8_t mark[4];
	xenc_put_u32_at(mark, 0x80000000u | total);
	size_t head = r->has_ddp && r->ddp_at && r->ddp_at <= r->len ? r->ddp_at : r->len;
	struct iovec iov[5] = {
		{ mark, 4 }, { r->msg, head },
		{ (void *)(uintptr_t)(r->ddp ? r->ddp : t->bulk), dlen },
		{ (void *)(uintptr_t)zero, pad },
		{ r->msg + head, r->len - head },
	};
	r->t_submit_ns = xprt_now_ns();
	s->req = r;
	s->xid = r->xid;
	t->outstanding++;
	if (t->outstanding > t->x.st.max_inflight)
		t->x.st.max_inflight = t->outstanding;
	t->x.st.calls++;
	t->x.st.inline_calls++;
	r->t_post_ns = xprt_now_ns();   /* handed to the kernel */
	int ret = write_all(t->fd, iov, 5);
	if (ret < 0) {
		tcp_fail_all(t, strerror(-ret));
		return 0;  /* the call was completed as lost */
	}
	return 0;
}

/* A call from the server on our connection (RFC 8881 2.10.3.1): answered
 * through x.bc_call, in a record of its own. */
static void bc_call(struct tcp_xprt *t, uint32_t xid)
{
	static uint8_t out[4096];

	t->x.st.bc_calls++;
	if (!t->x.bc_call) {
		t->x.st.bc_dropped++;
		if (!t->bc_warned)
			log_warn("tcp: xid 0x%08x: a call from the server (backchannel) that nothing "
				 "here serves: dropped", xid);
		t->bc_warned = true;
		return;
	}
	size_t n = t->x.bc_call(t->x.bc_ctx, t->rbuf, t->rlen, out, sizeof(out));
	if (!n)
		return;
	uint8_t mark[4];
	xenc_put_u32_at(mark, 0x80000000u | (uint32_t)n);
	struct iovec iov[2] = { { mark, 4 }, { out, n } };
	int ret = write_all(t->fd, iov, 2);
	if (ret < 0) {
		t->x.st.bc_dropped++;
		log_warn("tcp: backchannel reply xid 0x%08x: %s", xid, strerror(-ret));
		return;
	}
	t->x.st.bc_replies++;
}

static int deliver(struct tcp_xprt *t)
{
	if (t->rlen < 8) {
		t->x.st.bad_replies++;
		return 0;
	}
	uint32_t xid = xenc_get_u32(t->rbuf);
	if (xenc_get_u32(t->rbuf + 4) == 0) {   /* msg_type CALL: the backchannel */
		bc_call(t, xid);
		return 0;
	}
	for (uint32_t i = 0; i < t->nslots; i++) {
		struct tcp_slot *s = &t->slots[i];
		if (!s->req || s->xid != xid)
			continue;
		struct xprt_req *r = s->req;
		struct xprt_reply rep = { .msg = t->rbuf, .len = t->rlen, .rdma_proc = 0xff,
					  .t_done_ns = xprt_now_ns() };
		s->req = NULL;
		t->outstanding--;
		t->x.st.replies++;
		r->done(r, &rep);
		return 1;
	}
	t->x.st.bad_replies++;
	log_warn("tcp: reply for unknown xid 0x%08x", xid);
	return 0;
}

/* Reads what is there and delivers whole records. */
static int tcp_read(struct tcp_xprt *t)
{
	uint8_t buf[65536];
	int total = 0;

	for (;;) {
		ssize_t n = recv(t->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0)
			return total + tcp_fail_all(t, "closed by the server");
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return total;
			return total + tcp_fail_all(t, strerror(errno));
		}
		size_t off = 0;
		while (off < (size_t)n) {
			if (!t->in_frag) {
				while (t->mark_got < 4 && off < (size_t)n)
					t->mark[t->mark_got++] = buf[off++];
				if (t->mark_got < 4)
					break;
				uint32_t m = xenc_get_u32(t->mark);
				t->mark_got = 0;
				t->frag_last = m >> 31;
				t->frag_left = m & 0x7fffffffu;
				t->in_frag = true;
				if (t->rlen + t->frag_left > t->rcap)
					return total + tcp_fail_all(t, "record larger than the receive buffer");
			}
			size_t take = (size_t)n - off < t->frag_left ? (size_t)n - off : t->frag_left;
			memcpy(t->rbuf + t->rlen, buf + off, take);
			t->rlen += take;
			off += take;
			t->frag_left -= (uint32_t)take;
			if (t->frag_left == 0) {
				t->in_frag = false;
				if (t->frag_last) {
					total += deliver(t);
					t->rlen = 0;
				}
			}
		}
	}
}

static int tcp_poll(struct xprt *x, int timeout_ms)
{
	struct tcp_xprt *t = (struct tcp_xprt *)x;

	if (t->x.broken)
		return tcp_reconnect(t) < 0 ? -ENOTCONN : 0;
	struct pollfd p = { .fd = t->fd, .events = POLLIN };
	int ret = xprt_sleep_poll(&p, 1, t->o.busy_poll ? 0 : timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (ret == 0)
		return 0;
	return tcp_read(t);
}

static int tcp_wait_fds(struct xprt *x, struct pollfd *p, unsigned *n)
{
	struct tcp_xprt *t = (struct tcp_xprt *)x;

	*n = 0;
	if (t->x.broken)
		return tcp_reconnect(t) < 0 ? -ENOTCONN : 0;
	p[0] = (struct pollfd){ .fd = t->fd, .events = POLLIN };
	*n = 1;
	return 0;
}

static int tcp_wait_done(struct xprt *x, const struct pollfd *p, unsigned n)
{
	struct tcp_xprt *t = (struct tcp_xprt *)x;
	return n && p[0].revents && !t->x.broken ? tcp_read(t) : 0;
}

static void tcp_destroy(struct xprt *x)
{
	struct tcp_xprt *t = (struct tcp_xprt *)x;

	if (t->fd >= 0)
		close(t->fd);
	free(t->slots);
	free(t->rbuf);
	free(t->bulk);
	free(t);
}

static void tcp_drop(struct xprt *x, const char *why)
{
	struct tcp_xprt *t = (struct tcp_xprt *)x;
	if (!t->x.broken)
		tcp_fail_all(t, why);
}

static const struct xprt_ops tcp_ops = {
	.name = "tcp", .submit = tcp_submit, .poll = tcp_poll, .can_send = tcp_can_send,
	.inflight = tcp_inflight, .destroy = tcp_destroy, .drop = tcp_drop,
	.wait_fds = tcp_wait_fds, .wait_done = tcp_wait_done,
};

int xprt_tcp_open(struct xprt **out, const struct xprt_opts *o)
{
	struct tcp_xprt *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	if (!t)
		return -ENOMEM;
	t->x.ops = &tcp_ops;
	t->fd = -1;
	t->o = *o;
	if (!t->o.port)
		t->o.port = 2049;
	snprintf(t->host, sizeof(t->host), "%s", o->host);
	t->nslots = o->slots ? o->slots : 32;
	if (t->nslots > 256)
		t->nslots = 256;
	t->x.max_bulk = o->max_bulk ? o->max_bulk : 65536;
	t->x.next_xid = (uint32_t)(xprt_now_ns() >> 10) ^ (uint32_t)getpid() << 16;
	t->x.st.credits_asked = t->nslots;
	t->rcap = (size_t)t->x.max_bulk + (o->reply_chunk_max ? o->reply_chunk_max : 70 * 1024) + 4096;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	t->rbuf = malloc(t->rcap);
	t->bulk = malloc(t->x.max_bulk);
	if (!t->slots || !t->rbuf || !t->bulk)
		goto fail;
	memset(t->bulk, o->fill, t->x.max_bulk);
	if ((ret = tcp_connect(t)) < 0) {
		if (!o->quiet_connect)
			log_error("tcp: cannot connect to %s port %u: %s", t->host, t->o.port, strerror(-ret));
		goto fail;
	}
	*out = &t->x;
	return 0;
fail:
	tcp_destroy(&t->x);
	return ret;
}
