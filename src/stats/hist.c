/* Log-linear histogram (see hist.h).  With S = 2^res sub-buckets, buckets
 * 0..S-1 hold the values 0..S-1; above, bucket S + (e-res)*S + s holds
 * [2^e + s*2^(e-res), 2^e + (s+1)*2^(e-res)) for e in res..HIST_MAX_EXP-1. */
#include "src/stats/hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

unsigned hist_nbuckets(unsigned res)
{
	return HIST_NBUCKETS(res);
}

size_t hist_bytes(unsigned res)
{
	return hist_nbuckets(res) * sizeof(uint64_t);
}

int hist_init(struct hist *h, unsigned res)
{
	memset(h, 0, sizeof(*h));
	if (res < 1 || res > HIST_RES_MAX)
		return -EINVAL;
	if (!(h->c = calloc(hist_nbuckets(res), sizeof(*h->c))))
		return -ENOMEM;
	h->res = res;
	return 0;
}

void hist_free(struct hist *h)
{
	free(h->c);
	memset(h, 0, sizeof(*h));
}

void hist_reset(struct hist *h)
{
	if (h->c)
		memset(h->c, 0, hist_bytes(h->res));
	h->n = h->sum = h->min = h->max = 0;
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
	h->c[hist_index(h->res, v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
}

int hist_merge(struct hist *a, const struct hist *b)
{
	if (a->res != b->res)
		return -EINVAL;
	if (!b->n)
		return 0;
	for (unsigned i = 0, nb = hist_nbuckets(a->res); i < nb; i++)
		a->c[i] += b->c[i];
	if (!a->n || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->n += b->n;
	a->sum += b->sum;
	return 0;
}

uint64_t hist_pct_counts(unsigned res, const uint64_t *c, uint64_t n, uint64_t max, double p)
{
	if (!n)
		return 0;
	if (p >= 1.0)
		return max;
	/* ceil(p * n), tolerant of p * n landing a hair above an integer */
	uint64_t want = (uint64_t)(p * (double)n + 0.999999), acc = 0;
	if (want < 1)
		want = 1;
	/* Only buckets up to the max's can hold the rank. */
	for (unsigned i = 0, last = hist_index(res, max); i <= last; i++) {
		acc += c[i];
		if (acc >= want) {
			uint64_t hi = hist_bucket_hi(res, i);
			return hi < max ? hi : max;
		}
	}
	return max;
}

uint64_t hist_pct(const struct hist *h, double p)
{
	return hist_pct_counts(h->res, h->c, h->n, h->max, p);
}

uint64_t hist_count_le(const struct hist *h, uint64_t v)
{
	uint64_t acc = 0;

	if (v >= h->max)
		return h->n;
	for (unsigned i = 0, nb = hist_nbuckets(h->res); i < nb && hist_bucket_hi(h->res, i) <= v; i++)
		acc += h->c[i];
	return acc;
}
