/* SVG pieces shared by the plots (see svg.h). */
#include "src/out/svg.h"

#include <math.h>

const char *svg_unit(double ns, int digits, char *b, size_t n)
{
	if (ns >= 1e9)
		snprintf(b, n, "%.*gs", digits, ns / 1e9);
	else if (ns >= 1e6)
		snprintf(b, n, "%.*gms", digits, ns / 1e6);
	else if (ns >= 1e3)
		snprintf(b, n, "%.*gus", digits, ns / 1e3);
	else
		snprintf(b, n, "%.*gns", digits, ns);
	return b;
}

void svg_text(FILE *f, const char *s)
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

void svg_begin(FILE *f, int width, int height, const char *title)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", width, height);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"22\" font-size=\"16\">", f);
	svg_text(f, title);
	fputs("</text>\n", f);
}

void svg_axis_init(struct svg_axis *ax, int x0, int w)
{
	*ax = (struct svg_axis){ .lo = 1e12, .hi = 1, .x0 = x0, .w = w };
}

void svg_axis_see(struct svg_axis *ax, uint64_t p50, uint64_t max)
{
	if (p50 && (double)p50 < ax->lo)
		ax->lo = (double)p50;
	if ((double)max > ax->hi)
		ax->hi = (double)max;
}

void svg_axis_fit(struct svg_axis *ax)
{
	if (ax->lo > ax->hi)
		ax->lo = 1000, ax->hi = 1e6;
	ax->dlo = floor(log10(ax->lo > 1 ? ax->lo : 1));
	ax->dhi = ceil(log10(ax->hi));
	if (ax->dhi <= ax->dlo)
		ax->dhi = ax->dlo + 1;
}

double svg_axis_x(const struct svg_axis *ax, double ns)
{
	return ax->x0 + ax->w * ((log10(ns > 1 ? ns : 1) - ax->dlo) / (ax->dhi - ax->dlo));
}

void svg_axis_grid(FILE *f, const struct svg_axis *ax, int y_top, int y_bottom, int digits)
{
	for (double d = ax->dlo; d <= ax->dhi; d++) {
		char b[32];
		double x = ax->x0 + ax->w * ((d - ax->dlo) / (ax->dhi - ax->dlo));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x, y_top, x, y_bottom);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x, y_bottom + 15,
			svg_unit(pow(10, d), digits, b, sizeof(b)));
	}
}

void svg_legend(FILE *f, unsigned i, int y, const char *color, const char *text, const char *note)
{
	int lx = 10 + (int)(i % 4) * 240, ly = y + (int)(i / 4) * 18;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s%s</text>\n",
		lx, ly - 10, color, lx + 16, ly, text, note);
}

static void box(FILE *f, const struct svg_axis *ax, const struct svg_op_row *r, int cy)
{
	double x50 = svg_axis_x(ax, (double)r->p50), x90 = svg_axis_x(ax, (double)r->p90);
	double x99 = svg_axis_x(ax, (double)r->p99), xmax = svg_axis_x(ax, (double)r->max);

	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", x50, cy, xmax, cy);
	fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#9ecae1\" stroke=\"#333\"/>\n",
		x50, cy - 8, x99 - x50 > 1 ? x99 - x50 : 1);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", x90, cy - 8, x90, cy + 8);
	if (!r->p999_tick)
		return;
	double x999 = svg_axis_x(ax, (double)r->p999);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\"/>\n", x999, cy - 10, x999, cy + 10);
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3\" fill=\"#08306b\"/>\n", x50, cy);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", xmax, cy - 5, xmax, cy + 5);
}

void svg_op_row(FILE *f, const struct svg_axis *ax, int split_x0, int split_w, int y,
		const struct svg_op_row *r)
{
	int cy = y + SVG_ROW_H / 2;
	char b1[32], b2[32], b3[32];

	fputs("<g><title>", f);
	svg_text(f, r->key);
	fprintf(f, ": %llu RPCs, p50 %s, p99 %s, max %s</title>\n<text x=\"10\" y=\"%d\">", (unsigned long long)r->rpcs,
		svg_unit((double)r->p50, r->digits, b1, sizeof(b1)), svg_unit((double)r->p99, r->digits, b2, sizeof(b2)),
		svg_unit((double)r->max, r->digits, b3, sizeof(b3)), cy + 4);
	svg_text(f, r->key);
	fprintf(f, " (%llu)</text>\n", (unsigned long long)r->rpcs);
	if (r->timed)
		box(f, ax, r, cy);
	uint64_t sum = 0;
	for (unsigned ph = 0; ph < r->nphase; ph++)
		sum += r->phase[ph];
	double x = split_x0;
	for (unsigned ph = 0; sum && ph < r->nphase; ph++) {
		double w = split_w * (double)r->phase[ph] / (double)sum;
		if (w <= 0)
			continue;
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>%s %.1f%%</title></rect>\n",
			x, cy - 8, w, r->phase_color(ph), r->phase_name(ph), 100.0 * (double)r->phase[ph] / (double)sum);
		x += w;
	}
	fputs("</g>\n", f);
}
