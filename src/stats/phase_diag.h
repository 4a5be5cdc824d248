/* Diagnosis of one operation: which phase holds most of the mean and
 * which most of the tail ("WRITE p99 11.2 ms: server_queue 71 %").  The
 * one computation behind nfsrdma-dissect -z and nfsrdma-top.
 *
 * Totals go into the shared histogram (src/stats/hist.h, HIST_RES); beside
 * each of its buckets the phase times of the RPCs that landed there are
 * summed, so memory stays bounded (one chunk of 2^res buckets per power of
 * two touched, like the histogram's own counts).
 *
 * The mean split: each phase's sum over the sum of totals.
 * The p99 split: the RPCs "at or above the p99" are those whose total is
 * in the bucket holding the nearest-rank p99 sample (rank ceil(0.99 n))
 * or in a higher bucket; their phase sums over their summed total (the
 * split of their mean).  The p99 value is hist_pct(0.99).  A percentage is
 * the dominant phase's share, rounded to the nearest integer. */
#ifndef NFSRDMA_PHASE_DIAG_H
#define NFSRDMA_PHASE_DIAG_H

#include <stdint.h>

#include "src/stats/hist.h"

#define DIAG_PH_MAX 16

struct phase_diag {
	/* first what every RPC reads: the daemon adds one to several of
	 * these per record, scattered, so each touches the fewest lines */
	unsigned nph, res;               /* res: tot's */
	/* NULL: the totals are counted in tot.  Else a histogram its owner
	 * fills with the same totals (the daemon's operation row, whose
	 * latency histogram takes each of them anyway): tot stays empty
	 * until phase_diag_unshare copies it in. */
	const struct hist *shared;
	/* per bucket of tot, a row of nph phase sums and then the sum of
	 * the totals (one line for an RPC, not two); NULL: all 0 */
	uint64_t *bsum[HIST_MAX_EXP];
	uint64_t sum_phase[DIAG_PH_MAX];
	uint64_t lost;                   /* RPCs no chunk could be allocated for (tail split only) */
	struct hist tot;
};

struct phase_diag_result {
	uint64_t n;               /* RPCs */
	uint64_t mean_ns, p99_ns;
	uint64_t tail_n;          /* RPCs the p99 split averages */
	unsigned mean_phase, p99_phase;
	unsigned mean_pct, p99_pct;
};

/* nph phases (1..DIAG_PH_MAX); 0 or -EINVAL/-ENOMEM.  diag_free is safe on
 * a zeroed struct. */
int phase_diag_init(struct phase_diag *d, unsigned nph);
void phase_diag_free(struct phase_diag *d);
/* One RPC: its total and its nph phase times (which partition it). */
void phase_diag_add(struct phase_diag *d, uint64_t total, const uint64_t *phase);
/* The same with phase p counted as 0 where bit p of mask is clear (a
 * record's phases as it has them, no vector built first). */
void phase_diag_add_masked(struct phase_diag *d, unsigned i, uint64_t total, const uint64_t *phase, unsigned mask);
/* Counts the totals in tot from now on, starting from a copy of the
 * shared histogram; 0 or -ENOMEM. */
int phase_diag_unshare(struct phase_diag *d);
/* 0, or -ENODATA when no RPC came. */
int phase_diag_get(const struct phase_diag *d, struct phase_diag_result *out);

/* Every phase's share, not only the dominant one's: the sums behind
 * phase_diag_get (which is argmax over them), so a split shown whole and
 * the diagnosis naming its largest part can never disagree. */
struct phase_diag_split {
	uint64_t n, sum;                  /* RPCs, summed totals */
	uint64_t p50_ns, p99_ns, max_ns;  /* hist_pct of the totals; max exact */
	uint64_t tail_n, tail_sum;        /* the RPCs at or above the p99, their summed totals */
	uint64_t phase[DIAG_PH_MAX];      /* each phase summed over all RPCs */
	uint64_t tail[DIAG_PH_MAX];       /* ... over the RPCs at or above the p99 */
};
/* 0, or -ENODATA when no RPC came. */
int phase_diag_split(const struct phase_diag *d, struct phase_diag_split *out);

#endif
