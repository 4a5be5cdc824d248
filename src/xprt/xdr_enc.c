/* XDR encoding of calls (see xdr_enc.h). */
#include "src/xprt/xdr_enc.h"

#include <string.h>
#include <unistd.h>

uint8_t *xenc_reserve(struct xenc *e, size_t n)
{
	if (e->overflow || n > e->cap - e->len) {
		e->overflow = true;
		return NULL;
	}
	uint8_t *p = e->buf + e->len;
	e->len += n;
	return p;
}

void xenc_put_u32_at(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint32_t xenc_get_u32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

void xenc_u32(struct xenc *e, uint32_t v)
{
	uint8_t *p = xenc_reserve(e, 4);
	if (p)
		xenc_put_u32_at(p, v);
}

void xenc_u64(struct xenc *e, uint64_t v)
{
	uint8_t *p = xenc_reserve(e, 8);
	if (p) {
		xenc_put_u32_at(p, (uint32_t)(v >> 32));
		xenc_put_u32_at(p + 4, (uint32_t)v);
	}
}

void xenc_bool(struct xenc *e, bool v)
{
	xenc_u32(e, v ? 1 : 0);
}

void xenc_fixed(struct xenc *e, const void *src, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;
	if (padded < n) {
		e->overflow = true;
		return;
	}
	uint8_t *p = xenc_reserve(e, padded);
	if (!p)
		return;
	if (n)
		memcpy(p, src, n);
	memset(p + n, 0, padded - n);
}

void xenc_opaque(struct xenc *e, const void *p, uint32_t n)
{
	xenc_u32(e, n);
	xenc_fixed(e, p, n);
}

void xenc_string(struct xenc *e, const char *s)
{
	size_t n = strlen(s);
	if (n > UINT32_MAX) {
		e->overflow = true;
		return;
	}
	xenc_opaque(e, s, (uint32_t)n);
}

void rpc_cred_sys(struct rpc_cred *c, uint32_t uid, uint32_t gid)
{
	memset(c, 0, sizeof(*c));
	c->flavor = 1;
	c->uid = uid;
	c->gid = gid;
	if (gethostname(c->machine, sizeof(c->machine) - 1) < 0)
		strcpy(c->machine, "nfsrdma-replay");
	c->machine[sizeof(c->machine) - 1] = 0;
}

void xenc_rpc_call(struct xenc *e, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		   const struct rpc_cred *cred)
{
	xenc_u32(e, xid);
	xenc_u32(e, 0);      /* CALL */
	xenc_u32(e, 2);      /* rpcvers */
	xenc_u32(e, prog);
	xenc_u32(e, vers);
	xenc_u32(e, proc);
	if (cred && cred->flavor == 1) {
		size_t mlen = strnlen(cred->machine, sizeof(cred->machine));
		uint32_t ngids = cred->ngids > 16 ? 16 : cred->ngids;
		uint32_t body = 4 + 4 + (uint32_t)((mlen + 3) & ~(size_t)3) + 4 + 4 + 4 + 4 * ngids;
		xenc_u32(e, 1);
		xenc_u32(e, body);
		xenc_u32(e, 0);  /* stamp */
		xenc_opaque(e, cred->machine, (uint32_t)mlen);
		xenc_u32(e, cred->uid);
		xenc_u32(e, cred->gid);
		xenc_u32(e, ngids);
		for (uint32_t i = 0; i < ngids; i++)
			xenc_u32(e, cred->gids[i]);
	} else {
		xenc_u32(e, 0);
		xenc_u32(e, 0);
	}
	xenc_u32(e, 0);      /* verifier AUTH_NONE */
	xenc_u32(e, 0);
}

void xenc_fh(struct xenc *e, const struct nfs_fh *fh)
{
	uint32_t n = fh->len > sizeof(fh->data) ? (uint32_t)sizeof(fh->data) : fh->len;
	xenc_opaque(e, fh->data, n);
}

void xenc_sattr3_mode(struct xenc *e, bool set_mode, uint32_t mode)
{
	xenc_bool(e, set_mode);
	if (set_mode)
		xenc_u32(e, mode);
	xenc_bool(e, false);  /* uid */
	xenc_bool(e, false);  /* gid */
	xenc_bool(e, false);  /* size */
	xenc_u32(e, 0);       /* atime DONT_CHANGE */
	xenc_u32(e, 0);       /* mtime DONT_CHANGE */
}
