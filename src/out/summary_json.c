/* -z summaries as JSON Lines (docs/record.md, "JSON Lines: the types of
 * line"), through the one JSON writer: a summary line per row, its
 * diagnosis after it, the total last; latencies in ns, exact as counted.
 * The rows: summary.c. */
#include <stdlib.h>
#include <string.h>

#include "src/base/json.h"
#include "src/out/recfmt.h"
#include "src/out/summary_priv.h"

/* the row's verdict, places and segments (out_jw_verdict_sum) */
static void verdict(struct jw *j, const struct sum_ent *e)
{
	static const struct verdict_sum none;

	out_jw_verdict_sum(j, e->fv ? e->fv : &none);
}

/* {"type":"diagnosis"}: the same, typed, after the row's summary line. */
static void diag(struct jw *j, const char *by, const struct sum_ent *e)
{
	struct phase_diag_result d;
	const char *k = summary_row_diag(e, &d);

	if (!k)
		return;
	jw_lit(j, "{\"type\":\"diagnosis\",\"by\":");
	jw_str(j, by);
	JW_KEY(j, "key");
	jw_str(j, e->key);
	JW_KEY(j, "phases");
	jw_str(j, k);
	const uint64_t v[] = { d.n, d.mean_ns, d.p99_ns };
	static const char *const n[] = { "rpcs", "mean_ns", "p99_ns" };
	jw_counts(j, n, v, 3, true);
	jw_lit(j, ",\"mean\":{\"phase\":");
	jw_str(j, summary_ph_name(k, d.mean_phase));
	JW_KEY(j, "pct");
	jw_u(j, d.mean_pct);
	jw_lit(j, "},\"p99\":{\"phase\":");
	jw_str(j, summary_ph_name(k, d.p99_phase));
	JW_KEY(j, "pct");
	jw_u(j, d.p99_pct);
	JW_KEY(j, "rpcs");
	jw_u(j, d.tail_n);
	jw_c(j, '}');
	if (k[0] == 'f')
		verdict(j, e);
	jw_lit(j, "}\n");
}

static void counts(struct jw *j, const struct sum_ent *e)
{
	static const char *const n[] = { "calls", "replies", "errors", "unanswered", "bytes_inline", "bytes_ddp" };
	const uint64_t v[] = { e->calls, e->replies, e->errors, e->unanswered, e->bytes_inline, e->bytes_ddp };
	jw_counts(j, n, v, 6, true);
}

/* "fused":{...}: the joined records' phases, diagnosis and verdict */
static void fused(struct jw *j, const struct sum_ent *e)
{
	struct phase_diag_result d = summary_diagnosis(e);

	jw_lit(j, ",\"fused\":{\"joined\":");
	jw_u(j, e->fused);
	jw_lit(j, ",\"mean_ns\":{");
	for (unsigned p = 0; p < REC_FP_N; p++) {
		if (p)
			jw_c(j, ',');
		jw_str(j, rec_fphase_name(p));
		jw_c(j, ':');
		jw_u(j, e->fph[p].sum / e->fused);
	}
	JW_KEY(j, "total");
	jw_u(j, e->fph[REC_FP_N].sum / e->fused);
	jw_lit(j, "},\"p99_ns\":");
	jw_u(j, hist_pct(&e->fph[REC_FP_N], 0.99));
	jw_lit(j, ",\"dominant_mean\":{\"phase\":");
	jw_str(j, summary_diag_fphase(d.mean_phase));
	JW_KEY(j, "pct");
	jw_u(j, d.mean_pct);
	jw_lit(j, "},\"dominant_p99\":{\"phase\":");
	jw_str(j, summary_diag_fphase(d.p99_phase));
	JW_KEY(j, "pct");
	jw_u(j, d.p99_pct);
	JW_KEY(j, "rpcs");
	jw_u(j, d.tail_n);
	jw_lit(j, "},\"net_pair\":");
	jw_u(j, e->fpair);
	verdict(j, e);
	JW_KEY(j, "negative");
	jw_u(j, e->fneg[0]);
	jw_lit(j, ",\"negative_by\":{");
	jw_counts(j, rec_neg_reason, e->fneg + 1, REC_NEG_N, false);
	jw_lit(j, "}}");
}

/* The same rows as summary_print, one JSON object a line. */
void summary_print_json(const struct summary *s, FILE *f)
{
	static const char *const by[] = { "", "proc", "conn", "client", "transport" };
	static const char *const ln[] = { "latencies", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns" };
	static const char *const mn[] = { "read", "write", "reply", "p0" };
	struct sum_ent **v = summary_sorted(s);
	struct sum_ent tot;
	struct jw jb, *j = &jb;

	if (!v)
		return;
	jw_init(j, f);
	memset(&tot, 0, sizeof(tot));
	for (size_t i = 0; i < s->n; i++) {
		const struct sum_ent *e = v[i];
		jw_lit(j, "{\"type\":\"summary\",\"by\":");
		jw_str(j, by[s->kind]);
		JW_KEY(j, "key");
		jw_str(j, e->key);
		counts(j, e);
		const uint64_t lv[] = { e->lat.n, hist_pct(&e->lat, 0.50), hist_pct(&e->lat, 0.90),
					hist_pct(&e->lat, 0.99), hist_pct(&e->lat, 0.999), e->lat.max };
		jw_counts(j, ln, lv, 6, true);
		jw_lit(j, ",\"chunks\":{\"inline\":");
		jw_u(j, e->mix_inline);
		const uint64_t mv[] = { e->mix_read, e->mix_write, e->mix_reply, e->mix_p0 };
		jw_counts(j, mn, mv, 4, true);
		jw_c(j, '}');
		if (e->fph)
			fused(j, e);
		jw_lit(j, "}\n");
		diag(j, by[s->kind], e);
		summary_tot_add(&tot, e);
	}
	jw_lit(j, "{\"type\":\"summary_total\",\"by\":");
	jw_str(j, by[s->kind]);
	JW_KEY(j, "keys");
	jw_u(j, s->n);
	counts(j, &tot);
	jw_lit(j, "}\n");
	jw_flush(j);
	free(v);
}
