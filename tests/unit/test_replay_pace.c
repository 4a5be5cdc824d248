/* The paced wait (src/replay/replay_pace.c) stops polling for the rest of
 * a second once the replay has been awake PACE_AWAKE_MAX_NS of it, and
 * polls again in the next.  Driven by a clock of the test's own (each poll
 * advances it 10 us, each sleep by what was asked), so the check holds on
 * any machine however loaded: a wait that never sleeps (every call due
 * sooner than the polled part) over 2.5 simulated seconds. */
#include "check.h"

#include "src/replay/replay_pace.h"

#define POLL_NS 10000ull   /* one turn of the replay's poll */
#define SEC 1000000000ull

int main(void)
{
	struct pace p;
	const uint64_t start = 5 * SEC;   /* not 0: the pace's first second starts at 0 */
	uint64_t now = start, first_nap = 0, naps[3] = { 0 }, polls[3] = { 0 }, first_poll[3] = { 0 };

	pace_init(&p);
	CHECK(p.spin_ns >= 500000, "a call 0.5 ms away is polled for (spin %llu ns)", (unsigned long long)p.spin_ns);
	while (now - start < 5 * SEC / 2) {
		unsigned sec = (unsigned)((now - start) / SEC);
		uint64_t nap = pace_nap(&p, 500000, now);
		if (!nap) {
			if (!polls[sec]++)
				first_poll[sec] = now - start - sec * SEC;
			now += POLL_NS;   /* the replay's poll without sleeping */
			continue;
		}
		if (!first_nap)
			first_nap = now - start;
		naps[sec]++;
		pace_before_sleep_at(&p, now);
		now += nap;
		pace_after_sleep_at(&p, now);
	}
	/* awake from the start: the first sleep comes once 0.8 s are gone */
	CHECK(first_nap >= PACE_AWAKE_MAX_NS && first_nap < PACE_AWAKE_MAX_NS + POLL_NS,
	      "polling stopped after %.6f s awake (%.6f)", (double)first_nap / 1e9, (double)PACE_AWAKE_MAX_NS / 1e9);
	/* the rest of that second: 0.2 s in sleeps of 0.5 ms */
	CHECK(naps[0] >= 399 && naps[0] <= 401, "then every wait slept to its time (%llu sleeps of 0.5 ms)",
	      (unsigned long long)naps[0]);
	CHECK(polls[1] > 0 && first_poll[1] < POLL_NS, "the next second polls again from its start (%llu polls, from %llu ns)",
	      (unsigned long long)polls[1], (unsigned long long)first_poll[1]);
	CHECK(naps[1] > 0 && polls[2] > 0, "and stops again after 0.8 s awake, then polls in the third (%llu, %llu)",
	      (unsigned long long)naps[1], (unsigned long long)polls[2]);
	CHECK_EQ_U64(p.spin_stops, 2);
	return check_summary("replay-pace");
}
