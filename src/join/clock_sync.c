/* Clock offset and drift between two hosts from causal bounds: see
 * clock_sync.h for the method, docs/clocks.md for the guarantees. */
#include "clock_sync.h"
#include "src/join/clock_num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NB            CLOCK_SYNC_BUCKETS
#define MAX_SLOPE     (CLOCK_SYNC_MAX_PPM * 1e-6)
#define TOL_FLOOR_NS  20000.0   /* below this a contradiction is noise, not a step */
#define STEP_PERSIST  4         /* contradicting bounds before a step is believed */
#define HOLD_MAX      64        /* bounds kept while a step is suspected */
#define REFIT_NS      (1ULL << (CLOCK_SYNC_BUCKET_SHIFT - 4))  /* ~134 ms of data between refits once warm */
#define WARMUP        64        /* refit on every change before this many */
#define RECENT        4         /* buckets a one-sided guess looks back */
#define WINDOW_NS     ((uint64_t)NB << CLOCK_SYNC_BUCKET_SHIFT)
#define SEARCH_ITERS  72        /* golden-section / bisection steps: 2^-72 of 1000 ppm */

struct bound {
	uint64_t t;
	int64_t v;
};

/* The two tightest bounds of each direction.  The second is the one used
 * once there are two: a single false bound (a call paired with the wrong
 * reply) can then never narrow the interval, at the price of the gap
 * between the best and the second best message of ~2 s of traffic. */
struct side {
	uint8_t n;
	struct bound b[2];
};

struct bucket {
	uint64_t idx;
	bool used;
	struct side up, lo;
};

/* The estimate as a box: offset within mid +- hw at t0, drift within
 * beta +- beta_hw; values relative to base so doubles keep nanoseconds. */
struct fit {
	bool valid, bounded, hint_used;
	uint64_t t0;
	int64_t base;
	double mid, hw, beta, beta_hw;
	double dmid, dhw;        /* the data alone, before the hint */
	double relax;
	uint64_t samples;
};

struct held {
	uint64_t t;
	int64_t v;
	bool upper;
	bool contra;             /* contradicted the fit (else consistent, and folded too) */
};

struct clock_sync {
	struct bucket b[NB];
	bool any;
	uint64_t newest_idx, newest_t;
	uint64_t used_since_step;
	struct fit fit, prev;
	bool has_step;
	uint64_t step_t;
	bool step_back;          /* the new data lie before prev's: prev answers from prev_lo on */
	bool a_stepped;          /* A's clock moved, not B's: B's time tells the fits apart */
	uint64_t prev_lo;        /* the start of the window prev was fitted on */
	uint64_t prev_hi;        /* the newest time of A before the step */
	bool dirty;

	bool suspect, suspect_upper;
	uint32_t contra, consist;
	struct held hold[HOLD_MAX];
	uint32_t hold_n, hold_head;

	bool jump;               /* a bound past the window, waiting for a second */
	bool jump_upper;
	uint64_t jump_t;
	int64_t jump_v;

	bool has_hint;
	int64_t hint;
	uint64_t hint_unc;

	struct clock_sync_stats st;
};

struct pt {
	double s, v;
};

struct clock_sync *clock_sync_new(void)
{
	return calloc(1, sizeof(struct clock_sync));
}

void clock_sync_free(struct clock_sync *cs)
{
	free(cs);
}

static void refit(struct clock_sync *cs);

void clock_sync_hint(struct clock_sync *cs, int64_t offset_ns, uint64_t uncertainty_ns)
{
	cs->has_hint = true;
	cs->hint = offset_ns;
	cs->hint_unc = uncertainty_ns;
	cs->dirty = true;
	if (cs->any)
		refit(cs);
}

/* ---- the fit ----------------------------------------------------------- */

static const struct bound *in_use(const struct side *sd)
{
	return &sd->b[sd->n > 1];
}

/* Is (t, v) tighter than b?  Compared along the current drift, so that a
 * bucket keeps the bound closest to the line, not the earliest upper bound
 * and the latest lower one that a drift favours. */
static bool tighter(bool upper, double beta, uint64_t t, int64_t v, const struct bound *b)
{
	double dv = diff_i64(v, b->v) - beta * diff_u64(t, b->t);

	return upper ? dv < 0 : dv > 0;
}

/* keep the two tightest; true when the one in use changed */
static bool side_add(struct side *sd, bool upper, double beta, uint64_t t, int64_t v)
{
	struct bound nb = { t, v };

	if (sd->n == 0) {
		sd->b[0] = nb;
		sd->n = 1;
		return true;
	}
	bool tighter0 = tighter(upper, beta, t, v, &sd->b[0]);

	if (sd->n == 1) {
		sd->b[1] = nb;
		if (tighter0) {
			sd->b[1] = sd->b[0];
			sd->b[0] = nb;
		}
		sd->n = 2;
		return true;
	}
	if (tighter0) {
		sd->b[1] = sd->b[0];
		sd->b[0] = nb;
		return true;
	}
	if (tighter(upper, beta, t, v, &sd->b[1])) {
		sd->b[1] = nb;
		return true;
	}
	return false;
}

static bool in_window(const struct clock_sync *cs, const struct bucket *bk)
{
	return bk->used && bk->idx + NB > cs->newest_idx && bk->idx <= cs->newest_idx;
}

static void collect(const struct clock_sync *cs, uint64_t t0, int64_t base,
		    struct pt *up, int *nup, struct pt *lo, int *nlo)
{
	*nup = *nlo = 0;
	for (int i = 0; i < NB; i++) {
		const struct bucket *bk = &cs->b[i];

		if (!in_window(cs, bk))
			continue;
		if (bk->up.n)
			up[(*nup)++] = (struct pt){ diff_u64(in_use(&bk->up)->t, t0), diff_i64(in_use(&bk->up)->v, base) };
		if (bk->lo.n)
			lo[(*nlo)++] = (struct pt){ diff_u64(in_use(&bk->lo)->t, t0), diff_i64(in_use(&bk->lo)->v, base) };
	}
}

/* U(beta): the highest offset at t0 that a line of that slope may have
 * without crossing an upper bound; L(beta) the lowest above every lower. */
static double eval_U(const struct pt *p, int n, double beta)
{
	double m = INFINITY;

	for (int i = 0; i < n; i++) {
		double x = p[i].v - beta * p[i].s;

		if (x < m)
			m = x;
	}
	return m;
}

static double eval_L(const struct pt *p, int n, double beta)
{
	double m = -INFINITY;

	for (int i = 0; i < n; i++) {
		double x = p[i].v - beta * p[i].s;

		if (x > m)
			m = x;
	}
	return m;
}

struct lp {
	const struct pt *up, *lo;
	int nup, nlo;
};

enum lp_fn { LP_GAP, LP_U, LP_NEG_L };

static double lp_eval(const struct lp *lp, enum lp_fn fn, double beta)
{
	switch (fn) {
	case LP_U:
		return eval_U(lp->up, lp->nup, beta);
	case LP_NEG_L:
		return -eval_L(lp->lo, lp->nlo, beta);
	default:
		return eval_U(lp->up, lp->nup, beta) - eval_L(lp->lo, lp->nlo, beta);
	}
}

/* argmax of a concave function on [a, b] by golden section */
static double golden_max(const struct lp *lp, enum lp_fn fn, double a, double b)
{
	const double r = 0.6180339887498949;
	double c = b - r * (b - a), d = a + r * (b - a);
	double fc = lp_eval(lp, fn, c), fd = lp_eval(lp, fn, d);

	for (int i = 0; i < SEARCH_ITERS; i++) {
		if (fc >= fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - r * (b - a);
			fc = lp_eval(lp, fn, c);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + r * (b - a);
			fd = lp_eval(lp, fn, d);
		}
	}
	return fc >= fd ? c : d;
}

/* the end of the feasible slopes between in (gap >= 0) and out (gap < 0) */
static double feasible_edge(const struct lp *lp, double in, double out)
{
	for (int i = 0; i < SEARCH_ITERS; i++) {
		double m = 0.5 * (in + out);

		if (lp_eval(lp, LP_GAP, m) >= 0)
			in = m;
		else
			out = m;
	}
	return in;
}

static void fit_two_sided(struct fit *f, const struct lp *lp)
{
	double bg = golden_max(lp, LP_GAP, -MAX_SLOPE, MAX_SLOPE);
	double gap = lp_eval(lp, LP_GAP, bg);

	if (gap < 0) {
		/* no line satisfies every bound: take the one that breaks them least */
		double u = eval_U(lp->up, lp->nup, bg), l = eval_L(lp->lo, lp->nlo, bg);

		f->mid = 0.5 * (u + l);
		f->hw = 0.5 * (l - u);
		f->relax = l - u;
		f->beta = bg;
		f->beta_hw = 0;
		return;
	}
	double blo = lp_eval(lp, LP_GAP, -MAX_SLOPE) >= 0 ? -MAX_SLOPE : feasible_edge(lp, bg, -MAX_SLOPE);
	double bhi = lp_eval(lp, LP_GAP, MAX_SLOPE) >= 0 ? MAX_SLOPE : feasible_edge(lp, bg, MAX_SLOPE);
	double hi = lp_eval(lp, LP_U, golden_max(lp, LP_U, blo, bhi));
	double lo = -lp_eval(lp, LP_NEG_L, golden_max(lp, LP_NEG_L, blo, bhi));

	f->mid = 0.5 * (hi + lo);
	f->hw = 0.5 * (hi - lo);
	f->relax = 0;
	f->beta = 0.5 * (blo + bhi);
	/* the searches stop a hair inside the true edges */
	f->beta_hw = 0.5 * (bhi - blo) + 1e-12;
}

/* one direction only: the tightest bound of the last few buckets */
static void fit_one_sided(struct fit *f, const struct clock_sync *cs, bool upper, int64_t base)
{
	double best = upper ? INFINITY : -INFINITY, any = best;

	for (int i = 0; i < NB; i++) {
		const struct bucket *bk = &cs->b[i];

		const struct side *sd = upper ? &bk->up : &bk->lo;

		if (!in_window(cs, bk) || !sd->n)
			continue;
		double v = diff_i64(in_use(sd)->v, base);
		bool recent = bk->idx + RECENT > cs->newest_idx;

		if (upper ? v < any : v > any)
			any = v;
		if (recent && (upper ? v < best : v > best))
			best = v;
	}
	if (isinf(best))
		best = any;
	f->mid = best;
	f->hw = (double)CLOCK_SYNC_ONE_SIDED_NS;
	f->beta = f->beta_hw = f->relax = 0;
}

/* Intersect with the hint; when they do not meet, the data win. */
static void apply_hint(struct clock_sync *cs, struct fit *f, int side)
{
	double h = diff_i64(cs->hint, f->base), hu = (double)cs->hint_unc;
	double hlo = h - hu, hhi = h + hu;
	double lo = f->mid - f->hw, hi = f->mid + f->hw;

	if (side > 0) {          /* one-sided: mid is the bound itself */
		lo = -INFINITY;
		hi = f->mid;
	} else if (side < 0) {
		lo = f->mid;
		hi = INFINITY;
	}
	if (hlo > hi || hhi < lo) {
		if (!cs->st.hint_overridden)
			cs->st.hint_overrides++;
		cs->st.hint_overridden = true;
		return;
	}
	cs->st.hint_overridden = false;
	lo = fmax(lo, hlo);
	hi = fmin(hi, hhi);
	f->mid = 0.5 * (lo + hi);
	f->hw = 0.5 * (hi - lo);
	f->hint_used = true;
}

static void refit(struct clock_sync *cs)
{
	struct pt up[NB], lo[NB];
	struct fit f = { 0 };
	int nup, nlo, side;

	cs->dirty = false;
	f.t0 = cs->newest_t;
	f.samples = cs->used_since_step;
	f.base = 0;
	for (int i = 0; i < NB; i++)
		if (in_window(cs, &cs->b[i])) {
			f.base = in_use(cs->b[i].up.n ? &cs->b[i].up : &cs->b[i].lo)->v;
			break;
		}
	collect(cs, f.t0, f.base, up, &nup, lo, &nlo);
	if (nup == 0 && nlo == 0) {
		cs->fit = (struct fit){ 0 };
		return;
	}
	f.valid = true;
	if (nup && nlo) {
		struct lp lp = { up, lo, nup, nlo };

		f.bounded = true;
		side = 0;
		fit_two_sided(&f, &lp);
	} else {
		side = nup ? 1 : -1;
		fit_one_sided(&f, cs, nup > 0, f.base);
	}
	f.dmid = f.mid;
	f.dhw = f.hw;
	cs->st.relax_ns = ceil_u64(f.relax);
	if (cs->has_hint)
		apply_hint(cs, &f, side);
	cs->fit = f;
}

/* ---- observations ------------------------------------------------------ */

static void fold(struct clock_sync *cs, bool upper, uint64_t t, int64_t v)
{
	uint64_t idx = t >> CLOCK_SYNC_BUCKET_SHIFT;
	bool moved = false;

	if (!cs->any) {
		cs->any = true;
		cs->newest_idx = idx;
		cs->newest_t = t;
	}
	if (idx + NB <= cs->newest_idx) {
		cs->st.late++;
		return;
	}
	if (idx > cs->newest_idx) {
		cs->newest_idx = idx;
		moved = cs->dirty = true;
	}
	if (t > cs->newest_t)
		cs->newest_t = t;

	struct bucket *bk = &cs->b[idx % NB];

	if (!bk->used || bk->idx != idx)
		*bk = (struct bucket){ .idx = idx, .used = true };
	if (side_add(upper ? &bk->up : &bk->lo, upper, cs->fit.bounded ? cs->fit.beta : 0, t, v))
		cs->dirty = true;
	cs->st.used++;
	cs->used_since_step++;
	/* a stale fit is still true (it used a subset of the bounds), only wider */
	if (cs->dirty && (moved || !cs->fit.valid || cs->used_since_step < WARMUP ||
			  cs->newest_t - cs->fit.t0 >= REFIT_NS))
		refit(cs);
}

static void hold_push(struct clock_sync *cs, bool upper, uint64_t t, int64_t v, bool contra)
{
	cs->hold[(cs->hold_head + cs->hold_n) % HOLD_MAX] = (struct held){ t, v, upper, contra };
	if (cs->hold_n < HOLD_MAX)
		cs->hold_n++;
	else
		cs->hold_head = (cs->hold_head + 1) % HOLD_MAX;
}

/* Whether the clock that moved is A's: A's times jumped by about minus
 * the offset's jump (B's clock stepping leaves A's times where they were).
 * Only for steps of 100 ms or more; below, which clock moved does not
 * change which fit a time gets. */
static bool a_moved(const struct clock_sync *cs, const struct held *first)
{
	const struct fit *f = &cs->fit;
	double dv = diff_i64(first->v, f->base) - (f->dmid + f->beta * diff_u64(first->t, f->t0));
	double gap = diff_u64(first->t, cs->newest_t);

	return fabs(dv) >= 1e8 && fabs(gap + dv) < fabs(dv) / 2;
}

/* Where A's times change from the old fit to the new (not after a step
 * back): between the newest time before the step and the first bound
 * after it, the middle.  An RPC in flight across a jump of A's clock is
 * seen after it before its first bound is. */
static uint64_t step_edge(const struct clock_sync *cs)
{
	return cs->step_t > cs->prev_hi ? cs->prev_hi + (cs->step_t - cs->prev_hi) / 2 : cs->step_t;
}

/* The earliest time the window's buckets can hold. */
static uint64_t window_start(const struct clock_sync *cs)
{
	uint64_t lo = cs->newest_idx;

	for (int i = 0; i < NB; i++)
		if (in_window(cs, &cs->b[i]) && cs->b[i].idx < lo)
			lo = cs->b[i].idx;
	return lo << CLOCK_SYNC_BUCKET_SHIFT;
}

/* The clock stepped at (about) the first contradicting bound: start over
 * from it.  The bounds held as consistent meanwhile are replayed only when
 * they lie on the new side of the step (loose bounds of the new regime);
 * the others are old data arriving late, and would pin the new window to
 * the old times. */
static void restart(struct clock_sync *cs)
{
	struct held h[HOLD_MAX];
	uint32_t n = cs->hold_n;

	for (uint32_t i = 0; i < n; i++)
		h[i] = cs->hold[(cs->hold_head + i) % HOLD_MAX];
	cs->prev = cs->fit;
	cs->prev_lo = window_start(cs);
	cs->prev_hi = cs->newest_t;
	cs->has_step = true;
	cs->step_t = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (h[i].contra && h[i].t < cs->step_t)
			cs->step_t = h[i].t;
	/* A's clock stepped back before everything the old fit saw: the old
	 * times are not "before the step", they are above the new data */
	cs->step_back = cs->step_t < cs->prev_lo;
	for (uint32_t i = 0; i < n; i++)
		if (h[i].contra) {
			cs->a_stepped = cs->step_back || a_moved(cs, &h[i]);
			break;
		}
	cs->st.steps++;
	memset(cs->b, 0, sizeof(cs->b));
	cs->any = false;
	cs->used_since_step = 0;
	cs->fit = (struct fit){ 0 };
	/* the consistent held bounds were counted when first folded */
	uint64_t used = cs->st.used + cs->contra;

	cs->suspect = false;
	cs->contra = cs->consist = cs->hold_n = cs->hold_head = 0;
	for (uint32_t i = 0; i < n; i++)
		if (h[i].contra || (cs->step_back ? h[i].t < cs->prev_lo : h[i].t >= cs->step_t))
			fold(cs, h[i].upper, h[i].t, h[i].v);
	cs->st.used = used;
	if (cs->dirty)
		refit(cs);
}

/* how far a bound lies outside the estimate's interval at its time (> 0: contradicts) */
static double contradiction(const struct fit *f, bool upper, uint64_t t, int64_t v)
{
	double s = diff_u64(t, f->t0), x = diff_i64(v, f->base);
	double c = f->dmid + f->beta * s, w = f->dhw + f->beta_hw * fabs(s);

	/* the data's interval, not the hint's: a wrong hint must not fake a step */
	return upper ? (c - w) - x : x - (c + w);
}

/* Whether a bound lies outside what fit f allows at its time at any drift
 * (MAX_SLOPE either way from the data's interval). */
static bool beyond_any_drift(const struct fit *f, bool upper, uint64_t t, int64_t v)
{
	double s = diff_u64(t, f->t0), x = diff_i64(v, f->base);
	double w = f->dhw + MAX_SLOPE * fabs(s) + TOL_FLOOR_NS;

	return upper ? x < f->dmid - w : x > f->dmid + w;
}

/* A second bound confirmed the jump past the window: nothing in the window
 * survives it, so the fit from before keeps answering for the times before
 * the jump, as after a step (a host whose clock jumped forward, or traffic
 * after a silence: the times before are the old fit's either way, and an
 * extrapolation of the new one back over the gap is what made RPCs just
 * before a forward step negative).  It is counted as a step when either
 * bound is out of the old fit's reach at any drift.  The first bound,
 * held back until now, is used. */
static void resume_after_jump(struct clock_sync *cs, bool upper, uint64_t t, int64_t v)
{
	if (cs->fit.valid) {
		if (cs->fit.bounded && (beyond_any_drift(&cs->fit, cs->jump_upper, cs->jump_t, cs->jump_v) ||
					beyond_any_drift(&cs->fit, upper, t, v)))
			cs->st.steps++;
		cs->prev = cs->fit;
		cs->prev_lo = window_start(cs);
		cs->prev_hi = cs->newest_t;
		cs->has_step = true;
		cs->step_back = false;
		cs->a_stepped = true;
		cs->step_t = cs->jump_t < t ? cs->jump_t : t;
		memset(cs->b, 0, sizeof(cs->b));
		cs->any = false;
		cs->used_since_step = 0;
		cs->fit = (struct fit){ 0 };
		cs->suspect = false;
		cs->contra = cs->consist = cs->hold_n = cs->hold_head = 0;
	}
	cs->st.ahead--;
	fold(cs, cs->jump_upper, cs->jump_t, cs->jump_v);
}

static void observe(struct clock_sync *cs, bool upper, uint64_t t, int64_t v)
{
	cs->st.observed++;
	if (cs->has_step && (cs->step_back ? t >= cs->prev_lo && cs->newest_t < cs->prev_lo : t < step_edge(cs))) {
		cs->st.late++;         /* from before the step: it would poison the new fit */
		return;
	}
	if (cs->any && t > cs->newest_t && t - cs->newest_t > WINDOW_NS) {
		uint64_t gap = t > cs->jump_t ? t - cs->jump_t : cs->jump_t - t;

		if (!cs->jump || gap > WINDOW_NS) {
			cs->jump = true;
			cs->jump_upper = upper;
			cs->jump_t = t;
			cs->jump_v = v;
			cs->st.ahead++;
			return;
		}
		cs->jump = false;      /* confirmed: not a broken stamp */
		resume_after_jump(cs, upper, t, v);
	}
	if (cs->fit.valid && cs->fit.bounded) {
		const struct fit *f = &cs->fit;
		double c = contradiction(f, upper, t, v);

		if (c > (f->dhw > TOL_FLOOR_NS ? f->dhw : TOL_FLOOR_NS)) {   /* fmax without the call (NaN: the floor) */
			if (!cs->suspect) {
				cs->suspect = true;
				cs->suspect_upper = upper;
				cs->contra = cs->consist = 0;
				cs->hold_n = cs->hold_head = 0;
			}
			cs->contra++;
			hold_push(cs, upper, t, v, true);
			if (cs->contra >= STEP_PERSIST && cs->contra >= cs->consist)
				restart(cs);
			return;
		}
		if (cs->suspect) {
			hold_push(cs, upper, t, v, false);
			if (upper == cs->suspect_upper && ++cs->consist >= 2 * cs->contra + 2) {
				cs->st.outliers += cs->contra;
				cs->suspect = false;
				cs->contra = cs->consist = cs->hold_n = cs->hold_head = 0;
			}
		}
	}
	fold(cs, upper, t, v);
}

void clock_sync_a_to_b(struct clock_sync *cs, uint64_t a_ns, uint64_t b_ns)
{
	observe(cs, true, a_ns, (int64_t)(b_ns - a_ns));
}

void clock_sync_b_to_a(struct clock_sync *cs, uint64_t b_ns, uint64_t a_ns)
{
	observe(cs, false, a_ns, (int64_t)(b_ns - a_ns));
}

/* ---- answers ----------------------------------------------------------- */

/* The fit for a time: the one before the last step answers for the times
 * before it, or after a step back for the times above the new data until
 * the new data reach them (then a time is ambiguous and the newest wins). */
static const struct fit *fit_at(const struct clock_sync *cs, uint64_t at_a_ns)
{
	if (!cs->has_step || !cs->prev.valid)
		return &cs->fit;
	if (cs->step_back)
		return at_a_ns >= cs->prev_lo && cs->newest_t < cs->prev_lo ? &cs->prev : &cs->fit;
	return at_a_ns < step_edge(cs) ? &cs->prev : &cs->fit;
}

/* B - A at A's time by a valid fit: estimate_with's offset alone */
static inline int64_t fit_offset(const struct fit *f, uint64_t at_a_ns)
{
	return add_sat(f->base, f->mid + f->beta * diff_u64(at_a_ns, f->t0));
}

static int estimate_with(const struct clock_sync *cs, const struct fit *f, uint64_t at_a_ns,
			 struct clock_est *out)
{
	memset(out, 0, sizeof(*out));
	out->steps = cs->st.steps;
	out->unsettled = cs->suspect || cs->jump;
	if (!f->valid) {
		if (!cs->has_hint)
			return -ENODATA;
		out->offset_ns = cs->hint;
		out->uncertainty_ns = cs->hint_unc;
		return 0;
	}
	double s = diff_u64(at_a_ns, f->t0);

	out->offset_ns = fit_offset(f, at_a_ns);
	out->drift_ppm = f->beta * 1e6;
	/* +1: the rounding of the offset to whole nanoseconds */
	out->uncertainty_ns = ceil_u64(f->hw + f->beta_hw * fabs(s) + 1.0);
	out->samples = f->samples;
	out->bounded = f->bounded;
	return 0;
}

int clock_sync_estimate(const struct clock_sync *cs, uint64_t at_a_ns, struct clock_est *out)
{
	return estimate_with(cs, fit_at(cs, at_a_ns), at_a_ns, out);
}

/* A's time of B's time at_b by fit f: from f's own reference time, so that
 * clocks days apart do not extrapolate the drift over the days; each
 * refinement shrinks the error by the drift (< 1000 ppm). */
static uint64_t a_time_by(const struct clock_sync *cs, const struct fit *f, uint64_t at_b_ns)
{
	if (!f->valid)   /* the hint's offset, or none: no time of A to refine */
		return cs->has_hint ? at_b_ns - (uint64_t)cs->hint : at_b_ns;
	uint64_t a = f->t0;

	for (int k = 0; k < 3; k++)
		a = at_b_ns - (uint64_t)fit_offset(f, a);
	return a;
}

int clock_sync_estimate_at_b(const struct clock_sync *cs, uint64_t at_b_ns, struct clock_est *out)
{
	const struct fit *f = &cs->fit;

	if (cs->has_step && cs->prev.valid) {
		if (cs->a_stepped) {
			/* B's clock ran on: B's time at the step decides */
			struct clock_est e;
			estimate_with(cs, &cs->prev, cs->prev_hi, &e);
			if (at_b_ns <= cs->prev_hi + (uint64_t)e.offset_ns)
				f = &cs->prev;
		} else if (a_time_by(cs, &cs->fit, at_b_ns) < step_edge(cs) &&
			   a_time_by(cs, &cs->prev, at_b_ns) < step_edge(cs)) {
			f = &cs->prev;   /* B stepped: A's time decides, the new fit when both could */
		}
	}
	return estimate_with(cs, f, a_time_by(cs, f, at_b_ns), out);
}

uint64_t clock_sync_a_to_b_time(const struct clock_sync *cs, uint64_t a_ns)
{
	struct clock_est e;

	if (clock_sync_estimate(cs, a_ns, &e) < 0)
		return a_ns;
	return a_ns + (uint64_t)e.offset_ns;
}

void clock_sync_stats(const struct clock_sync *cs, struct clock_sync_stats *out)
{
	*out = cs->st;
	out->suspect = cs->suspect;
}

int clock_sync_check(const struct clock_sync *cs)
{
	const struct fit *f = &cs->fit;
	struct pt up[NB], lo[NB];
	int nup, nlo;

	if (!f->valid)
		return 0;
	if (!(f->hw >= 0) || !(f->beta_hw >= 0) || !(f->dhw >= 0) || fabs(f->beta) > MAX_SLOPE * 1.000001)
		return -EPROTO;
	/* the hint only narrows what the data allow */
	if (f->bounded && (f->mid - f->hw < f->dmid - f->dhw - 1e-6 * (1 + fabs(f->dmid)) ||
	    f->mid + f->hw > f->dmid + f->dhw + 1e-6 * (1 + fabs(f->dmid))))
		return -EPROTO;
	if (cs->dirty || !f->bounded)
		return 0;        /* bounds changed since the fit, or nothing to reach */
	collect(cs, f->t0, f->base, up, &nup, lo, &nlo);
	for (int i = 0; i < nup + nlo; i++) {
		bool upper = i < nup;
		const struct pt *p = upper ? &up[i] : &lo[i - nup];
		double c = f->dmid + f->beta * p->s, w = f->dhw + f->beta_hw * fabs(p->s);
		double eps = 1e-6 * (1 + fabs(p->v) + fabs(c) + w);

		if (upper ? c - w > p->v + eps : c + w < p->v - eps)
			return -EPROTO;
	}
	return 0;
}
