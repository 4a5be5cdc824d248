/* HDR-style latency histogram (see loadgen_hist.h). */
#include "src/replay/loadgen_hist.h"

static void index_of(uint64_t v, unsigned *p, unsigned *s)
{
	if (v < HIST_SUB) {
		*p = 0;
		*s = (unsigned)v;
		return;
	}
	unsigned msb = 63 - (unsigned)__builtin_clzll(v);  /* >= 6 */
	unsigned pow = msb - 5;                              /* 1.. */
	if (pow >= HIST_POW) {
		*p = HIST_POW - 1;
		*s = HIST_SUB - 1;
		return;
	}
	*p = pow;
	/* v in [2^msb, 2^(msb+1)): (v >> (msb-6)) is in [64,128); keep the low
	 * 6 bits as the sub-bucket. */
	*s = (unsigned)((v >> (msb - 6)) - HIST_SUB);
}

static uint64_t value_of(unsigned p, unsigned s)
{
	if (p == 0)
		return s;
	unsigned msb = p + 5;
	/* upper edge of the bucket (conservative, like HdrHistogram's
	 * highestEquivalentValue) */
	return (((uint64_t)(s + HIST_SUB) + 1) << (msb - 6)) - 1;
}

void lhist_add(struct lhist *h, uint64_t ns)
{
	unsigned p, s;
	index_of(ns, &p, &s);
	h->b[p][s]++;
	if (!h->n || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	h->sum += ns;
}

uint64_t lhist_pct(const struct lhist *h, double pct)
{
	if (!h->n)
		return 0;
	if (pct >= 100.0)
		return h->max;
	uint64_t want = (uint64_t)((pct / 100.0) * (double)h->n + 0.999999);
	if (want < 1)
		want = 1;
	uint64_t seen = 0;
	for (unsigned p = 0; p < HIST_POW; p++)
		for (unsigned s = 0; s < HIST_SUB; s++) {
			seen += h->b[p][s];
			if (seen >= want) {
				uint64_t v = value_of(p, s);
				return v > h->max ? h->max : v < h->min ? h->min : v;
			}
		}
	return h->max;
}

void lhist_merge(struct lhist *dst, const struct lhist *src)
{
	if (!src->n)
		return;
	for (unsigned p = 0; p < HIST_POW; p++)
		for (unsigned s = 0; s < HIST_SUB; s++)
			dst->b[p][s] += src->b[p][s];
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
}
