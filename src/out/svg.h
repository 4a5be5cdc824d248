/* The pieces every SVG plot of nfsrdma is drawn with (--plot, --plot of
 * joined records, --compare --plot): the document head, escaped text,
 * time units, the log latency axis with its decade grid, the legend, and
 * the row of one operation (box p50-p99, whisker to max, mean split).
 * Plain SVG 1.1, no scripts. */
#ifndef NFSRDMA_SVG_H
#define NFSRDMA_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Significant digits of svg_unit: the per-record plots print %g (6), the
 * plot of joined records %.3g. */
#define SVG_UNIT_DIGITS       6
#define SVG_UNIT_DIGITS_SHORT 3

/* ns as "1.5ms", "200us", "3s", "40ns" with digits significant digits. */
const char *svg_unit(double ns, int digits, char *b, size_t n);
/* Text with <, >, &, " escaped and control bytes dropped. */
void svg_text(FILE *f, const char *s);
/* The XML declaration, the <svg> element, a white background and the
 * title (escaped) at the top left. */
void svg_begin(FILE *f, int width, int height, const char *title);

/* A log latency axis of whole decades, from the one below the smallest
 * p50 to the one above the largest max, drawn from x0 over w. */
struct svg_axis {
	double lo, hi;       /* ns, while rows are seen */
	double dlo, dhi;     /* log10 decades, once fitted */
	int x0, w;
};

void svg_axis_init(struct svg_axis *ax, int x0, int w);
void svg_axis_see(struct svg_axis *ax, uint64_t p50, uint64_t max);
/* Fixes the decades; 1 us .. 1 ms when no row had a latency. */
void svg_axis_fit(struct svg_axis *ax);
double svg_axis_x(const struct svg_axis *ax, double ns);
/* A grey line per decade from y_top to y_bottom, its label under it. */
void svg_axis_grid(FILE *f, const struct svg_axis *ax, int y_top, int y_bottom, int digits);

/* Legend entry i: a colour square and text then note (unescaped), four
 * to a line of 18 px from y. */
void svg_legend(FILE *f, unsigned i, int y, const char *color, const char *text, const char *note);

/* One operation's row of 30 px at y: its name and count, the box, the
 * p90 tick (and with p999_tick the p99.9 tick, the p50 dot and the max
 * tick), then the mean split, a bar from split_x0 over split_w whose
 * segments are the phases' shares of phase[0..nphase). */
struct svg_op_row {
	const char *key;
	uint64_t rpcs;
	bool timed;          /* has latencies: the box is drawn */
	uint64_t p50, p90, p99, p999, max;
	bool p999_tick;
	const uint64_t *phase;
	unsigned nphase;
	const char *(*phase_name)(unsigned ph);
	const char *(*phase_color)(unsigned ph);
	int digits;          /* of the times in the row's tooltip */
};

/* The columns of the per-operation plots (--plot, and of joined records):
 * names, the latency axis, the mean split. */
#define SVG_ROW_H    30
#define SVG_DIST_X0  200
#define SVG_DIST_W   420
#define SVG_SPLIT_X0 660
#define SVG_SPLIT_W  300
#define SVG_WIDTH    (SVG_SPLIT_X0 + SVG_SPLIT_W + 20)

void svg_op_row(FILE *f, const struct svg_axis *ax, int split_x0, int split_w, int y,
		const struct svg_op_row *r);

#endif
