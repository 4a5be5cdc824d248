/* Reader of the XDP program's per-CPU record rings (bpf/xdp_roce.h,
 * struct xdp_ring_ctl): maps the "xdp_ring" array, hands records to a
 * callback oldest frame first across CPUs, and sleeps on the "xdp_wake"
 * doorbell ring buffer. */
#ifndef NFSRDMA_XDP_RING_H
#define NFSRDMA_XDP_RING_H

#include <stddef.h>
#include <stdint.h>

struct xdp_ring;
struct bpf_map;

/* rec: a private copy of one record (header + frame bytes, len bytes),
 * checked only for its size fields; the callback checks the rest
 * (xdp_rec_check).  A negative return stops the current consume. */
typedef int (*xdp_ring_fn)(void *ctx, const void *rec, size_t len);

struct xdp_ring_stats {
	uint64_t records;   /* records handed to the callback */
	uint64_t resyncs;   /* a ring held a bad record: its unread part was skipped */
	uint64_t skipped;   /* bytes skipped that way */
};

/* Ring bytes per CPU for a requested size: a power of two in
 * [XDP_RING_MIN, XDP_RING_MAX] (0: XDP_RING_DEFAULT). */
uint32_t xdp_ring_bytes(uint64_t want);

/* Before the object is loaded: sizes the array for every possible CPU and
 * ring_bytes per CPU (from xdp_ring_bytes); *ring_mask is to be written to
 * the program's rodata.  0 or negative errno. */
int xdp_ring_configure(struct bpf_map *ring, uint32_t ring_bytes, uint32_t *ring_mask);

/* After load: maps the rings.  0 or negative errno. */
int xdp_ring_new(struct xdp_ring **out, struct bpf_map *ring, struct bpf_map *wake,
		 xdp_ring_fn fn, void *ctx);
void xdp_ring_free(struct xdp_ring *r);

/* Hands over what is there now, oldest frame first.  Records delivered,
 * or the callback's negative return. */
int xdp_ring_consume(struct xdp_ring *r);
/* Consumes; if nothing was there, waits up to timeout_ms for a doorbell
 * and consumes again.  Records delivered or negative errno. */
int xdp_ring_poll(struct xdp_ring *r, int timeout_ms);
/* Readable when a doorbell rang (for the caller's own epoll/poll). */
int xdp_ring_epoll_fd(const struct xdp_ring *r);
const struct xdp_ring_stats *xdp_ring_stats(const struct xdp_ring *r);

#endif
