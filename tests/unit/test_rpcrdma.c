/* RPC-over-RDMA v1 header decoding (RFC 8166 §4). */
#include "check.h"
#include "xdrbuild.h"

#include <errno.h>

#include "dissect/rpcrdma.h"

static struct rpcrdma_hdr h;

static int dec(const struct xb *x, struct cursor *c)
{
	*c = cur_make(x->b, x->n);
	return rpcrdma_decode(&h, c);
}

/* The edges of RDMA_MSGP's padding (RFC 5666 §3.9: the body starts at
 * the next multiple of align): 4 and 4096 are taken, 2 and 8192 are
 * silly values (no padding); and of peeking at the version word, which
 * needs the first 8 bytes and no more. */
static void msgp_edges(void)
{
	static const struct { uint32_t align; size_t body_off; } rows[] = {
		{ 2, 36 }, { 4, 36 }, { 64, 64 }, { 4096, 4096 }, { 8192, 36 },
	};
	static struct xb x;
	struct cursor c;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		x.n = 0;
		xb_rdma_hdr(&x, 10, 1, RDMA_MSGP);
		xb_u32(&x, rows[i].align);
		xb_u32(&x, 1024);
		xb_no_chunks(&x);
		memset(x.b + x.n, 0, 8192 + 64 - x.n);   /* room for any padding and a body */
		x.n = 8192 + 64;
		CHECK_EQ_U64(dec(&x, &c), 0);
		CHECK_EQ_U64(h.hdr_len, 36);
		CHECK(h.body_off == rows[i].body_off, "align %u: body at %zu, not %zu", rows[i].align, h.body_off,
		      rows[i].body_off);
	}

	const uint8_t v[8] = { 0, 0, 0, 9, 0, 0, 0, 1 };
	CHECK_EQ_U64(rpcrdma_peek_vers(v, 8), 1);
	CHECK_EQ_U64(rpcrdma_peek_vers(v, 7), 0);
}

int main(void)
{
	msgp_edges();
	struct xb x;
	struct cursor c;

	/* RDMA_MSG, no chunks */
	x.n = 0;
	xb_rdma_hdr(&x, 0xdeadbeef, 128, RDMA_MSG);
	xb_no_chunks(&x);
	xb_u32(&x, 0xdeadbeef);
	CHECK_EQ_U64(dec(&x, &c), 0);
	CHECK_EQ_U64(h.xid, 0xdeadbeef);
	CHECK_EQ_U64(h.credits, 128);
	CHECK_EQ_U64(h.proc, RDMA_MSG);
	CHECK_EQ_U64(h.hdr_len, 28);
	CHECK_EQ_U64(h.body_off, 28);
	CHECK_EQ_U64(h.nrsegs + h.nwchunks + h.has_reply, 0);

	/* RDMA_NOMSG: P0 read chunk (2 segs) + a position-100 chunk, write list of 2 chunks, reply chunk */
	x.n = 0;
	xb_rdma_hdr(&x, 7, 32, RDMA_NOMSG);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_seg(&x, 1, 100, 0x1000);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_seg(&x, 2, 50, 0x2000);
	xb_u32(&x, 1); xb_u32(&x, 100); xb_seg(&x, 3, 8192, 0x3000);
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 2); xb_seg(&x, 4, 4096, 0x4000); xb_seg(&x, 5, 4096, 0x5000);
	xb_u32(&x, 1); xb_u32(&x, 1); xb_seg(&x, 6, 3, 0x6000);
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 1); xb_seg(&x, 7, 1024, 0x7000);
	CHECK_EQ_U64(dec(&x, &c), 0);
	CHECK_EQ_U64(h.nrsegs, 3);
	CHECK_EQ_U64(rpcrdma_read_chunk_count(&h), 2);
	CHECK_EQ_U64(rpcrdma_read_chunk_len(&h, 0), 150);
	CHECK_EQ_U64(rpcrdma_read_chunk_len(&h, 100), 8192);
	CHECK(rpcrdma_has_p0(&h), "p0");
	CHECK_EQ_U64(h.nwchunks, 2);
	CHECK_EQ_U64(h.wchunks[0].nsegs, 2);
	CHECK_EQ_U64(h.wchunks[0].length, 8192);
	CHECK_EQ_U64(h.wchunks[1].length, 3);
	CHECK_EQ_U64(h.wsegs[2].handle, 6);
	CHECK(h.has_reply, "reply chunk");
	CHECK_EQ_U64(h.reply_len, 1024);
	CHECK_EQ_U64(h.rpsegs[0].offset, 0x7000);
	CHECK_EQ_U64(h.hdr_len, x.n);

	/* RDMA_MSGP: align/thresh then lists; body at the aligned offset */
	x.n = 0;
	xb_rdma_hdr(&x, 8, 1, RDMA_MSGP);
	xb_u32(&x, 64);
	xb_u32(&x, 1024);
	xb_no_chunks(&x);
	CHECK_EQ_U64(dec(&x, &c), 0);
	CHECK_EQ_U64(h.align, 64);
	CHECK_EQ_U64(h.hdr_len, 36);
	CHECK_EQ_U64(h.body_off, 36);   /* 64 would be past the end */

	/* RDMA_ERROR ERR_VERS / ERR_CHUNK / bad code */
	x.n = 0;
	xb_rdma_hdr(&x, 9, 0, RDMA_ERROR);
	xb_u32(&x, ERR_VERS);
	xb_u32(&x, 1);
	xb_u32(&x, 1);
	CHECK_EQ_U64(dec(&x, &c), 0);
	CHECK_EQ_U64(h.err, ERR_VERS);
	CHECK_EQ_U64(h.vers_high, 1);
	CHECK_EQ_STR(rpcrdma_err_name(h.err), "ERR_VERS");
	x.n = 0;
	xb_rdma_hdr(&x, 9, 0, RDMA_ERROR);
	xb_u32(&x, ERR_CHUNK);
	CHECK_EQ_U64(dec(&x, &c), 0);
	x.n = 0;
	xb_rdma_hdr(&x, 9, 0, RDMA_ERROR);
	xb_u32(&x, 3);
	CHECK_EQ_U64(dec(&x, &c), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_INVALID);

	/* RDMA_DONE: header only */
	x.n = 0;
	xb_rdma_hdr(&x, 9, 0, RDMA_DONE);
	CHECK_EQ_U64(dec(&x, &c), 0);
	CHECK_EQ_STR(rpcrdma_proc_name(h.proc), "RDMA_DONE");

	/* failures: short, wrong version, bad discriminator, truncated segment, bad proc */
	x.n = 0;
	xb_u32(&x, 1);
	xb_u32(&x, 1);
	CHECK_EQ_U64(dec(&x, &c), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);
	x.n = 0;
	xb_u32(&x, 1); xb_u32(&x, 3); xb_u32(&x, 1); xb_u32(&x, 0);
	CHECK_EQ_U64(dec(&x, &c), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, 4);
	CHECK_EQ_U64(rpcrdma_peek_vers(x.b, x.n), 3);
	x.n = 0;
	xb_rdma_hdr(&x, 1, 1, RDMA_MSG);
	xb_u32(&x, 2);
	CHECK_EQ_U64(dec(&x, &c), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, 16);
	x.n = 0;
	xb_rdma_hdr(&x, 1, 1, RDMA_MSG);
	xb_u32(&x, 0);
	xb_u32(&x, 1);
	xb_u32(&x, 1000000);  /* write chunk claims a million segments */
	CHECK_EQ_U64(dec(&x, &c), (uint64_t)-EBADMSG);
	x.n = 0;
	xb_rdma_hdr(&x, 1, 1, 5);
	CHECK_EQ_U64(dec(&x, &c), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err_off, 12);

	/* more segments than stored: counted, flagged, not overrun */
	x.n = 0;
	xb_rdma_hdr(&x, 1, 1, RDMA_NOMSG);
	for (int i = 0; i < RPCRDMA_MAX_RSEGS + 5; i++) {
		xb_u32(&x, 1);
		xb_u32(&x, 0);
		xb_seg(&x, (uint32_t)i, 10, 0);
	}
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	CHECK_EQ_U64(dec(&x, &c), 0);
	CHECK_EQ_U64(h.nrsegs, RPCRDMA_MAX_RSEGS);
	CHECK_EQ_U64(h.nrsegs_wire, RPCRDMA_MAX_RSEGS + 5);
	CHECK(h.overflow, "overflow flagged");
	return check_summary("test_rpcrdma");
}
