/* Log-linear histogram (see hist.h).  Buckets 0..15 hold the values 0..15
 * exactly; above, bucket (e, s) holds [2^e + s*2^(e-4), 2^e + (s+1)*2^(e-4)). */
#include "src/stats/hist.h"

#include <string.h>

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned hist_index(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	if (e >= HIST_MAX_EXP)
		return HIST_N - 1;
	unsigned sub = (unsigned)(v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return HIST_SUB + (e - HIST_SUB_BITS) * HIST_SUB + sub;
}

uint64_t hist_bucket_lo(unsigned i)
{
	if (i < HIST_SUB)
		return i;
	unsigned e = (i - HIST_SUB) / HIST_SUB + HIST_SUB_BITS, sub = (i - HIST_SUB) % HIST_SUB;
	return ((uint64_t)(HIST_SUB + sub)) << (e - HIST_SUB_BITS);
}

static uint64_t bucket_hi(unsigned i)
{
	return i + 1 < HIST_N ? hist_bucket_lo(i + 1) : UINT64_MAX;
}

void hist_add(struct hist *h, uint64_t v)
{
	h->c[hist_index(v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
}

void hist_merge(struct hist *a, const struct hist *b)
{
	if (!b->n)
		return;
	for (unsigned i = 0; i < HIST_N; i++)
		a->c[i] += b->c[i];
	if (!a->n || b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->n += b->n;
	a->sum += b->sum;
}

uint64_t hist_pct(const struct hist *h, double p)
{
	if (!h->n)
		return 0;
	if (p >= 1.0)
		return h->max;
	uint64_t want = (uint64_t)(p * (double)h->n + 0.999999), acc = 0;
	if (want < 1)
		want = 1;
	for (unsigned i = 0; i < HIST_N; i++) {
		acc += h->c[i];
		if (acc >= want) {
			uint64_t lo = hist_bucket_lo(i), hi = bucket_hi(i);
			uint64_t v = i < HIST_SUB ? lo : lo + (hi - lo) / 2;
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}

uint64_t hist_count_le(const struct hist *h, uint64_t v)
{
	uint64_t acc = 0;

	if (v >= h->max)
		return h->n;
	for (unsigned i = 0; i < HIST_N; i++) {
		if (bucket_hi(i) - 1 > v)
			break;
		acc += h->c[i];
	}
	return acc;
}
