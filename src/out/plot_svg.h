/* --plot: an SVG of the latency distribution (p50 / p90 / p99 / p99.9 /
 * max on a log axis) and the mean latency split (call / RDMA READ /
 * server / RDMA WRITE / reply) per operation, from any record source.
 * Plain SVG 1.1, no scripts, opens in any browser. */
#ifndef NFSRDMA_PLOT_SVG_H
#define NFSRDMA_PLOT_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "dissect/record.h"

struct plot;

struct plot *plot_new(void);
/* Fused records (--join) make the plot of plot_fused.h instead, with a
 * waterfall of the n slowest (default PLOT_SLOWEST_DEFAULT). */
void plot_slowest(struct plot *p, unsigned n);
void plot_add(struct plot *p, const struct nfsrdma_record *r);
/* 0 or negative errno with one line in err. */
int plot_write(struct plot *p, const char *path, const char *title, char *err, size_t errlen);
void plot_free(struct plot *p);

/* Shared with the other plots (--compare): the colour, legend note and
 * name of each phase (the drawing itself: svg.h). */
const char *plot_phase_color(unsigned ph);
const char *plot_phase_note(unsigned ph);

#endif
