/* --delegations: the callbacks each NFSv4 replay client serves (4.1+:
 * on its session's back channel, on every connection of its; 4.0: a
 * callback server of its own), giving back what the target recalls, and
 * binding a client's new connection to its session's back channel. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "dissect/nfs_status.h"
#include "src/base/log.h"

/* A CB_RECALL came in (called inside the transport's poll: it only
 * queues; replay_return_recalled sends the DELEGRETURN). */
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

/* Gives back what the target recalled (DELEGRETURN: a call of the
 * replay's own, not in the trace), and from then on lets the trace's
 * delegation stand for what one the target never granted does. */
static int return_recalled(struct engine *e, struct rclient *cl)
{
	int ret = 0;
	while (cl->nrecalls && ret == 0) {
		struct nfs41_cb_recall r = cl->recalls[0];
		memmove(cl->recalls, cl->recalls + 1, --cl->nrecalls * sizeof(r));
		struct nfs4_res res;
		memset(&res, 0, sizeof(res));
		uint64_t t = xprt_now_ns();
		while ((ret = nfs41_call_sync(e->x, e->v4s, &e->cred, b_delegreturn, &r, 1024, &res)) == -EAGAIN)
			if ((ret = xprt_poll(e->x, 100)) < 0)
				break;
		replay_blocked(e, BLOCK_DELEGRETURN, t);
		if (ret < 0) {
			e->deleg_return_failed++;
			log_warn("replay: DELEGRETURN of a recalled delegation: %s", strerror(-ret));
			ret = ret == -EPROTO ? 0 : -ENOTCONN;
		} else if (res.status) {
			e->deleg_return_failed++;
			log_warn("replay: DELEGRETURN of a recalled delegation: %s", nfs_stat_name(res.status));
		} else {
			e->deleg_returned++;
		}
		struct nfs_fh gkey = { .len = 12 };
		memcpy(gkey.data, r.sid.other, 12);
		struct fhent *g = fhmap_get(&e->grantmap, &gkey, NULL);
		if (g) {
			struct nfs_fh tk = { .len = 12 }, tv = { .len = 12 };
			memcpy(tk.data, g->val.data, 12);
			memcpy(tv.data, g->val.data + 12, 12);
			fhmap_put(&e->recalledmap, &tk, NULL, &tk, true);
			fhmap_put(&e->delegmap, &tk, NULL, &tv, true);
		}
	}
	return ret;
}

/* A new connection carries the fore channel once a SEQUENCE comes on it
 * (SP4_NONE, RFC 8881 2.10.5.1), but callbacks only once it is bound to
 * the back channel: until then the target has no way to recall.  After a
 * reconnect, and when SEQUENCE says the callback path is down (at most
 * once a second: the target may take a while to bring it up). */
static void bind_conn(struct engine *e, struct rclient *cl)
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
		cl->last_bind_ns = 0;
	}
	if (!cl->bind_wanted)
		return;  /* every poll comes here: no clock read unless a bind is due */
	uint64_t now = xprt_now_ns();
	if (cl->last_bind_ns && now - cl->last_bind_ns < 1000000000ull)
		return;
	cl->bind_wanted = false;
	cl->last_bind_ns = now;
	uint32_t dir = 0;
	int ret = nfs41_bind_conn(cl->x[which], &cl->s, &e->cred, &dir);
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
}

int replay_callbacks_after_poll(struct engine *e)
{
	int ret = 0;
	if (e->returning)
		return 0;
	e->returning = true;
	struct rclient *saved_cur = e->cur;
	struct nfs41_session *saved_s = e->v4s;
	struct xprt *saved_x = e->x;
	for (unsigned k = 0; k < e->t.nclients && ret == 0; k++) {
		struct rclient *cl = &e->cl[k];
		if (!cl->v4)
			continue;
		if (cl->s.back_channel && cl->s.have_session)
			bind_conn(e, cl);
		if (cl->cbsrv) {
			unsigned room = (unsigned)(sizeof(cl->recalls) / sizeof(cl->recalls[0])) - cl->nrecalls;
			cl->nrecalls += nfs40_cbsrv_take(cl->cbsrv, cl->recalls + cl->nrecalls, room);
		}
		if (!cl->nrecalls)
			continue;
		/* the DELEGRETURN goes as that client, on its connection */
		e->cur = cl;
		e->v4s = &cl->s;
		e->x = cl->x[0];
		ret = return_recalled(e, cl);
	}
	e->cur = saved_cur;
	e->v4s = saved_s;
	e->x = saved_x;
	e->returning = false;
	return ret;
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
 * probe. Without this wait the replay's first OPEN races the probe, and
 * on a loaded host the target answers it with no delegation, unlike the
 * trace. The path is marked up when our reply reaches the target: a
 * short grace after the probe covers that. */
void replay_v40_wait_cb_probe(struct engine *e)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 }, grace = { 0, 200 * 1000 * 1000 };
	uint64_t calls = 0, recalls, refused, t = xprt_now_ns(), deadline = t + 5000000000ull;

	struct nfs40_cbsrv *srv = e->cur ? e->cur->cbsrv : NULL;
	if (!srv)
		return;
	for (;;) {
		nfs40_cbsrv_counts(srv, &calls, &recalls, &refused);
		if (calls > 0 || xprt_now_ns() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	if (!calls) {
		log_warn("replay: %s did not probe the NFSv4.0 callback path within 5 s of "
			 "SETCLIENTID_CONFIRM: it may grant no delegation", e->o->target);
		replay_blocked(e, BLOCK_CB_PROBE, t);
		return;
	}
	nanosleep(&grace, NULL);
	replay_blocked(e, BLOCK_CB_PROBE, t);
}
