/* How the paced replay waits for a call's time: asleep until shortly
 * before it, then polling without sleeping until it is due, because
 * waking up takes time (longer on a busy or emulated CPU).  The part
 * polled is a fixed SPIN_US (NFSRDMA_REPLAY_SPIN_US) plus how late the
 * recent wake-ups came back: it grows with the latest late one and
 * shrinks by an eighth with each prompt one.  Polling stops for the rest
 * of a second once the replay has been awake PACE_AWAKE_MAX_NS of it:
 * a --realtime (SCHED_FIFO) thread that never sleeps is stopped by the
 * kernel's real-time throttling (50 ms of each second), and starves the
 * kernel threads that do soft-RoCE's work on its CPU.  The scheduler
 * (replay_sched.c) and bench/sleep-floor.c (the platform's floor: the
 * same wait with nothing else to do) share it.  replay_pace.c. */
#ifndef NFSRDMA_REPLAY_REPLAY_PACE_H
#define NFSRDMA_REPLAY_REPLAY_PACE_H

#include <stdint.h>

#define PACE_AWAKE_MAX_NS 800000000ull   /* of each second */

struct pace {
	uint64_t spin_ns;        /* polled without sleeping before a call's time, */
	uint64_t wake_late_ns;   /* ... and this much more: how late recent wake-ups were */
	uint64_t timeouts, late_ns;   /* xprt_time's, before the sleep in progress */
	uint64_t second, slept_ns, sleep_from;   /* the current second's start, time asleep in it */
	uint64_t spin_stops;     /* seconds in which polling stopped (PACE_AWAKE_MAX_NS) */
};

/* The fixed part from NFSRDMA_REPLAY_SPIN_US (default SPIN_US). */
void pace_init(struct pace *p);
/* How long to sleep of the to_go ns left before the next call's time
 * (capped at the longest sleep), now being now; 0: poll without
 * sleeping. */
uint64_t pace_nap(struct pace *p, uint64_t to_go, uint64_t now);
/* What is polled before a call's time now: the fixed part and the
 * recent wake-ups' lateness (capped). */
uint64_t pace_spin(const struct pace *p);
/* Around each sleep (xprt_sleep_ppoll, through the transports' poll or
 * not): a sleep that ran to its time teaches how late this machine
 * wakes up. */
void pace_before_sleep(struct pace *p);
void pace_after_sleep(struct pace *p);
/* The same at a given time (the unit test's clock). */
void pace_before_sleep_at(struct pace *p, uint64_t now);
void pace_after_sleep_at(struct pace *p, uint64_t now);
/* The thread's time runnable and not running so far (ns), -1 unknown. */
int64_t pace_run_delay(void);

#endif
