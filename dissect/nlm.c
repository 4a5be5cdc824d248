/* NLM v1-v4 (Open Group XNFS; v4 in RFC 1813 appendix II): names, the
 * lock's filehandle, offset and length, and nlm_stats. */
#include "dissect/programs.h"
#include "dissect/name_text.h"

#include <inttypes.h>

static const char *nlm_proc_name(uint32_t vers, uint32_t proc)
{
	static const char *const n[] = {
		"NULL", "TEST", "LOCK", "CANCEL", "UNLOCK", "GRANTED", "TEST_MSG", "LOCK_MSG",
		"CANCEL_MSG", "UNLOCK_MSG", "GRANTED_MSG", "TEST_RES", "LOCK_RES", "CANCEL_RES",
		"UNLOCK_RES", "GRANTED_RES", NULL, NULL, NULL, NULL, "SHARE", "UNSHARE",
		"NM_LOCK", "FREE_ALL",
	};
	return proc < sizeof(n) / sizeof(n[0]) ? n[proc] : NULL;
}

/* nlm4_lock / nlm_lock: caller_name, fh, oh, svid, offset, len */
static void nlm_lock(struct pdec *d)
{
	char caller[REC_NAME_MAX], q[4 * REC_NAME_MAX + 1];
	bool cut;

	xdr_name(d, 1024, caller, sizeof(caller), &cut, "nlm caller_name");
	d->rec->fh_hash = xdr_fh(d, 1024, "nlm fh");
	xdr_skip_opaque(d, 1024, "nlm oh");
	xdr_u32(d, "nlm svid");
	if (d->vers >= 4) {
		d->rec->offset = xdr_u64(d, "nlm l_offset");
		d->rec->count = (uint32_t)xdr_u64(d, "nlm l_len");
	} else {
		d->rec->offset = xdr_u32(d, "nlm l_offset");
		d->rec->count = xdr_u32(d, "nlm l_len");
	}
	xdr_rec_name(d->rec, caller, cut);
	DT(d->tree, "caller: \"%s\"%s fh: hash 0x%08" PRIx32 " offset: %" PRIu64 " len: %u",
	   name_text(caller, sizeof(caller), q, sizeof(q)), cut ? "..." : "", (uint32_t)d->rec->fh_hash,
	   d->rec->offset, d->rec->count);
}

static void nlm_call(struct pdec *d)
{
	switch (d->proc) {
	case 1: case 6: /* TEST: cookie, exclusive, lock */
		xdr_skip_opaque(d, 1024, "nlm cookie");
		xdr_bool(d, "nlm exclusive");
		nlm_lock(d);
		break;
	case 2: case 7: /* LOCK: cookie, block, exclusive, lock, reclaim, state */
	case 3: case 8: /* CANCEL: cookie, block, exclusive, lock */
		xdr_skip_opaque(d, 1024, "nlm cookie");
		xdr_bool(d, "nlm block");
		xdr_bool(d, "nlm exclusive");
		nlm_lock(d);
		break;
	case 4: case 9: case 5: case 10: /* UNLOCK, GRANTED(: exclusive first) */
		xdr_skip_opaque(d, 1024, "nlm cookie");
		if (d->proc == 5 || d->proc == 10)
			xdr_bool(d, "nlm exclusive");
		nlm_lock(d);
		break;
	default:
		break;
	}
}

static void nlm_reply(struct pdec *d)
{
	/* Most replies are nlm_res { cookie; stat }; TEST's is nlm_testres
	 * with the same first two fields. */
	if (d->proc == 0 || (d->proc >= 6 && d->proc <= 10) || d->proc == 23) {
		d->rec->status = 0;
		return;
	}
	xdr_skip_opaque(d, 1024, "nlm cookie");
	d->rec->status = xdr_u32(d, "nlm stat");
	DT(d->tree, "stat: %u", d->rec->status);
}

static bool no_ddp(uint32_t vers, uint32_t proc, bool reply) { return false; }

const struct prog_info prog_nlm = {
	.prog = PROG_NLM, .vmin = 1, .vmax = 4, .name = "NLM", .layer = "nlm",
	.proc_name = nlm_proc_name, .decode_call = nlm_call, .decode_reply = nlm_reply,
	.ddp_eligible = no_ddp,
};
