/* The replay client's NFSv4.0 callback server: a TCP listener on the
 * local address that routes to the target, served by a thread of its own
 * (the replay's loop is single-threaded and blocks in its transport's
 * poll).  RPC over TCP with record marking (RFC 5531 section 11); each
 * call is answered by nfs41_cb_serve; recalls are queued for the replay's
 * thread, which gives the delegations back.  Connections from any other
 * address are closed at once: only the named target is talked to.  See
 * nfs4_cb.h. */
#include "src/clnt/nfs4_cb.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/base/log.h"

#define CBS_CONNS 4
#define CBS_RECORD_MAX (64u * 1024)
#define CBS_QUEUE 16

struct cbs_conn {
	int fd;                   /* -1: free */
	uint8_t *buf;             /* the record being gathered */
	size_t len;
	uint8_t mark[4];
	size_t mark_got;
	uint32_t frag_left;
	bool frag_last, in_frag;
};

struct nfs40_cbsrv {
	int lfd, wake[2];
	struct sockaddr_storage target;
	pthread_t thr;
	bool running;
	struct cbs_conn c[CBS_CONNS];
	pthread_mutex_t mu;       /* guards q, nq and the counts */
	struct nfs41_cb_recall q[CBS_QUEUE];
	unsigned nq;
	uint64_t refused, dropped;
	struct nfs41_cb cb;       /* touched by the thread; counts read under mu */
};

static void on_recall(void *ctx, const struct nfs41_cb_recall *r)
{
	struct nfs40_cbsrv *s = ctx;
	/* called from serve() with mu held */
	if (s->nq < CBS_QUEUE)
		s->q[s->nq++] = *r;
	else
		s->dropped++;
}

static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return false;
}

static void conn_close(struct cbs_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A whole record (one RPC call): answered. */
static int serve(struct nfs40_cbsrv *s, struct cbs_conn *c)
{
	uint8_t out[4 + 1024];
	pthread_mutex_lock(&s->mu);
	size_t n = nfs41_cb_serve(&s->cb, c->buf, c->len, out + 4, sizeof(out) - 4);
	pthread_mutex_unlock(&s->mu);
	c->len = 0;
	if (!n)
		return 0;
	uint32_t m = 0x80000000u | (uint32_t)n;
	out[0] = (uint8_t)(m >> 24);
	out[1] = (uint8_t)(m >> 16);
	out[2] = (uint8_t)(m >> 8);
	out[3] = (uint8_t)m;
	return write_all(c->fd, out, n + 4);
}

/* Reads what is there; whole records are served.  <0: close it. */
static int conn_read(struct nfs40_cbsrv *s, struct cbs_conn *c)
{
	uint8_t tmp[8192];
	ssize_t got = read(c->fd, tmp, sizeof(tmp));
	if (got <= 0)
		return got == 0 ? -ECONNRESET : (errno == EINTR || errno == EAGAIN ? 0 : -errno);
	size_t off = 0, n = (size_t)got;
	while (off < n) {
		if (!c->in_frag) {
			while (c->mark_got < 4 && off < n)
				c->mark[c->mark_got++] = tmp[off++];
			if (c->mark_got < 4)
				break;
			uint32_t m = (uint32_t)c->mark[0] << 24 | (uint32_t)c->mark[1] << 16 |
				     (uint32_t)c->mark[2] << 8 | c->mark[3];
			c->mark_got = 0;
			c->frag_last = m >> 31;
			c->frag_left = m & 0x7fffffffu;
			if (c->len + c->frag_left > CBS_RECORD_MAX) {
				log_warn("nfs4 callback: a record of more than %u bytes from the server: "
					 "connection closed", CBS_RECORD_MAX);
				return -EMSGSIZE;
			}
			c->in_frag = true;
		}
		size_t take = n - off < c->frag_left ? n - off : c->frag_left;
		memcpy(c->buf + c->len, tmp + off, take);
		c->len += take;
		off += take;
		c->frag_left -= (uint32_t)take;
		if (!c->frag_left) {
			c->in_frag = false;
			if (c->frag_last) {
				int ret = serve(s, c);
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

static void do_accept(struct nfs40_cbsrv *s)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int fd = accept(s->lfd, (struct sockaddr *)&peer, &plen);
	if (fd < 0)
		return;
	struct cbs_conn *c = NULL;
	for (int i = 0; i < CBS_CONNS && !c; i++)
		if (s->c[i].fd < 0)
			c = &s->c[i];
	if (!same_host(&peer, &s->target) || !c) {
		pthread_mutex_lock(&s->mu);
		s->refused++;
		pthread_mutex_unlock(&s->mu);
		close(fd);
		return;
	}
	c->buf = malloc(CBS_RECORD_MAX);
	if (!c->buf) {
		close(fd);
		return;
	}
	c->fd = fd;
}

static void *run(void *arg)
{
	struct nfs40_cbsrv *s = arg;
	for (;;) {
		struct pollfd p[2 + CBS_CONNS];
		int np = 0;
		p[np++] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		for (int i = 0; i < CBS_CONNS; i++)
			p[np++] = (struct pollfd){ .fd = s->c[i].fd, .events = POLLIN };
		if (poll(p, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN)
			do_accept(s);
		for (int i = 0; i < CBS_CONNS; i++)
			if (s->c[i].fd >= 0 && (p[2 + i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    conn_read(s, &s->c[i]) < 0)
				conn_close(&s->c[i]);
	}
	return NULL;
}

/* The local address the kernel would use to reach target (a UDP socket
 * "connected" to it sends nothing). */
static int local_addr_for(const struct sockaddr_storage *t, socklen_t tlen, struct sockaddr_storage *out,
			  socklen_t *olen)
{
	int fd = socket(t->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int ret = 0;
	if (connect(fd, (const struct sockaddr *)t, tlen) < 0 ||
	    getsockname(fd, (struct sockaddr *)out, olen) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int nfs40_cbsrv_start(struct nfs40_cbsrv **out, const char *target, char *netid, size_t netid_len,
		      char *addr, size_t addr_len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res = NULL;
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	int ret;

	struct nfs40_cbsrv *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->lfd = s->wake[0] = s->wake[1] = -1;
	for (int i = 0; i < CBS_CONNS; i++)
		s->c[i].fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	s->cb = (struct nfs41_cb){ .recall = on_recall, .ctx = s };
	if ((ret = getaddrinfo(target, "2049", &hints, &res)) != 0) {
		ret = -EHOSTUNREACH;
		goto fail;
	}
	memcpy(&s->target, res->ai_addr, res->ai_addrlen);
	ret = local_addr_for(&s->target, res->ai_addrlen, &local, &llen);
	freeaddrinfo(res);
	if (ret < 0)
		goto fail;
	if (local.ss_family == AF_INET)
		((struct sockaddr_in *)&local)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&local)->sin6_port = 0;
	s->lfd = socket(local.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&local, llen) < 0 || listen(s->lfd, 4) < 0 ||
	    getsockname(s->lfd, (struct sockaddr *)&local, &llen) < 0 || pipe(s->wake) < 0) {
		ret = -errno;
		goto fail;
	}
	/* RFC 5665 universal address: the host, then the port's two bytes */
	char host[INET6_ADDRSTRLEN];
	unsigned port;
	if (local.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&local)->sin_addr, host, sizeof(host));
		port = ntohs(((struct sockaddr_in *)&local)->sin_port);
		snprintf(netid, netid_len, "tcp");
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&local)->sin6_addr, host, sizeof(host));
		port = ntohs(((struct sockaddr_in6 *)&local)->sin6_port);
		snprintf(netid, netid_len, "tcp6");
	}
	snprintf(addr, addr_len, "%s.%u.%u", host, port >> 8, port & 255);
	if ((ret = -pthread_create(&s->thr, NULL, run, s)) < 0)
		goto fail;
	s->running = true;
	log_info("nfs4 callback: serving NFSv4.0 callbacks from %s on %s %s", target, netid, addr);
	*out = s;
	return 0;
fail:
	nfs40_cbsrv_stop(s);
	return ret;
}

unsigned nfs40_cbsrv_take(struct nfs40_cbsrv *s, struct nfs41_cb_recall *out, unsigned max)
{
	pthread_mutex_lock(&s->mu);
	unsigned n = s->nq < max ? s->nq : max;
	memcpy(out, s->q, n * sizeof(*out));
	memmove(s->q, s->q + n, (s->nq - n) * sizeof(*out));
	s->nq -= n;
	pthread_mutex_unlock(&s->mu);
	return n;
}

void nfs40_cbsrv_counts(struct nfs40_cbsrv *s, uint64_t *calls, uint64_t *recalls, uint64_t *refused)
{
	pthread_mutex_lock(&s->mu);
	*calls = s->cb.calls;
	*recalls = s->cb.recalls;
	*refused = s->refused;
	pthread_mutex_unlock(&s->mu);
}

void nfs40_cbsrv_stop(struct nfs40_cbsrv *s)
{
	if (!s)
		return;
	if (s->running) {
		if (write(s->wake[1], "x", 1) < 0)
			log_warn("nfs4 callback: cannot wake the server thread: %s", strerror(errno));
		pthread_join(s->thr, NULL);
	}
	for (int i = 0; i < CBS_CONNS; i++)
		conn_close(&s->c[i]);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
