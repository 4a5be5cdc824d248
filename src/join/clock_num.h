/* The clock estimator's arithmetic on nanosecond times (clock_sync.c):
 * differences without overflow, offsets added with saturation and exact
 * rounding, bounds rounded up: what the fits compute in doubles comes back
 * to integers the same way on every path. */
#ifndef NFSRDMA_CLOCK_NUM_H
#define NFSRDMA_CLOCK_NUM_H

#include <math.h>
#include <stdint.h>

/* x - y without signed overflow */
static inline double diff_i64(int64_t x, int64_t y)
{
	int64_t d;

	if (!__builtin_sub_overflow(x, y, &d))
		return (double)d;
	return (double)x - (double)y;
}

static inline double diff_u64(uint64_t x, uint64_t y)
{
	return x >= y ? (double)(x - y) : -(double)(y - x);
}

/* llround for |d| < 9e15, inline: the join asks for an offset several
 * times per record, and the libm call was a tenth of the estimate's cost.
 * Exact there: d - trunc(d) is exact below 2^52, and above it every
 * double is a whole number. */
static inline int64_t round_half_away(double d)
{
	int64_t i = (int64_t)d;
	double frac = d - (double)i;

	return i + (frac >= 0.5) - (frac <= -0.5);
}

static inline int64_t add_sat(int64_t base, double d)
{
	double r = (double)base + d;

	if (fabs(d) < 9.0e15) {
		int64_t di = round_half_away(d), out;

		if (!__builtin_add_overflow(base, di, &out))
			return out;
	}
	if (r >= 9.2233720368547748e18)
		return INT64_MAX;
	if (r <= -9.2233720368547748e18)
		return INT64_MIN;
	return (int64_t)r;
}

static inline uint64_t ceil_u64(double x)
{
	if (!(x > 0))            /* also NaN */
		return x == 0 ? 0 : (x < 0 ? 0 : UINT64_MAX);
	if (x >= 1.8446744073709552e19)
		return UINT64_MAX;
	return (uint64_t)ceil(x);
}

#endif
