/* The load generator's and the replay's latency histogram (loadgen_hist.c). */
#ifndef NFSRDMA_REPLAY_LOADGEN_HIST_H
#define NFSRDMA_REPLAY_LOADGEN_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/stats/hist.h"

/* A fixed-size holder of the project's one histogram (src/stats/hist.h) at
 * HIST_RES, so the replay and the load generator bucket and report
 * percentiles exactly as nfsrdma-dissect -z, nfsrdma-top and nfsrdmad do;
 * fixed-size because it lives inside per-operation arrays. */
struct lhist {
	uint64_t n, min, max, sum;
	uint64_t b[HIST_NBUCKETS(HIST_RES)];
};
void lhist_add(struct lhist *h, uint64_t ns);
uint64_t lhist_pct(const struct lhist *h, double pct);
void lhist_merge(struct lhist *dst, const struct lhist *src);
/* "key":{"calls":N,"p50_ns":..,"p99_ns":..,"max_ns":..} (calls when
 * with_calls), integer nanoseconds as every tool's JSON gives times. */
struct jw;
void lhist_jw(struct jw *j, const char *key, const struct lhist *h, bool with_calls);

#endif
