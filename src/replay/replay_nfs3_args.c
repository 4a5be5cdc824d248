/* Where the file handles, the first name and the DDP-eligible data are in
 * a captured NFSv3 / NFSACLv3 call's arguments (bounded: hostile input). */
#include "src/replay/replay_engine.h"

#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_xdr_skip.h"
#include "src/clnt/nfs3.h"

static bool take_fh(struct cursor *c, struct layout *l)
{
	if (l->nref >= MAXREFS)
		return false;
	struct argref *r = &l->ref[l->nref];
	uint32_t n;
	r->off = (uint32_t)c->off;
	const uint8_t *p = cur_xdr_opaque(c, NFS3_FHSIZE_MAX, &n, "fh");
	if (!p)
		return false;
	r->size = (uint32_t)c->off - r->off;
	r->fh.len = n;
	memcpy(r->fh.data, p, n);
	l->nref++;
	return true;
}

static bool take_name(struct cursor *c, struct layout *l)
{
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(c, 1024, &n, "name");
	if (!p)
		return false;
	if (!l->has_name) {
		size_t k = n < sizeof(l->name) - 1 ? n : sizeof(l->name) - 1;
		memcpy(l->name, p, k);
		l->name[k] = 0;
		l->has_name = strlen(l->name) == k;
	}
	return true;
}

/* Where the handles are in a NFSv3 / NFSACLv3 call.  Returns false when
 * the arguments do not decode. */
bool replay_nfs3_layout(const struct tcall *tc, struct layout *l)
{
	struct cursor c = cur_make(tc->args, tc->args_len);
	memset(l, 0, sizeof(*l));
	if (tc->prog == PROG_NFSACL)
		return tc->proc == 0 || take_fh(&c, l);
	switch (tc->proc) {
	case NFS3P_NULL:
		return true;
	case NFS3P_GETATTR: case NFS3P_READLINK: case NFS3P_FSSTAT: case NFS3P_FSINFO:
	case NFS3P_PATHCONF: case NFS3P_ACCESS: case NFS3P_SETATTR:
		return take_fh(&c, l);
	case NFS3P_READ: case NFS3P_COMMIT:
		if (!take_fh(&c, l))
			return false;
		cur_skip(&c, 8, "offset");
		l->count = cur_be32(&c, "count");
		return cur_ok(&c);
	case NFS3P_READDIR: case NFS3P_READDIRPLUS:
		if (!take_fh(&c, l))
			return false;
		cur_skip(&c, 16, "cookie+verf");
		l->count = cur_be32(&c, "count");
		if (tc->proc == NFS3P_READDIRPLUS)
			l->count = cur_be32(&c, "maxcount");
		return cur_ok(&c);
	case NFS3P_LOOKUP: case NFS3P_REMOVE: case NFS3P_RMDIR: case NFS3P_CREATE:
	case NFS3P_MKDIR: case NFS3P_MKNOD:
		return take_fh(&c, l) && take_name(&c, l);
	case NFS3P_SYMLINK:
		if (!take_fh(&c, l) || !take_name(&c, l))
			return false;
		nfs3_skip_sattr3(&c);
		l->has_ddp = true;
		l->ddp_at = (uint32_t)c.off;
		l->ddp_len = cur_be32(&c, "symlink path length");
		return cur_ok(&c) && l->ddp_len <= 4096;
	case NFS3P_WRITE:
		if (!take_fh(&c, l))
			return false;
		cur_skip(&c, 8, "offset");
		l->count = cur_be32(&c, "count");
		cur_skip(&c, 4, "stable");
		l->has_ddp = true;
		l->ddp_at = (uint32_t)c.off;
		l->ddp_len = cur_be32(&c, "data length");
		return cur_ok(&c) && l->ddp_len <= (1u << 20);
	case NFS3P_RENAME:
		return take_fh(&c, l) && take_name(&c, l) && take_fh(&c, l) && take_name(&c, l);
	case NFS3P_LINK:
		return take_fh(&c, l) && take_fh(&c, l) && take_name(&c, l);
	default:
		return false;
	}
}
