/* nfsrdma-top's views, independent of the terminal: which rows (dimension,
 * filter), in which order, and the batch outputs (text like top -b, and
 * JSON).  cli/nfsrdma-top.c draws the same rows with ncurses. */
#ifndef NFSRDMA_TOP_VIEW_H
#define NFSRDMA_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "src/stats/agg.h"
#include "src/stats/fsplit.h"

enum top_sort { SORT_RECORDS = 0, SORT_RATE, SORT_ERRORS, SORT_P50, SORT_P99, SORT_MAX, SORT_KEY, SORT_N };
extern const char *const top_dim_title[AGG_NDIM];   /* "OPERATION", "CLIENT", ... */
extern const char *const top_sort_name[SORT_N];     /* "records", "rate", ... (--sort) */

struct top_view {
	enum agg_dim dim;
	enum top_sort sort;
	bool reverse;
	char filter[64];     /* substring of the key, case-insensitive; "" = all */
	int transport;       /* operation rows, fused rows and slowest RPCs of this enum rec_transport only; -1 = all */
	bool fused;          /* the fused split (top_fused.h) in place of the table */
};

/* Parses "op", "client", "server", "conn"; -1 if none. */
int top_dim_parse(const char *s);
int top_sort_parse(const char *s);
/* "rdma", "tcp", "udp" (rec_transport_name); -1 if none. */
int top_transport_parse(const char *s);
/* Rows of v->dim that pass the filter, sorted; *out is malloc'ed (free it). */
/* "p99 11.2 ms: server_queue 71 % (mean 3.1 ms: execute 52 %)" for an
 * operation row with a diagnosis (src/stats/phase_diag.h); false if none. */
bool top_diag_line(const struct agg_row *r, char *buf, size_t len);
size_t top_view_rows(const struct agg_snap *s, const struct top_view *v, const struct agg_row ***out);
/* The slowest recent RPCs the view's filter keeps, slowest first, into o;
 * returns how many. */
size_t top_view_slow(const struct agg_snap *s, const struct top_view *v, const struct agg_slow *o[AGG_SLOW_MAX]);
/* One letter per phase (rec_phase order) in the split bar. */
extern const char top_phase_sym[PH_N];
/* The latency split as a bar of `width` characters, a phase's letter
 * (top_phase_sym) for its share of the mean; '.' when no phase took time. */
void top_split_bar(const struct agg_row *r, char *buf, size_t width);
/* The unit top_fmt_lat prints ns in: 1 us under 1 ms, 0.1 ms under 1 s, else 10 ms. */
uint64_t top_lat_unit(uint64_t ns);
/* "812us", "12.3ms", "1.20s", "-" */
const char *top_fmt_lat(uint64_t ns, char *buf, size_t len);
/* "view op  sort records  transport tcp  filter x" (fused: "view fused op ...") */
void top_view_line(const struct top_view *v, char *buf, size_t len);
/* The header's "in flight N, oldest X s" of the kernel probes' RPCs in
 * flight (both sides summed, the oldest of either), "" when the feed has
 * none; *stalled: how many are past the daemon's --stall-after. */
void top_inflight_text(const struct agg_snap *s, char *buf, size_t len, uint64_t *stalled);
/* One batch iteration; fs is the fused split (the JSON's "fused"). */
void top_batch_text(FILE *f, const struct agg_snap *s, const struct fsplit_snap *fs, const struct top_view *v,
		    const char *feed);
/* top_json.c: the same as one JSON object on a line */
void top_batch_json(FILE *f, const struct agg_snap *s, const struct fsplit_snap *fs, const struct top_view *v,
		    const char *feed);

#endif
