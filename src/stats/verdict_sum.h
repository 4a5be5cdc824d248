/* A group's verdict: where the time of its joined RPCs went, summed over
 * them (docs/record.md "Segments and the verdict").  Each joined record
 * divides its fused total among places (rec.f_place: one place, or the
 * places the data cannot tell apart); a group sums those shares per
 * place-set, and its verdict is the set holding the largest sum, with
 * its share of the group's time.  Beside it, the clock-free segments
 * (rec.f_seg): their sums and how many RPCs had each.
 *
 * Fixed size, no allocation: it sits in every row of -z, nfsrdma-top's
 * fused split and the collector's metrics series.  At most VSUM_SETS
 * distinct place-sets per group; a share whose set finds no room is
 * counted in overflow (its ns too), and a group whose overflow could
 * outweigh its largest set has no verdict rather than a wrong one. */
#ifndef NFSRDMA_VERDICT_SUM_H
#define NFSRDMA_VERDICT_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"

#define VSUM_SETS 12

struct verdict_sum {
	uint64_t n;                        /* joined records with places */
	uint64_t ns;                       /* their shares summed (their fused totals) */
	uint64_t overflow, overflow_ns;    /* shares whose place-set found no room, and their time */
	uint64_t seg_sum[REC_SEG_N];       /* enum rec_segment: summed over the RPCs that had it */
	uint64_t seg_n[REC_SEG_N];         /* RPCs that had it */
	uint64_t set_ns[VSUM_SETS];
	uint16_t set[VSUM_SETS];           /* bits of enum rec_place */
	uint8_t nset;
};

/* A group's verdict: the place-set with the largest summed share */
struct verdict_of {
	uint16_t places;   /* bits of enum rec_place; several: unresolved between them */
	uint16_t pm;       /* its share of the group's time, per mille */
	uint64_t ns;       /* its summed time */
};

/* A record; only joined ones with places count. */
void verdict_sum_add(struct verdict_sum *v, const struct nfsrdma_record *r);
/* One place-set's time (ns) in n records: what a reader of a summed
 * line (the control protocol's FV) rebuilds a group from. */
void verdict_sum_add_set(struct verdict_sum *v, uint16_t places, uint64_t ns);
/* a += b (a group's rows into one) */
void verdict_sum_merge(struct verdict_sum *a, const struct verdict_sum *b);
/* false: no verdict (no time, or an overflow that could outweigh the
 * largest set) */
bool verdict_sum_get(const struct verdict_sum *v, struct verdict_of *out);
/* The mean of segment sg over the RPCs that had it; false: none had it */
bool verdict_sum_seg_mean(const struct verdict_sum *v, unsigned sg, uint64_t *mean_ns);

/* "server_net", "client_net|server_net": the places' names joined by sep */
const char *verdict_places_str(uint16_t places, char sep, char *buf, size_t len);
/* For people: "server-side network 83%", "unresolved between server
 * queue and server execute 70%" (rec_place_words) */
const char *verdict_words(uint16_t places, unsigned pm, char *buf, size_t len);

#endif
