/* A latency histogram (hist.h) as a Prometheus native histogram: sparse
 * exponential buckets of schema s, bucket i holding the values in
 * (2^((i-1)/2^s), 2^(i/2^s)] seconds, 0 in the zero bucket.
 *
 * The samples are not re-counted: each bucket of the log-linear histogram
 * goes, whole, into the native bucket holding the value every tool
 * reports for it (its upper bound, the max for the max's bucket; hist.h).
 * So Prometheus's histogram_quantile, which interpolates inside the
 * native bucket where the rank falls, lands in the native bucket holding
 * nfsrdma-top's percentile: the two differ by less than one native
 * bucket, 2^(1/2^s) - 1 of the value (2.2 % at HIST_NATIVE_SCHEMA 5),
 * and no record pays for a second histogram.  Finer schemas would add
 * nothing: the log-linear buckets are up to 3.1 % wide already. */
#ifndef NFSRDMA_HIST_NATIVE_H
#define NFSRDMA_HIST_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "src/stats/hist.h"

#define HIST_NATIVE_SCHEMA 5

struct hist_native {
	int schema;
	uint64_t count, zero_count;   /* count: every sample (hist.n) */
	double sum;                   /* seconds */
	size_t n;                     /* buckets with samples, ascending index */
	int32_t *idx;
	uint64_t *cnt;
};

/* The native bucket (schema -4..8) holding x seconds, x > 0. */
int32_t hist_native_index(int schema, double x);
/* out from h (ns samples); 0, -EINVAL (schema) or -ENOMEM.  Several
 * histograms of one resolution can be added first (hist_merge): the
 * native buckets of a sum are the sums of the native buckets, except
 * where the merged max moves a bucket's reported value. */
int hist_native_of(const struct hist *h, int schema, struct hist_native *out);
void hist_native_free(struct hist_native *nh);

#endif
