/* Re-issuing a captured NFSv4 COMPOUND against another server: the
 * arguments are walked op by op (bounded: the capture is hostile input)
 * and copied, with the trace's identities replaced by the target's:
 * SEQUENCE (session, slot, seqid: the replay's own), PUTFH handles,
 * stateids, client IDs, session IDs, EXCHANGE_ID's owner and verifier,
 * CREATE_SESSION's sequence and flags; for NFSv4.0 also SETCLIENTID's
 * client and callback, SETCLIENTID_CONFIRM's verifier, and the open- and
 * lock-owner seqids of OPEN, OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE, LOCK and
 * LOCKU.  The DDP-eligible argument (WRITE data, CREATE(NF4LNK) link
 * data) is located so the transport can send it in a Read chunk.  See
 * nfs4_rewrite.h. */
#include "src/clnt/nfs4_rewrite.h"

#include <errno.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_xdr_skip.h"

#define BIG (1u << 20)

/* The walk: c reads the trace's arguments; when out is set, everything
 * read is copied to it, except the fields replaced through ops. */
struct walk {
	struct cursor c;
	const uint8_t *base;
	size_t pos;                      /* args copied to out up to here */
	struct xenc *out;
	const struct nfs4_rewrite_ops *ops;
	const struct nfs40_rewrite_ops *v40;   /* NULL: seqids copied */
	struct nfs4_call_info *info;
	uint32_t rpos;                   /* trace Read chunk position (args-relative), 0 none */
	size_t ddp_out;
	bool returning;                  /* the stateid is given back (DELEGRETURN, FREE_STATEID) */
	int err;
};

/* Copies the args up to the cursor's position (or to at) into out. */
static void flush_to(struct walk *w, size_t at)
{
	if (!w->out || at <= w->pos)
		return;
	uint8_t *p = xenc_reserve(w->out, at - w->pos);
	if (p)
		memcpy(p, w->base + w->pos, at - w->pos);
	w->pos = at;
}

static void fail(struct walk *w, int err)
{
	if (!w->err)
		w->err = err;
	cur_fail(&w->c, CUR_INVALID, "rewrite");
}

/* The client's verifier + owner string (EXCHANGE_ID co_ownerid, SETCLIENTID
 * nfs_client_id4): replaced by the replay's own, so the replay never takes
 * over the traced client's state on the target. */
static void own_client_owner(struct walk *w, const char *what)
{
	struct cursor *c = &w->c;
	size_t at = c->off;

	cur_skip(c, 8, "verifier");
	cur_xdr_opaque(c, 1024, NULL, what);
	if (cur_ok(c) && w->out) {
		uint8_t verf[8];
		const uint8_t *owner;
		uint32_t olen;
		w->ops->exchange_id(w->ops->ctx, verf, &owner, &olen);
		flush_to(w, at);
		xenc_fixed(w->out, verf, 8);
		xenc_opaque(w->out, owner, olen);
		w->pos = c->off;
	}
}

static void component(struct walk *w)
{
	cur_xdr_opaque(&w->c, 4096, NULL, "component4");
}

static void stateid(struct walk *w)
{
	size_t at = w->c.off;
	struct nfs4_stateid t, m;
	t.seqid = cur_be32(&w->c, "stateid seqid");
	const uint8_t *p = cur_bytes(&w->c, 12, "stateid other");
	if (!p || !w->out)
		return;
	memcpy(t.other, p, 12);
	int ret = w->returning && w->ops->map_returned ? w->ops->map_returned(w->ops->ctx, &t, &m)
						       : w->ops->map_stateid(w->ops->ctx, &t, &m);
	if (ret < 0) {
		fail(w, ret);
		return;
	}
	flush_to(w, at);
	xenc_u32(w->out, m.seqid);
	xenc_fixed(w->out, m.other, 12);
	w->pos = w->c.off;
}

static void clientid(struct walk *w)
{
	size_t at = w->c.off;
	uint64_t t = cur_be64(&w->c, "clientid"), m;
	if (!cur_ok(&w->c) || !w->out)
		return;
	int ret = w->ops->map_clientid(w->ops->ctx, t, &m);
	if (ret < 0) {
		fail(w, ret);
		return;
	}
	flush_to(w, at);
	xenc_u64(w->out, m);
	w->pos = w->c.off;
}

static void sessionid(struct walk *w)
{
	size_t at = w->c.off;
	const uint8_t *p = cur_bytes(&w->c, 16, "sessionid");
	if (!p || !w->out)
		return;
	uint8_t m[16];
	int ret = w->ops->map_sessionid(w->ops->ctx, p, m);
	if (ret < 0) {
		fail(w, ret);
		return;
	}
	flush_to(w, at);
	xenc_fixed(w->out, m, 16);
	w->pos = w->c.off;
}

static void lock_owner(struct walk *w)
{
	clientid(w);
	cur_xdr_opaque(&w->c, 1024, NULL, "owner");
}

/* A trace stateid ahead of the cursor (at off), without consuming it. */
static void peek_stateid(const struct walk *w, size_t off, struct nfs4_stateid *sid)
{
	struct cursor c = w->c;
	memset(sid, 0, sizeof(*sid));
	if (off < c.off)
		return;
	cur_skip(&c, off - c.off, "peek");
	sid->seqid = cur_be32(&c, "stateid seqid");
	const uint8_t *p = cur_bytes(&c, 12, "stateid other");
	if (p)
		memcpy(sid->other, p, 12);
}

/* An owner (clientid + opaque) ahead of the cursor (at off). */
static void peek_owner(const struct walk *w, size_t off, struct nfs4_seqid_ref *ref)
{
	struct cursor c = w->c;
	if (off < c.off)
		return;
	cur_skip(&c, off - c.off, "peek");
	ref->clientid = cur_be64(&c, "owner clientid");
	ref->owner = cur_xdr_opaque(&c, 1024, &ref->owner_len, "owner");
	if (!ref->owner)
		ref->owner_len = 0;
}

/* The delegation stateid of an OPEN claim (claim word at claim_at).  A
 * delegation the target never granted: the claim becomes 'plain'
 * (CLAIM_NULL for CLAIM_DELEGATE_CUR, whose component follows;
 * CLAIM_FH for CLAIM_DELEG_CUR_FH) and the stateid is left out. */
static void deleg_claim(struct walk *w, size_t claim_at, uint32_t plain)
{
	struct nfs4_stateid t, m;

	if (!w->out || !w->ops->map_claimed || !cur_ok(&w->c) || claim_at < w->pos) {
		stateid(w);
		return;
	}
	peek_stateid(w, w->c.off, &t);
	cur_skip(&w->c, 16, "delegate_stateid");
	if (!cur_ok(&w->c))
		return;
	int ret = w->ops->map_claimed(w->ops->ctx, &t, &m);
	if (ret == -ENODATA) {
		flush_to(w, claim_at);
		xenc_u32(w->out, plain);
		w->pos = w->c.off;
		return;
	}
	if (ret < 0) {
		fail(w, ret);
		return;
	}
	flush_to(w, claim_at + 4);
	xenc_u32(w->out, m.seqid);
	xenc_fixed(w->out, m.other, 12);
	w->pos = w->c.off;
}

/* The NFSv4.0 open- or lock-owner seqid read at 'at' (tseq): the replay's
 * own replaces it.  Needs nothing flushed past 'at' yet. */
static void owner_seqid(struct walk *w, size_t at, uint32_t tseq, const struct nfs4_seqid_ref *ref)
{
	if (!w->out || !w->v40 || !w->v40->map_seqid || !cur_ok(&w->c) || at < w->pos)
		return;
	uint32_t m;
	int ret = w->v40->map_seqid(w->ops->ctx, ref, tseq, &m);
	if (ret < 0) {
		fail(w, ret);
		return;
	}
	flush_to(w, at);
	xenc_u32(w->out, m);
	w->pos = at + 4;
}

/* A DDP-eligible opaque (WRITE data, link data): the length word stays
 * inline; the bytes are in the args (inline in the capture) or were in
 * the trace's Read chunk (absent here). */
static void ddp_opaque(struct walk *w, uint32_t opidx)
{
	uint32_t n = cur_be32(&w->c, "ddp length");
	if (!cur_ok(&w->c))
		return;
	size_t after_len = w->c.off;
	bool in_chunk = w->rpos && w->rpos == after_len;
	struct nfs4_call_info *in = w->info;
	bool first = !in->has_ddp;
	if (!first && in_chunk) {
		fail(w, -EBADMSG);      /* a second Read chunk: not supported */
		return;
	}
	/* recorded only once the bytes are there: a truncated opaque must
	 * not leave an inline DDP claim beyond the args */
	if (!in_chunk && !cur_skip(&w->c, ((size_t)n + 3) & ~(size_t)3, "ddp data"))
		return;
	if (first) {
		in->has_ddp = true;
		in->ddp_op = opidx;
		in->ddp_at = (uint32_t)after_len;
		in->ddp_len = n;
		in->ddp_inline = !in_chunk;
	}
	if (w->out && first) {
		/* the bytes are the caller's: skip them in the copy */
		flush_to(w, after_len);
		w->ddp_out = w->out->len;
		w->pos = w->c.off;
	}
}

static void netloc(struct walk *w)
{
	uint32_t t = cur_be32(&w->c, "netloc_type4");
	if (t == 1 || t == 2) {
		cur_xdr_opaque(&w->c, 1024, NULL, "netloc name/url");
	} else if (t == 3) {
		cur_xdr_opaque(&w->c, 1024, NULL, "netid");
		cur_xdr_opaque(&w->c, 1024, NULL, "addr");
	} else {
		fail(w, -EBADMSG);
	}
}

static void channel_attrs(struct walk *w)
{
	cur_skip(&w->c, 24, "channel_attrs4");
	uint32_t n = cur_be32(&w->c, "rdma_ird");
	if (n > 1)
		fail(w, -EBADMSG);
	else
		cur_skip(&w->c, 4 * (size_t)n, "rdma_ird");
}

static void sec_parms(struct walk *w)
{
	uint32_t n = cur_be32(&w->c, "callback_sec_parms4 count");
	if (n > 16) {
		fail(w, -EBADMSG);
		return;
	}
	for (uint32_t i = 0; i < n && cur_ok(&w->c); i++) {
		uint32_t fl = cur_be32(&w->c, "cb_secflavor");
		if (fl == 1) {
			cur_skip(&w->c, 4, "stamp");
			cur_xdr_opaque(&w->c, 255, NULL, "machinename");
			cur_skip(&w->c, 8, "uid gid");
			uint32_t g = cur_be32(&w->c, "gids");
			if (g > 16)
				fail(w, -EBADMSG);
			else
				cur_skip(&w->c, 4 * (size_t)g, "gids");
		} else if (fl == 6) {
			cur_skip(&w->c, 4, "gcbp_service");
			cur_xdr_opaque(&w->c, 1024, NULL, "handle_from_server");
			cur_xdr_opaque(&w->c, 1024, NULL, "handle_from_client");
		} else if (fl != 0) {
			fail(w, -EBADMSG);
		}
	}
}

static void set_main(struct nfs4_call_info *in, uint32_t op)
{
	switch (op) {
	case NFS4_OP_SEQUENCE: case NFS4_OP_PUTFH: case NFS4_OP_PUTROOTFH: case NFS4_OP_PUTPUBFH:
	case NFS4_OP_GETFH: case NFS4_OP_GETATTR: case NFS4_OP_SAVEFH: case NFS4_OP_RESTOREFH:
		return;
	case NFS4_OP_DELEGRETURN: case NFS4_OP_FREE_STATEID:
		break;
	default:
		in->other_work = true;
	}
	if (!in->main_op) {
		in->main_op = nfs4_op_name(op);
		in->main_opnum = op;
	}
}

/* A seqid4 whose owner is the one a stateid4 next to it names: seqid
 * first (CLOSE, LOCKU, LOCK's open_seqid) or stateid first (OPEN_CONFIRM,
 * OPEN_DOWNGRADE, LOCK with an existing lock-owner). */
static void seqid_by_stateid(struct walk *w, uint32_t op, uint32_t idx, bool lock, bool sid_first,
			     const char *what)
{
	struct cursor *c = &w->c;
	struct nfs4_stateid sid;
	size_t at;
	uint32_t ts;

	if (sid_first) {
		peek_stateid(w, c->off, &sid);
		stateid(w);
	}
	at = c->off;
	ts = cur_be32(c, what);
	if (!sid_first)
		peek_stateid(w, c->off, &sid);
	struct nfs4_seqid_ref ref = { .idx = idx, .op = op, .lock = lock, .sid = &sid };
	owner_seqid(w, at, ts, &ref);
	if (!sid_first)
		stateid(w);
}

/* One op's arguments.  Returns false for an op we cannot walk. */
static bool op_args(struct walk *w, uint32_t op, uint32_t idx)
{
	struct nfs4_call_info *in = w->info;
	struct cursor *c = &w->c;

	switch (op) {
	case NFS4_OP_ACCESS: cur_skip(c, 4, "access"); break;
	case NFS4_OP_CLOSE: {
		if (in->nclosed < NFS4_DELEGRET_MAX) {
			peek_stateid(w, c->off + 4, &in->closed[in->nclosed]);
			in->closed_at[in->nclosed++] = idx;
		}
		seqid_by_stateid(w, op, idx, false, false, "seqid");
		in->state_change = true;
		break;
	}
	case NFS4_OP_COMMIT: cur_skip(c, 12, "offset count"); in->mutates = true; break;
	case NFS4_OP_CREATE: {
		uint32_t type = cur_be32(c, "createtype4");
		if (type == 5)
			ddp_opaque(w, idx);
		else if (type == 3 || type == 4)
			cur_skip(c, 8, "specdata4");
		component(w);
		nfs4_skip_fattr4(&w->c);
		in->mutates = in->ns_change = true;
		break;
	}
	case NFS4_OP_DELEGPURGE: clientid(w); in->state_change = true; break;
	case NFS4_OP_DELEGRETURN: case NFS4_OP_FREE_STATEID: {
		/* a delegation given back: the replay's client may never
		 * have been granted it (it serves no callbacks) */
		struct nfs4_stateid sid;
		peek_stateid(w, c->off, &sid);
		if (in->nreturned < NFS4_DELEGRET_MAX)
			in->returned[in->nreturned++] = sid;
		else
			in->other_work = true;   /* more than we keep: not a plain return */
		w->returning = true;
		stateid(w);
		w->returning = false;
		in->state_change = true;
		break;
	}
	case NFS4_OP_OFFLOAD_CANCEL: case NFS4_OP_OFFLOAD_STATUS:
		stateid(w);
		in->state_change = true;
		break;
	case NFS4_OP_GETATTR: nfs4_skip_bitmap4(&w->c, NULL, NULL); break;
	case NFS4_OP_PUTROOTFH:
		if (w->out && w->ops->root) {
			/* the replay's root is elsewhere (a --clients group's
			 * directory): PUTFH of it in place of the opnum */
			flush_to(w, c->off - 4);
			xenc_u32(w->out, NFS4_OP_PUTFH);
			xenc_fh(w->out, w->ops->root);
			w->pos = c->off;
		}
		break;
	case NFS4_OP_GETFH: case NFS4_OP_LOOKUPP: case NFS4_OP_PUTPUBFH:
	case NFS4_OP_READLINK: case NFS4_OP_RESTOREFH: case NFS4_OP_SAVEFH:
		break;
	case NFS4_OP_LINK: case NFS4_OP_REMOVE:
		component(w);
		in->mutates = in->ns_change = true;
		break;
	case NFS4_OP_LOOKUP: case NFS4_OP_SECINFO: component(w); break;
	case NFS4_OP_LOCK: {
		cur_skip(c, 4 + 4 + 8 + 8, "locktype reclaim offset length");
		uint32_t nlo = cur_be32(c, "new_lock_owner");
		if (nlo == 1) {
			/* open_seqid (the open-owner's, named by the open stateid),
			 * then lock_seqid (the new lock-owner's) */
			seqid_by_stateid(w, op, idx, false, false, "open_seqid");
			size_t at = c->off;
			uint32_t ts = cur_be32(c, "lock_seqid");
			struct nfs4_seqid_ref lref = { .idx = idx, .op = op, .lock = true, .names_owner = true };
			peek_owner(w, c->off, &lref);
			owner_seqid(w, at, ts, &lref);
			lock_owner(w);
		} else if (nlo == 0) {
			seqid_by_stateid(w, op, idx, true, true, "lock_seqid");
		} else {
			fail(w, -EBADMSG);
		}
		/* A lock is the one piece of open state that changes what other
		 * clients of the target can do (their LOCKs get DENIED): a
		 * mutation, refused without --allow-mutations.  LOCKT (a test),
		 * LOCKU and RELEASE_LOCKOWNER (they only give back) are not. */
		in->mutates = in->state_change = true;
		break;
	}
	case NFS4_OP_LOCKT: cur_skip(c, 4 + 8 + 8, "locktype offset length"); lock_owner(w); break;
	case NFS4_OP_LOCKU: {
		cur_skip(c, 4, "locktype");
		seqid_by_stateid(w, op, idx, true, false, "seqid");
		cur_skip(c, 16, "offset length");
		in->state_change = true;
		break;
	}
	case NFS4_OP_NVERIFY: case NFS4_OP_VERIFY: nfs4_skip_fattr4(&w->c); break;
	case NFS4_OP_OPEN: {
		size_t at = c->off;
		uint32_t ts = cur_be32(c, "seqid");
		cur_skip(c, 8, "share_access share_deny");
		struct nfs4_seqid_ref ref = { .idx = idx, .op = op, .names_owner = true };
		peek_owner(w, c->off, &ref);
		owner_seqid(w, at, ts, &ref);
		lock_owner(w);   /* open_owner4: clientid + owner */
		bool create;
		nfs4_skip_openflag4(c, &create);
		if (create)
			in->mutates = in->ns_change = true;
		size_t claim_at = c->off;
		uint32_t claim = cur_be32(c, "open_claim_type4");
		/* RFC 8881 18.16.1: CLAIM_DELEGATE_CUR (2) and
		 * CLAIM_DELEG_CUR_FH (5) carry the delegation's stateid,
		 * CLAIM_FH (4) and CLAIM_DELEG_PREV_FH (6) nothing.  A Linux
		 * 4.1 client's claim 5 on the wire is followed by the stateid
		 * that the server's CB_RECALL named (nfs41-deleg.pcap). */
		switch (claim) {
		case NFS4_CLAIM_NULL: case NFS4_CLAIM_DELEGATE_PREV: component(w); break;
		case NFS4_CLAIM_PREVIOUS: cur_skip(c, 4, "delegate_type"); break;
		case NFS4_CLAIM_DELEGATE_CUR:
			deleg_claim(w, claim_at, NFS4_CLAIM_NULL);
			component(w);
			break;
		case NFS4_CLAIM_FH: case NFS4_CLAIM_DELEG_PREV_FH: break;
		case NFS4_CLAIM_DELEG_CUR_FH: deleg_claim(w, claim_at, NFS4_CLAIM_FH); break;
		default: fail(w, -EBADMSG);
		}
		in->state_change = true;
		break;
	}
	case NFS4_OP_OPENATTR: cur_skip(c, 4, "createdir"); break;
	case NFS4_OP_OPEN_CONFIRM: case NFS4_OP_OPEN_DOWNGRADE: {
		seqid_by_stateid(w, op, idx, false, true, "seqid");
		if (op == NFS4_OP_OPEN_DOWNGRADE)
			cur_skip(c, 8, "share_access share_deny");
		in->state_change = true;
		break;
	}
	case NFS4_OP_SETCLIENTID: {
		/* nfs_client_id4: the replay's own (as for EXCHANGE_ID) */
		own_client_owner(w, "nfs_client_id4 id");
		size_t at;
		cur_skip(c, 4, "cb_program");
		/* cb_location: the replay's own callback server, or empty
		 * when it serves none; a server that cannot parse the address
		 * grants no delegations (knfsd: "will not receive
		 * delegations") and makes no callback connection. */
		at = c->off;
		cur_xdr_opaque(c, 1024, NULL, "r_netid");
		cur_xdr_opaque(c, 1024, NULL, "r_addr");
		if (cur_ok(c) && w->out) {
			const struct nfs4_cb_location *cb = w->ops->cb;
			flush_to(w, at);
			xenc_string(w->out, cb && cb->netid ? cb->netid : "");
			xenc_string(w->out, cb && cb->addr ? cb->addr : "");
			w->pos = c->off;
		}
		cur_skip(c, 4, "callback_ident");
		in->state_change = true;
		break;
	}
	case NFS4_OP_SETCLIENTID_CONFIRM: {
		clientid(w);
		size_t at = c->off;
		cur_skip(c, 8, "setclientid_confirm");
		if (cur_ok(c) && w->out && w->v40 && w->v40->sc_confirm) {
			uint8_t verf[8];
			int ret = w->v40->sc_confirm(w->ops->ctx, verf);
			if (ret < 0) {
				fail(w, ret);
				break;
			}
			flush_to(w, at);
			xenc_fixed(w->out, verf, 8);
			w->pos = c->off;
		}
		in->state_change = true;
		break;
	}
	case NFS4_OP_RENEW: clientid(w); break;
	case NFS4_OP_PUTFH: {
		size_t at = c->off;
		uint32_t n;
		const uint8_t *p = cur_xdr_opaque(c, NFS4_FHSIZE_MAX, &n, "nfs_fh4");
		if (!p || !w->out)
			break;
		struct nfs_fh t = { .len = n }, m;
		memcpy(t.data, p, n);
		int ret = w->ops->map_fh(w->ops->ctx, &t, &m);
		if (ret < 0) {
			fail(w, ret);
			break;
		}
		flush_to(w, at);
		xenc_fh(w->out, &m);
		w->pos = c->off;
		break;
	}
	case NFS4_OP_READ: case NFS4_OP_READ_PLUS:
		stateid(w);
		cur_skip(c, 8, "offset");
		if (op == NFS4_OP_READ)
			in->read_count += cur_be32(c, "count");
		else
			cur_skip(c, 4, "count");
		break;
	case NFS4_OP_READDIR: {
		cur_skip(c, 8 + 8 + 4, "cookie verf dircount");
		uint32_t mc = cur_be32(c, "maxcount");
		if (mc > in->readdir_max)
			in->readdir_max = mc;
		nfs4_skip_bitmap4(&w->c, NULL, NULL);
		break;
	}
	case NFS4_OP_RENAME: component(w); component(w); in->mutates = in->ns_change = true; break;
	case NFS4_OP_SETATTR: stateid(w); nfs4_skip_fattr4(&w->c); in->mutates = true; break;
	case NFS4_OP_WRITE:
		stateid(w);
		cur_skip(c, 12, "offset stable");
		ddp_opaque(w, idx);
		in->mutates = true;
		break;
	case NFS4_OP_RELEASE_LOCKOWNER: lock_owner(w); in->state_change = true; break;
	case NFS4_OP_BIND_CONN_TO_SESSION:
		sessionid(w);
		cur_skip(c, 8, "dir use_rdma");
		in->state_change = true;
		break;
	case NFS4_OP_EXCHANGE_ID: {
		own_client_owner(w, "co_ownerid");
		cur_skip(c, 4, "flags");
		uint32_t how = cur_be32(c, "state_protect_how4");
		if (how == 1) {
			nfs4_skip_bitmap4(&w->c, NULL, NULL);
			nfs4_skip_bitmap4(&w->c, NULL, NULL);
		} else if (how != 0) {
			fail(w, -EBADMSG);  /* SP4_SSV: needs GSS; not replayed */
		}
		uint32_t n = cur_be32(c, "impl_id count");
		if (n > 1)
			fail(w, -EBADMSG);
		for (uint32_t i = 0; i < n && cur_ok(c); i++) {
			cur_xdr_opaque(c, 1024, NULL, "domain");
			cur_xdr_opaque(c, 1024, NULL, "name");
			cur_skip(c, 12, "date");
		}
		in->state_change = true;
		break;
	}
	case NFS4_OP_CREATE_SESSION: {
		size_t at = c->off;
		uint64_t t = cur_be64(c, "clientid");
		cur_skip(c, 4, "sequence");
		uint32_t flags = cur_be32(c, "flags");
		if (cur_ok(c) && w->out) {
			uint64_t m;
			int ret = w->ops->map_clientid(w->ops->ctx, t, &m);
			if (ret < 0) {
				fail(w, ret);
				break;
			}
			flush_to(w, at);
			xenc_u64(w->out, m);
			xenc_u32(w->out, w->ops->cs_sequence(w->ops->ctx, m));
			/* no back channel unless the replay serves callbacks */
			bool keep = w->ops->cb && w->ops->cb->back_channel;
			xenc_u32(w->out, keep ? flags : flags & ~NFS4_CS_CONN_BACK_CHAN);
			w->pos = c->off;
		}
		channel_attrs(w);
		channel_attrs(w);
		cur_skip(c, 4, "cb_program");
		sec_parms(w);
		in->state_change = true;
		break;
	}
	case NFS4_OP_DESTROY_SESSION: sessionid(w); in->state_change = true; break;
	case NFS4_OP_SEQUENCE: {
		size_t at = c->off;
		const uint8_t *p = cur_bytes(c, 16, "sessionid");
		cur_skip(c, 12, "sequenceid slotid highest_slotid");
		uint32_t ct = cur_be32(c, "cachethis");
		if (!p || !cur_ok(c))
			break;
		if (!in->has_sequence) {
			in->has_sequence = true;
			memcpy(in->tsid, p, 16);
			in->cachethis = ct != 0;
		}
		if (w->out) {
			flush_to(w, at);
			int ret = w->ops->sequence(w->ops->ctx, w->out, p, ct != 0);
			if (ret < 0)
				fail(w, ret);
			w->pos = c->off;
		}
		break;
	}
	case NFS4_OP_TEST_STATEID: {
		uint32_t n = cur_be32(c, "stateids");
		if (n > 1024) {
			fail(w, -EBADMSG);
			break;
		}
		for (uint32_t i = 0; i < n && cur_ok(c); i++)
			stateid(w);
		break;
	}
	case NFS4_OP_DESTROY_CLIENTID: clientid(w); in->state_change = true; break;
	case NFS4_OP_RECLAIM_COMPLETE: cur_skip(c, 4, "one_fs"); in->state_change = true; break;
	case NFS4_OP_SECINFO_NO_NAME: cur_skip(c, 4, "style"); break;
	case NFS4_OP_ALLOCATE: case NFS4_OP_DEALLOCATE:
		stateid(w);
		cur_skip(c, 16, "offset length");
		in->mutates = true;
		break;
	case NFS4_OP_SEEK: stateid(w); cur_skip(c, 12, "offset what"); break;
	case NFS4_OP_CLONE:
		stateid(w);
		stateid(w);
		cur_skip(c, 24, "src_offset dst_offset count");
		in->mutates = true;
		break;
	case NFS4_OP_COPY: {
		stateid(w);
		stateid(w);
		cur_skip(c, 24 + 8, "offsets count consecutive synchronous");
		uint32_t n = cur_be32(c, "source servers");
		if (n > 16) {
			fail(w, -EBADMSG);
			break;
		}
		for (uint32_t i = 0; i < n && cur_ok(c); i++)
			netloc(w);
		in->mutates = true;
		break;
	}
	case NFS4_OP_IO_ADVISE: stateid(w); cur_skip(c, 16, "offset count"); nfs4_skip_bitmap4(&w->c, NULL, NULL); break;
	case NFS4_OP_GETXATTR: component(w); break;
	case NFS4_OP_REMOVEXATTR: component(w); in->mutates = true; break;
	case NFS4_OP_SETXATTR:
		cur_skip(c, 4, "option");
		component(w);
		cur_xdr_opaque(c, BIG, NULL, "xattrvalue4");
		in->mutates = true;
		break;
	case NFS4_OP_LISTXATTRS: cur_skip(c, 12, "cookie maxcount"); break;
	default:
		return false;
	}
	return true;
}

static int walk_compound(struct walk *w)
{
	struct nfs4_call_info *in = w->info;
	struct cursor *c = &w->c;

	memset(in, 0, sizeof(*in));
	cur_xdr_opaque(c, 1024, NULL, "tag");
	in->minor = cur_be32(c, "minorversion");
	uint32_t n = cur_be32(c, "argarray count");
	if (!cur_ok(c) || n > 4096)
		return -EBADMSG;
	in->nops = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = cur_be32(c, "opnum");
		if (!cur_ok(c))
			return w->err ? w->err : -EBADMSG;
		if (i < NFS4_RES_MAXOPS) {
			in->op[i] = op;
			in->op_off[i] = (uint32_t)c->off;
		}
		set_main(in, op);
		if (!op_args(w, op, i))
			return -EBADMSG;
		if (!cur_ok(c))
			return w->err ? w->err : -EBADMSG;
	}
	in->known = true;
	flush_to(w, c->off);
	return 0;
}

int nfs4_call_parse(const uint8_t *args, size_t len, uint32_t rpos, struct nfs4_call_info *info)
{
	struct walk w = { .c = cur_make(args, len), .base = args, .info = info, .rpos = rpos };
	return walk_compound(&w);
}

int nfs4_call_rewrite(const uint8_t *args, size_t len, uint32_t rpos,
		      const struct nfs4_rewrite_ops *ops, struct xenc *out, size_t *ddp_out)
{
	return nfs4_call_rewrite_v40(args, len, rpos, ops, NULL, out, ddp_out);
}

int nfs4_call_rewrite_v40(const uint8_t *args, size_t len, uint32_t rpos,
			  const struct nfs4_rewrite_ops *ops, const struct nfs40_rewrite_ops *v40,
			  struct xenc *out, size_t *ddp_out)
{
	struct nfs4_call_info info;
	struct walk w = { .c = cur_make(args, len), .base = args, .info = &info, .rpos = rpos,
			  .out = out, .ops = ops, .v40 = v40 };
	int ret = walk_compound(&w);
	*ddp_out = w.ddp_out;
	if (ret == 0 && !xenc_ok(out))
		return -EMSGSIZE;
	return ret;
}
