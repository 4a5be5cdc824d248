/* The aggregation engine made and freed (agg.h); its add path is agg.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "src/stats/agg_priv.h"

/* A record touches a few entries, a route in each cache and, for a new
 * key, the maps, all scattered: with 4 KB pages most of those touches
 * also miss the TLB, and under a hypervisor a miss walks two page
 * tables.  So they live in one region the kernel may back with 2 MB
 * pages (MADV_HUGEPAGE; 4 KB ones where it will not), reserved, not
 * committed: the default key limits take under 20 MB of it. */
#define REGION_SIZE (64u << 20)

/* LeakSanitizer scans the heap and the data segments, not a mapping of
 * ours: what only the region points to (histogram chunks past it, the
 * diagnoses) would be reported as leaked while the engine lives. */
#if defined(__SANITIZE_ADDRESS__)
#define AGG_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define AGG_LSAN 1
#endif
#endif
#ifdef AGG_LSAN
#include <sanitizer/lsan_interface.h>
#define region_scanned(p, n) __lsan_register_root_region(p, n)
#define region_unscanned(p, n) __lsan_unregister_root_region(p, n)
#else
#define region_scanned(p, n) ((void)0)
#define region_unscanned(p, n) ((void)0)
#endif

static void region_map(struct agg *a)
{
	void *p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return;   /* every allocation from malloc */
	(void)madvise(p, REGION_SIZE, MADV_HUGEPAGE);
	region_scanned(p, REGION_SIZE);
	a->region = p;
	a->region_size = REGION_SIZE;
}

void *agg_zalloc(struct agg *a, size_t size)
{
	size_t need = (size + 63) & ~(size_t)63;
	void *p;

	if (a->region && a->region_size - a->region_used >= need) {
		p = a->region + a->region_used;   /* fresh pages: already zero */
		a->region_used += need;
		return p;
	}
	if (posix_memalign(&p, 64, size))
		return NULL;
	return memset(p, 0, size);
}

static bool in_region(const struct agg *a, const void *p)
{
	return a->region && (const char *)p >= a->region && (const char *)p < a->region + a->region_size;
}

static void agg_release(struct agg *a, void *p)
{
	if (!in_region(a, p))
		free(p);
}

static void *hmem_zalloc(struct hist_mem *m, size_t size)
{
	struct agg *a = (struct agg *)(void *)((char *)m - offsetof(struct agg, hmem));
	return agg_zalloc(a, size);
}

static void hmem_release(struct hist_mem *m, void *p)
{
	agg_release((struct agg *)(void *)((char *)m - offsetof(struct agg, hmem)), p);
}

/* The first Prometheus bucket of each power of two of ns: a record's
 * bucket is that one or the next (no two bounds share a power of two). */
static void agg_prom_init(struct agg *a)
{
	for (unsigned b = 0; b < 64; b++) {
		unsigned i = 0;
		while (i < AGG_PROM_NLE && (1ull << b) > prom_le_ns[i])
			i++;
		a->prom_start[b] = (uint8_t)i;
	}
}

struct agg *agg_new(const struct agg_config *c)
{
	static const unsigned defmax[AGG_NDIM] = { 256, 1024, 1024, 1024, 4096 };
	struct agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (c)
		a->cfg = *c;
	a->mem = sizeof(*a);
	region_map(a);
	a->hmem = (struct hist_mem){ .zalloc = hmem_zalloc, .release = hmem_release };
	for (int d = 0; d < AGG_NDIM; d++) {
		a->t[d].max = a->cfg.max_keys[d] ? a->cfg.max_keys[d] : defmax[d];
		void *m = agg_zalloc(a, agg_map_bytes(2 * a->t[d].max));
		if (!m || !(a->t[d].fast = agg_map_in(m, 2 * a->t[d].max))) {
			agg_release(a, m);
			agg_free(a);
			return NULL;
		}
		a->mem += agg_map_memory(a->t[d].fast);
	}
	if (!a->cfg.slots || a->cfg.slots > AGG_SLOTS_MAX)
		a->cfg.slots = 10;
	if (!a->cfg.slot_ns)
		a->cfg.slot_ns = 1000000000ull;
	if (!a->cfg.slow_n || a->cfg.slow_n > AGG_SLOW_MAX)
		a->cfg.slow_n = 20;
	agg_prom_init(a);
	return a;
}

void agg_set_slow_whole_run(struct agg *a, bool on)
{
	a->cfg.slow_whole_run = on;
}

void agg_ent_free(struct agg *a, struct agg_ent *e)
{
	if (!e)
		return;
	hist_free(&e->lat);
	if (e->wlat)
		for (unsigned i = 0; i < a->cfg.slots; i++)
			hist_free(&e->wlat[i]);
	free(e->wlat);
	free(e->wring);
	agg_diag_free(e);
	agg_release(a, e);
}

void agg_free(struct agg *a)
{
	if (!a)
		return;
	for (int d = 0; d < AGG_NDIM; d++) {
		for (size_t i = 0; i < a->t[d].n; i++)
			agg_ent_free(a, a->t[d].order[i]);
		free(a->t[d].order);
		agg_ent_free(a, a->t[d].other);
		agg_release(a, a->t[d].fast);
	}
	for (int i = 0; i < RT_N; i++)
		agg_release(a, a->route[i]);
	if (a->region) {
		region_unscanned(a->region, a->region_size);
		munmap(a->region, a->region_size);
	}
	free(a);
}
