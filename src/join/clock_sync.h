/* src/join/clock_sync.h — offset and drift of one host's clock against another's,
 * from causality alone (NTP's minimum-delay idea): a message sent at a (clock A)
 * and received at b (clock B) proves offset <= b - a (offset = B - A); one sent at
 * b (B) and received at a (A) proves offset >= b - a.
 *
 * Method (docs/clocks.md has the why and the guarantees):
 *  - Every bound is placed at its A time (the send time of an A->B message,
 *    the receive time of a B->A one).  Time is cut into buckets of 2^31 ns
 *    (~2.1 s); each bucket keeps the two tightest upper and lower bounds it
 *    saw, compared along the current drift (the minimum-delay filter), and
 *    uses the second best once it has two: one false bound cannot narrow
 *    the interval.  The last CLOCK_SYNC_BUCKETS
 *    buckets (~69 s) form the window: older data ages out, so a slowly
 *    changing drift is followed.  Memory is fixed; an observation costs O(1)
 *    unless it tightens a bucket, and refits happen at most every 1/16 bucket
 *    of data time (O(1) amortized).
 *  - Fit: the offset is a line offset(t) = x + drift * (t - t0), t0 the newest
 *    time seen, |drift| <= 500 ppm.  The set of lines between every upper and
 *    every lower bound (a 2-D linear program, the feasible region between the
 *    lower hull of the upper bounds and the upper hull of the lower bounds) is
 *    solved for the range of x at t0 and the range of drift.  The estimate is
 *    the midpoint of each; the uncertainty at time T is the half-width of the
 *    x range plus half the drift range times |T - t0|, so any line the data
 *    allow lies inside estimate +- uncertainty.
 *  - Bounds that contradict each other by a few microseconds (timestamp
 *    resolution, a drift that bends inside the window) are absorbed: the fit
 *    takes the line that violates them least and adds the violation to the
 *    uncertainty ("relaxed" in the stats).
 *  - A new bound that contradicts the current estimate by more than
 *    max(20 us, its half-width) is held out.  When such contradictions
 *    persist (4 or more, and at least as many as the consistent bounds of the
 *    same direction since the first), the clock stepped: the count goes up,
 *    the window restarts from the first contradicting bound (pre-step data
 *    are dropped, later arrivals older than the step too), and the old fit
 *    still answers for times before the step.  If consistent bounds win
 *    instead, the held-out ones were outliers (e.g. a mismatched pair): they
 *    are counted and dropped.
 *  - A bound later than the newest by more than the window moves the window
 *    only when a second one confirms the jump: one broken timestamp must not
 *    push every later bound out as late.  The lone one is counted (ahead).
 *  - Only one direction seen: a one-sided bound; bounded = false, the
 *    estimate is the tightest recent bound and the uncertainty 1 s unless a
 *    hint closes the other side.
 *  - A hint (e.g. the difference of the wall clocks) is an interval that is
 *    intersected with what the data allow; when the two do not meet, the data
 *    win and the stats say so (hint_overridden, hint_overrides).
 * Single-threaded: the caller serialises calls on one object. */
#ifndef NFSRDMA_CLOCK_SYNC_H
#define NFSRDMA_CLOCK_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCK_SYNC_BUCKET_SHIFT 31   /* 2^31 ns ~ 2.1 s per bucket */
#define CLOCK_SYNC_BUCKETS      32   /* the window: ~69 s */
#define CLOCK_SYNC_MAX_PPM      500.0
#define CLOCK_SYNC_ONE_SIDED_NS 1000000000ULL

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
	bool     unsettled;      /* a step or a jump is being confirmed: ask again later if you can */
	bool     from_hosts;     /* the join's: the hosts' disciplined clocks, not the bounds (clock_claim.h) */
};
int clock_sync_estimate(const struct clock_sync *, uint64_t at_a_ns, struct clock_est *out); /* 0 or -ENODATA */
uint64_t clock_sync_a_to_b_time(const struct clock_sync *, uint64_t a_ns);  /* map a time of A onto B */
/* The same estimate asked at a time of B's clock (B - A, at the A time that
 * is).  After a step it picks the fit by the clock that did not move: B's
 * time when A's clock stepped, A's when B's did. */
int clock_sync_estimate_at_b(const struct clock_sync *, uint64_t at_b_ns, struct clock_est *out);

/* What happened to the observations, for reports and tests. */
struct clock_sync_stats {
	uint64_t observed;       /* every call of a_to_b / b_to_a */
	uint64_t used;           /* folded into a window (since creation) */
	uint64_t outliers;       /* held out as contradicting, then judged outliers */
	uint64_t late;           /* older than the window, or than the last step */
	uint64_t ahead;          /* a lone bound past the whole window (a broken stamp?) */
	uint64_t hint_overrides; /* times the data contradicted the hint */
	uint64_t relax_ns;       /* contradiction absorbed by the current fit */
	uint32_t steps;
	bool     hint_overridden;/* the current fit ignores the hint */
	bool     suspect;        /* contradicting bounds are being held right now */
};
void clock_sync_stats(const struct clock_sync *, struct clock_sync_stats *out);

/* Self-check of the current fit against the bounds it was made from: every
 * bound is reachable from the estimate's interval at its time, the midpoint
 * lies in it.  0 or -EPROTO (for tests and the fuzz harness). */
int clock_sync_check(const struct clock_sync *);

#endif
