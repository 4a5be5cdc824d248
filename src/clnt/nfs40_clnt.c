/* NFSv4.0 (RFC 7530) client pieces for the replay tool: the client ID
 * (SETCLIENTID, SETCLIENTID_CONFIRM, RENEW), OPEN_CONFIRM, and the open-
 * and lock-owners whose seqids order NFSv4.0 state (there is no
 * SEQUENCE).  COMPOUND replies are decoded by nfs4_reply.c; a captured
 * COMPOUND is rewritten by nfs41_clnt_rewrite.c.  See nfs4_session.h. */
#include "src/clnt/nfs4_session.h"
#include "src/clnt/nfs4_rewrite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/xdr.h"

/* ------------------------------------------------------------ encoders -- */

void nfs4_enc_setclientid(struct xenc *e, const uint8_t verf[8], const void *id, uint32_t id_len,
			  uint32_t cb_program, const char *netid, const char *addr, uint32_t cb_ident)
{
	xenc_u32(e, NFS4_OP_SETCLIENTID);
	xenc_fixed(e, verf, 8);
	xenc_opaque(e, id, id_len);
	xenc_u32(e, cb_program);
	/* cb_location: empty netid and address unless we serve callbacks;
	 * the server then grants no delegations and opens no callback
	 * connection (knfsd: "will not receive delegations"). */
	xenc_string(e, netid ? netid : "");
	xenc_string(e, addr ? addr : "");
	xenc_u32(e, cb_ident);
}

void nfs4_enc_setclientid_confirm(struct xenc *e, uint64_t clientid, const uint8_t confirm[8])
{
	xenc_u32(e, NFS4_OP_SETCLIENTID_CONFIRM);
	xenc_u64(e, clientid);
	xenc_fixed(e, confirm, 8);
}

static void nfs4_enc_renew(struct xenc *e, uint64_t clientid)
{
	xenc_u32(e, NFS4_OP_RENEW);
	xenc_u64(e, clientid);
}

static void nfs4_enc_open_confirm(struct xenc *e, const struct nfs4_stateid *sid, uint32_t seqid)
{
	xenc_u32(e, NFS4_OP_OPEN_CONFIRM);
	xenc_u32(e, sid->seqid);
	xenc_fixed(e, sid->other, 12);
	xenc_u32(e, seqid);
}

bool nfs40_seqid_advances(uint32_t status)
{
	switch (status) {
	case NFS4ERR_STALE_CLIENTID: case NFS4ERR_STALE_STATEID: case NFS4ERR_BAD_STATEID:
	case NFS4ERR_BAD_SEQID: case NFS4ERR_BADXDR: case NFS4ERR_RESOURCE:
	case NFS4ERR_NOFILEHANDLE: case NFS4ERR_MOVED:
		return false;
	default:
		return true;
	}
}

/* ------------------------------------------------------- the client ID -- */

static unsigned b_setclientid(struct xenc *e, void *ctx)
{
	struct nfs41_session *s = ctx;
	nfs4_enc_setclientid(e, s->verifier, s->owner, (uint32_t)strlen(s->owner), PROG_NFS_CB, s->cb_netid,
			     s->cb_addr, 1);
	return 1;
}

static unsigned b_setclientid_confirm(struct xenc *e, void *ctx)
{
	struct nfs41_session *s = ctx;
	nfs4_enc_setclientid_confirm(e, s->clientid, s->confirm);
	return 1;
}

unsigned nfs40_build_renew(struct xenc *e, void *ctx)
{
	nfs4_enc_renew(e, ((struct nfs41_session *)ctx)->clientid);
	return 1;
}

int nfs40_client_open(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		      char *err, size_t errlen)
{
	struct nfs4_res r;
	int ret;

	if (s->minor != 0 || s->have_session) {
		snprintf(err, errlen, "SETCLIENTID: not an NFSv4.0 client");
		return -EINVAL;
	}
	ret = nfs41_call_sync(x, s, c, b_setclientid, s, 1024, &r);
	if (ret < 0 || r.status || !r.has_setclientid) {
		if (ret < 0)
			snprintf(err, errlen, "SETCLIENTID: %s", strerror(-ret));
		else
			snprintf(err, errlen, "SETCLIENTID: NFS4 status %u", r.status);
		return ret < 0 ? ret : -EPROTO;
	}
	s->clientid = r.sc_clientid;
	memcpy(s->confirm, r.sc_confirm, 8);
	ret = nfs41_call_sync(x, s, c, b_setclientid_confirm, s, 512, &r);
	if (ret < 0 || r.status) {
		if (ret < 0)
			snprintf(err, errlen, "SETCLIENTID_CONFIRM: %s", strerror(-ret));
		else
			snprintf(err, errlen, "SETCLIENTID_CONFIRM: NFS4 status %u", r.status);
		return ret < 0 ? ret : -EPROTO;
	}
	s->have_client = true;
	s->last_renew_ns = xprt_now_ns();
	return 0;
}

struct oc_args {
	const struct nfs_fh *fh;
	const struct nfs4_stateid *sid;
	uint32_t seqid;
};

static unsigned b_open_confirm(struct xenc *e, void *ctx)
{
	const struct oc_args *a = ctx;
	nfs4_enc_putfh(e, a->fh);
	nfs4_enc_open_confirm(e, a->sid, a->seqid);
	return 2;
}

int nfs40_open_confirm(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		       const struct nfs_fh *fh, const struct nfs4_stateid *sid, uint32_t seqid,
		       struct nfs4_res *res)
{
	struct oc_args a = { fh, sid, seqid };
	return nfs41_call_sync(x, s, c, b_open_confirm, &a, 512, res);
}

/* -------------------------------------------------------------- owners -- */

static uint64_t owner_hash(bool lock, uint64_t clid, const uint8_t *p, uint32_t len)
{
	uint64_t h = xdr_fh_hash(p, len);
	return h ^ (clid * 0x9e3779b97f4a7c15ull) ^ (lock ? 0x5bd1e995u : 0);
}

struct nfs40_owner *nfs40_owner_get(struct nfs40_owners *t, bool lock, uint64_t tclientid,
				    const uint8_t *owner, uint32_t len)
{
	uint64_t h = owner_hash(lock, tclientid, owner, len);
	struct nfs40_owner **b = &t->b[h & 255];
	for (struct nfs40_owner *o = *b; o; o = o->next)
		if (o->h == h && o->lock == lock && o->tclientid == tclientid && o->len == len &&
		    (!len || memcmp(o->bytes, owner, len) == 0))
			return o;
	struct nfs40_owner *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->bytes = malloc(len ? len : 1);
	if (!o->bytes) {
		free(o);
		return NULL;
	}
	if (len)
		memcpy(o->bytes, owner, len);
	o->h = h;
	o->lock = lock;
	o->tclientid = tclientid;
	o->len = len;
	o->next = *b;
	*b = o;
	t->n++;
	return o;
}

static unsigned other_bucket(const uint8_t other[12])
{
	return (unsigned)(xdr_fh_hash(other, 12) & 255);
}

struct nfs40_owner *nfs40_owner_of(const struct nfs40_owners *t, const uint8_t other[12])
{
	for (struct nfs40_sidowner *s = t->s[other_bucket(other)]; s; s = s->next)
		if (memcmp(s->other, other, 12) == 0)
			return s->o;
	return NULL;
}

void nfs40_owner_bind(struct nfs40_owners *t, const uint8_t other[12], struct nfs40_owner *o)
{
	unsigned b = other_bucket(other);
	for (struct nfs40_sidowner *s = t->s[b]; s; s = s->next)
		if (memcmp(s->other, other, 12) == 0) {
			s->o = o;
			return;
		}
	struct nfs40_sidowner *s = calloc(1, sizeof(*s));
	if (!s)
		return;
	memcpy(s->other, other, 12);
	s->o = o;
	s->next = t->s[b];
	t->s[b] = s;
}

void nfs40_owners_free(struct nfs40_owners *t)
{
	for (unsigned i = 0; i < 256; i++) {
		for (struct nfs40_owner *o = t->b[i], *n; o; o = n) {
			n = o->next;
			free(o->bytes);
			free(o);
		}
		for (struct nfs40_sidowner *s = t->s[i], *n; s; s = n) {
			n = s->next;
			free(s);
		}
		t->b[i] = NULL;
		t->s[i] = NULL;
	}
	t->n = 0;
}
