/* What both transports share: the clock, and a synchronous call over
 * either.  See xprt.h. */
#include "src/xprt/xprt.h"

#include "src/base/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t xprt_now_ns(void)
{
	return clock_mono_ns();
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

int xprt_poll_set(struct xprt *const *xs, unsigned n, int timeout_ms)
{
	int total = 0, ret;

	if (n == 1)
		return xprt_poll(xs[0], timeout_ms);
	for (unsigned k = 0; k < n; k++) {
		if ((ret = xprt_poll(xs[k], 0)) < 0)
			return ret;
		total += ret;
	}
	if (total || timeout_ms == 0 || n == 0)
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
		ret = poll(p, np, all ? timeout_ms : (timeout_ms < 10 ? timeout_ms : 10));
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
