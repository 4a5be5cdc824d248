/* The fused split: where the time of joined RPCs (source joined, the
 * fused end-to-end phases of docs/record.md) went, per operation, client
 * and server, as nfsrdma-top's fused view shows it and the control
 * protocol's F lines carry it.
 *
 * A row is one key (an operation, a client or a server address, with the
 * transport after it as in the operation keys: " tcp", nothing for RDMA)
 * and one shape: the vantages that joined and which phases a missing
 * vantage left merged (rec.f_merged).  RPCs of one shape split their
 * total into the same spans, so a row's spans add up to its total; an
 * operation seen with all three vantages and with two is two rows.
 *
 * Per span: its sum over the row's RPCs (the mean split) and over the
 * RPCs at or above the p99 (the p99 split), both from the one histogram
 * of src/stats/hist.h through src/stats/phase_diag.h, so a row's largest
 * share is the phase its diagnosis (the D lines, -z) names.
 *
 * Per row also its places and clock-free segments summed (verdict_sum.h):
 * the row's verdict, the place holding most of its time.
 *
 * Memory is bounded: at most max_rows rows; a fused RPC whose row does
 * not fit is counted (overflow), never split into another row's numbers.
 * Single-threaded, like the aggregation. */
#ifndef NFSRDMA_FSPLIT_H
#define NFSRDMA_FSPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"
#include "src/stats/agg.h"
#include "src/stats/verdict_sum.h"

#define FSPLIT_ROWS_DEFAULT 1024

/* Dimensions: AGG_OP, AGG_CLIENT, AGG_SERVER (agg.h's numbers). */
static inline bool fsplit_dim_ok(unsigned d)
{
	return d == AGG_OP || d == AGG_CLIENT || d == AGG_SERVER;
}

struct fsplit_row {
	char key[AGG_KEY_MAX];
	uint8_t dim, transport, vantages;  /* enum agg_dim, enum rec_transport, enum rec_vantage bits */
	uint32_t merged;                   /* rec.f_merged: bit i, phase i runs on into i + 1; REC_FM_NET_PAIR */
	uint32_t mask;                     /* OR of rec.f_mask: spans some RPC of the row bounded */
	uint64_t n, sum;                   /* RPCs, summed fused totals (ns) */
	uint64_t p50, p99, max;            /* of the totals (hist_pct; max exact), ns */
	uint64_t tail_n, tail_sum;         /* RPCs at or above the p99, their summed totals */
	uint64_t negative, partial;        /* RPCs flagged RECFF_NEGATIVE, RECFF_EVICTED */
	uint64_t phase[REC_FP_N];          /* span sums (a merged span in its first phase) */
	uint64_t tail[REC_FP_N];           /* the same over the tail */
	struct verdict_sum vs;             /* places and segments summed: the row's verdict */
};

struct fsplit_snap {
	bool have;          /* the feed can tell (false: a daemon older than protocol 2.1) */
	uint64_t rpcs;      /* fused RPCs seen */
	uint64_t unsplit;   /* of them, without any bounded phase: in no row */
	uint64_t overflow;  /* of them, whose rows did not fit (counted once per dimension missed) */
	size_t n;
	struct fsplit_row *rows;   /* malloc'ed: fsplit_snap_free */
	size_t cap;                /* rows allocated (the protocol reader's) */
};

struct fsplit;

/* max_rows 0: FSPLIT_ROWS_DEFAULT.  NULL when out of memory. */
struct fsplit *fsplit_new(unsigned max_rows);
void fsplit_free(struct fsplit *f);
/* A record; only joined ones count (others are ignored). */
void fsplit_add(struct fsplit *f, const struct nfsrdma_record *r);
/* Every row, in the order they came; 0 or -ENOMEM. */
int fsplit_snapshot(const struct fsplit *f, struct fsplit_snap *s);
void fsplit_snap_free(struct fsplit_snap *s);
size_t fsplit_memory(const struct fsplit *f);

/* The spans of a merged mask, in time order: span k covers phases
 * first[k]..last[k] (equal: one phase); returns how many. */
unsigned fsplit_spans(uint32_t merged, uint8_t first[REC_FP_N], uint8_t last[REC_FP_N]);

#endif
