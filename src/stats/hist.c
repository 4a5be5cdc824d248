/* Log-linear histogram (see hist.h).  With S = 2^res sub-buckets, buckets
 * 0..S-1 hold the values 0..S-1; above, bucket S + (e-res)*S + s holds
 * [2^e + s*2^(e-res), 2^e + (s+1)*2^(e-res)) for e in res..HIST_MAX_EXP-1.
 * Chunk k holds buckets k*S .. k*S + S-1. */
#include "src/stats/hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

unsigned hist_nbuckets(unsigned res)
{
	return HIST_NBUCKETS(res);
}

int hist_init(struct hist *h, unsigned res)
{
	memset(h, 0, sizeof(*h));
	if (res < 1 || res > HIST_RES_MAX)
		return -EINVAL;
	h->res = res;
	return 0;
}

void hist_free(struct hist *h)
{
	for (unsigned k = 0; k < HIST_MAX_EXP; k++)
		if (h->mem)
			h->mem->release(h->mem, h->chunk[k]);
		else
			free(h->chunk[k]);
	memset(h, 0, sizeof(*h));
}

void hist_use_mem(struct hist *h, struct hist_mem *m)
{
	h->mem = m;
}

/* Counts lie only in the buckets from min's to max's (hist_add_at and
 * hist_merge widen min and max before they count): every other bucket
 * is still zero, so only that range is cleared.  A window histogram is
 * reset each second with a few samples of like latency in a line or two
 * of its chunks; clearing every chunk it ever allocated was most of what
 * the daemon spent on it. */
void hist_reset(struct hist *h)
{
	if (h->n) {
		const unsigned sub = 1u << h->res, lo = hist_index(h->res, h->min), hi = hist_index(h->res, h->max);
		for (unsigned k = lo >> h->res; k <= hi >> h->res; k++) {
			if (!h->chunk[k])
				continue;
			unsigned from = k == lo >> h->res ? lo & (sub - 1) : 0;
			unsigned to = k == hi >> h->res ? hi & (sub - 1) : sub - 1;
			memset(h->chunk[k] + from, 0, (to - from + 1) * sizeof(uint64_t));
		}
	}
	h->n = h->sum = h->min = h->max = h->lost = 0;
}

static uint64_t *chunk_of(struct hist *h, unsigned k)
{
	if (h->chunk[k])
		return h->chunk[k];
	const size_t size = sizeof(uint64_t) << h->res;
	if ((h->chunk[k] = h->mem ? h->mem->zalloc(h->mem, size) : calloc(1, size)))
		h->bytes += size;
	return h->chunk[k];
}

uint64_t hist_count(const struct hist *h, unsigned i)
{
	const uint64_t *c = h->chunk[i >> h->res];

	return c ? c[i & ((1u << h->res) - 1)] : 0;
}

unsigned hist_index(unsigned res, uint64_t v)
{
	uint64_t sub = 1u << res;

	if (v < sub)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	if (e >= HIST_MAX_EXP)
		return hist_nbuckets(res) - 1;
	return (unsigned)(sub + (e - res) * sub + ((v >> (e - res)) & (sub - 1)));
}

uint64_t hist_bucket_lo(unsigned res, unsigned i)
{
	unsigned sub = 1u << res;

	if (i < sub)
		return i;
	unsigned e = (i - sub) / sub + res, s = (i - sub) % sub;
	return ((uint64_t)(sub + s)) << (e - res);
}

uint64_t hist_bucket_hi(unsigned res, unsigned i)
{
	return i + 1 < hist_nbuckets(res) ? hist_bucket_lo(res, i + 1) - 1 : UINT64_MAX;
}

void hist_add(struct hist *h, uint64_t v)
{
	hist_add_at(h, hist_index(h->res, v), v);
}

uint64_t *hist_chunk_new(struct hist *h, unsigned k)
{
	return chunk_of(h, k);
}

int hist_merge(struct hist *a, const struct hist *b)
{
	if (a->res != b->res)
		return -EINVAL;
	if (!b->n)
		return 0;
	/* first, so that a failure below leaves counts within min..max */
	if (!a->n || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->n += b->n;
	a->sum += b->sum;
	a->lost += b->lost;
	for (unsigned k = 0; k < HIST_MAX_EXP; k++) {
		if (!b->chunk[k])
			continue;
		uint64_t *c = chunk_of(a, k);
		if (!c)
			return -ENOMEM;
		for (unsigned i = 0; i < 1u << a->res; i++)
			c[i] += b->chunk[k][i];
	}
	return 0;
}

/* The nearest rank of percentile p among n samples: ceil(p * n), at
 * least 1, tolerant of p * n landing a hair above an integer. */
static uint64_t rank_of(double p, uint64_t n)
{
	uint64_t want = (uint64_t)(p * (double)n + 0.999999);

	return want < 1 ? 1 : want;
}

/* The one percentile rule (hist.h), over counts however they are stored. */
static uint64_t pct(unsigned res, uint64_t (*count)(const void *, unsigned), const void *ctx, uint64_t n,
		    uint64_t max, double p)
{
	if (!n)
		return 0;
	if (p >= 1.0)
		return max;
	uint64_t want = rank_of(p, n), acc = 0;

	/* Only buckets up to the max's can hold the rank. */
	for (unsigned i = 0, last = hist_index(res, max); i <= last; i++) {
		acc += count(ctx, i);
		if (acc >= want) {
			uint64_t hi = hist_bucket_hi(res, i);
			return hi < max ? hi : max;
		}
	}
	return max;
}

static uint64_t flat_count(const void *ctx, unsigned i)
{
	return ((const uint64_t *)ctx)[i];
}

static uint64_t hist_count_cb(const void *ctx, unsigned i)
{
	return hist_count(ctx, i);
}

uint64_t hist_pct_counts(unsigned res, const uint64_t *c, uint64_t n, uint64_t max, double p)
{
	return pct(res, flat_count, c, n, max, p);
}

/* pct over the chunks: the same walk, stepping over a chunk that was
 * never allocated (all zeros) in one go.  A key's samples sit in a few
 * chunks of the forty, and the daemon takes four percentiles of every
 * key at each snapshot. */
uint64_t hist_pct(const struct hist *h, double p)
{
	if (!h->n || p >= 1.0)
		return pct(h->res, hist_count_cb, h, h->n, h->max, p);
	uint64_t want = rank_of(p, h->n), acc = 0;
	unsigned sub = 1u << h->res, last = hist_index(h->res, h->max);

	for (unsigned k = 0; k <= last >> h->res; k++) {
		const uint64_t *c = h->chunk[k];
		if (!c)
			continue;
		for (unsigned j = 0; j < sub && k * sub + j <= last; j++) {
			acc += c[j];
			if (acc >= want) {
				uint64_t hi = hist_bucket_hi(h->res, k * sub + j);
				return hi < h->max ? hi : h->max;
			}
		}
	}
	return h->max;
}

uint64_t hist_count_le(const struct hist *h, uint64_t v)
{
	uint64_t acc = 0;

	if (v >= h->max)
		return h->n;
	for (unsigned i = 0, nb = hist_nbuckets(h->res); i < nb && hist_bucket_hi(h->res, i) <= v; i++)
		acc += hist_count(h, i);
	return acc;
}
