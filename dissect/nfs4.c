/* NFSv4.0 / 4.1 / 4.2 COMPOUND (RFC 7530, 8881, 7862, 8276) and the
 * backchannel CB_COMPOUND: every operation named; arguments and results
 * walked so each op's status and key fields (filehandle hash, offset,
 * count, stateid seqid) land in the record's op list.  An op whose XDR
 * we cannot walk stops the walk (the ops before it stay decoded). */
#include "dissect/nfs4.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/nfs_status.h"
#include "dissect/pnfs_rdma.h"
#include "dissect/programs.h"

#define NFS4_FHSIZE   128
#define NFS4_OPAQUE   1024
#define NFS4_MAXOPS   4096  /* sanity bound on argarray/resarray */
#define BIG           (1u << 20)

enum {
	OP_ACCESS = 3, OP_CLOSE, OP_COMMIT, OP_CREATE, OP_DELEGPURGE, OP_DELEGRETURN, OP_GETATTR,
	OP_GETFH, OP_LINK, OP_LOCK, OP_LOCKT, OP_LOCKU, OP_LOOKUP, OP_LOOKUPP, OP_NVERIFY, OP_OPEN,
	OP_OPENATTR, OP_OPEN_CONFIRM, OP_OPEN_DOWNGRADE, OP_PUTFH, OP_PUTPUBFH, OP_PUTROOTFH,
	OP_READ, OP_READDIR, OP_READLINK, OP_REMOVE, OP_RENAME, OP_RENEW, OP_RESTOREFH, OP_SAVEFH,
	OP_SECINFO, OP_SETATTR, OP_SETCLIENTID, OP_SETCLIENTID_CONFIRM, OP_VERIFY, OP_WRITE,
	OP_RELEASE_LOCKOWNER, OP_BACKCHANNEL_CTL, OP_BIND_CONN_TO_SESSION, OP_EXCHANGE_ID,
	OP_CREATE_SESSION, OP_DESTROY_SESSION, OP_FREE_STATEID, OP_GET_DIR_DELEGATION,
	OP_GETDEVICEINFO, OP_GETDEVICELIST, OP_LAYOUTCOMMIT, OP_LAYOUTGET, OP_LAYOUTRETURN,
	OP_SECINFO_NO_NAME, OP_SEQUENCE, OP_SET_SSV, OP_TEST_STATEID, OP_WANT_DELEGATION,
	OP_DESTROY_CLIENTID, OP_RECLAIM_COMPLETE, OP_ALLOCATE, OP_COPY, OP_COPY_NOTIFY,
	OP_DEALLOCATE, OP_IO_ADVISE, OP_LAYOUTERROR, OP_LAYOUTSTATS, OP_OFFLOAD_CANCEL,
	OP_OFFLOAD_STATUS, OP_READ_PLUS, OP_SEEK, OP_WRITE_SAME, OP_CLONE, OP_GETXATTR,
	OP_SETXATTR, OP_LISTXATTRS, OP_REMOVEXATTR, OP_LAST = OP_REMOVEXATTR,
	OP_ILLEGAL = 10044,
};

static const char *const op_names[] = {
	[OP_ACCESS] = "ACCESS", [OP_CLOSE] = "CLOSE", [OP_COMMIT] = "COMMIT", [OP_CREATE] = "CREATE",
	[OP_DELEGPURGE] = "DELEGPURGE", [OP_DELEGRETURN] = "DELEGRETURN", [OP_GETATTR] = "GETATTR",
	[OP_GETFH] = "GETFH", [OP_LINK] = "LINK", [OP_LOCK] = "LOCK", [OP_LOCKT] = "LOCKT",
	[OP_LOCKU] = "LOCKU", [OP_LOOKUP] = "LOOKUP", [OP_LOOKUPP] = "LOOKUPP",
	[OP_NVERIFY] = "NVERIFY", [OP_OPEN] = "OPEN", [OP_OPENATTR] = "OPENATTR",
	[OP_OPEN_CONFIRM] = "OPEN_CONFIRM", [OP_OPEN_DOWNGRADE] = "OPEN_DOWNGRADE",
	[OP_PUTFH] = "PUTFH", [OP_PUTPUBFH] = "PUTPUBFH", [OP_PUTROOTFH] = "PUTROOTFH",
	[OP_READ] = "READ", [OP_READDIR] = "READDIR", [OP_READLINK] = "READLINK",
	[OP_REMOVE] = "REMOVE", [OP_RENAME] = "RENAME", [OP_RENEW] = "RENEW",
	[OP_RESTOREFH] = "RESTOREFH", [OP_SAVEFH] = "SAVEFH", [OP_SECINFO] = "SECINFO",
	[OP_SETATTR] = "SETATTR", [OP_SETCLIENTID] = "SETCLIENTID",
	[OP_SETCLIENTID_CONFIRM] = "SETCLIENTID_CONFIRM", [OP_VERIFY] = "VERIFY",
	[OP_WRITE] = "WRITE", [OP_RELEASE_LOCKOWNER] = "RELEASE_LOCKOWNER",
	[OP_BACKCHANNEL_CTL] = "BACKCHANNEL_CTL", [OP_BIND_CONN_TO_SESSION] = "BIND_CONN_TO_SESSION",
	[OP_EXCHANGE_ID] = "EXCHANGE_ID", [OP_CREATE_SESSION] = "CREATE_SESSION",
	[OP_DESTROY_SESSION] = "DESTROY_SESSION", [OP_FREE_STATEID] = "FREE_STATEID",
	[OP_GET_DIR_DELEGATION] = "GET_DIR_DELEGATION", [OP_GETDEVICEINFO] = "GETDEVICEINFO",
	[OP_GETDEVICELIST] = "GETDEVICELIST", [OP_LAYOUTCOMMIT] = "LAYOUTCOMMIT",
	[OP_LAYOUTGET] = "LAYOUTGET", [OP_LAYOUTRETURN] = "LAYOUTRETURN",
	[OP_SECINFO_NO_NAME] = "SECINFO_NO_NAME", [OP_SEQUENCE] = "SEQUENCE",
	[OP_SET_SSV] = "SET_SSV", [OP_TEST_STATEID] = "TEST_STATEID",
	[OP_WANT_DELEGATION] = "WANT_DELEGATION", [OP_DESTROY_CLIENTID] = "DESTROY_CLIENTID",
	[OP_RECLAIM_COMPLETE] = "RECLAIM_COMPLETE", [OP_ALLOCATE] = "ALLOCATE", [OP_COPY] = "COPY",
	[OP_COPY_NOTIFY] = "COPY_NOTIFY", [OP_DEALLOCATE] = "DEALLOCATE",
	[OP_IO_ADVISE] = "IO_ADVISE", [OP_LAYOUTERROR] = "LAYOUTERROR",
	[OP_LAYOUTSTATS] = "LAYOUTSTATS", [OP_OFFLOAD_CANCEL] = "OFFLOAD_CANCEL",
	[OP_OFFLOAD_STATUS] = "OFFLOAD_STATUS", [OP_READ_PLUS] = "READ_PLUS", [OP_SEEK] = "SEEK",
	[OP_WRITE_SAME] = "WRITE_SAME", [OP_CLONE] = "CLONE", [OP_GETXATTR] = "GETXATTR",
	[OP_SETXATTR] = "SETXATTR", [OP_LISTXATTRS] = "LISTXATTRS", [OP_REMOVEXATTR] = "REMOVEXATTR",
};

const char *nfs4_op_name(uint32_t op)
{
	if (op < sizeof(op_names) / sizeof(op_names[0]) && op_names[op])
		return op_names[op];
	return op == OP_ILLEGAL ? "ILLEGAL" : "OP_?";
}

enum {
	CB_GETATTR = 3, CB_RECALL, CB_LAYOUTRECALL, CB_NOTIFY, CB_PUSH_DELEG, CB_RECALL_ANY,
	CB_RECALLABLE_OBJ_AVAIL, CB_RECALL_SLOT, CB_SEQUENCE, CB_WANTS_CANCELLED,
	CB_NOTIFY_LOCK, CB_NOTIFY_DEVICEID, CB_OFFLOAD,
};

const char *nfs4_cb_op_name(uint32_t op)
{
	static const char *const n[] = { NULL, NULL, NULL, "CB_GETATTR", "CB_RECALL",
		"CB_LAYOUTRECALL", "CB_NOTIFY", "CB_PUSH_DELEG", "CB_RECALL_ANY",
		"CB_RECALLABLE_OBJ_AVAIL", "CB_RECALL_SLOT", "CB_SEQUENCE", "CB_WANTS_CANCELLED",
		"CB_NOTIFY_LOCK", "CB_NOTIFY_DEVICEID", "CB_OFFLOAD" };
	if (op < sizeof(n) / sizeof(n[0]) && n[op])
		return n[op];
	return op == OP_ILLEGAL ? "CB_ILLEGAL" : "CB_?";
}

/* ---- XDR pieces ---------------------------------------------------- */

static void bitmap4(struct pdec *d, uint32_t *w0, uint32_t *w1)
{
	uint32_t n = xdr_u32(d, "bitmap4 length");
	if (n > 64) {
		xdr_bad_u32(d, "bitmap4 length");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = xdr_u32(d, "bitmap4 word");
		if (i == 0 && w0)
			*w0 = w;
		if (i == 1 && w1)
			*w1 = w;
	}
}

static void fattr4(struct pdec *d)
{
	bitmap4(d, NULL, NULL);
	xdr_skip_opaque(d, BIG, "fattr4 attrlist");
}

static const char *cdfc4_name(uint32_t dir)
{
	switch (dir) {
	case 1: return "FORE";
	case 2: return "BACK";
	case 3: return "FORE_OR_BOTH";
	case 7: return "BACK_OR_BOTH";
	default: return "?";
	}
}

/* SEQUENCE's sr_status_flags: what the server asks of the client (the
 * callback path is down, state was revoked, ...): shown when any is set. */
static void seq4_status_flags(struct pdec *d, uint32_t f)
{
	static const char *const names[] = { "CB_PATH_DOWN", "CB_GSS_CONTEXTS_EXPIRING",
		"CB_GSS_CONTEXTS_EXPIRED", "EXPIRED_ALL_STATE_REVOKED", "EXPIRED_SOME_STATE_REVOKED",
		"ADMIN_STATE_REVOKED", "RECALLABLE_STATE_REVOKED", "LEASE_MOVED",
		"RESTART_RECLAIM_NEEDED", "CB_PATH_DOWN_SESSION", "BACKCHANNEL_FAULT",
		"DEVID_CHANGED", "DEVID_DELETED" };
	if (!f || !d->tree)
		return;
	char buf[320];
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 32; i++) {
		if (!(f & (1u << i)))
			continue;
		int w = i < sizeof(names) / sizeof(names[0])
				? snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "", names[i])
				: snprintf(buf + n, sizeof(buf) - n, "%s0x%x", n ? "|" : "", 1u << i);
		if (w < 0 || (size_t)w >= sizeof(buf) - n)
			break;
		n += (size_t)w;
	}
	DT(d->tree, "status_flags: 0x%x %s", f, buf);
}

static uint32_t stateid4(struct pdec *d)
{
	uint32_t seq = xdr_u32(d, "stateid seqid");
	xdr_skip(d, 12, "stateid other");
	return seq;
}

/* A stateid shown in -V with its "other" in hex, as tshark prints it, so
 * that a delegation can be followed from the OPEN that granted it to
 * CB_RECALL, the OPEN that claims it and DELEGRETURN. */
static uint32_t stateid4_dt(struct pdec *d, const char *label)
{
	uint32_t seq = xdr_u32(d, "stateid seqid");
	const uint8_t *p = cur_bytes(&d->c, 12, "stateid other");
	if (p && d->tree) {
		char hex[25];
		for (int i = 0; i < 12; i++)
			snprintf(hex + 2 * i, 3, "%02x", p[i]);
		dt_add(d->tree, "%s: seqid %u other %s", label, seq, hex);
	}
	return seq;
}

static const char *const share_names[4] = { "NONE", "READ", "WRITE", "BOTH" };
static const char *const claim_names[7] = {
	"CLAIM_NULL", "CLAIM_PREVIOUS", "CLAIM_DELEGATE_CUR", "CLAIM_DELEGATE_PREV",
	"CLAIM_FH", "CLAIM_DELEG_CUR_FH", "CLAIM_DELEG_PREV_FH",
};
static const char *const deleg_names[4] = { "NONE", "READ", "WRITE", "NONE_EXT" };

static void component(struct pdec *d, char *out, size_t len)
{
	char tmp[REC_NAME_MAX];
	if (!out) {
		out = tmp;
		len = sizeof(tmp);
	}
	xdr_string(d, NFS4_OPAQUE * 4, out, len, "component4");
}

static void change_info4(struct pdec *d) { xdr_skip(d, 20, "change_info4"); }
static void nfstime4(struct pdec *d) { xdr_skip(d, 12, "nfstime4"); }
static void lock_owner4(struct pdec *d)
{
	xdr_skip(d, 8, "lock_owner clientid");
	xdr_skip_opaque(d, NFS4_OPAQUE, "lock_owner owner");
}

static void netaddr4(struct pdec *d)
{
	xdr_skip_opaque(d, NFS4_OPAQUE, "netaddr4 netid");
	xdr_skip_opaque(d, NFS4_OPAQUE, "netaddr4 addr");
}

static void netloc4(struct pdec *d)
{
	uint32_t t = xdr_u32(d, "netloc4 type");
	if (t == 3)
		netaddr4(d);
	else
		xdr_skip_opaque(d, NFS4_OPAQUE, "netloc4 name");
}

/* The count of an array<max>.  Past max it is marked bad and reads as 0:
 * the cursor has failed, so nothing after it decodes either. */
static uint32_t array_count(struct pdec *d, uint32_t max, const char *what)
{
	uint32_t n = xdr_u32(d, what);

	if (n > max) {
		xdr_bad_u32(d, what);
		return 0;
	}
	return n;
}

static void nfsace4(struct pdec *d)
{
	xdr_skip(d, 12, "nfsace4");
	xdr_skip_opaque(d, NFS4_OPAQUE, "nfsace4 who");
}

static void sec_parms(struct pdec *d)
{
	uint32_t n = array_count(d, 64, "callback_sec_parms count");
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t fl = xdr_u32(d, "callback_sec_parms flavor");
		if (fl == 1) { /* authsys_parms */
			xdr_u32(d, "stamp");
			xdr_skip_opaque(d, 255, "machinename");
			xdr_skip(d, 8, "uid gid");
			xdr_skip_array(d, 4, 16, "gids");
		} else if (fl == 6) {
			xdr_u32(d, "gcbp_service");
			xdr_skip_opaque(d, NFS4_OPAQUE, "gcbp_handle_from_server");
			xdr_skip_opaque(d, NFS4_OPAQUE, "gcbp_handle_from_client");
		} else if (fl != 0) {
			xdr_bad_u32(d, "callback_sec_parms flavor");
		}
	}
}

static void channel_attrs4(struct pdec *d)
{
	xdr_skip(d, 24, "channel_attrs4");
	xdr_skip_array(d, 4, 1, "ca_rdma_ird");
}

static void state_protect_ops4(struct pdec *d)
{
	bitmap4(d, NULL, NULL);
	bitmap4(d, NULL, NULL);
}

static void skip_oid_array(struct pdec *d)
{
	uint32_t n = array_count(d, 64, "sec_oid4 count");
	for (uint32_t i = 0; i < n && xdr_ok(d); i++)
		xdr_skip_opaque(d, NFS4_OPAQUE, "sec_oid4");
}

static void impl_id(struct pdec *d)
{
	uint32_t n = array_count(d, 1, "nfs_impl_id4 count");
	if (n) {
		xdr_skip_opaque(d, NFS4_OPAQUE, "nii_domain");
		xdr_skip_opaque(d, NFS4_OPAQUE, "nii_name");
		nfstime4(d);
	}
}

static void open_delegation4(struct pdec *d)
{
	uint32_t t = xdr_u32(d, "open_delegation_type4");
	if (xdr_ok(d))
		DT(d->tree, "delegation: %s", t < 4 ? deleg_names[t] : "?");
	switch (t) {
	case 0: break;
	case 1:
		stateid4_dt(d, "delegation stateid");
		xdr_bool(d, "recall");
		nfsace4(d);
		break;
	case 2: {
		stateid4_dt(d, "delegation stateid");
		xdr_bool(d, "recall");
		uint32_t lim = xdr_u32(d, "limitby");
		xdr_skip(d, 8, lim == 1 ? "filesize" : "mod_blocks");
		nfsace4(d);
		break;
	}
	case 3: {
		uint32_t why = xdr_u32(d, "ond_why");
		if (why == 7 || why == 8)
			xdr_bool(d, "ond_server_will_push_deleg");
		break;
	}
	default:
		xdr_bad_u32(d, "open_delegation_type4");
	}
}

static void write_response4(struct pdec *d)
{
	xdr_skip_array(d, 16, 1, "wr_callback_id");
	xdr_skip(d, 8 + 4 + 8, "write_response4");
}

static void layoutupdate4(struct pdec *d)
{
	uint32_t type = xdr_u32(d, "layoutupdate4 type");
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(&d->c, BIG, &n, "layoutupdate4 body");
	if (p && type == LAYOUT4_RDMA)
		pnfs_rdma_layoutupdate(d, p, n);
}

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
	o->seqid = stateid4(d);
	stateid4(d);
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
	char name[REC_NAME_MAX];

	switch (op) {
	case OP_ACCESS: xdr_u32(d, "access"); break;
	case OP_CLOSE: {
		uint32_t owner_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "open-owner seqid: %u", owner_seqid);
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case OP_COMMIT:
		o->offset = xdr_u64(d, "offset");
		o->count = xdr_u32(d, "count");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		break;
	case OP_CREATE: {
		uint32_t type = xdr_u32(d, "createtype4");
		o->count = type;  /* kept so the COMPOUND can be named SYMLINK */
		if (type == 5) {
			xdr_ddp_opaque(d, NFS4_OPAQUE * 4, &moved, "linkdata");
			s->write_ops++;
		} else if (type == 3 || type == 4) {
			xdr_skip(d, 8, "specdata4");
		}
		component(d, name, sizeof(name));
		if (!d->rec->name[0])
			xdr_rec_name(d->rec, name);
		fattr4(d);
		break;
	}
	case OP_DELEGPURGE: xdr_skip(d, 8, "clientid"); break;
	case OP_DELEGRETURN: case OP_FREE_STATEID:
		o->seqid = stateid4_dt(d, "stateid");
		o->flags |= REC_OPF_SEQID;
		break;
	case OP_OFFLOAD_CANCEL: case OP_OFFLOAD_STATUS:
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_SEQID;
		break;
	case OP_GETATTR:
		bitmap4(d, &w0, &w1);
		/* bitmap kept in offset: lets the COMPOUND be named like the
		 * client names it (FSINFO, PATHCONF, STATFS, SERVER_CAPS...) */
		o->offset = ((uint64_t)w1 << 32) | w0;
		break;
	case OP_GETFH: case OP_LOOKUPP: case OP_PUTPUBFH: case OP_PUTROOTFH: case OP_READLINK:
	case OP_RESTOREFH: case OP_SAVEFH:
		if (op == OP_READLINK)
			s->read_ops++;
		break;
	case OP_LINK: case OP_LOOKUP: case OP_REMOVE: case OP_SECINFO:
		component(d, name, sizeof(name));
		if (!d->rec->name[0])
			xdr_rec_name(d->rec, name);
		DT(d->tree, "name: \"%s\"", name);
		break;
	case OP_LOCK: {
		xdr_u32(d, "locktype");
		xdr_bool(d, "reclaim");
		o->offset = xdr_u64(d, "offset");
		o->count = lock_length(xdr_u64(d, "length"));
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		if (xdr_bool(d, "new_lock_owner")) {
			uint32_t open_seqid = xdr_u32(d, "open_seqid");
			o->seqid = stateid4(d);
			uint32_t lock_seqid = xdr_u32(d, "lock_seqid");
			DT(d->tree, "new lock-owner: open-owner seqid: %u lock-owner seqid: %u", open_seqid, lock_seqid);
			lock_owner4(d);
		} else {
			o->seqid = stateid4(d);
			uint32_t lock_seqid = xdr_u32(d, "lock_seqid");
			DT(d->tree, "lock-owner seqid: %u", lock_seqid);
		}
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case OP_LOCKT:
		xdr_u32(d, "locktype");
		o->offset = xdr_u64(d, "offset");
		o->count = lock_length(xdr_u64(d, "length"));
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		lock_owner4(d);
		break;
	case OP_LOCKU: {
		xdr_u32(d, "locktype");
		uint32_t lock_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "lock-owner seqid: %u", lock_seqid);
		o->seqid = stateid4(d);
		o->offset = xdr_u64(d, "offset");
		o->count = lock_length(xdr_u64(d, "length"));
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
		break;
	}
	case OP_NVERIFY: case OP_VERIFY: fattr4(d); break;
	case OP_OPEN: {
		o->seqid = xdr_u32(d, "seqid");
		o->flags |= REC_OPF_SEQID;
		uint32_t acc = xdr_u32(d, "share_access"), deny = xdr_u32(d, "share_deny");
		/* 4.1 keeps its WANT_ flags in the high bits of share_access */
		DT(d->tree, "open-owner seqid: %u share access %s%s deny %s", o->seqid, share_names[acc & 3],
		   (acc & ~3u) ? " +want flags" : "", share_names[deny & 3]);
		xdr_skip(d, 8, "open_owner clientid");
		xdr_skip_opaque(d, NFS4_OPAQUE, "open_owner owner");
		if (xdr_u32(d, "opentype4") == 1) {
			uint32_t how = xdr_u32(d, "createmode4");
			if (how == 0 || how == 1)
				fattr4(d);
			else if (how == 2)
				xdr_skip(d, 8, "createverf");
			else if (how == 3) {
				xdr_skip(d, 8, "createverf");
				fattr4(d);
			} else
				xdr_bad_u32(d, "createmode4");
		}
		uint32_t claim = xdr_u32(d, "open_claim_type4");
		o->count = claim;  /* by-filehandle claims: the client calls it OPEN_NOATTR */
		if (xdr_ok(d))
			DT(d->tree, "claim: %s (%u)", claim < 7 ? claim_names[claim] : "?", claim);
		switch (claim) {
		case 0: case 3:
			component(d, name, sizeof(name));
			if (!d->rec->name[0])
				xdr_rec_name(d->rec, name);
			break;
		case 1: xdr_u32(d, "delegate_type"); break;
		case 2:
			stateid4_dt(d, "delegate stateid");
			component(d, name, sizeof(name));
			if (!d->rec->name[0])
				xdr_rec_name(d->rec, name);
			break;
		case 4: case 6: break;
		case 5: stateid4_dt(d, "delegate stateid"); break;
		default: xdr_bad_u32(d, "open_claim_type4");
		}
		break;
	}
	case OP_OPENATTR: xdr_bool(d, "createdir"); break;
	case OP_OPEN_CONFIRM: {
		o->seqid = stateid4(d);
		uint32_t owner_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "open-owner seqid: %u", owner_seqid);
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case OP_OPEN_DOWNGRADE: {
		o->seqid = stateid4(d);
		uint32_t owner_seqid = xdr_u32(d, "seqid");
		DT(d->tree, "open-owner seqid: %u", owner_seqid);
		xdr_skip(d, 8, "share_access share_deny");
		o->flags |= REC_OPF_SEQID;
		break;
	}
	case OP_PUTFH:
		s->cur_fh = xdr_fh(d, NFS4_FHSIZE, "nfs_fh4");
		o->fh_hash = s->cur_fh;
		o->flags |= REC_OPF_FH;
		DT(d->tree, "fh: hash 0x%08" PRIx32, (uint32_t)s->cur_fh);
		break;
	case OP_READ: case OP_READ_PLUS:
		o->seqid = stateid4(d);
		o->offset = xdr_u64(d, "offset");
		o->count = xdr_u32(d, "count");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
		if (op == OP_READ)
			s->read_ops++;
		else
			s->read_plus = true;
		break;
	case OP_READDIR:
		o->offset = xdr_u64(d, "cookie");
		xdr_skip(d, 8, "cookieverf");
		xdr_u32(d, "dircount");
		o->count = xdr_u32(d, "maxcount");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT;
		bitmap4(d, NULL, NULL);
		break;
	case OP_RENAME:
		component(d, name, sizeof(name));
		if (!d->rec->name[0])
			xdr_rec_name(d->rec, name);
		component(d, NULL, 0);
		break;
	case OP_RENEW: case OP_DESTROY_CLIENTID: xdr_skip(d, 8, "clientid"); break;
	case OP_SETATTR:
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_SEQID;
		fattr4(d);
		break;
	case OP_SETCLIENTID:
		xdr_skip(d, 8, "verifier");
		xdr_skip_opaque(d, NFS4_OPAQUE, "nfs_client_id4 id");
		xdr_u32(d, "cb_program");
		netaddr4(d);
		xdr_u32(d, "callback_ident");
		break;
	case OP_SETCLIENTID_CONFIRM: xdr_skip(d, 16, "clientid verifier"); break;
	case OP_WRITE: {
		o->seqid = stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u32(d, "stable");
		o->count = xdr_ddp_opaque(d, BIG * 64, &moved, "write data");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID | (moved ? REC_OPF_DDP : 0);
		s->write_ops++;
		DT(d->tree, "offset: %" PRIu64 " count: %u%s", o->offset, o->count,
		   moved ? " (Read chunk)" : " (inline)");
		break;
	}
	case OP_RELEASE_LOCKOWNER: lock_owner4(d); break;
	case OP_BACKCHANNEL_CTL: xdr_u32(d, "cb_program"); sec_parms(d); break;
	case OP_BIND_CONN_TO_SESSION: {
		xdr_skip(d, 16, "bctsa_sessid");
		uint32_t dir = xdr_u32(d, "bctsa_dir");
		bool rdma = xdr_bool(d, "bctsa_use_conn_in_rdma_mode");
		DT(d->tree, "dir: %s rdma_mode: %s", cdfc4_name(dir), rdma ? "true" : "false");
		break;
	}
	case OP_EXCHANGE_ID: {
		xdr_skip(d, 8, "verifier");
		xdr_skip_opaque(d, NFS4_OPAQUE, "co_ownerid");
		xdr_u32(d, "eia_flags");
		uint32_t how = xdr_u32(d, "state_protect_how4");
		if (how == 1)
			state_protect_ops4(d);
		else if (how == 2) {
			state_protect_ops4(d);
			skip_oid_array(d);
			skip_oid_array(d);
			xdr_skip(d, 8, "ssp_window ssp_num_gss_handles");
		} else if (how != 0)
			xdr_bad_u32(d, "state_protect_how4");
		impl_id(d);
		break;
	}
	case OP_CREATE_SESSION:
		xdr_skip(d, 16, "clientid sequence flags");
		channel_attrs4(d);
		channel_attrs4(d);
		xdr_u32(d, "cb_program");
		sec_parms(d);
		break;
	case OP_DESTROY_SESSION: xdr_skip(d, 16, "sessionid"); break;
	case OP_GET_DIR_DELEGATION:
		xdr_bool(d, "signal");
		bitmap4(d, NULL, NULL);
		nfstime4(d);
		nfstime4(d);
		bitmap4(d, NULL, NULL);
		bitmap4(d, NULL, NULL);
		break;
	case OP_GETDEVICEINFO: {
		xdr_skip(d, 16, "deviceid");
		uint32_t lt = xdr_u32(d, "layout_type");
		o->count = xdr_u32(d, "maxcount");
		o->flags |= REC_OPF_COUNT;
		bitmap4(d, NULL, NULL);
		DT(d->tree, "layout type: 0x%x%s", lt, lt == LAYOUT4_RDMA ? " (LAYOUT4_RDMA)" : "");
		break;
	}
	case OP_GETDEVICELIST: xdr_skip(d, 4 + 4 + 8 + 8, "getdevicelist"); break;
	case OP_LAYOUTCOMMIT:
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "length");
		xdr_bool(d, "reclaim");
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		if (xdr_bool(d, "newoffset"))
			xdr_u64(d, "last_write_offset");
		if (xdr_bool(d, "time_modify"))
			nfstime4(d);
		layoutupdate4(d);
		break;
	case OP_LAYOUTGET: {
		xdr_bool(d, "signal_layout_avail");
		uint32_t lt = xdr_u32(d, "layout_type");
		xdr_u32(d, "iomode");
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "length");
		xdr_u64(d, "minlength");
		o->seqid = stateid4(d);
		o->count = xdr_u32(d, "maxcount");
		o->flags |= REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID;
		DT(d->tree, "layout type: 0x%x%s offset %" PRIu64, lt,
		   lt == LAYOUT4_RDMA ? " (LAYOUT4_RDMA)" : "", o->offset);
		break;
	}
	case OP_LAYOUTRETURN: {
		xdr_bool(d, "reclaim");
		xdr_u32(d, "layout_type");
		xdr_u32(d, "iomode");
		uint32_t rt = xdr_u32(d, "layoutreturn_type4");
		if (rt == 1) {
			o->offset = xdr_u64(d, "offset");
			xdr_u64(d, "length");
			o->seqid = stateid4(d);
			o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
			xdr_skip_opaque(d, BIG, "lrf_body");
		}
		break;
	}
	case OP_SECINFO_NO_NAME: xdr_u32(d, "secinfo_style4"); break;
	case OP_SEQUENCE:
		xdr_skip(d, 16, "sessionid");
		o->seqid = xdr_u32(d, "sequenceid");
		o->count = xdr_u32(d, "slotid");
		o->flags |= REC_OPF_SEQID;
		xdr_u32(d, "highest_slotid");
		xdr_bool(d, "cachethis");
		break;
	case OP_SET_SSV:
		xdr_skip_opaque(d, NFS4_OPAQUE, "ssv");
		xdr_skip_opaque(d, NFS4_OPAQUE, "digest");
		break;
	case OP_TEST_STATEID: xdr_skip_array(d, 16, NFS4_MAXOPS, "stateids"); break;
	case OP_WANT_DELEGATION: {
		xdr_u32(d, "want");
		uint32_t cl = xdr_u32(d, "deleg_claim4");
		if (cl == 1)
			xdr_u32(d, "delegate_type");
		break;
	}
	case OP_RECLAIM_COMPLETE: xdr_bool(d, "one_fs"); break;
	case OP_ALLOCATE: case OP_DEALLOCATE:
		o->seqid = stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "length");
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		break;
	case OP_COPY: {
		copy_range4(d, o);
		xdr_bool(d, "consecutive");
		xdr_bool(d, "synchronous");
		uint32_t n = array_count(d, 64, "src_servers count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			netloc4(d);
		break;
	}
	case OP_COPY_NOTIFY: stateid4(d); netloc4(d); break;
	case OP_IO_ADVISE:
		stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u64(d, "count");
		o->flags |= REC_OPF_OFFSET;
		bitmap4(d, NULL, NULL);
		break;
	case OP_LAYOUTERROR:
		xdr_skip(d, 16, "offset length");
		stateid4(d);
		xdr_skip_array(d, 24, NFS4_MAXOPS, "device_error4");
		break;
	case OP_LAYOUTSTATS:
		xdr_skip(d, 16, "offset length");
		stateid4(d);
		xdr_skip(d, 32 + 16, "io_info4 x2, deviceid");
		layoutupdate4(d);
		break;
	case OP_SEEK:
		o->seqid = stateid4(d);
		o->offset = xdr_u64(d, "offset");
		xdr_u32(d, "what");
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		break;
	case OP_WRITE_SAME:
		o->seqid = stateid4(d);
		xdr_u32(d, "stable");
		o->offset = xdr_u64(d, "adb_offset");
		xdr_skip(d, 8 + 8 + 8 + 4 + 8, "app_data_block4");
		xdr_skip_opaque(d, BIG, "adb_pattern");
		o->flags |= REC_OPF_OFFSET | REC_OPF_SEQID;
		break;
	case OP_CLONE:
		copy_range4(d, o);
		break;
	case OP_GETXATTR: case OP_REMOVEXATTR: component(d, NULL, 0); break;
	case OP_SETXATTR:
		xdr_u32(d, "setxattr_option4");
		component(d, NULL, 0);
		xdr_skip_opaque(d, BIG, "xattrvalue4");
		break;
	case OP_LISTXATTRS: xdr_skip(d, 12, "cookie maxcount"); break;
	default:
		return false;
	}
	if (o->flags & (REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID) && op != OP_SEQUENCE) {
		if (!(o->flags & REC_OPF_FH) && s->cur_fh) {
			o->fh_hash = s->cur_fh;
			o->flags |= REC_OPF_FH;
		}
	}
	return true;
}

/* ---- per-op results ------------------------------------------------ */

static bool op_res(struct pdec *d, uint32_t op, uint32_t st, struct rec_op *o)
{
	bool moved;

	if (op == OP_SETATTR) { /* attrsset comes back whatever the status */
		bitmap4(d, NULL, NULL);
		return true;
	}
	if (st != 0) {
		switch (op) {
		case OP_LOCK: case OP_LOCKT:
			if (st == 10010) { /* NFS4ERR_DENIED: lock4denied */
				xdr_skip(d, 20, "lock4denied");
				lock_owner4(d);
			}
			break;
		case OP_SETCLIENTID:
			if (st == 10017)
				netaddr4(d);
			break;
		case OP_GETDEVICEINFO:
			if (st == 10005)
				xdr_u32(d, "gdir_mincount");
			break;
		case OP_LAYOUTGET:
			if (st == 10058)
				xdr_bool(d, "logr_will_signal_layout_avail");
			break;
		case OP_COPY:
			if (st == 10094)
				xdr_skip(d, 8, "copy_requirements4");
			break;
		default:
			break;
		}
		return true;
	}
	switch (op) {
	case OP_ACCESS: xdr_skip(d, 8, "access"); break;
	case OP_CLOSE: case OP_LOCKU: case OP_OPEN_CONFIRM: case OP_OPEN_DOWNGRADE: case OP_LOCK:
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_SEQID;
		break;
	case OP_COMMIT: xdr_skip(d, 8, "writeverf"); break;
	case OP_CREATE: change_info4(d); bitmap4(d, NULL, NULL); break;
	case OP_GETATTR: fattr4(d); break;
	case OP_GETFH:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "nfs_fh4");
		o->flags |= REC_OPF_FH;
		break;
	case OP_LINK: case OP_REMOVE: case OP_SETXATTR: case OP_REMOVEXATTR: change_info4(d); break;
	case OP_OPEN:
		o->seqid = stateid4_dt(d, "open stateid");
		o->flags |= REC_OPF_SEQID;
		change_info4(d);
		xdr_u32(d, "rflags");
		bitmap4(d, NULL, NULL);
		open_delegation4(d);
		break;
	case OP_READ: {
		bool eof = xdr_bool(d, "eof");
		uint32_t n = xdr_ddp_opaque(d, BIG * 64, &moved, "read data");
		if (!d->rec->res_count)
			d->rec->res_count = n;
		if (moved)
			o->flags |= REC_OPF_DDP;
		DT(d->tree, "READ: eof %d data %u bytes%s", eof, n, moved ? " (Write chunk)" : " (inline)");
		break;
	}
	case OP_READDIR: {
		xdr_skip(d, 8, "cookieverf");
		unsigned guard = 0;
		while (xdr_ok(d) && xdr_bool(d, "entry4 follows")) {
			xdr_skip(d, 8, "cookie");
			component(d, NULL, 0);
			fattr4(d);
			if (++guard > BIG)
				break;
		}
		xdr_bool(d, "eof");
		break;
	}
	case OP_READLINK:
		xdr_ddp_opaque(d, NFS4_OPAQUE * 4, &moved, "linktext");
		break;
	case OP_RENAME: change_info4(d); change_info4(d); break;
	case OP_SECINFO: case OP_SECINFO_NO_NAME: {
		uint32_t n = xdr_u32(d, "secinfo4 count");
		if (n > 64) {
			xdr_bad_u32(d, "secinfo4 count");
			break;
		}
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			if (xdr_u32(d, "flavor") == 6) {
				xdr_skip_opaque(d, NFS4_OPAQUE, "oid");
				xdr_skip(d, 8, "qop service");
			}
		break;
	}
	case OP_SETCLIENTID: xdr_skip(d, 16, "clientid verifier"); break;
	case OP_WRITE:
		o->count = xdr_u32(d, "count");
		if (!d->rec->res_count)
			d->rec->res_count = o->count;
		xdr_skip(d, 12, "committed verifier");
		break;
	case OP_EXCHANGE_ID: {
		xdr_skip(d, 16, "clientid sequenceid flags");
		uint32_t how = xdr_u32(d, "state_protect_how4");
		if (how == 1)
			state_protect_ops4(d);
		else if (how == 2) {
			state_protect_ops4(d);
			xdr_skip(d, 16, "ssv_prot_info4");
			uint32_t n = array_count(d, 64, "spi_handles count");
			for (uint32_t i = 0; i < n && xdr_ok(d); i++)
				xdr_skip_opaque(d, NFS4_OPAQUE, "spi_handle");
		}
		xdr_u64(d, "so_minor_id");
		xdr_skip_opaque(d, NFS4_OPAQUE, "so_major_id");
		xdr_skip_opaque(d, NFS4_OPAQUE, "server_scope");
		impl_id(d);
		break;
	}
	case OP_CREATE_SESSION:
		xdr_skip(d, 24, "sessionid sequence flags");
		channel_attrs4(d);
		channel_attrs4(d);
		break;
	case OP_BIND_CONN_TO_SESSION: {
		xdr_skip(d, 16, "bctsr_sessid");
		uint32_t dir = xdr_u32(d, "bctsr_dir");
		bool rdma = xdr_bool(d, "bctsr_use_conn_in_rdma_mode");
		DT(d->tree, "bound: %s rdma_mode: %s", dir == 1 ? "FORE" : dir == 2 ? "BACK" : dir == 3 ? "BOTH" : "?",
		   rdma ? "true" : "false");
		break;
	}
	case OP_GET_DIR_DELEGATION: {
		uint32_t s = xdr_u32(d, "gddrnf4_status");
		if (s == 0) {
			xdr_skip(d, 8, "cookieverf");
			stateid4(d);
			bitmap4(d, NULL, NULL);
			bitmap4(d, NULL, NULL);
			bitmap4(d, NULL, NULL);
		} else {
			xdr_bool(d, "will_signal");
		}
		break;
	}
	case OP_GETDEVICEINFO: {
		uint32_t lt = xdr_u32(d, "layout_type");
		uint32_t n;
		const uint8_t *p = cur_xdr_opaque(&d->c, BIG, &n, "da_addr_body");
		if (p && lt == LAYOUT4_RDMA)
			pnfs_rdma_device_addr(d, p, n);
		bitmap4(d, NULL, NULL);
		break;
	}
	case OP_GETDEVICELIST:
		xdr_skip(d, 16, "cookie verifier");
		xdr_skip_array(d, 16, BIG, "deviceid list");
		xdr_bool(d, "eof");
		break;
	case OP_LAYOUTCOMMIT:
		if (xdr_bool(d, "ns_sizechanged"))
			xdr_u64(d, "ns_size");
		break;
	case OP_LAYOUTGET: {
		xdr_bool(d, "return_on_close");
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_SEQID;
		uint32_t n = xdr_u32(d, "layouts count");
		if (n > 1024) {
			xdr_bad_u32(d, "layouts count");
			break;
		}
		for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
			xdr_skip(d, 20, "lo_offset lo_length lo_iomode");
			uint32_t lt = xdr_u32(d, "layout_type");
			uint32_t len;
			const uint8_t *p = cur_xdr_opaque(&d->c, BIG, &len, "loc_body");
			if (p && lt == LAYOUT4_RDMA)
				pnfs_rdma_layout(d, p, len);
		}
		break;
	}
	case OP_LAYOUTRETURN:
		if (xdr_bool(d, "lrs_present"))
			stateid4(d);
		break;
	case OP_SEQUENCE:
		xdr_skip(d, 16, "sessionid");
		o->seqid = xdr_u32(d, "sequenceid");
		xdr_skip(d, 12, "slotid highest target");
		seq4_status_flags(d, xdr_u32(d, "sr_status_flags"));
		break;
	case OP_SET_SSV: xdr_skip_opaque(d, NFS4_OPAQUE, "digest"); break;
	case OP_TEST_STATEID: xdr_skip_array(d, 4, NFS4_MAXOPS, "status codes"); break;
	case OP_WANT_DELEGATION: open_delegation4(d); break;
	case OP_COPY: write_response4(d); xdr_skip(d, 8, "copy_requirements4"); break;
	case OP_COPY_NOTIFY: {
		nfstime4(d);
		stateid4(d);
		uint32_t n = array_count(d, 64, "source_server count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			netloc4(d);
		break;
	}
	case OP_IO_ADVISE: bitmap4(d, NULL, NULL); break;
	case OP_OFFLOAD_STATUS: xdr_u64(d, "count"); xdr_skip_array(d, 4, 1, "complete"); break;
	case OP_READ_PLUS: {
		xdr_bool(d, "eof");
		uint32_t n = array_count(d, BIG, "contents count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
			uint32_t t = xdr_u32(d, "data_content4");
			xdr_u64(d, "offset");
			if (t == 0)
				xdr_skip_opaque(d, BIG * 64, "data");
			else
				xdr_u64(d, "length");
		}
		break;
	}
	case OP_SEEK: xdr_bool(d, "eof"); xdr_u64(d, "offset"); break;
	case OP_WRITE_SAME: write_response4(d); break;
	case OP_GETXATTR: xdr_skip_opaque(d, BIG, "xattrvalue4"); break;
	case OP_LISTXATTRS: {
		xdr_u64(d, "cookie");
		uint32_t n = array_count(d, BIG, "names count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++)
			component(d, NULL, 0);
		xdr_bool(d, "eof");
		break;
	}
	case OP_DELEGPURGE: case OP_DELEGRETURN: case OP_LOOKUP: case OP_LOOKUPP:
	case OP_NVERIFY: case OP_VERIFY: case OP_OPENATTR: case OP_PUTFH: case OP_PUTPUBFH:
	case OP_PUTROOTFH: case OP_RENEW: case OP_RESTOREFH: case OP_SAVEFH:
	case OP_SETCLIENTID_CONFIRM: case OP_RELEASE_LOCKOWNER: case OP_BACKCHANNEL_CTL:
	case OP_DESTROY_SESSION: case OP_FREE_STATEID: case OP_DESTROY_CLIENTID:
	case OP_RECLAIM_COMPLETE: case OP_ALLOCATE: case OP_DEALLOCATE: case OP_OFFLOAD_CANCEL:
	case OP_CLONE: case OP_LAYOUTERROR: case OP_LAYOUTSTATS: case OP_LOCKT:
		break;
	default:
		return false;
	}
	return true;
}

/* ---- COMPOUND ------------------------------------------------------ */

static bool trivial_op(uint32_t op)
{
	return op == OP_SEQUENCE || op == OP_PUTFH || op == OP_PUTROOTFH || op == OP_PUTPUBFH ||
	       op == OP_SAVEFH || op == OP_RESTOREFH || op == OP_GETFH || op == OP_GETATTR;
}

/* COMPOUND and CB_COMPOUND share these. */

/* An argarray / resarray longer than NFS4_MAXOPS is marked bad. */
static bool too_many_ops(struct pdec *d, uint32_t n, const char *what)
{
	if (n <= NFS4_MAXOPS)
		return false;
	xdr_bad_u32(d, what);
	return true;
}

/* The argarray count, into r->nops; false when unreadable or too long. */
static bool argarray_count(struct pdec *d, uint32_t *n)
{
	*n = xdr_u32(d, "argarray count");
	if (!xdr_ok(d) || too_many_ops(d, *n, "argarray count"))
		return false;
	d->rec->nops = (uint16_t)*n;
	return true;
}

/* The record's slot for the call's i-th op (past REC_MAX_OPS: scratch),
 * cleared, with no status yet. */
static struct rec_op *call_op_slot(struct nfsrdma_record *r, uint32_t i, struct rec_op *scratch, uint16_t op)
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
	if (!argarray_count(d, &n))
		return;
	DT(d->tree, "COMPOUND: tag \"%s\" minorversion %u, %u op(s)", tag, r->minorvers, n);
	int main_idx = -1;
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "nfs_opnum4");
		struct rec_op scratch, *o = call_op_slot(r, i, &scratch, (uint16_t)(op > 0xffff ? 0xffff : op));
		DT(d->tree, "op %u: %s", i, nfs4_op_name(op));
		dt_push(d->tree);
		bool known = op_args(d, op, o, &s);
		if (d->tree && known && (o->flags & (REC_OPF_OFFSET | REC_OPF_COUNT | REC_OPF_SEQID)) &&
		    op != OP_WRITE && op != OP_OPEN)
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
	if (too_many_ops(d, n, "resarray count"))
		return;
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "resop");
		uint32_t st = op == OP_ILLEGAL ? xdr_u32(d, "status") : xdr_u32(d, "status");
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
		bool known = op_res(d, op, st, o);
		dt_pop(d->tree);
		if (!known) {
			xdr_bad_u32(d, "resop (unknown operation)");
			break;
		}
	}
}

/* The name the client would give this COMPOUND (see nfs4.h). */
const char *nfs4_compound_name(const struct nfsrdma_record *r)
{
	bool rootfh = false, getfh = false;
	uint64_t bits = 0;
	unsigned n = r->nops < REC_MAX_OPS ? r->nops : REC_MAX_OPS;

	if (r->prog == PROG_NFS_CB) {
		for (unsigned i = 0; i < n; i++)
			if (r->ops[i].op != CB_SEQUENCE)
				return nfs4_cb_op_name(r->ops[i].op);
		return n ? "CB_SEQUENCE" : (r->proc == 0 ? "CB_NULL" : "CB_COMPOUND");
	}
	if (r->proc == 0)
		return "NULL";
	for (unsigned i = 0; i < n; i++) {
		uint32_t op = r->ops[i].op;
		if (op == OP_LAYOUTRETURN && i + 1 < n && !trivial_op(r->ops[i + 1].op))
			continue; /* CLOSE and DELEGRETURN carry a LAYOUTRETURN first */
		if (!trivial_op(op)) {
			if (op == OP_CREATE && r->ops[i].count == 5)
				return "SYMLINK";
			/* Linux: claims PREVIOUS, FH, DELEG_CUR_FH, DELEG_PREV_FH */
			if (op == OP_OPEN && (r->ops[i].count == 1 || r->ops[i].count >= 4))
				return "OPEN_NOATTR";
			if (op == OP_SETATTR && i + 1 < n && r->ops[i + 1].op == OP_GETATTR)
				return "SETATTR";
			return nfs4_op_name(op);
		}
		if (op == OP_PUTROOTFH)
			rootfh = true;
		if (op == OP_GETFH)
			getfh = true;
		if (op == OP_GETATTR && !bits)
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
	if (n == 1 && r->ops[0].op == OP_SEQUENCE)
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

/* ---- backchannel --------------------------------------------------- */

/* notify4<> of CB_NOTIFY and CB_NOTIFY_DEVICEID: a bitmap and its values each. */
static void notify4_list(struct pdec *d)
{
	uint32_t n = array_count(d, 1024, "changes count");
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		bitmap4(d, NULL, NULL);
		xdr_skip_opaque(d, BIG, "notify_vals");
	}
}

static bool cb_args(struct pdec *d, uint32_t op, struct rec_op *o)
{
	switch (op) {
	case CB_GETATTR:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		bitmap4(d, NULL, NULL);
		break;
	case CB_RECALL: {
		o->seqid = stateid4_dt(d, "stateid");
		bool trunc = xdr_bool(d, "truncate");
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH | REC_OPF_SEQID;
		if (xdr_ok(d))
			DT(d->tree, "truncate: %s fh: hash 0x%08" PRIx32, trunc ? "yes" : "no", (uint32_t)o->fh_hash);
		break;
	}
	case CB_LAYOUTRECALL: {
		xdr_skip(d, 8, "type iomode");
		xdr_bool(d, "changed");
		uint32_t t = xdr_u32(d, "layoutrecall_type4");
		if (t == 1) {
			o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
			o->offset = xdr_u64(d, "offset");
			xdr_u64(d, "length");
			o->seqid = stateid4(d);
			o->flags |= REC_OPF_FH | REC_OPF_OFFSET | REC_OPF_SEQID;
		} else if (t == 2) {
			xdr_skip(d, 16, "fsid");
		}
		break;
	}
	case CB_NOTIFY:
		stateid4(d);
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		notify4_list(d);
		break;
	case CB_PUSH_DELEG:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		open_delegation4(d);
		break;
	case CB_RECALL_ANY: case CB_RECALLABLE_OBJ_AVAIL:
		xdr_u32(d, "objects_to_keep");
		bitmap4(d, NULL, NULL);
		break;
	case CB_RECALL_SLOT: xdr_u32(d, "target_highest_slotid"); break;
	case CB_SEQUENCE: {
		xdr_skip(d, 16, "sessionid");
		o->seqid = xdr_u32(d, "sequenceid");
		o->flags |= REC_OPF_SEQID;
		uint32_t slot = xdr_u32(d, "slotid"), hi = xdr_u32(d, "highest_slotid");
		xdr_bool(d, "cachethis");
		if (xdr_ok(d))
			DT(d->tree, "seqid: %u slot: %u highest slot: %u", o->seqid, slot, hi);
		uint32_t n = array_count(d, 1024, "referring_call_lists count");
		for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
			xdr_skip(d, 16, "sessionid");
			xdr_skip_array(d, 8, 1024, "referring_calls");
		}
		break;
	}
	case CB_WANTS_CANCELLED: xdr_bool(d, "contended"); xdr_bool(d, "resourced"); break;
	case CB_NOTIFY_LOCK:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->flags |= REC_OPF_FH;
		lock_owner4(d);
		break;
	case CB_NOTIFY_DEVICEID: notify4_list(d); break;
	case CB_OFFLOAD:
		o->fh_hash = xdr_fh(d, NFS4_FHSIZE, "fh");
		o->seqid = stateid4(d);
		o->flags |= REC_OPF_FH | REC_OPF_SEQID;
		if (xdr_u32(d, "osr_status") == 0)
			write_response4(d);
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
	if (!argarray_count(d, &n))
		return;
	DT(d->tree, "CB_COMPOUND: tag \"%s\" minorversion %u callback_ident %u, %u op(s)", tag,
	   r->minorvers, ident, n);
	for (uint32_t i = 0; i < n && xdr_ok(d); i++) {
		uint32_t op = xdr_u32(d, "nfs_cb_opnum4");
		struct rec_op scratch, *o = call_op_slot(r, i, &scratch, (uint16_t)op);
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
	if (too_many_ops(d, n, "resarray count"))
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
		if (op == CB_SEQUENCE)
			xdr_skip(d, 16 + 16, "cb_sequence result");
		else if (op == CB_GETATTR)
			fattr4(d);
		else if (op < CB_GETATTR || op > CB_OFFLOAD) {
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
