/* The replay's waits and its way onto the wire, below every sender:
 * polling the connections (and what a poll brings: --disconnect-after's
 * drop, the callbacks' work), waiting for a client's or every call,
 * pacing a call to its recorded time, a free call slot, submitting and
 * what a submission counts (its issue-time error).  Calls up to none of
 * the files that build calls (replay_one.c, replay_v4_send.c) or
 * schedule them (replay_sched.c, replay_prebuild.c). */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"

/* After a poll: --disconnect-after's drop, the callbacks' work. */
static int after_poll(struct engine *e, int n)
{
	if (n < 0)
		return n;
	if (e->drop_pending) {
		e->drop_pending = false;
		e->drops++;
		log_warn("replay: dropping the connection after xid 0x%08x (--disconnect-after)",
			 e->o->disconnect_xid);
		xprt_drop(e->drop_x, "dropped on request");
	}
	/* a delegation granted beyond the trace is given back there too */
	return e->o->delegations || e->delegs_unasked ? replay_callbacks_after_poll(e) : 0;
}

int replay_poll(struct engine *e, int ms)
{
	unsigned was = late_mark(&e->late, LT_POLL);
	int n = xprt_poll_set(e->xs, e->nxs, ms);
	late_mark(&e->late, was);
	return after_poll(e, n);
}

int replay_poll_ns(struct engine *e, uint64_t ns)
{
	unsigned was = late_mark(&e->late, LT_POLL);
	int n = xprt_poll_set_ns(e->xs, e->nxs, ns);
	late_mark(&e->late, was);
	return after_poll(e, n);
}

int replay_wait_all(struct engine *e)
{
	while (replay_inflight_all(e)) {
		int ret = replay_poll(e, 100);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int replay_wait_client(struct engine *e)
{
	while (e->cur->inflight) {
		int ret = replay_poll(e, 100);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static struct rcall *free_rcall(struct engine *e)
{
	for (uint32_t i = 0; i < e->nrc; i++)
		if (!e->rc[i].busy)
			return &e->rc[i];
	return NULL;
}

/* Waits until the call's recorded send time (scaled by --speed). */
int replay_pace(struct engine *e, const struct tcall *tc, uint64_t t0_trace, uint64_t t0)
{
	int ret;
	/* built ahead of its time: the scheduler posts it when it is due */
	if (e->pre.building)
		return 0;
	if (e->o->speed > 0 && tc->t_call > t0_trace) {
		uint64_t at = t0 + (uint64_t)((double)(tc->t_call - t0_trace) / e->o->speed);
		for (uint64_t now; (now = xprt_now_ns()) < at;) {
			if ((ret = replay_v40_keep_lease(e)) < 0)
				return ret;
			/* under a millisecond to go: poll without sleeping, so the
			 * call leaves on time (the issue-time error) */
			uint64_t ms = (at - now) / 1000000ull;
			if ((ret = replay_poll(e, ms > 100 ? 100 : (int)ms)) < 0)
				return ret;
		}
	}
	return 0;
}

/* Waits until a call may go out: fewer in flight than --max-inflight (or
 * than the capture had when this call went), room in the transport, a
 * free call slot. */
int replay_wait_rcall(struct engine *e, const struct tcall *tc, struct rcall **out)
{
	const struct replay_opts *o = e->o;
	uint32_t limit = o->max_inflight ? o->max_inflight : (tc->inflight ? tc->inflight : 1);
	int ret;

	while (xprt_inflight(e->x) >= limit || !xprt_can_send(e->x) || !(*out = free_rcall(e)))
		if ((ret = replay_poll(e, 100)) < 0)
			return ret;
	return 0;
}

/* Submits rc (the replay of call i), polling while the transport is full. */
int replay_submit(struct engine *e, struct rcall *rc, size_t i)
{
	int ret;

	rc->req.done = replay_done;
	rc->req.ctx = rc;
	rc->idx = i;
	rc->e = e;
	rc->x = e->x;
	if (e->pre.building)
		return 0;   /* posted at its time (replay_post_built) */
	while ((ret = xprt_submit(e->x, &rc->req)) == -EAGAIN)
		if ((ret = replay_poll(e, 100)) < 0)
			break;
	return ret;
}

uint8_t *replay_rcall_buf(struct rcall *rc, size_t cap)
{
	if (rc->bufcap >= cap)
		return rc->buf;
	/* grown, never shrunk: no allocation per call once warm */
	uint8_t *b = realloc(rc->buf, cap);
	if (!b)
		return NULL;
	rc->buf = b;
	rc->bufcap = cap;
	return b;
}

/* A call too large for the transport is skipped (0); anything else means
 * the connection is gone (-ENOTCONN). */
int replay_submit_failed(struct rcall *rc, struct opstat *os, int ret)
{
	free(rc->data);
	rc->data = NULL;
	if (ret == -EMSGSIZE) {
		os->skipped++;
		return 0;
	}
	return -ENOTCONN;
}

uint64_t replay_due(const struct engine *e, const struct tcall *tc)
{
	if (e->o->speed <= 0 || tc->t_call <= e->t0_trace)
		return e->t0;
	return e->t0 + (uint64_t)((double)(tc->t_call - e->t0_trace) / e->o->speed);
}

/* When call i, due at `at`, was released: the reply it was held for, if
 * any came later. */
static uint64_t replay_released(const struct engine *e, size_t i, uint64_t at)
{
	const struct tinfo *ti = &e->ti[i];
	const struct rclient *cl = &e->cl[e->t.calls[i].client];
	uint64_t r = at;

	if ((ti->holds & (1u << HOLD_DEP)) && ti->dep && e->ti[ti->dep - 1].t_done > r)
		r = e->ti[ti->dep - 1].t_done;
	if ((ti->holds & (1u << HOLD_ORDER | 1u << HOLD_INFLIGHT)) && cl->last_done_ns > r)
		r = cl->last_done_ns;
	if (ti->t_prev > r)
		r = ti->t_prev;
	return r;
}

/* The issue-time error of call i, sent at `sent` (--speed > 0). */
static void issue_time(struct engine *e, size_t i, struct opstat *os, uint64_t sent)
{
	/* when it left against when the trace says, or against the reply
	 * it was held for (the holds apart) */
	const struct tcall *tc = &e->t.calls[i];
	struct rclient *cl = &e->cl[tc->client];
	const struct tinfo *ti = &e->ti[i];
	uint64_t at = replay_due(e, tc);
	uint64_t from = ti->hold ? replay_released(e, i, at) : at;
	uint64_t late = sent > from ? sent - from : 0;
	lhist_add(&e->issue_all, sent > at ? sent - at : 0);
	if (ti->t_pick) {
		lhist_add(&e->issue_pick, ti->t_pick > from ? ti->t_pick - from : 0);
		lhist_add(&e->issue_build, sent > ti->t_pick ? sent - ti->t_pick : 0);
	}
	if (ti->hold)
		lhist_add(&e->hold[ti->hold], from - at);
	lhist_add(&os->issue, late);
	lhist_add(&cl->issue, late);
	if (e->o->per_call) {
		fprintf(e->vout, "  xid 0x%08x %s: c%u left %.1f us late", tc->xid, tc->name,
			tc->client + 1, (double)late / 1e3);
		if (ti->hold)
			fprintf(e->vout, ", after a hold of %.1f us (%s)", (double)(from - at) / 1e3,
				replay_hold_name(ti->hold));
		if (late >= LATE_SHOWN_NS && e->late.on) {
			/* where the time went, from its time (or release) on */
			uint64_t part[LT_KINDS];
			int64_t wait;
			uint64_t unknown = late_explain(&e->late, from, sent, part, &wait);
			fputs(": ", e->vout);
			late_print(e->vout, part, wait, unknown);
		}
		fputc('\n', e->vout);
	}
	os->early += sent < at;
	cl->early += sent < at;
}

int replay_submitted(struct engine *e, struct rcall *rc, struct opstat *os, bool barrier)
{
	size_t i = rc->idx;
	const struct tcall *tc = &e->t.calls[i];

	rc->busy = true;
	if (e->pre.building) {
		/* built: its slot kept until its post */
		e->pre.building = false;
		e->pre.have = true;
		e->pre.rc = rc;
		e->pre.os = os;
		e->pre.barrier = barrier;
		e->pre.v4 = tc->prog == PROG_NFS && tc->vers == 4;
		return REPLAY_BUILT;
	}
	e->ti[i].inflight = true;
	os->replayed++;
	os->read_chunks += rc->req.used_read_chunk;
	os->write_chunks += rc->req.used_write_chunk;
	os->reply_chunks += rc->req.used_reply_chunk;
	e->sent++;
	if (barrier)
		e->cl[tc->client].barrier_pending = true;
	e->cl[tc->client].inflight++;
	if (e->o->speed > 0 && tc->t_call >= e->t0_trace) {
		/* it leaves now, not with the next poll's batch, and it left
		 * when the transport handed it to the kernel (a failed post
		 * has completed it as lost: its submit time stands) */
		uint64_t t_submit = rc->req.t_submit_ns;
		bool posted = xprt_flush(rc->x) == 0 && rc->req.t_post_ns;
		uint64_t sent = posted ? rc->req.t_post_ns : t_submit ? t_submit : xprt_now_ns();
		issue_time(e, i, os, sent);
	}
	return 0;
}
