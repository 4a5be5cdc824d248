/* The paced wait's policy: see replay_pace.h. */
#include "src/replay/replay_pace.h"

#include <stdio.h>
#include <stdlib.h>

#include "src/xprt/xprt.h"

/* The longest sleep (the scheduler looks at the leases and the
 * callbacks' work between two). */
#define MAX_SLEEP_NS 100000000ull
/* Default (docs/replay.md, "Timing"): polled without sleeping before a
 * call's time */
#define SPIN_US 1000
#define SPIN_MAX_NS 20000000ull   /* however late the wake-ups were */

void pace_init(struct pace *p)
{
	const char *spin = getenv("NFSRDMA_REPLAY_SPIN_US");
	*p = (struct pace){ .spin_ns = (spin && *spin ? strtoull(spin, NULL, 10) : SPIN_US) * 1000ull };
}

uint64_t pace_spin(const struct pace *p)
{
	uint64_t spin = p->spin_ns + p->wake_late_ns;
	return spin > SPIN_MAX_NS ? SPIN_MAX_NS : spin;
}

uint64_t pace_nap(struct pace *p, uint64_t to_go, uint64_t now)
{
	if (to_go > MAX_SLEEP_NS)
		to_go = MAX_SLEEP_NS;
	if (now - p->second >= 1000000000ull) {
		p->second = now;
		p->slept_ns = 0;
	}
	/* awake most of this second already: sleep to the time, late or not */
	if (now - p->second - p->slept_ns >= PACE_AWAKE_MAX_NS) {
		if (to_go && p->slept_ns != UINT64_MAX) {
			p->spin_stops++;
			p->slept_ns = UINT64_MAX;   /* counted once a second; never awake too long again */
		}
		return to_go;
	}
	uint64_t spin = pace_spin(p);
	return to_go > spin ? to_go - spin : 0;
}

void pace_before_sleep(struct pace *p)
{
	pace_before_sleep_at(p, xprt_now_ns());
}

void pace_before_sleep_at(struct pace *p, uint64_t now)
{
	p->timeouts = xprt_time.timeouts;
	p->late_ns = xprt_time.late_ns;
	p->sleep_from = now;
}

void pace_after_sleep(struct pace *p)
{
	pace_after_sleep_at(p, xprt_now_ns());
}

void pace_after_sleep_at(struct pace *p, uint64_t now)
{
	if (p->slept_ns != UINT64_MAX)
		p->slept_ns += now - (p->sleep_from > p->second ? p->sleep_from : p->second);
	if (xprt_time.timeouts == p->timeouts)
		return;
	uint64_t l = xprt_time.late_ns - p->late_ns;
	p->wake_late_ns -= p->wake_late_ns / 8;
	if (l > p->wake_late_ns)
		p->wake_late_ns = l;
}

int64_t pace_run_delay(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long run, wait;
	int n = f ? fscanf(f, "%llu %llu", &run, &wait) : 0;
	if (f)
		fclose(f);
	return n == 2 ? (int64_t)wait : -1;
}
