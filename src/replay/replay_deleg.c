/* --delegations: the callbacks each NFSv4 replay client serves (4.1+:
 * on its session's back channel, on every connection of its; 4.0: a
 * callback server of its own), giving back what the target recalls, and
 * binding a client's new connection to its session's back channel. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <string.h>

#include "dissect/nfs_status.h"
#include "src/base/log.h"

/* A CB_RECALL came in (called inside the transport's poll: it only
 * queues; return_recalled, after the poll, sends the DELEGRETURN). */
static void v4_recalled(void *ctx, const struct nfs41_cb_recall *r)
{
	struct rclient *cl = ctx;
	if (cl->nrecalls >= sizeof(cl->recalls) / sizeof(cl->recalls[0])) {
		cl->e->recalls_dropped++;
		log_warn("replay: more recalls at once than queued; one is not given back");
		return;
	}
	cl->recalls[cl->nrecalls++] = *r;
}

static unsigned b_delegreturn(struct xenc *x, void *ctx)
{
	const struct nfs41_cb_recall *r = ctx;
	nfs4_enc_putfh(x, &r->fh);
	xenc_u32(x, NFS4_OP_DELEGRETURN);
	xenc_u32(x, r->sid.seqid);
	xenc_fixed(x, r->sid.other, 12);
	return 2;
}

/* The target's answer to a DELEGRETURN of the replay's own. */
static void returned(void *ctx, struct rclient *cl, const struct nfs4_res *r, int err, uint64_t took_ns)
{
	struct engine *e = cl->e;
	(void)ctx;
	if (err) {
		e->deleg_return_failed++;
		log_warn("replay: DELEGRETURN of the replay's own: %s", strerror(-err));
	} else if (r->status) {
		e->deleg_return_failed++;
		log_warn("replay: DELEGRETURN of the replay's own: %s", nfs_stat_name(r->status));
	} else {
		e->deleg_returned++;
	}
	if (e->o->per_call)
		fprintf(e->out, "  c%u: DELEGRETURN of the replay's own answered in %.1f us "
			"(no client held for it)\n", (unsigned)(cl - e->cl) + 1, (double)took_ns / 1e3);
}

/* Gives back what the target recalled (DELEGRETURN: a call of the
 * replay's own, not in the trace), sent without waiting for its reply,
 * and from then on lets the trace's delegation stand for what one the
 * target never granted does (the open stateid of its OPEN: valid whether
 * or not the target has the delegation back yet).  A recall that finds
 * no session slot or credit free stays queued until the next poll.
 * 0 or -ENOTCONN. */
static int return_recalled(struct engine *e, struct rclient *cl)
{
	while (cl->nrecalls) {
		struct nfs41_cb_recall r = cl->recalls[0];
		int ret = replay_own_submit(e, cl, cl->x[0], true, b_delegreturn, &r, 1024, returned, NULL);
		if (ret == -EAGAIN)
			return 0;
		if (ret < 0 && ret != -EMSGSIZE && ret != -ENOMEM)
			return -ENOTCONN;
		if (ret < 0) {
			e->deleg_return_failed++;
			log_warn("replay: DELEGRETURN of the replay's own: %s", strerror(-ret));
		}
		memmove(cl->recalls, cl->recalls + 1, --cl->nrecalls * sizeof(r));
		struct nfs_fh gkey = { .len = 12 };
		memcpy(gkey.data, r.sid.other, 12);
		struct fhent *g = fhmap_get(&e->grantmap, &gkey, NULL);
		if (g) {
			struct nfs_fh tk = replay_sid_key(e, cl, g->val.data), tv = { .len = 12 };
			memcpy(tv.data, g->val.data + 12, 12);
			fhmap_put(&e->recalledmap, &tk, NULL, &tk, true);
			fhmap_put(&e->delegmap, &tk, NULL, &tv, true);
		}
	}
	return 0;
}

/* The target's answer to a BIND_CONN_TO_SESSION of the replay's own. */
static void bound(void *ctx, struct rclient *cl, const struct nfs4_res *r, int err, uint64_t took_ns)
{
	struct engine *e = cl->e;
	uint32_t dir = 0;
	int ret = err ? err : nfs41_bind_conn_result(&cl->s, r, &dir);
	if (ctx == &cl->bind_first)
		cl->bind_first = false;   /* its calls go on (released by this reply) */
	if (ret == 0) {
		e->conn_bound++;
		e->bind_dir = dir;
		log_info("nfs4.%u: connection bound to the session (%s)", cl->s.minor,
			 dir == NFS4_CDFS4_BOTH ? "fore and back channels" :
			 dir == NFS4_CDFS4_BACK ? "back channel" : "fore channel only");
		if (dir != NFS4_CDFS4_BOTH && dir != NFS4_CDFS4_BACK)
			log_warn("replay: the target did not bind the new connection to the back "
				 "channel: it cannot recall delegations");
	} else {
		e->conn_bind_failed++;
		if (ret > 0)
			log_warn("replay: BIND_CONN_TO_SESSION: %s", nfs_stat_name((uint32_t)ret));
		else
			log_warn("replay: BIND_CONN_TO_SESSION: %s", strerror(-ret));
	}
	if (e->o->per_call)
		fprintf(e->out, "  c%u: BIND_CONN_TO_SESSION answered in %.1f us (no client held for it)\n",
			(unsigned)(cl - e->cl) + 1, (double)took_ns / 1e3);
}

/* A new connection carries the fore channel once a SEQUENCE comes on it
 * (SP4_NONE, RFC 8881 2.10.5.1), but callbacks only once it is bound to
 * the back channel: until then the target has no way to recall.  After a
 * reconnect, and when SEQUENCE says the callback path is down (at most
 * once a second: the target may take a while to bring it up).  Sent
 * without waiting (12-13 ms in the lab, every client held, when it
 * waited); no credit free now: tried again after the next poll.  After a
 * reconnect the client's own calls wait for its answer (replay_bind_holds).
 * 0 or -ENOTCONN. */
static int bind_conn(struct engine *e, struct rclient *cl)
{
	/* the connection that came back (its first, if several did) */
	unsigned which = 0;
	uint64_t reconnects = 0;
	for (unsigned k = cl->nx; k-- > 0;) {
		reconnects += cl->x[k]->st.reconnects;
		if (cl->x[k]->st.reconnects)
			which = k;
	}
	if (reconnects != cl->bound_reconnects) {
		cl->bound_reconnects = reconnects;
		cl->bind_wanted = true;
		cl->bind_first = true;
		cl->last_bind_ns = 0;
	}
	if (!cl->bind_wanted)
		return 0;  /* every poll comes here: no clock read unless a bind is due */
	uint64_t now = xprt_now_ns();
	if (cl->last_bind_ns && now - cl->last_bind_ns < 1000000000ull)
		return 0;
	int ret = replay_own_submit(e, cl, cl->x[which], false, nfs41_build_bind_conn, &cl->s, 512, bound,
				    cl->bind_first ? &cl->bind_first : NULL);
	if (ret == -EAGAIN)
		return 0;
	cl->bind_wanted = false;
	cl->last_bind_ns = now;
	if (ret < 0 && ret != -EMSGSIZE && ret != -ENOMEM)
		return -ENOTCONN;
	if (ret < 0) {
		e->conn_bind_failed++;
		cl->bind_first = false;
		log_warn("replay: BIND_CONN_TO_SESSION: %s", strerror(-ret));
	}
	return 0;
}

/* A SEQUENCE on a new connection binds it to the fore channel alone
 * (SP4_NONE), and a bind for the back channel after that is refused
 * (knfsd: NFS4ERR_INVAL, seen when a trace call went first on the
 * connection a poll had just brought back): the bind goes first, so
 * the client's calls wait while a connection is down, back but not
 * yet looked at, or bound but not answered. */
bool replay_bind_holds(const struct rclient *cl)
{
	if (!cl->v4 || !cl->s.back_channel || !cl->s.have_session)
		return false;
	if (cl->bind_first)
		return true;
	uint64_t reconnects = 0;
	for (unsigned k = 0; k < cl->nx; k++) {
		if (cl->x[k]->broken)
			return true;
		reconnects += cl->x[k]->st.reconnects;
	}
	return reconnects != cl->bound_reconnects;
}

/* NFSv4.0: whether cl's wait for the target's callback probe is over
 * (a probe seen and a grace after it, or 5 s without one); then its
 * calls go on, as if released by a reply at that time. */
static void cb_wait_step(struct engine *e, struct rclient *cl)
{
	uint64_t calls = 0, recalls, refused, now = xprt_now_ns();
	nfs40_cbsrv_counts(cl->cbsrv, &calls, &recalls, &refused);
	if (!cl->cb_probed && calls > 0) {
		/* the path is marked up when our reply reaches the target */
		cl->cb_probed = true;
		cl->cb_wait_until = now + CB_PROBE_GRACE_NS;
	}
	if (now < cl->cb_wait_until)
		return;
	cl->cb_wait = false;
	cl->last_done_ns = now;
	uint64_t d = now - cl->cb_wait_since;
	e->cb_waits++;
	e->cb_wait_ns += d;
	if (d > e->cb_wait_max_ns)
		e->cb_wait_max_ns = d;
	if (!cl->cb_probed)
		log_warn("replay: %s did not probe the NFSv4.0 callback path within 5 s of "
			 "SETCLIENTID_CONFIRM: it may grant no delegation", e->o->target);
	if (e->o->per_call)
		fprintf(e->out, "  c%u: waited %.1f us for the target's callback probe%s (its own calls "
			"held, no other client's)\n", (unsigned)(cl - e->cl) + 1, (double)d / 1e3,
			cl->cb_probed ? "" : " (none came)");
}

int replay_callbacks_after_poll(struct engine *e)
{
	int ret = 0;
	if (e->returning)
		return 0;
	e->returning = true;
	for (unsigned k = 0; k < e->t.nclients && ret == 0; k++) {
		struct rclient *cl = &e->cl[k];
		if (!cl->v4)
			continue;
		if (cl->s.back_channel && cl->s.have_session)
			ret = bind_conn(e, cl);
		if (cl->cbsrv) {
			unsigned room = (unsigned)(sizeof(cl->recalls) / sizeof(cl->recalls[0])) - cl->nrecalls;
			cl->nrecalls += nfs40_cbsrv_take(cl->cbsrv, cl->recalls + cl->nrecalls, room);
		}
		if (cl->cb_wait)
			cb_wait_step(e, cl);
		/* the DELEGRETURN goes as that client, on its connection */
		if (ret == 0 && cl->nrecalls)
			ret = return_recalled(e, cl);
	}
	e->returning = false;
	return ret;
}

uint64_t replay_async_wake(const struct engine *e, uint64_t now)
{
	uint64_t wake = UINT64_MAX;
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct rclient *cl = &e->cl[k];
		if (!cl->cb_wait)
			continue;
		/* the probe is seen by the callback server's thread: looked
		 * for every 10 ms; its grace ends at a known time */
		uint64_t at = cl->cb_probed ? cl->cb_wait_until : now + 10000000ull;
		if (at > cl->cb_wait_until)
			at = cl->cb_wait_until;
		if (at < wake)
			wake = at;
	}
	return wake < now ? now : wake;
}

/* --delegations: every NFSv4 client serves the target's callbacks.
 * Returns 0 or a negative errno (said in the log). */
int replay_serve_callbacks(struct engine *e)
{
	int ret;
	for (unsigned k = 0; k < e->t.nclients; k++) {
		struct rclient *cl = &e->cl[k];
		if (!cl->v4)
			continue;
		if (cl->s.minor >= 1) {
			/* serve the back channel on each of its connections: the
			 * target may then grant delegations, and must be able to
			 * recall them */
			cl->cb = (struct nfs41_cb){ .recall = v4_recalled, .ctx = cl };
			for (unsigned j = 0; j < cl->nx; j++) {
				cl->x[j]->bc_call = nfs41_cb_serve;
				cl->x[j]->bc_ctx = &cl->cb;
			}
			cl->s.back_channel = true;
			cl->cbloc.back_channel = true;
			continue;
		}
		/* NFSv4.0: the server calls back on a connection of its own,
		 * to the address SETCLIENTID gives */
		if ((ret = nfs40_cbsrv_start(&cl->cbsrv, e->o->target, cl->s.cb_netid, sizeof(cl->s.cb_netid),
					     cl->s.cb_addr, sizeof(cl->s.cb_addr))) < 0) {
			log_error("replay: --delegations: cannot serve NFSv4.0 callbacks: %s", strerror(-ret));
			return ret;
		}
		cl->cbloc.netid = cl->s.cb_netid;
		cl->cbloc.addr = cl->s.cb_addr;
	}
	return 0;
}

void replay_cb_counts(const struct engine *e, uint64_t *calls, uint64_t *recalls, uint64_t *refused,
		      bool *served, bool *cbsrv)
{
	*calls = *recalls = *refused = 0;
	*served = *cbsrv = false;
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct rclient *cl = &e->cl[k];
		uint64_t c = cl->cb.calls, r = cl->cb.recalls, f = 0;
		if (cl->cbsrv)   /* 4.0: the callback server's thread counted them */
			nfs40_cbsrv_counts(cl->cbsrv, &c, &r, &f);
		*refused += f;
		*calls += c;
		*recalls += r;
		*served |= cl->s.back_channel || cl->cbsrv;
		*cbsrv |= cl->cbsrv != NULL;
	}
}

void replay_callbacks_stop(struct engine *e)
{
	for (unsigned k = e->t.nclients; k-- > 0;) {
		nfs40_cbsrv_stop(e->cl[k].cbsrv);
		e->cl[k].cbsrv = NULL;
	}
}

/* knfsd grants an NFSv4.0 client a delegation only once its probe of the
 * callback path (a CB_NULL to SETCLIENTID's address, sent after the
 * confirm) has been answered: the traced client's OPENs came after that
 * probe.  Without this wait the replay's first OPEN races the probe, and
 * on a loaded host the target answers it with no delegation, unlike the
 * trace.  The wait is the client's alone: its calls are held (the
 * scheduler's order hold) while the others' go on; replay_callbacks_
 * after_poll ends it. */
void replay_v40_wait_cb_probe(struct engine *e)
{
	struct rclient *cl = e->cur;
	if (!cl || !cl->cbsrv || cl->cb_wait)
		return;
	cl->cb_wait = true;
	cl->cb_probed = false;
	cl->cb_wait_since = xprt_now_ns();
	cl->cb_wait_until = cl->cb_wait_since + CB_PROBE_WAIT_NS;
}
