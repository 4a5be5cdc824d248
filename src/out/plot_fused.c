/* SVG of fused records (see plot_fused.h).  Totals go into the shared
 * histogram (src/stats/hist.h) so the plot's percentiles are -z's. */
#include "src/out/plot_fused.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/record_names.h"
#include "src/base/outfile.h"
#include "src/out/svg.h"
#include "src/stats/hist.h"

#define OPS_MAX  64     /* later operations share the "(other)" row */
#define LANE_H   8      /* waterfall: one lane per vantage */
#define WF_X0    260
#define WF_W     (SVG_WIDTH - WF_X0 - 20)

/* client phases in blues, the network in greys, the server's waits in
 * warm colours and its work in greens */
static const char *const fphase_color[REC_FP_N] = { "#9ecae1", "#4e79a7", "#bab0ac", "#e15759", "#f28e2b",
						    "#59a14f", "#8cd17d", "#b07aa1", "#79706e", "#76b7b2" };
enum lane { LANE_CLIENT, LANE_WIRE, LANE_SERVER, LANE_N };
static const char *const lane_name[LANE_N] = { "client", "wire", "server" };
static const unsigned char fphase_lane[REC_FP_N] = { LANE_CLIENT, LANE_CLIENT, LANE_WIRE, LANE_SERVER, LANE_SERVER,
						     LANE_SERVER, LANE_SERVER, LANE_SERVER, LANE_WIRE, LANE_CLIENT };

/* The colour of fused phase ph, shared by every view of the fused phases. */
static const char *plot_fphase_color(unsigned ph)
{
	return ph < REC_FP_N ? fphase_color[ph] : "#999";
}

struct fop {
	char key[96];
	struct hist tot;
	uint64_t phase_sum[REC_FP_N];
};

struct slow {
	uint64_t total;
	uint32_t xid, merged, mask;
	uint64_t phase[REC_FP_N];
	char op[96];
};

struct plot_fused {
	struct fop *op[OPS_MAX + 1];
	size_t nop;
	unsigned nslow_max;
	size_t nslow;
	struct slow *slow;     /* sorted, slowest first */
	size_t n;
};

struct plot_fused *plot_fused_new(unsigned slowest)
{
	struct plot_fused *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->nslow_max = slowest < 1 ? 1 : slowest > PLOT_SLOWEST_MAX ? PLOT_SLOWEST_MAX : slowest;
	if (!(p->slow = calloc(p->nslow_max, sizeof(*p->slow)))) {
		free(p);
		return NULL;
	}
	return p;
}

void plot_fused_free(struct plot_fused *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nop; i++) {
		hist_free(&p->op[i]->tot);
		free(p->op[i]);
	}
	free(p->slow);
	free(p);
}

static struct fop *op_get(struct plot_fused *p, const char *key)
{
	for (size_t i = 0; i < p->nop; i++)
		if (!strcmp(p->op[i]->key, key))
			return p->op[i];
	if (p->nop == OPS_MAX)
		key = "(other)";
	for (size_t i = OPS_MAX; i < p->nop; i++)
		if (!strcmp(p->op[i]->key, key))
			return p->op[i];
	struct fop *o = calloc(1, sizeof(*o));
	if (!o || hist_init(&o->tot, HIST_RES) < 0) {
		free(o);
		return NULL;
	}
	snprintf(o->key, sizeof(o->key), "%s", key);
	p->op[p->nop++] = o;
	return o;
}

void plot_fused_add(struct plot_fused *p, const struct nfsrdma_record *r)
{
	char key[96];

	if (!r->f_mask)
		return;
	rec_name_str(r, key, sizeof(key));
	size_t n = strlen(key);
	if (r->transport != REC_TR_RDMA && n < sizeof(key))
		snprintf(key + n, sizeof(key) - n, " %s", rec_transport_name(r->transport));
	struct fop *o = op_get(p, key);
	if (!o)
		return;
	p->n++;
	hist_add(&o->tot, r->f_total);
	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		if (r->f_mask & (1u << ph))
			o->phase_sum[ph] += r->f_phase[ph];
	/* the slowest N: insertion into a short sorted array */
	if (p->nslow == p->nslow_max && r->f_total <= p->slow[p->nslow - 1].total)
		return;
	size_t at = p->nslow < p->nslow_max ? p->nslow++ : p->nslow - 1;
	while (at > 0 && p->slow[at - 1].total < r->f_total) {
		p->slow[at] = p->slow[at - 1];
		at--;
	}
	struct slow *s = &p->slow[at];
	s->total = r->f_total;
	s->xid = r->xid;
	s->merged = r->f_merged;
	s->mask = r->f_mask;
	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		s->phase[ph] = r->f_mask & (1u << ph) ? r->f_phase[ph] : 0;
	snprintf(s->op, sizeof(s->op), "%s", key);
}

static const char *unit(double ns, char *b, size_t n)
{
	return svg_unit(ns, SVG_UNIT_DIGITS_SHORT, b, n);
}

static const char *fphase_name(unsigned ph)
{
	return rec_fphase_name(ph);
}

static int cmp_n(const void *a, const void *b)
{
	const struct fop *x = *(const struct fop *const *)a, *y = *(const struct fop *const *)b;
	return x->tot.n < y->tot.n ? 1 : x->tot.n > y->tot.n ? -1 : strcmp(x->key, y->key);
}

static void dist_rows(FILE *f, struct fop **ops, size_t n, int y0)
{
	struct svg_axis ax;

	svg_axis_init(&ax, SVG_DIST_X0, SVG_DIST_W);
	for (size_t i = 0; i < n; i++)
		svg_axis_see(&ax, hist_pct(&ops[i]->tot, 0.5), ops[i]->tot.max);
	svg_axis_fit(&ax);
	svg_axis_grid(f, &ax, y0, y0 + (int)n * SVG_ROW_H, SVG_UNIT_DIGITS_SHORT);
	for (size_t i = 0; i < n; i++) {
		const struct fop *o = ops[i];
		struct svg_op_row row = {
			.key = o->key, .rpcs = o->tot.n, .timed = true,
			.p50 = hist_pct(&o->tot, 0.5), .p90 = hist_pct(&o->tot, 0.9), .p99 = hist_pct(&o->tot, 0.99),
			.max = o->tot.max, .phase = o->phase_sum, .nphase = REC_FP_N, .phase_name = fphase_name,
			.phase_color = plot_fphase_color, .digits = SVG_UNIT_DIGITS_SHORT,
		};
		svg_op_row(f, &ax, SVG_SPLIT_X0, SVG_SPLIT_W, y0 + (int)i * SVG_ROW_H, &row);
	}
}

/* One row per slow RPC: its phases laid end to end from task begin, each
 * in the lane of the vantage that times it. */
static void waterfall(FILE *f, const struct plot_fused *p, int y0)
{
	const int row = LANE_N * LANE_H + 10;
	double span = p->nslow ? (double)p->slow[0].total : 1;
	char b[32], nm[160];

	if (span <= 0)
		span = 1;
	for (size_t i = 0; i < p->nslow; i++) {
		const struct slow *s = &p->slow[i];
		int y = y0 + (int)i * row;
		fprintf(f, "<g class=\"rpc\" id=\"xid-0x%08x\"><title>xid 0x%08x ", s->xid, s->xid);
		svg_text(f, s->op);
		fprintf(f, " %s</title>\n<text x=\"10\" y=\"%d\">0x%08x ", unit((double)s->total, b, sizeof(b)),
			y + LANE_N * LANE_H - 4, s->xid);
		svg_text(f, s->op);
		fprintf(f, " %s</text>\n", unit((double)s->total, b, sizeof(b)));
		for (unsigned l = 0; l < LANE_N; l++)
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n", WF_X0,
				y + (int)l * LANE_H, WF_W, LANE_H - 1);
		double t = 0;
		for (unsigned ph = 0; ph < REC_FP_N; ph++) {
			if (!(s->mask & (1u << ph)))
				continue;
			double x = WF_X0 + WF_W * t / span, w = WF_W * (double)s->phase[ph] / span;
			t += (double)s->phase[ph];
			if (w <= 0)
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", x,
				y + fphase_lane[ph] * LANE_H, w < 0.5 ? 0.5 : w, LANE_H - 1, fphase_color[ph]);
			svg_text(f, rec_fphase_span_name(s->merged, ph, nm, sizeof(nm)));
			fprintf(f, " %s</title></rect>\n", unit((double)s->phase[ph], b, sizeof(b)));
		}
		fprintf(f, "</g>\n");
	}
}

int plot_fused_write(struct plot_fused *p, const char *path, const char *title, char *err, size_t errlen)
{
	struct fop **ops = malloc((p->nop ? p->nop : 1) * sizeof(*ops));
	struct outfile of;

	if (!ops) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (p->nop)
		memcpy(ops, p->op, p->nop * sizeof(*ops));
	qsort(ops, p->nop, sizeof(*ops), cmp_n);
	int rc = outfile_open(&of, path, err, errlen);
	if (rc < 0) {
		free(ops);
		return rc;
	}
	FILE *f = of.f;
	int n = (int)p->nop, y0 = 70, wf0 = y0 + n * SVG_ROW_H + 40 + 40 + ((REC_FP_N + 3) / 4) * 18 + 40;
	int height = wf0 + (int)p->nslow * (LANE_N * LANE_H + 10) + 40;
	svg_begin(f, SVG_WIDTH, height, title ? title : "NFS RPCs: client, wire and server joined");
	fprintf(f, "<text x=\"%d\" y=\"50\">end-to-end latency: box p50-p99, whisker to max, tick p90 (log scale)</text>\n",
		SVG_DIST_X0);
	fprintf(f, "<text x=\"%d\" y=\"50\">mean split into the fused phases</text>\n", SVG_SPLIT_X0);
	if (!n)
		fprintf(f, "<text x=\"10\" y=\"%d\">no joined RPCs</text>\n", y0 + 20);
	dist_rows(f, ops, p->nop, y0);
	int ly = y0 + n * SVG_ROW_H + 40;
	for (unsigned ph = 0; ph < REC_FP_N; ph++) {
		char lane[32];
		snprintf(lane, sizeof(lane), " (%s)", lane_name[fphase_lane[ph]]);
		svg_legend(f, ph, ly, fphase_color[ph], rec_fphase_name(ph), lane);
	}
	fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"14\">the %zu slowest RPCs: lanes client, wire, server; time from the task's begin</text>\n",
		wf0 - 12, p->nslow);
	waterfall(f, p, wf0);
	fprintf(f, "</svg>\n");
	free(ops);
	return outfile_close(&of, err, errlen);
}
