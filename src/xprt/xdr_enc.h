/* XDR encoding of calls: a bounded output buffer (an overflow is sticky and
 * checked once at the end), the ONC RPC call header with AUTH_NONE or
 * AUTH_SYS, and the NFS building blocks (filehandles, names, sattr3). */
#ifndef NFSRDMA_XDR_ENC_H
#define NFSRDMA_XDR_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xenc {
	uint8_t *buf;
	size_t cap, len;
	bool overflow;
};

static inline void xenc_init(struct xenc *e, uint8_t *buf, size_t cap)
{
	e->buf = buf;
	e->cap = cap;
	e->len = 0;
	e->overflow = false;
}
static inline bool xenc_ok(const struct xenc *e) { return !e->overflow; }

/* Reserves n bytes and returns them, or NULL (overflow set). */
uint8_t *xenc_reserve(struct xenc *e, size_t n);
void xenc_u32(struct xenc *e, uint32_t v);
void xenc_u64(struct xenc *e, uint64_t v);
void xenc_bool(struct xenc *e, bool v);
/* n raw bytes, then zero padding to a multiple of 4 */
void xenc_fixed(struct xenc *e, const void *p, size_t n);
/* opaque<> / string<>: length word, bytes, padding */
void xenc_opaque(struct xenc *e, const void *p, uint32_t n);
void xenc_string(struct xenc *e, const char *s);
/* Overwrites the u32 at byte offset off (for patching an XID or length). */
void xenc_put_u32_at(uint8_t *p, uint32_t v);
uint32_t xenc_get_u32(const uint8_t *p);

/* RPC credentials for calls. */
struct rpc_cred {
	uint32_t flavor;      /* AUTH_NONE (0) or AUTH_SYS (1) */
	uint32_t uid, gid;
	uint32_t ngids;
	uint32_t gids[16];
	char machine[64];
};
void rpc_cred_sys(struct rpc_cred *c, uint32_t uid, uint32_t gid);

/* Call header (RFC 5531): xid, CALL, rpcvers 2, prog, vers, proc, cred,
 * verifier AUTH_NONE. */
void xenc_rpc_call(struct xenc *e, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		   const struct rpc_cred *cred);

/* NFSv3 filehandle (nfs_fh3: opaque<64>). */
#define NFS3_FHSIZE_MAX 64
#define NFS4_FHSIZE_MAX 128
struct nfs_fh {
	uint32_t len;
	uint8_t data[NFS4_FHSIZE_MAX];
};
void xenc_fh(struct xenc *e, const struct nfs_fh *fh);
/* sattr3 with only mode (if set_mode) */
void xenc_sattr3_mode(struct xenc *e, bool set_mode, uint32_t mode);

#endif
