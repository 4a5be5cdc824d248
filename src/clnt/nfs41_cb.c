/* The NFSv4.1 callback service of the replay's client: the server's calls
 * on the session's back channel (RFC 8881 section 20; over RDMA, RFC 8167
 * reverse-direction calls on the same connection).  See nfs4_cb.h.
 * The calls are hostile input: bounded reads, a reply for every call
 * that decodes that far, nothing trusted beyond the message. */
#include "src/clnt/nfs4_cb.h"

#include <string.h>

#include "dissect/extract.h"

enum {
	CB_OPS_MAX = 16,                          /* more is NFS4ERR_RESOURCE */
	ERR_NOTSUPP = 10004, ERR_OP_ILLEGAL = 10044, ERR_RESOURCE = 10018, ERR_BADXDR = 10036,
	AS_SUCCESS = 0, AS_PROG_MISMATCH = 2, AS_PROC_UNAVAIL = 3, AS_GARBAGE_ARGS = 4,
};

/* RPC reply header, accepted, AUTH_NONE verifier, then stat. */
static void reply_head(struct xenc *x, uint32_t xid, uint32_t stat)
{
	xenc_u32(x, xid);
	xenc_u32(x, 1);        /* REPLY */
	xenc_u32(x, 0);        /* MSG_ACCEPTED */
	xenc_u32(x, 0);        /* verifier AUTH_NONE */
	xenc_u32(x, 0);
	xenc_u32(x, stat);
	if (stat == AS_PROG_MISMATCH) {
		xenc_u32(x, 1);
		xenc_u32(x, 1);
	}
}

/* One NFS4_OP_CB_SEQUENCE: its result is the server's own slot and sequence
 * back (we keep no reply cache: cachethis is answered like the rest). */
static uint32_t cb_sequence(struct cursor *c, struct xenc *x)
{
	const uint8_t *sid = cur_bytes(c, 16, "csa_sessionid");
	uint32_t seq = cur_be32(c, "csa_sequenceid");
	uint32_t slot = cur_be32(c, "csa_slotid");
	uint32_t hi = cur_be32(c, "csa_highest_slotid");
	cur_skip(c, 4, "csa_cachethis");
	uint32_t nrcl = cur_be32(c, "csa_referring_call_lists count");
	for (uint32_t i = 0; i < nrcl && cur_ok(c); i++) {
		cur_skip(c, 16, "rcl_sessionid");
		uint32_t n = cur_be32(c, "rcl_referring_calls count");
		if (n > 1024 || !cur_skip(c, (size_t)n * 8, "referring_call4"))
			cur_fail(c, CUR_INVALID, "rcl_referring_calls count");
	}
	if (!sid || !cur_ok(c))
		return ERR_BADXDR;
	xenc_u32(x, 0);
	xenc_fixed(x, sid, 16);
	xenc_u32(x, seq);
	xenc_u32(x, slot);
	xenc_u32(x, hi);
	xenc_u32(x, hi);       /* csr_target_highest_slotid */
	return 0;
}

static uint32_t cb_recall(struct nfs41_cb *cb, struct cursor *c, struct xenc *x)
{
	struct nfs41_cb_recall r;
	memset(&r, 0, sizeof(r));
	r.sid.seqid = cur_be32(c, "stateid seqid");
	const uint8_t *o = cur_bytes(c, 12, "stateid other");
	r.truncate = cur_be32(c, "truncate") != 0;
	uint32_t n;
	const uint8_t *fh = cur_xdr_opaque(c, NFS4_FHSIZE_MAX, &n, "fh");
	if (!o || !fh || !cur_ok(c))
		return ERR_BADXDR;
	memcpy(r.sid.other, o, 12);
	r.fh.len = n;
	memcpy(r.fh.data, fh, n);
	cb->recalls++;
	if (cb->recall)
		cb->recall(cb->ctx, &r);
	xenc_u32(x, 0);
	return 0;
}

size_t nfs41_cb_serve(void *ctx, const uint8_t *msg, size_t len, uint8_t *out, size_t cap)
{
	struct nfs41_cb *cb = ctx;
	struct cursor c = cur_make(msg, len);
	struct xenc x;

	cb->calls++;
	uint32_t xid = cur_be32(&c, "xid");
	cur_skip(&c, 4, "msg_type");
	uint32_t rpcvers = cur_be32(&c, "rpcvers");
	cur_skip(&c, 4, "prog");
	uint32_t vers = cur_be32(&c, "vers");
	uint32_t proc = cur_be32(&c, "proc");
	for (int i = 0; i < 2; i++) {
		cur_skip(&c, 4, "auth flavor");
		cur_xdr_opaque(&c, 400, NULL, "auth body");
	}
	if (!cur_ok(&c) || rpcvers != 2) {
		cb->bad++;
		return 0;      /* not even an RPC call header: nothing to answer */
	}
	xenc_init(&x, out, cap);
	if (vers != 1) {
		reply_head(&x, xid, AS_PROG_MISMATCH);
		return xenc_ok(&x) ? x.len : 0;
	}
	if (proc == 0) {
		cb->nulls++;
		reply_head(&x, xid, AS_SUCCESS);
		return xenc_ok(&x) ? x.len : 0;
	}
	if (proc != 1) {
		reply_head(&x, xid, AS_PROC_UNAVAIL);
		return xenc_ok(&x) ? x.len : 0;
	}
	uint32_t tlen;
	const uint8_t *tag = cur_xdr_opaque(&c, 1024, &tlen, "tag");
	cur_be32(&c, "minorversion");
	cur_be32(&c, "callback_ident");
	uint32_t n = cur_be32(&c, "argarray count");
	if (!tag || !cur_ok(&c)) {
		cb->bad++;
		reply_head(&x, xid, AS_GARBAGE_ARGS);
		return xenc_ok(&x) ? x.len : 0;
	}
	cb->compounds++;
	reply_head(&x, xid, AS_SUCCESS);
	size_t status_at = x.len;
	xenc_u32(&x, 0);
	xenc_opaque(&x, tag, tlen);
	size_t count_at = x.len;
	xenc_u32(&x, 0);
	uint32_t status = 0, nres = 0;
	if (n > CB_OPS_MAX)
		status = ERR_RESOURCE;
	for (uint32_t i = 0; i < n && !status; i++) {
		uint32_t op = cur_be32(&c, "nfs_cb_opnum4");
		if (!cur_ok(&c)) {
			status = ERR_BADXDR;
			break;
		}
		xenc_u32(&x, op == NFS4_OP_CB_SEQUENCE || op == NFS4_OP_CB_RECALL || op == NFS4_OP_CB_RECALL_ANY ||
			     (op >= NFS4_OP_CB_GETATTR && op <= NFS4_OP_CB_LAST) ? op : NFS4_OP_CB_ILLEGAL);
		nres++;
		switch (op) {
		case NFS4_OP_CB_SEQUENCE:
			status = cb_sequence(&c, &x);
			break;
		case NFS4_OP_CB_RECALL:
			status = cb_recall(cb, &c, &x);
			break;
		case NFS4_OP_CB_RECALL_ANY: {
			cur_skip(&c, 4, "craa_objects_to_keep");
			uint32_t bn = cur_be32(&c, "bitmap4 length");
			if (bn > 8 || !cur_skip(&c, (size_t)bn * 4, "bitmap4")) {
				status = ERR_BADXDR;
				break;
			}
			cb->recall_any++;
			xenc_u32(&x, 0);
			break;
		}
		default:
			cb->unsupported++;
			status = op >= 3 && op <= 15 ? ERR_NOTSUPP : ERR_OP_ILLEGAL;
			break;
		}
		if (status)
			xenc_u32(&x, status);
	}
	if (!xenc_ok(&x))
		return 0;
	xenc_put_u32_at(out + status_at, status);
	xenc_put_u32_at(out + count_at, nres);
	return x.len;
}
