/* nfsrdma-top's fused split view, independent of the terminal: which rows
 * of the fused split (src/stats/fsplit.h) a view shows, in which order,
 * their spans and shares, and the batch outputs (text and the "fused"
 * object of the JSON snapshot).  top_screen.c draws the same rows. */
#ifndef NFSRDMA_TOP_FUSED_H
#define NFSRDMA_TOP_FUSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "src/stats/fsplit.h"
#include "src/top/top_view.h"

/* The fused split's dimension for a view: its own, but connections
 * (the fused split has no connection rows) are shown by operation. */
enum agg_dim top_fused_dim(const struct top_view *v);
/* Rows of the view's fused dimension that pass its filter and transport,
 * sorted by its sort key (rate and errors: by RPCs); *out is malloc'ed. */
size_t top_fused_rows(const struct fsplit_snap *fs, const struct top_view *v, const struct fsplit_row ***out);

/* One span of a row: its phases, name ("server_queue+pull+execute"),
 * whether any RPC of the row bounded it, and its shares. */
struct top_span {
	unsigned first, last;
	char name[160];
	bool bounded;
	bool pair;                   /* net_out+net_back: the clocks cannot give the directions */
	uint64_t sum, tail;          /* ns summed over the row's RPCs / over its p99 tail */
	double mean_pct, p99_pct;    /* of the summed totals, of the tail's summed totals */
};
unsigned top_fused_spans(const struct fsplit_row *r, struct top_span sp[REC_FP_N]);
/* The span (index into sp) that holds phase p, -1 none; net_back's is
 * net_out's when the two are one span (net_out+net_back). */
int top_fused_span_at(const struct top_span *sp, unsigned n, unsigned p);
/* The row's verdict: "server_net 83%" (short: place names, for the
 * screen) or "server-side network 83%" (words); "-" when none. */
const char *top_fused_verdict(const struct fsplit_row *r, bool words, char *buf, size_t len);
/* Three characters per phase, for the screen's columns (legend in the
 * help screen and the man page). */
extern const char *const top_fphase_abbr[REC_FP_N];

/* Batch: the fused table (--fused, text), and the JSON "fused" member
 * (",\"fused\":{...}" or ",\"fused\":null" when the feed has none). */
void top_fused_text(FILE *f, const struct fsplit_snap *fs, const struct top_view *v);
struct jw;
void top_fused_json(struct jw *j, const struct fsplit_snap *fs, const struct top_view *v);

#endif
