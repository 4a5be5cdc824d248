/* SVG latency plot (see plot_svg.h).  The numbers come from the
 * aggregation engine, so the plot and nfsrdma-top agree. */
#include "src/out/plot_svg.h"
#include "src/base/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/out/plot_fused.h"
#include "src/stats/agg.h"

#define ROW_H    30
#define LABEL_W  190
#define DIST_X0  200
#define DIST_W   420
#define SPLIT_X0 660
#define SPLIT_W  300
#define WIDTH    (SPLIT_X0 + SPLIT_W + 20)

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

void plot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

static int cmp_records(const void *a, const void *b)
{
	const struct agg_row *x = a, *y = b;
	return x->tot.records < y->tot.records ? 1 : x->tot.records > y->tot.records ? -1 : strcmp(x->key, y->key);
}

static const char *unit(double ns, char *b, size_t n)
{
	if (ns >= 1e9)
		snprintf(b, n, "%gs", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(b, n, "%gms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(b, n, "%gus", ns / 1e3);
	else
		snprintf(b, n, "%gns", ns);
	return b;
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
	double lo = 1e12, hi = 1;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].tot.lat_n)
			continue;
		if (rows[i].p50 && rows[i].p50 < lo)
			lo = (double)rows[i].p50;
		if (rows[i].max > hi)
			hi = (double)rows[i].max;
	}
	if (lo > hi)
		lo = 1000, hi = 1e6;
	double dlo = floor(log10(lo > 1 ? lo : 1)), dhi = ceil(log10(hi));
	if (dhi <= dlo)
		dhi = dlo + 1;
#define X(ns) (DIST_X0 + DIST_W * ((log10((double)(ns) > 1 ? (double)(ns) : 1) - dlo) / (dhi - dlo)))

	struct outfile of;
	int rc = outfile_open(&of, path, err, errlen);
	if (rc < 0) {
		agg_snap_free(&s);
		return rc;
	}
	FILE *f = of.f;
	int height = 90 + (int)(n ? n : 1) * ROW_H + 80 + 18;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"22\" font-size=\"16\">");
	plot_text(f, title ? title : "NFS over RDMA latency");
	fprintf(f, "</text>\n<text x=\"%d\" y=\"50\">latency: box p50-p99, whisker to max, tick p90 and p99.9 (log scale)</text>\n",
		DIST_X0);
	fprintf(f, "<text x=\"%d\" y=\"50\">mean latency split (the phases add up to the total)</text>\n", SPLIT_X0);
	int y0 = 70;
	for (double d = dlo; d <= dhi; d++) {
		char b[32];
		double x = DIST_X0 + DIST_W * ((d - dlo) / (dhi - dlo));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x, y0, x,
			y0 + (int)n * ROW_H);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x,
			y0 + (int)n * ROW_H + 15, unit(pow(10, d), b, sizeof(b)));
	}
	if (!n)
		fprintf(f, "<text x=\"10\" y=\"%d\">no RPCs</text>\n", y0 + 20);
	for (size_t i = 0; i < n; i++) {
		const struct agg_row *r = &rows[i];
		int y = y0 + (int)i * ROW_H, cy = y + ROW_H / 2;
		char b1[32], b2[32], b3[32];
		fprintf(f, "<g><title>");
		plot_text(f, r->key);
		fprintf(f, ": %llu RPCs, p50 %s, p99 %s, max %s</title>\n", (unsigned long long)r->tot.records,
			unit((double)r->p50, b1, sizeof(b1)), unit((double)r->p99, b2, sizeof(b2)),
			unit((double)r->max, b3, sizeof(b3)));
		fprintf(f, "<text x=\"10\" y=\"%d\">", cy + 4);
		plot_text(f, r->key);
		fprintf(f, " (%llu)</text>\n", (unsigned long long)r->tot.records);
		if (r->tot.lat_n) {
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", X(r->p50), cy,
				X(r->max), cy);
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#9ecae1\" stroke=\"#333\"/>\n",
				X(r->p50), cy - 8, X(r->p99) - X(r->p50) > 1 ? X(r->p99) - X(r->p50) : 1, 16);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", X(r->p90), cy - 8,
				X(r->p90), cy + 8);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\"/>\n", X(r->p999), cy - 10,
				X(r->p999), cy + 10);
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" fill=\"#08306b\"/>\n", X(r->p50), cy);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", X(r->max), cy - 5,
				X(r->max), cy + 5);
		}
		uint64_t sum = 0;
		for (int ph = 0; ph < PH_N; ph++)
			sum += r->phase_mean[ph];
		double x = SPLIT_X0;
		for (int ph = 0; sum && ph < PH_N; ph++) {
			double w = SPLIT_W * (double)r->phase_mean[ph] / (double)sum;
			if (w <= 0)
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>%s %.1f%%</title></rect>\n",
				x, cy - 8, w, phase_color[ph], rec_phase_name(ph), 100.0 * (double)r->phase_mean[ph] / (double)sum);
			x += w;
		}
		fprintf(f, "</g>\n");
	}
	int ly = y0 + (int)n * ROW_H + 40;
	for (int ph = 0; ph < PH_N; ph++) {
		int lx = 10 + (ph % 4) * 240, y = ly + (ph / 4) * 18;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s%s</text>\n",
			lx, y - 10, phase_color[ph], lx + 16, y, rec_phase_name(ph), phase_note[ph]);
	}
	fprintf(f, "</svg>\n");
	agg_snap_free(&s);
	return outfile_close(&of, err, errlen);
}
