/* What both transports share: the clock, and a synchronous call over
 * either.  See xprt.h. */
#include "src/xprt/xprt.h"

#include "src/base/clock.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t xprt_now_ns(void)
{
	return clock_mono_ns();
}

struct xprt_time xprt_time;

int xprt_sleep_poll(struct pollfd *p, unsigned n, int timeout_ms)
{
	if (timeout_ms == 0)
		return poll(p, n, 0);
	uint64_t t = clock_mono_ns();
	int ret = poll(p, n, timeout_ms);
	xprt_time.blocked_ns += clock_mono_ns() - t;
	xprt_time.sleeps++;
	return ret;
}

int xprt_sleep_ppoll(struct pollfd *p, unsigned n, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000ull),
			       .tv_nsec = (long)(timeout_ns % 1000000000ull) };
	if (timeout_ns == 0)
		return poll(p, n, 0);
	uint64_t t = clock_mono_ns();
	int ret = ppoll(p, n, &ts, NULL);
	uint64_t back = clock_mono_ns();
	xprt_time.blocked_ns += back - t;
	xprt_time.sleeps++;
	if (ret == 0 && back > t + timeout_ns) {
		uint64_t late = back - t - timeout_ns;
		xprt_time.timeouts++;
		xprt_time.late_ns += late;
		xprt_time.late_over_1ms += late > 1000000ull;
		if (late > xprt_time.late_max_ns)
			xprt_time.late_max_ns = late;
	}
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

/* Sleeps on every transport's descriptors for up to timeout_ns (each
 * one's completions run first: a reply already in means no sleep). */
static int poll_set(struct xprt *const *xs, unsigned n, uint64_t timeout_ns)
{
	int total = 0, ret;

	for (unsigned k = 0; k < n; k++) {
		if ((ret = xprt_poll(xs[k], 0)) < 0)
			return ret;
		total += ret;
	}
	if (total || timeout_ns == 0 || n == 0)
		return total;
	struct pollfd stackp[16 * XPRT_WAIT_FDS], *p = stackp;
	unsigned *cnt, stackc[16];
	cnt = stackc;
	if (n > 16) {
		p = calloc((size_t)n * XPRT_WAIT_FDS, sizeof(*p));
		cnt = calloc(n, sizeof(*cnt));
		if (!p || !cnt) {
			free(p == stackp ? NULL : p);
			free(cnt == stackc ? NULL : cnt);
			return -ENOMEM;
		}
	}
	unsigned np = 0;
	for (unsigned k = 0; k < n && !total; k++) {
		cnt[k] = 0;
		if ((ret = xs[k]->ops->wait_fds(xs[k], p + np, &cnt[k])) < 0) {
			total = ret;
			break;
		}
		total += ret;
		np += cnt[k];
	}
	if (total == 0) {
		/* a transport reconnecting has no descriptor: look again soon */
		bool all = true;
		for (unsigned k = 0; k < n; k++)
			all &= cnt[k] > 0;
		ret = xprt_sleep_ppoll(p, np, all ? timeout_ns : (timeout_ns < 10000000 ? timeout_ns : 10000000));
		if (ret < 0 && errno != EINTR)
			total = -errno;
		for (unsigned k = 0, at = 0; ret > 0 && total >= 0 && k < n; at += cnt[k], k++) {
			bool woke = false;
			for (unsigned j = 0; j < cnt[k]; j++)
				woke |= p[at + j].revents != 0;
			if (!woke)
				continue;
			int r = xs[k]->ops->wait_done(xs[k], p + at, cnt[k]);
			total = r < 0 ? r : total + r;
		}
	}
	if (p != stackp) {
		free(p);
		free(cnt);
	}
	return total;
}

int xprt_poll_set(struct xprt *const *xs, unsigned n, int timeout_ms)
{
	if (n == 1)
		return xprt_poll(xs[0], timeout_ms);
	return poll_set(xs, n, timeout_ms > 0 ? (uint64_t)timeout_ms * 1000000ull : 0);
}

int xprt_poll_set_ns(struct xprt *const *xs, unsigned n, uint64_t timeout_ns)
{
	return poll_set(xs, n, timeout_ns);
}

int xprt_host_check(const char *host, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	int g = getaddrinfo(host, NULL, &hints, &res);

	if (g) {
		snprintf(err, errlen, "%s: %s", host, g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
		return -ENXIO;
	}
	freeaddrinfo(res);
	return 0;
}
