/* The aggregation engine made and freed (agg.h); its add path is agg.c. */
#include <stdlib.h>

#include "src/stats/agg_priv.h"

struct agg *agg_new(const struct agg_config *c)
{
	static const unsigned defmax[AGG_NDIM] = { 256, 1024, 1024, 1024, 4096 };
	struct agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (c)
		a->cfg = *c;
	a->mem = sizeof(*a);
	for (int d = 0; d < AGG_NDIM; d++) {
		a->t[d].max = a->cfg.max_keys[d] ? a->cfg.max_keys[d] : defmax[d];
		if (!(a->t[d].fast = agg_map_new(2 * a->t[d].max))) {
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
	free(e);
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
		agg_map_free(a->t[d].fast);
	}
	for (int i = 0; i < RT_N; i++)
		free(a->route[i]);
	free(a);
}
