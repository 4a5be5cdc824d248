/* The paced wait (src/replay/replay_pace.c) stops polling for the rest of
 * a second once the replay has been awake PACE_AWAKE_MAX_NS of it, and
 * polls again in the next: a wait that never sleeps (every call due
 * sooner than the polled part) runs here on the real clock for 1.15 s. */
#include <time.h>

#include "check.h"

#include "src/replay/replay_pace.h"
#include "src/xprt/xprt.h"

int main(void)
{
	struct pace p;
	const uint64_t start = xprt_now_ns();
	uint64_t first_nap = 0, naps_first_second = 0, polls_after = 0, now;

	pace_init(&p);
	CHECK(p.spin_ns >= 500000, "a call 0.5 ms away is polled for (spin %llu ns)", (unsigned long long)p.spin_ns);
	while ((now = xprt_now_ns()) - start < 1150000000ull) {
		uint64_t nap = pace_nap(&p, 500000, now);
		if (!nap) {
			polls_after += now - start >= 1000000000ull;
			continue;   /* the replay's poll without sleeping */
		}
		if (!first_nap)
			first_nap = now - start;
		naps_first_second += now - start < 1000000000ull;
		pace_before_sleep(&p);
		struct timespec ts = { 0, (long)nap };
		nanosleep(&ts, NULL);
		pace_after_sleep(&p);
	}
	/* awake from the start: the first sleep comes once 0.8 s are gone */
	CHECK(first_nap >= PACE_AWAKE_MAX_NS && first_nap < 1000000000ull,
	      "polling stopped after %.3f s awake", (double)first_nap / 1e9);
	CHECK(naps_first_second > 50, "then every wait slept to its time (%llu sleeps)",
	      (unsigned long long)naps_first_second);
	CHECK_EQ_U64(p.spin_stops, 1);
	CHECK(polls_after > 0, "in the next second, polling again (%llu polls)", (unsigned long long)polls_after);
	return check_summary("replay-pace");
}
