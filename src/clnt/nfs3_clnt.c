/* NFSv3 (RFC 1813) calls and bounded reply decoding for the replay tool
 * and the load generator.  RFC 8267 DDP eligibility is expressed in the
 * xprt_req: WRITE data (has_ddp) may go in a Read chunk, READ data
 * (wchunk) in a Write chunk, anything else large in the Reply chunk. */
#include "src/clnt/nfs3.h"

#include <errno.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/rpc.h"

bool nfs3_is_mutation(uint32_t proc)
{
	switch (proc) {
	case NFS3P_SETATTR: case NFS3P_WRITE: case NFS3P_CREATE: case NFS3P_MKDIR:
	case NFS3P_SYMLINK: case NFS3P_MKNOD: case NFS3P_REMOVE: case NFS3P_RMDIR:
	case NFS3P_RENAME: case NFS3P_LINK: case NFS3P_COMMIT:
		return true;
	default:
		/* unknown procedures are treated as mutations: never sent by default */
		return proc >= NFS3P_NPROCS;
	}
}

uint32_t nfs3_reply_max(uint32_t proc, uint32_t count)
{
	switch (proc) {
	case NFS3P_READDIR: case NFS3P_READDIRPLUS:
		return count + 512;
	case NFS3P_READLINK:
		return 4096 + 256;  /* path<=4096: the Linux client uses the Reply chunk */
	case NFS3P_READ:
		return 256;         /* without the data */
	default:
		return 512;
	}
}

static void start(struct nfs_msg *m, struct xenc *e, const struct rpc_cred *c, uint32_t proc)
{
	memset(&m->req, 0, sizeof(m->req));
	xenc_init(e, m->buf, sizeof(m->buf));
	xenc_rpc_call(e, 0, PROG_NFS, 3, proc, c);
}

static int finish(struct nfs_msg *m, struct xenc *e, uint32_t proc)
{
	if (!xenc_ok(e))
		return -EMSGSIZE;
	m->req.msg = m->buf;
	m->req.len = e->len;
	if (!m->req.reply_max)
		m->req.reply_max = nfs3_reply_max(proc, 0);
	return 0;
}

int nfs3_enc_null(struct nfs_msg *m)
{
	struct xenc e;
	start(m, &e, NULL, NFS3P_NULL);
	return finish(m, &e, NFS3P_NULL);
}

int nfs3_enc_getattr(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh)
{
	struct xenc e;
	start(m, &e, c, NFS3P_GETATTR);
	xenc_fh(&e, fh);
	return finish(m, &e, NFS3P_GETATTR);
}

int nfs3_enc_fsinfo(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh)
{
	struct xenc e;
	start(m, &e, c, NFS3P_FSINFO);
	xenc_fh(&e, fh);
	return finish(m, &e, NFS3P_FSINFO);
}

int nfs3_enc_lookup(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
		    const char *name)
{
	struct xenc e;
	start(m, &e, c, NFS3P_LOOKUP);
	xenc_fh(&e, dir);
	xenc_string(&e, name);
	return finish(m, &e, NFS3P_LOOKUP);
}

int nfs3_enc_read(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh,
		  uint64_t off, uint32_t count)
{
	struct xenc e;
	start(m, &e, c, NFS3P_READ);
	xenc_fh(&e, fh);
	xenc_u64(&e, off);
	xenc_u32(&e, count);
	m->req.wchunk = count;
	m->req.reply_max = nfs3_reply_max(NFS3P_READ, count);
	return finish(m, &e, NFS3P_READ);
}

int nfs3_enc_write(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh,
		   uint64_t off, uint32_t count, uint32_t stable, const uint8_t *data)
{
	struct xenc e;
	start(m, &e, c, NFS3P_WRITE);
	xenc_fh(&e, fh);
	xenc_u64(&e, off);
	xenc_u32(&e, count);
	xenc_u32(&e, stable);
	xenc_u32(&e, count);  /* opaque data<>: length inline, bytes DDP-eligible */
	m->req.has_ddp = true;
	m->req.ddp = data;
	m->req.ddp_len = count;
	return finish(m, &e, NFS3P_WRITE);
}

int nfs3_enc_readdirplus(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
			 uint64_t cookie, const uint8_t verf[8], uint32_t dircount, uint32_t maxcount)
{
	static const uint8_t zero[8];
	struct xenc e;
	start(m, &e, c, NFS3P_READDIRPLUS);
	xenc_fh(&e, dir);
	xenc_u64(&e, cookie);
	xenc_fixed(&e, verf ? verf : zero, 8);
	xenc_u32(&e, dircount);
	xenc_u32(&e, maxcount);
	m->req.reply_max = nfs3_reply_max(NFS3P_READDIRPLUS, maxcount);
	return finish(m, &e, NFS3P_READDIRPLUS);
}

int nfs3_enc_create(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
		    const char *name, uint32_t mode)
{
	struct xenc e;
	start(m, &e, c, NFS3P_CREATE);
	xenc_fh(&e, dir);
	xenc_string(&e, name);
	xenc_u32(&e, 0);  /* UNCHECKED */
	xenc_sattr3_mode(&e, true, mode);
	return finish(m, &e, NFS3P_CREATE);
}

int nfs3_enc_mkdir(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
		   const char *name, uint32_t mode)
{
	struct xenc e;
	start(m, &e, c, NFS3P_MKDIR);
	xenc_fh(&e, dir);
	xenc_string(&e, name);
	xenc_sattr3_mode(&e, true, mode);
	return finish(m, &e, NFS3P_MKDIR);
}

int rpc_enc_raw(struct nfs_msg *m, const struct rpc_cred *c, uint32_t prog, uint32_t vers,
		uint32_t proc, const uint8_t *args, size_t len)
{
	struct xenc e;
	memset(&m->req, 0, sizeof(m->req));
	xenc_init(&e, m->buf, sizeof(m->buf));
	xenc_rpc_call(&e, 0, prog, vers, proc, c);
	uint8_t *p = xenc_reserve(&e, len);
	if (!p)
		return -EMSGSIZE;
	memcpy(p, args, len);
	m->req.msg = m->buf;
	m->req.len = e.len;
	m->req.reply_max = 512;
	return 0;
}

/* ------------------------------------------------------------ replies -- */

int rpc_decode_reply_hdr(const uint8_t *msg, size_t len, struct rpc_res *res, size_t *body_off)
{
	struct rpc_msg m;
	struct cursor c = cur_make(msg, len);

	memset(res, 0, sizeof(*res));
	res->rpc_status = 0xffff;
	if (rpc_decode(&m, &c, NULL) < 0 || m.mtype != RPC_REPLY)
		return -EBADMSG;
	res->ok = true;
	if (m.reply_stat == RPC_MSG_ACCEPTED)
		res->rpc_status = m.accept_stat;
	else
		res->rpc_status = 100 + m.reject_stat;
	*body_off = c.off;
	return 0;
}

static bool get_fh(struct cursor *c, struct nfs_fh *fh, uint32_t max)
{
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(c, max, &n, "nfs_fh3");
	if (!p)
		return false;
	fh->len = n;
	memcpy(fh->data, p, n);
	return true;
}

static void post_op_attr(struct cursor *c)
{
	uint32_t b = cur_be32(c, "post_op_attr");
	if (b == 1)
		cur_skip(c, 84, "fattr3");
	else if (b > 1)
		cur_fail(c, CUR_INVALID, "post_op_attr");
}

static void wcc_data(struct cursor *c)
{
	uint32_t b = cur_be32(c, "pre_op_attr");
	if (b == 1)
		cur_skip(c, 24, "wcc_attr");
	else if (b > 1)
		cur_fail(c, CUR_INVALID, "pre_op_attr");
	post_op_attr(c);
}

int nfs3_decode_body(uint32_t proc, const uint8_t *p, size_t len, bool bulk_moved,
		     struct rpc_res *res, nfs3_entry_fn entry, void *ctx)
{
	struct cursor c = cur_make(p, len);

	if (proc == NFS3P_NULL) {
		res->has_status = true;
		res->status = 0;
		return 0;
	}
	res->status = cur_be32(&c, "nfsstat3");
	if (!cur_ok(&c))
		return -EBADMSG;
	res->has_status = true;
	switch (proc) {
	case NFS3P_LOOKUP:
		if (res->status == 0) {
			res->has_fh = get_fh(&c, &res->fh, NFS3_FHSIZE_MAX);
			post_op_attr(&c);
		}
		post_op_attr(&c);
		break;
	case NFS3P_CREATE: case NFS3P_MKDIR: case NFS3P_SYMLINK: case NFS3P_MKNOD:
		if (res->status == 0) {
			uint32_t b = cur_be32(&c, "post_op_fh3");
			if (b == 1)
				res->has_fh = get_fh(&c, &res->fh, NFS3_FHSIZE_MAX);
			post_op_attr(&c);
		}
		wcc_data(&c);
		break;
	case NFS3P_READ:
		post_op_attr(&c);
		if (res->status == 0) {
			res->count = cur_be32(&c, "count");
			res->eof = cur_be32(&c, "eof") != 0;
			uint32_t n = cur_be32(&c, "data");
			if (!bulk_moved && cur_ok(&c))
				cur_skip(&c, ((size_t)n + 3) & ~(size_t)3, "data");
			/* count and the data's length are the same number on an
			 * honest server; the bytes read are at most what the data
			 * carries (a hostile count must not inflate them) */
			if (res->count > n)
				res->count = n;
		}
		break;
	case NFS3P_FSINFO:
		post_op_attr(&c);
		if (res->status == 0) {
			res->rtmax = cur_be32(&c, "rtmax");
			cur_skip(&c, 8, "rtpref+rtmult");
			res->wtmax = cur_be32(&c, "wtmax");
			cur_skip(&c, 8 + 4 + 8 + 8 + 4, "wtpref..properties");
		}
		break;
	case NFS3P_WRITE:
		wcc_data(&c);
		if (res->status == 0) {
			res->count = cur_be32(&c, "count");
			cur_skip(&c, 12, "committed+verf");
		}
		break;
	case NFS3P_READDIRPLUS:
		post_op_attr(&c);
		if (res->status != 0)
			break;
		cur_skip(&c, 8, "cookieverf");
		for (uint32_t guard = 0; cur_ok(&c) && guard < 1000000; guard++) {
			uint32_t more = cur_be32(&c, "entry");
			if (!more || !cur_ok(&c))
				break;
			cur_skip(&c, 8, "fileid");
			uint32_t nlen = 0;
			const uint8_t *np = cur_xdr_opaque(&c, 255, &nlen, "name");
			cur_skip(&c, 8, "cookie");
			post_op_attr(&c);
			uint32_t hasfh = cur_be32(&c, "post_op_fh3");
			struct nfs_fh fh;
			bool ok = hasfh == 1 && get_fh(&c, &fh, NFS3_FHSIZE_MAX);
			if (!cur_ok(&c) || !np)
				break;
			res->nentries++;
			if (ok && entry) {
				char name[256];
				memcpy(name, np, nlen);
				name[nlen] = 0;
				if (strlen(name) == nlen)  /* no embedded NUL */
					entry(ctx, name, &fh);
			}
		}
		break;
	default:
		break;
	}
	return cur_ok(&c) ? 0 : -EBADMSG;
}

int nfs3_decode_reply(uint32_t proc, const uint8_t *msg, size_t len, bool bulk_moved,
		      struct rpc_res *res, nfs3_entry_fn entry, void *ctx)
{
	size_t off;
	if (rpc_decode_reply_hdr(msg, len, res, &off) < 0)
		return -EBADMSG;
	if (res->rpc_status != 0)
		return 0;
	return nfs3_decode_body(proc, msg + off, len - off, bulk_moved, res, entry, ctx);
}
