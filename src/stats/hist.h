/* Log-linear latency histograms: 16 sub-buckets per power of two (~6%
 * resolution), values in nanoseconds up to 2^40 (~18 min; larger values
 * land in the last bucket, max stays exact).  Fixed size, no allocation,
 * mergeable by adding counts, so per-window and per-key copies can be
 * summed into any aggregate. */
#ifndef NFSRDMA_HIST_H
#define NFSRDMA_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 4
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_MAX_EXP  40
#define HIST_N        (HIST_SUB + (HIST_MAX_EXP - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t n, sum, min, max;
	uint32_t c[HIST_N];
};

void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* a += b */
void hist_merge(struct hist *a, const struct hist *b);
/* Nearest-rank percentile (p in 0..1): the midpoint of the bucket holding
 * that rank, clamped to [min, max]; 0 when empty. */
uint64_t hist_pct(const struct hist *h, double p);
/* Samples <= v (exact for v on a bucket boundary, else counts the whole
 * bucket holding v only if its upper bound is <= v). */
uint64_t hist_count_le(const struct hist *h, uint64_t v);
/* Bucket index of v and its [lo, hi) bounds (for tests and exports). */
unsigned hist_index(uint64_t v);
uint64_t hist_bucket_lo(unsigned i);

#endif
