#include "src/probe/inflight_age.h"

uint64_t inflight_first_ns(const struct probe_event *e)
{
	uint64_t first = 0;

	for (int i = 0; i < PT_MAX; i++)
		if (e->t[i] && (!first || e->t[i] < first))
			first = e->t[i];
	return first;
}

int inflight_add(struct inflight_side out[2], const struct probe_event *e, uint64_t now_ns,
		 const struct inflight_limits *l, bool left)
{
	struct inflight_side *s;
	uint64_t first, age;

	if (e->side != PROBE_SIDE_CLIENT && e->side != PROBE_SIDE_SERVER)
		return 0;
	s = &out[e->side == PROBE_SIDE_CLIENT ? 0 : 1];
	first = inflight_first_ns(e);
	age = first && first < now_ns ? now_ns - first : 0;
	if (left || (first && l->abandon_ns && age > l->abandon_ns)) {
		s->abandoned++;
		if (age > s->abandoned_oldest_ns)
			s->abandoned_oldest_ns = age;
		return 1;
	}
	if (!first) {
		/* a slot made by an event that keeps no time (a chunk before
		 * its marshal): in flight, of unknown age */
		s->in_flight++;
		s->untimed++;
		return 1;
	}
	s->in_flight++;
	if (age > l->stall_ns)
		s->stalled++;
	if (age > s->oldest_ns)
		s->oldest_ns = age;
	return 1;
}
