/* src/join/clock_sync.h — offset and drift of one host's clock against another's,
 * from causality alone (NTP's minimum-delay idea): a message sent at a (clock A)
 * and received at b (clock B) proves offset <= b - a (offset = B - A); one sent at
 * b (B) and received at a (A) proves offset >= b - a.
 * (k2 owns this header and its implementation; the join calls only these.) */
#ifndef NFSRDMA_CLOCK_SYNC_H
#define NFSRDMA_CLOCK_SYNC_H

#include <stdbool.h>
#include <stdint.h>

struct clock_sync;                                   /* opaque; one per (A, B) pair */
struct clock_sync *clock_sync_new(void);
void clock_sync_free(struct clock_sync *);
void clock_sync_a_to_b(struct clock_sync *, uint64_t a_ns, uint64_t b_ns);  /* A sent, B received */
void clock_sync_b_to_a(struct clock_sync *, uint64_t b_ns, uint64_t a_ns);  /* B sent, A received */
void clock_sync_hint(struct clock_sync *, int64_t offset_ns, uint64_t uncertainty_ns); /* e.g. wall clocks */
struct clock_est {
	int64_t  offset_ns;      /* B - A at the time asked for */
	double   drift_ppm;      /* d(offset)/dt, parts per million */
	uint64_t uncertainty_ns; /* half-width of the interval the data allow (+ drift error) */
	uint64_t samples;        /* observations used */
	uint32_t steps;          /* clock steps detected (inconsistent bounds) so far */
	bool     bounded;        /* both directions seen: the estimate is an interval, not a guess */
};
int clock_sync_estimate(const struct clock_sync *, uint64_t at_a_ns, struct clock_est *out); /* 0 or -ENODATA */
uint64_t clock_sync_a_to_b_time(const struct clock_sync *, uint64_t a_ns);  /* map a time of A onto B */

#endif
