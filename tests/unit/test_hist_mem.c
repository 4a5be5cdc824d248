/* A histogram given a chunk allocator (hist_use_mem: the aggregation
 * engine's region) takes every chunk from it, zeroed, one per power of
 * two its samples fall in, counts them as before, and gives each back to
 * it on hist_free; one without keeps calloc and free. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "src/stats/hist.h"

struct counting_mem {
	struct hist_mem m;
	unsigned allocs, releases;
	char pool[16][256];
};

static void *zalloc(struct hist_mem *m, size_t size)
{
	struct counting_mem *c = (struct counting_mem *)(void *)m;
	if (size != sizeof(c->pool[0]) || c->allocs == 16)
		return NULL;
	memset(c->pool[c->allocs], 0, size);
	return c->pool[c->allocs++];
}

static void release(struct hist_mem *m, void *p)
{
	struct counting_mem *c = (struct counting_mem *)(void *)m;
	c->releases += p != NULL;
}

int main(void)
{
	struct counting_mem c = { .m = { zalloc, release } };
	struct hist h, plain;

	CHECK(hist_init(&h, 5) == 0 && hist_init(&plain, 5) == 0, "hist_init");
	hist_use_mem(&h, &c.m);
	/* three powers of two: ~1 us, ~1 ms (twice), ~1 s */
	const uint64_t v[] = { 1000, 1000000, 1020000, 1000000000 };
	for (unsigned i = 0; i < 4; i++) {
		hist_add(&h, v[i]);
		hist_add(&plain, v[i]);
	}
	CHECK_EQ_U64(c.allocs, 3);
	CHECK_EQ_U64(h.n, 4);
	CHECK_EQ_U64(h.bytes, 3 * 256);
	CHECK_EQ_U64(hist_pct(&h, 0.5), hist_pct(&plain, 0.5));
	CHECK_EQ_U64(hist_pct(&h, 0.99), hist_pct(&plain, 0.99));
	CHECK_EQ_U64(h.max, 1000000000);
	/* out of chunks: the sample is counted as lost, as with calloc */
	c.allocs = 16;
	hist_add(&h, 5);
	CHECK_EQ_U64(h.lost, 1);
	hist_free(&h);
	CHECK_EQ_U64(c.releases, 3);
	CHECK(h.mem == NULL && h.n == 0, "freed and emptied");
	hist_free(&plain);
	return check_summary("hist-mem");
}
