/* nfsrdma-top's fused split view (top_fused.h). */
#include "src/top/top_fused.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/json.h"
#include "src/out/out.h"

const char *const top_fphase_abbr[REC_FP_N] = { "cq", "cs", "out", "sq", "pul", "exe", "rb", "psh", "bck", "cd" };

enum agg_dim top_fused_dim(const struct top_view *v)
{
	return fsplit_dim_ok(v->dim) ? v->dim : AGG_OP;
}

static enum top_sort g_sort;   /* qsort has no context argument */
static bool g_rev;

static int cmp_u(uint64_t a, uint64_t b) { return a < b ? 1 : a > b ? -1 : 0; }   /* descending */

static int cmp_row(const void *pa, const void *pb)
{
	const struct fsplit_row *a = *(const struct fsplit_row *const *)pa, *b = *(const struct fsplit_row *const *)pb;
	int c = 0;

	switch (g_sort) {
	case SORT_P50: c = cmp_u(a->p50, b->p50); break;
	case SORT_P99: c = cmp_u(a->p99, b->p99); break;
	case SORT_MAX: c = cmp_u(a->max, b->max); break;
	case SORT_KEY: case SORT_N: break;
	default: c = cmp_u(a->n, b->n); break;   /* records; rate and errors have no fused counterpart */
	}
	if (!c)
		c = strcmp(a->key, b->key);
	if (!c)   /* one key's shapes: the most vantages first */
		c = a->vantages > b->vantages ? -1 : a->vantages < b->vantages ? 1 : (a->merged > b->merged) - (a->merged < b->merged);
	return g_rev ? -c : c;
}

size_t top_fused_rows(const struct fsplit_snap *fs, const struct top_view *v, const struct fsplit_row ***out)
{
	size_t n = 0;
	enum agg_dim dim = top_fused_dim(v);
	const struct fsplit_row **rows = malloc((fs->n ? fs->n : 1) * sizeof(*rows));

	*out = rows;
	if (!rows)
		return 0;
	for (size_t i = 0; i < fs->n; i++) {
		const struct fsplit_row *r = &fs->rows[i];
		if (r->dim != dim || (v->filter[0] && !strcasestr(r->key, v->filter)) ||
		    (v->transport >= 0 && r->transport != v->transport))
			continue;
		rows[n++] = r;
	}
	g_sort = v->sort;
	g_rev = v->reverse;
	qsort(rows, n, sizeof(*rows), cmp_row);
	return n;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

unsigned top_fused_spans(const struct fsplit_row *r, struct top_span sp[REC_FP_N])
{
	uint8_t first[REC_FP_N], last[REC_FP_N];
	unsigned n = fsplit_spans(r->merged, first, last);

	for (unsigned k = 0; k < n; k++) {
		struct top_span *s = &sp[k];
		s->first = first[k];
		s->last = last[k];
		s->pair = s->first == REC_FP_NET_OUT && s->last == s->first && (r->merged & REC_FM_NET_PAIR);
		rec_fphase_span_name(r->merged, s->first, s->name, sizeof(s->name));
		s->bounded = r->mask & (1u << s->first);
		s->sum = r->phase[s->first];
		s->tail = r->tail[s->first];
		s->mean_pct = share(s->sum, r->sum);
		s->p99_pct = share(s->tail, r->tail_sum);
	}
	return n;
}

int top_fused_span_at(const struct top_span *sp, unsigned n, unsigned p)
{
	for (unsigned k = 0; k < n; k++) {
		if (p >= sp[k].first && p <= sp[k].last)
			return (int)k;
		if (p == REC_FP_NET_BACK && sp[k].first == REC_FP_NET_OUT && sp[k].pair)
			return (int)k;
	}
	return -1;
}

const char *top_fused_verdict(const struct fsplit_row *r, bool words, char *buf, size_t len)
{
	struct verdict_of o;

	if (!verdict_sum_get(&r->vs, &o))
		return "-";
	if (words)
		return verdict_words(o.places, o.pm, buf, len);
	char pl[160];
	snprintf(buf, len, "%s %u%%", verdict_places_str(o.places, '|', pl, sizeof(pl)), (o.pm + 5) / 10);
	return buf;
}

/* "client+wire+server" */
static const char *top_vantages_str(unsigned vt, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned b = REC_VT_CLIENT; b <= REC_VT_SERVER; b <<= 1)
		if (vt & b)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "+" : "", rec_vantage_name(b));
	return buf;
}

/* A row's shape, what tells apart the rows of one key: its vantages and
 * the spans a missing vantage merged, in the screen's abbreviations
 * ("client+wire [sq+pul+exe+rb]"; nothing merged: the vantages alone). */
static const char *top_shape_str(const struct fsplit_row *r, char *buf, size_t len)
{
	uint8_t first[REC_FP_N], last[REC_FP_N];
	unsigned ns = fsplit_spans(r->merged, first, last), k = 0;

	top_vantages_str(r->vantages, buf, len);
	size_t n = strlen(buf);
	for (unsigned s = 0; s < ns; s++) {
		bool pair = first[s] == REC_FP_NET_OUT && last[s] == first[s] && (r->merged & REC_FM_NET_PAIR);
		if (first[s] == last[s] && !pair)
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s", k++ ? ", " : " [");
		for (unsigned p = first[s]; p <= last[s]; p++)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", p != first[s] ? "+" : "",
					      top_fphase_abbr[p]);
		if (pair)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "+%s", top_fphase_abbr[REC_FP_NET_BACK]);
	}
	if (k)
		snprintf(buf + n, n < len ? len - n : 0, "]");
	return buf;
}

static const char *const dim_title[AGG_NDIM] = { "OPERATION", "CLIENT", "SERVER", "CONNECTION", "SERIES" };

/* "2.0/5.1/+/+/..." : a span's share in its first phase's place, "+" for
 * the phases merged into it, "-" for a span no RPC of the row bounded */
static void shares(FILE *f, const struct top_span *sp, unsigned n, bool tail)
{
	for (unsigned p = 0; p < REC_FP_N; p++) {
		int k = top_fused_span_at(sp, n, p);
		if (p)
			fputc('/', f);
		if (k < 0 || p != sp[k].first)
			fputc('+', f);
		else if (!sp[k].bounded)
			fputc('-', f);
		else
			fprintf(f, "%.1f", tail ? sp[k].p99_pct : sp[k].mean_pct);
	}
}

/* a clock-free segment's mean over the RPCs that had it (us), or "-" */
static void seg_text(FILE *f, const struct fsplit_row *r, unsigned sg)
{
	uint64_t m;

	if (verdict_sum_seg_mean(&r->vs, sg, &m))
		fprintf(f, " %10.1f", m / 1e3);
	else
		fprintf(f, " %10s", "-");
}

void top_fused_text(FILE *f, const struct fsplit_snap *fs, const struct top_view *v)
{
	if (!fs->have) {
		fputs("fused split: this nfsrdmad sends none (protocol before 2.1)\n\n", f);
		return;
	}
	const struct fsplit_row **rows;
	size_t n = top_fused_rows(fs, v, &rows);
	enum agg_dim dim = top_fused_dim(v);
	size_t w = strlen(dim_title[dim]), ws = strlen("vantages [merged]");
	char vb[160], vw[200];

	fprintf(f, "fused RPCs %" PRIu64 "  not split %" PRIu64 "  over the row limit %" PRIu64 "\n", fs->rpcs,
		fs->unsplit, fs->overflow);
	fputs("split: % of the total (mean) and of the RPCs at or above the p99 (p99); "
	      "+ merged into the phase before it (a vantage missing; net_back: into net_out, the clocks cannot "
	      "give the directions), - not bounded; cnet_us, snet_us: the clock-free client-side and "
	      "server-side network round trips (mean); verdict: the place holding most of the time\n", f);
	for (size_t i = 0; i < n; i++) {
		if (strlen(rows[i]->key) > w)
			w = strlen(rows[i]->key);
		if (strlen(top_shape_str(rows[i], vb, sizeof(vb))) > ws)
			ws = strlen(vb);
	}
	fprintf(f, "%-*s %-*s %8s %10s %10s %10s %10s %6s %5s %10s %10s  split%% ", (int)w, dim_title[dim], (int)ws,
		"vantages [merged]", "rpcs", "mean_us", "p50_us", "p99_us", "max_us", "p99_n", "neg", "cnet_us",
		"snet_us");
	for (int p = 0; p < REC_FP_N; p++)
		fprintf(f, "%s%s", p ? "/" : "", rec_fphase_name((unsigned)p));
	fputs("  verdict\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct fsplit_row *r = rows[i];
		struct top_span sp[REC_FP_N];
		unsigned ns = top_fused_spans(r, sp);
		fprintf(f, "%-*s %-*s %8" PRIu64 " %10.1f %10.1f %10.1f %10.1f %6" PRIu64 " %5" PRIu64, (int)w,
			r->key, (int)ws, top_shape_str(r, vb, sizeof(vb)), r->n, (double)(r->sum / r->n) / 1e3,
			r->p50 / 1e3, r->p99 / 1e3, r->max / 1e3, r->tail_n, r->negative);
		seg_text(f, r, REC_SEG_CLIENT_NET);
		seg_text(f, r, REC_SEG_SERVER_NET);
		fputs("  mean ", f);
		shares(f, sp, ns, false);
		fputs("  p99 ", f);
		shares(f, sp, ns, true);
		fprintf(f, "  verdict: %s\n", top_fused_verdict(r, true, vw, sizeof(vw)));
	}
	if (!n)
		fputs(fs->n ? "(no fused row matches the filter)\n" : "(no fused RPCs yet: a collecting nfsrdmad, or joined records)\n", f);
	fputc('\n', f);
	free(rows);
}

static void fused_span(struct jw *j, const struct fsplit_row *r, const struct top_span *sp)
{
	jw_lit(j, "{\"phase\":");
	jw_str(j, sp->name);
	if (!sp->bounded) {
		jw_lit(j, ",\"sum_ns\":null,\"mean_ns\":null,\"mean_pct\":null,\"p99_sum_ns\":null,"
			  "\"p99_mean_ns\":null,\"p99_pct\":null}");
		return;
	}
	JW_KEY(j, "sum_ns");
	jw_u(j, sp->sum);
	JW_KEY(j, "mean_ns");
	jw_u(j, sp->sum / r->n);
	JW_KEY(j, "mean_pct");
	jw_fixed(j, sp->mean_pct, 2);
	JW_KEY(j, "p99_sum_ns");
	jw_u(j, sp->tail);
	JW_KEY(j, "p99_mean_ns");
	jw_u(j, r->tail_n ? sp->tail / r->tail_n : 0);
	JW_KEY(j, "p99_pct");
	jw_fixed(j, sp->p99_pct, 2);
	jw_c(j, '}');
}

static void fused_row(struct jw *j, const struct fsplit_row *r)
{
	struct top_span sp[REC_FP_N];
	unsigned ns = top_fused_spans(r, sp);
	static const char *const cn[] = { "rpcs", "sum_ns", "mean_ns", "p50_ns", "p99_ns", "max_ns", "p99_rpcs",
					  "p99_sum_ns", "negative", "partial" };
	const uint64_t cv[] = { r->n, r->sum, r->sum / r->n, r->p50, r->p99, r->max, r->tail_n, r->tail_sum,
				r->negative, r->partial };

	jw_lit(j, "{\"key\":");
	jw_str(j, r->key);
	JW_KEY(j, "transport");
	jw_str(j, rec_transport_name(r->transport));
	jw_lit(j, ",\"vantages\":[");
	for (unsigned b = REC_VT_CLIENT, k = 0; b <= REC_VT_SERVER; b <<= 1)
		if (r->vantages & b) {
			if (k++)
				jw_c(j, ',');
			jw_str(j, rec_vantage_name(b));
		}
	/* the spans a missing vantage merged: with the vantages, what tells
	 * apart two rows of one key */
	jw_lit(j, "],\"merged\":[");
	for (unsigned k = 0, m = 0; k < ns; k++)
		if (sp[k].first != sp[k].last || sp[k].pair) {
			if (m++)
				jw_c(j, ',');
			jw_str(j, sp[k].name);
		}
	jw_lit(j, "],");
	jw_counts(j, cn, cv, 10, false);
	jw_lit(j, ",\"spans\":[");
	for (unsigned k = 0; k < ns; k++) {
		if (k)
			jw_c(j, ',');
		fused_span(j, r, &sp[k]);
	}
	jw_c(j, ']');
	out_jw_verdict_sum(j, &r->vs);
	jw_c(j, '}');
}

void top_fused_json(struct jw *j, const struct fsplit_snap *fs, const struct top_view *v)
{
	if (!fs->have) {
		jw_lit(j, ",\"fused\":null");
		return;
	}
	const struct fsplit_row **rows;
	size_t n = top_fused_rows(fs, v, &rows);

	jw_lit(j, ",\"fused\":{\"by\":");
	jw_str(j, agg_dim_name[top_fused_dim(v)]);
	JW_KEY(j, "rpcs");
	jw_u(j, fs->rpcs);
	JW_KEY(j, "unsplit");
	jw_u(j, fs->unsplit);
	JW_KEY(j, "overflow");
	jw_u(j, fs->overflow);
	jw_lit(j, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			jw_c(j, ',');
		fused_row(j, rows[i]);
	}
	jw_lit(j, "]}");
	free(rows);
}
