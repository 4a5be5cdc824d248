// SPDX-License-Identifier: GPL-2.0
/* xdp_roce: the XDP fast path.  For every frame it parses, with bounded
 * cursor checks (xdp-tools style, one always-inline parser per layer),
 * Ethernet (up to 4 VLAN tags; bpf/parse_l2.h), IPv4 / IPv6 (+ extension
 * headers) and UDP 4791 (RoCEv2; bpf/parse_ip.h) or Ethertype 0x8915
 * (RoCEv1), the BTH and its extended headers (RETH, AETH, IETH, ImmDt,
 * DETH, ...; bpf/parse_ib.h), and at the start of SEND First / SEND Only
 * payloads the RPC-over-RDMA v1 header and a summary of its chunk lists
 * (bpf/parse_rpcrdma.h).  RoCE and malformed frames produce one record
 * each in the ring buffer (the parsed fields + the first snap_len bytes
 * of the frame); every frame updates the counters.  It returns XDP_PASS:
 * traffic is never dropped or changed.
 * The one exception is asked for by name: on a mirror (SPAN) port
 * (mirror_port), a unicast frame for another host is a copy the stack
 * would build an skb for only to drop it (PACKET_OTHERHOST), so it is
 * dropped here, after it is counted and recorded.
 *
 * The checks mirror dissect/roce.c and dissect/ib.c rule for rule, so a
 * frame is RoCE / malformed / other here exactly when it is for the
 * dissector (tests/bpf/test_xdp_diff.c checks that on every lab frame). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp_roce.h"
#include "parse_frame.h"
#include "parse_l2.h"
#include "parse_ip.h"
#include "parse_ib.h"
#include "parse_rpcrdma.h"

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

/* st: this CPU's counters, looked up once per frame */
#define bump(st, slot) ((st)->v[(slot)]++)

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


/* Ethernet to the BTH: fills f up to f->bth, or says the frame is not
 * RoCE (PARSE_PASS) or malformed (PARSE_BAD at f->layer). */
static __always_inline int parse_to_bth(struct xdp_md *ctx, struct frame_info *f)
{
	struct hdr_cursor nh = { .pos = f->data };
	int proto = parse_ethhdr(&nh, f), v;

	switch (proto) {
	case ETH_P_IP:
		v = parse_iphdr(ctx, &nh, f);
		break;
	case ETH_P_IPV6:
		v = parse_ip6hdr(ctx, &nh, f);
		break;
	case ETH_P_ROCE_V1:
		return parse_grh(ctx, &nh, f);
	default:
		return proto < 0 ? -proto : PARSE_PASS;
	}
	if (v != PARSE_OK)
		return v;
	return parse_udphdr(&nh, f, roce_port);
}

/* What the layers below the BTH said, into the record. */
static __always_inline void rec_put_frame(struct xdp_roce_rec *r, const struct frame_info *f)
{
	r->kind = f->kind;
	r->family = f->family;
	r->ecn = f->ecn;
	r->sport = f->sport;
	r->tp_len = f->tp_len;
	if (f->family == 4) {
		__builtin_memcpy(r->src, f->src, 4);
		__builtin_memcpy(r->dst, f->dst, 4);
	} else {
		__builtin_memcpy(r->src, f->src, 16);
		__builtin_memcpy(r->dst, f->dst, 16);
	}
}

/* The BTH and its extended headers into r (after rec_put_frame); returns
 * the payload's frame offset, or -1: malformed at f->layer. */
static __always_inline int roce_parse_ib(struct frame_info *f, struct xdp_roce_rec *r)
{
	/* Every framing (VLAN tags, IPv4 options, IPv6 extensions, RoCEv1)
	 * reaches the BTH at a different constant offset; passing the offset
	 * through the map value makes it one unknown, bounded scalar, so the
	 * verifier checks everything below once instead of once per framing. */
	r->payload_off = (__u32)(f->bth - (__u8 *)f->data);

	__u32 bo = *(volatile __u32 *)&r->payload_off;
	__u32 tp_len = *(volatile __u32 *)&r->tp_len;

	if (bo > 512 || tp_len > 0xffff)
		return -1;              /* cannot happen: headers are < 512 bytes */
	/* A no-op mask on the register that is added to the packet
	 * pointer: older verifiers (6.1) lose the bound above when the
	 * compiler spills bo between the check and the addition. */
	asm volatile("%0 &= 1023" : "+r"(bo));
	f->layer = XM_IB;
	return parse_ib_transport((__u8 *)f->data + bo, f->data_end, bo, tp_len, r);
}

/* SEND First, SEND Only, SEND Only with Immediate / Invalidate: an
 * RPC-over-RDMA header starts the payload. */
static __always_inline int op_starts_send(__u8 op)
{
	return op == 0x00 || op == 0x04 || op == 0x05 || op == 0x17;
}

/* A well-formed RoCE frame whose payload starts at frame offset off: the
 * RPC-over-RDMA summary of a SEND that starts a message, and what of the
 * frame the record keeps. */
static __always_inline void rec_payload(struct xdp_md *ctx, struct xdp_stats_val *st, struct rec_at *at,
					__u32 off, __u32 wire)
{
	struct xdp_roce_rec *r = at->r;
	__u8 op = r->opcode & 0x1f, svc = r->opcode >> 5;

	if (op_starts_send(op)) {
		if (svc == 3 || svc == 4)       /* UD, CNP */
			return;
		__builtin_memset((__u8 *)r + XDP_REC_BASE, 0, XDP_REC_FULL - XDP_REC_BASE);
		r->rr_status = (__u8)rr_parse(ctx, r, off, off + r->payload_len);
		if (r->rr_status == RR_OK)
			bump(st, XS_RPCRDMA);
		/* A message's start keeps its snap bytes.  Returning here keeps
		 * op from being live across rr_parse's list loops, where the
		 * verifier would keep a state per SEND opcode (1.5x the work). */
		return;
	}
	/* A frame past the snap length that does not start a message
	 * keeps only its headers (bpf/xdp_roce.h). */
	if (at->cap < wire && op != 0x06 && op != 0x0a && op != 0x0b && op != 0x0d && op != 0x10 &&
	    off < at->cap)
		at->cap = off;
}

/* A clock read costs as much as the parse (~21 ns here: a helper
 * call plus the clocksource's indirect call), so only a record gets
 * one, and a middle packet of a message or an ACKNOWLEDGE not even
 * then unless whole frames are captured: per-XID times come from a
 * message's first and last packets, and an ACK's time reaches no
 * per-XID record (bpf/xdp_roce.h). */
static __always_inline void rec_clock(struct xdp_roce_rec *r, int want)
{
	__u8 op = r->opcode & 0x1f;

	if (want && (snap_len >= XDP_ROCE_SNAP_MAX ||
		     (op != 0x01 && op != 0x07 && op != 0x0e && op != 0x11)))
		r->ts_ns = bpf_ktime_get_ns();
}

/* A well-formed RoCE frame: counted, summarised, timed. */
static __always_inline void roce_account(struct xdp_md *ctx, struct xdp_stats_val *st, struct rec_at *at,
					 __u32 off, __u32 wire, int want, __u64 frame)
{
	at->r->status = XR_ROCE;
	bump(st, XS_ROCE);
	rec_payload(ctx, st, at, off, wire);
	rec_clock(at->r, want);
	conn_count(st, at->r, wire, frame);
}

static __always_inline void rec_malformed(struct xdp_stats_val *st, struct xdp_roce_rec *r, __u8 layer, int want)
{
	r->status = XR_MALFORMED;
	r->mal_layer = layer;
	if (want)
		r->ts_ns = bpf_ktime_get_ns();
	bump(st, XS_MALFORMED);
}

/* The record's frame bytes and trailer fields, then its publication. */
static __always_inline void rec_emit(struct xdp_md *ctx, struct xdp_stats_val *st, struct rec_at *at,
				     int want, __u32 wire, __u64 frame)
{
	struct xdp_roce_rec *r = at->r;

	if (!want) {
		bump(st, XS_SAMPLED_OUT);
		return;
	}
	if (!at->c) {
		bump(st, XS_RB_DROPS);
		return;
	}

	__u64 cap = BOUND_CAP(at->cap, XDP_ROCE_SNAP_MAX);
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
	__sync_fetch_and_add(&at->c->head, len);
	bump(st, XS_RECORDS);
	__u64 wake = ((__u64)ring_mask + 1) >> 3;
	if (at->used < wake && at->used + len >= wake) {
		__u32 cpu = bpf_get_smp_processor_id();

		bpf_ringbuf_output(&xdp_wake, &cpu, sizeof(cpu), BPF_RB_FORCE_WAKEUP);
		bump(st, XS_WAKEUPS);
	}
}

static __always_inline int roce_observe(struct xdp_md *ctx)
{
	struct frame_info f = {
		.data = (void *)(long)ctx->data,
		.data_end = (void *)(long)ctx->data_end,
		.kind = XK_ROCE_V2,
	};
	__u64 frame = __sync_fetch_and_add(&frame_seq, 1) + 1;
	int want = !(sample_every > 1 && frame % sample_every);
	__u32 zero = 0;
	struct xdp_stats_val *st = bpf_map_lookup_elem(&xdp_stats, &zero);
	struct rec_at at;
	int v, off;

	if (!st)
		return XDP_PASS;
	bump(st, XS_FRAMES);
	f.lin = (__u32)((long)f.data_end - (long)f.data);

	v = parse_to_bth(ctx, &f);
	if (v == PARSE_PASS)
		return XDP_PASS;
	if (v == PARSE_BAD) {
		if (!f.wire)    /* failed before the datagram's length was read */
			f.wire = frame_len(ctx, f.lin, 0);
		if (rec_begin(&at, want, f.wire))
			return XDP_PASS;
		rec_malformed(st, at.r, f.layer, want);
	} else {
		if (rec_begin(&at, want, f.wire))
			return XDP_PASS;
		rec_put_frame(at.r, &f);
		off = roce_parse_ib(&f, at.r);
		if (off < 0)
			rec_malformed(st, at.r, f.layer, want);
		else
			roce_account(ctx, st, &at, (__u32)off, f.wire, want, frame);
	}
	rec_emit(ctx, st, &at, want, f.wire, frame);
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
