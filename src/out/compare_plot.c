/* --compare --plot: per operation, a row for each capture: the latency
 * (box p50-p99, whisker to max, one log axis for both) and the mean
 * phase split drawn to one linear scale, so the longer bar is the slower
 * side and the colours show which phase grew.  Plain SVG 1.1, like
 * --plot (plot_svg.c), whose phase colours it uses. */
#include <inttypes.h>

#include "src/base/outfile.h"
#include "src/out/compare.h"
#include "src/out/plot_svg.h"
#include "src/out/svg.h"

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
	return svg_unit(ns, SVG_UNIT_DIGITS, b, n);
}

struct axis {
	struct svg_axis lat;  /* the latency's log axis */
	double split_max;     /* ns: the longest mean */
};

static void scale(const struct compare *c, struct axis *ax)
{
	svg_axis_init(&ax->lat, DIST_X0, DIST_W);
	ax->split_max = 0;
	for (size_t i = 0; i < c->n; i++)
		for (int s = 0; s < CMP_SIDES; s++) {
			const struct cmp_side *d = &c->op[i]->side[s];
			if (!d->timed)
				continue;
			svg_axis_see(&ax->lat, hist_pct(&d->lat, 0.50), d->lat.max);
			double mean = (double)d->lat_sum / (double)d->timed;
			if (mean > ax->split_max)
				ax->split_max = mean;
		}
	svg_axis_fit(&ax->lat);
}

static void side_row(FILE *f, const struct axis *ax, const struct cmp_op *o, int s, int y)
{
	const struct cmp_side *d = &o->side[s];
	int cy = y + ROW_H / 2;
	char b1[32], b2[32], b3[32];

	fprintf(f, "<g><title>%c ", 'A' + s);
	svg_text(f, o->key);
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
		double x50 = svg_axis_x(&ax->lat, (double)p50), x99 = svg_axis_x(&ax->lat, (double)p99),
		       xmax = svg_axis_x(&ax->lat, (double)d->lat.max);
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
	svg_begin(f, WIDTH, bottom + 80, "NFS RPC latency compared");
	for (int s = 0; s < CMP_SIDES; s++) {
		fprintf(f, "<rect x=\"10\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"28\" y=\"%d\">%c: ",
			32 + s * 18, side_color[s], 42 + s * 18, 'A' + s);
		svg_text(f, c->file[s]);
		fprintf(f, " (%" PRIu64 " RPCs)</text>\n", c->rpcs[s]);
	}
	fprintf(f, "<text x=\"%d\" y=\"90\">latency: box p50-p99, whisker to max (log scale)</text>\n", DIST_X0);
	fprintf(f, "<text x=\"%d\" y=\"90\">mean split, one scale: longest %s</text>\n", SPLIT_X0,
		unit(ax.split_max, b, sizeof(b)));
	svg_axis_grid(f, &ax.lat, y0, bottom, SVG_UNIT_DIGITS);
	if (!c->n)
		fprintf(f, "<text x=\"10\" y=\"%d\">no RPCs in either capture</text>\n", y0 + 20);
	for (size_t i = 0; i < c->n; i++) {
		int y = y0 + (int)i * group;
		fprintf(f, "<text x=\"10\" y=\"%d\">", y + ROW_H / 2 + 4);
		svg_text(f, c->op[i]->key);
		fputs("</text>\n", f);
		for (int s = 0; s < CMP_SIDES; s++)
			side_row(f, &ax, c->op[i], s, y + s * ROW_H);
	}
	for (unsigned ph = 0; ph < REC_PH_N; ph++)
		svg_legend(f, ph, bottom + 40, plot_phase_color(ph), rec_phase_name(ph), plot_phase_note(ph));
	fputs("</svg>\n", f);
	return outfile_close(&of, err, errlen);
}
