/* The per-CPU record rings (pcap/xdp_ring.c) as hostile shared memory.
 *
 * A real array map of the real program (loaded by the verifier), mapped a
 * second time so the test can play a writer that lies: records of several
 * CPUs interleaved by frame number, records that straddle the end of the
 * ring into the slack, a bad magic, a cap_len past the snap maximum, a
 * record longer than what the head says was published, a head behind the
 * tail.  The reader must hand over the good records oldest frame first,
 * byte for byte, skip a ring with a bad record to its head (counted), never
 * read outside the mapping, and keep working: after all that, frames run
 * through the program still arrive.  Needs root. */
#include <sys/mman.h>

#include "../xdp/xdp_test.h"

struct got {
	uint64_t frame[64];
	uint8_t byte[64];
	size_t n;
};

static int collect(void *ctx, const void *rec, size_t len)
{
	struct got *g = ctx;
	struct xdp_roce_rec h;
	const uint8_t *bytes;

	if (g->n == 64 || xdp_rec_check(rec, len, &h, &bytes) < 0)
		return 0;
	g->frame[g->n] = h.frame;
	g->byte[g->n] = h.cap_len ? bytes[h.cap_len - 1] : 0;
	g->n++;
	return 0;
}

struct view {
	uint8_t *map;
	size_t len, vsize;
	uint64_t size;
	int ncpu;
};

static struct xdp_ring_ctl *ctl(struct view *v, int cpu)
{
	return (struct xdp_ring_ctl *)(v->map + v->vsize * (size_t)cpu);
}

/* Writes a record at cpu's head (not published). Returns its space.  Odd
 * frames carry the RPC-over-RDMA summary (the longer header), as SEND
 * First/Only records do. */
static uint64_t put(struct view *v, int cpu, uint64_t at, uint64_t frame, uint16_t cap, uint32_t magic)
{
	struct xdp_roce_rec h;
	uint8_t *data = (uint8_t *)ctl(v, cpu) + XDP_RING_CTL;
	uint64_t pos = at & (v->size - 1);
	size_t hs = (frame & 1) ? XDP_REC_FULL : XDP_REC_BASE;

	memset(&h, 0, sizeof(h));
	h.magic = magic;
	h.hdr_size = (uint16_t)hs;
	h.cap_len = cap;
	h.frame = frame;
	h.wire_len = cap;
	h.status = XR_ROCE;
	h.rr_status = (frame & 1) ? RR_OK : RR_NONE;
	memcpy(data + pos, &h, hs);
	if (cap <= XDP_ROCE_SNAP_MAX)
		memset(data + pos + hs, (int)(frame & 0xff), cap);
	return XDP_REC_SPACE(hs, cap);
}

static void set_pos(struct view *v, int cpu, uint64_t tail, uint64_t head)
{
	ctl(v, cpu)->tail = tail;
	__atomic_store_n(&ctl(v, cpu)->head, head, __ATOMIC_RELEASE);
}

int main(void)
{
	struct txdp x;
	struct view v;
	struct got g;
	struct xdp_ring *rd;

	if (geteuid() != 0) {
		printf("bpf-xdp-ring: needs root to load programs\n");
		return 1;
	}
	int err = txdp_open(&x, XDP_ROCE_SNAP_DEFAULT, 1);
	CHECK(err == 0, "load/verify xdp_roce: %d", err);
	if (err)
		return check_summary("bpf-xdp-ring");
	struct bpf_map *m = x.skel->maps.xdp_ring;
	v.vsize = bpf_map__value_size(m);
	v.ncpu = (int)bpf_map__max_entries(m);
	v.size = v.vsize - XDP_RING_EXTRA;
	v.len = v.vsize * (size_t)v.ncpu;
	CHECK_EQ_U64(v.size, XDP_RING_DEFAULT);
	CHECK_EQ_U64((uint64_t)v.ncpu, (uint64_t)libbpf_num_possible_cpus());
	v.map = mmap(NULL, v.len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(m), 0);
	CHECK(v.map != MAP_FAILED, "second mapping of the rings: %s", strerror(errno));
	if (v.map == MAP_FAILED)
		return check_summary("bpf-xdp-ring");

	/* 1. Interleaved CPUs, and records straddling the ring's end. */
	uint64_t start = v.size - 300;   /* the second record runs into the slack */
	int c2 = v.ncpu > 1 ? 1 : 0;
	for (int c = 0; c < v.ncpu; c++)
		set_pos(&v, c, start, start);
	uint64_t h0 = start, h1 = start;
	h0 += put(&v, 0, h0, 10, 60, XDP_ROCE_MAGIC);
	h0 += put(&v, 0, h0, 13, 512, XDP_ROCE_MAGIC);   /* wraps: stays contiguous */
	h0 += put(&v, 0, h0, 15, 64, XDP_ROCE_MAGIC);
	if (c2) {
		h1 += put(&v, c2, h1, 11, 100, XDP_ROCE_MAGIC);
		h1 += put(&v, c2, h1, 14, 4352, XDP_ROCE_MAGIC);
		set_pos(&v, c2, start, h1);
	}
	set_pos(&v, 0, start, h0);
	memset(&g, 0, sizeof(g));
	err = xdp_ring_new(&rd, m, x.skel->maps.xdp_wake, collect, &g);
	CHECK(err == 0, "reader on the rings: %d", err);
	if (err)
		return check_summary("bpf-xdp-ring");
	int n = xdp_ring_consume(rd);
	uint64_t want1[] = { 10, 11, 13, 14, 15 }, want0[] = { 10, 13, 15 };
	const uint64_t *want = c2 ? want1 : want0;
	size_t nw = c2 ? 5 : 3;
	CHECK_EQ_U64((uint64_t)n, nw);
	CHECK_EQ_U64(g.n, nw);
	for (size_t i = 0; i < g.n && i < nw; i++) {
		CHECK(g.frame[i] == want[i], "record %zu: frame %" PRIu64 ", want %" PRIu64 " (oldest first across CPUs)",
		      i, g.frame[i], want[i]);
		CHECK(g.byte[i] == (uint8_t)want[i], "record %zu: last frame byte 0x%x, want 0x%x", i, g.byte[i],
		      (unsigned)(uint8_t)want[i]);
	}
	CHECK_EQ_U64(ctl(&v, 0)->tail, h0);
	CHECK_EQ_U64(xdp_ring_stats(rd)->resyncs, 0);

	/* 2. Lies: each must be skipped to the head, counted, and the ring
	 * usable afterwards. */
	struct {
		const char *what;
		uint32_t magic;
		uint16_t cap;
		int short_head, behind;
	} lies[] = {
		{ "bad magic", 0xdeadbeef, 64, 0, 0 },
		{ "cap_len past the snap maximum", XDP_ROCE_MAGIC, XDP_ROCE_SNAP_MAX + 1, 0, 0 },
		{ "record longer than what was published", XDP_ROCE_MAGIC, 512, 1, 0 },
		{ "head behind the tail", XDP_ROCE_MAGIC, 64, 0, 1 },
	};
	uint64_t pos = h0;
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		uint64_t before = xdp_ring_stats(rd)->resyncs;
		uint64_t sp = put(&v, 0, pos, 100 + i, lies[i].cap, lies[i].magic);
		uint64_t head = lies[i].short_head ? pos + sp - 64 : lies[i].behind ? pos - 8 : pos + sp;
		if (lies[i].cap > XDP_ROCE_SNAP_MAX)
			head = pos + 256;
		__atomic_store_n(&ctl(&v, 0)->head, head, __ATOMIC_RELEASE);
		g.n = 0;
		n = xdp_ring_consume(rd);
		CHECK(n == 0 && g.n == 0, "%s: %d records handed over", lies[i].what, n);
		CHECK_EQ_U64(xdp_ring_stats(rd)->resyncs, before + 1);
		/* resynced to the head: a good record after it comes through */
		pos = lies[i].behind ? ctl(&v, 0)->tail : head;
		CHECK_EQ_U64(ctl(&v, 0)->tail, pos);
		uint64_t sp2 = put(&v, 0, pos, 200 + i, 32, XDP_ROCE_MAGIC);
		__atomic_store_n(&ctl(&v, 0)->head, pos + sp2, __ATOMIC_RELEASE);
		g.n = 0;
		n = xdp_ring_consume(rd);
		CHECK(n == 1 && g.n == 1 && g.frame[0] == 200 + i, "%s: the next good record: %d records", lies[i].what, n);
		pos += sp2;
	}
	xdp_ring_free(rd);

	/* 3. A fresh load of the program: frames run through it arrive. */
	txdp_close(&x);
	err = txdp_open(&x, XDP_ROCE_SNAP_DEFAULT, 1);
	CHECK(err == 0, "reload: %d", err);
	if (!err) {
		static const uint8_t roce[] = {
			/* Ethernet, IPv4, UDP 4791, BTH SEND Only (RC), 4 payload bytes, ICRC */
			0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6, 0x08, 0x00,
			0x45, 0, 0, 48, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
			0xc0, 0x00, 0x12, 0xb7, 0, 28, 0, 0,
			0x04, 0x00, 0xff, 0xff, 0, 0, 0, 0x11, 0x80, 0, 0, 1,
			0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0,
		};
		for (int i = 0; i < 3; i++)
			txdp_run(&x, roce, sizeof(roce));
		CHECK_EQ_U64(x.recs.n, 3);
		CHECK_EQ_U64(txdp_stat(&x, XS_RECORDS), 3);
		txdp_close(&x);
	}
	munmap(v.map, v.len);
	return check_summary("bpf-xdp-ring");
}
