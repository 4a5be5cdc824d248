/* --delegations: the callbacks the replay serves, giving back what the
 * target recalls, and binding a new connection to the session's back
 * channel. */
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
	struct engine *e = ctx;
	if (e->nrecalls >= sizeof(e->recalls) / sizeof(e->recalls[0])) {
		e->recalls_dropped++;
		log_warn("replay: more recalls at once than queued; one is not given back");
		return;
	}
	e->recalls[e->nrecalls++] = *r;
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
int replay_return_recalled(struct engine *e)
{
	int ret = 0;
	if (e->returning)
		return 0;
	e->returning = true;
	while (e->nrecalls && ret == 0) {
		struct nfs41_cb_recall r = e->recalls[0];
		memmove(e->recalls, e->recalls + 1, --e->nrecalls * sizeof(r));
		struct nfs4_res res;
		memset(&res, 0, sizeof(res));
		while ((ret = nfs41_call_sync(e->x, e->v4s, &e->cred, b_delegreturn, &r, 1024, &res)) == -EAGAIN)
			if ((ret = xprt_poll(e->x, 100)) < 0)
				break;
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
	e->returning = false;
	return ret;
}

/* A new connection carries the fore channel once a SEQUENCE comes on it
 * (SP4_NONE, RFC 8881 2.10.5.1), but callbacks only once it is bound to
 * the back channel: until then the target has no way to recall.  After a
 * reconnect, and when SEQUENCE says the callback path is down (at most
 * once a second: the target may take a while to bring it up). */
void replay_bind_conn(struct engine *e)
{
	if (e->x->st.reconnects != e->bound_reconnects) {
		e->bound_reconnects = e->x->st.reconnects;
		e->bind_wanted = true;
		e->last_bind_ns = 0;
	}
	if (!e->bind_wanted)
		return;  /* every poll comes here: no clock read unless a bind is due */
	uint64_t now = xprt_now_ns();
	if (e->last_bind_ns && now - e->last_bind_ns < 1000000000ull)
		return;
	e->bind_wanted = false;
	e->last_bind_ns = now;
	uint32_t dir = 0;
	int ret = nfs41_bind_conn(e->x, e->v4s, &e->cred, &dir);
	if (ret == 0) {
		e->conn_bound++;
		e->bind_dir = dir;
		log_info("nfs4.%u: connection bound to the session (%s)", e->v4s->minor,
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

/* --delegations: serve the target's callbacks.  Returns 0 or a negative
 * errno (said in the log). */
int replay_serve_callbacks(struct engine *e)
{
	int ret;
	if (e->v4s->minor >= 1) {
		/* serve the back channel: the target may then grant
		 * delegations, and must be able to recall them */
		e->cb = (struct nfs41_cb){ .recall = v4_recalled, .ctx = e };
		e->x->bc_call = nfs41_cb_serve;
		e->x->bc_ctx = &e->cb;
		e->v4s->back_channel = true;
		e->cbloc.back_channel = true;
		return 0;
	}
	/* NFSv4.0: the server calls back on a connection of its own,
	 * to the address SETCLIENTID gives */
	if ((ret = nfs40_cbsrv_start(&e->cbsrv, e->o->target, e->v4s->cb_netid, sizeof(e->v4s->cb_netid),
				     e->v4s->cb_addr, sizeof(e->v4s->cb_addr))) < 0) {
		log_error("replay: --delegations: cannot serve NFSv4.0 callbacks: %s", strerror(-ret));
		return ret;
	}
	e->cbloc.netid = e->v4s->cb_netid;
	e->cbloc.addr = e->v4s->cb_addr;
	return 0;
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
	uint64_t calls = 0, recalls, refused, deadline = xprt_now_ns() + 5000000000ull;

	if (!e->cbsrv)
		return;
	for (;;) {
		nfs40_cbsrv_counts(e->cbsrv, &calls, &recalls, &refused);
		if (calls > 0 || xprt_now_ns() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	if (!calls) {
		log_warn("replay: %s did not probe the NFSv4.0 callback path within 5 s of "
			 "SETCLIENTID_CONFIRM: it may grant no delegation", e->o->target);
		return;
	}
	nanosleep(&grace, NULL);
}
