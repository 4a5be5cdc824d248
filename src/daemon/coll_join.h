/* Where the collector's records meet: its own sources' and its peers'.
 * One call per record in, records out through emit.  Today a pass-through
 * that counts by origin; the join engine (src/join/) goes behind these
 * calls, so the daemon's loop does not change when it lands. */
#ifndef NFSRDMA_COLL_JOIN_H
#define NFSRDMA_COLL_JOIN_H

#include <stdint.h>

#include "dissect/record.h"
#include "src/daemon/fwd_msg.h"

struct coll_join;
typedef void (*coll_emit_fn)(const struct nfsrdma_record *r, void *ctx);

struct coll_join_stats { uint64_t local, remote, emitted; };

struct coll_join *coll_join_new(coll_emit_fn emit, void *ctx);
void coll_join_free(struct coll_join *j);
/* A record of this daemon's own sources (m NULL) or a peer's (m: who sent
 * it and its clocks at send; recv_ns: this host's CLOCK_REALTIME at receipt). */
void coll_join_add(struct coll_join *j, const struct nfsrdma_record *r, const struct fwd_meta *m, uint64_t recv_ns);
/* Emits what is complete (or waited long enough) by now; returns how many. */
uint64_t coll_join_poll(struct coll_join *j, uint64_t now_ns);
void coll_join_get_stats(const struct coll_join *j, struct coll_join_stats *s);

#endif
