/* A stand-in for k2's estimator until it lands (the lead deletes this file
 * at merge): the midpoint of the tightest bounds seen, no drift, no
 * window, a step counted when the bounds cross. */
#include <errno.h>
#include <stdlib.h>

#include "src/join/clock_sync.h"

struct clock_sync {
	int64_t hi, lo;          /* offset <= hi (A->B), offset >= lo (B->A) */
	bool has_hi, has_lo;
	int64_t hint;
	uint64_t hint_unc;
	bool has_hint;
	uint64_t samples;
	uint32_t steps;
};

struct clock_sync *clock_sync_new(void) { return calloc(1, sizeof(struct clock_sync)); }
void clock_sync_free(struct clock_sync *c) { free(c); }

static void crossed(struct clock_sync *c)
{
	if (c->has_hi && c->has_lo && c->lo > c->hi)
		c->steps++;
}

void clock_sync_a_to_b(struct clock_sync *c, uint64_t a_ns, uint64_t b_ns)
{
	int64_t d = (int64_t)(b_ns - a_ns);

	if (!c->has_hi || d < c->hi)
		c->hi = d, c->has_hi = true, crossed(c);
	c->samples++;
}

void clock_sync_b_to_a(struct clock_sync *c, uint64_t b_ns, uint64_t a_ns)
{
	int64_t d = (int64_t)(b_ns - a_ns);

	if (!c->has_lo || d > c->lo)
		c->lo = d, c->has_lo = true, crossed(c);
	c->samples++;
}

void clock_sync_hint(struct clock_sync *c, int64_t offset_ns, uint64_t uncertainty_ns)
{
	c->hint = offset_ns, c->hint_unc = uncertainty_ns, c->has_hint = true;
}

int clock_sync_estimate(const struct clock_sync *c, uint64_t at_a_ns, struct clock_est *o)
{
	(void)at_a_ns;
	*o = (struct clock_est){ .samples = c->samples, .steps = c->steps };
	if (c->has_hi && c->has_lo) {
		o->offset_ns = c->lo + (c->hi - c->lo) / 2;
		o->uncertainty_ns = (uint64_t)(c->hi > c->lo ? c->hi - c->lo : c->lo - c->hi) / 2;
		o->bounded = true;
	} else if (c->has_hi || c->has_lo) {
		o->offset_ns = c->has_hi ? c->hi : c->lo;
		o->uncertainty_ns = UINT64_MAX;
	} else if (c->has_hint) {
		o->offset_ns = c->hint;
		o->uncertainty_ns = c->hint_unc;
	} else {
		return -ENODATA;
	}
	return 0;
}

uint64_t clock_sync_a_to_b_time(const struct clock_sync *c, uint64_t a_ns)
{
	struct clock_est e;

	return clock_sync_estimate(c, a_ns, &e) < 0 ? a_ns : a_ns + (uint64_t)e.offset_ns;
}
