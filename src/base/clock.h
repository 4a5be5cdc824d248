/* The clocks every tool reads, in nanoseconds: one definition, so a
 * record's timestamps and a tool's deadlines never mix units or clocks. */
#ifndef NFSRDMA_CLOCK_H
#define NFSRDMA_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Deadlines, pacing and rates: never steps. */
static inline uint64_t clock_mono_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
/* Timestamps a human or another host compares (records, snapshots). */
static inline uint64_t clock_wall_ns(void) { return clock_ns(CLOCK_REALTIME); }

#endif
