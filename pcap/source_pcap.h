/* Extras of the capture sources (pcap:FILE and live:IFACE) beyond the
 * generic pcap/source.h interface: a tap that sees every packet and every
 * reassembled RDMA message, which the pcapng export uses to annotate
 * frames, and the link type. */
#ifndef NFSRDMA_SOURCE_PCAP_H
#define NFSRDMA_SOURCE_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/rdma_event.h"
#include "pcap/source.h"

struct pcap_tap {
	/* Called for each packet before it is decoded. */
	void (*packet)(void *ctx, uint64_t frame, uint64_t ts_ns, const uint8_t *data,
		       size_t caplen, size_t wirelen);
	/* Called for each RDMA message the transport reassembles (frames
	 * frame_first..frame_last were all passed to packet() already). */
	void (*event)(void *ctx, const struct rdma_event *ev);
	void *ctx;
};

/* The pcap:FILE and live:IFACE sources, opened by source_open() or
 * directly (as the pcapng export opens a capture file). */
extern const struct source_type source_type_pcap;
extern const struct source_type source_type_live;

/* A capture file read from path but named name (the spool of a pipe read
 * again under the pipe's name: what the export's interface says). */
int source_pcap_open_as(struct source **out, const char *path, const char *name,
			const struct source_opts *o, source_record_fn cb, void *ctx, char *err,
			size_t errlen);
/* True when s is a pcap or live source. */
bool source_is_pcap(const struct source *s);
/* Installs a tap (NULL removes it).  -EINVAL if s is not a capture source. */
int source_pcap_set_tap(struct source *s, const struct pcap_tap *tap);
int source_pcap_linktype(const struct source *s);
/* Frame notes of the source's dissector (dissect_cbs.frame_note); turning
 * them on must happen before the first packet (-EBUSY); NULL turns them off. */
typedef void (*source_pcap_note_fn)(void *ctx, const struct dissect_frame_note *n);
int source_pcap_set_frame_note(struct source *s, source_pcap_note_fn fn, void *ctx);
/* Name of what is read ("capture.pcap", "eth0"). */
const char *source_pcap_name(const struct source *s);
/* The one-line reason a capture file ended before its end (a record cut
 * short: "FILE: frame N, offset O: ..."), or NULL. */
const char *source_pcap_error(const struct source *s);
/* True for a capture file read flat out (record time is the only clock). */
bool source_pcap_flat_out(const struct source *s);

#endif
