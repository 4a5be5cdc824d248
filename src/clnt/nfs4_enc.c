/* NFSv4 COMPOUND encoders (RFC 8881, RFC 7862): the RPC header and
 * argarray count, then one op at a time.  See nfs4.h. */
#include "src/clnt/nfs4.h"

#include "src/clnt/nfs3.h"

size_t nfs4_compound_begin(struct xenc *e, const struct rpc_cred *c, uint32_t minor)
{
	xenc_rpc_call(e, 0, PROG_NFS, 4, 1, c);
	xenc_u32(e, 0);          /* tag: empty */
	xenc_u32(e, minor);
	size_t at = e->len;
	xenc_u32(e, 0);          /* argarray count, patched */
	return at;
}

void nfs4_compound_end(struct xenc *e, size_t count_off, uint32_t nops)
{
	if (xenc_ok(e) && count_off + 4 <= e->len)
		xenc_put_u32_at(e->buf + count_off, nops);
}

void nfs4_enc_sequence(struct xenc *e, const uint8_t sid[16], uint32_t seq, uint32_t slot,
		       uint32_t highest, bool cachethis)
{
	xenc_u32(e, NFS4_OP_SEQUENCE);
	xenc_fixed(e, sid, 16);
	xenc_u32(e, seq);
	xenc_u32(e, slot);
	xenc_u32(e, highest);
	xenc_bool(e, cachethis);
}

void nfs4_enc_putrootfh(struct xenc *e) { xenc_u32(e, NFS4_OP_PUTROOTFH); }
void nfs4_enc_getfh(struct xenc *e) { xenc_u32(e, NFS4_OP_GETFH); }

void nfs4_enc_putfh(struct xenc *e, const struct nfs_fh *fh)
{
	xenc_u32(e, NFS4_OP_PUTFH);
	xenc_fh(e, fh);
}

void nfs4_enc_lookup(struct xenc *e, const char *name)
{
	xenc_u32(e, NFS4_OP_LOOKUP);
	xenc_string(e, name);
}

static void bitmap2(struct xenc *e, uint32_t w0, uint32_t w1)
{
	xenc_u32(e, w1 ? 2 : 1);
	xenc_u32(e, w0);
	if (w1)
		xenc_u32(e, w1);
}

void nfs4_enc_getattr(struct xenc *e, uint32_t w0, uint32_t w1)
{
	xenc_u32(e, NFS4_OP_GETATTR);
	bitmap2(e, w0, w1);
}

void nfs4_enc_access(struct xenc *e, uint32_t mask)
{
	xenc_u32(e, NFS4_OP_ACCESS);
	xenc_u32(e, mask);
}

static void stateid(struct xenc *e, const struct nfs4_stateid *s)
{
	xenc_u32(e, s->seqid);
	xenc_fixed(e, s->other, 12);
}

void nfs4_enc_open(struct xenc *e, uint32_t share_access, uint64_t clientid, const void *owner,
		   uint32_t owner_len, bool create, uint32_t mode, const char *name)
{
	xenc_u32(e, NFS4_OP_OPEN);
	xenc_u32(e, 0);                  /* seqid: ignored in 4.1 */
	xenc_u32(e, share_access);
	xenc_u32(e, 0);                  /* OPEN4_SHARE_DENY_NONE */
	xenc_u64(e, clientid);
	xenc_opaque(e, owner, owner_len);
	xenc_u32(e, create ? 1 : 0);     /* OPEN4_CREATE / OPEN4_NOCREATE */
	if (create) {
		xenc_u32(e, 0);          /* UNCHECKED4 */
		bitmap2(e, 0, FATTR4_W1_MODE);
		xenc_u32(e, 4);          /* attrlist: mode4 */
		xenc_u32(e, mode);
	}
	xenc_u32(e, 0);                  /* CLAIM_NULL */
	xenc_string(e, name);
}

void nfs4_enc_create_dir(struct xenc *e, const char *name, uint32_t mode)
{
	xenc_u32(e, NFS4_OP_CREATE);
	xenc_u32(e, 2);                  /* NF4DIR */
	xenc_string(e, name);
	bitmap2(e, 0, FATTR4_W1_MODE);
	xenc_u32(e, 4);                  /* attrlist: mode4 */
	xenc_u32(e, mode);
}

void nfs4_enc_close(struct xenc *e, const struct nfs4_stateid *sid)
{
	xenc_u32(e, NFS4_OP_CLOSE);
	xenc_u32(e, 0);                  /* seqid: ignored in 4.1 */
	stateid(e, sid);
}

void nfs4_enc_read(struct xenc *e, const struct nfs4_stateid *sid, uint64_t off, uint32_t count)
{
	xenc_u32(e, NFS4_OP_READ);
	stateid(e, sid);
	xenc_u64(e, off);
	xenc_u32(e, count);
}

void nfs4_enc_write(struct xenc *e, const struct nfs4_stateid *sid, uint64_t off, uint32_t stable,
		    uint32_t count)
{
	xenc_u32(e, NFS4_OP_WRITE);
	stateid(e, sid);
	xenc_u64(e, off);
	xenc_u32(e, stable);
	xenc_u32(e, count);              /* data<>: length here, bytes DDP-eligible */
}

void nfs4_enc_readdir(struct xenc *e, uint64_t cookie, const uint8_t verf[8], uint32_t dircount,
		      uint32_t maxcount, uint32_t w0, uint32_t w1)
{
	static const uint8_t zero[8];
	xenc_u32(e, NFS4_OP_READDIR);
	xenc_u64(e, cookie);
	xenc_fixed(e, verf ? verf : zero, 8);
	xenc_u32(e, dircount);
	xenc_u32(e, maxcount);
	bitmap2(e, w0, w1);
}

void nfs4_enc_exchange_id(struct xenc *e, const uint8_t verf[8], const void *owner,
			  uint32_t owner_len, uint32_t flags)
{
	xenc_u32(e, NFS4_OP_EXCHANGE_ID);
	xenc_fixed(e, verf, 8);
	xenc_opaque(e, owner, owner_len);
	xenc_u32(e, flags);
	xenc_u32(e, 0);                  /* SP4_NONE */
	xenc_u32(e, 0);                  /* no nfs_impl_id4 */
}

static void channel_attrs(struct xenc *e, uint32_t maxreq, uint32_t maxresp, uint32_t cached,
			  uint32_t ops, uint32_t reqs)
{
	xenc_u32(e, 0);                  /* headerpadsize */
	xenc_u32(e, maxreq);
	xenc_u32(e, maxresp);
	xenc_u32(e, cached);
	xenc_u32(e, ops);
	xenc_u32(e, reqs);
	xenc_u32(e, 0);                  /* no rdma_ird */
}

void nfs4_enc_create_session(struct xenc *e, uint64_t clientid, uint32_t seq, uint32_t flags,
			     uint32_t maxreq, uint32_t maxresp, uint32_t slots)
{
	xenc_u32(e, NFS4_OP_CREATE_SESSION);
	xenc_u64(e, clientid);
	xenc_u32(e, seq);
	xenc_u32(e, flags);
	channel_attrs(e, maxreq, maxresp, 4096, 16, slots);
	channel_attrs(e, 4096, 4096, 0, 2, 1);
	xenc_u32(e, PROG_NFS_CB);        /* cb_program */
	xenc_u32(e, 1);                  /* one callback_sec_parms4 */
	xenc_u32(e, 0);                  /* AUTH_NONE */
}

void nfs4_enc_reclaim_complete(struct xenc *e, bool one_fs)
{
	xenc_u32(e, NFS4_OP_RECLAIM_COMPLETE);
	xenc_bool(e, one_fs);
}

void nfs4_enc_destroy_session(struct xenc *e, const uint8_t sid[16])
{
	xenc_u32(e, NFS4_OP_DESTROY_SESSION);
	xenc_fixed(e, sid, 16);
}

void nfs4_enc_destroy_clientid(struct xenc *e, uint64_t clientid)
{
	xenc_u32(e, NFS4_OP_DESTROY_CLIENTID);
	xenc_u64(e, clientid);
}

void nfs4_enc_bind_conn_to_session(struct xenc *e, const uint8_t sid[16], uint32_t dir,
				   bool rdma_mode)
{
	xenc_u32(e, NFS4_OP_BIND_CONN_TO_SESSION);
	xenc_fixed(e, sid, 16);
	xenc_u32(e, dir);
	xenc_bool(e, rdma_mode);
}
