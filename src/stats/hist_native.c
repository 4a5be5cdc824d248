/* See hist_native.h. */
#include "src/stats/hist_native.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bound 2^(i/2^s): exp2 of a multiple of 2^-s, exact where it is a
 * power of two. */
static double bound(int schema, int32_t i)
{
	return exp2(ldexp((double)i, -schema));
}

int32_t hist_native_index(int schema, double x)
{
	int32_t i = (int32_t)ceil(ldexp(log2(x), schema));

	/* log2 may round across a bound; the bounds decide */
	while (bound(schema, i - 1) >= x)
		i--;
	while (bound(schema, i) < x)
		i++;
	return i;
}

void hist_native_free(struct hist_native *nh)
{
	free(nh->idx);
	free(nh->cnt);
	memset(nh, 0, sizeof(*nh));
}

int hist_native_of(const struct hist *h, int schema, struct hist_native *out)
{
	memset(out, 0, sizeof(*out));
	if (schema < -4 || schema > 8)
		return -EINVAL;
	out->schema = schema;
	out->count = h->n;
	out->sum = (double)h->sum / 1e9;
	if (!h->n)
		return 0;
	const unsigned sub = 1u << h->res, last = hist_index(h->res, h->max);
	size_t cap = 0;
	for (unsigned k = 0; k <= last >> h->res; k++) {
		const uint64_t *c = h->chunk[k];
		for (unsigned j = 0; c && j < sub && k * sub + j <= last; j++) {
			if (!c[j])
				continue;
			uint64_t v = hist_bucket_hi(h->res, k * sub + j);
			if (v > h->max)
				v = h->max;
			if (!v) {
				out->zero_count += c[j];
				continue;
			}
			int32_t i = hist_native_index(schema, (double)v / 1e9);
			if (out->n && out->idx[out->n - 1] == i) {
				out->cnt[out->n - 1] += c[j];
				continue;
			}
			if (out->n == cap) {
				cap = cap ? 2 * cap : 16;
				int32_t *ni = realloc(out->idx, cap * sizeof(*ni));
				if (ni)
					out->idx = ni;
				uint64_t *nc = ni ? realloc(out->cnt, cap * sizeof(*nc)) : NULL;
				if (!nc) {
					hist_native_free(out);
					return -ENOMEM;
				}
				out->cnt = nc;
			}
			out->idx[out->n] = i;
			out->cnt[out->n++] = c[j];
		}
	}
	return 0;
}
