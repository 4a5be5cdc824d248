/* RPC-over-RDMA version 2 headers: draft -07 types and the -00..-02
 * layout, built from the drafts' XDR (no implementation speaks v2). */
#include "check.h"
#include "xdrbuild.h"

#include "dissect/rpcrdma2.h"

static struct rpcrdma2_hdr h;

static int dec_hint(const struct xb *x, enum rpcrdma2_layout hint)
{
	struct cursor c = cur_make(x->b, x->n);
	return rpcrdma2_decode(&h, &c, hint);
}

static int dec(const struct xb *x)
{
	return dec_hint(x, RPCRDMA2_UNKNOWN);
}

static void common(struct xb *x, uint32_t xid, uint32_t type)
{
	x->n = 0;
	xb_u32(x, xid);
	xb_u32(x, 2);
	xb_u32(x, 32);
	xb_u32(x, type);
}

int main(void)
{
	struct xb x;

	/* CALL_INLINE: inv_handle, reads, writes, reply, then the RPC */
	common(&x, 1, R2_CALL_INLINE);
	xb_u32(&x, 0xaaaa);
	xb_u32(&x, 1); xb_u32(&x, 96); xb_seg(&x, 1, 4096, 0x1000); xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 1); xb_seg(&x, 2, 1024, 0x2000);
	size_t hl = x.n;
	xb_u32(&x, 1);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.layout, RPCRDMA2_DRAFT07);
	CHECK_EQ_STR(rpcrdma2_htype_name(&h), "RDMA2_CALL_INLINE");
	CHECK(!rpcrdma2_is_reply(&h) && !rpcrdma2_is_middle(&h), "a whole call");
	CHECK_EQ_U64(h.inv_handle, 0xaaaa);
	CHECK_EQ_U64(h.lists.nrsegs, 1);
	CHECK_EQ_U64(h.lists.rsegs[0].position, 96);
	CHECK(h.lists.has_reply, "reply chunk");
	CHECK_EQ_U64(h.lists.reply_len, 1024);
	CHECK(h.has_rpc, "rpc follows");
	CHECK_EQ_U64(h.hdr_len, hl);

	/* CALL_EXTERNAL: rdma_call (position-zero chunk) + lists */
	common(&x, 2, R2_CALL_EXTERNAL);
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_seg(&x, 3, 300, 0x3000); xb_u32(&x, 0);
	xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK(h.has_call_chunk, "call chunk");
	CHECK_EQ_U64(h.lists.nrsegs, 1);
	CHECK_EQ_U64(h.lists.rsegs[0].seg.length, 300);
	CHECK(!h.has_rpc, "no inline rpc");

	/* REPLY_INLINE with a Write chunk; REPLY_MIDDLE; GRANT */
	common(&x, 3, R2_REPLY_INLINE);
	xb_u32(&x, 1); xb_u32(&x, 1); xb_seg(&x, 4, 8192, 0x4000); xb_u32(&x, 0);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.lists.nwchunks, 1);
	CHECK_EQ_U64(h.lists.wchunks[0].length, 8192);
	common(&x, 3, R2_REPLY_MIDDLE);
	xb_u32(&x, 5000);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.remaining, 5000);
	CHECK(rpcrdma2_is_reply(&h) && rpcrdma2_is_middle(&h), "a continued reply");
	common(&x, 0, R2_GRANT);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_STR(rpcrdma2_htype_name(&h), "RDMA2_GRANT");
	CHECK_EQ_U64(h.layout, RPCRDMA2_DRAFT07);

	/* CONNPROP_FINAL with two properties */
	common(&x, 0, R2_CONNPROP_FINAL);
	xb_u32(&x, 2);
	xb_u32(&x, 1); xb_opaque(&x, "\0\0\x20\0", 4);
	xb_u32(&x, 5); xb_opaque(&x, "\0\0\0\1", 4);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.nprops, 2);
	CHECK_EQ_U64(h.prop_val[0], 8192);
	CHECK_EQ_STR(rpcrdma2_prop_name(h.prop_id[1]), "reverse-direction-support");
	/* 7 and up exist only in -07: a connection taken for -00..-02 does
	 * not change that (the lowest such type, at the edge) */
	CHECK_EQ_U64(dec_hint(&x, RPCRDMA2_DRAFT00), 0);
	CHECK_EQ_U64(h.layout, RPCRDMA2_DRAFT07);
	CHECK_EQ_U64(h.nprops, 2);

	/* ERROR VERS */
	common(&x, 9, R2_ERROR);
	xb_u32(&x, 1); xb_u32(&x, 1); xb_u32(&x, 2);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_STR(rpcrdma2_err_name(h.err), "VERS");
	CHECK_EQ_U64(h.err_b, 2);
	CHECK_EQ_U64(h.hdr_len, 28);
	/* the union's other arms: WRITE_RESOURCE has two words, REPLY_RESOURCE
	 * one, BAD_PROPVAL none */
	common(&x, 9, R2_ERROR);
	xb_u32(&x, R2ERR_WRITE_RESOURCE); xb_u32(&x, 1); xb_u32(&x, 65536);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.err_a, 1);
	CHECK_EQ_U64(h.err_b, 65536);
	CHECK_EQ_U64(h.hdr_len, 28);
	common(&x, 9, R2_ERROR);
	xb_u32(&x, R2ERR_REPLY_RESOURCE); xb_u32(&x, 9000);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.err_a, 9000);
	CHECK_EQ_U64(h.hdr_len, 24);
	common(&x, 9, R2_ERROR);
	xb_u32(&x, R2ERR_BAD_PROPVAL);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.hdr_len, 20);

	/* -00..-02 layout: RDMA2_MSG with the flags word, then
	 * rpcrdma2_chunk_lists: inv_handle and the v1-style lists */
	common(&x, 4, R2OLD_MSG);
	xb_u32(&x, R2OLD_F_RESPONSE);
	xb_u32(&x, 0x77);
	xb_u32(&x, 0); xb_u32(&x, 1); xb_u32(&x, 1); xb_seg(&x, 5, 4096, 0x5000); xb_u32(&x, 0);
	xb_u32(&x, 0);
	hl = x.n;
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.layout, RPCRDMA2_DRAFT00);
	CHECK_EQ_U64(h.flags, 1);
	CHECK_EQ_U64(h.inv_handle, 0x77);
	CHECK_EQ_U64(h.lists.nwchunks, 1);
	CHECK_EQ_U64(h.hdr_len, hl);
	CHECK(rpcrdma2_is_reply(&h) && !rpcrdma2_is_middle(&h), "F_RESPONSE: a reply");
	CHECK_EQ_STR(rpcrdma2_htype_name(&h), "RDMA2_MSG");
	common(&x, 4, R2OLD_MSG);
	xb_u32(&x, R2OLD_F_MORE);
	xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK(!rpcrdma2_is_reply(&h) && rpcrdma2_is_middle(&h), "F_MORE: a continued call");
	/* undefined flag bits */
	common(&x, 4, R2OLD_NOMSG);
	xb_u32(&x, 0x100);
	xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	CHECK(dec(&x) != 0, "undefined flags");
	/* types both layouts define: 6 with only a flags word is the old
	 * GRANT, 5 with a body is the old CONNPROP; a -07 GRANT (5) is empty */
	common(&x, 0, 6);
	xb_u32(&x, 0);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.layout, RPCRDMA2_DRAFT00);
	CHECK_EQ_STR(rpcrdma2_htype_name(&h), "RDMA2_GRANT");
	common(&x, 0, 5);
	xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 2); xb_opaque(&x, "\0\0\x10\0", 4);
	CHECK_EQ_U64(dec(&x), 0);
	CHECK_EQ_U64(h.layout, RPCRDMA2_DRAFT00);
	CHECK_EQ_U64(h.nprops, 1);
	CHECK_EQ_U64(h.prop_val[0], 4096);
	/* ERROR: the connection's layout decides */
	common(&x, 7, 4);
	xb_u32(&x, R2OLD_F_RESPONSE); xb_u32(&x, R2ERR_SEGMENTS); xb_u32(&x, 16);
	CHECK_EQ_U64(dec_hint(&x, RPCRDMA2_DRAFT00), 0);
	CHECK_EQ_U64(h.err, R2ERR_SEGMENTS);
	CHECK_EQ_U64(h.err_a, 16);
	CHECK(rpcrdma2_is_reply(&h), "old ERROR is a reply");

	/* bad: unknown type, truncated lists, wrong version */
	common(&x, 0, 99);
	CHECK(dec(&x) != 0, "unknown type");
	common(&x, 0, R2_CALL_INLINE);
	xb_u32(&x, 0);
	xb_u32(&x, 1);
	CHECK(dec(&x) != 0, "truncated read list");
	common(&x, 0, R2_GRANT);
	x.b[7] = 1;
	CHECK(dec(&x) != 0, "version 1 is not v2");
	/* A Write list of RPCRDMA_LIST_LIMIT chunks is read; one more is
	 * invalid (it used to stop reading without an error). */
	for (uint32_t n = RPCRDMA_LIST_LIMIT; n <= RPCRDMA_LIST_LIMIT + 1; n++) {
		common(&x, 9, R2_CALL_INLINE);
		xb_u32(&x, 0);                       /* inv_handle */
		xb_u32(&x, 0);                       /* no Read list */
		for (uint32_t i = 0; i < n; i++) {
			xb_u32(&x, 1);
			xb_u32(&x, 0);               /* an empty Write chunk */
		}
		xb_u32(&x, 0);
		xb_u32(&x, 0);                       /* no Reply chunk */
		xb_u32(&x, 1);
		int rc = dec(&x);
		if (n == RPCRDMA_LIST_LIMIT)
			CHECK(rc == 0 && h.lists.nwchunks_wire == n, "%u Write chunks decode (%d)", n, rc);
		else
			CHECK(rc < 0, "%u Write chunks: invalid (%d)", n, rc);
	}
	return check_summary("test_rpcrdma2");
}
