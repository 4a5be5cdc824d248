/* SVG latency plot (see plot_svg.h).  The numbers come from the
 * aggregation engine, so the plot and nfsrdma-top agree. */
#include "src/out/plot_svg.h"
#include "src/base/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/out/plot_fused.h"
#include "src/out/svg.h"
#include "src/stats/agg.h"


/* rec_phase order; the two waits in warm colours, where queueing shows */
static const char *const phase_color[PH_N] = { "#4e79a7", "#e15759", "#f28e2b", "#59a14f", "#8cd17d",
					       "#b07aa1", "#ff9da7", "#76b7b2" };
static const char *const phase_note[PH_N] = { "", " (before the pull)", " (RDMA READ)", "", " (no pull)",
					      " (RDMA WRITE)", " (before the reply)", "" };

struct plot {
	struct agg *a;
	struct plot_fused *fz;   /* joined records (--join): their own plot */
	unsigned slowest;
	int fz_err;
};

struct plot *plot_new(void)
{
	struct plot *p = calloc(1, sizeof(*p));

	if (p && !(p->a = agg_new(NULL))) {
		free(p);
		return NULL;
	}
	if (p)
		p->slowest = PLOT_SLOWEST_DEFAULT;
	return p;
}

void plot_slowest(struct plot *p, unsigned n)
{
	p->slowest = n;
}

void plot_add(struct plot *p, const struct nfsrdma_record *r)
{
	if (rec_is_fused(r)) {
		if (!p->fz && !p->fz_err && !(p->fz = plot_fused_new(p->slowest)))
			p->fz_err = -ENOMEM;
		if (p->fz)
			plot_fused_add(p->fz, r);
		return;
	}
	agg_add(p->a, r, r->t_reply_last ? r->t_reply_last : r->t_call_last);
}

void plot_free(struct plot *p)
{
	if (!p)
		return;
	agg_free(p->a);
	plot_fused_free(p->fz);
	free(p);
}

const char *plot_phase_color(unsigned ph)
{
	return ph < PH_N ? phase_color[ph] : "#999";
}

const char *plot_phase_note(unsigned ph)
{
	return ph < PH_N ? phase_note[ph] : "";
}

static const char *plot_phase_name(unsigned ph)
{
	return rec_phase_name(ph);
}

static int cmp_records(const void *a, const void *b)
{
	const struct agg_row *x = a, *y = b;
	return x->tot.records < y->tot.records ? 1 : x->tot.records > y->tot.records ? -1 : strcmp(x->key, y->key);
}

int plot_write(struct plot *p, const char *path, const char *title, char *err, size_t errlen)
{
	struct agg_snap s;

	if (p->fz_err) {
		snprintf(err, errlen, "out of memory");
		return p->fz_err;
	}
	/* joined records: the fused phases and the waterfall of the slowest */
	if (p->fz)
		return plot_fused_write(p->fz, path, title, err, errlen);
	if (agg_snapshot(p->a, 0, &s) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	size_t n = s.nrows[AGG_OP];
	struct agg_row *rows = s.rows[AGG_OP];
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_records);
	/* log axis from the decade below the smallest p50 to the one above the largest max */
	struct svg_axis ax;
	svg_axis_init(&ax, SVG_DIST_X0, SVG_DIST_W);
	for (size_t i = 0; i < n; i++)
		if (rows[i].tot.lat_n)
			svg_axis_see(&ax, rows[i].p50, rows[i].max);
	svg_axis_fit(&ax);

	struct outfile of;
	int rc = outfile_open(&of, path, err, errlen);
	if (rc < 0) {
		agg_snap_free(&s);
		return rc;
	}
	FILE *f = of.f;
	int height = 90 + (int)(n ? n : 1) * SVG_ROW_H + 80 + 18;
	svg_begin(f, SVG_WIDTH, height, title ? title : "NFS over RDMA latency");
	fprintf(f, "<text x=\"%d\" y=\"50\">latency: box p50-p99, whisker to max, tick p90 and p99.9 (log scale)</text>\n",
		SVG_DIST_X0);
	fprintf(f, "<text x=\"%d\" y=\"50\">mean latency split (the phases add up to the total)</text>\n", SVG_SPLIT_X0);
	int y0 = 70;
	svg_axis_grid(f, &ax, y0, y0 + (int)n * SVG_ROW_H, SVG_UNIT_DIGITS);
	if (!n)
		fprintf(f, "<text x=\"10\" y=\"%d\">no RPCs</text>\n", y0 + 20);
	for (size_t i = 0; i < n; i++) {
		const struct agg_row *r = &rows[i];
		struct svg_op_row row = {
			.key = r->key, .rpcs = r->tot.records, .timed = r->tot.lat_n != 0,
			.p50 = r->p50, .p90 = r->p90, .p99 = r->p99, .p999 = r->p999, .max = r->max, .p999_tick = true,
			.phase = r->phase_mean, .nphase = PH_N, .phase_name = plot_phase_name, .phase_color = plot_phase_color,
			.digits = SVG_UNIT_DIGITS,
		};
		svg_op_row(f, &ax, SVG_SPLIT_X0, SVG_SPLIT_W, y0 + (int)i * SVG_ROW_H, &row);
	}
	int ly = y0 + (int)n * SVG_ROW_H + 40;
	for (unsigned ph = 0; ph < PH_N; ph++)
		svg_legend(f, ph, ly, phase_color[ph], rec_phase_name(ph), phase_note[ph]);
	fprintf(f, "</svg>\n");
	agg_snap_free(&s);
	return outfile_close(&of, err, errlen);
}
