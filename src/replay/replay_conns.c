/* Every replay client's own connections to the target: one per
 * connection the traced client had (its first RC_MAXCONN; its later ones
 * share the last), each with its own credits and calls in flight, so a
 * client waiting for its replies or credits holds back no other.  They
 * are opened before the replay, in trace order, and closed in the
 * reverse order.
 *
 * How many the replay may open follows the machine (replay_conn_limit):
 * at most REPLAY_CONN_CAP, what RLIMIT_NOFILE leaves (each connection
 * takes descriptors; so does each NFSv4.0 callback server, kept apart),
 * and the RDMA device's QP limit (learnt from the
 * first connection); an open that fails for want of a resource
 * (descriptors, memory, QPs) lowers the limit to what did open.  Past
 * the limit, further clients share the connections open (round robin)
 * and one line says which and why (replay_conn_plan). */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "src/base/log.h"

unsigned replay_conn_limit(uint64_t nofile, unsigned fds_per_conn, uint64_t dev_max_qp, const char **why)
{
	uint64_t n = REPLAY_CONN_CAP;
	*why = "the replay's cap (REPLAY_CONN_CAP)";
	if (!fds_per_conn)
		fds_per_conn = 1;
	uint64_t by_fd = nofile > REPLAY_FD_RESERVE ? (nofile - REPLAY_FD_RESERVE) / fds_per_conn : 0;
	if (by_fd < n) {
		n = by_fd;
		*why = "the open-file limit (RLIMIT_NOFILE)";
	}
	if (dev_max_qp && dev_max_qp < n) {
		n = dev_max_qp;
		*why = "the RDMA device's QP limit";
	}
	return n ? (unsigned)n : 1;
}

int replay_conn_plan(const struct trace *t, unsigned limit, struct conn_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->of_call = calloc(t->n ? t->n : 1, sizeof(*p->of_call));
	p->cl = calloc(t->nclients ? t->nclients : 1, sizeof(*p->cl));
	if (!p->of_call || !p->cl) {
		replay_conn_plan_free(p);
		return -ENOMEM;
	}
	if (!limit)
		limit = 1;
	for (size_t i = 0; i < t->n; i++) {
		const struct tcall *tc = &t->calls[i];
		struct conn_plan_client *c = &p->cl[tc->client];
		unsigned j;
		for (j = 0; j < c->n && c->tconn[j] != tc->conn; j++)
			;
		if (j == c->n && c->n == RC_MAXCONN)
			j = c->n - 1;                  /* its later connections share its last */
		else if (j == c->n) {
			if (p->n == limit && c->n) {
				/* none left: its own last carries this one too */
				c->g[j] = c->g[j - 1];
				p->wanted++;
			} else if (p->n == limit) {
				/* none left, and it has none: it shares one */
				c->g[0] = tc->client % limit;
				c->shared = true;
				p->wanted++;
				p->sharing++;
			} else {
				c->g[j] = p->n++;
				p->wanted++;
			}
			c->tconn[j] = tc->conn;
			c->n++;
		}
		p->of_call[i].g = c->g[j];
		p->of_call[i].xi = (uint8_t)j;
	}
	return 0;
}

void replay_conn_plan_free(struct conn_plan *p)
{
	free(p->of_call);
	free(p->cl);
	p->of_call = NULL;
	p->cl = NULL;
}

static bool out_of_resource(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM || err == -ENOSPC || err == -EAGAIN ||
	       err == -ENOBUFS;
}

/* The connections the trace wants, at most REPLAY_CONN_CAP. */
uint64_t replay_cb_server_fds(const struct trace *t, bool delegations)
{
	uint64_t n = 0;
	for (unsigned k = 0; delegations && k < t->nclients; k++)
		n += t->clients[k].vers == 4 && t->clients[k].minor == 0;
	return n * REPLAY_FDS_PER_CB_SERVER;
}

static unsigned wanted(const struct trace *t)
{
	struct conn_plan p;
	if (replay_conn_plan(t, REPLAY_CONN_CAP, &p) < 0)
		return 0;
	unsigned n = p.n;
	replay_conn_plan_free(&p);
	return n;
}

int replay_conns_open(struct engine *e, const struct xprt_opts *xo, bool tcp)
{
	struct rlimit rl = { 0, 0 };
	uint64_t nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur :
			  UINT32_MAX;
	/* what the callback servers, started after the connections, will need */
	uint64_t cb = replay_cb_server_fds(&e->t, e->o->delegations);
	nofile = nofile > cb ? nofile - cb : 0;
	/* RDMA: the CM event channel and the completion channel; TCP: the socket */
	unsigned fds = tcp ? 1 : 2;
	const char *why;
	unsigned want = wanted(&e->t), limit = replay_conn_limit(nofile, fds, 0, &why);
	struct conn_plan p;
	int ret;

	if (!(e->xs = calloc(want ? want : 1, sizeof(*e->xs))))
		return -ENOMEM;
	struct xprt *x = NULL;
	if ((ret = tcp ? xprt_tcp_open(&x, xo) : xprt_rdma_open(&x, xo)) < 0)
		return ret;
	e->xs[e->nxs++] = x;
	if (x->max_qp)
		limit = replay_conn_limit(nofile, fds, x->max_qp, &why);
	for (;;) {
		if ((ret = replay_conn_plan(&e->t, limit, &p)) < 0)
			return ret;
		while (e->nxs < p.n) {
			x = NULL;
			if ((ret = tcp ? xprt_tcp_open(&x, xo) : xprt_rdma_open(&x, xo)) < 0)
				break;
			e->xs[e->nxs++] = x;
		}
		if (e->nxs == p.n)
			break;
		replay_conn_plan_free(&p);
		if (!out_of_resource(ret))
			return ret;
		limit = e->nxs;
		why = "what the system let it open";
	}
	e->conns_wanted = p.wanted;
	e->clients_sharing = p.sharing;
	if (p.n < p.wanted)
		log_warn("replay: %u connections wanted (one per traced connection of each client), %u "
			 "opened, the limit being %s: %u client(s) share another's connection", p.wanted, p.n,
			 why, p.sharing);
	for (unsigned k = 0; k < e->t.nclients; k++) {
		struct rclient *cl = &e->cl[k];
		const struct conn_plan_client *c = &p.cl[k];
		cl->nx = c->n;
		cl->shared = c->shared;
		for (unsigned j = 0; j < c->n; j++) {
			cl->x[j] = e->xs[c->g[j]];
			cl->tconn[j] = c->tconn[j];
		}
	}
	for (size_t i = 0; i < e->t.n; i++)
		e->ti[i].xi = p.of_call[i].xi;
	replay_conn_plan_free(&p);
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
