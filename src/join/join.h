/* The join: records of one RPC from any subset of vantages (client probe,
 * wire, server probe) become one fused record (src/join/fuse.h).
 *
 * Records match by XID, then by connection identity where both sides know
 * it (the caller's and callee's addresses), then by time once the two
 * clocks are aligned (an XID seen again outside the match window is
 * another RPC).  Every matched pair of vantages feeds the clock estimate
 * of its host pair (src/join/clock_sync.h) with the causal pairs it
 * proves.  Memory is bounded: at most max_pending RPCs wait; one that
 * leaves the window (or is pushed out) before every expected vantage came
 * is emitted as a partial record and counted, never dropped.
 *
 * A host is a clock: the caller numbers them (0 .. JOIN_MAX_HOSTS - 1),
 * e.g. one per input file, one per forwarding daemon. */
#ifndef NFSRDMA_JOIN_H
#define NFSRDMA_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/record.h"
#include "src/join/clock_sync.h"

#define JOIN_MAX_HOSTS 64

struct join_opts {
	unsigned expect;        /* REC_VT_* a complete RPC has; 0: all three */
	uint64_t window_ns;     /* an RPC waits at most this long (the newest time
	                         * its first host has shown since); 0: no time limit */
	uint64_t match_ns;      /* two records of one XID are one RPC only if their
	                         * aligned times are this close; 0: 10 s */
	size_t   max_pending;   /* RPCs waiting at once; 0: 65536 */
	bool     hold_complete; /* offline: keep complete RPCs until they leave
	                         * the window or join_flush, so their alignment
	                         * uses the most data */
};

/* fused: source REC_SRC_JOINED, vantages, vt_*, f_* (docs/record.md) */
typedef void (*join_emit_fn)(const struct nfsrdma_record *fused, void *ctx);

struct join_stats {
	uint64_t in[3];             /* records added, per vantage (client, wire, server) */
	uint64_t rejected;          /* records with no single vantage, or a host out of range */
	uint64_t emitted;           /* fused records out (every RPC exactly once) */
	uint64_t complete;          /* ... with every expected vantage */
	uint64_t partial;           /* ... missing one or more (evicted or flushed) */
	uint64_t evicted;           /* partial ones pushed out by the window or max_pending */
	uint64_t by_vantages[8];    /* emitted, by vantage set */
	uint64_t missing[3];        /* partial records without this vantage */
	uint64_t retransmits;       /* wire calls merged into an RPC already on the wire */
	uint64_t dup_xids;          /* an XID a vantage had twice within the match window */
	uint64_t negative;          /* fused records with a negative phase (flagged) */
	uint64_t negative_by[4];    /* ... by reason: the client's, the wire's, the server's own
	                             * times out of order; two vantages' (RECFF_NEG_*) */
	uint64_t unaligned;         /* fused records with a vantage no clock could align */
	uint64_t stopped_after[3];  /* partial records without this vantage after its last one */
	uint64_t pending, pending_max;
	uint64_t step_joins;        /* joined across a clock step past the match window (join.c) */
};

struct join;
struct join *join_new(const struct join_opts *o, join_emit_fn emit, void *ctx);
/* r: one vantage's record (rec_vantages(r) one bit); host: its clock.
 * 0, or -EINVAL (counted in rejected). */
int join_add(struct join *j, const struct nfsrdma_record *r, unsigned host);
/* Emits every waiting RPC (end of input). */
void join_flush(struct join *j);
void join_free(struct join *j);
const struct join_stats *join_stats(const struct join *j);

/* The clock estimate of host b against host a (offset = b - a) at time
 * at_a of a; 0 or -ENODATA (no pair of their records seen). */
int join_clock(const struct join *j, unsigned host_a, unsigned host_b, uint64_t at_a,
	       struct clock_est *out);
/* A {"type":"clock"} line of host's (docs/record.md, "Host clocks"): its
 * disciplined clock's claim, used for its pairs once checked (clock_claim.h).
 * 0; 1: not a clock line; -EINVAL (err says why), -ENOMEM, -ENOSPC. */
int join_clock_line(struct join *j, unsigned host, const char *line, size_t len, char *err, size_t errlen);
/* The same from the causal bounds alone (the host clocks never asked) */
int join_clock_causal(const struct join *j, unsigned host_a, unsigned host_b, uint64_t at_a, struct clock_est *out);
/* A prior of host b against host a (offset = b - a, e.g. from their wall
 * clocks): clock_sync_hint on their pair; the data override it. */
int join_clock_hint(struct join *j, unsigned host_a, unsigned host_b, int64_t offset_ns,
		    uint64_t uncertainty_ns);
/* Calls fn for every host pair with data, a < b. */
void join_clock_each(const struct join *j,
		     void (*fn)(unsigned host_a, unsigned host_b, const struct clock_est *e, void *ctx),
		     void *ctx);

/* The run's report: counters and one clock estimate per host pair; host
 * names by index (NULL: "host N").  Text on f (stderr), or one JSON
 * object {"type":"join",...}. */
void join_report(const struct join *j, FILE *f, const char *const *host_names);
void join_report_json(const struct join *j, FILE *f, const char *const *host_names);
/* The hosts' clock claims only: the elements of the JSON clock_claims array */
struct jw;
void join_report_claims_json(const struct join *j, struct jw *w);

#endif
