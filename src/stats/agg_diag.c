/* The diagnosis of an operation row (agg.h): a phase_diag of the wire's
 * phases and one of the fused phases, made when the first record with
 * such phases comes; the row shows the fused one when it has any. */
#include <stdlib.h>
#include <string.h>

#include "src/stats/agg.h"

static struct phase_diag *get(struct agg_ent *e, unsigned i, unsigned nph)
{
	if (!e->diag[i]) {
		struct phase_diag *d = malloc(sizeof(*d));
		if (!d)
			return NULL;
		if (phase_diag_init(d, nph) < 0) {
			phase_diag_free(d);
			free(d);
			return NULL;
		}
		e->diag[i] = d;
	}
	return e->diag[i];
}

/* Called before r's total goes into the row's latency histogram.  The
 * wire diagnosis shares that histogram while every answered record of
 * the row is one it takes (a wire record with all its phases): the usual
 * row, whose totals are then counted once, not twice. */
void agg_diag_add(struct agg_ent *e, const struct nfsrdma_record *r, unsigned hidx)
{
	struct phase_diag *d;
	const bool wire = !rec_is_fused(r) && (r->phase_mask & (1u << REC_PH_N));

	if (!wire && e->diag[0] && e->diag[0]->shared)
		phase_diag_unshare(e->diag[0]);
	if (rec_is_fused(r)) {
		if (!r->f_mask || !(d = get(e, 1, REC_FP_N)))
			return;
		/* a merged span counts for its first phase; net_back with
		 * net_out, as -z's diagnosis sums them (src/out/summary.c): an
		 * operation's RPCs differ in whether their clocks give the
		 * directions, and the diagnosis names none they cannot give */
		uint64_t ph[REC_FP_N];
		uint32_t mask = r->f_mask;
		memcpy(ph, r->f_phase, sizeof(ph));
		if (mask & (1u << REC_FP_NET_BACK)) {
			ph[REC_FP_NET_OUT] = (mask & (1u << REC_FP_NET_OUT) ? ph[REC_FP_NET_OUT] : 0) + ph[REC_FP_NET_BACK];
			ph[REC_FP_NET_BACK] = 0;
			mask = (mask | 1u << REC_FP_NET_OUT) & ~(1u << REC_FP_NET_BACK);
		}
		phase_diag_add_masked(d, hist_index(HIST_RES, r->f_total), r->f_total, ph, mask);
		return;
	}
	if (!wire)
		return;
	if (!e->diag[0]) {
		if (!(d = get(e, 0, PH_N)))
			return;
		if (!e->lat.n)
			d->shared = &e->lat;
	}
	phase_diag_add_masked(e->diag[0], hidx, r->d_total, r->d_phase, r->phase_mask);
}

void agg_diag_row(const struct agg_ent *e, struct agg_row *row)
{
	row->diag_kind = AGG_DIAG_NONE;
	memset(&row->diag, 0, sizeof(row->diag));
	if (e->diag[1] && phase_diag_get(e->diag[1], &row->diag) == 0)
		row->diag_kind = AGG_DIAG_FUSED;
	else if (e->diag[0] && phase_diag_get(e->diag[0], &row->diag) == 0)
		row->diag_kind = AGG_DIAG_WIRE;
}

void agg_diag_free(struct agg_ent *e)
{
	for (unsigned i = 0; i < 2; i++) {
		if (e->diag[i])
			phase_diag_free(e->diag[i]);
		free(e->diag[i]);
		e->diag[i] = NULL;
	}
}

const char *agg_diag_phase(unsigned kind, unsigned ph)
{
	if (kind == AGG_DIAG_FUSED && (ph == REC_FP_NET_OUT || ph == REC_FP_NET_BACK))
		return "net_out+net_back";
	return kind == AGG_DIAG_FUSED ? rec_fphase_name(ph) : kind == AGG_DIAG_WIRE ? rec_phase_name(ph) : "?";
}
