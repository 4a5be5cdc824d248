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

#endif
