/* Clock alignment (src/join/clock_sync.c) on synthetic two-host traffic
 * whose truth the test knows: offset, drift, delays, steps, outliers and
 * hints are set here, and every answer is compared with that truth, never
 * with another output of the estimator. */
#include <errno.h>
#include <math.h>

#include "check.h"
#include "src/join/clock_sync.h"

#define MS 1000000ULL
#define US 1000ULL
#define SEC 1000000000ULL
#define DAY (86400ULL * SEC)
/* half the sum of base_scen's minimum delays (8 and 11 us), plus the loss
 * of using each bucket's second-best bound and the newest bucket's youth */
#define NEAR_MIN_DELAYS (9500 + 4500)

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

static double unif(struct rng *r)   /* (0, 1] */
{
	return ((rnd(r) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* The truth: B's clock minus A's at A time t; A's clock is the time base. */
struct truth {
	uint64_t a0;           /* A's clock at the start (since its boot) */
	int64_t off0;          /* B - A at a0 */
	double ppm, ppm_per_s; /* drift, and its change per second */
	uint64_t step_at;      /* 0: none */
	int64_t step;
};

static int64_t theta(const struct truth *T, uint64_t t)
{
	double s = (double)(t - T->a0) / 1e9;
	int64_t v = T->off0 + (int64_t)floor((T->ppm * s + 0.5 * T->ppm_per_s * s * s) * 1e3);

	if (T->step_at && t >= T->step_at)
		v += T->step;
	return v;
}

static double drift_at(const struct truth *T, uint64_t t)
{
	return T->ppm + T->ppm_per_s * (double)(t - T->a0) / 1e9;
}

/* One direction's delays: a floor, exponential above it, a heavy tail. */
struct delays {
	uint64_t min_ns;
	double mean_ns, heavy;
};

static uint64_t delay(struct rng *r, const struct delays *d)
{
	double x;

	if (unif(r) < d->heavy)
		x = d->mean_ns * pow(unif(r), -1.0 / 1.5);      /* Pareto, alpha 1.5 */
	else
		x = -d->mean_ns * log(unif(r));
	if (x > 50e6)
		x = 50e6;
	return d->min_ns + (uint64_t)x;
}

struct scen {
	struct truth T;
	struct delays ab, ba;
	double p_ab;           /* share of A->B messages; 1 or 0: one direction */
	double rate;           /* messages per second */
	uint64_t secs;
	uint64_t outlier_at;   /* 0: none; else one mismatched pair there */
	bool outlier_upper;
	uint64_t outlier_ns;   /* how far on the wrong side of the truth */
	bool hint;
	int64_t hint_off;
	uint64_t hint_unc;
	uint64_t quant_ns;     /* timestamps truncated to this resolution (pcap: 1 us) */
};

struct result {
	unsigned checkpoints, inside, bounded_points;
	uint64_t first_unc, last_unc; /* when first bounded; at the end */
	double last_drift, true_drift;
	uint64_t worst_miss;   /* largest |estimate - truth| - uncertainty seen */
	uint64_t miss_at;
	struct clock_est last;
	struct clock_sync_stats st;
	int check_rc;
	unsigned check_bad;
	bool pre_step_inside;
};

static uint64_t quant(const struct scen *sc, uint64_t t)
{
	return sc->quant_ns ? t - t % sc->quant_ns : t;
}

static void run(const struct scen *sc, uint64_t seed, struct result *res)
{
	struct clock_sync *cs = clock_sync_new();
	struct rng r = { seed * 0x9e3779b97f4a7c15ULL + 1 };
	uint64_t t = sc->T.a0, end = sc->T.a0 + sc->secs * SEC, next_cp = sc->T.a0 + SEC;
	bool outlier_done = false;

	memset(res, 0, sizeof(*res));
	if (sc->hint)
		clock_sync_hint(cs, sc->hint_off, sc->hint_unc);
	while (t < end) {
		t += (uint64_t)(-log(unif(&r)) * 1e9 / sc->rate) + 1;
		if (sc->outlier_at && !outlier_done && t >= sc->outlier_at) {
			/* a mismatched pair: the other end's time of another message */
			outlier_done = true;
			if (sc->outlier_upper)
				clock_sync_a_to_b(cs, t, (uint64_t)((int64_t)t + theta(&sc->T, t)) - sc->outlier_ns);
			else
				clock_sync_b_to_a(cs, (uint64_t)((int64_t)t + theta(&sc->T, t)) + sc->outlier_ns, t);
			continue;
		}
		if (unif(&r) < sc->p_ab) {
			uint64_t d = delay(&r, &sc->ab);
			uint64_t b = (uint64_t)((int64_t)(t + d) + theta(&sc->T, t + d));

			clock_sync_a_to_b(cs, quant(sc, t), quant(sc, b));
		} else {
			uint64_t d = delay(&r, &sc->ba);
			uint64_t b = (uint64_t)((int64_t)(t - d) + theta(&sc->T, t - d));

			clock_sync_b_to_a(cs, quant(sc, b), quant(sc, t));
		}
		if (clock_sync_check(cs) != 0)
			res->check_bad++;
		if (!res->first_unc) {
			struct clock_est e0;

			if (clock_sync_estimate(cs, t, &e0) == 0 && e0.bounded)
				res->first_unc = e0.uncertainty_ns;
		}
		if (t < next_cp)
			continue;
		next_cp += SEC;

		struct clock_est e;

		if (clock_sync_estimate(cs, t, &e) != 0)
			continue;
		int64_t truth = theta(&sc->T, t);
		uint64_t err = e.offset_ns > truth ? (uint64_t)(e.offset_ns - truth) : (uint64_t)(truth - e.offset_ns);

		res->checkpoints++;
		/* a stamp truncated to q ns moves a bound by less than q */
		if (err <= e.uncertainty_ns + sc->quant_ns) {
			res->inside++;
		} else if (err - e.uncertainty_ns > res->worst_miss) {
			res->worst_miss = err - e.uncertainty_ns;
			res->miss_at = (t - sc->T.a0) / MS;
		}
		if (e.bounded)
			res->bounded_points++;
		res->last_unc = e.uncertainty_ns;
		res->last = e;
	}
	res->last_drift = res->last.drift_ppm;
	res->true_drift = drift_at(&sc->T, t);
	if (sc->T.step_at) {
		/* the fit from before the step still answers for that time */
		struct clock_est e;
		uint64_t q = sc->T.step_at - 5 * SEC;
		int64_t truth = theta(&sc->T, q);

		res->pre_step_inside = clock_sync_estimate(cs, q, &e) == 0 &&
				       (uint64_t)llabs(e.offset_ns - truth) <= e.uncertainty_ns;
	}
	clock_sync_stats(cs, &res->st);
	res->check_rc = clock_sync_check(cs);
	clock_sync_free(cs);
}

static struct scen base_scen(void)
{
	return (struct scen){
		.T = { .a0 = 1000 * SEC, .off0 = (int64_t)(3 * DAY + 1234567), .ppm = 50 },
		.ab = { 8 * US, 30e3, 0.02 },
		.ba = { 11 * US, 30e3, 0.02 },
		.p_ab = 0.5, .rate = 200, .secs = 300,
	};
}

#define CHECK_INSIDE(res, name)                                                          \
	CHECK((res).checkpoints > 0 && (res).inside == (res).checkpoints,                \
	      "%s: truth inside at %u of %u checkpoints (worst miss %" PRIu64 " ns at %" PRIu64 " ms)", \
	      name, (res).inside, (res).checkpoints, (res).worst_miss, (res).miss_at)

static void test_drift(double ppm, int64_t off)
{
	struct scen sc = base_scen();
	struct result res;

	sc.T.ppm = ppm;
	sc.T.off0 = off;
	run(&sc, 1, &res);
	CHECK_INSIDE(res, "drift");
	CHECK(res.bounded_points == res.checkpoints, "both directions: every checkpoint bounded (%u of %u)",
	      res.bounded_points, res.checkpoints);
	CHECK(fabs(res.last_drift - ppm) < 1.0, "drift %.3f ppm, truth %.3f", res.last_drift, ppm);
	/* near the minimum delays: half their sum (8 + 11 us) plus a little */
	CHECK(res.last_unc <= NEAR_MIN_DELAYS, "final uncertainty %" PRIu64 " ns", res.last_unc);
	CHECK(res.first_unc > 2 * res.last_unc, "uncertainty shrinks: %" PRIu64 " -> %" PRIu64,
	      res.first_unc, res.last_unc);
	CHECK_EQ_U64(res.last.steps, 0);
	CHECK_EQ_U64(res.st.outliers, 0);
	CHECK(res.last.samples > 1000, "samples %" PRIu64, res.last.samples);
	CHECK(res.check_bad == 0 && res.check_rc == 0, "self-check failed %u times", res.check_bad);
}

static void test_one_direction(bool ab_only)
{
	struct scen sc = base_scen();
	struct result res;

	sc.p_ab = ab_only ? 1.0 : 0.0;
	run(&sc, 2, &res);
	CHECK_INSIDE(res, ab_only ? "A->B only" : "B->A only");
	CHECK(res.bounded_points == 0, "one direction: never bounded (%u)", res.bounded_points);
	CHECK_EQ_U64(res.last_unc, CLOCK_SYNC_ONE_SIDED_NS + 1);
	/* the guess is the tightest recent bound: on the right side of the truth,
	 * but for the drift over a few buckets (50 ppm x 8.6 s = 430 us) */
	int64_t truth = theta(&sc.T, sc.T.a0 + sc.secs * SEC);
	int64_t side = ab_only ? res.last.offset_ns - truth : truth - res.last.offset_ns;

	CHECK(side > -500000 && side < 1000000, "guess %" PRId64 " ns from the truth", side);
	CHECK_EQ_U64(res.last.steps, 0);
}

static void test_step(int64_t step)
{
	struct scen sc = base_scen();
	struct result res;

	sc.T.step_at = sc.T.a0 + 150 * SEC + 500 * MS;
	sc.T.step = step;
	run(&sc, 3, &res);
	CHECK_INSIDE(res, "step");
	CHECK_EQ_U64(res.st.steps, 1);
	CHECK_EQ_U64(res.last.steps, 1);
	CHECK(res.pre_step_inside, "a time before the step is answered by the pre-step fit");
	CHECK(fabs(res.last_drift - sc.T.ppm) < 1.0, "drift after the step %.3f ppm", res.last_drift);
	CHECK(res.last_unc <= NEAR_MIN_DELAYS, "uncertainty after the step %" PRIu64 " ns", res.last_unc);
	CHECK(res.last.samples < 200 * 150, "samples since the step only: %" PRIu64, res.last.samples);
	/* every observation is used once, or counted as late or an outlier */
	CHECK(res.st.used + res.st.late + res.st.outliers + res.st.ahead == res.st.observed,
	      "used %" PRIu64 " + late %" PRIu64 " + outliers %" PRIu64 " = observed %" PRIu64,
	      res.st.used, res.st.late, res.st.outliers, res.st.observed);
}

/* A wrong pair 3 ms off contradicts the estimate: held out, counted, no
 * step.  One 5 us off falls inside the interval, where nothing can see it:
 * it must not pull the truth out of the interval either. */
static void test_outlier(bool upper, uint64_t off_ns)
{
	struct scen sc = base_scen();
	struct result res;

	sc.outlier_at = sc.T.a0 + 100 * SEC + 300 * MS;
	sc.outlier_upper = upper;
	sc.outlier_ns = off_ns;
	run(&sc, 4, &res);
	CHECK_INSIDE(res, "outlier");
	CHECK_EQ_U64(res.st.steps, 0);
	CHECK_EQ_U64(res.st.outliers, off_ns > 1 * MS ? 1 : 0);
	CHECK_EQ_U64(res.st.used + res.st.outliers + res.st.late + res.st.ahead, res.st.observed);
	CHECK(res.last_unc <= NEAR_MIN_DELAYS, "uncertainty %" PRIu64 " ns", res.last_unc);
}

static void test_hints(void)
{
	struct scen sc = base_scen();
	struct result res;
	struct clock_sync *cs = clock_sync_new();
	struct clock_est e;

	/* nothing known */
	CHECK(clock_sync_estimate(cs, 5, &e) == -ENODATA, "no data, no hint: -ENODATA");
	CHECK_EQ_U64(clock_sync_a_to_b_time(cs, 12345), 12345);
	/* a hint alone is the answer, as a guess */
	clock_sync_hint(cs, 7 * (int64_t)MS, 2 * MS);
	CHECK(clock_sync_estimate(cs, 5, &e) == 0 && e.offset_ns == 7 * (int64_t)MS &&
	      e.uncertainty_ns == 2 * MS && !e.bounded && e.samples == 0, "hint alone");
	CHECK_EQ_U64(clock_sync_a_to_b_time(cs, 1000), 1000 + 7 * MS);
	clock_sync_free(cs);

	/* a wrong hint (10 ms off, claiming 1 ms): the data override it.  The
	 * drift carries the truth away from it: a hint is a constant interval,
	 * and one that a drift has made wrong but that still overlaps the data
	 * cannot be told from a right one. */
	sc.hint = true;
	sc.hint_off = sc.T.off0 - 10 * (int64_t)MS;
	sc.hint_unc = 1 * MS;
	run(&sc, 5, &res);
	CHECK_INSIDE(res, "wrong hint");
	CHECK(res.st.hint_overridden, "the data override the wrong hint");
	CHECK(res.st.hint_overrides >= 1, "overrides counted: %" PRIu64, res.st.hint_overrides);
	CHECK_EQ_U64(res.st.steps, 0);

	/* a right hint closes the open side of one-direction traffic */
	sc = base_scen();
	sc.p_ab = 1.0;
	sc.T.ppm = 0;
	sc.hint = true;
	sc.hint_off = sc.T.off0 - 300 * (int64_t)US;
	sc.hint_unc = 1 * MS;
	run(&sc, 6, &res);
	CHECK_INSIDE(res, "right hint, one direction");
	CHECK(!res.last.bounded && res.last_unc <= 1 * MS, "hint + upper bounds: %" PRIu64 " ns", res.last_unc);
	CHECK(!res.st.hint_overridden && res.st.hint_overrides == 0, "a right hint is kept");

	/* a right, loose hint beside two-way data: the data's interval stands */
	sc = base_scen();
	sc.T.ppm = 0;
	sc.hint = true;
	sc.hint_off = sc.T.off0 + 2 * (int64_t)MS;
	sc.hint_unc = 5 * MS;
	run(&sc, 7, &res);
	CHECK_INSIDE(res, "loose hint");
	CHECK(res.last_unc <= NEAR_MIN_DELAYS && !res.st.hint_overridden, "loose hint: %" PRIu64 " ns", res.last_unc);
}

/* A drift that itself changes (+-3 ppm over the run): the window follows it. */
static void test_changing_drift(void)
{
	struct scen sc = base_scen();
	struct result res;

	sc.T.ppm = 20;
	sc.T.ppm_per_s = -6.0 / 600;
	sc.secs = 600;
	run(&sc, 8, &res);
	CHECK_INSIDE(res, "changing drift");
	CHECK(fabs(res.last_drift - res.true_drift) < 1.0, "drift %.3f ppm, truth now %.3f",
	      res.last_drift, res.true_drift);
	CHECK_EQ_U64(res.st.steps, 0);
}

/* Timestamps of a pcap (1 us): the truth is within the stated uncertainty
 * plus the resolution, and truncation is no step. */
static void test_resolution(void)
{
	struct scen sc = base_scen();
	struct result res;

	sc.quant_ns = 1000;
	run(&sc, 9, &res);
	CHECK_INSIDE(res, "1 us timestamps");
	CHECK(fabs(res.last_drift - sc.T.ppm) < 1.0, "drift %.3f ppm", res.last_drift);
	CHECK(res.st.steps == 0 && res.st.outliers == 0, "no step, no outlier from truncation");
	CHECK(res.last_unc <= NEAR_MIN_DELAYS, "uncertainty %" PRIu64 " ns", res.last_unc);
}

/* Random clocks, delays and traffic mixes over many seeds. */
static void test_property(unsigned seeds)
{
	unsigned bad_inside = 0, bad_drift = 0, bad_steps = 0, bad_unc = 0, bad_self = 0;

	for (unsigned i = 1; i <= seeds; i++) {
		struct rng r = { i * 7919ULL + 17 };
		struct scen sc = { 0 };
		struct result res;

		sc.T.a0 = (uint64_t)(unif(&r) * 30 * DAY);
		sc.T.off0 = (int64_t)((unif(&r) * 2 - 1) * 5 * DAY);
		sc.T.ppm = (unif(&r) * 2 - 1) * 100;
		sc.ab = (struct delays){ 1 * US + (uint64_t)(unif(&r) * 50e3), 5e3 + unif(&r) * 195e3, unif(&r) * 0.05 };
		sc.ba = (struct delays){ 1 * US + (uint64_t)(unif(&r) * 50e3), 5e3 + unif(&r) * 195e3, unif(&r) * 0.05 };
		sc.p_ab = 0.2 + unif(&r) * 0.6;
		sc.rate = 100 + unif(&r) * 300;
		sc.secs = 100;
		run(&sc, i, &res);
		double near = (double)(sc.ab.min_ns + sc.ba.min_ns) / 2 + 0.1 * (sc.ab.mean_ns + sc.ba.mean_ns) / 2 + 5000;

		if (res.checkpoints < sc.secs - 2 || res.inside != res.checkpoints) {
			if (bad_inside++ < 3)
				fprintf(stderr, "seed %u: inside %u of %u, worst miss %" PRIu64 " ns at %" PRIu64 " ms\n",
					i, res.inside, res.checkpoints, res.worst_miss, res.miss_at);
		}
		if (fabs(res.last_drift - sc.T.ppm) >= 1.0 && bad_drift++ < 3)
			fprintf(stderr, "seed %u: drift %.3f, truth %.3f\n", i, res.last_drift, sc.T.ppm);
		if (res.st.steps != 0 || res.st.outliers != 0)
			bad_steps++;
		if ((double)res.last_unc > near && bad_unc++ < 3)
			fprintf(stderr, "seed %u: uncertainty %" PRIu64 " > %.0f\n", i, res.last_unc, near);
		if (res.check_bad || res.check_rc)
			bad_self++;
	}
	CHECK(bad_inside == 0, "%u of %u seeds had the truth outside", bad_inside, seeds);
	CHECK(bad_drift == 0, "%u of %u seeds missed the drift by 1 ppm or more", bad_drift, seeds);
	CHECK(bad_steps == 0, "%u of %u seeds saw a step or an outlier that was not there", bad_steps, seeds);
	CHECK(bad_unc == 0, "%u of %u seeds ended far above the minimum delays", bad_unc, seeds);
	CHECK(bad_self == 0, "%u of %u seeds failed the self-check", bad_self, seeds);
}

/* Observations far outside the window, and hostile values, must not break it. */
static void test_edges(void)
{
	struct clock_sync *cs = clock_sync_new();
	struct clock_sync_stats st;
	struct clock_est e;

	clock_sync_a_to_b(cs, 100 * SEC, 100 * SEC + 5 * MS);
	clock_sync_b_to_a(cs, 100 * SEC + 4 * MS, 100 * SEC + 1 * MS);
	CHECK(clock_sync_estimate(cs, 100 * SEC, &e) == 0 && e.bounded, "two bounds: bounded");
	/* truth is within [3 ms, 5 ms]: the interval says so, nothing more */
	CHECK(e.offset_ns - (int64_t)e.uncertainty_ns <= 3 * (int64_t)MS + 1 &&
	      e.offset_ns + (int64_t)e.uncertainty_ns >= 5 * (int64_t)MS - 1 &&
	      e.uncertainty_ns <= 1 * MS + 2 * US, "[%" PRId64 " +- %" PRIu64 "]", e.offset_ns, e.uncertainty_ns);
	/* one bound far ahead: a broken stamp, dropped; the window stays */
	clock_sync_a_to_b(cs, 900 * SEC, 900 * SEC + 5 * MS);
	clock_sync_a_to_b(cs, 101 * SEC, 101 * SEC + 5 * MS);
	clock_sync_stats(cs, &st);
	CHECK_EQ_U64(st.ahead, 1);
	CHECK_EQ_U64(st.used, 3);
	/* two close together: traffic after a silence, the window moves on
	 * and both are used; then the old times are late */
	clock_sync_a_to_b(cs, 1000 * SEC, 1000 * SEC + 5 * MS);
	clock_sync_a_to_b(cs, 1001 * SEC, 1001 * SEC + 5 * MS);
	clock_sync_a_to_b(cs, 1 * SEC, 1 * SEC + 5 * MS);
	clock_sync_stats(cs, &st);
	CHECK_EQ_U64(st.ahead, 1);
	CHECK_EQ_U64(st.used, 5);
	CHECK_EQ_U64(st.late, 1);
	CHECK_EQ_U64(st.observed, 7);
	clock_sync_b_to_a(cs, UINT64_MAX, 0);
	clock_sync_a_to_b(cs, UINT64_MAX, 0);
	CHECK(clock_sync_estimate(cs, UINT64_MAX, &e) == 0, "still answers");
	CHECK(clock_sync_check(cs) == 0, "self-check after hostile values");
	clock_sync_free(cs);
}

/* Two-way traffic at offset off (B - A) with 100-300 us one-way delays,
 * every 50 ms of A's time in [from, to). */
static void two_way(struct clock_sync *cs, uint64_t from, uint64_t to, int64_t off)
{
	for (uint64_t t = from; t < to; t += 50 * MS) {
		uint64_t d = 100 * US + (t / MS % 7) * 30 * US;
		clock_sync_a_to_b(cs, t, t + (uint64_t)off + d);
		clock_sync_b_to_a(cs, t + (uint64_t)off + 10 * MS, t + 10 * MS + d);
	}
}

/* A's clock jumps forward past the window (or the traffic stops for longer
 * than it): the times before keep the fit from before, the times after get
 * the new one; only a jump that moved the offset counts as a step. */
static void test_jump(bool step)
{
	struct clock_sync *cs = clock_sync_new();
	struct clock_sync_stats st;
	struct clock_est e;
	int64_t off = 5 * (int64_t)MS, gap = 1800 * (int64_t)SEC;
	int64_t off2 = step ? off - gap : off;     /* A's clock 30 min ahead: B - A smaller */

	two_way(cs, 100 * SEC, 130 * SEC, off);
	two_way(cs, 130 * SEC + (uint64_t)gap, 160 * SEC + (uint64_t)gap, off2);
	clock_sync_stats(cs, &st);
	CHECK_EQ_U64(st.steps, step ? 1 : 0);
	CHECK_EQ_U64(st.used + st.late + st.outliers + st.ahead, st.observed);
	CHECK(clock_sync_estimate(cs, 129 * SEC, &e) == 0 && e.bounded, "before the jump: an answer");
	CHECK(llabs(e.offset_ns - off) <= (int64_t)e.uncertainty_ns && e.uncertainty_ns < 1 * MS,
	      "%s: before the jump %" PRId64 " +- %" PRIu64 ", truth %" PRId64, step ? "step" : "silence",
	      e.offset_ns, e.uncertainty_ns, off);
	CHECK(clock_sync_estimate(cs, 131 * SEC + (uint64_t)gap, &e) == 0 && e.bounded, "after the jump: an answer");
	CHECK(llabs(e.offset_ns - off2) <= (int64_t)e.uncertainty_ns && e.uncertainty_ns < 1 * MS,
	      "%s: after the jump %" PRId64 " +- %" PRIu64 ", truth %" PRId64, step ? "step" : "silence",
	      e.offset_ns, e.uncertainty_ns, off2);
	CHECK(clock_sync_check(cs) == 0, "self-check after the jump");
	clock_sync_free(cs);
}

/* A's clock stepped back 30 min, before everything the fit had seen: its
 * old times still get the old fit (until new data reach them), the new
 * ones the new fit, and bounds of the old times arriving after the step
 * are late, not a second step. */
static void test_step_back(void)
{
	struct clock_sync *cs = clock_sync_new();
	struct clock_sync_stats st;
	struct clock_est e;
	int64_t off = 5 * (int64_t)MS, back = 1800 * (int64_t)SEC;
	uint64_t t1 = 3000 * SEC;

	two_way(cs, t1, t1 + 29 * SEC, off);
	/* the first bounds after the step interleaved with the last before */
	for (uint64_t k = 0; k < 20; k++) {
		two_way(cs, t1 + 30 * SEC - (uint64_t)back + k * 50 * MS, t1 + 30 * SEC - (uint64_t)back + (k + 1) * 50 * MS,
			off + back);
		two_way(cs, t1 + 29 * SEC + k * 50 * MS, t1 + 29 * SEC + (k + 1) * 50 * MS, off);
	}
	two_way(cs, t1 + 31 * SEC - (uint64_t)back, t1 + 60 * SEC - (uint64_t)back, off + back);
	two_way(cs, t1 + 30 * SEC, t1 + 31 * SEC, off);      /* stragglers from before */
	clock_sync_stats(cs, &st);
	CHECK_EQ_U64(st.steps, 1);
	CHECK(st.late >= 40, "the stragglers are late: %" PRIu64, st.late);
	CHECK_EQ_U64(st.used + st.late + st.outliers + st.ahead, st.observed);
	CHECK(clock_sync_estimate(cs, t1 + 20 * SEC, &e) == 0 && llabs(e.offset_ns - off) <= (int64_t)e.uncertainty_ns &&
	      e.uncertainty_ns < 1 * MS, "before the step back: %" PRId64 " +- %" PRIu64, e.offset_ns, e.uncertainty_ns);
	CHECK(clock_sync_estimate(cs, t1 + 50 * SEC - (uint64_t)back, &e) == 0 &&
	      llabs(e.offset_ns - (off + back)) <= (int64_t)e.uncertainty_ns && e.uncertainty_ns < 1 * MS,
	      "after the step back: %" PRId64 " +- %" PRIu64, e.offset_ns, e.uncertainty_ns);
	CHECK(clock_sync_check(cs) == 0, "self-check after the step back");
	clock_sync_free(cs);
}

/* The bounds held while a step is suspected, taken into the new window:
 * the contradicting ones and the consistent ones from the step's time on,
 * the step's own time included.  A and B agree (delays 50 us each way)
 * for 20 s; then B's clock is 10 ms ahead.  At the first A time t0 after
 * it, B's message (a lower bound of 10 ms - 50 us) contradicts the old fit
 * and then A's (an upper bound of 10 ms + 50 us) does not: held at the
 * step's very time.  Three more contradicting lower bounds make the step;
 * A sends nothing more, so that upper bound is the new window's only one:
 * with it the estimate is an interval (bounded), 10 ms +- 50 us. */
static void test_step_held_at_its_time(void)
{
	struct clock_sync *cs = clock_sync_new();
	struct clock_est e;

	for (uint64_t t = SEC; t <= 21 * SEC; t += 100 * MS) {
		clock_sync_a_to_b(cs, t, t + 50 * US);
		clock_sync_b_to_a(cs, t - 50 * US, t);
	}
	CHECK(clock_sync_estimate(cs, 21 * SEC, &e) == 0 && e.bounded && llabs(e.offset_ns) <= (int64_t)(50 * US),
	      "agreeing clocks: offset %" PRId64 " ns", e.offset_ns);
	const uint64_t step = 10 * MS, t0 = 21 * SEC + 100 * MS;
	for (uint64_t k = 0; k < 4; k++) {
		uint64_t t = t0 + k * 100 * MS;
		clock_sync_b_to_a(cs, t - 50 * US + step, t);
		if (k == 0)
			clock_sync_a_to_b(cs, t, t + 50 * US + step);
	}
	struct clock_sync_stats st;
	clock_sync_stats(cs, &st);
	CHECK_EQ_U64(st.steps, 1);
	CHECK(clock_sync_estimate(cs, t0 + 300 * MS, &e) == 0, "an estimate after the step");
	CHECK(e.bounded, "after the step, both directions: the upper bound held at the step's time is used");
	CHECK(e.offset_ns >= (int64_t)(step - 50 * US) && e.offset_ns <= (int64_t)(step + 50 * US),
	      "after the step: offset %" PRId64 " ns within 10 ms +- 50 us", e.offset_ns);
	clock_sync_free(cs);
}

int main(void)
{
	test_step_back();
	test_jump(true);
	test_jump(false);
	test_drift(50, (int64_t)(3 * DAY + 1234567));
	test_drift(-50, -(int64_t)(3 * DAY + 1234567));
	test_drift(0, 42);
	test_one_direction(true);
	test_one_direction(false);
	test_step(5 * (int64_t)MS);
	test_step(-250 * (int64_t)MS);
	test_step_held_at_its_time();
	test_outlier(true, 3 * MS);
	test_outlier(false, 3 * MS);
	test_outlier(true, 5 * US);
	test_outlier(false, 5 * US);
	test_hints();
	test_changing_drift();
	test_edges();
	test_resolution();
	test_property(200);
	return check_summary("clock_sync");
}
