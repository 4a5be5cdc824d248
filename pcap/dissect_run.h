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
/* The same with the whole say, each part optional (zero: not wanted):
 *  - stop(ctx), asked every 256 packets, ends the read early and returns 0
 *    (what was read is flushed): the reader of the output is gone, so the
 *    rest of the capture would be decoded for no one;
 *  - *opened says whether the capture was opened at all: a run that
 *    failed before its first packet has nothing to summarise;
 *  - tee_fd >= 0 gets every byte of the input as read (a spool: a pipe or
 *    stdin read once, read again from it), *tee_err 0 or the copy's first
 *    -errno; the run's result does not depend on the copy. */
struct dissect_run_opts {
	bool (*stop)(void *);
	void *ctx;
	bool *opened;
	int tee_fd;             /* -1: none */
	int *tee_err;
};
int dissect_file_opts(struct dissect *d, const char *path, const struct dissect_run_opts *o, char *errbuf,
		      size_t errlen);

#endif
