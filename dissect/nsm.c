/* NSM (status monitor) v1: names, mon_name, result. */
#include "dissect/programs.h"

static const char *nsm_proc_name(uint32_t vers, uint32_t proc)
{
	static const char *const n[] = { "NULL", "STAT", "MON", "UNMON", "UNMON_ALL",
					 "SIMU_CRASH", "NOTIFY" };
	return proc < 7 ? n[proc] : NULL;
}

static void nsm_call(struct pdec *d)
{
	char name[REC_NAME_MAX];
	bool cut;

	if (d->proc == 0 || d->proc == 5)
		return;
	if (xdr_name(d, 1024, name, sizeof(name), &cut, "nsm mon_name")) {
		xdr_rec_name(d->rec, name, cut);
		xdr_dt_name(d, "name", name, cut);
	}
}

static void nsm_reply(struct pdec *d)
{
	if (d->proc == 1 || d->proc == 2) { /* sm_stat_res: res, state */
		d->rec->status = xdr_u32(d, "nsm res");
		uint32_t state = xdr_u32(d, "nsm state");
		DT(d->tree, "res: %u state: %u", d->rec->status, state);
	} else {
		d->rec->status = 0;
	}
}

static bool no_ddp(uint32_t vers, uint32_t proc, bool reply) { return false; }

const struct prog_info prog_nsm = {
	.prog = PROG_NSM, .vmin = 1, .vmax = 1, .name = "NSM", .layer = "nsm",
	.proc_name = nsm_proc_name, .decode_call = nsm_call, .decode_reply = nsm_reply,
	.ddp_eligible = no_ddp,
};
