/* Before the schedule's clock starts (t0): the session (NFSv4.1+) or
 * client ID (NFSv4.0) of the replay's own that a traced client will need
 * because its trace uses one it did not create (the capture began after
 * its EXCHANGE_ID / SETCLIENTID).  Done inline at its first call, that
 * set-up held back every client's calls for its round trips; here every
 * such client does it at once, each on its own connection, its steps
 * (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE; SETCLIENTID,
 * SETCLIENTID_CONFIRM and, with --delegations, the wait for the target's
 * callback probe) following each other as their replies come.  A client
 * whose set-up fails is said and left to the inline path, which tries
 * again at its first call. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/nfs_status.h"
#include "src/base/log.h"

enum { SU_NONE, SU_EXID, SU_CS, SU_RC, SU_SC, SU_SCC, SU_DONE, SU_FAILED };
static const char *const su_name[] = { "", "EXCHANGE_ID", "CREATE_SESSION", "RECLAIM_COMPLETE",
				       "SETCLIENTID", "SETCLIENTID_CONFIRM", "", "" };

struct su {
	struct engine *e;
	int step;
	bool inflight;
};

/* Whether traced client k uses a session (4.1+) or client ID (4.0)
 * before it creates one: its first COMPOUND that needs one (SEQUENCE,
 * CREATE_SESSION; NFSv4.0: an op naming a client ID or an owner) comes
 * before its first EXCHANGE_ID (SETCLIENTID), or it has none. */
bool replay_needs_own_state(const struct trace *t, unsigned k)
{
	const struct tclient *c = &t->clients[k];
	if (c->vers != 4)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		const struct tcall *tc = &t->calls[i];
		struct nfs4_call_info in;
		if (tc->client != k || tc->prog != PROG_NFS || tc->vers != 4 || tc->proc != 1 ||
		    !tc->v4known || tc->v4minor != c->minor ||
		    nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)
			continue;
		for (unsigned j = 0; j < in.nops && j < NFS4_RES_MAXOPS; j++) {
			uint32_t op = in.op[j];
			if (op == (c->minor ? NFS4_OP_EXCHANGE_ID : NFS4_OP_SETCLIENTID))
				return false;
			if (c->minor ? op == NFS4_OP_SEQUENCE || op == NFS4_OP_CREATE_SESSION :
			    op == NFS4_OP_OPEN || op == NFS4_OP_RENEW || op == NFS4_OP_LOCK ||
			    op == NFS4_OP_LOCKT || op == NFS4_OP_SETCLIENTID_CONFIRM ||
			    op == NFS4_OP_RELEASE_LOCKOWNER)
				return true;
		}
	}
	return false;
}

static unsigned b_exchange_id(struct xenc *x, void *ctx)
{
	const struct nfs41_session *s = ctx;
	/* EXCHGID4_FLAG_USE_NON_PNFS, as nfs41_session_open */
	nfs4_enc_exchange_id(x, s->verifier, s->owner, (uint32_t)strlen(s->owner), 0x10000);
	return 1;
}

static uint32_t g_slots;   /* the slots CREATE_SESSION asks for (the build has one context) */

static unsigned b_create_session(struct xenc *x, void *ctx)
{
	const struct nfs41_session *s = ctx;
	nfs4_enc_create_session(x, s->clientid, s->cs_seq, s->back_channel ? NFS4_CS_CONN_BACK_CHAN : 0,
				1024 * 1024 + 4096, 1024 * 1024 + 4096, g_slots);
	return 1;
}

static unsigned b_reclaim_complete(struct xenc *x, void *ctx)
{
	(void)ctx;
	nfs4_enc_reclaim_complete(x, false);
	return 1;
}

static unsigned b_setclientid(struct xenc *x, void *ctx)
{
	const struct nfs41_session *s = ctx;
	nfs4_enc_setclientid(x, s->verifier, s->owner, (uint32_t)strlen(s->owner), PROG_NFS_CB, s->cb_netid,
			     s->cb_addr, 1);
	return 1;
}

static unsigned b_setclientid_confirm(struct xenc *x, void *ctx)
{
	const struct nfs41_session *s = ctx;
	nfs4_enc_setclientid_confirm(x, s->clientid, s->confirm);
	return 1;
}

static void fail(struct su *u, struct rclient *cl, const char *why)
{
	log_error("replay: c%u: cannot set up its own NFSv4.%u %s before the start (%s: %s); it "
		  "tries again at its first call", (unsigned)(cl - u->e->cl) + 1, cl->s.minor,
		  cl->s.minor ? "session" : "client ID", su_name[u->step], why);
	u->step = SU_FAILED;
}

/* A step's reply: what it gives the client's session, and the next step. */
static void step_done(void *ctx, struct rclient *cl, const struct nfs4_res *r, int err, uint64_t took_ns)
{
	struct su *u = ctx;
	struct engine *e = u->e;
	struct nfs41_session *s = &cl->s;
	(void)took_ns;
	u->inflight = false;
	if (err) {
		fail(u, cl, strerror(-err));
		return;
	}
	if (r->status && u->step != SU_RC) {
		fail(u, cl, nfs_stat_name(r->status));
		return;
	}
	switch (u->step) {
	case SU_EXID:
		if (!r->has_clientid)
			return fail(u, cl, "no client ID in the reply");
		s->have_client = true;
		s->clientid = r->clientid;
		s->cs_seq = r->eir_seq;
		u->step = SU_CS;
		return;
	case SU_CS:
		if (!r->has_session)
			return fail(u, cl, "no session in the reply");
		nfs41_session_adopt(s, r, g_slots);
		u->step = SU_RC;
		return;
	case SU_RC:
		/* NFS4ERR_COMPLETE_ALREADY is fine; anything else is said only */
		if (r->status && r->status != 10054)
			log_warn("replay: c%u: RECLAIM_COMPLETE: %s", (unsigned)(cl - e->cl) + 1,
				 nfs_stat_name(r->status));
		break;
	case SU_SC:
		if (!r->has_setclientid)
			return fail(u, cl, "no client ID in the reply");
		s->clientid = r->sc_clientid;
		memcpy(s->confirm, r->sc_confirm, 8);
		u->step = SU_SCC;
		return;
	case SU_SCC:
		s->have_client = true;
		s->last_renew_ns = xprt_now_ns();
		break;
	}
	u->step = SU_DONE;
	e->v4_sessions++;
	if (e->o->per_call)
		fprintf(e->out, "  c%u: own NFSv4.%u %s set up before the start\n", (unsigned)(cl - e->cl) + 1,
			s->minor, s->minor ? "session" : "client ID");
}

/* Sends client cl's next step.  0, or a negative errno: -EAGAIN (no
 * credit now) tries again after the next poll. */
static int step_send(struct engine *e, struct rclient *cl, struct su *u)
{
	nfs41_build_fn b = u->step == SU_EXID ? b_exchange_id : u->step == SU_CS ? b_create_session :
			   u->step == SU_RC ? b_reclaim_complete : u->step == SU_SC ? b_setclientid :
			   b_setclientid_confirm;
	int ret = replay_own_submit(e, cl, cl->x[0], u->step == SU_RC, b, &cl->s, 1024, step_done, u);
	if (ret == 0)
		u->inflight = true;
	return ret;
}

int replay_setup_own(struct engine *e)
{
	unsigned n = 0;
	/* the engine's until the end: a reply still due after a give-up
	 * comes to it (replay_run frees it) */
	struct su *u = e->setup = calloc(e->t.nclients ? e->t.nclients : 1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	g_slots = e->slots > NFS41_MAX_SLOTS ? NFS41_MAX_SLOTS : e->slots ? e->slots : 1;
	for (unsigned k = 0; k < e->t.nclients; k++) {
		struct rclient *cl = &e->cl[k];
		u[k].e = e;
		if (!cl->v4 || cl->s.have_client || !replay_needs_own_state(&e->t, k))
			continue;
		u[k].step = cl->s.minor ? SU_EXID : SU_SC;
		n++;
	}
	if (!n)
		return 0;
	uint64_t t = xprt_now_ns(), deadline = t + 15000000000ull;
	int ret = 0;
	for (;;) {
		bool busy = false;
		for (unsigned k = 0; k < e->t.nclients; k++) {
			if (u[k].step == SU_NONE || u[k].step >= SU_DONE)
				continue;
			busy = true;
			if (u[k].inflight)
				continue;
			int r = step_send(e, &e->cl[k], &u[k]);
			if (r < 0 && r != -EAGAIN)
				fail(&u[k], &e->cl[k], strerror(-r));
		}
		if (!busy)
			break;
		if (xprt_now_ns() > deadline) {
			for (unsigned k = 0; k < e->t.nclients; k++)
				if (u[k].step != SU_NONE && u[k].step < SU_DONE && !u[k].inflight)
					fail(&u[k], &e->cl[k], "no reply within 15 s");
			if (replay_inflight_all(e))
				ret = -ETIMEDOUT;   /* a reply still due would come to freed state */
			break;
		}
		if ((ret = replay_poll(e, 100)) < 0)
			break;
	}
	/* NFSv4.0 with --delegations: the target's probes of their callback
	 * paths, waited for at once */
	struct rclient *cur = e->cur;
	for (unsigned k = 0; ret == 0 && k < e->t.nclients; k++)
		if (u[k].step == SU_DONE && !e->cl[k].s.minor) {
			e->cur = &e->cl[k];
			replay_v40_wait_cb_probe(e);
		}
	e->cur = cur;
	for (bool waiting = true; ret == 0 && waiting;) {
		waiting = false;
		for (unsigned k = 0; k < e->t.nclients; k++)
			waiting |= e->cl[k].cb_wait;
		if (waiting && (ret = replay_poll(e, 10)) < 0)
			break;
	}
	replay_blocked(e, BLOCK_SETUP, t);
	log_info("replay: %u client(s) set up a session or client ID of their own before the start, "
		 "at once: %.1f ms", n, (double)(xprt_now_ns() - t) / 1e6);
	return ret;
}
