/* pcapng export of a capture source: the original packets, each RDMA
 * every frame of an RPC commented (the dissector's frame notes) with its
 * XID, program and operation, chunk role and latency, and an interface description block
 * naming where the packets came from.  Packets wait in a bounded queue so
 * that the RPC's record (which completes at the reply) can annotate the
 * call's frames before they are written; a frame still waiting when the
 * queue is full is written with what is known then.
 *
 * Used by nfsrdma-dissect -w (one file) and nfsrdmad --export-dir (files
 * rotated by time or size, the oldest removed beyond --export-keep). */
#ifndef NFSRDMA_EXPORT_PCAPNG_H
#define NFSRDMA_EXPORT_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"
#include "pcap/source.h"

struct pcapng_export_opts {
	const char *path;        /* one file; or NULL and: */
	const char *dir;         /* rotating files DIR/PREFIX-YYYYmmddTHHMMSS-N.pcapng */
	const char *prefix;
	uint64_t rotate_ns;      /* 0: no time rotation */
	uint64_t rotate_bytes;   /* 0: no size rotation */
	unsigned keep;           /* rotated files kept (0: all) */
	size_t queue_pkts;       /* packets held for annotation (0: 65536) */
	size_t queue_bytes;      /* and bytes (0: 64 MB) */
};

struct pcapng_export_stats {
	uint64_t packets, comments, files, bytes, write_errors;
};

struct pcapng_export;

/* Attaches to a capture source (pcap: or live:); -EINVAL for other sources. */
int pcapng_export_new(struct pcapng_export **out, struct source *src,
		      const struct pcapng_export_opts *o, char *err, size_t errlen);
/* Writes what is queued and closes the file; returns 0 or the first write error. */
int pcapng_export_close(struct pcapng_export *x);

/* Whole capture file -> annotated pcapng (nfsrdma-dissect -w): the file
 * in, or when read_from is not NULL the bytes of in kept there (the spool
 * of a pipe or stdin, pcap/capspool.h), named in either way, so the two
 * give the same export.  0 or negative errno with one line in err. */
int pcapng_export_file(const char *in, const char *read_from, const char *out, char *err,
		       size_t errlen);

#endif
