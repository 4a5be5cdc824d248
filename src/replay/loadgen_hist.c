/* The replay's and load generator's holder of the shared histogram
 * (see loadgen_hist.h). */
#include "src/replay/loadgen_hist.h"

#include "src/base/json.h"

void lhist_add(struct lhist *h, uint64_t ns)
{
	h->b[hist_index(HIST_RES, ns)]++;
	if (!h->n || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	h->sum += ns;
}

/* pct in 0..100 */
uint64_t lhist_pct(const struct lhist *h, double pct)
{
	return hist_pct_counts(HIST_RES, h->b, h->n, h->max, pct / 100.0);
}

void lhist_merge(struct lhist *dst, const struct lhist *src)
{
	if (!src->n)
		return;
	for (unsigned i = 0; i < HIST_NBUCKETS(HIST_RES); i++)
		dst->b[i] += src->b[i];
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
}

void lhist_jw(struct jw *j, const char *key, const struct lhist *h, bool with_calls)
{
	jw_str(j, key);
	jw_c(j, ':');
	if (with_calls) {
		jw_lit(j, "{\"calls\":");
		jw_u(j, h->n);
		JW_KEY(j, "p50_ns");
	} else {
		jw_lit(j, "{\"p50_ns\":");
	}
	jw_u(j, lhist_pct(h, 50));
	JW_KEY(j, "p99_ns");
	jw_u(j, lhist_pct(h, 99));
	JW_KEY(j, "max_ns");
	jw_u(j, h->max);
	jw_c(j, '}');
}
