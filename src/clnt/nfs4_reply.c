/* A bounded decoder of NFSv4 COMPOUND replies (hostile input: cursor
 * readers; NFSv4.0 results too), and the pairing of the delegations a
 * trace reply and the target's reply granted.  See nfs4.h. */
#include "src/clnt/nfs4.h"

#include <errno.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_xdr_skip.h"
#include "src/clnt/nfs3.h"

#define BIG (1u << 20)

/* GETATTR results: lease_time is kept when it is the first attribute
 * (nothing asked before it in word 0: its offset is then known). */
static void getattr_res(struct cursor *c, struct nfs4_res *r)
{
	uint32_t w0 = 0, alen;
	if (!nfs4_skip_bitmap4(c, &w0, NULL))
		return;
	const uint8_t *p = cur_xdr_opaque(c, NFS4_ATTRLIST4_MAX, &alen, "attrlist4");
	if (p && (w0 & FATTR4_W0_LEASE_TIME) && !(w0 & (FATTR4_W0_LEASE_TIME - 1)) && alen >= 4) {
		r->has_lease = true;
		r->lease_time = xenc_get_u32(p);
	}
}

static void get_stateid(struct cursor *c, struct nfs4_stateid *s)
{
	s->seqid = cur_be32(c, "stateid seqid");
	const uint8_t *p = cur_bytes(c, 12, "stateid other");
	if (p)
		memcpy(s->other, p, 12);
}

static void keep_sid(struct nfs4_res *r, struct cursor *c, uint32_t at)
{
	struct nfs4_stateid s;
	get_stateid(c, &s);
	if (cur_ok(c) && r->nsid < NFS4_RES_MAXSID) {
		r->sid[r->nsid] = s;
		r->sid_at[r->nsid++] = at;
	}
}

static void skip_array(struct cursor *c, size_t elem, uint32_t max, const char *what)
{
	uint32_t n = cur_be32(c, what);
	if (n > max) {
		cur_fail(c, CUR_INVALID, what);
		return;
	}
	cur_skip(c, (size_t)n * elem, what);
}

static void state_protect_ops(struct cursor *c)
{
	nfs4_skip_bitmap4(c, NULL, NULL);
	nfs4_skip_bitmap4(c, NULL, NULL);
}

static void skip_nfsace(struct cursor *c)
{
	cur_skip(c, 12, "nfsace4");
	cur_xdr_opaque(c, 1024, NULL, "who");
}

/* open_delegation4: a READ or WRITE delegation's stateid is kept (the
 * replay maps a trace delegation to what the target's same OPEN got). */
static void open_delegation(struct cursor *c, struct nfs4_res *r, uint32_t idx)
{
	uint32_t t = cur_be32(c, "open_delegation_type4");
	struct nfs4_stateid s;
	switch (t) {
	case 0:
		break;
	case 1: /* READ */
	case 2: /* WRITE */
		get_stateid(c, &s);
		cur_skip(c, 4, "recall");
		if (t == 2) {
			if (cur_be32(c, "limitby") == 1)
				cur_skip(c, 8, "filesize");
			else
				cur_skip(c, 8, "modified blocks");
		}
		skip_nfsace(c);
		if (cur_ok(c) && r->ndeleg < NFS4_RES_MAXSID) {
			r->deleg[r->ndeleg] = s;
			r->deleg_at[r->ndeleg] = idx;
			r->deleg_type[r->ndeleg++] = (uint8_t)t;
		}
		break;
	case 3: { /* NONE_EXT */
		uint32_t why = cur_be32(c, "why_no_delegation4");
		if (why == 2 || why == 3)
			cur_skip(c, 4, "server_will_push/signal");
		break;
	}
	default:
		cur_fail(c, CUR_INVALID, "open_delegation_type4");
	}
}

/* Results of one op (status already read and OK unless noted).  Returns
 * false for an op whose results we do not know (the walk stops). */
static bool op_result(struct cursor *c, uint32_t op, uint32_t st, uint32_t idx, bool bulk_moved,
		      struct nfs4_res *r)
{
	if (op == NFS4_OP_SETATTR) {
		nfs4_skip_bitmap4(c, NULL, NULL);      /* attrsset, whatever the status */
		return true;
	}
	if (st != 0) {
		switch (op) {
		case NFS4_OP_LOCK: case NFS4_OP_LOCKT:
			if (st == 10010) {  /* NFS4ERR_DENIED */
				cur_skip(c, 8 + 8 + 4 + 8, "lock4denied");
				cur_xdr_opaque(c, 1024, NULL, "lock owner");
			}
			break;
		case NFS4_OP_COPY:
			if (st == 10094)
				cur_skip(c, 8, "copy_requirements4");
			break;
		case NFS4_OP_SETCLIENTID:
			if (st == 10017) {  /* NFS4ERR_CLID_INUSE: clientaddr4 */
				cur_xdr_opaque(c, 1024, NULL, "r_netid");
				cur_xdr_opaque(c, 1024, NULL, "r_addr");
			}
			break;
		default:
			break;
		}
		return true;
	}
	switch (op) {
	case NFS4_OP_ACCESS: cur_skip(c, 8, "access"); break;
	case NFS4_OP_CLOSE: case NFS4_OP_LOCKU: case NFS4_OP_OPEN_DOWNGRADE: case NFS4_OP_LOCK:
	case NFS4_OP_OPEN_CONFIRM:
		keep_sid(r, c, idx);
		break;
	case NFS4_OP_COMMIT: cur_skip(c, 8, "writeverf"); break;
	case NFS4_OP_CREATE: cur_skip(c, 20, "change_info4"); nfs4_skip_bitmap4(c, NULL, NULL); break;
	case NFS4_OP_GETATTR: getattr_res(c, r); break;
	case NFS4_OP_GETFH: {
		uint32_t n;
		const uint8_t *p = cur_xdr_opaque(c, NFS4_FHSIZE_MAX, &n, "nfs_fh4");
		if (p && r->nfh < NFS4_RES_MAXFH) {
			r->fh[r->nfh].len = n;
			memcpy(r->fh[r->nfh].data, p, n);
			r->fh_at[r->nfh++] = idx;
		}
		break;
	}
	case NFS4_OP_LINK: case NFS4_OP_REMOVE: case NFS4_OP_SETXATTR: case NFS4_OP_REMOVEXATTR:
		cur_skip(c, 20, "change_info4");
		break;
	case NFS4_OP_OPEN: {
		keep_sid(r, c, idx);
		cur_skip(c, 20, "change_info4");
		uint32_t rflags = cur_be32(c, "rflags");
		if (cur_ok(c) && !r->has_open) {
			r->has_open = true;
			r->open_rflags = rflags;
			r->open_at = idx;
		}
		nfs4_skip_bitmap4(c, NULL, NULL);
		open_delegation(c, r, idx);
		break;
	}
	case NFS4_OP_SETCLIENTID: {
		r->sc_clientid = cur_be64(c, "clientid");
		const uint8_t *p = cur_bytes(c, 8, "setclientid_confirm");
		if (p) {
			memcpy(r->sc_confirm, p, 8);
			r->has_setclientid = true;
		}
		break;
	}
	case NFS4_OP_READ: {
		r->eof = cur_be32(c, "eof") != 0;
		uint32_t n = cur_be32(c, "data length");
		if (!bulk_moved)
			cur_skip(c, ((size_t)n + 3) & ~(size_t)3, "data");
		/* counted once the data is there (or was moved by DDP): a
		 * truncated reply claims no bytes it does not carry */
		if (cur_ok(c))
			r->read_count += n;
		break;
	}
	case NFS4_OP_READDIR: {
		cur_skip(c, 8, "cookieverf");
		for (uint32_t guard = 0; cur_ok(c) && guard < BIG; guard++) {
			uint32_t more = cur_be32(c, "entry4");
			if (more != 1)
				break;
			cur_skip(c, 8, "cookie");
			cur_xdr_opaque(c, 1024, NULL, "name");
			nfs4_skip_fattr4(c);
			if (cur_ok(c))
				r->nentries++;
		}
		cur_skip(c, 4, "eof");
		break;
	}
	case NFS4_OP_READLINK:
		if (!bulk_moved)
			cur_xdr_opaque(c, 4096, NULL, "linktext");
		else
			cur_skip(c, 4, "linktext length");
		break;
	case NFS4_OP_RENAME: cur_skip(c, 40, "change_info4 x2"); break;
	case NFS4_OP_SECINFO: case NFS4_OP_SECINFO_NO_NAME: {
		uint32_t n = cur_be32(c, "secinfo4 count");
		if (n > 64) {
			cur_fail(c, CUR_INVALID, "secinfo4 count");
			break;
		}
		for (uint32_t i = 0; i < n && cur_ok(c); i++)
			if (cur_be32(c, "flavor") == 6) {
				cur_xdr_opaque(c, 1024, NULL, "oid");
				cur_skip(c, 8, "qop service");
			}
		break;
	}
	case NFS4_OP_WRITE:
		r->write_count += cur_be32(c, "count");
		cur_skip(c, 12, "committed verifier");
		break;
	case NFS4_OP_EXCHANGE_ID: {
		r->clientid = cur_be64(c, "clientid");
		r->eir_seq = cur_be32(c, "sequenceid");
		r->eir_flags = cur_be32(c, "flags");
		uint32_t how = cur_be32(c, "state_protect_how4");
		if (how == 1) {
			state_protect_ops(c);
		} else if (how == 2) {
			state_protect_ops(c);
			cur_skip(c, 16, "ssv_prot_info4");
			uint32_t n = cur_be32(c, "spi_handles");
			if (n > 64)
				cur_fail(c, CUR_INVALID, "spi_handles");
			for (uint32_t i = 0; i < n && cur_ok(c); i++)
				cur_xdr_opaque(c, 1024, NULL, "handle");
		} else if (how != 0) {
			cur_fail(c, CUR_INVALID, "state_protect_how4");
		}
		cur_skip(c, 8, "so_minor_id");
		cur_xdr_opaque(c, 1024, NULL, "so_major_id");
		cur_xdr_opaque(c, 1024, NULL, "server_scope");
		uint32_t n = cur_be32(c, "impl_id count");
		if (n > 1)
			cur_fail(c, CUR_INVALID, "impl_id count");
		for (uint32_t i = 0; i < n && cur_ok(c); i++) {
			cur_xdr_opaque(c, 1024, NULL, "domain");
			cur_xdr_opaque(c, 1024, NULL, "name");
			cur_skip(c, 12, "date");
		}
		r->has_clientid = cur_ok(c);
		break;
	}
	case NFS4_OP_CREATE_SESSION: {
		const uint8_t *p = cur_bytes(c, 16, "sessionid");
		if (p)
			memcpy(r->sessionid, p, 16);
		r->cs_seq = cur_be32(c, "sequence");
		r->cs_flags = cur_be32(c, "flags");
		for (int ch = 0; ch < 2 && cur_ok(c); ch++) {
			cur_skip(c, 4, "headerpadsize");
			uint32_t maxreq = cur_be32(c, "maxrequestsize");
			uint32_t maxresp = cur_be32(c, "maxresponsesize");
			cur_skip(c, 8, "maxresponsesize_cached maxoperations");
			uint32_t reqs = cur_be32(c, "maxrequests");
			skip_array(c, 4, 1, "rdma_ird");
			if (ch == 0) {
				r->fore_maxreq = maxreq;
				r->fore_maxresp = maxresp;
				r->fore_maxreqs = reqs;
			}
		}
		r->has_session = cur_ok(c);
		break;
	}
	case NFS4_OP_BIND_CONN_TO_SESSION: {
		const uint8_t *p = cur_bytes(c, 16, "bctsr_sessid");
		if (p)
			memcpy(r->sessionid, p, 16);
		r->bcts_dir = cur_be32(c, "bctsr_dir");
		r->bcts_rdma_mode = cur_be32(c, "bctsr_use_conn_in_rdma_mode") != 0;
		r->has_bcts = cur_ok(c);
		break;
	}
	case NFS4_OP_SEQUENCE:
		cur_skip(c, 16, "sessionid");
		r->seq_seqid = cur_be32(c, "sequenceid");
		r->seq_slot = cur_be32(c, "slotid");
		r->seq_highest = cur_be32(c, "highest_slotid");
		r->seq_target_highest = cur_be32(c, "target_highest_slotid");
		r->seq_flags = cur_be32(c, "status_flags");
		break;
	case NFS4_OP_TEST_STATEID: skip_array(c, 4, 4096, "status codes"); break;
	case NFS4_OP_SEEK: cur_skip(c, 4 + 8, "eof offset"); break;
	case NFS4_OP_COPY:
		/* write_response4: callback id<1>, count, committed, verifier */
		skip_array(c, 16, 1, "wr_callback_id");
		cur_skip(c, 8 + 4 + 8, "count committed verifier");
		cur_skip(c, 8, "copy_requirements4");
		break;
	case NFS4_OP_READ_PLUS: {
		r->eof = cur_be32(c, "eof") != 0;
		uint32_t n = cur_be32(c, "contents");
		if (n > BIG) {
			cur_fail(c, CUR_INVALID, "contents");
			break;
		}
		for (uint32_t i = 0; i < n && cur_ok(c); i++) {
			uint32_t t = cur_be32(c, "data_content4");
			cur_skip(c, 8, "offset");
			if (t == 0) {
				uint32_t dl = 0;
				if (cur_xdr_opaque(c, 64 * BIG, &dl, "data"))
					r->read_count += dl;
			} else {
				cur_skip(c, 8, "length");
			}
		}
		break;
	}
	case NFS4_OP_LAYOUTRETURN:
		if (cur_be32(c, "lrs_present") == 1)
			cur_skip(c, 16, "stateid");
		break;
	case NFS4_OP_GETXATTR: cur_xdr_opaque(c, BIG, NULL, "xattrvalue4"); break;
	case NFS4_OP_OFFLOAD_STATUS: cur_skip(c, 8, "count"); skip_array(c, 4, 1, "complete"); break;
	case NFS4_OP_DELEGPURGE: case NFS4_OP_DELEGRETURN: case NFS4_OP_LOOKUP: case NFS4_OP_LOOKUPP:
	case NFS4_OP_NVERIFY: case NFS4_OP_VERIFY: case NFS4_OP_OPENATTR: case NFS4_OP_PUTFH:
	case NFS4_OP_PUTPUBFH: case NFS4_OP_PUTROOTFH: case NFS4_OP_RENEW: case NFS4_OP_RESTOREFH:
	case NFS4_OP_SAVEFH: case NFS4_OP_SETCLIENTID_CONFIRM: case NFS4_OP_RELEASE_LOCKOWNER:
	case NFS4_OP_BACKCHANNEL_CTL: case NFS4_OP_DESTROY_SESSION: case NFS4_OP_FREE_STATEID:
	case NFS4_OP_DESTROY_CLIENTID: case NFS4_OP_RECLAIM_COMPLETE: case NFS4_OP_ALLOCATE:
	case NFS4_OP_DEALLOCATE: case NFS4_OP_OFFLOAD_CANCEL: case NFS4_OP_CLONE:
	case NFS4_OP_LAYOUTERROR: case NFS4_OP_LAYOUTSTATS: case NFS4_OP_LOCKT:
		break;
	default:
		return false;
	}
	return true;
}

int nfs4_decode_body(uint32_t proc, const uint8_t *p, size_t len, bool bulk_moved,
		     struct nfs4_res *r)
{
	struct cursor c = cur_make(p, len);

	if (proc == 0) {
		r->has_status = true;
		r->status = 0;
		r->complete = true;
		return 0;
	}
	r->status = cur_be32(&c, "nfsstat4");
	cur_xdr_opaque(&c, 1024, NULL, "tag");
	uint32_t n = cur_be32(&c, "resarray count");
	if (!cur_ok(&c))
		return -EBADMSG;
	r->has_status = true;
	if (n > 4096)
		return -EBADMSG;
	/* nres counts the results present, not the count the server claims:
	 * a truncated reply must not make callers look at results (op, opst)
	 * that were never decoded */
	r->nres = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t op = cur_be32(&c, "resop");
		uint32_t st = cur_be32(&c, "status");
		if (!cur_ok(&c))
			return -EBADMSG;
		r->nres = i + 1;
		if (i < NFS4_RES_MAXOPS) {
			r->op[i] = op;
			r->opst[i] = st;
		}
		if (op == NFS4_OP_SEQUENCE) {
			r->has_seq = true;
			r->seq_status = st;
		}
		if (op == NFS4_OP_ILLEGAL)
			break;
		if (!op_result(&c, op, st, i, bulk_moved, r) || !cur_ok(&c))
			return -EBADMSG;
	}
	r->complete = true;
	return 0;
}

int nfs4_decode_reply(uint32_t proc, const uint8_t *msg, size_t len, bool bulk_moved,
		      struct nfs4_res *res)
{
	struct rpc_res h;
	size_t off;

	memset(res, 0, sizeof(*res));
	if (rpc_decode_reply_hdr(msg, len, &h, &off) < 0) {
		res->rpc_status = 0xffff;
		return -EBADMSG;
	}
	res->ok = true;
	res->rpc_status = h.rpc_status;
	if (h.rpc_status != 0)
		return 0;
	nfs4_decode_body(proc, msg + off, len - off, bulk_moved, res);
	return 0;
}

static bool res_sid_at(const struct nfs4_res *r, uint32_t idx, struct nfs4_stateid *out)
{
	for (unsigned j = 0; j < r->nsid; j++)
		if (r->sid_at[j] == idx) {
			*out = r->sid[j];
			return true;
		}
	return false;
}

unsigned nfs4_deleg_pairs(const struct nfs4_res *tr, const struct nfs4_res *rr,
			  struct nfs4_deleg_pair *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned j = 0; j < tr->ndeleg && n < max; j++) {
		uint32_t at = tr->deleg_at[j];
		struct nfs4_deleg_pair p = { .tdeleg = tr->deleg[j] };
		/* the same OPEN, answered OK by the target */
		if (at >= rr->nres || at >= NFS4_RES_MAXOPS || rr->op[at] != NFS4_OP_OPEN ||
		    rr->opst[at] != 0 || !res_sid_at(tr, at, &p.topen))
			continue;
		for (unsigned k = 0; k < rr->ndeleg && !p.granted; k++)
			if (rr->deleg_at[k] == at) {
				p.granted = true;
				p.g = rr->deleg[k];
			}
		if (!p.granted && !res_sid_at(rr, at, &p.g))
			continue;
		out[n++] = p;
	}
	return n;
}
