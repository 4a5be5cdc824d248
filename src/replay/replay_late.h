/* Where a late call's time went (-v at --speed > 0): the replay's thread
 * keeps a timeline of what it was doing (marks a few tens of microseconds
 * apart, each with running totals by activity and the kernel's count of
 * its time runnable and not running), and the window from a call's time
 * (or its release) to when it left is cut into those activities.
 * replay_late.c. */
#ifndef NFSRDMA_REPLAY_REPLAY_LATE_H
#define NFSRDMA_REPLAY_REPLAY_LATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the thread was doing.  The first three are inside the transports'
 * poll; LT_BUILD is building and handing over other calls (and the late
 * call itself, once taken); LT_SCHED the scheduler's own choosing. */
enum {
	LT_SLEEP,    /* asleep in poll()/nanosleep() until the kernel ran it again */
	LT_REPLIES,  /* the replies' callbacks (decode, compare, learn) */
	LT_POST,     /* handing calls to the kernel (ibv_post_send, writev) */
	LT_POLL,     /* the rest of a poll: completion queues, re-arming, events */
	LT_BUILD,
	LT_SCHED,
	LT_KINDS
};

struct late_mark {
	uint64_t t;
	uint64_t cum[LT_KINDS];
	uint64_t run_delay;   /* the kernel's run_delay at t (ns) */
};

struct late_log {
	bool on;
	struct late_mark *ring;
	size_t cap, n, head;       /* head: the newest */
	unsigned kind;             /* what the thread is doing since the last mark */
	uint64_t t_last;
	uint64_t cum[LT_KINDS];
	uint64_t blocked, posted;  /* xprt_time at the last mark */
	uint64_t replies_ns;       /* time in reply callbacks so far */
	uint64_t run_delay;        /* at the last mark pushed */
	int fd;                    /* /proc/thread-self/schedstat, -1 */
	/* over the calls at least LATE_SHOWN late: their windows, added up */
	uint64_t shown, sum[LT_KINDS], sum_wait, sum_total;
};

/* Calls at least this late are explained one by one (and added up). */
#define LATE_SHOWN_NS 1000000ull

/* Starts the timeline (1: on; 0: not measured, -ENOMEM). */
int late_start(struct late_log *l);
void late_stop(struct late_log *l);
/* The thread now does `kind`; returns what it did until now. */
unsigned late_mark(struct late_log *l, unsigned kind);
/* A reply callback's time (ns). */
static inline void late_replies(struct late_log *l, uint64_t ns) { l->replies_ns += ns; }
/* Cuts [from, to) into activities (ns), and the time the thread was
 * runnable and not running in it (*wait, -1: unknown).  Returns the part
 * of the window older than the timeline (unknown). */
uint64_t late_explain(struct late_log *l, uint64_t from, uint64_t to, uint64_t out[LT_KINDS],
		      int64_t *wait);
/* One line: "asleep 0.1 ms, replies 3.2 ms, ..." */
void late_print(FILE *f, const uint64_t part[LT_KINDS], int64_t wait, uint64_t unknown);
/* The sums over the calls explained, text or JSON ("late_parts_us":{...},). */
/* spin_stops: seconds in which the paced wait stopped polling (replay_pace.h) */
void late_report(const struct late_log *l, uint64_t spin_stops, FILE *f);
/* the same as "late_parts":{...},"wakeups":{...}, (nothing when off) */
struct jw;
void late_json(const struct late_log *l, uint64_t spin_stops, struct jw *j);

#endif
