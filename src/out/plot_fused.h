/* --plot of fused records (--join): per operation the distribution of the
 * end-to-end total and its mean split into the fused phases, then a
 * waterfall of the slowest N RPCs: one row per XID with a client, a wire
 * and a server lane, each phase drawn where it lies in the RPC's time
 * (the phases partition the total in time order).  Plain SVG 1.1. */
#ifndef NFSRDMA_PLOT_FUSED_H
#define NFSRDMA_PLOT_FUSED_H

#include <stddef.h>

#include "dissect/record.h"

#define PLOT_SLOWEST_DEFAULT 20
#define PLOT_SLOWEST_MAX     1000

struct plot_fused;

/* slowest: the waterfall's rows (1..PLOT_SLOWEST_MAX). */
struct plot_fused *plot_fused_new(unsigned slowest);
void plot_fused_add(struct plot_fused *p, const struct nfsrdma_record *r);
/* 0 or negative errno with one line in err. */
int plot_fused_write(struct plot_fused *p, const char *path, const char *title, char *err, size_t errlen);
void plot_fused_free(struct plot_fused *p);

#endif
