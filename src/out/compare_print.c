/* --compare as text and as JSON Lines (compare.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "src/base/json.h"
#include "src/out/compare.h"
#include "src/out/out.h"

/* One cell: a value, or nothing (the side lacks the operation, or has
 * no timed RPC of it). */
struct cell {
	bool set;
	double v;
};

enum metric { M_RPCS, M_P50, M_P99, M_CALL, M_REPLY, M_MEAN, M_PHASE0 };

static struct cell cell_of(const struct cmp_side *s, int m)
{
	struct cell c = { false, 0 };

	if (!s->rpcs)
		return c;
	switch (m) {
	case M_RPCS: c.v = (double)s->rpcs; break;
	case M_CALL: c.v = (double)s->call_bytes; break;
	case M_REPLY: c.v = (double)s->reply_bytes; break;
	default:
		if (!s->timed)
			return c;
		if (m == M_P50)
			c.v = (double)hist_pct(&s->lat, 0.50);
		else if (m == M_P99)
			c.v = (double)hist_pct(&s->lat, 0.99);
		else if (m == M_MEAN)
			c.v = (double)s->lat_sum / (double)s->timed;
		else   /* over every timed RPC, so the phases add up to the mean */
			c.v = (double)s->phase_sum[m - M_PHASE0] / (double)s->timed;
	}
	c.set = true;
	return c;
}

static bool is_time(int m)
{
	return m == M_P50 || m == M_P99 || m >= M_MEAN;
}

static struct cell ratio(struct cell a, struct cell b)
{
	struct cell r = { a.set && b.set && a.v > 0, 0 };

	if (r.set)
		r.v = b.v / a.v;
	return r;
}

static void text_cell(FILE *f, struct cell c, int m, int w)
{
	if (!c.set)
		fprintf(f, " %*s", w, "-");
	else if (is_time(m))
		fprintf(f, " %*.1f", w, c.v / 1000.0);
	else
		fprintf(f, " %*.0f", w, c.v);
}

static void text_row(FILE *f, int kw, const char *key, const char *metric, struct cell a,
		     struct cell b, int m)
{
	fprintf(f, "%-*s %-*s", kw, key, CMP_METRIC_W, metric);
	text_cell(f, a, m, 14);
	text_cell(f, b, m, 14);
	struct cell r = ratio(a, b);
	if (r.set)
		fprintf(f, " %8.2f\n", r.v);
	else
		fprintf(f, " %8s\n", "-");
}

/* The phases that happened on either side, in time order. */
static bool phase_shown(const struct cmp_op *o, unsigned ph)
{
	return o->side[CMP_A].phase_n[ph] || o->side[CMP_B].phase_n[ph];
}

void compare_print(const struct compare *c, FILE *f)
{
	static const char *const metric[M_PHASE0] = { "rpcs", "p50_us", "p99_us", "call_bytes",
						      "reply_bytes", "mean_us" };
	int kw = 24;
	char name[48];

	for (size_t i = 0; i < c->n; i++)
		if ((int)strlen(c->op[i]->key) > kw)
			kw = (int)strlen(c->op[i]->key);
	fprintf(f, "== compare per operation ==\n");
	for (int s = 0; s < CMP_SIDES; s++)
		fprintf(f, "%c: %s (%" PRIu64 " RPCs)\n", 'A' + s, c->file[s], c->rpcs[s]);
	fprintf(f, "%-*s %-*s %14s %14s %8s\n", kw, "operation", CMP_METRIC_W, "metric", "A", "B", "B/A");
	struct cmp_side tot[CMP_SIDES];
	memset(tot, 0, sizeof(tot));
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp_op *o = c->op[i];
		const struct cmp_side *a = &o->side[CMP_A], *b = &o->side[CMP_B];
		for (int m = 0; m < M_PHASE0 + REC_PH_N; m++) {
			if (m >= M_PHASE0 && !phase_shown(o, (unsigned)(m - M_PHASE0)))
				continue;
			if (m >= M_PHASE0)
				snprintf(name, sizeof(name), "  %s", rec_phase_name((unsigned)(m - M_PHASE0)));
			text_row(f, kw, m == M_RPCS ? o->key : "", m < M_PHASE0 ? metric[m] : name,
				 cell_of(a, m), cell_of(b, m), m);
		}
		compare_print_xprt(f, kw, "", &a->x, &b->x, false);
		for (int s = 0; s < CMP_SIDES; s++) {
			tot[s].rpcs += o->side[s].rpcs;
			tot[s].call_bytes += o->side[s].call_bytes;
			tot[s].reply_bytes += o->side[s].reply_bytes;
		}
	}
	static const int tot_m[] = { M_RPCS, M_CALL, M_REPLY };
	for (size_t k = 0; k < sizeof(tot_m) / sizeof(tot_m[0]); k++)
		text_row(f, kw, k ? "" : "total", metric[tot_m[k]], cell_of(&tot[CMP_A], tot_m[k]),
			 cell_of(&tot[CMP_B], tot_m[k]), tot_m[k]);
	compare_print_xprt(f, kw, "", &c->all[CMP_A], &c->all[CMP_B], true);
}

static void json_ratio(struct jw *j, const char *name, struct cell a, struct cell b, bool first)
{
	struct cell r = ratio(a, b);

	if (!first)
		jw_c(j, ',');
	jw_str(j, name);
	jw_c(j, ':');
	if (r.set)
		jw_fixed(j, r.v, 4);
	else
		jw_null(j);
}

/* each phase's value, null when no RPC of this side had it (absent is
 * not zero), as in the records' JSON */
static void json_phases(struct jw *j, const struct cmp_side *s, bool mean)
{
	for (unsigned ph = 0; ph < REC_PH_N; ph++) {
		jw_c(j, ph ? ',' : '{');
		jw_str(j, rec_phase_name(ph));
		jw_c(j, ':');
		if (!s->phase_n[ph])
			jw_null(j);
		else if (mean)
			jw_fixed(j, (double)s->phase_sum[ph] / (double)s->timed, 1);
		else
			jw_u(j, s->phase_sum[ph]);
	}
	jw_c(j, '}');
}

static void json_side(struct jw *j, const struct cmp_side *s)
{
	if (!s->rpcs) {
		jw_null(j);
		return;
	}
	jw_lit(j, "{\"rpcs\":");
	jw_u(j, s->rpcs);
	JW_KEY(j, "timed");
	jw_u(j, s->timed);
	JW_KEY(j, "p50_ns");
	jw_u(j, hist_pct(&s->lat, 0.50));
	JW_KEY(j, "p99_ns");
	jw_u(j, hist_pct(&s->lat, 0.99));
	JW_KEY(j, "max_ns");
	jw_u(j, s->lat.max);
	JW_KEY(j, "call_bytes");
	jw_u(j, s->call_bytes);
	JW_KEY(j, "reply_bytes");
	jw_u(j, s->reply_bytes);
	JW_KEY(j, "lat_sum_ns");
	jw_u(j, s->lat_sum);
	JW_KEY(j, "phase_sum_ns");
	json_phases(j, s, false);
	if (s->timed) {
		JW_KEY(j, "mean_ns");
		jw_fixed(j, (double)s->lat_sum / (double)s->timed, 1);
		JW_KEY(j, "phase_mean_ns");
		json_phases(j, s, true);
	} else {
		jw_lit(j, ",\"mean_ns\":null,\"phase_mean_ns\":null");
	}
	JW_KEY(j, "xprt");
	compare_json_xprt(j, &s->x, false);
	jw_c(j, '}');
}

void compare_print_json(const struct compare *c, FILE *f)
{
	struct cmp_side tot[CMP_SIDES];
	struct jw jb, *j = &jb;

	jw_init(j, f);
	memset(tot, 0, sizeof(tot));
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp_op *o = c->op[i];
		const struct cmp_side *a = &o->side[CMP_A], *b = &o->side[CMP_B];
		jw_lit(j, "{\"type\":\"compare\"");
		JW_KEY(j, "op");
		jw_str(j, o->key);
		JW_KEY(j, "a");
		json_side(j, a);
		JW_KEY(j, "b");
		json_side(j, b);
		JW_KEY(j, "ratio");
		jw_c(j, '{');
		json_ratio(j, "rpcs", cell_of(a, M_RPCS), cell_of(b, M_RPCS), true);
		json_ratio(j, "p50", cell_of(a, M_P50), cell_of(b, M_P50), false);
		json_ratio(j, "p99", cell_of(a, M_P99), cell_of(b, M_P99), false);
		json_ratio(j, "call_bytes", cell_of(a, M_CALL), cell_of(b, M_CALL), false);
		json_ratio(j, "reply_bytes", cell_of(a, M_REPLY), cell_of(b, M_REPLY), false);
		json_ratio(j, "mean", cell_of(a, M_MEAN), cell_of(b, M_MEAN), false);
		compare_json_xprt_ratio(j, &a->x, &b->x, false);
		jw_lit(j, "}}\n");
		for (int s = 0; s < CMP_SIDES; s++) {
			tot[s].rpcs += o->side[s].rpcs;
			tot[s].call_bytes += o->side[s].call_bytes;
			tot[s].reply_bytes += o->side[s].reply_bytes;
		}
	}
	jw_lit(j, "{\"type\":\"compare_total\"");
	for (int s = 0; s < CMP_SIDES; s++) {
		size_t ops = 0;
		for (size_t i = 0; i < c->n; i++)
			ops += c->op[i]->side[s].rpcs != 0;
		jw_lit(j, s == CMP_A ? ",\"a\":{\"file\":" : ",\"b\":{\"file\":");
		jw_str(j, c->file[s]);
		JW_KEY(j, "rpcs");
		jw_u(j, tot[s].rpcs);
		JW_KEY(j, "ops");
		jw_u(j, ops);
		JW_KEY(j, "call_bytes");
		jw_u(j, tot[s].call_bytes);
		JW_KEY(j, "reply_bytes");
		jw_u(j, tot[s].reply_bytes);
		JW_KEY(j, "xprt");
		compare_json_xprt(j, &c->all[s], true);
		jw_c(j, '}');
	}
	JW_KEY(j, "ratio");
	jw_c(j, '{');
	json_ratio(j, "rpcs", cell_of(&tot[CMP_A], M_RPCS), cell_of(&tot[CMP_B], M_RPCS), true);
	json_ratio(j, "call_bytes", cell_of(&tot[CMP_A], M_CALL), cell_of(&tot[CMP_B], M_CALL), false);
	json_ratio(j, "reply_bytes", cell_of(&tot[CMP_A], M_REPLY), cell_of(&tot[CMP_B], M_REPLY), false);
	compare_json_xprt_ratio(j, &c->all[CMP_A], &c->all[CMP_B], true);
	jw_lit(j, "}}\n");
	jw_flush(j);
}
