/* The diagnosis of an operation's phases (src/stats/phase_diag.c) on
 * samples whose splits are set here: the mean and tail shares are worked
 * out by hand from those samples, never taken from another output. */
#include <errno.h>

#include "check.h"
#include "src/stats/phase_diag.h"

static void add(struct phase_diag *d, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t ph[3] = { a, b, c };
	phase_diag_add(d, a + b + c, ph);
}

int main(void)
{
	struct phase_diag d;
	struct phase_diag_result r;

	CHECK(phase_diag_init(&d, 0) == -EINVAL, "0 phases refused");
	phase_diag_free(&d);
	CHECK(phase_diag_init(&d, DIAG_PH_MAX + 1) == -EINVAL, "too many phases refused");
	phase_diag_free(&d);

	CHECK(phase_diag_init(&d, 3) == 0, "init");
	CHECK(phase_diag_get(&d, &r) == -ENODATA, "empty: no data");
	/* 99 fast RPCs of 1 ms, phase 0 holding 0.7 ms; one slow one of
	 * 100 ms, phase 2 holding 90 ms.  Mean: phase 0 = 99 * 0.7 + 5 = 74.3 ms of 199 ms
	 * (37 %), phase 2 = 99 * 0.1 + 90 = 99.9 ms (50 %).  The p99 (rank
	 * 99 of 100) is a 1 ms sample: its bucket holds all 99 fast ones, so
	 * the tail is every RPC and its split is the mean's. */
	for (int i = 0; i < 99; i++)
		add(&d, 700000, 200000, 100000);
	add(&d, 5000000, 5000000, 90000000);
	CHECK(phase_diag_get(&d, &r) == 0, "get");
	CHECK_EQ_U64(r.n, 100);
	CHECK_EQ_U64(r.mean_ns, 1990000);
	CHECK_EQ_U64(r.mean_phase, 2);
	CHECK_EQ_U64(r.mean_pct, 50);
	CHECK_EQ_U64(r.tail_n, 100);
	CHECK_EQ_U64(r.p99_phase, 2);
	CHECK_EQ_U64(r.p99_pct, 50);
	/* nine more slow ones, 109 in all: rank ceil(0.99 * 109) = 108 is the
	 * 9th slow one, so the tail is the ten slow RPCs alone: phase 2 holds
	 * 90 ms of each 100. */
	for (int i = 0; i < 9; i++)
		add(&d, 5000000, 5000000, 90000000);
	CHECK(phase_diag_get(&d, &r) == 0, "get");
	CHECK_EQ_U64(r.n, 109);
	CHECK_EQ_U64(r.tail_n, 10);
	CHECK_EQ_U64(r.p99_phase, 2);
	CHECK_EQ_U64(r.p99_pct, 90);
	/* mean: phase 2 = 99 * 0.1 + 10 * 90 = 909.9 ms of 99 + 1000 = 1099 ms */
	CHECK_EQ_U64(r.mean_phase, 2);
	CHECK_EQ_U64(r.mean_pct, 83);
	CHECK(r.p99_ns >= 100000000 && r.p99_ns <= 100000000 + 100000000 / 32, "p99 %llu in the slow bucket",
	      (unsigned long long)r.p99_ns);
	phase_diag_free(&d);

	/* a tie goes to the earlier phase; rounding to the nearest percent */
	CHECK(phase_diag_init(&d, 3) == 0, "init");
	add(&d, 1, 1, 1);
	CHECK(phase_diag_get(&d, &r) == 0, "get");
	CHECK_EQ_U64(r.mean_phase, 0);
	CHECK_EQ_U64(r.mean_pct, 33);
	CHECK_EQ_U64(r.p99_pct, 33);
	phase_diag_free(&d);
	/* the most phases a diagnosis takes (DIAG_PH_MAX): ten RPCs of
	 * 1 + 2 + ... + 16 us, phase k holding k + 1 us; the last phase is the
	 * largest share of the mean and of the tail, 16 of 136 (12 %) */
	CHECK(phase_diag_init(&d, DIAG_PH_MAX) == 0, "init with DIAG_PH_MAX phases");
	for (int i = 0; i < 10; i++) {
		uint64_t ph[DIAG_PH_MAX], tot = 0;
		for (unsigned k = 0; k < DIAG_PH_MAX; k++)
			tot += ph[k] = (k + 1) * 1000;
		phase_diag_add(&d, tot, ph);
	}
	CHECK(phase_diag_get(&d, &r) == 0, "get");
	CHECK_EQ_U64(r.mean_phase, DIAG_PH_MAX - 1);
	CHECK_EQ_U64(r.p99_phase, DIAG_PH_MAX - 1);
	CHECK_EQ_U64(r.mean_pct, 12);
	phase_diag_free(&d);
	return check_summary("phase_diag");
}
