/* NFSv4.0 / 4.1 / 4.2 COMPOUND (RFC 7530, 8881, 7862, 8276): every
 * operation named; arguments walked here, results in nfs4_res.c, so each
 * op's status and key fields (filehandle hash, offset, count, stateid
 * seqid) land in the record's op list.  An op whose XDR we cannot walk
 * stops the walk (the ops before it stay decoded).  The backchannel's
 * CB_COMPOUND is in nfs4_cb.c, the XDR types they share in nfs4_xdr.c. */
#include "dissect/nfs4.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/nfs4_int.h"
#include "dissect/nfs_xdr_skip.h"
#include "dissect/pnfs_rdma.h"

/* ---- per-op arguments ---------------------------------------------- */

struct v4state {
	uint64_t cur_fh;
	unsigned read_ops;      /* Write list consumers: READ, READLINK */
	unsigned write_ops;     /* Read chunk consumers: WRITE, CREATE(NF4LNK), SETXATTR? no */
	bool read_plus;
};

static void op_key(struct pdec *d, struct rec_op *o, struct v4state *s, bool main)
{
	struct nfsrdma_record *r = d->rec;
	if (!main)
		return;
	if (!r->fh_hash && s->cur_fh)
		r->fh_hash = s->cur_fh;
	if (o->flags & REC_OPF_OFFSET && !r->offset)
		r->offset = o->offset;
	if (o->flags & REC_OPF_COUNT && !r->count)
		r->count = o->count;
}

/* Returns false when the op's XDR is unknown (walk stops). */
/* COPY and CLONE start alike: source and destination stateids, source and
 * destination offsets, count.  The record keeps the destination side. */
static void copy_range4(struct pdec *d, struct rec_op *o)
{
	o->seqid = nfs4_stateid4(d);
	nfs4_stateid4(d);
	xdr_u64(d, "src_offset");
	o->offset = xdr_u64(d, "dst_offset");
	o->count = (uint32_t)xdr_u64(d, "count");
	o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
}

/* A lock's 64-bit length in the record's 32-bit count: lengths of 4 GiB
 * and more (all ones: to the end of the file) saturate. */
static uint32_t lock_length(uint64_t len)
{
	return len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
}

static bool op_args(struct pdec *d, uint32_t op, struct rec_op *o, struct v4state *s)
{
	uint32_t w0 = 0, w1 = 0;
	bool moved;

	switch (op) {
	case NFS4_OP_ACCESS: xdr_u32(d, "access"); break;
	case NFS4_OP_CLOSE: {
		uint32_t owner_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "open-owner seqid: %u", owner_seqid);
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case NFS4_OP_COMMIT:
		o->offset = xdr_u64(d, "offset");
		o->count = xdr_u32(d, "count");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		break;
	case NFS4_OP_CREATE: {
		uint32_t type = xdr_u32(d, "createtype4");
		o->count = type;  /* kept so the COMPOUND can be named SYMLINK */
		if (xdr_ok(d))
			DT(d->tree, "objtype: %s (%u)", type < 10 ? nfs4_ftype_names[type] : "?", type);
		if (type == 5) {
			uint32_t n = xdr_ddp_opaque(d, NFS4_OPAQUE * 4, &moved, "linkdata");
			if (xdr_ok(d))
				DT(d->tree, "linkdata: %u bytes%s", n, moved ? " (Read chunk)" : "");
			s->write_ops++;
		} else if (type == 3 || type == 4) {
			xdr_skip(d, 8, "specdata4");
		}
		nfs4_component_dt(d, "objname", true);
		nfs4_fattr4(d);
		break;
	}
	case NFS4_OP_DELEGPURGE: xdr_skip(d, 8, "clientid"); break;
	case NFS4_OP_DELEGRETURN: case NFS4_OP_FREE_STATEID:
		o->seqid = nfs4_stateid4_dt(d, "stateid");
		o->flags |= REC_OPF_SEQID;
		break;
	case NFS4_OP_OFFLOAD_CANCEL: case NFS4_OP_OFFLOAD_STATUS:
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_SEQID;
		break;
	case NFS4_OP_GETATTR:
		nfs4_bitmap4(d, &w0, &w1);
		/* bitmap kept in offset: lets the COMPOUND be named like the
		 * client names it (FSINFO, PATHCONF, STATFS, SERVER_CAPS...) */
		o->offset = ((uint64_t)w1 << 32) | w0;
		break;
	case NFS4_OP_GETFH: case NFS4_OP_LOOKUPP: case NFS4_OP_PUTPUBFH: case NFS4_OP_PUTROOTFH: case NFS4_OP_READLINK:
	case NFS4_OP_RESTOREFH: case NFS4_OP_SAVEFH:
		if (op == NFS4_OP_READLINK)
			s->read_ops++;
		break;
	case NFS4_OP_LINK:
		nfs4_component_dt(d, "newname", true);
		break;
	case NFS4_OP_LOOKUP: case NFS4_OP_REMOVE: case NFS4_OP_SECINFO:
		nfs4_component_dt(d, "name", true);
		break;
	case NFS4_OP_LOCK: {
		xdr_u32(d, "locktype");
		xdr_bool(d, "reclaim");
		o->offset = xdr_u64(d, "offset");
		o->count = lock_length(xdr_u64(d, "length"));
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		if (xdr_bool(d, "new_lock_owner")) {
			uint32_t open_seqid = xdr_u32(d, "open_seqid");
			o->seqid = nfs4_stateid4(d);
			uint32_t lock_seqid = xdr_u32(d, "lock_seqid");
			DT(d->tree, "new lock-owner: open-owner seqid: %u lock-owner seqid: %u", open_seqid, lock_seqid);
			nfs4_lock_owner4(d);
		} else {
			o->seqid = nfs4_stateid4(d);
			uint32_t lock_seqid = xdr_u32(d, "lock_seqid");
			DT(d->tree, "lock-owner seqid: %u", lock_seqid);
		}
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case NFS4_OP_LOCKT:
		xdr_u32(d, "locktype");
		o->offset = xdr_u64(d, "offset");
		o->count = lock_length(xdr_u64(d, "length"));
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		nfs4_lock_owner4(d);
		break;
	case NFS4_OP_LOCKU: {
		xdr_u32(d, "locktype");
		uint32_t lock_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "lock-owner seqid: %u", lock_seqid);
		o->seqid = nfs4_stateid4(d);
		o->offset = xdr_u64(d, "offset");
		o->count = lock_length(xdr_u64(d, "length"));
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
		break;
	}
	case NFS4_OP_NVERIFY: case NFS4_OP_VERIFY: nfs4_fattr4(d); break;
	case NFS4_OP_OPEN: {
		o->seqid = xdr_u32(d, "seqid");
		o->flags |= REC_OPF_SEQID;
		uint32_t acc = xdr_u32(d, "share_access"), deny = xdr_u32(d, "share_deny");
		/* 4.1 keeps its WANT_ flags in the high bits of share_access */
		DT(d->tree, "open-owner seqid: %u share access %s%s deny %s", o->seqid, nfs4_share_names[acc & 3],
		   (acc & ~3u) ? " +want flags" : "", nfs4_share_names[deny & 3]);
		xdr_skip(d, 8, "open_owner clientid");
		xdr_skip_opaque(d, NFS4_OPAQUE, "open_owner owner");
		nfs4_skip_openflag4(&d->c, NULL);
		uint32_t claim = xdr_u32(d, "open_claim_type4");
		o->count = claim;  /* by-filehandle claims: the client calls it OPEN_NOATTR */
		if (xdr_ok(d))
			DT(d->tree, "claim: %s (%u)", claim < 7 ? nfs4_claim_names[claim] : "?", claim);
		switch (claim) {
		case NFS4_CLAIM_NULL: case NFS4_CLAIM_DELEGATE_PREV:
			nfs4_component_dt(d, "file", true);
			break;
		case NFS4_CLAIM_PREVIOUS: {
			uint32_t t = xdr_u32(d, "delegate_type");
			if (xdr_ok(d))
				DT(d->tree, "delegate_type: %s", t < 4 ? nfs4_deleg_names[t] : "?");
			break;
		}
		case NFS4_CLAIM_DELEGATE_CUR:
			nfs4_stateid4_dt(d, "delegate stateid");
			nfs4_component_dt(d, "file", true);
			break;
		case NFS4_CLAIM_FH: case NFS4_CLAIM_DELEG_PREV_FH: break;
		case NFS4_CLAIM_DELEG_CUR_FH: nfs4_stateid4_dt(d, "delegate stateid"); break;
		default: xdr_bad_u32(d, "open_claim_type4");
		}
		break;
	}
	case NFS4_OP_OPENATTR: xdr_bool(d, "createdir"); break;
	case NFS4_OP_OPEN_CONFIRM: {
		o->seqid = nfs4_stateid4(d);
		uint32_t owner_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "open-owner seqid: %u", owner_seqid);
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case NFS4_OP_OPEN_DOWNGRADE: {
		o->seqid = nfs4_stateid4(d);
		uint32_t owner_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "open-owner seqid: %u", owner_seqid);
		xdr_skip(d, 8, "share_access share_deny");
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case NFS4_OP_PUTFH:
		s->cur_fh = xdr_fh(d, NFS4_FHSIZE, "nfs_fh4");
		o->fh_hash = s->cur_fh;
		o->flags |= REC_OPF_FH;
		DT(d->tree, "fh: hash 0x%08" PRIx32, (uint32_t)s->cur_fh);
		break;
	case NFS4_OP_READ: case NFS4_OP_READ_PLUS:
		o->seqid = nfs4_stateid4(d);
		o->offset = xdr_u64(d, "offset");
		o->count = xdr_u32(d, "count");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
		if (op == NFS4_OP_READ)
			s->read_ops++;
		else
			s->read_plus = true;
		break;
	case NFS4_OP_READDIR:
		o->offset = xdr_u64(d, "cookie");
		xdr_skip(d, 8, "cookieverf");
		xdr_u32(d, "dircount");
		o->count = xdr_u32(d, "maxcount");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		nfs4_bitmap4(d, NULL, NULL);
		break;
	case NFS4_OP_RENAME:
		nfs4_component_dt(d, "oldname", true);
		nfs4_component_dt(d, "newname", false);
		break;
	case NFS4_OP_RENEW: case NFS4_OP_DESTROY_CLIENTID: xdr_skip(d, 8, "clientid"); break;
	case NFS4_OP_SETATTR:
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_SEQID;
		nfs4_fattr4(d);
		break;
	case NFS4_OP_SETCLIENTID:
		xdr_skip(d, 8, "verifier");
		xdr_skip_opaque(d, NFS4_OPAQUE, "nfs_client_id4 id");
		xdr_u32(d, "cb_program");
		nfs4_netaddr4(d);
		xdr_u32(d, "callback_ident");
		break;
	case NFS4_OP_SETCLIENTID_CONFIRM: xdr_skip(d, 16, "clientid verifier"); break;
	case NFS4_OP_WRITE: {
		o->seqid = nfs4_stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u32(d, "stable");
		o->count = xdr_ddp_opaque(d, BIG * 64, &moved, "write data");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID | (moved ? REC_OPF_DDP : 0);
		s->write_ops++;
		DT(d->tree, "offset: %" PRIu64 " count: %u%s", o->offset, o->count,
		   moved ? " (Read chunk)" : " (inline)");
		break;
	}
	case NFS4_OP_RELEASE_LOCKOWNER: nfs4_lock_owner4(d); break;
	case NFS4_OP_BACKCHANNEL_CTL: xdr_u32(d, "cb_program"); nfs4_sec_parms(d); break;
	case NFS4_OP_BIND_CONN_TO_SESSION: {
		xdr_skip(d, 16, "bctsa_sessid");
		uint32_t dir = xdr_u32(d, "bctsa_dir");
		bool rdma = xdr_bool(d, "bctsa_use_conn_in_rdma_mode");
		DT(d->tree, "dir: %s rdma_mode: %s", nfs4_cdfc4_name(dir), rdma ? "true" : "false");
		break;
	}
	case NFS4_OP_EXCHANGE_ID: {
		xdr_skip(d, 8, "verifier");
		xdr_skip_opaque(d, NFS4_OPAQUE, "co_ownerid");
		xdr_u32(d, "eia_flags");
		uint32_t how = xdr_u32(d, "state_protect_how4");
		if (how == 1)
			nfs4_state_protect_ops4(d);
		else if (how == 2) {
			nfs4_state_protect_ops4(d);
			nfs4_skip_oid_array(d);
			nfs4_skip_oid_array(d);
			xdr_skip(d, 8, "ssp_window ssp_num_gss_handles");
		} else if (how != 0)
			xdr_bad_u32(d, "state_protect_how4");
		nfs4_impl_id(d);
		break;
	}
	case NFS4_OP_CREATE_SESSION:
		xdr_skip(d, 16, "clientid sequence flags");
		nfs4_channel_attrs4(d);
		nfs4_channel_attrs4(d);
		xdr_u32(d, "cb_program");
		nfs4_sec_parms(d);
		break;
	case NFS4_OP_DESTROY_SESSION: xdr_skip(d, 16, "sessionid"); break;
	case NFS4_OP_GET_DIR_DELEGATION:
		xdr_bool(d, "signal");
		nfs4_bitmap4(d, NULL, NULL);
		nfs4_nfstime4(d);
		nfs4_nfstime4(d);
		nfs4_bitmap4(d, NULL, NULL);
		nfs4_bitmap4(d, NULL, NULL);
		break;
	case NFS4_OP_GETDEVICEINFO: {
		xdr_skip(d, 16, "deviceid");
		uint32_t lt = xdr_u32(d, "layout_type");
		o->count = xdr_u32(d, "maxcount");
		o->flags |= REC_OPF_COUNT;
		nfs4_bitmap4(d, NULL, NULL);
		DT(d->tree, "layout type: 0x%x%s", lt, lt == LAYOUT4_RDMA ? " (LAYOUT4_RDMA)" : "");
		break;
	}
	case NFS4_OP_GETDEVICELIST: xdr_skip(d, 4 + 4 + 8 + 8, "getdevicelist"); break;
	case NFS4_OP_LAYOUTCOMMIT:
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "length");
		xdr_bool(d, "reclaim");
		o->seqid = nfs4_stateid4(d);
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		if (xdr_bool(d, "newoffset"))
			xdr_u64(d, "last_write_offset");
		if (xdr_bool(d, "time_modify"))
			nfs4_nfstime4(d);
		nfs4_layoutupdate4(d);
		break;
	case NFS4_OP_LAYOUTGET: {
		xdr_bool(d, "signal_layout_avail");
		uint32_t lt = xdr_u32(d, "layout_type");
		xdr_u32(d, "iomode");
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "length");
		xdr_u64(d, "minlength");
		o->seqid = nfs4_stateid4(d);
		o->count = xdr_u32(d, "maxcount");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
		DT(d->tree, "layout type: 0x%x%s offset %" PRIu64, lt,
		   lt == LAYOUT4_RDMA ? " (LAYOUT4_RDMA)" : "", o->offset);
		break;
	}
	case NFS4_OP_LAYOUTRETURN: {
		xdr_bool(d, "reclaim");
		xdr_u32(d, "layout_type");
		xdr_u32(d, "iomode");
		uint32_t rt = xdr_u32(d, "layoutreturn_type4");
		if (rt == 1) {
			o->offset = xdr_u64(d, "offset");
			xdr_u64(d, "length");
			o->seqid = nfs4_stateid4(d);
			o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
			xdr_skip_opaque(d, BIG, "lrf_body");
		}
		break;
	}
	case NFS4_OP_SECINFO_NO_NAME: xdr_u32(d, "secinfo_style4"); break;
	case NFS4_OP_SEQUENCE:
		xdr_skip(d, 16, "sessionid");
		o->seqid = xdr_u32(d, "sequenceid");
		o->count = xdr_u32(d, "slotid");
		o->flags |= REC_OPF_SEQID;
		xdr_u32(d, "highest_slotid");
		xdr_bool(d, "cachethis");
		break;
	case NFS4_OP_SET_SSV:
		xdr_skip_opaque(d, NFS4_OPAQUE, "ssv");
		xdr_skip_opaque(d, NFS4_OPAQUE, "digest");
		break;
	case NFS4_OP_TEST_STATEID: xdr_skip_array(d, 16, NFS4_MAXOPS, "stateids"); break;
	case NFS4_OP_WANT_DELEGATION: {
		xdr_u32(d, "want");
		uint32_t cl = xdr_u32(d, "deleg_claim4");
		if (cl == 1)
			xdr_u32(d, "delegate_type");
		break;
	}
	case NFS4_OP_RECLAIM_COMPLETE: xdr_bool(d, "one_fs"); break;
	case NFS4_OP_ALLOCATE: case NFS4_OP_DEALLOCATE:
		o->seqid = nfs4_stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "length");
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		break;
	case NFS4_OP_COPY: {
		copy_range4(d, o);
		xdr_bool(d, "consecutive");
		xdr_bool(d, "synchronous");
		uint32_t n = nfs4_array_count(d, 64, "src_servers count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			nfs4_netloc4(d);
		break;
	}
	case NFS4_OP_COPY_NOTIFY: nfs4_stateid4(d); nfs4_netloc4(d); break;
	case NFS4_OP_IO_ADVISE:
		nfs4_stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "count");
		o->flags |= REC_OPF_OFFSET;
		nfs4_bitmap4(d, NULL, NULL);
		break;
	case NFS4_OP_LAYOUTERROR:
		xdr_skip(d, 16, "offset length");
		nfs4_stateid4(d);
		xdr_skip_array(d, 24, NFS4_MAXOPS, "device_error4");
		break;
	case NFS4_OP_LAYOUTSTATS:
		xdr_skip(d, 16, "offset length");
		nfs4_stateid4(d);
		xdr_skip(d, 32 + 16, "io_info4 x2, deviceid");
		nfs4_layoutupdate4(d);
		break;
	case NFS4_OP_SEEK:
		o->seqid = nfs4_stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u32(d, "what");
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		break;
	case NFS4_OP_WRITE_SAME:
		o->seqid = nfs4_stateid4(d);
		xdr_u32(d, "stable");
		o->offset = xdr_u64(d, "adb_offset");
		xdr_skip(d, 8 + 8 + 8 + 4 + 8, "app_data_block4");
		xdr_skip_opaque(d, BIG, "adb_pattern");
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		break;
	case NFS4_OP_CLONE:
		copy_range4(d, o);
		break;
	case NFS4_OP_GETXATTR: case NFS4_OP_REMOVEXATTR: nfs4_component(d, NULL, 0); break;
	case NFS4_OP_SETXATTR:
		xdr_u32(d, "setxattr_option4");
		nfs4_component(d, NULL, 0);
		xdr_skip_opaque(d, BIG, "xattrvalue4");
		break;
	case NFS4_OP_LISTXATTRS: xdr_skip(d, 12, "cookie maxcount"); break;
	default:
		return false;
	}
	if (o->flags & (REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID) && op != NFS4_OP_SEQUENCE) {
		if (!(o->flags & REC_OPF_FH) && s->cur_fh) {
			o->fh_hash = s->cur_fh;
			o->flags |= REC_OPF_FH;
		}
	}
	return true;
}

/* ---- COMPOUND ------------------------------------------------------ */

static bool trivial_op(uint32_t op)
{
	return op == NFS4_OP_SEQUENCE || op == NFS4_OP_PUTFH || op == NFS4_OP_PUTROOTFH || op == NFS4_OP_PUTPUBFH ||
	       op == NFS4_OP_SAVEFH || op == NFS4_OP_RESTOREFH || op == NFS4_OP_GETFH || op == NFS4_OP_GETATTR;
}

/* COMPOUND and CB_COMPOUND share these. */

/* An argarray / resarray longer than NFS4_MAXOPS is marked bad. */
bool nfs4_too_many_ops(struct pdec *d, uint32_t n, const char *what)
{
	if (n <= NFS4_MAXOPS)
		return false;
	xdr_bad_u32(d, what);
	return true;
}

/* The argarray count, into r->nops; false when unreadable or too long. */
bool nfs4_argarray_count(struct pdec *d, uint32_t *n)
{
	*n = xdr_u32(d, "argarray count");
	if (!xdr_ok(d) || nfs4_too_many_ops(d, *n, "argarray count"))
		return false;
	d->rec->nops = (uint16_t)*n;
	return true;
}

/* The record's slot for the call's i-th op (past REC_MAX_OPS: scratch),
 * cleared, with no status yet. */
struct rec_op *nfs4_call_op_slot(struct nfsrdma_record *r, uint32_t i, struct rec_op *scratch, uint16_t op)
{
	struct rec_op *o = i < REC_MAX_OPS ? &r->ops[i] : scratch;

	memset(o, 0, sizeof(*o));
	o->op = op;
	o->status = REC_STATUS_NONE;
	return o;
}

static void nfs4_call(struct pdec *d)
{
	struct nfsrdma_record *r = d->rec;
	struct v4state s;
	char tag[64];

	memset(&s, 0, sizeof(s));
	if (d->proc == 0)
		return;
	if (d->proc != 1) {
		xdr_bad_u32(d, "nfs4 procedure (not NULL/COMPOUND)");
		return;
	}
	xdr_string(d, NFS4_OPAQUE, tag, sizeof(tag), "compound tag");
	r->minorvers = xdr_u32(d, "minorversion");
	uint32_t n;
	if (!nfs4_argarray_count(d, &n))
		return;
	DT(d->tree, "COMPOUND: tag \"%s\" minorversion %u, %u op(s)", tag, r->minorvers, n);
	int main_idx = -1;
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "nfs_opnum4");
		struct rec_op scratch, *o = nfs4_call_op_slot(r, i, &scratch, (uint16_t)(op > 0xffff ? 0xffff : op));
		DT(d->tree, "op %u: %s", i, nfs4_op_name(op));
		dt_push(d->tree);
		bool known = op_args(d, op, o, &s);
		if (d->tree && known && (o->flags & (REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID)) &&
		    op != NFS4_OP_WRITE && op != NFS4_OP_OPEN)
			dt_add(d->tree, "offset: %" PRIu64 " count: %u seqid: %u", o->offset, o->count, o->seqid);
		dt_pop(d->tree);
		if (!known) {
			xdr_bad_u32(d, "nfs_opnum4 (unknown operation)");
			break;
		}
		if (main_idx < 0 && !trivial_op(op)) {
			main_idx = (int)i;
			op_key(d, o, &s, true);
		}
	}
	if (main_idx < 0 && s.cur_fh)
		r->fh_hash = s.cur_fh;
	/* RFC 8267 §6.1, §6.4.1: only READ/READLINK consume Write list
	 * entries, only WRITE / CREATE(NF4LNK) take Read chunks; READ_PLUS
	 * never (nothing in its result is DDP-eligible). */
	if (!(r->flags & RECF_CALL_PARTIAL) && xdr_ok(d)) {
		unsigned rchunks = r->n_read_chunks - ((r->flags & RECF_ARGS_DDP) ? 1 : 0);
		if (s.read_plus && r->n_write_chunks)
			rec_add_finding(r, FND_READ_PLUS_WCHUNK, r->n_write_chunks, 0);
		else if (r->n_write_chunks > s.read_ops)
			rec_add_finding(r, s.read_ops ? FND_WLIST_MISMATCH : FND_NOT_ELIGIBLE,
					r->n_write_chunks, s.read_ops ? s.read_ops : r->write_chunk_bytes);
		if (rchunks > s.write_ops)
			rec_add_finding(r, FND_NOT_ELIGIBLE, rchunks, r->read_chunk_bytes);
	}
}

static void nfs4_reply(struct pdec *d)
{
	struct nfsrdma_record *r = d->rec;

	if (d->proc == 0) {
		r->status = 0;
		return;
	}
	r->status = xdr_u32(d, "nfsstat4");
	xdr_skip_opaque(d, NFS4_OPAQUE, "compound tag");
	uint32_t n = xdr_u32(d, "resarray count");
	if (!xdr_ok(d))
		return;
	DT(d->tree, "COMPOUND status: NFS4_%s (%u), %u result(s)",
	   r->status ? nfs_stat_name(r->status) : "OK", r->status, n);
	if (nfs4_too_many_ops(d, n, "resarray count"))
		return;
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "resop");
		uint32_t st = op == NFS4_OP_ILLEGAL ? xdr_u32(d, "status") : xdr_u32(d, "status");
		struct rec_op scratch, *o = i < REC_MAX_OPS ? &r->ops[i] : &scratch;
		if (i >= r->nops || o->op != op) {
			/* the call was not decoded this far: take the reply's word */
			if (i >= r->nops)
				r->nops = (uint16_t)(i + 1);
			if (o->op != op) {
				memset(o, 0, sizeof(*o));
				o->op = (uint16_t)op;
			}
		}
		o->status = st;
		DT(d->tree, "op %u: %s -> %s", i, nfs4_op_name(op), st ? nfs_stat_name(st) : "OK");
		dt_push(d->tree);
		bool known = nfs4_op_res(d, op, st, o);
		dt_pop(d->tree);
		if (!known) {
			xdr_bad_u32(d, "resop (unknown operation)");
			break;
		}
	}
}

/* The name the client would give this COMPOUND (see nfs4.h). */
/* Every name nfs4_compound_name returns besides operation names, for
 * --op validation (prog_name_known). */
const char *const nfs4_compound_names[] = {
	"CB_COMPOUND",
	"CB_NULL",
	"CB_SEQUENCE",
	"COMPOUND",
	"FSINFO",
	"FS_LOCATIONS",
	"GETACL",
	"GET_LEASE_TIME",
	"LOOKUP_ROOT",
	"NULL",
	"OPEN_NOATTR",
	"PATHCONF",
	"SEQUENCE",
	"SERVER_CAPS",
	"SETATTR",
	"STATFS",
	"SYMLINK",
	NULL
};

const char *nfs4_compound_name(const struct nfsrdma_record *r)
{
	bool rootfh = false, getfh = false;
	uint64_t bits = 0;
	unsigned n = r->nops < REC_MAX_OPS ? r->nops : REC_MAX_OPS;

	if (r->prog == PROG_NFS_CB) {
		for (unsigned i = 0; i < n; i++)
			if (r->ops[i].op != NFS4_OP_CB_SEQUENCE)
				return nfs4_cb_op_name(r->ops[i].op);
		return n ? "CB_SEQUENCE" : (r->proc == 0 ? "CB_NULL" : "CB_COMPOUND");
	}
	if (r->proc == 0)
		return "NULL";
	for (unsigned i = 0; i < n; i++) {
		uint32_t op = r->ops[i].op;
		if (op == NFS4_OP_LAYOUTRETURN && i + 1 < n && !trivial_op(r->ops[i + 1].op))
			continue; /* CLOSE and DELEGRETURN carry a LAYOUTRETURN first */
		if (!trivial_op(op)) {
			if (op == NFS4_OP_CREATE && r->ops[i].count == 5)
				return "SYMLINK";
			/* Linux: claims PREVIOUS, FH, DELEG_CUR_FH, DELEG_PREV_FH */
			if (op == NFS4_OP_OPEN && (r->ops[i].count == 1 || r->ops[i].count >= 4))
				return "OPEN_NOATTR";
			if (op == NFS4_OP_SETATTR && i + 1 < n && r->ops[i + 1].op == NFS4_OP_GETATTR)
				return "SETATTR";
			return nfs4_op_name(op);
		}
		if (op == NFS4_OP_PUTROOTFH)
			rootfh = true;
		if (op == NFS4_OP_GETFH)
			getfh = true;
		if (op == NFS4_OP_GETATTR && !bits)
			bits = r->ops[i].offset;
	}
	if (!n)
		return "COMPOUND";
	uint32_t w0 = (uint32_t)bits, w1 = (uint32_t)(bits >> 32);
	if (rootfh && getfh)
		return "LOOKUP_ROOT";
	if (w0 == (1u << 10) && !w1)
		return "GET_LEASE_TIME";
	if (w0 & 1u)
		return "SERVER_CAPS";
	if (w0 & ((1u << 30) | (1u << 31)))
		return "FSINFO";
	if ((w0 & ((1u << 28) | (1u << 29))) && !(w0 & (1u << 1)))
		return "PATHCONF";
	if ((w0 & (1u << 21)) || (w1 & (1u << 10)))
		return "STATFS";
	if (w0 & (1u << 12))
		return "GETACL";
	if (w0 & (1u << 24))
		return "FS_LOCATIONS";
	if (n == 1 && r->ops[0].op == NFS4_OP_SEQUENCE)
		return "SEQUENCE";
	return bits ? "GETATTR" : nfs4_op_name(r->ops[n - 1].op);
}

static const char *nfs4_proc_name(uint32_t vers, uint32_t proc)
{
	return proc == 0 ? "NULL" : proc == 1 ? "COMPOUND" : NULL;
}

static bool nfs4_ddp(uint32_t vers, uint32_t proc, bool reply) { return proc == 1; }

const struct prog_info prog_nfs4 = {
	.prog = PROG_NFS, .vmin = 4, .vmax = 4, .name = "NFS", .layer = "nfs4",
	.proc_name = nfs4_proc_name, .decode_call = nfs4_call, .decode_reply = nfs4_reply,
	.ddp_eligible = nfs4_ddp,
};
