/* Bounded NFS XDR walks shared by the decoders and the clients (see
 * nfs_xdr_skip.h).  The field names given to the cursor are the ones the
 * decoders' diagnostics print. */
#include "dissect/nfs_xdr_skip.h"

#include <string.h>

/* Fails the cursor at the word just read (the diagnostic points at it). */
static void bad_word(struct cursor *c, const char *what)
{
	if (cur_ok(c) && c->off >= 4)
		c->off -= 4;
	cur_fail(c, CUR_INVALID, what);
}

/* An XDR bool; other values fail the cursor. */
static bool xbool(struct cursor *c, const char *what)
{
	uint32_t v = cur_be32(c, what);
	if (v > 1) {
		c->off -= 4;
		cur_fail(c, CUR_INVALID, what);
		return false;
	}
	return v;
}

/* set_atime / set_mtime: DONT_CHANGE, SET_TO_SERVER_TIME, SET_TO_CLIENT_TIME + nfstime3 */
static void set_time3(struct cursor *c, const char *what)
{
	uint32_t how = cur_be32(c, what);
	if (how == 2)
		cur_skip(c, 8, what);
	else if (how > 2)
		bad_word(c, what);
}

bool nfs3_skip_sattr3(struct cursor *c)
{
	if (xbool(c, "sattr3 mode"))
		cur_skip(c, 4, "sattr3 mode");
	if (xbool(c, "sattr3 uid"))
		cur_skip(c, 4, "sattr3 uid");
	if (xbool(c, "sattr3 gid"))
		cur_skip(c, 4, "sattr3 gid");
	if (xbool(c, "sattr3 size"))
		cur_skip(c, 8, "sattr3 size");
	set_time3(c, "sattr3 atime");
	set_time3(c, "sattr3 mtime");
	return cur_ok(c);
}

bool nfs4_skip_bitmap4(struct cursor *c, uint32_t *w0, uint32_t *w1)
{
	uint32_t n = cur_be32(c, "bitmap4 length");
	if (n > NFS4_BITMAP4_MAX) {
		bad_word(c, "bitmap4 length");
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = cur_be32(c, "bitmap4 word");
		if (i == 0 && w0)
			*w0 = w;
		if (i == 1 && w1)
			*w1 = w;
	}
	return cur_ok(c);
}

bool nfs4_skip_fattr4(struct cursor *c)
{
	nfs4_skip_bitmap4(c, NULL, NULL);
	cur_xdr_opaque(c, NFS4_ATTRLIST4_MAX, NULL, "fattr4 attrlist");
	return cur_ok(c);
}

bool nfs4_skip_openflag4(struct cursor *c, bool *create)
{
	uint32_t type = cur_be32(c, "opentype4");
	if (create)
		*create = type == 1;
	if (type > 1) {
		bad_word(c, "opentype4");
		return false;
	}
	if (type == 0)
		return cur_ok(c);
	/* UNCHECKED4, GUARDED4: attributes; EXCLUSIVE4: a verifier;
	 * EXCLUSIVE4_1 (4.1): both */
	uint32_t how = cur_be32(c, "createmode4");
	if (how == 0 || how == 1) {
		nfs4_skip_fattr4(c);
	} else if (how == 2) {
		cur_skip(c, 8, "createverf");
	} else if (how == 3) {
		cur_skip(c, 8, "createverf");
		nfs4_skip_fattr4(c);
	} else {
		bad_word(c, "createmode4");
	}
	return cur_ok(c);
}

bool nfs4_walk_open_args(struct cursor *c, struct nfs4_open_args *a)
{
	memset(a, 0, sizeof(*a));
	a->seqid = cur_be32(c, "seqid");
	a->share_access = cur_be32(c, "share_access");
	a->share_deny = cur_be32(c, "share_deny");
	a->clientid = cur_be64(c, "open_owner clientid");
	a->owner = cur_xdr_opaque(c, NFS4_OWNER4_MAX, &a->owner_len, "open_owner owner");
	if (!nfs4_skip_openflag4(c, &a->create))
		return false;
	a->claim = cur_be32(c, "open_claim_type4");
	switch (a->claim) {
	case NFS4_CLAIM_NULL: case NFS4_CLAIM_DELEGATE_PREV:
		a->name = cur_xdr_opaque(c, NFS4_COMPONENT4_MAX, &a->name_len, "component4");
		break;
	case NFS4_CLAIM_PREVIOUS:
		a->delegate_type = cur_be32(c, "delegate_type");
		break;
	case NFS4_CLAIM_DELEGATE_CUR:
		a->deleg_stateid = cur_bytes(c, 16, "delegate stateid");
		a->name = cur_xdr_opaque(c, NFS4_COMPONENT4_MAX, &a->name_len, "component4");
		break;
	case NFS4_CLAIM_FH: case NFS4_CLAIM_DELEG_PREV_FH:
		break;
	case NFS4_CLAIM_DELEG_CUR_FH:
		a->deleg_stateid = cur_bytes(c, 16, "delegate stateid");
		break;
	default:
		bad_word(c, "open_claim_type4");
	}
	return cur_ok(c);
}
