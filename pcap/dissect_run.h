/* The capture file driver: a whole pcap/pcapng file through the packet
 * feed (dissect/feed.h) into a dissector. */
#ifndef NFSRDMA_DISSECT_RUN_H
#define NFSRDMA_DISSECT_RUN_H

#include <stddef.h>

#include "dissect/dissect.h"

/* Whole capture: opens path ("-" = stdin), runs the transport, flushes.
 * Returns 0; -EPROTONOSUPPORT for an unsupported link type (errbuf names
 * it); another negative errno when the file cannot be opened or read.
 * Afterwards dissect_transport_stats(d) has the transport counters. */
int dissect_file(struct dissect *d, const char *path, char *errbuf, size_t errlen);
/* The same, and every byte of the input, as read, also to tee_fd (a
 * spool: a pipe or stdin read once, read again from it); *tee_err is 0
 * or the copy's first -errno.  The run's result does not depend on the
 * copy. */
int dissect_file_tee(struct dissect *d, const char *path, int tee_fd, int *tee_err, char *errbuf,
		     size_t errlen);

#endif
