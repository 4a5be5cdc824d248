/* Latency histograms: the one implementation behind nfsrdma-dissect -z,
 * nfsrdma-top, nfsrdmad (JSON summary, control socket), replay and loadgen,
 * so that every tool reports the same percentile for the same samples.
 *
 * Log-linear buckets.  The resolution `res` (sub-bucket bits) is a
 * parameter: each power of two [2^e, 2^(e+1)) is split into 2^res equal
 * buckets, so a bucket is at most 1/2^res of its lower bound wide; values
 * below 2^(res+1) have a bucket each (exact).  HIST_RES (5: 32 sub-buckets,
 * buckets at most 3.1 % wide) is what every tool uses.  Values are
 * nanoseconds up to 2^HIST_MAX_EXP (~18 min); larger ones share the last
 * bucket.  n, sum, min and max are exact.  Counts are 64-bit and kept in
 * one chunk of 2^res per power of two, allocated when a sample first
 * lands there: a key's latencies span a few powers of two, so it holds
 * ~2 KB rather than all 9 KB (the daemon keeps thousands of keys, and
 * fresh pages cost it more CPU than the counting).  Histograms of one
 * resolution merge by adding counts (per-window and per-key copies sum
 * into any aggregate).
 *
 * Percentile p (0..1): take the nearest rank k = ceil(p * n) (at least 1;
 * p >= 1 is the exact max).  The value reported is the upper bound of the
 * bucket holding the k-th smallest sample (HdrHistogram's "highest
 * equivalent value"), capped at the exact max.  So at least a fraction p of
 * the samples are <= the value, and the value overstates the exact
 * nearest-rank percentile by less than one bucket (< 3.1 % at HIST_RES);
 * p100 and max are exact, and so is any percentile that falls in the
 * bucket holding the max. */
#ifndef NFSRDMA_HIST_H
#define NFSRDMA_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_RES      5    /* sub-bucket bits every tool uses */
#define HIST_RES_MAX  10
#define HIST_MAX_EXP  40
#define HIST_NBUCKETS(res) ((1u << (res)) * (HIST_MAX_EXP - (res) + 1u))

/* Where a histogram's chunks come from when not from calloc (the
 * daemon's aggregation engine: its region of 2 MB pages, agg_new.c). */
struct hist_mem {
	void *(*zalloc)(struct hist_mem *m, size_t size);   /* zeroed; NULL: none */
	void (*release)(struct hist_mem *m, void *p);
};

struct hist {
	/* what every sample reads or writes, in one line */
	uint64_t n, sum, min, max;
	unsigned res;
	uint64_t lost;                    /* samples no chunk could be allocated for */
	size_t bytes;                     /* counts allocated */
	struct hist_mem *mem;             /* NULL: calloc and free */
	uint64_t *chunk[HIST_MAX_EXP];   /* 2^res counts each, or NULL: all 0 */
};

/* Empty histogram of resolution res (1..HIST_RES_MAX); 0 or -EINVAL.
 * hist_free releases it (safe on a zeroed struct). */
int hist_init(struct hist *h, unsigned res);
void hist_free(struct hist *h);
/* Its chunks from now on from m (an empty histogram's, before the first
 * sample): hist_free gives them back to m. */
void hist_use_mem(struct hist *h, struct hist_mem *m);
/* Empties it, keeping its resolution and memory. */
void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* hist_add when v's bucket i = hist_index(h->res, v) is already known:
 * one sample going into several histograms is indexed once.  Inline: the
 * daemon adds each record to six or seven histograms. */
uint64_t *hist_chunk_new(struct hist *h, unsigned k);   /* chunk k, allocated if need be; NULL: no memory */
static inline void hist_add_at(struct hist *h, unsigned i, uint64_t v)
{
	uint64_t *c = h->chunk[i >> h->res];

	if (!c)
		c = hist_chunk_new(h, i >> h->res);
	if (c)
		c[i & ((1u << h->res) - 1)]++;
	else
		h->lost++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
}
/* a += b; -EINVAL when their resolutions differ, -ENOMEM. */
int hist_merge(struct hist *a, const struct hist *b);
/* Percentile as described above; 0 when empty. */
uint64_t hist_pct(const struct hist *h, double p);
/* The same over bare counts of resolution res (storage that is not a
 * struct hist: the load generator's) with their sample count and max. */
uint64_t hist_pct_counts(unsigned res, const uint64_t *c, uint64_t n, uint64_t max, double p);
/* Samples <= v, counting whole buckets whose upper bound is <= v (exact
 * for v a bucket's upper bound, and for v >= max). */
uint64_t hist_count_le(const struct hist *h, uint64_t v);
/* Bucket layout (tests, exports): number of buckets, bucket of v, and the
 * smallest and largest value bucket i holds. */
unsigned hist_nbuckets(unsigned res);
unsigned hist_index(unsigned res, uint64_t v);
uint64_t hist_bucket_lo(unsigned res, unsigned i);
uint64_t hist_bucket_hi(unsigned res, unsigned i);
/* Samples in bucket i. */
uint64_t hist_count(const struct hist *h, unsigned i);

#endif
