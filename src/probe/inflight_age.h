/* RPCs in flight from the probes' join state (docs/probes.md, "RPCs in
 * flight"): each slot the probes hold for an RPC not yet completed is
 * tallied per side by its age, now minus its first timestamp, on the
 * probes' clock (bpf_ktime_get_ns: CLOCK_MONOTONIC).  Pure: the map
 * reading is src/probe/probe_inflight.c's. */
#ifndef NFSRDMA_INFLIGHT_AGE_H
#define NFSRDMA_INFLIGHT_AGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/probe.h"

struct inflight_limits {
	uint64_t stall_ns;    /* older than this: stalled (0: every one) */
	uint64_t abandon_ns;  /* older than this: abandoned, not in flight (0: never) */
};

/* One side's tally.  in_flight counts the RPCs not abandoned; stalled
 * and untimed are among them; abandoned are apart. */
struct inflight_side {
	uint64_t in_flight;
	uint64_t stalled;
	uint64_t untimed;          /* in flight, no timestamp yet: no age (never stalled) */
	uint64_t oldest_ns;        /* age of the oldest in flight; 0 with none timed */
	uint64_t abandoned;
	uint64_t abandoned_oldest_ns;
};

/* The earliest non-zero timestamp of e (0: none yet). */
uint64_t inflight_first_ns(const struct probe_event *e);
/* Adds one slot to out[0] (client) or out[1] (server) as it stands at
 * now_ns.  A free slot (side 0) or one of no known side adds nothing;
 * a first timestamp after now (the slot rewritten after now was read)
 * is age 0; left: the caller knows nothing works on it any more (a
 * server request whose thread waits for new work), abandoned whatever
 * its age.  Returns 1 when counted, else 0. */
int inflight_add(struct inflight_side out[2], const struct probe_event *e, uint64_t now_ns,
		 const struct inflight_limits *l, bool left);

#endif
