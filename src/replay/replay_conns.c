/* Every replay client's own connections to the target: one per
 * connection the traced client had (its first RC_MAXCONN; its later ones
 * share the last), each with its own credits and calls in flight, so a
 * client waiting for its replies or credits holds back no other.  They
 * are opened before the replay, in trace order, and closed in the
 * reverse order.  Past REPLAY_MAXCONN connections, further clients share
 * the ones open (round robin), as every client once shared one. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"

static int conn_of(struct engine *e, struct rclient *cl, uint32_t tconn, const struct xprt_opts *xo,
		   bool tcp)
{
	unsigned j;
	int ret;

	for (j = 0; j < cl->nx; j++)
		if (cl->tconn[j] == tconn)
			return (int)j;
	if (cl->nx == RC_MAXCONN)
		return (int)cl->nx - 1;
	if (e->nxs == REPLAY_MAXCONN) {
		if (cl->nx)
			return (int)cl->nx - 1;
		static bool said;
		if (!said)
			log_warn("replay: more than %u connections to open; further clients share them",
				 REPLAY_MAXCONN);
		said = true;
		cl->x[0] = e->xs[(cl - e->cl) % REPLAY_MAXCONN];
		cl->tconn[0] = tconn;
		cl->nx = 1;
		return 0;
	}
	struct xprt *x = NULL;
	if ((ret = tcp ? xprt_tcp_open(&x, xo) : xprt_rdma_open(&x, xo)) < 0)
		return ret;
	e->xs[e->nxs++] = x;
	cl->x[cl->nx] = x;
	cl->tconn[cl->nx] = tconn;
	return (int)cl->nx++;
}

int replay_conns_open(struct engine *e, const struct xprt_opts *xo, bool tcp)
{
	if (!(e->xs = calloc(REPLAY_MAXCONN, sizeof(*e->xs))))
		return -ENOMEM;
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		int j = conn_of(e, &e->cl[tc->client], tc->conn, xo, tcp);
		if (j < 0)
			return j;
		e->ti[i].xi = (uint8_t)j;
	}
	return 0;
}

void replay_conns_close(struct engine *e)
{
	for (unsigned k = e->nxs; k-- > 0;)
		xprt_destroy(e->xs[k]);
	free(e->xs);
	e->xs = NULL;
	e->nxs = 0;
	e->x = NULL;
}

unsigned replay_inflight_all(const struct engine *e)
{
	unsigned n = 0;
	for (unsigned k = 0; k < e->nxs; k++)
		n += xprt_inflight(e->xs[k]);
	return n;
}

void replay_xprt_stats(const struct engine *e, struct xprt_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned k = 0; k < e->nxs; k++) {
		const struct xprt_stats *s = &e->xs[k]->st;
		sum->calls += s->calls;
		sum->replies += s->replies;
		sum->lost += s->lost;
		sum->reconnects += s->reconnects;
		sum->read_chunks += s->read_chunks;
		sum->write_chunks += s->write_chunks;
		sum->reply_chunks += s->reply_chunks;
		sum->rdma_errors += s->rdma_errors;
		if (k == 0 || s->inline_send < sum->inline_send)
			sum->inline_send = s->inline_send;
		if (k == 0 || s->inline_recv < sum->inline_recv)
			sum->inline_recv = s->inline_recv;
		sum->credits_granted += s->credits_granted;
	}
}
