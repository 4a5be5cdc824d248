/* SPDX-License-Identifier: GPL-2.0 */
/* The InfiniBand layers for bpf/xdp_roce.bpf.c: the RoCEv1 GRH, the BTH
 * and its extended headers (RDETH, DETH, XRCETH, FETH, RETH, AtomicETH,
 * AETH, AtomicAckETH, ImmDt, IETH), rule for rule as dissect/ib.c checks
 * them.  The BTH parsers write straight into the record. */
#ifndef NFSRDMA_BPF_PARSE_IB_H
#define NFSRDMA_BPF_PARSE_IB_H

#include "parse_frame.h"

#define ETH_P_ROCE_V1 0x8915
#define GRH_LEN       40
#define GRH_NXT_BTH   0x1b
#define BTH_LEN       12
#define ICRC_LEN      4

/* RoCEv1: the GRH, whose PayLen covers BTH .. ICRC. */
static __always_inline int parse_grh(struct xdp_md *ctx, struct hdr_cursor *nh, struct frame_info *f)
{
	__u8 *grh = nh->pos;
	__u32 paylen;

	f->layer = XM_ROCE;
	if ((void *)(grh + GRH_LEN) > f->data_end)
		return PARSE_BAD;
	if (grh[6] != GRH_NXT_BTH)
		return PARSE_BAD;
	paylen = ((__u32)grh[4] << 8) | grh[5];
	f->wire = frame_len(ctx, f->lin, f->l3 + GRH_LEN + paylen);
	if (paylen < 16 || f->wire < f->l3 + GRH_LEN || paylen > f->wire - f->l3 - GRH_LEN)
		return PARSE_BAD;
	f->family = 'G';
	f->kind = XK_ROCE_V1;
	f->ecn = (grh[1] >> 4) & 3;
	f->src = grh + 8;
	f->dst = grh + 24;
	f->tp_len = paylen - ICRC_LEN;
	f->bth = grh + GRH_LEN;
	return PARSE_OK;
}

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
#undef P
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

/* The BTH into r; returns its extended-header set, or -1. */
static __always_inline int parse_bth(const __u8 *bth, void *data_end, struct xdp_roce_rec *r)
{
	if ((void *)(bth + BTH_LEN) > data_end)
		return -1;

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
		return -1;
	if (b1 & 0xf)           /* TVer */
		return -1;
	r->hdrs = (__u16)hdrs;
	return hdrs;
}

/* The extended headers at p (just after the BTH) of set h, into r.
 * Returns the BTH + extended header length, or -1.  Their offsets, in
 * wire order, are computed without branches (one verifier state for
 * all). */
static __always_inline int parse_ext_hdrs(const __u8 *p, void *data_end, __u32 h, __u32 tp_len,
					  struct xdp_roce_rec *r)
{
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
	__u32 hlen = BTH_LEN + ext;
	const __u8 *q;

	if (hlen > tp_len)
		return -1;
	if (ext > 48 || (void *)(p + ext) > data_end)
		return -1;
	if (h & XH_DETH) {
		q = p + BOUND(o_deth, 63);
		if ((void *)(q + 8) > data_end)
			return -1;
		r->deth_qkey = be32_at(q);
		r->deth_srcqp = be32_at(q + 4) & 0xffffff;
	}
	if (h & XH_RETH) {
		q = p + BOUND(o_reth, 63);
		if ((void *)(q + 16) > data_end)
			return -1;
		r->reth_va = ((__u64)be32_at(q) << 32) | be32_at(q + 4);
		r->reth_rkey = be32_at(q + 8);
		r->reth_len = be32_at(q + 12);
	}
	if (h & XH_AETH) {
		q = p + BOUND(o_aeth, 63);
		if ((void *)(q + 4) > data_end)
			return -1;
		r->aeth_syn = q[0];
		r->aeth_msn = be32_at(q) & 0xffffff;
	}
	if (h & XH_IMMDT) {
		q = p + BOUND(o_imm, 63);
		if ((void *)(q + 4) > data_end)
			return -1;
		r->imm = be32_at(q);
	}
	if (h & XH_IETH) {
		q = p + BOUND(o_ieth, 63);
		if ((void *)(q + 4) > data_end)
			return -1;
		r->ieth_rkey = be32_at(q);
	}
	return (int)hlen;
}

/* The BTH at frame offset off and everything up to the payload, into r;
 * the transport part (tp_len) clips the headers (past it they are
 * truncated, as in the dissector).  Sets r->payload_off and
 * r->payload_len; returns the payload's offset, or -1. */
static __always_inline int parse_ib_transport(const __u8 *bth, void *data_end, __u32 off, __u32 tp_len,
					      struct xdp_roce_rec *r)
{
	int h = parse_bth(bth, data_end, r);
	if (h < 0)
		return -1;
	int hl = parse_ext_hdrs(bth + BTH_LEN, data_end, (__u32)h, tp_len, r);
	if (hl < 0)
		return -1;

	__u32 hlen = (__u32)hl, pad = XB_PAD(r->bth_flags);
	if (tp_len & 3)
		return -1;
	if (hlen + pad > tp_len)
		return -1;
	r->payload_len = tp_len - hlen - pad;
	if (!(h & XH_PAYLOAD) && r->payload_len)
		return -1;
	off += hlen;
	r->payload_off = off;
	return (int)off;
}

#endif
