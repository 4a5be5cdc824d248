/* NFSv4 XDR types met in more than one operation (bitmap4, fattr4,
 * stateid4, component4, the EXCHANGE_ID and CREATE_SESSION pieces,
 * open_delegation4, ...). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dissect/nfs4_int.h"
#include "dissect/nfs_xdr_skip.h"
#include "dissect/pnfs_rdma.h"

/* ---- XDR pieces ---------------------------------------------------- */

void nfs4_bitmap4(struct pdec *d, uint32_t *w0, uint32_t *w1)
{
	nfs4_skip_bitmap4(&d->c, w0, w1);
}

void nfs4_fattr4(struct pdec *d)
{
	nfs4_skip_fattr4(&d->c);
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
 * NFS4_OP_CB_RECALL, the OPEN that claims it and DELEGRETURN. */
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

bool nfs4_component(struct pdec *d, char *out, size_t len)
{
	char tmp[REC_NAME_MAX];
	if (!out) {
		out = tmp;
		len = sizeof(tmp);
	}
	return xdr_string(d, NFS4_OPAQUE * 4, out, len, "component4");
}

/* A name argument and its tree line; with keep, also the record's name
 * if it has none yet (the first name of the COMPOUND, as NFSv3 keeps its
 * first: a RENAME is named by its source). */
void nfs4_component_dt(struct pdec *d, const char *label, bool keep)
{
	char name[REC_NAME_MAX];
	bool cut;

	if (!xdr_name(d, NFS4_OPAQUE * 4, name, sizeof(name), &cut, "component4"))
		return;
	if (keep && !d->rec->name[0])
		xdr_rec_name(d->rec, name, cut);
	xdr_dt_name(d, label, name, cut);
}

const char *const nfs4_ftype_names[10] = {
	"?", "NF4REG", "NF4DIR", "NF4BLK", "NF4CHR", "NF4LNK", "NF4SOCK", "NF4FIFO", "NF4ATTRDIR", "NF4NAMEDATTR",
};

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
