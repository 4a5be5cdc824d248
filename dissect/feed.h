/* Packets in, records out: the one wiring of transport -> dissector that
 * every packet source uses (the capture file driver, pcap:FILE and
 * live:IFACE sources, the XDP feed).  It owns the transport, routes the
 * transport's events and diagnostics to the dissector, turns on frame
 * tracking when the dissector wants frame notes, and by default tells the
 * transport not to copy payload no decoder reads (the file bytes of an NFS
 * READ or WRITE), so no source pays for copying data nobody looks at.
 *
 *   struct dissect_feed *f = dissect_feed_new(d, NULL);
 *   dissect_feed_set_linktype(f, lt, "x.pcap", err, sizeof(err));
 *   for each packet: dissect_feed_packet(f, 0, ts, data, caplen, wirelen);
 *   dissect_feed_finish(f);   (end of capture: flushes both halves)
 *   dissect_feed_free(f);     (the dissector stays the caller's) */
#ifndef NFSRDMA_DISSECT_FEED_H
#define NFSRDMA_DISSECT_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/rdma_event.h"
#include "dissect/transport.h"

struct dissect_feed;

struct dissect_feed_opts {
	/* Copy every RDMA WRITE / READ payload even where no decoder reads
	 * it (for a tap that looks at payload bytes). */
	bool copy_all_payload;
};

/* d must outlive the feed.  opts may be NULL.  NULL when out of memory. */
struct dissect_feed *dissect_feed_new(struct dissect *d, const struct dissect_feed_opts *opts);
/* Returns 0, or -EPROTONOSUPPORT with "NAME: unsupported link type N
 * (linktype name)" in err. */
int dissect_feed_set_linktype(struct dissect_feed *f, int linktype, const char *name,
			      char *err, size_t errlen);
/* Optional: sees every reassembled RDMA message just before the
 * dissector does (NULL removes it).  May be changed at any time. */
void dissect_feed_set_tap(struct dissect_feed *f, rdma_event_fn tap, void *ctx);
/* Decodes one captured frame.  frame is its number in the capture, or 0
 * for "one more than the last".  Returns the number used. */
uint64_t dissect_feed_packet(struct dissect_feed *f, uint64_t frame, uint64_t ts_ns,
			     const uint8_t *data, size_t caplen, size_t wirelen);
/* End of capture: emits pending partial messages, closes connections,
 * flushes calls still waiting for their reply.  Once; later calls do
 * nothing. */
void dissect_feed_finish(struct dissect_feed *f);
const struct transport_stats *dissect_feed_transport_stats(const struct dissect_feed *f);
void dissect_feed_free(struct dissect_feed *f);

#endif
