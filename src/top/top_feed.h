/* Where nfsrdma-top gets its numbers: the daemon's control socket, or its
 * own sources and aggregation engine (standalone).  Both give the same
 * struct agg_snap, so the views do not care which. */
#ifndef NFSRDMA_TOP_FEED_H
#define NFSRDMA_TOP_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "src/stats/agg.h"
#include "src/stats/fsplit.h"
#include "pcap/source.h"

struct top_feed;

/* Daemon mode: connects lazily, reconnects after a failure. */
struct top_feed *top_feed_daemon(const char *socket_path);
/* Standalone: opens every spec now; -errno with the reason in err. */
int top_feed_standalone(struct top_feed **out, const char *const *specs, unsigned n,
			const struct source_opts *o, char *err, size_t errlen);
/* Runs the sources (standalone) until deadline (CLOCK_MONOTONIC ns), or
 * until they have all ended; daemon mode just sleeps. */
void top_feed_run(struct top_feed *f, uint64_t deadline_ns);
/* True once every standalone source has ended (never in daemon mode). */
bool top_feed_ended(const struct top_feed *f);
/* Why a capture file ended before its end ("FILE: frame N, offset O:
 * ..."), or NULL. */
const char *top_feed_error(const struct top_feed *f);
/* Fills s (agg_snap_free it) and, when fs is not NULL, the fused split
 * of joined records (fsplit_snap_free it; fs->have false: a daemon
 * older than protocol 2.1, which sends none).  0, or -errno with the
 * reason in err (the daemon is not there, spoke another protocol
 * version...), which says when the next try is: after a failure the
 * daemon is tried again after 1 s, doubling to 30 s, and calls before
 * then return -EAGAIN at once. */
int top_feed_snapshot(struct top_feed *f, struct agg_snap *s, struct fsplit_snap *fs, char *err, size_t errlen);
/* How long the daemon has been out of reach: since the feed was made
 * until its first snapshot, since the last failure after that; 0 while
 * it answers and in standalone mode. */
uint64_t top_feed_down_ns(const struct top_feed *f);
/* "daemon /run/nfsrdmad.sock" / "pcap:x.pcap" for the header. */
const char *top_feed_name(const struct top_feed *f);
void top_feed_free(struct top_feed *f);


#endif
