/* Host clocks that say they are disciplined (the {"type":"clock"} lines
 * nfsrdmad writes beside its records, docs/record.md "Host clocks"): what
 * each host claims, checked against the causal bounds the join proves,
 * and used for a pair of hosts in place of the causal estimate when both
 * claims are tighter than it and neither has been contradicted.
 * The join's insides: join.c and join_report.c only. */
#ifndef NFSRDMA_CLOCK_CLAIM_H
#define NFSRDMA_CLOCK_CLAIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/join/clock_sync.h"

struct claims;
struct claim_line {
	uint64_t mono_ns;   /* the host's CLOCK_MONOTONIC at the reading */
	int64_t  d_ns;      /* CLOCK_REALTIME - CLOCK_MONOTONIC then */
	uint64_t err_ns;    /* claimed: maxerror + the reading's spread */
	bool     synced;
};

/* 0: *out holds the line; 1: not a clock line; -EINVAL: a clock line
 * that does not parse (err says which key). Bounded: len bytes only. */
int claim_parse(const char *line, size_t len, struct claim_line *out, char *err, size_t errlen);

struct claims *claims_new(void);
void claims_free(struct claims *);
/* 0, -EINVAL (host out of range), -ENOSPC (the host's history is full) */
int claims_add(struct claims *, unsigned host, const struct claim_line *l);
/* A message left host hx at tx (its clock) and reached hy at ty. */
void claims_check(struct claims *, unsigned hx, uint64_t tx, unsigned hy, uint64_t ty);
/* out: the causal estimate of b - a at at_a (rc its clock_sync return);
 * replaced by the host clocks' when both claims hold and are tighter.
 * Returns the rc to give (0 once replaced). */
int claims_apply(struct claims *, unsigned a, unsigned b, uint64_t at_a, int rc, struct clock_est *out);
/* "join: host clock ..." lines */
void claims_report(struct claims *, FILE *f, const char *const *names);
/* the same as a JSON array's elements (no brackets) */
struct jw;
void claims_json(struct claims *, struct jw *j);

#endif
