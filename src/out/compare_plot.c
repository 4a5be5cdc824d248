/* --compare --plot: per operation, a row for each capture: the latency
 * (box p50-p99, whisker to max, one log axis for both) and the mean
 * phase split drawn to one linear scale, so the longer bar is the slower
 * side and the colours show which phase grew.  Plain SVG 1.1, like
 * --plot (plot_svg.c), whose phase colours it uses. */
#include <inttypes.h>
#include <math.h>

#include "src/base/outfile.h"
#include "src/out/compare.h"
#include "src/out/plot_svg.h"

#define ROW_H    22
#define GROUP_GAP 12
#define LABEL_W  250
#define DIST_X0  260
#define DIST_W   380
#define SPLIT_X0 680
#define SPLIT_W  300
#define WIDTH    (SPLIT_X0 + SPLIT_W + 20)

static const char *const side_color[CMP_SIDES] = { "#9ecae1", "#fdae6b" };

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

struct axis {
	double dlo, dhi;     /* log10 decades of the latency axis */
	double split_max;    /* ns: the longest mean */
};

static double xlog(const struct axis *ax, uint64_t ns)
{
	double v = log10(ns > 1 ? (double)ns : 1.0);
	return DIST_X0 + DIST_W * ((v - ax->dlo) / (ax->dhi - ax->dlo));
}

static void scale(const struct compare *c, struct axis *ax)
{
	double lo = 1e12, hi = 1;

	ax->split_max = 0;
	for (size_t i = 0; i < c->n; i++)
		for (int s = 0; s < CMP_SIDES; s++) {
			const struct cmp_side *d = &c->op[i]->side[s];
			if (!d->timed)
				continue;
			uint64_t p50 = hist_pct(&d->lat, 0.50);
			if (p50 && (double)p50 < lo)
				lo = (double)p50;
			if ((double)d->lat.max > hi)
				hi = (double)d->lat.max;
			double mean = (double)d->lat_sum / (double)d->timed;
			if (mean > ax->split_max)
				ax->split_max = mean;
		}
	if (lo > hi)
		lo = 1000, hi = 1e6;
	ax->dlo = floor(log10(lo > 1 ? lo : 1));
	ax->dhi = ceil(log10(hi));
	if (ax->dhi <= ax->dlo)
		ax->dhi = ax->dlo + 1;
}

static void side_row(FILE *f, const struct axis *ax, const struct cmp_op *o, int s, int y)
{
	const struct cmp_side *d = &o->side[s];
	int cy = y + ROW_H / 2;
	char b1[32], b2[32], b3[32];

	fprintf(f, "<g><title>%c ", 'A' + s);
	plot_text(f, o->key);
	if (!d->rpcs) {
		fprintf(f, ": not in this capture</title>\n<text x=\"%d\" y=\"%d\" fill=\"#888\">%c: -</text></g>\n",
			LABEL_W - 60, cy + 4, 'A' + s);
		return;
	}
	uint64_t p50 = hist_pct(&d->lat, 0.50), p99 = hist_pct(&d->lat, 0.99);
	fprintf(f, ": %" PRIu64 " RPCs, p50 %s, p99 %s, max %s</title>\n", d->rpcs, unit((double)p50, b1, sizeof(b1)),
		unit((double)p99, b2, sizeof(b2)), unit((double)d->lat.max, b3, sizeof(b3)));
	fprintf(f, "<text x=\"%d\" y=\"%d\">%c: %" PRIu64 "</text>\n", LABEL_W - 60, cy + 4, 'A' + s, d->rpcs);
	if (d->timed) {
		double x50 = xlog(ax, p50), x99 = xlog(ax, p99), xmax = xlog(ax, d->lat.max);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", x50, cy, xmax, cy);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\" stroke=\"#333\"/>\n",
			x50, cy - 6, x99 - x50 > 1 ? x99 - x50 : 1, side_color[s]);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", xmax, cy - 4, xmax,
			cy + 4);
		double x = SPLIT_X0;
		for (unsigned ph = 0; ph < REC_PH_N && ax->split_max > 0; ph++) {
			double mean = (double)d->phase_sum[ph] / (double)d->timed;
			double w = SPLIT_W * mean / ax->split_max;
			if (w <= 0)
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\"><title>%c %s %s</title></rect>\n",
				x, cy - 6, w, plot_phase_color(ph), 'A' + s, rec_phase_name(ph), unit(mean, b1, sizeof(b1)));
			x += w;
		}
	}
	fputs("</g>\n", f);
}

int compare_plot(const struct compare *c, const char *path, char *err, size_t errlen)
{
	struct axis ax;
	struct outfile of;
	char b[32];

	scale(c, &ax);
	int rc = outfile_open(&of, path, err, errlen);
	if (rc < 0)
		return rc;
	FILE *f = of.f;
	int group = CMP_SIDES * ROW_H + GROUP_GAP, y0 = 110;
	int n = (int)(c->n ? c->n : 1), bottom = y0 + n * group;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, bottom + 80);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"22\" font-size=\"16\">", f);
	fputs("NFS RPC latency compared</text>\n", f);
	for (int s = 0; s < CMP_SIDES; s++) {
		fprintf(f, "<rect x=\"10\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"28\" y=\"%d\">%c: ",
			32 + s * 18, side_color[s], 42 + s * 18, 'A' + s);
		plot_text(f, c->file[s]);
		fprintf(f, " (%" PRIu64 " RPCs)</text>\n", c->rpcs[s]);
	}
	fprintf(f, "<text x=\"%d\" y=\"90\">latency: box p50-p99, whisker to max (log scale)</text>\n", DIST_X0);
	fprintf(f, "<text x=\"%d\" y=\"90\">mean split, one scale: longest %s</text>\n", SPLIT_X0,
		unit(ax.split_max, b, sizeof(b)));
	for (double d = ax.dlo; d <= ax.dhi; d++) {
		double x = DIST_X0 + DIST_W * ((d - ax.dlo) / (ax.dhi - ax.dlo));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x, y0, x, bottom);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x, bottom + 15,
			unit(pow(10, d), b, sizeof(b)));
	}
	if (!c->n)
		fprintf(f, "<text x=\"10\" y=\"%d\">no RPCs in either capture</text>\n", y0 + 20);
	for (size_t i = 0; i < c->n; i++) {
		int y = y0 + (int)i * group;
		fprintf(f, "<text x=\"10\" y=\"%d\">", y + ROW_H / 2 + 4);
		plot_text(f, c->op[i]->key);
		fputs("</text>\n", f);
		for (int s = 0; s < CMP_SIDES; s++)
			side_row(f, &ax, c->op[i], s, y + s * ROW_H);
	}
	for (unsigned ph = 0; ph < REC_PH_N; ph++) {
		int lx = 10 + (int)(ph % 4) * 240, y = bottom + 40 + (int)(ph / 4) * 18;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s%s</text>\n",
			lx, y - 10, plot_phase_color(ph), lx + 16, y, rec_phase_name(ph), plot_phase_note(ph));
	}
	fputs("</svg>\n", f);
	return outfile_close(&of, err, errlen);
}
