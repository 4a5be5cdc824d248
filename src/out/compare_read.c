/* --compare: one capture through the dissector into one side (compare.h). */
#include <errno.h>

#include "dissect/dissect.h"
#include "pcap/dissect_run.h"
#include "src/base/log.h"
#include "src/out/compare.h"
#include "src/out/run_report.h"

struct reading {
	struct compare *c;
	int side;
	const struct compare_how *how;
	uint64_t seen, kept;
	bool oom;
};

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct reading *rd = ctx;

	rd->seen++;
	if (rd->how->keep && !rd->how->keep(r, rd->how->ctx))
		return;
	rd->kept++;
	if (compare_add(rd->c, rd->side, r) < 0)
		rd->oom = true;
}

static void on_diag(const struct diag *g, void *ctx)
{
	struct reading *rd = ctx;

	if (rd->how->diag)
		rd->how->diag(g, rd->how->ctx);
}

int compare_read(struct compare *c, int side, const char *file, const struct compare_how *how,
		 bool *nothing)
{
	char err[512];
	struct reading rd = { .c = c, .side = side, .how = how };
	struct dissect_opts dopts = { 0 };
	struct dissect_cbs cbs = { on_record, NULL, on_diag, &rd, NULL };
	struct dissect *d = dissect_new(&dopts, &cbs);

	if (!d) {
		log_error("out of memory");
		return 1;
	}
	int ret = dissect_file(d, file, err, sizeof(err));
	int rc = 0;
	if (ret < 0) {
		log_error("%s", err);
		rc = ret == -EPROTONOSUPPORT ? 2 : 1;
	} else if (rd.oom) {
		log_error("out of memory");
		rc = 1;
	} else if (!rd.seen) {
		run_report_nothing(err, sizeof(err), file, dissect_stats(d), dissect_transport_stats(d));
		log_warn("%s", err);
		*nothing = true;
	} else if (!rd.kept) {
		log_warn("%s: none of its %llu RPCs matched the filters", file, (unsigned long long)rd.seen);
		*nothing = true;
	}
	char snap[256];
	if (rc == 0 && dissect_snap_note(dissect_stats(d), snap, sizeof(snap)))
		log_warn("%s: %s", file, snap);
	dissect_free(d);
	return rc;
}
