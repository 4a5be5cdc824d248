/* libFuzzer harness for the clock alignment estimator (src/join/clock_sync.c):
 * its observations are timestamps from probe files and forwarded records,
 * pairs made by a join that can be wrong, so every value is hostile.
 *
 * Input: one mode byte, then operations.
 *  - Raw mode (mode byte even): each operation is a kind byte (low 2 bits:
 *    A->B, B->A, hint, estimate) and two 64-bit values, taken as they are.
 *  - Truthful mode (mode byte odd): the bounds come from a true clock line
 *    (offset 3 days, drift from the next byte, -100..+100 ppm whole) and
 *    the input only chooses the direction, the time step (u16 squared, ns)
 *    and the delay (16 + 16 * u16 ns): no bound is false, so nothing may be
 *    called a step or an outlier and the truth must be inside every answer.
 *
 * Invariants (trap): clock_sync_check holds after every operation (the
 * estimate's interval reaches every bound of the window, the midpoint lies
 * in it, the hint only narrows the data's interval); estimate returns 0 or
 * -ENODATA, -ENODATA only before any observation or hint; a bounded answer
 * has used both directions; steps agree with the stats; a_to_b_time is the
 * time plus the estimated offset; and in truthful mode, no step, no
 * outlier, and |offset - truth| <= uncertainty. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/join/clock_sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *p;
	size_t n;
};

static bool take(struct in *in, void *out, size_t len)
{
	if (in->n < len)
		return false;
	memcpy(out, in->p, len);
	in->p += len;
	in->n -= len;
	return true;
}

#define A0   (1000ULL * 1000000000ULL)
#define OFF0 ((int64_t)(3ULL * 86400 * 1000000000ULL + 1234567))

struct truth {
	int64_t ppm;
};

static int64_t theta(const struct truth *T, uint64_t t)
{
	int64_t rel = (int64_t)(t - A0);     /* times stay within hours of A0 */

	return OFF0 + rel / 1000000 * T->ppm + (rel % 1000000) * T->ppm / 1000000;
}

static void check_answer(const struct clock_sync *cs, uint64_t at, bool any, const struct truth *T)
{
	struct clock_est e;
	struct clock_sync_stats st;
	int rc = clock_sync_estimate(cs, at, &e);

	clock_sync_stats(cs, &st);
	if (clock_sync_check(cs) != 0)
		__builtin_trap();
	if (rc != 0 && rc != -ENODATA)
		__builtin_trap();
	if (rc == -ENODATA) {
		if (any)
			__builtin_trap();
		return;
	}
	if (e.steps != st.steps || (e.bounded && e.samples < 2))
		__builtin_trap();
	if (clock_sync_a_to_b_time(cs, at) != at + (uint64_t)e.offset_ns)
		__builtin_trap();
	if (T) {
		int64_t truth = theta(T, at);
		uint64_t err = e.offset_ns > truth ? (uint64_t)e.offset_ns - (uint64_t)truth
						   : (uint64_t)truth - (uint64_t)e.offset_ns;

		if (st.steps || st.outliers || err > e.uncertainty_ns)
			__builtin_trap();
		/* asked at B's time of the same moment: the same truth, as wide */
		struct clock_est eb;
		if (clock_sync_estimate_at_b(cs, at + (uint64_t)truth, &eb) != 0)
			__builtin_trap();
		err = eb.offset_ns > truth ? (uint64_t)eb.offset_ns - (uint64_t)truth
					   : (uint64_t)truth - (uint64_t)eb.offset_ns;
		if (err > eb.uncertainty_ns + (eb.uncertainty_ns >> 9) + 2)
			__builtin_trap();
	} else {
		struct clock_est eb;
		int rb = clock_sync_estimate_at_b(cs, at, &eb);
		if (rb != 0 || eb.steps != st.steps)
			__builtin_trap();
	}
}

static void raw(struct clock_sync *cs, struct in *in)
{
	uint8_t kind;
	uint64_t x, y;
	bool any = false;

	while (take(in, &kind, 1) && take(in, &x, 8) && take(in, &y, 8)) {
		switch (kind & 3) {
		case 0:
			clock_sync_a_to_b(cs, x, y);
			break;
		case 1:
			clock_sync_b_to_a(cs, x, y);
			break;
		case 2:
			clock_sync_hint(cs, (int64_t)x, y);
			break;
		default:
			break;
		}
		if ((kind & 3) != 3)
			any = true;
		check_answer(cs, (kind & 3) == 3 ? x : y, any, NULL);
	}
}

static void truthful(struct clock_sync *cs, struct in *in)
{
	struct truth T = { 0 };
	uint8_t b, kind;
	uint16_t dt, dl;
	uint64_t t = A0;
	bool any = false;

	if (!take(in, &b, 1))
		return;
	T.ppm = (int64_t)(b % 201) - 100;
	while (take(in, &kind, 1) && take(in, &dt, 2) && take(in, &dl, 2)) {
		uint64_t d = 16 + 16ULL * dl;

		t += (uint64_t)dt * dt;
		if (t - A0 > 3600ULL * 1000000000ULL)
			break;
		switch (kind & 3) {
		case 0:
			clock_sync_a_to_b(cs, t, (uint64_t)((int64_t)(t + d) + theta(&T, t + d)));
			break;
		case 1:
			clock_sync_b_to_a(cs, (uint64_t)((int64_t)(t - d) + theta(&T, t - d)), t);
			break;
		case 2:
			/* a right hint; a constant one is right only without drift */
			if (T.ppm == 0)
				clock_sync_hint(cs, theta(&T, t) - (int64_t)(dl / 2), 16ULL * dl);
			break;
		default:
			break;
		}
		if ((kind & 3) == 0 || (kind & 3) == 1 || ((kind & 3) == 2 && T.ppm == 0))
			any = true;
		check_answer(cs, t, any, &T);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct clock_sync *cs;
	uint8_t mode;

	if (!take(&in, &mode, 1))
		return 0;
	cs = clock_sync_new();
	if (!cs)
		return 0;
	if (mode & 1)
		truthful(cs, &in);
	else
		raw(cs, &in);
	clock_sync_free(cs);
	return 0;
}
