/* The -z summary's rows, shared by its text (summary.c) and its JSON
 * Lines (summary_json.c); not for other files. */
#ifndef NFSRDMA_OUT_SUMMARY_PRIV_H
#define NFSRDMA_OUT_SUMMARY_PRIV_H

#include <stdint.h>

#include "src/out/out.h"
#include "src/stats/hist.h"
#include "src/stats/phase_diag.h"
#include "src/stats/verdict_sum.h"

struct sum_ent {
	char key[96];
	uint64_t calls, replies, errors, unanswered;
	uint64_t bytes_inline, bytes_ddp;
	uint64_t mix_inline, mix_read, mix_write, mix_reply, mix_p0;
	struct hist lat;
	/* joined records: the fused phases (merged spans count for their
	 * first phase); NULL until one comes */
	struct hist *fph;
	uint64_t fused;
	uint64_t fneg[5];              /* joined with a negative phase: all, then by reason (RECFF_NEG_*) */
	struct phase_diag *fdiag;      /* fused: mean and p99 split (src/stats/phase_diag.h) */
	struct phase_diag *wdiag;      /* the same of the wire's phases, for records not joined */
	struct verdict_sum *fv;        /* fused: places and segments summed, the row's verdict */
	uint64_t fpair;                /* fused with net_out+net_back (directions the clocks cannot give) */
};

/* -z proc: the entry of the last few names, found without formatting the
 * name.  A record's name depends only on these fields (rec_name_str). */
struct proc_ident {
	uint32_t prog, vers, proc, minor;
	const char *name;        /* nfs4_compound_name() for COMPOUNDs (static strings) */
	uint8_t  known;          /* RECF_CALL seen and prog known */
	uint8_t  transport;      /* rows are split by transport */
};
#define PROC_CACHE 256

struct summary {
	enum summary_kind kind;
	struct sum_ent **e;
	size_t n, cap;
	struct { struct proc_ident id; struct sum_ent *e; } pc[PROC_CACHE];
};

/* The entries sorted by key (a malloc'd array the caller frees), or NULL. */
struct sum_ent **summary_sorted(const struct summary *s);
/* The counts of e added to tot (the total row) */
void summary_tot_add(struct sum_ent *tot, const struct sum_ent *e);
/* Which fused phase holds most of the mean and of the p99 (zeros: none) */
struct phase_diag_result summary_diagnosis(const struct sum_ent *e);
/* A fused phase as the diagnosis names it (net_out and net_back as one) */
const char *summary_diag_fphase(unsigned ph);
/* The row's diagnosis: "fused" (its joined records), "wire", or NULL */
const char *summary_row_diag(const struct sum_ent *e, struct phase_diag_result *d);
/* A phase's name in a diagnosis of that kind */
const char *summary_ph_name(const char *kind, unsigned ph);

#endif
