/* The next call due, built before its time (--speed > 0): the issue-time
 * error runs from a call's time to its doorbell, and building it (its
 * handles mapped, a COMPOUND rewritten with the target's state, XDR into
 * its call slot's buffer) was most of the error's median under the lab's
 * emulation (~170 us).  So while the scheduler (replay_sched.c) waits for
 * the next call due and nothing holds it, it builds it, and at its time
 * only the post is left.
 *
 * What it read stays true until then: a change of its client waits for
 * nothing in flight and holds its client's later calls, another client's
 * change it depends on holds it (replay_deps.c), and this is its
 * client's next call.  Anything that holds it once due (a callback's
 * DELEGRETURN, the callback probe) gives it back unsent, its session
 * slot freed, and it is built again at its time.
 * NFSRDMA_REPLAY_PREBUILD=0: every call built at its time. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void replay_prebuild_init(struct engine *e)
{
	const char *v = getenv("NFSRDMA_REPLAY_PREBUILD");
	e->pre = (struct prebuilt){ .on = e->o->speed > 0 && !(v && !strcmp(v, "0")) };
}

int replay_prebuild(struct engine *e, size_t i)
{
	e->pre.building = true;
	e->pre.i = i;
	int ret = replay_one(e, i, e->t0_trace, e->t0);
	e->pre.building = false;
	if (ret == REPLAY_RETRY)
		e->ti[i].no_prebuild = true;   /* tried again at its time */
	return ret;
}

int replay_post_built(struct engine *e)
{
	struct prebuilt *p = &e->pre;
	size_t i = p->i;
	struct rcall *rc = p->rc;
	struct rclient *cl = &e->cl[e->t.calls[i].client];
	uint64_t sent = p->os->replayed;
	int ret;

	p->have = false;
	e->cur = cl;
	e->v4s = &cl->s;
	e->x = rc->x;
	if ((ret = replay_submit(e, rc, i)) < 0) {
		rc->busy = false;
		if (p->v4)
			nfs41_slot_put(e->v4s, rc->slot, rc->seq, false, ret != -EMSGSIZE);
		ret = replay_submit_failed(rc, p->os, ret);
	} else {
		ret = replay_submitted(e, rc, p->os, p->barrier);
	}
	cl->trace++;
	cl->replayed += p->os->replayed - sent;
	return ret;
}

void replay_prebuilt_drop(struct engine *e)
{
	struct prebuilt *p = &e->pre;
	if (!p->have)
		return;
	struct rcall *rc = p->rc;
	p->have = false;
	rc->busy = false;
	if (p->v4 && rc->slot >= 0)
		nfs41_slot_put(&e->cl[e->t.calls[p->i].client].s, rc->slot, rc->seq, false, false);
	rc->slot = -1;
	free(rc->data);
	rc->data = NULL;
	p->os->trace--;   /* counted again when it goes */
	e->ti[p->i].no_prebuild = true;
}
