/* The replay's and load generator's latency histogram
 * (src/replay/loadgen_hist.c): adding and merging.  Samples below 2^6 ns
 * have a bucket each at HIST_RES (5), so the percentiles of these small
 * values are exact and written out here from the samples. */
#include "check.h"

#include "src/replay/loadgen_hist.h"

int main(void)
{
	/* each on its own in the heap: a merge that strays past the
	 * buckets is caught by the sanitizer build */
	struct lhist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)), *e = calloc(1, sizeof(*e));

	if (!a || !b || !e) {
		CHECK(0, "out of memory");
		return check_summary("loadgen_hist");
	}
	for (uint64_t v = 1; v <= 10; v++)
		lhist_add(a, v);       /* 1..10 */
	for (uint64_t v = 11; v <= 20; v++)
		lhist_add(b, v);       /* 11..20 */
	lhist_merge(a, b);
	CHECK_EQ_U64(a->n, 20);
	CHECK_EQ_U64(a->min, 1);
	CHECK_EQ_U64(a->max, 20);
	CHECK_EQ_U64(a->sum, 210);
	/* nearest rank: 50 % of 20 is the 10th sample, 10; 95 % the 19th */
	CHECK_EQ_U64(lhist_pct(a, 50), 10);
	CHECK_EQ_U64(lhist_pct(a, 95), 19);
	CHECK_EQ_U64(lhist_pct(a, 100), 20);
	/* the other way round: the same; an empty one merged changes nothing */
	lhist_merge(b, e);
	CHECK_EQ_U64(b->n, 10);
	CHECK_EQ_U64(b->min, 11);
	lhist_merge(e, b);
	CHECK_EQ_U64(e->n, 10);
	CHECK_EQ_U64(e->min, 11);
	CHECK_EQ_U64(e->max, 20);
	CHECK_EQ_U64(lhist_pct(e, 50), 15);
	free(a);
	free(b);
	free(e);
	return check_summary("loadgen_hist");
}
