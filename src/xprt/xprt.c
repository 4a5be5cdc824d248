/* What both transports share: the clock, and a synchronous call over
 * either.  See xprt.h. */
#include "src/xprt/xprt.h"

#include "src/base/clock.h"

#include <errno.h>
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
