/* SPDX-License-Identifier: GPL-2.0 */
/* The RPC-over-RDMA version 1 header (RFC 8166) at the start of a SEND
 * First / Only payload, for bpf/xdp_roce.bpf.c: the fixed words, then a
 * summary of the Read list, the Write list and the Reply chunk into the
 * record's rr_ fields.  Every parser returns 0 to go on or the
 * xdp_rr_status that ends the parse. */
#ifndef NFSRDMA_BPF_PARSE_RPCRDMA_H
#define NFSRDMA_BPF_PARSE_RPCRDMA_H

#include <bpf/bpf_endian.h>

#include "parse_frame.h"

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

/* lin: the cell of pkt_at, or NULL: read with bpf_xdp_load_bytes. */
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

/* A list's discriminator at *offp: 0 (end) or 1 (an entry follows), into
 * *disc. */
static __always_inline int rr_disc(struct xdp_md *ctx, __u32 *offp, __u32 end, __u32 *disc, __u32 *lin)
{
	__u32 off = *offp;
	int err = 0;

	if (end - off < 4)
		return RR_SHORT;
	*disc = ld32(ctx, off, &err, lin);
	if (err)
		return RR_SHORT;
	*offp = off + 4;
	if (*disc > 1)
		return RR_BAD;
	return 0;
}

/* One Write or Reply chunk: segment count, first segment, skip the rest. */
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

/* xid, vers, credits, proc and what each proc has before the lists.
 * RDMA_DONE and RDMA_ERROR end here: RR_OK with rr_hdr_len set. */
static __always_inline int rr_fixed(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 *offp, __u32 end,
				    __u32 *lin)
{
	__u32 start = *offp, off = start, w[4];
	int err = 0;

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
	*offp = off;
	return 0;
}

/* Read list: { 1, position, handle, length, offset64 }* 0 */
static __always_inline int rr_read_list(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 *offp, __u32 end,
					__u32 *lin)
{
	__u32 off = *offp;
	int err = 0;

	for (int i = 0; i <= XDP_RR_MAX_RSEGS; i++) {
		__u32 disc;
		int st = rr_disc(ctx, &off, end, &disc, lin);

		if (st)
			return st;
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
	*offp = off;
	return 0;
}

/* Write list: { 1, nsegs, segment x nsegs }* 0 */
static __always_inline int rr_write_list(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 *offp, __u32 end,
					 __u32 *lin)
{
	__u32 off = *offp;
	int st;

	for (int i = 0; i <= XDP_RR_MAX_WCHUNKS; i++) {
		__u32 disc;

		st = rr_disc(ctx, &off, end, &disc, lin);
		if (st)
			return st;
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
	*offp = off;
	return 0;
}

/* Reply chunk: 0 | 1, nsegs, segment x nsegs */
static __always_inline int rr_reply_chunk(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 *offp, __u32 end,
					  __u32 *lin)
{
	__u32 disc;
	int st = rr_disc(ctx, offp, end, &disc, lin);

	if (st)
		return st;
	if (disc) {
		__u32 n = 0;
		st = rr_chunk(ctx, offp, end, &n, &r->rp1, 1, lin);
		if (st)
			return st;
		r->n_rpsegs = n;
		r->rr_flags |= XRR_REPLY;
	}
	return 0;
}

/* The whole header at frame offset off, end = end of the payload; lin:
 * all of it is in the linear part, read with pkt_at (lin is its cell),
 * or NULL: read with bpf_xdp_load_bytes. */
static __always_inline int rr_parse_body(struct xdp_md *ctx, struct xdp_roce_rec *r, __u32 off, __u32 end,
					 __u32 *lin)
{
	__u32 start = off;
	int st;

	st = rr_fixed(ctx, r, &off, end, lin);
	if (st)
		return st;
	st = rr_read_list(ctx, r, &off, end, lin);
	if (st)
		return st;
	st = rr_write_list(ctx, r, &off, end, lin);
	if (st)
		return st;
	st = rr_reply_chunk(ctx, r, &off, end, lin);
	if (st)
		return st;
	r->rr_hdr_len = (__u16)(off - start);
	return RR_OK;
}

#endif
