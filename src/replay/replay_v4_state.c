/* NFSv4 state on the target: the replay's own session (4.1+) or client ID
 * (4.0) when the trace has none to replay; what the target's replies name
 * where the trace's named the trace's (handles, stateids, delegations,
 * client and session IDs); NFSv4.0 owner seqids, OPEN_CONFIRM and RENEW. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <string.h>

#include "dissect/nfs_status.h"
#include "src/base/log.h"

/* NFSv4.1: the replay's own session, opened when the trace needs one it
 * did not create (a capture that starts after CREATE_SESSION, or path
 * resolution before the trace's session exists). */
int replay_v4_session(struct engine *e)
{
	char err[256];
	if (e->v4s->have_session)
		return 0;
	uint64_t t = xprt_now_ns();
	int ret = nfs41_session_open(e->x, e->v4s, &e->cred, e->slots, err, sizeof(err));
	replay_blocked(e, BLOCK_SETUP, t);
	if (ret < 0) {
		log_error("replay: cannot open an NFSv4.%u session on %s: %s", e->v4s->minor,
			  e->o->target, err);
		return ret == -EPROTO ? -EPROTO : -ENOTCONN;
	}
	e->v4_sessions++;
	return 0;
}

/* NFSv4.0: the replay's own client ID (SETCLIENTID + CONFIRM), when the
 * trace uses one whose SETCLIENTID is not in the capture. */
int replay_v40_client(struct engine *e)
{
	char err[256];
	if (e->v4s->have_client)
		return 0;
	uint64_t t = xprt_now_ns();
	int ret = nfs40_client_open(e->x, e->v4s, &e->cred, err, sizeof(err));
	replay_blocked(e, BLOCK_SETUP, t);
	if (ret < 0) {
		log_error("replay: cannot set up an NFSv4.0 client ID on %s: %s", e->o->target, err);
		return ret == -EPROTO ? -EPROTO : -ENOTCONN;
	}
	e->v4_sessions++;
	replay_v40_wait_cb_probe(e);
	return 0;
}

static void put_be32(uint8_t *p, uint32_t v) { xenc_put_u32_at(p, v); }

/* The trace's client ID t is the target's g (EXCHANGE_ID, SETCLIENTID). */
static void cid_map(struct engine *e, uint64_t t, uint64_t g)
{
	struct nfs_fh key = replay_cid_key(t), val = replay_cid_key(g);
	fhmap_put(&e->cidmap, &key, NULL, &val, true);
}

/* The target's handle of the file an OPEN (op at) of rr opened: the
 * GETFH after it, else (an OPEN by handle, as a reopen's) the handle the
 * call's PUTFH went with (e->learn_putfh, set by the reply's caller). */
static const struct nfs_fh *opened_fh(const struct engine *e, const struct nfs4_res *rr, uint32_t at)
{
	for (unsigned j = 0; j < rr->nfh; j++)
		if (rr->fh_at[j] > at)
			return &rr->fh[j];
	return e->learn_putfh;
}

/* A delegation the target granted to an OPEN that got none in the trace
 * (its callback path was up sooner, or its file cache had let go of the
 * file's writer): the trace's client never held it, and nothing in the
 * trace gives it back, so the replay does at once (a DELEGRETURN of its
 * own, queued as a recall's is).  Kept, it made the trace's
 * DESTROY_CLIENTID CLIENTID_BUSY and recalls happen that the trace had
 * not. */
static void give_back_unasked(struct engine *e, const struct nfs4_res *rr, const struct nfs4_res *tr)
{
	struct rclient *cl = e->cur;
	for (unsigned k = 0; k < rr->ndeleg; k++) {
		uint32_t at = rr->deleg_at[k];
		bool traced = false;
		for (unsigned j = 0; j < tr->ndeleg && !traced; j++)
			traced = tr->deleg_at[j] == at;
		if (traced || !cl || at >= tr->nres || at >= NFS4_RES_MAXOPS || tr->op[at] != NFS4_OP_OPEN ||
		    tr->opst[at] != 0)
			continue;
		const struct nfs_fh *fh = opened_fh(e, rr, at);
		if (!fh || cl->nrecalls >= sizeof(cl->recalls) / sizeof(cl->recalls[0])) {
			e->recalls_dropped++;
			log_warn("replay: the target granted a delegation the trace's OPEN did not get, "
				 "and the replay cannot give it back (%s)", fh ? "too many at once" : "no handle");
			continue;
		}
		cl->recalls[cl->nrecalls++] = (struct nfs41_cb_recall){ .sid = rr->deleg[k], .fh = *fh };
		e->delegs_unasked++;
	}
}

/* The replay's reply to a COMPOUND names handles, stateids, the client
 * and the session where the trace's reply named the trace's: map them. */
void replay_v4_learn(struct engine *e, const struct nfs4_res *rr, const struct nfs4_res *tr)
{
	for (unsigned k = 0; k < rr->nfh; k++)
		for (unsigned j = 0; tr && j < tr->nfh; j++) {
			if (tr->fh_at[j] != rr->fh_at[k])
				continue;
			fhmap_put(&e->tmap, &tr->fh[j], NULL, &rr->fh[k], true);
			if (e->have_troot && fhmap_fh_eq(&tr->fh[j], &e->troot)) {
				e->root = rr->fh[k];
				e->have_root = true;
			}
		}
	for (unsigned k = 0; k < rr->nsid; k++)
		for (unsigned j = 0; tr && j < tr->nsid; j++) {
			if (tr->sid_at[j] != rr->sid_at[k])
				continue;
			struct nfs_fh key = replay_sid_key(e, e->cur, tr->sid[j].other), val = { .len = 20 };
			memcpy(val.data, rr->sid[k].other, 12);
			put_be32(val.data + 12, tr->sid[j].seqid);
			put_be32(val.data + 16, rr->sid[k].seqid);
			fhmap_put(&e->sidmap, &key, NULL, &val, true);
		}
	/* The trace's delegations: the target's own (mapped like any
	 * stateid), or, when the target granted none (the replay serves no
	 * callbacks), the open stateid of the same OPEN stands for it. */
	struct nfs4_deleg_pair dp[NFS4_RES_MAXSID];
	unsigned ndp = tr ? nfs4_deleg_pairs(tr, rr, dp, NFS4_RES_MAXSID) : 0;
	for (unsigned k = 0; k < ndp; k++) {
		struct nfs_fh key = replay_sid_key(e, e->cur, dp[k].tdeleg.other), val = { .len = 20 };
		if (dp[k].granted) {
			memcpy(val.data, dp[k].g.other, 12);
			put_be32(val.data + 12, dp[k].tdeleg.seqid);
			put_be32(val.data + 16, dp[k].g.seqid);
			fhmap_put(&e->sidmap, &key, NULL, &val, true);
			/* for a recall: which trace delegation this one is */
			struct nfs_fh gkey = { .len = 12 }, gval = { .len = 24 };
			memcpy(gkey.data, dp[k].g.other, 12);
			memcpy(gval.data, dp[k].tdeleg.other, 12);
			memcpy(gval.data + 12, dp[k].topen.other, 12);
			fhmap_put(&e->grantmap, &gkey, NULL, &gval, true);
			e->delegs_granted++;
		} else {
			val.len = 12;
			memcpy(val.data, dp[k].topen.other, 12);
			fhmap_put(&e->delegmap, &key, NULL, &val, true);
			e->delegs_absent++;
		}
	}
	if (tr)
		give_back_unasked(e, rr, tr);
	if (rr->has_clientid && rr->status == 0) {
		e->v4s->have_client = true;
		e->v4s->clientid = rr->clientid;
		e->v4s->cs_seq = rr->eir_seq;
		if (tr && tr->has_clientid) {
			cid_map(e, tr->clientid, rr->clientid);
		}
	}
	if (rr->has_session && rr->status == 0) {
		struct nfs41_session *s = e->v4s;
		nfs41_session_adopt(s, rr, e->slots);
		if (tr && tr->has_session) {
			struct nfs_fh key = { .len = 16 }, val = { .len = 16 };
			memcpy(key.data, tr->sessionid, 16);
			memcpy(val.data, rr->sessionid, 16);
			fhmap_put(&e->sessmap, &key, NULL, &val, true);
		}
	}
	/* NFSv4.0: SETCLIENTID gives the client ID and the confirm verifier;
	 * the client is ours once SETCLIENTID_CONFIRM succeeds */
	if (rr->has_setclientid && rr->status == 0) {
		e->v4s->clientid = rr->sc_clientid;
		memcpy(e->v4s->confirm, rr->sc_confirm, 8);
		if (tr && tr->has_setclientid) {
			cid_map(e, tr->sc_clientid, rr->sc_clientid);
		}
	}
	if (rr->has_lease && rr->lease_time)
		e->v4s->lease_s = rr->lease_time;
	unsigned n = rr->nres < NFS4_RES_MAXOPS ? rr->nres : NFS4_RES_MAXOPS;
	for (unsigned k = 0; k < n; k++) {
		if (rr->opst[k] != 0)
			break;
		if (rr->op[k] == NFS4_OP_DESTROY_SESSION)
			e->v4s->have_session = false;
		if (rr->op[k] == NFS4_OP_DESTROY_CLIENTID)
			e->v4s->have_client = false;
		if (rr->op[k] == NFS4_OP_SETCLIENTID_CONFIRM || rr->op[k] == NFS4_OP_RENEW) {
			bool confirmed_now = rr->op[k] == NFS4_OP_SETCLIENTID_CONFIRM && !e->v4s->have_client;
			e->v4s->have_client = true;
			e->v4s->last_renew_ns = xprt_now_ns();
			if (confirmed_now)
				replay_v40_wait_cb_probe(e);
		}
	}
}

/* The sidmap entry of a trace stateid: the target's now has seqid gseq. */
static void sid_update(struct engine *e, const uint8_t tother[12], const struct nfs4_stateid *g)
{
	struct nfs_fh key = replay_sid_key(e, e->cur, tother);
	struct fhent *m = fhmap_get(&e->sidmap, &key, NULL);
	if (m && memcmp(m->val.data, g->other, 12) == 0)
		put_be32(m->val.data + 16, g->seqid);
}

/* NFSv4.0, after a reply: the owners' seqids advance as RFC 7530 9.1.7
 * says (ops that ran, on success and most errors); the trace's new
 * stateids are bound to their owners; an OPEN the target wants confirmed
 * is remembered (confirmed before the next call, unless that call is the
 * trace's own OPEN_CONFIRM). */
void replay_v40_after(struct engine *e, struct rcall *rc, const struct nfs4_res *rr,
		      const struct nfs4_res *tr)
{
	for (unsigned k = 0; k < rc->nuse; k++) {
		const struct v40use *u = &rc->use[k];
		bool ran = u->idx < rr->nres && u->idx < NFS4_RES_MAXOPS && rr->op[u->idx] == u->op;
		if (ran && nfs40_seqid_advances(rr->opst[u->idx]))
			u->o->seqid = u->seqid + 1;
		else if (ran)
			e->v40_seqid_errors++;
		if (u->op == NFS4_OP_OPEN_CONFIRM && ran)
			e->v40_confirm = false;   /* the trace's own confirmed it */
		if (!u->names_owner || !tr)
			continue;
		for (unsigned j = 0; j < tr->nsid; j++)
			if (tr->sid_at[j] == u->idx)
				nfs40_owner_bind(&e->owners, tr->sid[j].other, u->o);
		if (u->op == NFS4_OP_OPEN && ran && rr->opst[u->idx] == 0 && rr->has_open &&
		    rr->open_at == u->idx && (rr->open_rflags & NFS4_OPEN_RESULT_CONFIRM)) {
			/* the handle: the GETFH after the OPEN */
			bool fh = false, sid = false;
			for (unsigned j = 0; j < rr->nfh && !fh; j++)
				if (rr->fh_at[j] > u->idx) {
					e->v40_conf_fh = rr->fh[j];
					fh = true;
				}
			for (unsigned j = 0; j < rr->nsid && !sid; j++)
				if (rr->sid_at[j] == u->idx) {
					e->v40_conf_sid = rr->sid[j];
					sid = true;
				}
			e->v40_conf_have_tr = false;
			for (unsigned j = 0; tr && j < tr->nsid; j++)
				if (tr->sid_at[j] == u->idx) {
					memcpy(e->v40_conf_tother, tr->sid[j].other, 12);
					e->v40_conf_have_tr = true;
				}
			e->v40_confirm = fh && sid;
			e->v40_conf_owner = u->o;
			if (!fh)
				log_warn("replay: the target asks to confirm an OPEN whose COMPOUND has no GETFH");
		}
	}
}

/* Sends the OPEN_CONFIRM the target asked for and the trace did not have
 * (its client's open-owner was already confirmed there). */
int replay_v40_confirm(struct engine *e)
{
	struct nfs4_res r;
	struct nfs40_owner *o = e->v40_conf_owner;
	e->v40_confirm = false;
	uint64_t t = xprt_now_ns();
	int ret = nfs40_open_confirm(e->x, e->v4s, &e->cred, &e->v40_conf_fh, &e->v40_conf_sid,
				     o->seqid, &r);
	replay_blocked(e, BLOCK_OPEN_CONFIRM, t);
	if (ret < 0)
		return ret == -EPROTO ? 0 : -ENOTCONN;
	e->v40_confirms_added++;
	bool ran = r.nres >= 2 && r.op[1] == NFS4_OP_OPEN_CONFIRM;
	if (ran && nfs40_seqid_advances(r.opst[1]))
		o->seqid++;
	if (r.status) {
		log_warn("replay: OPEN_CONFIRM added for the target: %s", nfs_stat_name(r.status));
		return 0;
	}
	if (r.nsid && e->v40_conf_have_tr)
		sid_update(e, e->v40_conf_tother, &r.sid[0]);
	return 0;
}

/* The open stateids the target's reply says were closed (CLOSE answered
 * OK): a trace delegation standing for one of them can no longer be. */
void replay_v4_note_closes(struct engine *e, const struct tcall *tc, const struct nfs4_res *rr)
{
	struct nfs4_call_info in;
	if (tc->proc != 1 || nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)
		return;
	for (unsigned k = 0; k < in.nclosed; k++) {
		uint32_t at = in.closed_at[k];
		if (at >= rr->nres || at >= NFS4_RES_MAXOPS || rr->op[at] != NFS4_OP_CLOSE || rr->opst[at])
			continue;
		struct nfs_fh key = replay_sid_key(e, e->cur, in.closed[k].other);
		fhmap_put(&e->closedmap, &key, NULL, &key, true);
	}
}

/* The target's answer to a RENEW of the replay's own. */
static void renewed(void *ctx, struct rclient *cl, const struct nfs4_res *r, int err, uint64_t took_ns)
{
	(void)ctx;
	(void)took_ns;
	if (err)
		log_warn("replay: RENEW: %s", strerror(-err));
	else if (r->status)
		log_warn("replay: RENEW: %s", nfs_stat_name(r->status));
	else
		cl->s.last_renew_ns = xprt_now_ns();
}

/* NFSv4.0: a RENEW when half the lease has gone by since the last one
 * (or the client's confirmation): the replay's client ID would otherwise
 * lapse during a long wait (--speed below 1, long gaps in the trace).
 * Sent without waiting, as the current client on its connection; the
 * next is due half a lease after this one whatever it gets (a refused
 * RENEW is said once a lease, not at every poll).  0 or -ENOTCONN. */
int replay_v40_keep_lease(struct engine *e)
{
	struct nfs41_session *s = e->v4s;
	uint32_t lease = s->lease_s ? s->lease_s : 90;   /* knfsd's default */
	if (s->minor != 0 || !s->have_client || !e->cur ||
	    xprt_now_ns() - s->last_renew_ns < (uint64_t)lease * 500000000ull)
		return 0;
	int ret = replay_own_submit(e, e->cur, e->x, false, nfs40_build_renew, s, 512, renewed, NULL);
	if (ret == -EAGAIN)
		return 0;   /* no credit now: at the next poll */
	s->last_renew_ns = xprt_now_ns();
	if (ret == 0)
		e->v40_renews++;
	else if (ret == -EMSGSIZE || ret == -ENOMEM)
		log_warn("replay: RENEW: %s", strerror(-ret));
	else
		return -ENOTCONN;
	return 0;
}
