/* Growable arrays: the one doubling rule of every array that grows by
 * appending (records, frames, connections, rows), so its overflow checks
 * are written once.  In dissect/ (libc alone) so every layer has it. */
#ifndef NFSRDMA_GROW_H
#define NFSRDMA_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* p (capacity *cap elements of elem bytes) reallocated to hold at least
 * need, the capacity doubling from *cap (from min when 0) and at most
 * max; the new block with *cap updated, or NULL with p and *cap
 * untouched (out of memory, or the capacity or its bytes overflow). */
void *grow_array(void *p, size_t *cap, size_t need, size_t elem, size_t min, size_t max);

/* The largest capacity an integer lvalue of cap's type holds (INT_MAX's
 * kind for a signed one: its -1 is no maximum). */
#define GROW_TYPE_MAX(cap) \
	((__typeof__(cap))-1 > 0 ? (size_t)(__typeof__(cap))-1 : (size_t)((1ull << (8 * sizeof(cap) - 1)) - 1))

/* p (a pointer lvalue) and cap (its capacity, any integer lvalue) grown
 * so that p holds at least need elements, the capacity at most max (a
 * doubling past it stops at it): 0, or -ENOMEM with both as they were.
 * cap and need are evaluated more than once. */
#define ARR_RESERVE_MAX(p, cap, need, min, max) __extension__({                             \
	int grow_r_ = 0;                                                                       \
	if ((size_t)(need) > (size_t)(cap)) {                                                  \
		size_t grow_c_ = (size_t)(cap), grow_m_ = (size_t)(max);                       \
		if (grow_m_ > GROW_TYPE_MAX(cap))                                              \
			grow_m_ = GROW_TYPE_MAX(cap);                                          \
		void *grow_q_ = grow_array((p), &grow_c_, (size_t)(need), sizeof(*(p)), (min), \
					   grow_m_);                                           \
		if (grow_q_) {                                                                 \
			(p) = grow_q_;                                                         \
			(cap) = (__typeof__(cap))grow_c_;                                      \
		} else {                                                                       \
			grow_r_ = -ENOMEM;                                                     \
		}                                                                              \
	}                                                                                      \
	grow_r_;                                                                               \
})
/* the same, bounded by cap's type alone */
#define ARR_RESERVE(p, cap, need, min) ARR_RESERVE_MAX(p, cap, need, min, SIZE_MAX)

#endif
