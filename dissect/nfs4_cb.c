/* The NFSv4.1 backchannel (RFC 8881 section 20): CB_COMPOUND calls and
 * replies, every callback operation named, arguments walked. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/nfs4_int.h"

/* ---- backchannel --------------------------------------------------- */

/* notify4<> of NFS4_OP_CB_NOTIFY and NFS4_OP_CB_NOTIFY_DEVICEID: a bitmap and its values each. */
static void notify4_list(struct pdec *d)
{
	uint32_t n = nfs4_array_count(d, 1024, "changes count");
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		nfs4_bitmap4(d, NULL, NULL);
		xdr_skip_opaque(d, BIG, "notify_vals");
	}
}

static bool cb_args(struct pdec *d, uint32_t op, struct rec_op *o)
{
	switch (op) {
	case NFS4_OP_CB_GETATTR:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		nfs4_bitmap4(d, NULL, NULL);
		break;
	case NFS4_OP_CB_RECALL: {
		o->seqid = nfs4_stateid4_dt(d, "stateid");
		bool trunc = xdr_bool(d, "truncate");
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH | REC_OPF_SEQID;
		if (xdr_ok(d))
			DT(d->tree, "truncate: %s fh: hash 0x%08" PRIx32, trunc ? "yes" : "no", (uint32_t)o->fh_hash);
		break;
	}
	case NFS4_OP_CB_LAYOUTRECALL: {
		xdr_skip(d, 8, "type iomode");
		xdr_bool(d, "changed");
		uint32_t t = xdr_u32(d, "layoutrecall_type4");
		if (t == 1) {
			o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
			o->offset = xdr_u64(d, "offset");
			xdr_u64(d, "length");
			o->seqid = nfs4_stateid4(d);
			o->flags |= REC_OPF_FH | REC_OPF_OFFSET | REC_OPF_SEQID;
		} else if (t == 2) {
			xdr_skip(d, 16, "fsid");
		}
		break;
	}
	case NFS4_OP_CB_NOTIFY:
		nfs4_stateid4(d);
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		notify4_list(d);
		break;
	case NFS4_OP_CB_PUSH_DELEG:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		nfs4_open_delegation4(d);
		break;
	case NFS4_OP_CB_RECALL_ANY: case NFS4_OP_CB_RECALLABLE_OBJ_AVAIL:
		xdr_u32(d, "objects_to_keep");
		nfs4_bitmap4(d, NULL, NULL);
		break;
	case NFS4_OP_CB_RECALL_SLOT: xdr_u32(d, "target_highest_slotid"); break;
	case NFS4_OP_CB_SEQUENCE: {
		xdr_skip(d, 16, "sessionid");
		o->seqid = xdr_u32(d, "sequenceid");
		o->flags |= REC_OPF_SEQID;
		uint32_t slot = xdr_u32(d, "slotid"), hi = xdr_u32(d, "highest_slotid");
		xdr_bool(d, "cachethis");
		if (xdr_ok(d))
			DT(d->tree, "seqid: %u slot: %u highest slot: %u", o->seqid, slot, hi);
		uint32_t n = nfs4_array_count(d, 1024, "referring_call_lists count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
			xdr_skip(d, 16, "sessionid");
			xdr_skip_array(d, 8, 1024, "referring_calls");
		}
		break;
	}
	case NFS4_OP_CB_WANTS_CANCELLED: xdr_bool(d, "contended"); xdr_bool(d, "resourced"); break;
	case NFS4_OP_CB_NOTIFY_LOCK:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		nfs4_lock_owner4(d);
		break;
	case NFS4_OP_CB_NOTIFY_DEVICEID: notify4_list(d); break;
	case NFS4_OP_CB_OFFLOAD:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_FH | REC_OPF_SEQID;
		if (xdr_u32(d, "osr_status") == 0)
			nfs4_write_response4(d);
		else
			xdr_u64(d, "osr_bytes_copied");
		break;
	default:
		return false;
	}
	return true;
}

static void cb_call(struct pdec *d)
{
	struct nfsrdma_record *r = d->rec;
	char tag[64];

	if (d->proc != 1)
		return;
	xdr_string(d, NFS4_OPAQUE, tag, sizeof(tag), "cb_compound tag");
	r->minorvers = xdr_u32(d, "minorversion");
	uint32_t ident = xdr_u32(d, "callback_ident");
	uint32_t n;
	if (!nfs4_argarray_count(d, &n))
		return;
	DT(d->tree, "CB_COMPOUND: tag \"%s\" minorversion %u callback_ident %u, %u op(s)", tag,
	   r->minorvers, ident, n);
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "nfs_cb_opnum4");
		struct rec_op scratch, *o = nfs4_call_op_slot(r, i, &scratch, (uint16_t)op);
		DT(d->tree, "op %u: %s", i, nfs4_cb_op_name(op));
		dt_push(d->tree);
		bool known = cb_args(d, op, o);
		dt_pop(d->tree);
		if (!known) {
			xdr_bad_u32(d, "nfs_cb_opnum4 (unknown operation)");
			break;
		}
		if (!r->fh_hash && (o->flags & REC_OPF_FH))
			r->fh_hash = o->fh_hash;
	}
}

static void cb_reply(struct pdec *d)
{
	struct nfsrdma_record *r = d->rec;

	if (d->proc != 1) {
		r->status = 0;
		return;
	}
	r->status = xdr_u32(d, "nfsstat4");
	xdr_skip_opaque(d, NFS4_OPAQUE, "cb_compound tag");
	uint32_t n = xdr_u32(d, "resarray count");
	if (!xdr_ok(d))
		return;
	DT(d->tree, "CB_COMPOUND status: NFS4_%s (%u), %u result(s)",
	   r->status ? nfs_stat_name(r->status) : "OK", r->status, n);
	if (nfs4_too_many_ops(d, n, "resarray count"))
		return;
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "resop");
		uint32_t st = xdr_u32(d, "status");
		if (xdr_ok(d))
			DT(d->tree, "op %u: %s -> %s", i, nfs4_cb_op_name(op), st ? nfs_stat_name(st) : "OK");
		if (i < REC_MAX_OPS) {
			r->ops[i].op = (uint16_t)op;
			r->ops[i].status = st;
		}
		if (i >= r->nops)
			r->nops = (uint16_t)(i + 1);
		if (st)
			break;
		if (op == NFS4_OP_CB_SEQUENCE)
			xdr_skip(d, 16 + 16, "cb_sequence result");
		else if (op == NFS4_OP_CB_GETATTR)
			nfs4_fattr4(d);
		else if (op < NFS4_OP_CB_GETATTR || op > NFS4_OP_CB_OFFLOAD) {
			xdr_bad_u32(d, "resop (unknown operation)");
			break;
		}
	}
}

static const char *cb_proc_name(uint32_t vers, uint32_t proc)
{
	return proc == 0 ? "CB_NULL" : proc == 1 ? "CB_COMPOUND" : NULL;
}

static bool cb_ddp(uint32_t vers, uint32_t proc, bool reply) { return false; }

const struct prog_info prog_nfs_cb = {
	.prog = PROG_NFS_CB, .vmin = 1, .vmax = 4, .name = "NFSCB", .layer = "nfs4cb",
	.proc_name = cb_proc_name, .decode_call = cb_call, .decode_reply = cb_reply,
	.ddp_eligible = cb_ddp,
};
