/* Where the collector's records meet: its own sources' and its peers'.
 * One call per record in; fused records (src/join/join.h) out through
 * emit, into the daemon's normal path (aggregation, JSON Lines).
 *
 * A join host is one clock: each (sending host, vantage) pair, the
 * collector's own sources under the empty host name.  A capture and a
 * kernel probe on one machine keep different clocks (wall and
 * monotonic), so they are different join hosts.  Each forwarded message
 * carries the sender's clocks at send; against this host's clocks at
 * receipt they are a hint for the pair's offset (the data override it). */
#ifndef NFSRDMA_COLL_JOIN_H
#define NFSRDMA_COLL_JOIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/record.h"
#include "src/daemon/fwd_msg.h"
#include "src/join/join.h"
#include "src/stats/verdict_sum.h"

struct coll_join;
typedef void (*coll_emit_fn)(const struct nfsrdma_record *r, void *ctx);

struct coll_join_stats {
	uint64_t local, remote;   /* records in, by origin */
	uint64_t emitted;         /* fused records out */
	uint64_t hosts_overflow;  /* records of a (host, vantage) past JOIN_MAX_HOSTS: not joined, counted */
	uint64_t clock_lines;     /* hosts' clock lines given to the join (per probe host) */
	uint64_t hints;           /* clock hints given to the join */
};

/* wait_ns: how long an RPC waits for its other vantages, on the records'
 * clocks (0: 5 s); hints: use the messages' clocks as offset hints (off
 * when the inputs are files, whose times are not the senders' clocks). */
struct coll_join *coll_join_new(coll_emit_fn emit, void *ctx, uint64_t wait_ns, bool hints);
/* Emits every RPC still waiting, then frees. */
void coll_join_free(struct coll_join *j);
/* A record of this daemon's own sources (m NULL) or a peer's (m: who sent
 * it and its clocks at send; recv_ns: this host's CLOCK_REALTIME at receipt). */
/* r NULL: m is a forwarder's CLOCK message (its line to that sender's hosts) */
void coll_join_add(struct coll_join *j, const struct nfsrdma_record *r, const struct fwd_meta *m, uint64_t recv_ns);
/* A clock line of sender ("": this daemon's own sources), for its probe
 * hosts, now and as they appear (docs/record.md, "Host clocks"). */
void coll_join_clock(struct coll_join *j, const char *sender, const char *line, size_t len);
/* Emits what waited long enough; returns how many went out in all so far. */
uint64_t coll_join_poll(struct coll_join *j, uint64_t now_ns);
/* End of the run: every waiting RPC out. */
void coll_join_flush(struct coll_join *j);
void coll_join_get_stats(const struct coll_join *j, struct coll_join_stats *s);
const struct join *coll_join_join(const struct coll_join *j);
/* Every fused record out so far: places and segments summed, the verdict */
const struct verdict_sum *coll_join_verdict(const struct coll_join *j);
/* Join host i: its sender's name ("local": this daemon) and vantage. */
void coll_join_host(const struct coll_join *j, unsigned i, const char **name, const char **vantage);

/* ,"join":{...} for the daemon's JSON stats; the Prometheus lines. */
struct jw;
void coll_join_report_json(const struct coll_join *j, struct jw *w);
void coll_join_report_metrics(const struct coll_join *j, FILE *f);

#endif
