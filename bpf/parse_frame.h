/* SPDX-License-Identifier: GPL-2.0 */
/* What the layer parsers of bpf/xdp_roce.bpf.c share (bpf/parse_l2.h,
 * parse_ip.h, parse_ib.h, parse_rpcrdma.h): the cursor, the frame state
 * they fill on the way to the BTH, their verdicts and the bounded-read
 * helpers.  Every parser is __always_inline: a BPF-to-BPF call's return
 * goes through the Safe-RET thunk on this host (~4 ns), and a static
 * subprogram is verified at every call site anyway. */
#ifndef NFSRDMA_BPF_PARSE_FRAME_H
#define NFSRDMA_BPF_PARSE_FRAME_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp_roce.h"

/* The next header to read; every read is checked against data_end. */
struct hdr_cursor {
	void *pos;
};

/* A parser's verdict on the frame. */
enum parse_verdict {
	PARSE_OK = 0,     /* go on to the next layer */
	PARSE_PASS,       /* not RoCE: counted, no record */
	PARSE_BAD,        /* malformed at frame_info.layer */
};

/* What the parsers from Ethernet to the BTH learn. */
struct frame_info {
	void *data;
	void *data_end;
	__u32 lin;          /* bytes in the linear part */
	__u32 wire;         /* frame_len() once the datagram's end is known, else 0 */
	__u32 l3;           /* frame offset of the IP header / GRH */
	__u32 ip_payload;   /* IP datagram bytes after the IP header(s) */
	__u32 tp_len;       /* IB transport part: BTH .. end of pad (no ICRC) */
	const __u8 *src;    /* addresses, in the frame */
	const __u8 *dst;
	__u8 *bth;
	__u16 sport;        /* RoCEv2 UDP source port */
	__u8 family;        /* 4, 6, 'G' (RoCEv1) */
	__u8 ecn;
	__u8 kind;          /* xdp_frame_kind */
	__u8 layer;         /* xdp_mal_layer being parsed: where PARSE_BAD failed */
};

/* v & m (m = 2^k - 1) computed right where it is used: older verifiers
 * (6.1) lose a bound when the compiler spills the value between the
 * masking and the pointer arithmetic. */
#define BOUND(v, m) ({ __u64 v_ = (v); asm volatile("%0 &= " #m : "+r"(v_)); v_; })

static __always_inline __u32 be32_at(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
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

#endif
