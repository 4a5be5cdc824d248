/* The load generator's and the replay's latency histogram (loadgen_hist.c). */
#ifndef NFSRDMA_REPLAY_LOADGEN_HIST_H
#define NFSRDMA_REPLAY_LOADGEN_HIST_H

#include <stdint.h>

/* ---- latency histogram (loadgen_hist.c) ---- */
/* HDR-style log-linear histogram: 64 linear sub-buckets per power of two
 * of nanoseconds (relative error < 1.6 %), 1 ns .. ~2^40 ns. */
#define HIST_SUB 64
#define HIST_POW 41
struct lhist {
	uint64_t n, min, max, sum;
	uint64_t b[HIST_POW][HIST_SUB];
};
void lhist_add(struct lhist *h, uint64_t ns);
uint64_t lhist_pct(const struct lhist *h, double pct);
void lhist_merge(struct lhist *dst, const struct lhist *src);

#endif
