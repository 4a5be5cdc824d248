/* The capture file driver: a whole pcap/pcapng file through the packet
 * feed (dissect/feed.h) into a dissector. */
#ifndef NFSRDMA_DISSECT_RUN_H
#define NFSRDMA_DISSECT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "dissect/dissect.h"

/* Whole capture: opens path ("-" = stdin), runs the transport, flushes.
 * Returns 0; -EPROTONOSUPPORT for an unsupported link type (errbuf names
 * it); another negative errno when the file cannot be opened or read.
 * Afterwards dissect_transport_stats(d) has the transport counters. */
int dissect_file(struct dissect *d, const char *path, char *errbuf, size_t errlen);
/* The same, with a say in when to end: stop(ctx), asked every 256
 * packets, ends the read early and returns 0 (what was read is flushed):
 * the reader of the output is gone, so the rest of the capture would be
 * decoded for no one.  *opened (NULL: not wanted) says whether the capture
 * was opened at all: a run that failed before its first packet has
 * nothing to summarise. */
int dissect_file_until(struct dissect *d, const char *path, bool (*stop)(void *), void *ctx,
		       bool *opened, char *errbuf, size_t errlen);

#endif
