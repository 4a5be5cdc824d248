/* dissect/grow.h: the doubling rule, the type's maximum and the failures
 * that leave the array as it was.  The expected capacities are the rule
 * worked by hand (16, 32, 64...; a uint8_t capacity stops at 255). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "dissect/grow.h"

int main(void)
{
	uint32_t *v = NULL;
	unsigned cap = 0;

	/* the first growth: min, then doubling until need fits */
	CHECK(ARR_RESERVE(v, cap, 1, 16) == 0, "first reserve");
	CHECK(v != NULL, "allocated");
	CHECK_EQ_U64(cap, 16);
	for (unsigned i = 0; i < 16; i++)
		v[i] = i;
	CHECK(ARR_RESERVE(v, cap, 16, 16) == 0, "need within cap");
	CHECK_EQ_U64(cap, 16);
	CHECK(ARR_RESERVE(v, cap, 17, 16) == 0, "one more");
	CHECK_EQ_U64(cap, 32);
	CHECK(ARR_RESERVE(v, cap, 100, 16) == 0, "far more");
	CHECK_EQ_U64(cap, 128);
	CHECK_EQ_U64(v[15], 15);   /* the contents moved with the block */
	free(v);

	/* a capacity of a narrow type stops at its largest value */
	uint16_t *w = NULL;
	uint8_t c8 = 0;
	CHECK(ARR_RESERVE(w, c8, 200, 128) == 0, "uint8_t capacity");
	CHECK_EQ_U64(c8, 255);
	uint16_t *keep = w;
	size_t past = 256;   /* a variable: a constant 256 is beyond uint8_t at compile time */
	CHECK(ARR_RESERVE(w, c8, past, 128) == -ENOMEM, "past uint8_t");
	CHECK(w == keep, "the array untouched on failure");
	CHECK_EQ_U64(c8, 255);
	free(w);

	/* a signed capacity: INT_MAX-like, never its -1 */
	CHECK_EQ_U64(GROW_TYPE_MAX((int8_t)0), 127);
	CHECK_EQ_U64(GROW_TYPE_MAX((int)0), 2147483647);
	CHECK_EQ_U64(GROW_TYPE_MAX((size_t)0), SIZE_MAX);

	/* the bytes would overflow size_t: refused before realloc */
	size_t sc = 0;
	uint64_t *big = NULL;
	CHECK(ARR_RESERVE(big, sc, SIZE_MAX / 4, 1) == -ENOMEM, "bytes overflow");
	CHECK(big == NULL, "nothing allocated");
	CHECK_EQ_U64(sc, 0);
	/* the doubling itself would overflow */
	size_t c2 = 0;
	CHECK(grow_array(NULL, &c2, SIZE_MAX, 1, 3, SIZE_MAX) == NULL, "doubling overflow");
	CHECK_EQ_U64(c2, 0);
	/* a bound of the caller's: the doubling stops at it, past it fails */
	int *b = NULL;
	size_t bc = 0;
	CHECK(ARR_RESERVE_MAX(b, bc, 1, 64, 100) == 0, "under the bound");
	CHECK_EQ_U64(bc, 64);
	CHECK(ARR_RESERVE_MAX(b, bc, 65, 64, 100) == 0, "doubling clamped");
	CHECK_EQ_U64(bc, 100);
	int *bk = b;
	CHECK(ARR_RESERVE_MAX(b, bc, 101, 64, 100) == -ENOMEM, "past the bound");
	CHECK(b == bk, "the array untouched past the bound");
	CHECK_EQ_U64(bc, 100);
	free(b);
	return check_summary("grow");
}
