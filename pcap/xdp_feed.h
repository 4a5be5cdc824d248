/* XDP ring-buffer records -> per-XID records, through the dissector.
 *
 * Each record of bpf/xdp_roce.bpf.c carries the first cap_len bytes of a
 * RoCE frame, its wire length and its frame number.  xdp_feed hands exactly
 * that to transport_packet() -- as a capture with snap length cap_len
 * would -- and the transport's events to dissect_event(), so connections,
 * QP pairing, reassembly, XID matching and the per-XID records are the
 * dissector's own code, not a second copy (docs/xdp.md). */
#ifndef NFSRDMA_XDP_FEED_H
#define NFSRDMA_XDP_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/xdp_roce.h"
#include "dissect/dissect.h"
#include "dissect/transport.h"

struct xdp_feed;

struct xdp_feed_stats {
	uint64_t records;       /* ring-buffer records accepted */
	uint64_t bad_records;   /* rejected: bad magic, size or lengths */
	uint64_t roce, malformed; /* by the XDP program's verdict */
	uint64_t reordered;     /* records whose frame number is not above the previous one */
	uint64_t xid_records;   /* per-XID records delivered */
};

/* cbs.record receives per-XID records with source = REC_SRC_XDP. */
struct xdp_feed *xdp_feed_new(const struct dissect_opts *o, const struct dissect_cbs *cbs);
void xdp_feed_free(struct xdp_feed *f);

/* Checks one record (untrusted: len is what was received) and copies its
 * header into *rec, zero-filled past hdr_size (bpf/xdp_roce.h).  Returns 0
 * with *rec and *frame (its cap_len frame bytes, in buf) set, or -EBADMSG. */
int xdp_rec_check(const void *buf, size_t len, struct xdp_roce_rec *rec, const uint8_t **frame);

/* Checks and feeds one record; ts_ns is the packet time to use (wall
 * clock, ns).  Returns 0 or -EBADMSG (counted, nothing fed). */
int xdp_feed_record(struct xdp_feed *f, const void *buf, size_t len, uint64_t ts_ns);

/* End of input: pending messages and unanswered calls are emitted. */
void xdp_feed_flush(struct xdp_feed *f);

const struct xdp_feed_stats *xdp_feed_stats(const struct xdp_feed *f);

#endif
