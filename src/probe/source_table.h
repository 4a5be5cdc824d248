/* The source table: opening any record source (pcap/source.h) by its
 * spec.  It names every implementation (pcap/source_pcap.c,
 * pcap/source_xdp.c, the kernel probes of src/probe/source_kernel.c and
 * the JSON Lines records of src/join/source_jsonl.c),
 * so it lives here, above all of them; the interface stays in pcap/. */
#ifndef NFSRDMA_SOURCE_TABLE_H
#define NFSRDMA_SOURCE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pcap/source.h"

/* Parses spec ("kernel", "xdp:eth0", "pcap:f.pcap", or a bare file name)
 * and opens it.  Returns 0 or a negative errno with the reason in err. */
int source_open(struct source **out, const char *spec, const struct source_opts *o,
		source_record_fn cb, void *ctx, char *err, size_t errlen);
/* True for a file read flat out: a capture at no --speed, or JSON Lines
 * records (read as fast as they parse).  Record time is then the only
 * clock, and nothing may be dropped for lack of time. */
bool source_flat_out(const struct source *s);

#endif
