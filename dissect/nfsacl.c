/* NFSACL v2/v3 (the Solaris/Linux side protocol): names, fh, mask, status. */
#include "dissect/programs.h"

#include <inttypes.h>

static const char *nfsacl_proc_name(uint32_t vers, uint32_t proc)
{
	static const char *const n[] = { "NULL", "GETACL", "SETACL", "GETATTR", "ACCESS",
					 "GETXATTRDIR" };
	if (vers == 3)
		return proc < 3 ? n[proc] : NULL;
	return proc < 6 ? n[proc] : NULL;
}

static void nfsacl_call(struct pdec *d)
{
	if (d->proc == 0)
		return;
	if (d->vers == 2) { /* NFSv2 fhandle: fixed 32 bytes */
		const uint8_t *p = cur_bytes(&d->c, 32, "nfsacl fhandle");
		d->rec->fh_hash = p ? xdr_fh_hash(p, 32) : 0;
	} else {
		d->rec->fh_hash = xdr_fh(d, 64, "nfsacl fh");
	}
	DT(d->tree, "fh: hash 0x%08" PRIx32, (uint32_t)d->rec->fh_hash);
	if (d->proc == 1) {
		uint32_t mask = xdr_u32(d, "nfsacl mask");
		DT(d->tree, "mask: 0x%x", mask);
	}
}

static void nfsacl_reply(struct pdec *d)
{
	if (d->proc == 0) {
		d->rec->status = 0;
		return;
	}
	d->rec->status = xdr_u32(d, "nfsacl status");
	DT(d->tree, "status: %u", d->rec->status);
}

/* RFC 8267 §5.2: nothing in NFSACL is DDP-eligible. */
static bool no_ddp(uint32_t vers, uint32_t proc, bool reply) { return false; }

const struct prog_info prog_nfsacl = {
	.prog = PROG_NFSACL, .vmin = 2, .vmax = 3, .name = "NFSACL", .layer = "nfsacl",
	.proc_name = nfsacl_proc_name, .decode_call = nfsacl_call, .decode_reply = nfsacl_reply,
	.ddp_eligible = no_ddp,
};
