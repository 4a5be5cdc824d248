/* Reader of the per-CPU record rings (pcap/xdp_ring.h, bpf/xdp_roce.h).
 *
 * The rings are shared memory that the reader can also write, and the
 * reader trusts nothing in them: every record is copied out before it is
 * used, its size fields are checked against what the program published,
 * and a ring holding a record that fails is skipped to its head (counted)
 * rather than read out of bounds. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bpf/xdp_roce.h"
#include "pcap/xdp_ring.h"

_Static_assert(sizeof(struct xdp_ring_ctl) == XDP_RING_CTL, "ring control block size");
_Static_assert(XDP_RING_EXTRA >= XDP_RING_CTL + XDP_REC_SPACE(XDP_REC_FULL, XDP_ROCE_SNAP_MAX),
	       "slack must hold a whole record");

struct cpu_ring {
	struct xdp_ring_ctl *ctl;
	const uint8_t *data;
	uint64_t pos, end;        /* our tail; the head seen at this consume */
	int peeked;
	uint64_t frame;           /* of the peeked record */
	size_t len;               /* its bytes in the ring */
};

struct xdp_ring {
	uint8_t *map;
	size_t map_len;
	uint64_t mask;
	int ncpu;
	struct cpu_ring *cpu;
	struct ring_buffer *wake;
	xdp_ring_fn fn;
	void *ctx;
	struct xdp_ring_stats st;
	uint8_t buf[XDP_REC_SPACE(XDP_REC_FULL, XDP_ROCE_SNAP_MAX)];
};

uint32_t xdp_ring_bytes(uint64_t want)
{
	uint32_t b = XDP_RING_MIN;

	if (!want)
		return XDP_RING_DEFAULT;
	while (b < want && b < XDP_RING_MAX)
		b <<= 1;
	return b;
}

int xdp_ring_configure(struct bpf_map *ring, uint32_t ring_bytes, uint32_t *ring_mask)
{
	int ncpu = libbpf_num_possible_cpus(), ret;

	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -EINVAL;
	if (ring_bytes < XDP_RING_MIN || ring_bytes > XDP_RING_MAX || (ring_bytes & (ring_bytes - 1)))
		return -EINVAL;
	if ((ret = bpf_map__set_max_entries(ring, (uint32_t)ncpu)) < 0 ||
	    (ret = bpf_map__set_value_size(ring, ring_bytes + XDP_RING_EXTRA)) < 0)
		return ret;
	*ring_mask = ring_bytes - 1;
	return 0;
}

static int drain_token(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

int xdp_ring_new(struct xdp_ring **out, struct bpf_map *ring, struct bpf_map *wake,
		 xdp_ring_fn fn, void *ctx)
{
	struct xdp_ring *r;
	uint32_t vsize = bpf_map__value_size(ring), n = bpf_map__max_entries(ring);
	int ret;

	*out = NULL;
	if (vsize <= XDP_RING_EXTRA || (vsize - XDP_RING_EXTRA) & (vsize - XDP_RING_EXTRA - 1) ||
	    vsize % 4096 || n == 0)
		return -EINVAL;
	if (!(r = calloc(1, sizeof(*r))) || !(r->cpu = calloc(n, sizeof(*r->cpu)))) {
		ret = -ENOMEM;
		goto err_free;
	}
	r->ncpu = (int)n;
	r->mask = vsize - XDP_RING_EXTRA - 1;
	r->fn = fn;
	r->ctx = ctx;
	r->map_len = (size_t)vsize * n;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(ring), 0);
	if (r->map == MAP_FAILED) {
		ret = -errno;
		r->map = NULL;
		goto err_free;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct cpu_ring *c = &r->cpu[i];

		c->ctl = (struct xdp_ring_ctl *)(r->map + (size_t)vsize * i);
		c->data = (const uint8_t *)c->ctl + XDP_RING_CTL;
		c->pos = __atomic_load_n(&c->ctl->tail, __ATOMIC_RELAXED);
	}
	r->wake = ring_buffer__new(bpf_map__fd(wake), drain_token, NULL, NULL);
	if (!r->wake) {
		ret = -errno;
		goto err_unmap;
	}
	*out = r;
	return 0;
err_unmap:
	munmap(r->map, r->map_len);
err_free:
	if (r)
		free(r->cpu);
	free(r);
	return ret;
}

void xdp_ring_free(struct xdp_ring *r)
{
	if (!r)
		return;
	ring_buffer__free(r->wake);
	munmap(r->map, r->map_len);
	free(r->cpu);
	free(r);
}

/* Gives up on what is unread in a ring (a record failed its checks). */
static void resync(struct xdp_ring *r, struct cpu_ring *c)
{
	r->st.resyncs++;
	r->st.skipped += c->end - c->pos;
	c->pos = c->end;
	c->peeked = 0;
	__atomic_store_n(&c->ctl->tail, c->pos, __ATOMIC_RELEASE);
}

/* The next record of a ring, if there is one: its frame and length. */
static int peek(struct xdp_ring *r, struct cpu_ring *c)
{
	struct xdp_roce_rec h;

	if (c->peeked)
		return 1;
	if (c->pos == c->end)
		return 0;
	if (c->end - c->pos < XDP_REC_BASE || c->end - c->pos > r->mask + 1) {
		resync(r, c);
		return 0;
	}
	memcpy(&h, c->data + (c->pos & r->mask), XDP_REC_BASE);
	size_t len = XDP_REC_SPACE(h.hdr_size, h.cap_len);
	if (h.magic != XDP_ROCE_MAGIC || (h.hdr_size != XDP_REC_BASE && h.hdr_size != XDP_REC_FULL) ||
	    h.cap_len > XDP_ROCE_SNAP_MAX || len > c->end - c->pos) {
		resync(r, c);
		return 0;
	}
	c->frame = h.frame;
	c->len = len;
	c->peeked = 1;
	return 1;
}

int xdp_ring_consume(struct xdp_ring *r)
{
	int n = 0;

	ring_buffer__consume(r->wake);   /* the doorbells have done their job */
	for (int i = 0; i < r->ncpu; i++) {
		struct cpu_ring *c = &r->cpu[i];

		c->end = __atomic_load_n(&c->ctl->head, __ATOMIC_ACQUIRE);
		if (c->end < c->pos || c->end - c->pos > r->mask + 1)
			resync(r, c);
	}
	for (;;) {
		struct cpu_ring *best = NULL;

		for (int i = 0; i < r->ncpu; i++) {
			struct cpu_ring *c = &r->cpu[i];

			if (peek(r, c) && (!best || c->frame < best->frame))
				best = c;
		}
		if (!best)
			return n;
		size_t len = best->len;
		memcpy(r->buf, best->data + (best->pos & r->mask), len);
		best->pos += len;
		best->peeked = 0;
		__atomic_store_n(&best->ctl->tail, best->pos, __ATOMIC_RELEASE);
		r->st.records++;
		n++;
		int ret = r->fn ? r->fn(r->ctx, r->buf, len) : 0;
		if (ret < 0)
			return ret;
	}
}

int xdp_ring_poll(struct xdp_ring *r, int timeout_ms)
{
	int n = xdp_ring_consume(r);

	if (n != 0 || timeout_ms == 0)
		return n;
	int w = ring_buffer__poll(r->wake, timeout_ms);
	if (w < 0 && w != -EINTR)
		return w;
	return xdp_ring_consume(r);
}

int xdp_ring_epoll_fd(const struct xdp_ring *r)
{
	return ring_buffer__epoll_fd(r->wake);
}

const struct xdp_ring_stats *xdp_ring_stats(const struct xdp_ring *r)
{
	return &r->st;
}
