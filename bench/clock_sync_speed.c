/* Observations per CPU second of the clock estimator (src/join/clock_sync.c),
 * beside the bare minimum-delay filter (a running min and max, no fit) on the
 * same arrays, and the cost of an answer (clock_sync_a_to_b_time).
 * Built and run by bench/clock_sync.sh; prints one line per case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/join/clock_sync.h"

#define N (4u << 20)

struct obs {
	uint64_t a, b;
	int dir;
};

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rs = 88172645463325252ULL;

static double unif(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return ((rs >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* rate: messages per simulated second; tighten: every bound better than the last */
static void gen(struct obs *o, double rate, int tighten)
{
	uint64_t t = 1000000000000ULL;
	int64_t off = 3LL * 86400 * 1000000000LL;

	for (unsigned i = 0; i < N; i++) {
		t += (uint64_t)(-log(unif()) * 1e9 / rate) + 1;
		int64_t th = off + (int64_t)((t - 1000000000000ULL) * 50e-6);
		uint64_t d = tighten ? 8000 + (N - i) : 8000 + (uint64_t)(-30000 * log(unif()));

		o[i].dir = tighten ? (int)(i & 1) : unif() < 0.5;
		if (o[i].dir == 0) {
			o[i].a = t;
			o[i].b = (uint64_t)((int64_t)(t + d) + th);
		} else {
			o[i].a = t;
			o[i].b = (uint64_t)((int64_t)(t - d) + th);
		}
	}
}

static double run_est(const struct obs *o)
{
	double best = 1e9;

	for (int r = 0; r < 5; r++) {
		struct clock_sync *cs = clock_sync_new();
		double t0 = cpu_s();

		for (unsigned i = 0; i < N; i++) {
			if (o[i].dir == 0)
				clock_sync_a_to_b(cs, o[i].a, o[i].b);
			else
				clock_sync_b_to_a(cs, o[i].b, o[i].a);
		}
		double dt = cpu_s() - t0;

		if (dt < best)
			best = dt;
		clock_sync_free(cs);
	}
	return N / best;
}

static volatile int64_t sink;

static double run_minmax(const struct obs *o)
{
	double best = 1e9;

	for (int r = 0; r < 5; r++) {
		int64_t lo = INT64_MIN, hi = INT64_MAX;
		double t0 = cpu_s();

		for (unsigned i = 0; i < N; i++) {
			int64_t v = (int64_t)(o[i].b - o[i].a);

			if (o[i].dir == 0 && v < hi)
				hi = v;
			else if (o[i].dir == 1 && v > lo)
				lo = v;
		}
		double dt = cpu_s() - t0;

		sink = lo + hi;
		if (dt < best)
			best = dt;
	}
	return N / best;
}

static double run_map(const struct obs *o)
{
	struct clock_sync *cs = clock_sync_new();
	double best = 1e9;
	uint64_t acc = 0;

	for (unsigned i = 0; i < N / 4; i++)
		clock_sync_a_to_b(cs, o[i].a, o[i].a + 5);
	for (unsigned i = 0; i < N / 4; i++)
		if (o[i].dir)
			clock_sync_b_to_a(cs, o[i].b, o[i].a);
	for (int r = 0; r < 5; r++) {
		double t0 = cpu_s();

		for (unsigned i = 0; i < N; i++)
			acc += clock_sync_a_to_b_time(cs, o[i].a);
		double dt = cpu_s() - t0;

		if (dt < best)
			best = dt;
	}
	sink = (int64_t)acc;
	clock_sync_free(cs);
	return N / best;
}

int main(void)
{
	struct obs *o = malloc(sizeof(*o) * N);
	static const struct {
		const char *name;
		double rate;
		int tighten;
	} cases[] = {
		{ "two-way, 2k msg/s", 2000, 0 },
		{ "two-way, 1M msg/s", 1e6, 0 },
		{ "worst case: every bound tighter", 2000, 1 },
	};

	if (!o)
		return 1;
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		gen(o, cases[c].rate, cases[c].tighten);
		double est = run_est(o), mm = run_minmax(o);

		printf("%-34s clock_sync %6.2f M obs/s, bare min/max filter %7.1f M obs/s, ratio %.3f\n",
		       cases[c].name, est / 1e6, mm / 1e6, est / mm);
	}
	gen(o, 2000, 0);
	printf("%-34s %6.2f M answers/s\n", "a_to_b_time (cached fit)", run_map(o) / 1e6);
	free(o);
	return 0;
}
