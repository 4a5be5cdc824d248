/* The replay's scheduler: every traced client's calls go out in that
 * client's trace order, each as soon as it is due (the trace's time
 * scaled by --speed) and nothing it is meant to wait for holds it: its
 * cross-client dependency (replay_deps.c), its own client's order (a
 * change waits for that client's earlier calls and holds its later ones),
 * the in-flight count the trace had on its connection.  A client held
 * back holds back no other: among the calls ready, the earliest in the
 * trace goes first, and with none ready the replay sleeps on every
 * connection until a reply or shortly before the next call's time (to
 * the nanosecond), and polls without sleeping from there: a fixed
 * part plus how late its recent wake-ups came (replay_pace.c).
 *
 * The issue-time error it reports is the scheduler's own lateness: how
 * long after its time, or after the reply that released it, a call left.
 * The holds are reported apart (they are intended), by kind. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/clnt/nfs3.h"

/* Default (docs/replay.md, "Timing"): replies taken per poll and
 * connection when paced */
#define REPLY_BUDGET 4

/* Whether call i waits for its client's earlier calls and holds back its
 * later ones (replay_one_call, replay_one_v4): a change that is sent. */
static bool call_barrier(const struct engine *e, size_t i)
{
	const struct tcall *tc = &e->t.calls[i];
	bool allow = e->o->allow_mutations;

	if (tc->prog == PROG_NFS && tc->vers == 4) {
		struct nfs4_call_info in;
		if (tc->proc != 1 || !tc->v4known || nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)
			return false;
		return (in.state_change || in.ns_change) && (allow || !in.mutates);
	}
	if (tc->prog == PROG_NFSACL)
		return tc->proc == 2 && allow;
	if (tc->prog == PROG_NFS && tc->vers == 3)
		return nfs3_is_mutation(tc->proc) && tc->proc != NFS3P_WRITE && tc->proc != NFS3P_COMMIT && allow;
	return false;
}

static bool free_rcall(const struct engine *e)
{
	for (uint32_t k = 0; k < e->nrc; k++)
		if (!e->rc[k].busy)
			return true;
	return false;
}

/* What holds call i back now (HOLD_*), HOLD_NONE when it may go. */
static int held(struct engine *e, size_t i)
{
	struct tinfo *ti = &e->ti[i];
	const struct tcall *tc = &e->t.calls[i];
	struct rclient *cl = &e->cl[tc->client];

	if (ti->dep) {
		const struct tinfo *d = &e->ti[ti->dep - 1];
		if (!d->issued || d->inflight)
			return HOLD_DEP;
	}
	if (!ti->barrier_known) {
		ti->barrier = call_barrier(e, i);
		ti->barrier_known = true;
	}
	if (((ti->barrier || cl->barrier_pending || ti->retried) && cl->inflight) || cl->cb_wait ||
	    replay_bind_holds(cl))
		return HOLD_ORDER;
	struct xprt *x = cl->x[ti->xi];
	uint32_t limit = e->o->max_inflight ? e->o->max_inflight : (tc->inflight ? tc->inflight : 1);
	/* a call built ahead has its call slot */
	bool has_rcall = e->pre.have && e->pre.i == i;
	if (xprt_inflight(x) >= limit || !xprt_can_send(x) || (!has_rcall && !free_rcall(e)))
		return HOLD_INFLIGHT;
	return HOLD_NONE;
}

/* NFSv4.0: each client's RENEW when half its lease has gone by. */
static int keep_leases(struct engine *e)
{
	int ret = 0;
	for (unsigned k = 0; k < e->t.nclients && ret == 0; k++) {
		struct rclient *cl = &e->cl[k];
		if (!cl->v4 || cl->s.minor != 0 || !cl->s.have_client)
			continue;
		e->cur = cl;
		e->v4s = &cl->s;
		e->x = cl->x[0];
		ret = replay_v40_keep_lease(e);
	}
	return ret;
}

/* Call i was taken (sent, or done with unsent; replay_one, or built
 * ahead and posted, or done with while built): its client's next call
 * is the next one. */
static void taken(struct engine *e, size_t i)
{
	struct tinfo *ti = &e->ti[i];
	struct rclient *cl = &e->cl[e->t.calls[i].client];

	cl->next = ti->next;
	ti->issued = true;
	cl->last_issue_ns = xprt_now_ns();
	if (!ti->inflight && !ti->t_done)
		ti->t_done = xprt_now_ns();
}

/* The next call due, built while the scheduler waits for it (when this
 * close to its time: the spin before it and a millisecond more). */
#define PREBUILD_AHEAD_NS 1000000ull

static int prebuild(struct engine *e, size_t i, uint64_t to_go)
{
	if (!e->pre.on || e->pre.have || e->ti[i].no_prebuild ||
	    to_go > pace_spin(&e->pace) + PREBUILD_AHEAD_NS || held(e, i) != HOLD_NONE)
		return 0;
	late_mark(&e->late, LT_BUILD);
	int ret = replay_prebuild(e, i);
	late_mark(&e->late, LT_SCHED);
	if (ret == 0 || ret < 0)
		taken(e, i);   /* done with unsent, or the connection is gone */
	return ret < 0 ? ret : 1;
}

static int schedule(struct engine *e)
{
	for (unsigned k = 0; k < e->t.nclients; k++)
		e->cl[k].next = SIZE_MAX;
	for (size_t i = e->t.n; i-- > 0;) {
		struct rclient *cl = &e->cl[e->t.calls[i].client];
		e->ti[i].next = cl->next;
		cl->next = i;
	}
	for (;;) {
		uint64_t now = xprt_now_ns(), wake = UINT64_MAX;
		size_t best = SIZE_MAX, next = SIZE_MAX;   /* next: the call due at wake */
		bool left = false;
		int ret;

		for (unsigned k = 0; k < e->t.nclients; k++) {
			size_t i = e->cl[k].next;
			if (i == SIZE_MAX)
				continue;
			left = true;
			uint64_t at = replay_due(e, &e->t.calls[i]);
			if (now < at) {
				if (at < wake) {
					wake = at;
					next = i;
				}
				continue;
			}
			int why = held(e, i);
			if (why != HOLD_NONE) {
				struct tinfo *ti = &e->ti[i];
				if (e->pre.have && e->pre.i == i)
					replay_prebuilt_drop(e);   /* built again when it may go */
				if (!ti->hold) {
					ti->hold = (uint8_t)why;
					e->deps_held += why == HOLD_DEP;
				}
				ti->holds |= (uint8_t)(1u << why);
				continue;
			}
			if (i < best)
				best = i;
		}
		if (!left)
			return 0;
		uint64_t aw = replay_async_wake(e, now);   /* a client's own wait (replay_deleg.c) */
		if (aw < wake) {
			wake = aw;
			next = SIZE_MAX;
		}
		if (best != SIZE_MAX) {
			struct tinfo *ti = &e->ti[best];
			struct rclient *cl = &e->cl[e->t.calls[best].client];
			ti->t_pick = now;
			/* due while its client's call before it was still held or
			 * going: held by its client's order (intended) until then */
			uint64_t at = replay_due(e, &e->t.calls[best]);
			if (cl->last_issue_ns > at) {
				ti->t_prev = cl->last_issue_ns;
				ti->holds |= 1u << HOLD_KINDS;   /* released by t_prev */
				if (!ti->hold)
					ti->hold = HOLD_ORDER;
			}
			late_mark(&e->late, LT_BUILD);
			if (e->pre.have && e->pre.i == best)
				ret = replay_post_built(e);   /* built ahead: its post alone */
			else
				ret = replay_one(e, best, e->t0_trace, e->t0);
			late_mark(&e->late, LT_SCHED);
			if (ret == REPLAY_RETRY) {
				ti->retried = true;
				continue;
			}
			taken(e, best);
			if (ret < 0)
				return ret;
			continue;
		}
		/* nothing may go: build the next call due if it is near
		 * (then look again), else sleep until a reply or shortly
		 * before its time, and poll without sleeping until it is due
		 * (replay_pace.h) */
		if (next != SIZE_MAX && (ret = prebuild(e, next, wake - now)) != 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		uint64_t nap = pace_nap(&e->pace, wake == UINT64_MAX ? UINT64_MAX : wake - now, now);
		if (nap >= 1000000ull && (ret = keep_leases(e)) < 0)
			return ret;
		pace_before_sleep(&e->pace);
		/* --asap and --busy-poll: the transport's own wait (its
		 * moderation naps, its spin on the completion queue) */
		if (e->o->speed <= 0 || e->o->busy_poll)
			ret = replay_poll(e, (int)(nap / 1000000ull));
		else
			ret = replay_poll_ns(e, nap);
		if (ret < 0)
			return ret;
		pace_after_sleep(&e->pace);
	}
}

int replay_schedule(struct engine *e)
{
	/* the last moments before a call's time are polled (replay_pace.h);
	 * a burst of replies is taken a few at a time, the calls due sent
	 * between */
	pace_init(&e->pace);
	replay_prebuild_init(e);
	if (e->o->speed > 0)
		for (unsigned k = 0; k < e->nxs; k++)
			e->xs[k]->poll_budget = REPLY_BUDGET;
	int64_t w0 = pace_run_delay();
	if (e->o->per_call && e->o->speed > 0 && late_start(&e->late) < 0)
		return -ENOMEM;
	/* the trace's first call is due now: after all that */
	e->t0 = xprt_now_ns();
	int ret = schedule(e);
	replay_prebuilt_drop(e);   /* the run failed with a call built */
	int64_t w1 = pace_run_delay();
	e->cpu_wait_ns = w0 >= 0 && w1 >= w0 ? w1 - w0 : -1;
	return ret;
}
