/* NFSv4 XDR types met in more than one operation (bitmap4, fattr4,
 * stateid4, component4, the EXCHANGE_ID and CREATE_SESSION pieces,
 * open_delegation4, ...) and the operation names. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/nfs4_int.h"
#include "dissect/pnfs_rdma.h"

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

void nfs4_bitmap4(struct pdec *d, uint32_t *w0, uint32_t *w1)
{
	uint32_t n = xdr_u32(d, "nfs4_bitmap4 length");
	if (n > 64) {
		xdr_bad_u32(d, "nfs4_bitmap4 length");
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = xdr_u32(d, "nfs4_bitmap4 word");
		if (i == 0 && w0)
			*w0 = w;
		if (i == 1 && w1)
			*w1 = w;
	}
}

void nfs4_fattr4(struct pdec *d)
{
	nfs4_bitmap4(d, NULL, NULL);
	xdr_skip_opaque(d, BIG, "nfs4_fattr4 attrlist");
}

const char *nfs4_cdfc4_name(uint32_t dir)
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
void nfs4_seq4_status_flags(struct pdec *d, uint32_t f)
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

uint32_t nfs4_stateid4(struct pdec *d)
{
	uint32_t seq = xdr_u32(d, "stateid seqid");
	xdr_skip(d, 12, "stateid other");
	return seq;
}

/* A stateid shown in -V with its "other" in hex, as tshark prints it, so
 * that a delegation can be followed from the OPEN that granted it to
 * CB_RECALL, the OPEN that claims it and DELEGRETURN. */
uint32_t nfs4_stateid4_dt(struct pdec *d, const char *label)
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

const char *const nfs4_share_names[4] = { "NONE", "READ", "WRITE", "BOTH" };
const char *const nfs4_claim_names[7] = {
	"CLAIM_NULL", "CLAIM_PREVIOUS", "CLAIM_DELEGATE_CUR", "CLAIM_DELEGATE_PREV",
	"CLAIM_FH", "CLAIM_DELEG_CUR_FH", "CLAIM_DELEG_PREV_FH",
};
const char *const nfs4_deleg_names[4] = { "NONE", "READ", "WRITE", "NONE_EXT" };

void nfs4_component(struct pdec *d, char *out, size_t len)
{
	char tmp[REC_NAME_MAX];
	if (!out) {
		out = tmp;
		len = sizeof(tmp);
	}
	xdr_string(d, NFS4_OPAQUE * 4, out, len, "component4");
}

void nfs4_change_info4(struct pdec *d) { xdr_skip(d, 20, "nfs4_change_info4"); }
void nfs4_nfstime4(struct pdec *d) { xdr_skip(d, 12, "nfs4_nfstime4"); }
void nfs4_lock_owner4(struct pdec *d)
{
	xdr_skip(d, 8, "lock_owner clientid");
	xdr_skip_opaque(d, NFS4_OPAQUE, "lock_owner owner");
}

void nfs4_netaddr4(struct pdec *d)
{
	xdr_skip_opaque(d, NFS4_OPAQUE, "nfs4_netaddr4 netid");
	xdr_skip_opaque(d, NFS4_OPAQUE, "nfs4_netaddr4 addr");
}

void nfs4_netloc4(struct pdec *d)
{
	uint32_t t = xdr_u32(d, "nfs4_netloc4 type");
	if (t == 3)
		nfs4_netaddr4(d);
	else
		xdr_skip_opaque(d, NFS4_OPAQUE, "nfs4_netloc4 name");
}

/* The count of an array<max>.  Past max it is marked bad and reads as 0:
 * the cursor has failed, so nothing after it decodes either. */
uint32_t nfs4_array_count(struct pdec *d, uint32_t max, const char *what)
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

void nfs4_sec_parms(struct pdec *d)
{
	uint32_t n = nfs4_array_count(d, 64, "callback_sec_parms count");
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

void nfs4_channel_attrs4(struct pdec *d)
{
	xdr_skip(d, 24, "nfs4_channel_attrs4");
	xdr_skip_array(d, 4, 1, "ca_rdma_ird");
}

void nfs4_state_protect_ops4(struct pdec *d)
{
	nfs4_bitmap4(d, NULL, NULL);
	nfs4_bitmap4(d, NULL, NULL);
}

void nfs4_skip_oid_array(struct pdec *d)
{
	uint32_t n = nfs4_array_count(d, 64, "sec_oid4 count");
	for (uint32_t i = 0; i < n && xdr_ok(d); i++)
		xdr_skip_opaque(d, NFS4_OPAQUE, "sec_oid4");
}

void nfs4_impl_id(struct pdec *d)
{
	uint32_t n = nfs4_array_count(d, 1, "nfs_impl_id4 count");
	if (n) {
		xdr_skip_opaque(d, NFS4_OPAQUE, "nii_domain");
		xdr_skip_opaque(d, NFS4_OPAQUE, "nii_name");
		nfs4_nfstime4(d);
	}
}

void nfs4_open_delegation4(struct pdec *d)
{
	uint32_t t = xdr_u32(d, "open_delegation_type4");
	if (xdr_ok(d))
		DT(d->tree, "delegation: %s", t < 4 ? nfs4_deleg_names[t] : "?");
	switch (t) {
	case 0: break;
	case 1:
		nfs4_stateid4_dt(d, "delegation stateid");
		xdr_bool(d, "recall");
		nfsace4(d);
		break;
	case 2: {
		nfs4_stateid4_dt(d, "delegation stateid");
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

void nfs4_write_response4(struct pdec *d)
{
	xdr_skip_array(d, 16, 1, "wr_callback_id");
	xdr_skip(d, 8 + 4 + 8, "nfs4_write_response4");
}

void nfs4_layoutupdate4(struct pdec *d)
{
	uint32_t type = xdr_u32(d, "nfs4_layoutupdate4 type");
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(&d->c, BIG, &n, "nfs4_layoutupdate4 body");
	if (p && type == LAYOUT4_RDMA)
		pnfs_rdma_layoutupdate(d, p, n);
}
