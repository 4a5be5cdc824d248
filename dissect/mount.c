/* MOUNT v1-v3 (RFC 1813 appendix I): procedure names, dirpath, status. */
#include "dissect/programs.h"

#include <inttypes.h>

static const char *mount_proc_name(uint32_t vers, uint32_t proc)
{
	return mount3_proc_name(proc);
}

static void mount_call(struct pdec *d)
{
	char path[REC_NAME_MAX];

	if (d->proc != MOUNT3P_MNT && d->proc != MOUNT3P_UMNT)
		return;
	bool cut;

	if (xdr_name(d, 1024, path, sizeof(path), &cut, "mount dirpath")) {
		xdr_rec_name(d->rec, path, cut);
		xdr_dt_name(d, "dirpath", path, cut);
	}
}

static void mount_reply(struct pdec *d)
{
	if (d->proc != MOUNT3P_MNT) {
		d->rec->status = 0;
		return;
	}
	d->rec->status = xdr_u32(d, "mountstat3");
	DT(d->tree, "status: %u", d->rec->status);
	if (d->rec->status == 0 && d->vers == 3) {
		d->rec->fh_hash = xdr_fh(d, 64, "mount fhandle3");
		DT(d->tree, "fhandle: hash 0x%08" PRIx32, (uint32_t)d->rec->fh_hash);
	}
}

static bool no_ddp(uint32_t vers, uint32_t proc, bool reply) { return false; }

const struct prog_info prog_mount = {
	.prog = PROG_MOUNT, .vmin = 1, .vmax = 3, .name = "MOUNT", .layer = "mount",
	.proc_name = mount_proc_name, .decode_call = mount_call, .decode_reply = mount_reply,
	.ddp_eligible = no_ddp,
};
