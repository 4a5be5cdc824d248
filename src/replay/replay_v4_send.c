/* Replaying an NFSv4 call: the captured COMPOUND rewritten with the
 * target's session, slots, client ID, seqids, handles and stateids (the
 * callbacks of nfs4_call_rewrite), then sent. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/clnt/nfs3.h"

/* ---- NFSv4.1+: the rewrite callbacks (nfs4_rewrite.h) ---- */

static int rw_sequence(void *ctx, struct xenc *x, const uint8_t tsid[16], bool cachethis)
{
	struct engine *e = ctx;
	struct nfs_fh key = { .len = 16 };
	memcpy(key.data, tsid, 16);
	struct fhent *m = fhmap_get(&e->sessmap, &key, NULL);
	if (!m || !e->v4s->have_session) {
		/* a session the trace made before the capture began, or
		 * one whose CREATE_SESSION did not replay: ours */
		int ret = replay_v4_session(e);
		if (ret < 0)
			return ret;
		struct nfs_fh val = { .len = 16 };
		memcpy(val.data, e->v4s->sessionid, 16);
		fhmap_put(&e->sessmap, &key, NULL, &val, true);
	}
	uint32_t seq;
	int slot = nfs41_slot_get(e->v4s, &seq);
	if (slot < 0)
		return -EAGAIN;
	e->cur_slot = slot;
	e->cur_seq = seq;
	xenc_fixed(x, e->v4s->sessionid, 16);
	xenc_u32(x, seq);
	xenc_u32(x, (uint32_t)slot);
	xenc_u32(x, nfs41_highest(e->v4s));
	xenc_bool(x, cachethis);
	return 0;
}

/* The last PUTFH's target handle is kept with the call: an OPEN by
 * handle names its file by it (replay_v4_learn). */
static int rw_map_fh(void *ctx, const struct nfs_fh *tfh, struct nfs_fh *out)
{
	struct engine *e = ctx;
	int ret = replay_resolve(e, tfh, out, 0);
	if (ret == 0 && e->cur_rc) {
		e->cur_rc->putfh = *out;
		e->cur_rc->has_putfh = true;
	}
	return ret;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static int rw_map_stateid(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct engine *e = ctx;
	/* special stateids (anonymous, READ bypass, current) go as they are */
	if (all_bytes(t->other, 12, 0) || all_bytes(t->other, 12, 0xff)) {
		*out = *t;
		return 0;
	}
	struct nfs_fh key = replay_sid_key(e, e->cur, t->other);
	/* a delegation the target recalled stands for what an absent one
	 * does (below) */
	struct fhent *m = fhmap_get(&e->recalledmap, &key, NULL) ? NULL : fhmap_get(&e->sidmap, &key, NULL);
	if (!m && (m = fhmap_get(&e->delegmap, &key, NULL))) {
		/* a delegation the target did not grant: the open stateid of
		 * the same OPEN, at its current seqid on the target (OPEN
		 * upgrades and OPEN_DOWNGRADE advance it); 0 stays 0 */
		struct nfs_fh okey = replay_sid_key(e, e->cur, m->val.data);
		if (fhmap_get(&e->closedmap, &okey, NULL)) {
			/* ... unless that open is closed: the trace's client
			 * reopened locally under its delegation and did this
			 * I/O with no open state of its own on the server.  Its
			 * counterpart is the anonymous stateid (RFC 8881
			 * 8.2.3): the target checks access and share
			 * reservations only. */
			memset(out, 0, sizeof(*out));
			e->deleg_anon++;
			return 0;
		}
		if (!(m = fhmap_get(&e->sidmap, &okey, NULL)))
			return -ENOENT;
		memcpy(out->other, m->val.data, 12);
		out->seqid = t->seqid == 0 ? 0 : xenc_get_u32(m->val.data + 16);
		return 0;
	}
	if (!m)
		return e->v4_refused && !e->o->allow_mutations ? -EPERM : -ENOENT;
	memcpy(out->other, m->val.data, 12);
	uint32_t tseq = xenc_get_u32(m->val.data + 12), gseq = xenc_get_u32(m->val.data + 16);
	/* seqid 0: "the current one" (RFC 8881 8.2.2); otherwise the same
	 * distance from the last one seen as in the trace */
	out->seqid = t->seqid == 0 ? 0 : t->seqid - tseq + gseq;
	return 0;
}

int replay_v4_map_stateid(struct engine *e, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	return rw_map_stateid(e, t, out);
}

/* DELEGRETURN's and FREE_STATEID's stateid: one the target knows, never
 * the open stateid standing for a delegation it did not grant. */
static int rw_map_returned(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct engine *e = ctx;
	struct nfs_fh key = replay_sid_key(e, e->cur, t->other);
	if ((fhmap_get(&e->recalledmap, &key, NULL) || !fhmap_get(&e->sidmap, &key, NULL)) &&
	    fhmap_get(&e->delegmap, &key, NULL))
		return -ENODATA;
	return rw_map_stateid(ctx, t, out);
}

/* The delegation an OPEN claims: one the target never granted makes the
 * claim the plain open it stands for (nfs41_clnt_rewrite.c). */
static int rw_map_claimed(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct engine *e = ctx;
	int ret = rw_map_returned(ctx, t, out);
	if (ret == -ENODATA)
		e->deleg_claims++;
	return ret;
}

static int rw_map_clientid(void *ctx, uint64_t t, uint64_t *out)
{
	struct engine *e = ctx;
	struct nfs_fh key = replay_cid_key(t);
	struct fhent *m = fhmap_get(&e->cidmap, &key, NULL);
	if (m) {
		*out = (uint64_t)xenc_get_u32(m->val.data) << 32 | xenc_get_u32(m->val.data + 4);
		return 0;
	}
	if (!e->v4s->have_client) {
		int ret = e->v4s->minor ? replay_v4_session(e) : replay_v40_client(e);
		if (ret < 0)
			return ret;
	}
	*out = e->v4s->clientid;
	return 0;
}

/* NFSv4.0 rewrite callbacks */
static int rw_sc_confirm(void *ctx, uint8_t verf[8])
{
	memcpy(verf, ((struct engine *)ctx)->v4s->confirm, 8);
	return 0;
}

static int rw_map_seqid(void *ctx, const struct nfs4_seqid_ref *ref, uint32_t tseq, uint32_t *out)
{
	struct engine *e = ctx;
	struct nfs40_owner *o;
	if (ref->sid) {
		o = nfs40_owner_of(&e->owners, ref->sid->other);
		if (!o)
			return e->v4_refused && !e->o->allow_mutations ? -EPERM : -ENOENT;
	} else {
		o = nfs40_owner_get(&e->owners, ref->lock, ref->clientid, ref->owner, ref->owner_len);
		if (!o)
			return -ENOMEM;
	}
	if (!o->used) {
		/* a new owner: the server takes the seqid it first sees
		 * (RFC 7530 16.16.5); start where the trace did */
		o->used = true;
		o->seqid = tseq;
	}
	if (e->cur_nuse >= V40_MAXUSE)
		return -E2BIG;
	struct v40use *u = &e->cur_use[e->cur_nuse++];
	u->o = o;
	u->idx = ref->idx;
	u->op = ref->op;
	u->seqid = o->seqid;
	u->names_owner = ref->names_owner;
	*out = o->seqid;
	return 0;
}

static int rw_map_sessionid(void *ctx, const uint8_t t[16], uint8_t out[16])
{
	struct engine *e = ctx;
	struct nfs_fh key = { .len = 16 };
	memcpy(key.data, t, 16);
	struct fhent *m = fhmap_get(&e->sessmap, &key, NULL);
	if (m) {
		memcpy(out, m->val.data, 16);
		return 0;
	}
	if (!e->v4s->have_session)
		return -ENOENT;
	memcpy(out, e->v4s->sessionid, 16);
	return 0;
}

static void rw_exchange_id(void *ctx, uint8_t verf[8], const uint8_t **owner, uint32_t *len)
{
	struct engine *e = ctx;
	memcpy(verf, e->v4s->verifier, 8);
	*owner = (const uint8_t *)e->v4s->owner;
	*len = (uint32_t)strlen(e->v4s->owner);
}

static uint32_t rw_cs_sequence(void *ctx, uint64_t clientid)
{
	(void)clientid;
	return ((struct engine *)ctx)->v4s->cs_seq;
}

/* NFSv4.0: the OPEN_CONFIRM the target asked for and the trace lacks is
 * sent first (the OPEN was a barrier: its reply is in); the trace's own,
 * for an OPEN the target did not ask to confirm, is not sent.  0: the
 * call goes on; 1: done with, not sent; or a negative errno. */
static int v40_confirms(struct engine *e, struct tcall *tc, const struct nfs4_call_info *in, struct opstat *os)
{
	bool has_confirm = false;
	int ret;

	for (unsigned k = 0; k < in->nops && k < NFS4_RES_MAXOPS; k++)
		has_confirm |= in->op[k] == NFS4_OP_OPEN_CONFIRM;
	if (e->v40_confirm && !has_confirm && (ret = replay_v40_confirm(e)) < 0)
		return ret;
	if (!has_confirm || e->v40_confirm)
		return 0;
	if (e->v4_refused && !e->o->allow_mutations) {
		os->dep_refused++;
	} else {
		os->skipped++;
		e->v40_confirms_dropped++;
	}
	if (e->o->per_call)
		fprintf(e->vout, "  xid 0x%08x %s: not sent (no OPEN to confirm on the target)\n",
			tc->xid, tc->name);
	return 1;
}

/* A call its rewrite could not send (ret: why), counted and said. */
static void not_sent(struct engine *e, const struct tcall *tc, const struct nfs4_call_info *in,
		     struct opstat *os, int ret)
{
	if (ret == -ENODATA && !in->other_work) {
		/* DELEGRETURN (FREE_STATEID) of a delegation the target never
		 * granted, with only its context (SEQUENCE, PUTFH, GETATTR):
		 * nothing to give back, not sent.  A 4.1 slot taken for it is
		 * left as it was (seqid not used). */
		os->no_deleg++;
		if (e->o->per_call)
			fprintf(e->vout, "  xid 0x%08x %s: not sent (gives back a delegation the "
				"target never granted)\n", tc->xid, tc->name);
		return;
	}
	if (ret == -EPERM)
		os->dep_refused++;
	else
		os->skipped++;
	e->unmapped++;
	if (e->o->per_call)
		fprintf(e->vout, "  xid 0x%08x %s: not sent (%s)\n", tc->xid, tc->name,
			ret == -EPERM ? "its state comes from a refused call" :
			ret == -ENOENT ? "a handle or stateid with no counterpart on the target" :
			ret == -ENODATA ? "gives back a delegation the target never granted, "
					  "with other work in the COMPOUND" :
			strerror(-ret));
}

/* The rewritten call's request: its session slot, the NFSv4.0 seqids it
 * uses, its DDP data (the trace's, else a pattern), its Write chunk and
 * reply size.  0 or -ENOMEM (the slot given back). */
static int fill_request(struct engine *e, struct rcall *rc, const struct tcall *tc,
			const struct nfs4_call_info *in, uint8_t *buf, size_t len, size_t ddp_out)
{
	rc->slot = e->cur_slot;
	rc->seq = e->cur_seq;
	e->cur_slot = -1;
	rc->nuse = 0;
	if (e->cur_nuse) {
		struct v40use *u = realloc(rc->use, e->cur_nuse * sizeof(*u));
		if (!u)
			return -ENOMEM;
		memcpy(u, e->cur_use, e->cur_nuse * sizeof(*u));
		rc->use = u;
		rc->nuse = e->cur_nuse;
	}
	rc->req.msg = buf;
	rc->req.len = len;
	if (in->has_ddp) {
		rc->data = malloc(in->ddp_len ? in->ddp_len : 1);
		if (!rc->data) {
			nfs41_slot_put(e->v4s, rc->slot, rc->seq, false, false);
			return -ENOMEM;
		}
		if (in->ddp_inline && (uint64_t)in->ddp_at + in->ddp_len <= tc->args_len)
			memcpy(rc->data, tc->args + in->ddp_at, in->ddp_len);
		else if (tc->ddp && tc->ddp_got >= in->ddp_len && tc->ddp_len >= in->ddp_len)
			memcpy(rc->data, tc->ddp, in->ddp_len);
		else
			memset(rc->data, 0x5a, in->ddp_len);
		rc->req.has_ddp = true;
		rc->req.ddp = rc->data;
		rc->req.ddp_len = in->ddp_len;
		rc->req.ddp_at = (uint32_t)ddp_out;
	}
	unsigned nreads = 0, n = in->nops < NFS4_RES_MAXOPS ? in->nops : NFS4_RES_MAXOPS;
	for (unsigned k = 0; k < n; k++)
		nreads += in->op[k] == NFS4_OP_READ;
	if (nreads == 1)
		rc->req.wchunk = in->read_count;   /* RFC 8267: READ data in a Write chunk */
	uint32_t rmax = 512 + 256 * n + in->readdir_max + (nreads > 1 ? in->read_count : 0);
	if (tc->has_reply_chunk && rmax < 8192)
		rmax = 8192;                       /* as the capture's client did */
	rc->req.reply_max = rmax;
	return 0;
}

/* An NFSv4 call (NULL, or a 4.1+ COMPOUND rewritten for the target). */
int replay_one_v4(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0,
			 struct opstat *os)
{
	struct tcall *tc = &e->t.calls[i];
	const struct replay_opts *o = e->o;
	struct nfs4_call_info in;
	int ret;

	memset(&in, 0, sizeof(in));
	if (tc->proc == 1 && (!tc->v4known || tc->v4minor != e->v4s->minor ||
			      nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)) {
		/* COMPOUNDs with ops we cannot walk, and those of another
		 * minor version than the trace's first (one client state) */
		os->unsupported++;
		return 0;
	}
	if (tc->proc > 1) {
		os->unsupported++;
		return 0;
	}
	if (in.mutates && !o->allow_mutations) {
		os->refused++;
		e->v4_refused = true;
		/* what it would have named has no counterpart on the target */
		if (e->ti[i].has_child)
			fhmap_put(&e->refused, &e->ti[i].child, NULL, &e->ti[i].child, false);
		return 0;
	}
	bool barrier = in.state_change || in.ns_change;
	if (barrier || e->cur->barrier_pending) {   /* as in replay_run.c */
		if ((ret = replay_wait_client(e)) < 0)
			return ret;
		e->cur->barrier_pending = false;
	}
	if ((ret = replay_pace(e, tc, t0_trace, t0)) < 0)
		return ret;
	if (e->v4s->minor == 0 && tc->proc == 1 && (ret = v40_confirms(e, tc, &in, os)) != 0)
		return ret < 0 ? ret : 0;
	struct rcall *rc;
	if ((ret = replay_wait_rcall(e, tc, &rc)) < 0)
		return ret;

	size_t cap = 1024 + tc->args_len + (size_t)(in.nops + 1) * NFS4_FHSIZE_MAX;
	uint8_t *buf = replay_rcall_buf(rc, cap);
	if (!buf)
		return -ENOMEM;
	memset(&rc->req, 0, sizeof(rc->req));
	rc->slot = -1;
	struct rpc_cred cred;
	if (tc->flavor == 1)
		rpc_cred_sys(&cred, tc->uid, tc->gid);
	else
		memset(&cred, 0, sizeof(cred));
	const struct nfs4_rewrite_ops ops = {
		.ctx = e, .sequence = rw_sequence, .map_fh = rw_map_fh,
		.map_stateid = rw_map_stateid, .map_clientid = rw_map_clientid,
		.map_sessionid = rw_map_sessionid, .exchange_id = rw_exchange_id,
		.cs_sequence = rw_cs_sequence, .map_returned = rw_map_returned,
		.map_claimed = rw_map_claimed, .cb = e->cur->cbloc.back_channel || e->cur->cbloc.netid ? &e->cur->cbloc : NULL,
		.root = e->have_v4_root ? &e->v4_root : NULL,
	};
	const struct nfs40_rewrite_ops v40 = { .sc_confirm = rw_sc_confirm, .map_seqid = rw_map_seqid };
	struct xenc x;
	size_t ddp_out = 0;
	rc->has_putfh = false;
	e->cur_rc = rc;
	for (int attempt = 0;; attempt++) {
		xenc_init(&x, buf, cap);
		xenc_rpc_call(&x, 0, PROG_NFS, 4, tc->proc, &cred);
		e->cur_slot = -1;
		e->cur_nuse = 0;
		ret = tc->proc == 0 ? 0 : nfs4_call_rewrite_v40(tc->args, tc->args_len, tc->rpos, &ops,
							     e->v4s->minor == 0 ? &v40 : NULL, &x, &ddp_out);
		if (ret == 0 && xenc_ok(&x))
			break;
		if (e->cur_slot >= 0)
			e->v4s->slot_busy[e->cur_slot] = false;
		if (ret == -EAGAIN && e->cur->inflight) {
			/* no free session slot: its client's replies free one */
			os->trace--;
			return REPLAY_RETRY;
		}
		if (ret == -EAGAIN) {          /* no free session slot yet */
			if ((ret = replay_poll(e, 100)) < 0)
				return ret;
			continue;
		}
		if (ret == -ENOENT && attempt == 0 && e->cur->inflight && !e->ti[i].retried) {
			/* what names it may be its client's call in flight */
			os->trace--;
			return REPLAY_RETRY;
		}
		if (ret == -ENOENT && attempt == 0 && replay_inflight_all(e)) {
			/* what names it may still be in flight: every client waits */
			uint64_t t = xprt_now_ns();
			ret = replay_wait_all(e);
			replay_blocked(e, BLOCK_PATH, t);
			if (ret < 0)
				return ret;
			continue;
		}
		if (ret == -ENOTCONN || ret == -ETIMEDOUT || ret == -EPIPE)
			return -ENOTCONN;
		not_sent(e, tc, &in, os, ret);
		return 0;
	}
	e->cur_rc = NULL;
	if ((ret = fill_request(e, rc, tc, &in, buf, x.len, ddp_out)) < 0)
		return ret;
	rc->has_tdir = false;
	if ((ret = replay_submit(e, rc, i)) < 0) {
		nfs41_slot_put(e->v4s, rc->slot, rc->seq, false, ret != -EMSGSIZE);
		return replay_submit_failed(rc, os, ret);
	}
	return replay_submitted(e, rc, os, barrier);
}
