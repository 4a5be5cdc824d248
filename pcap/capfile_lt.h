/* A pcapng's interfaces each have their own link type: the feed follows
 * the packet's.  Packets of a link type the transport does not read are
 * not fed (their frame numbers stay taken), told once per link type run. */
#ifndef NFSRDMA_CAPFILE_LT_H
#define NFSRDMA_CAPFILE_LT_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/feed.h"
#include "pcap/capfile.h"

struct capfile_lt {
	int cur;        /* the link type the feed was last given */
	bool ok;        /* the feed reads it */
	int warned;     /* the last unsupported one told */
};

/* True when the packet just read (frame) goes to the feed. */
bool capfile_lt_switch(struct capfile_lt *lt, const struct pcap_source *src, struct dissect_feed *f,
		       uint64_t frame);
static inline bool capfile_lt_follow(struct capfile_lt *lt, const struct pcap_source *src,
				     struct dissect_feed *f, uint64_t frame)
{
	if (__builtin_expect(pcap_source_linktype(src) == lt->cur, 1))
		return lt->ok;
	return capfile_lt_switch(lt, src, f, frame);
}

#endif
