// SPDX-License-Identifier: GPL-2.0
/* xdp_roce: the XDP fast path.  For every frame it parses, with bounded
 * cursor checks (xdp-tools style), Ethernet (up to 4 VLAN tags), IPv4 /
 * IPv6 (+ extension headers), UDP 4791 (RoCEv2) or Ethertype 0x8915
 * (RoCEv1), the BTH and its extended headers (RETH, AETH, IETH, ImmDt,
 * DETH, ...), and at the start of SEND First / SEND Only payloads the
 * RPC-over-RDMA v1 header and a summary of its chunk lists.  RoCE and
 * malformed frames produce one record each in the ring buffer (the parsed
 * fields + the first snap_len bytes of the frame); every frame updates the
 * counters.  It returns XDP_PASS: traffic is never dropped or changed.
 * The one exception is asked for by name: on a mirror (SPAN) port
 * (mirror_port), a unicast frame for another host is a copy the stack
 * would build an skb for only to drop it (PACKET_OTHERHOST), so it is
 * dropped here, after it is counted and recorded.
 *
 * The checks mirror dissect/roce.c and dissect/ib.c rule for rule, so a
 * frame is RoCE / malformed / other here exactly when it is for the
 * dissector (tests/bpf/test_xdp_diff.c checks that on every lab frame). */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xdp_roce.h"

/* Set by the loader before load (rodata). */
const volatile __u32 snap_len = XDP_ROCE_SNAP_DEFAULT;  /* 0: parsed fields only */
const volatile __u32 sample_every = 1;                  /* 1 record in N frames */
const volatile __u16 roce_port = XDP_ROCE_UDP_PORT;
const volatile __u32 mirror_port = 0;                  /* 1: drop frames for other hosts */
const volatile __u8 host_mac[6];                       /* the port's own address */

/* Frames seen since load (user space may reset it): gives every record
 * the frame number a capture of the interface would have. */
__u64 frame_seq;

/* Ring bytes per CPU - 1 (a power of two - 1), set with the slot size. */
const volatile __u32 ring_mask = XDP_RING_DEFAULT - 1;

/* The per-CPU record rings (bpf/xdp_roce.h).  No BTF value type: the
 * loader sets value_size to ring bytes + XDP_RING_EXTRA. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, XDP_RING_DEFAULT + XDP_RING_EXTRA);
	__uint(max_entries, 1);               /* the loader: possible CPUs */
} xdp_ring SEC(".maps");

/* Doorbell: one 8-byte token (the CPU) when a ring's backlog crosses an
 * eighth of the ring, so the reader can sleep in epoll; below that its
 * poll timeout picks the records up.  At most one wakeup (an IPI; a VM
 * exit in a guest) per time the reader drains a ring. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} xdp_wake SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdp_stats_val);
} xdp_stats SEC(".maps");

/* A per-CPU array used as a set-associative table (bpf/xdp_roce.h): the
 * lookup of an array slot is inlined by the verifier, where a hash map
 * costs a helper call, a jhash of the 40-byte key and a bucket walk. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XDP_CONN_MAX);
	__type(key, __u32);
	__type(value, struct xdp_conn_slot);
} xdp_conns SEC(".maps");

/* Per-CPU scratch: the record header is built here, then copied into a
 * ring-buffer reservation; the frame bytes go straight from the packet
 * into the reservation (bpf_xdp_load_bytes), never through a buffer. */
struct scratch {
	struct xdp_roce_rec r;
	__u32 off_cell;   /* pkt_at: an offset on its way to a packet pointer */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} xdp_scratch SEC(".maps");

/* v & m (m = 2^k - 1) computed right where it is used: older verifiers
 * (6.1) lose a bound when the compiler spills the value between the
 * masking and the pointer arithmetic. */
#define BOUND(v, m) ({ __u64 v_ = (v); asm volatile("%0 &= " #m : "+r"(v_)); v_; })

struct vlan_hdr_ {
	__be16 tci;
	__be16 proto;
};

struct hdr_cursor {
	void *pos;
};

/* st: this CPU's counters, looked up once per frame */
#define bump(st, slot) ((st)->v[(slot)]++)

/* The opcode table of dissect/ib.c: extended headers of each operation
 * (the low 5 opcode bits), and which operations each service has. */
#define P XH_PAYLOAD
static const __u16 op_hdrs[32] = {
	[0x00] = P, [0x01] = P, [0x02] = P, [0x03] = P | XH_IMMDT,
	[0x04] = P, [0x05] = P | XH_IMMDT,
	[0x06] = P | XH_RETH, [0x07] = P, [0x08] = P, [0x09] = P | XH_IMMDT,
	[0x0a] = P | XH_RETH, [0x0b] = P | XH_RETH | XH_IMMDT,
	[0x0c] = XH_RETH,
	[0x0d] = P | XH_AETH, [0x0e] = P, [0x0f] = P | XH_AETH, [0x10] = P | XH_AETH,
	[0x11] = XH_AETH, [0x12] = XH_AETH | XH_ATOMICACKETH,
	[0x13] = XH_ATOMICETH, [0x14] = XH_ATOMICETH, [0x15] = 0,
	[0x16] = P | XH_IETH, [0x17] = P | XH_IETH,
	[0x1c] = XH_FETH | XH_RETH, [0x1d] = P | XH_RETH,
};
#define OPS_RC  (0x3fffffu | (1u << 0x16) | (1u << 0x17) | (1u << 0x1c) | (1u << 0x1d))
#define OPS_RC_NO_RESYNC (OPS_RC & ~(1u << 0x15))
#define OPS_UC  (0x0fffu & ~(1u << 0x0c))
#define OPS_RD  (0x3fffffu)
#define OPS_UD  ((1u << 0x04) | (1u << 0x05))

/* Extended-header set of an opcode, or -1 for a reserved opcode. */
static __always_inline int opcode_hdrs(__u8 opcode)
{
	__u32 op = opcode & 0x1f, svc = opcode >> 5, mask, extra = 0;

	switch (svc) {
	case 0: mask = OPS_RC_NO_RESYNC; break;
	case 1: mask = OPS_UC; break;
	case 2:
		mask = OPS_RD;
		extra = XH_RDETH | XH_DETH;
		if (op >= 0x0d && op <= 0x12)   /* RD acknowledgements: no DETH */
			extra = XH_RDETH;
		break;
	case 3: mask = OPS_UD; extra = XH_DETH; break;
	case 4:
		if (opcode == 0x81)             /* CNP */
			return 0;
		return -1;
	case 5: mask = OPS_RC_NO_RESYNC; extra = XH_XRCETH; break;
	default: return -1;
	}
	if (!(mask & (1u << op)))
		return -1;
	return op_hdrs[op] | extra;
}

static __always_inline __u32 be32_at(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
}

/* Packet bytes [off, off + n) straight from the linear part, or NULL
 * when they are not all there.  A helper call costs ~25 ns on this host
 * whatever it copies (its calls and returns go through retpolines and the
 * Safe-RET thunk), and an RPC-over-RDMA header took one per word; so the
 * header of a SEND whose payload ends in the linear part (most: a frame
 * is in fragments past ~3.5 KB, or when a driver hands over a paged
 * frame) is read directly, the others through bpf_xdp_load_bytes as
 * before (the header may run into the fragments).  The choice is made once per
 * header (lin below), not per word: a branch per word multiplies the
 * verifier's paths through the list loops past its limit.
 *
 * The offset reaches the pointer through a map value (cell, in the
 * per-CPU scratch): an offset added to a packet pointer becomes
 * "precise" for the verifier, which then keeps apart every path through
 * the Read, Write and Reply list loops by its exact offset (past the 1M
 * instruction limit); one loaded from memory is just a bounded unknown. */
#define PKT_LIN_MAX 4095   /* a linear part is at most a page */
static __always_inline const __u8 *pkt_at(struct xdp_md *ctx, __u32 off, const __u32 n, __u32 *cell)
{
	const __u8 *data = (const __u8 *)(long)ctx->data;
	const __u8 *end = (const __u8 *)(long)ctx->data_end;

	*(volatile __u32 *)cell = off;
	off = *(volatile __u32 *)cell;
	if (off > PKT_LIN_MAX - n)
		return 0;
	const __u8 *p = data + BOUND(off, 4095);
	if (p + n > end)
		return 0;
	return p;
}

static __always_inline __u32 ld32(struct xdp_md *ctx, __u32 off, int *err, __u32 *lin)
{
	__be32 v = 0;

	if (lin) {
		const __u8 *p = pkt_at(ctx, off, 4, lin);
		if (p)
			v = *(const __be32 *)p;
		else
			*err = 1;
	} else if (bpf_xdp_load_bytes(ctx, off, &v, 4)) {
		*err = 1;
	}
	return bpf_ntohl(v);
}

static __always_inline int ld16(struct xdp_md *ctx, __u32 off, __be32 w[4], __u32 *lin)
{
	if (lin) {
		const __u8 *p = pkt_at(ctx, off, 16, lin);
		if (!p)
			return -1;
		w[0] = ((const __be32 *)p)[0];
		w[1] = ((const __be32 *)p)[1];
		w[2] = ((const __be32 *)p)[2];
		w[3] = ((const __be32 *)p)[3];
		return 0;
	}
	return bpf_xdp_load_bytes(ctx, off, w, 16);
}

static __always_inline int ld_seg(struct xdp_md *ctx, __u32 off, struct xdp_seg *s, __u32 *lin)
{
	__be32 w[4];

	if (ld16(ctx, off, w, lin))
		return -1;
	s->handle = bpf_ntohl(w[0]);
	s->length = bpf_ntohl(w[1]);
	s->offset = ((__u64)bpf_ntohl(w[2]) << 32) | bpf_ntohl(w[3]);
	return 0;
}

/* One Write or Reply chunk: segment count, first segment, skip the rest.
 * Returns 0, or the rr_status that ends the parse. */
static __always_inline int rr_chunk(struct xdp_md *ctx, __u32 *offp, __u32 end, __u32 *nsegs,
				    struct xdp_seg *first, int want_first, __u32 *lin)
{
	__u32 off = *offp;
	int err = 0;

	if (end - off < 4)
		return RR_SHORT;
	__u32 n = ld32(ctx, off, &err, lin);
	if (err)
		return RR_SHORT;
	off += 4;
	if (n > XDP_RR_LIST_LIMIT)
		return RR_BAD;
	if (n * 16 > end - off)
		return RR_SHORT;
	if (want_first && n && ld_seg(ctx, off, first, lin))
		return RR_SHORT;
	*nsegs = n;
	*offp = off + n * 16;
	return 0;
}

/* RPC-over-RDMA v1 header at frame offset off, end = end of the payload;
 * lin: all of it is in the linear part, read with pkt_at (lin is its
 * cell), or NULL: read with bpf_xdp_load_bytes. */
static __always_inline int rr_parse_body(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 off, __u32 end,
					 __u32 *lin)
{
	__u32 start = off, w[4];
	int err = 0, st;

	if (end < off || end - off < 16)
		return RR_SHORT;
	if (ld16(ctx, off, w, lin))
		return RR_SHORT;
	r->xid = bpf_ntohl(w[0]);
	r->vers = bpf_ntohl(w[1]);
	r->credits = bpf_ntohl(w[2]);
	r->proc = bpf_ntohl(w[3]);
	off += 16;
	if (r->vers != 1)
		return RR_NOT_V1;
	switch (r->proc) {
	case 2: /* RDMA_MSGP: align, thresh, then the lists */
		if (end - off < 8)
			return RR_SHORT;
		off += 8;
		break;
	case 0: /* RDMA_MSG */
	case 1: /* RDMA_NOMSG */
		break;
	case 3: /* RDMA_DONE */
		r->rr_hdr_len = (__u16)(off - start);
		return RR_OK;
	case 4: /* RDMA_ERROR */
		if (end - off < 4)
			return RR_SHORT;
		r->rr_err = ld32(ctx, off, &err, lin);
		if (err)
			return RR_SHORT;
		off += 4;
		if (r->rr_err == 1) {
			if (end - off < 8)
				return RR_SHORT;
			off += 8;
		} else if (r->rr_err != 2) {
			return RR_BAD;
		}
		r->rr_hdr_len = (__u16)(off - start);
		return RR_OK;
	default:
		return RR_BAD;
	}

	/* Read list: { 1, position, handle, length, offset64 }* 0 */
	for (int i = 0; i <= XDP_RR_MAX_RSEGS; i++) {
		if (end - off < 4)
			return RR_SHORT;
		__u32 disc = ld32(ctx, off, &err, lin);
		if (err)
			return RR_SHORT;
		off += 4;
		if (disc > 1)
			return RR_BAD;
		if (!disc)
			break;
		if (i == XDP_RR_MAX_RSEGS)
			return RR_OVERFLOW;
		if (end - off < 20)
			return RR_SHORT;
		__u32 pos = ld32(ctx, off, &err, lin);
		struct xdp_seg s;
		if (err || ld_seg(ctx, off + 4, &s, lin))
			return RR_SHORT;
		off += 20;
		if (i == 0) {
			r->rd_pos = pos;
			r->rd1 = s;
		}
		if (pos == 0)
			r->rr_flags |= XRR_P0;
		r->rd_total += s.length;
		r->n_rsegs++;
	}

	/* Write list: { 1, nsegs, segment x nsegs }* 0 */
	for (int i = 0; i <= XDP_RR_MAX_WCHUNKS; i++) {
		if (end - off < 4)
			return RR_SHORT;
		__u32 disc = ld32(ctx, off, &err, lin);
		if (err)
			return RR_SHORT;
		off += 4;
		if (disc > 1)
			return RR_BAD;
		if (!disc)
			break;
		if (i == XDP_RR_MAX_WCHUNKS)
			return RR_OVERFLOW;
		__u32 n = 0;
		st = rr_chunk(ctx, &off, end, &n, &r->wr1, r->n_wsegs == 0, lin);
		if (st)
			return st;
		r->n_wsegs += n;
		r->n_wchunks++;
	}

	/* Reply chunk: 0 | 1, nsegs, segment x nsegs */
	if (end - off < 4)
		return RR_SHORT;
	__u32 disc = ld32(ctx, off, &err, lin);
	if (err)
		return RR_SHORT;
	off += 4;
	if (disc > 1)
		return RR_BAD;
	if (disc) {
		__u32 n = 0;
		st = rr_chunk(ctx, &off, end, &n, &r->rp1, 1, lin);
		if (st)
			return st;
		r->n_rpsegs = n;
		r->rr_flags |= XRR_REPLY;
	}
	r->rr_hdr_len = (__u16)(off - start);
	return RR_OK;
}

/* Inlined: a BPF-to-BPF call's return goes through the Safe-RET thunk
 * like a helper's (~4 ns a SEND here), and a static subprogram is
 * verified at every call site anyway, so inlining costs the verifier
 * next to nothing.  The fragments path stays a call: it is rare. */
static __always_inline int rr_parse_lin(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 off, __u32 end)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&xdp_scratch, &zero);

	if (!s)
		return RR_SHORT;
	return rr_parse_body(ctx, r, off, end, &s->off_cell);
}

static __noinline int rr_parse_frags(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 off, __u32 end)
{
	return rr_parse_body(ctx, r, off, end, NULL);
}

static __always_inline int rr_parse(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 off, __u32 end)
{
	__u32 lin = (__u32)(ctx->data_end - ctx->data);

	if (end <= lin && end <= PKT_LIN_MAX)
		return rr_parse_lin(ctx, r, off, end);
	return rr_parse_frags(ctx, r, off, end);
}

union conn_key {
	struct xdp_conn_key k;
	__u64 w[5];
};

static __always_inline int key_eq(const struct xdp_conn_key *a, const union conn_key *b)
{
	const __u64 *x = (const __u64 *)a;

	return x[0] == b->w[0] && x[1] == b->w[1] && x[2] == b->w[2] &&
	       x[3] == b->w[3] && x[4] == b->w[4];
}

static __always_inline void conn_count(struct xdp_stats_val *st, const struct xdp_roce_rec *r,
				       __u32 wire, __u64 frame)
{
	union conn_key k;
	struct xdp_conn_slot *sl, *victim = 0;
	struct xdp_conn_val *v;
	__u64 oldest = ~0ull;

	__builtin_memset(&k, 0, sizeof(k));
	k.k.family = r->family;
	k.k.dqpn = r->dqpn;
	__builtin_memcpy(k.k.src, r->src, 16);   /* IPv4: 4 bytes, then zeros */
	__builtin_memcpy(k.k.dst, r->dst, 16);
	/* multiplicative hash of the 5 key words */
	__u64 hv = k.w[0] * 0x9e3779b97f4a7c15ull;
	hv = (hv ^ k.w[1]) * 0xc2b2ae3d27d4eb4full;
	hv = (hv ^ k.w[2]) * 0x165667b19e3779f9ull;
	hv = (hv ^ k.w[3]) * 0x9e3779b97f4a7c15ull;
	hv = (hv ^ k.w[4]) * 0xc2b2ae3d27d4eb4full;
	__u32 h = (__u32)(hv >> 32);

#pragma unroll
	for (int w = 0; w < XDP_CONN_WAYS; w++) {
		__u32 idx = (h + w) & (XDP_CONN_MAX - 1);

		sl = bpf_map_lookup_elem(&xdp_conns, &idx);
		if (!sl)
			return;
		if (sl->k.family == 0) {        /* empty: the key is nowhere further */
			__builtin_memcpy(&sl->k, &k.k, sizeof(k.k));
			__builtin_memset(&sl->v, 0, sizeof(sl->v));
			goto found;
		}
		if (key_eq(&sl->k, &k))
			goto found;
		if (sl->v.last_frame < oldest) {
			oldest = sl->v.last_frame;
			victim = sl;
		}
	}
	if (!victim)
		return;
	bump(st, XS_CONN_FULL);
	sl = victim;
	__builtin_memcpy(&sl->k, &k.k, sizeof(k.k));
	__builtin_memset(&sl->v, 0, sizeof(sl->v));
found:
	v = &sl->v;
	v->pkts++;
	v->bytes += wire;
	v->last_frame = frame;
	if (r->ts_ns)
		v->last_ns = r->ts_ns;
	__u8 op = r->opcode & 0x1f;
	if (r->opcode == 0x81 || (r->opcode >> 5) == 3)
		return;                        /* CNP, UD (CM MADs) */
	if (op <= 0x05 || op == 0x16 || op == 0x17)
		v->sends++;
	else if (op <= 0x0b)
		v->writes++;
	else if (op == 0x0c)
		v->read_reqs++;
	else if (op <= 0x10)
		v->read_resps++;
	if ((r->hdrs & XH_AETH) && op != 0x0d && op != 0x0f && op != 0x10) {
		if ((r->aeth_syn >> 5) == 0)
			v->acks++;
		else
			v->naks++;
	}
	if (r->rr_status == RR_OK)
		v->rpcrdma++;
}

/* Where a frame's record is built.  A record that goes to the ring is
 * written straight into this CPU's ring slot (no build-then-copy); one
 * that does not (sampled out, ring full) is built in the per-CPU scratch,
 * so the counters and the connection table still see the frame. */
struct rec_at {
	struct xdp_roce_rec *r;
	struct xdp_ring_ctl *c;   /* NULL: not going to the ring */
	__u64 used;               /* ring bytes unread before this record */
	__u32 cap;                /* frame bytes to copy */
};

static __always_inline int rec_begin(struct rec_at *a, int want, __u32 wire)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	__u32 snapc = snap_len > XDP_ROCE_SNAP_MAX ? XDP_ROCE_SNAP_MAX : snap_len;
	__u8 *slot;

	a->c = 0;
	a->used = 0;   /* set on every path: clang may spill it, and 6.x verifiers reject an uninitialised register */
	a->cap = snapc < wire ? snapc : wire;
	if (want && (slot = bpf_map_lookup_elem(&xdp_ring, &cpu))) {
		struct xdp_ring_ctl *c = (struct xdp_ring_ctl *)slot;
		__u64 size = (__u64)ring_mask + 1, head = c->head;
		__u64 used = head - *(volatile __u64 *)&c->tail;

		/* used > size: a reader wrote a bad tail; stop until it fixes it */
		if (used <= size && size - used >= XDP_REC_SPACE(XDP_REC_FULL, a->cap)) {
			a->c = c;
			a->used = used;
			a->r = (struct xdp_roce_rec *)(slot + XDP_RING_CTL + (head & ring_mask));
			/* the summary part is zeroed only when a SEND needs it */
			__builtin_memset(a->r, 0, XDP_REC_BASE);
			return 0;
		}
	}
	struct scratch *s = bpf_map_lookup_elem(&xdp_scratch, &zero);
	if (!s)
		return -1;
	a->r = &s->r;
	__builtin_memset(a->r, 0, XDP_REC_BASE);
	return 0;
}

/* Bounds cap by max for the verifier: the empty asm hides what the
 * compiler knows about cap, so the comparison stays in the program. */
#define BOUND_CAP(cap, max) ({ /* max <= XDP_ROCE_SNAP_MAX < 8192 */	\
	__u64 c_ = (cap);						\
	asm volatile("" : "+r"(c_));					\
	if (c_ > (max))							\
		c_ = 0;							\
	asm volatile("%0 &= %1" : "+r"(c_) : "i"(8191));		\
	c_;								\
})

/* The first cap bytes of the frame into a record (cap >= 1).  Short
 * copies -- ACKs, READ requests, the headers-only records of middle
 * packets: most records -- are 8-byte moves from the linear part, as
 * bpf_xdp_load_bytes costs ~25 ns whatever it copies (pkt_at).  The last
 * word is the one ending at cap, overlapping the one before: nothing past
 * cap is read or written. */
#define COPY_DIRECT_MAX XDP_ROCE_SNAP_DEFAULT   /* 512: a default-snap copy too (7 ns less than the helper) */
static __always_inline int frame_copy(struct xdp_md *ctx, __u8 *dst, __u64 cap)
{
	const __u8 *data = (const __u8 *)(long)ctx->data;
	const __u8 *end = (const __u8 *)(long)ctx->data_end;

	if (cap >= 8 && cap <= COPY_DIRECT_MAX) {
#pragma unroll
		for (int i = 0; i < COPY_DIRECT_MAX / 8; i++) {
			if ((__u64)(i + 1) * 8 > cap)
				break;
			if ((void *)(data + (i + 1) * 8) > (void *)end)
				goto helper;
			*(__u64 *)(dst + i * 8) = *(const __u64 *)(data + i * 8);
		}
		__u64 last = BOUND(cap - 8, 511);
		const __u8 *q = data + last;
		if ((void *)(q + 8) > (void *)end)
			goto helper;
		*(__u64 *)(dst + last) = *(const __u64 *)q;
		return 0;
	}
helper:
	return bpf_xdp_load_bytes(ctx, 0, dst, cap);
}

/* The frame's length (wire_len) without bpf_xdp_get_buff_len where the
 * linear part must be all of it: a helper call costs ~10 ns here, on
 * every frame.  l3_end is where the IP datagram (RoCEv1: the GRH's
 * payload) ends, 0 if unknown.  A frame continues in fragments only
 * when its first buffer is full -- BPF_PROG_TEST_RUN, veth and generic
 * XDP fill a page first, drivers an rx buffer (>= 1.5 KB) -- or at a
 * header-split boundary, which lies inside the datagram.  So a linear
 * part of at most WIRE_LIN_EXACT bytes that holds the whole datagram is
 * the whole frame; anything else asks the helper. */
#define WIRE_LIN_EXACT 1024
static __always_inline __u32 frame_len(struct xdp_md *ctx, __u32 lin, __u32 l3_end)
{
	if (l3_end && l3_end <= lin && lin <= WIRE_LIN_EXACT)
		return lin;
	return bpf_xdp_get_buff_len(ctx);
}

static __always_inline int roce_observe(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct hdr_cursor nh = { .pos = data };
	__u32 lin = (__u32)((long)data_end - (long)data);
	__u32 wire = 0;     /* frame_len() once the datagram's end is known */
	__u64 frame = __sync_fetch_and_add(&frame_seq, 1) + 1;
	struct xdp_roce_rec *r;
	struct rec_at at;
	int want = !(sample_every > 1 && frame % sample_every);
	__u32 ip_payload = 0, tp_len, off, l3 = sizeof(struct ethhdr);
	__u8 layer, family, ecn = 0, kind = XK_ROCE_V2;
	__u16 sport = 0;
	const __u8 *src = 0, *dst = 0;
	__u8 *bth;
	__u16 proto;
	__u32 zero = 0;
	struct xdp_stats_val *st = bpf_map_lookup_elem(&xdp_stats, &zero);

	if (!st)
		return XDP_PASS;
	bump(st, XS_FRAMES);

	/* Ethernet */
	struct ethhdr *eth = nh.pos;
	if ((void *)(eth + 1) > data_end) {
		layer = XM_ETH;
		goto malformed;
	}
	nh.pos = eth + 1;
	proto = bpf_ntohs(eth->h_proto);
	if (proto < 0x600)
		return XDP_PASS;
#pragma unroll
	for (int i = 0; i < 4; i++) {
		struct vlan_hdr_ *vh = nh.pos;

		if (proto != ETH_P_8021Q && proto != ETH_P_8021AD && proto != 0x9100)
			break;
		if ((void *)(vh + 1) > data_end) {
			layer = XM_VLAN;
			goto malformed;
		}
		proto = bpf_ntohs(vh->proto);
		nh.pos = vh + 1;
		l3 += sizeof(*vh);
	}

	if (proto == ETH_P_IP) {
		struct iphdr *ip = nh.pos;
		__u32 ihl, tot;

		layer = XM_IPV4;
		if ((void *)(ip + 1) > data_end)
			goto malformed;
		if (ip->version != 4)
			goto malformed;
		ihl = (__u32)ip->ihl * 4;
		if (ihl < 20)
			goto malformed;
		tot = bpf_ntohs(ip->tot_len);
		wire = frame_len(ctx, lin, l3 + tot);
		if (tot < ihl || tot > wire - l3)
			goto malformed;
		if (nh.pos + ihl > data_end)
			goto malformed;
		if (ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(0x3fff)))
			return XDP_PASS;
		family = 4;
		ecn = ip->tos & 3;
		src = (const __u8 *)&ip->saddr;
		dst = (const __u8 *)&ip->daddr;
		ip_payload = tot - ihl;
		nh.pos += ihl;
	} else if (proto == ETH_P_IPV6) {
		struct ipv6hdr *ip6 = nh.pos;
		__u32 left;
		__u8 nxt;

		layer = XM_IPV6;
		if ((void *)(ip6 + 1) > data_end)
			goto malformed;
		if (ip6->version != 6)
			goto malformed;
		left = bpf_ntohs(ip6->payload_len);
		wire = frame_len(ctx, lin, l3 + 40 + left);
		if (wire < l3 + 40 || left > wire - l3 - 40)
			goto malformed;
		nxt = ip6->nexthdr;
		ecn = (((__u8 *)ip6)[1] >> 4) & 3;
		src = (const __u8 *)&ip6->saddr;
		dst = (const __u8 *)&ip6->daddr;
		nh.pos = ip6 + 1;
#pragma unroll
		for (int i = 0; i < 8; i++) {
			__u8 *eh = nh.pos;
			__u32 len;

			if (nxt != 0 && nxt != 43 && nxt != 60)
				break;
			if ((void *)(eh + 2) > data_end)
				goto malformed;
			nxt = eh[0];
			len = ((__u32)eh[1] + 1) * 8;
			if (len > left)
				goto malformed;
			if ((void *)eh + len > data_end)
				goto malformed;
			nh.pos = (void *)eh + len;
			left -= len;
		}
		if (nxt != IPPROTO_UDP)
			return XDP_PASS;
		family = 6;
		ip_payload = left;
	} else if (proto == 0x8915) {
		/* RoCEv1: GRH, NxtHdr 0x1B, PayLen covers BTH..ICRC */
		__u8 *grh = nh.pos;
		__u32 paylen;

		layer = XM_ROCE;
		if ((void *)(grh + 40) > data_end)
			goto malformed;
		if (grh[6] != 0x1b)
			goto malformed;
		paylen = ((__u32)grh[4] << 8) | grh[5];
		wire = frame_len(ctx, lin, l3 + 40 + paylen);
		if (paylen < 16 || wire < l3 + 40 || paylen > wire - l3 - 40)
			goto malformed;
		family = 'G';
		kind = XK_ROCE_V1;
		ecn = (grh[1] >> 4) & 3;
		src = grh + 8;
		dst = grh + 24;
		tp_len = paylen - 4;
		bth = grh + 40;
		goto have_bth;
	} else {
		return XDP_PASS;
	}

	/* UDP to the RoCEv2 port */
	{
		struct udphdr *udp = nh.pos;
		__u32 ulen;

		layer = XM_UDP;
		if ((void *)(udp + 1) > data_end)
			goto malformed;
		if (udp->dest != bpf_htons(roce_port))
			return XDP_PASS;
		ulen = bpf_ntohs(udp->len);
		if (ulen < 8 || ulen > ip_payload)
			goto malformed;
		layer = XM_ROCE;
		if (ulen - 8 < 12 + 4)
			goto malformed;
		sport = bpf_ntohs(udp->source);
		tp_len = ulen - 8 - 4;
		bth = (__u8 *)(udp + 1);
	}

have_bth:
	if (rec_begin(&at, want, wire))
		return XDP_PASS;
	r = at.r;
	r->kind = kind;
	r->family = family;
	r->ecn = ecn;
	r->sport = sport;
	r->tp_len = tp_len;
	if (family == 4) {
		__builtin_memcpy(r->src, src, 4);
		__builtin_memcpy(r->dst, dst, 4);
	} else {
		__builtin_memcpy(r->src, src, 16);
		__builtin_memcpy(r->dst, dst, 16);
	}
	/* Every framing (VLAN tags, IPv4 options, IPv6 extensions, RoCEv1)
	 * reaches the BTH at a different constant offset; passing the offset
	 * through the map value makes it one unknown, bounded scalar, so the
	 * verifier checks everything below once instead of once per framing. */
	r->payload_off = (__u32)(bth - (__u8 *)data);
	{
		__u32 bo = *(volatile __u32 *)&r->payload_off;

		tp_len = *(volatile __u32 *)&r->tp_len;
		if (bo > 512 || tp_len > 0xffff)
			goto malformed_r;       /* cannot happen: headers are < 512 bytes */
		/* A no-op mask on the register that is added to the packet
		 * pointer: older verifiers (6.1) lose the bound above when the
		 * compiler spills bo between the check and the addition. */
		asm volatile("%0 &= 1023" : "+r"(bo));
		bth = (__u8 *)data + bo;
		off = bo;
	}

	/* BTH: the cursor is clipped to tp_len (headers past it are
	 * truncated, as in the dissector) and to the frame. */
	layer = XM_IB;
	if ((void *)(bth + 12) > data_end)
		goto malformed_r;
	{
		__u8 b1 = bth[1];
		__u32 w2 = be32_at(bth + 8);
		int hdrs = opcode_hdrs(bth[0]);

		r->opcode = bth[0];
		r->pkey = ((__u16)bth[2] << 8) | bth[3];
		r->dqpn = be32_at(bth + 4) & 0xffffff;
		r->psn = w2 & 0xffffff;
		r->bth_flags = (b1 >> 7 ? XB_SE : 0) | ((b1 >> 6) & 1 ? XB_MIGREQ : 0) |
			       (w2 >> 31 ? XB_ACKREQ : 0) | (((b1 >> 4) & 3) << 4);
		if (hdrs < 0)
			goto malformed_r;
		if (b1 & 0xf)           /* TVer */
			goto malformed_r;
		r->hdrs = (__u16)hdrs;

		/* Offsets of the extended headers after the BTH, in wire order,
		 * computed without branches (one verifier state for all). */
		__u32 h = (__u32)hdrs;
		__u32 o_deth = (h & XH_RDETH) << 2;                 /* RDETH 4 */
		__u32 o_xrc = o_deth + ((h & XH_DETH) << 2);        /* DETH 8 */
		__u32 o_feth = o_xrc + (h & XH_XRCETH);             /* XRCETH 4 */
		__u32 o_reth = o_feth + ((h & XH_FETH) >> 1);       /* FETH 4 */
		__u32 o_atom = o_reth + (h & XH_RETH);              /* RETH 16 */
		__u32 o_aeth = o_atom + ((h >> 5) & 1) * 28;        /* AtomicETH 28 */
		__u32 o_aack = o_aeth + ((h & XH_AETH) >> 4);       /* AETH 4 */
		__u32 o_imm = o_aack + ((h & XH_ATOMICACKETH) >> 4); /* AtomicAckETH 8 */
		__u32 o_ieth = o_imm + ((h & XH_IMMDT) >> 6);       /* ImmDt 4 */
		__u32 ext = o_ieth + ((h & XH_IETH) >> 7);          /* IETH 4 */
		__u32 hlen = 12 + ext;

		if (hlen > tp_len)
			goto malformed_r;
		__u8 *p = bth + 12;
		if (ext > 48 || (void *)(p + ext) > data_end)
			goto malformed_r;
		__u8 *q;
		if (h & XH_DETH) {
			q = p + BOUND(o_deth, 63);
			if ((void *)(q + 8) > data_end)
				goto malformed_r;
			r->deth_qkey = be32_at(q);
			r->deth_srcqp = be32_at(q + 4) & 0xffffff;
		}
		if (h & XH_RETH) {
			q = p + BOUND(o_reth, 63);
			if ((void *)(q + 16) > data_end)
				goto malformed_r;
			r->reth_va = ((__u64)be32_at(q) << 32) | be32_at(q + 4);
			r->reth_rkey = be32_at(q + 8);
			r->reth_len = be32_at(q + 12);
		}
		if (h & XH_AETH) {
			q = p + BOUND(o_aeth, 63);
			if ((void *)(q + 4) > data_end)
				goto malformed_r;
			r->aeth_syn = q[0];
			r->aeth_msn = be32_at(q) & 0xffffff;
		}
		if (h & XH_IMMDT) {
			q = p + BOUND(o_imm, 63);
			if ((void *)(q + 4) > data_end)
				goto malformed_r;
			r->imm = be32_at(q);
		}
		if (h & XH_IETH) {
			q = p + BOUND(o_ieth, 63);
			if ((void *)(q + 4) > data_end)
				goto malformed_r;
			r->ieth_rkey = be32_at(q);
		}

		__u32 pad = (b1 >> 4) & 3;
		if (tp_len & 3)
			goto malformed_r;
		if (hlen + pad > tp_len)
			goto malformed_r;
		r->payload_len = tp_len - hlen - pad;
		if (!(h & XH_PAYLOAD) && r->payload_len)
			goto malformed_r;
		off += hlen;
		r->payload_off = off;
	}

	r->status = XR_ROCE;
	bump(st, XS_ROCE);
	{
		__u8 op = r->opcode & 0x1f, svc = r->opcode >> 5;

		if ((op == 0x00 || op == 0x04 || op == 0x05 || op == 0x17) && svc != 3 && svc != 4) {
			__builtin_memset((__u8 *)r + XDP_REC_BASE, 0, XDP_REC_FULL - XDP_REC_BASE);
			r->rr_status = (__u8)rr_parse(ctx, r, off, off + r->payload_len);
			if (r->rr_status == RR_OK)
				bump(st, XS_RPCRDMA);
		}
		/* A frame past the snap length that does not start a message
		 * keeps only its headers (bpf/xdp_roce.h). */
		if (at.cap < wire && op != 0x00 && op != 0x04 && op != 0x05 && op != 0x17 &&
		    op != 0x06 && op != 0x0a && op != 0x0b && op != 0x0d && op != 0x10 &&
		    off < at.cap)
			at.cap = off;
	}
	/* A clock read costs as much as the parse (~21 ns here: a helper
	 * call plus the clocksource's indirect call), so only a record gets
	 * one, and a middle packet of a message or an ACKNOWLEDGE not even
	 * then unless whole frames are captured: per-XID times come from a
	 * message's first and last packets, and an ACK's time reaches no
	 * per-XID record (bpf/xdp_roce.h). */
	{
		__u8 op = r->opcode & 0x1f;

		if (want && (snap_len >= XDP_ROCE_SNAP_MAX ||
			     (op != 0x01 && op != 0x07 && op != 0x0e && op != 0x11)))
			r->ts_ns = bpf_ktime_get_ns();
	}
	conn_count(st, r, wire, frame);
	goto emit;

malformed:
	if (!wire)          /* failed before the datagram's length was read */
		wire = frame_len(ctx, lin, 0);
	if (rec_begin(&at, want, wire))
		return XDP_PASS;
	r = at.r;
malformed_r:
	r->status = XR_MALFORMED;
	r->mal_layer = layer;
	if (want)
		r->ts_ns = bpf_ktime_get_ns();
	bump(st, XS_MALFORMED);

emit:
	if (!want) {
		bump(st, XS_SAMPLED_OUT);
		return XDP_PASS;
	}
	if (!at.c) {
		bump(st, XS_RB_DROPS);
		return XDP_PASS;
	}
	{
		__u64 cap = BOUND_CAP(at.cap, XDP_ROCE_SNAP_MAX);
		__u64 hdr = r->rr_status ? XDP_REC_FULL : XDP_REC_BASE;

		/* a signed test: older verifiers (6.1) learn cap >= 1 from it,
		 * not from cap != 0, and the helper's size must be >= 1 */
		if ((__s64)cap > 0 && frame_copy(ctx, (__u8 *)r + hdr, cap))
			cap = 0;
		r->magic = XDP_ROCE_MAGIC;
		r->hdr_size = (__u16)hdr;
		r->cap_len = (__u16)cap;
		r->frame = frame;
		r->wire_len = wire;
		__u64 len = XDP_REC_SPACE(hdr, cap);
		/* publishes the record: a full-barrier atomic, so its bytes are
		 * visible first on weakly ordered CPUs too */
		__sync_fetch_and_add(&at.c->head, len);
		bump(st, XS_RECORDS);
		__u64 wake = ((__u64)ring_mask + 1) >> 3;
		if (at.used < wake && at.used + len >= wake) {
			__u32 cpu = bpf_get_smp_processor_id();

			bpf_ringbuf_output(&xdp_wake, &cpu, sizeof(cpu), BPF_RB_FORCE_WAKEUP);
			bump(st, XS_WAKEUPS);
		}
	}
	return XDP_PASS;
}

/* Mirror port: XDP_DROP for a unicast frame whose destination is not
 * this port, exactly the frames eth_type_trans marks PACKET_OTHERHOST;
 * broadcast, multicast and the host's own traffic pass. */
static __always_inline int mirror_verdict(struct xdp_md *ctx)
{
	const __u8 *d = (const __u8 *)(long)ctx->data;
	__u32 zero = 0;

	if ((void *)(d + 6) > (void *)(long)ctx->data_end)
		return XDP_PASS;
	if ((d[0] & 1) || (d[0] == host_mac[0] && d[1] == host_mac[1] && d[2] == host_mac[2] &&
			   d[3] == host_mac[3] && d[4] == host_mac[4] && d[5] == host_mac[5]))
		return XDP_PASS;
	struct xdp_stats_val *st = bpf_map_lookup_elem(&xdp_stats, &zero);
	if (st)
		bump(st, XS_MIRROR_DROPS);
	return XDP_DROP;
}

SEC("xdp.frags")
int xdp_roce(struct xdp_md *ctx)
{
	roce_observe(ctx);
	return mirror_port ? mirror_verdict(ctx) : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
