/* End-to-end upper half: hand-built rdma_events in, per-XID records out.
 * Covers call/reply matching, Write/Read/Reply chunks, position-zero
 * reassembly, the XID hint, flush, unmatched replies and RDMA_ERROR. */
#include "check.h"
#include "xdrbuild.h"

#include "dissect/check.h"
#include "dissect/dissect.h"
#include "dissect/programs.h"

#define MAXREC 16
/* the phases that happened, added up: must be the total exactly */
static uint64_t phase_sum(const struct nfsrdma_record *r)
{
	uint64_t sum = 0;

	for (unsigned ph = 0; ph < REC_PH_N; ph++)
		if (rec_phase_seen(r, ph))
			sum += r->d_phase[ph];
	return sum;
}

static struct nfsrdma_record recs[MAXREC];
static unsigned nrec, ndiag;

static void on_rec(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	if (nrec < MAXREC)
		recs[nrec] = *r;
	nrec++;
}

static void on_diag(const struct diag *g, void *ctx)
{
	ndiag++;
	fprintf(stderr, "diag: frame %llu off %zu %s: %s\n", (unsigned long long)g->frame, g->offset,
		g->layer, g->msg);
}

static struct dissect *mk(void)
{
	struct dissect_cbs cbs = { on_rec, NULL, on_diag, NULL, NULL };
	nrec = ndiag = 0;
	memset(recs, 0, sizeof(recs));
	return dissect_new(NULL, &cbs);
}

static void test_getattr(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();

	tb_conn(&c, 1);
	x.n = 0;
	xb_rdma_hdr(&x, 0x11, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 0x11, 100003, 3, 1);
	xb_fh(&x, 7);
	struct rdma_event ev = tb_send(&c, 0, 1000000, 1, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 0);

	x.n = 0;
	xb_rdma_hdr(&x, 0x11, 64, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, 0x11);
	xb_u32(&x, 0);   /* NFS3_OK */
	xb_u32(&x, 0);   /* (attributes would follow; short on purpose) */
	ev = tb_send(&c, 1, 1500000, 2, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 1);
	struct nfsrdma_record *r = &recs[0];
	CHECK_EQ_U64(r->xid, 0x11);
	CHECK_EQ_U64(r->prog, 100003);
	CHECK_EQ_U64(r->vers, 3);
	CHECK_EQ_U64(r->proc, 1);
	CHECK_EQ_U64(r->status, 0);
	CHECK_EQ_U64(r->rpc_status, 0);
	CHECK_EQ_U64(r->auth_flavor, 1);
	CHECK_EQ_U64(r->auth_uid, 1000);
	CHECK(r->fh_hash != 0, "fh hash set");
	CHECK_EQ_U64(r->credits_asked, 128);
	CHECK_EQ_U64(r->credits_granted, 64);
	CHECK_EQ_U64(r->d_total, 1501000 - 1000000);
	/* an inline call: queueing and execution are one interval */
	CHECK_EQ_U64(r->d_phase[REC_PH_QUEUE_SERVER], 1500000 - 1001000);
	CHECK(!rec_phase_seen(r, REC_PH_SERVER) && !rec_phase_seen(r, REC_PH_QUEUE), "no separate queue/server");
	CHECK_EQ_U64(phase_sum(r), r->d_total);
	CHECK_EQ_U64(r->frame_call, 1);
	CHECK_EQ_U64(r->frame_reply, 2);
	CHECK(r->flags & RECF_CALL && r->flags & RECF_REPLY, "call+reply flags 0x%x", r->flags);
	CHECK_EQ_U64(r->caller.qpn, 17);
	CHECK_EQ_U64(r->callee.qpn, 18);
	CHECK_EQ_U64(r->source, REC_SRC_WIRE);
	CHECK_EQ_U64(ndiag, 0);
	dissect_free(d);
}

/* READ: Write chunk, RDMA WRITE before the reply */
static void test_read_write_chunk(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();
	uint32_t xid = 0xabcd0001;
	uint64_t va = ((uint64_t)xid << 32) | 0x1000;
	static uint8_t data[8192];

	tb_conn(&c, 1);
	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 0);
	xb_u32(&x, 0);             /* no read list */
	xb_u32(&x, 1);             /* write list: one chunk */
	xb_u32(&x, 1);
	xb_seg(&x, 0x100, 8192, va);
	xb_u32(&x, 0);             /* end of write list */
	xb_u32(&x, 0);             /* no reply chunk */
	xb_rpc_call(&x, xid, 100003, 3, 6);
	xb_fh(&x, 1);
	xb_u64(&x, 65536);
	xb_u32(&x, 8192);
	struct rdma_event ev = tb_send(&c, 0, 1000000, 1, &x);
	dissect_event(&ev, d);

	ev = tb_rdma(&c, RDMA_EV_WRITE, 1, 1200000, 2, 0x100, va, data, sizeof(data));
	dissect_event(&ev, d);

	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 1);
	xb_u32(&x, 1);
	xb_seg(&x, 0x100, 8192, va);   /* echo: 8192 written */
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_rpc_reply_ok(&x, xid);
	xb_u32(&x, 0);       /* NFS3_OK */
	xb_u32(&x, 0);       /* no post_op_attr */
	xb_u32(&x, 8192);    /* count */
	xb_u32(&x, 1);       /* eof */
	xb_u32(&x, 8192);    /* data length; body went by RDMA WRITE */
	ev = tb_send(&c, 1, 1300000, 4, &x);
	dissect_event(&ev, d);

	CHECK_EQ_U64(nrec, 1);
	struct nfsrdma_record *r = &recs[0];
	CHECK_EQ_U64(r->proc, 6);
	CHECK_EQ_U64(r->offset, 65536);
	CHECK_EQ_U64(r->count, 8192);
	CHECK_EQ_U64(r->res_count, 8192);
	CHECK_EQ_U64(r->status, 0);
	CHECK_EQ_U64(r->n_write_chunks, 1);
	CHECK_EQ_U64(r->n_write_segs, 1);
	CHECK_EQ_U64(r->write_chunk_bytes, 8192);
	CHECK_EQ_U64(r->write_bytes, 8192);
	CHECK_EQ_U64(r->write_list_echo, 8192);
	CHECK_EQ_U64(r->n_rdma_writes, 1);
	CHECK_EQ_U64(r->t_write_first, 1200000);
	CHECK_EQ_U64(r->t_write_last, 1202000);
	CHECK_EQ_U64(r->d_phase[REC_PH_PUSH], 2000);
	CHECK_EQ_U64(r->d_phase[REC_PH_QUEUE_SERVER], 1200000 - 1001000);
	CHECK(rec_phase_seen(r, REC_PH_WAIT), "the wait between the last WRITE and the reply");
	CHECK_EQ_U64(phase_sum(r), r->d_total);
	CHECK(!(r->flags & RECF_XID_HINT), "matched by handle, not hint");
	CHECK(!(r->flags & RECF_REPLY_PARTIAL), "reply decoded fully (flags 0x%x)", r->flags);
	CHECK_EQ_U64(r->nfindings, 0);
	CHECK_EQ_U64(ndiag, 0);
	dissect_free(d);
}

/* WRITE: Read chunk at position P > 0 (the data length word stays inline) */
static void test_write_read_chunk(void)
{
	struct rdma_conn c;
	struct xb x, rpc;
	struct dissect *d = mk();
	uint32_t xid = 0x22;
	static uint8_t data[5000];

	tb_conn(&c, 1);
	rpc.n = 0;
	xb_rpc_call(&rpc, xid, 100003, 3, 7);
	xb_fh(&rpc, 2);
	xb_u64(&rpc, 4096);
	xb_u32(&rpc, 5000);
	xb_u32(&rpc, 2);      /* FILE_SYNC */
	xb_u32(&rpc, 5000);   /* data length; body is in the Read chunk */
	uint32_t pos = (uint32_t)rpc.n;

	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 0);
	xb_u32(&x, 1);
	xb_u32(&x, pos);
	xb_seg(&x, 0x200, 5000, 0x7000);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_bytes(&x, rpc.b, rpc.n);
	struct rdma_event ev = tb_send(&c, 0, 1000000, 1, &x);
	dissect_event(&ev, d);
	ev = tb_rdma(&c, RDMA_EV_READ, 1, 1100000, 2, 0x200, 0x7000, data, sizeof(data));
	dissect_event(&ev, d);

	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, xid);
	xb_u32(&x, 0);
	xb_u32(&x, 0);  /* pre_op_attr absent */
	xb_u32(&x, 0);  /* post_op_attr absent */
	xb_u32(&x, 5000);
	xb_u32(&x, 2);
	xb_u64(&x, 0);
	ev = tb_send(&c, 1, 1300000, 4, &x);
	dissect_event(&ev, d);

	CHECK_EQ_U64(nrec, 1);
	struct nfsrdma_record *r = &recs[0];
	CHECK_EQ_U64(r->proc, 7);
	CHECK_EQ_U64(r->count, 5000);
	CHECK_EQ_U64(r->res_count, 5000);
	CHECK_EQ_U64(r->n_read_chunks, 1);
	CHECK_EQ_U64(r->read_chunk_bytes, 5000);
	CHECK_EQ_U64(r->read_bytes, 5000);
	CHECK_EQ_U64(r->d_phase[REC_PH_PULL], 2000);
	CHECK_EQ_U64(r->d_phase[REC_PH_SERVER], 1300000 - 1102000);
	CHECK(rec_phase_seen(r, REC_PH_QUEUE) && !rec_phase_seen(r, REC_PH_QUEUE_SERVER), "queue split from server");
	CHECK_EQ_U64(phase_sum(r), r->d_total);
	CHECK(!(r->flags & (RECF_CALL_PARTIAL | RECF_ARGS_DDP)), "flags 0x%x", r->flags);
	CHECK_EQ_U64(r->nfindings, 0);
	CHECK_EQ_U64(ndiag, 0);
	dissect_free(d);
}

/* RDMA_NOMSG call: the whole RPC in a position-zero Read chunk (two segments) */
static void test_p0_call(void)
{
	struct rdma_conn c;
	struct xb x, rpc;
	struct dissect *d = mk();
	uint32_t xid = 0x33;

	tb_conn(&c, 1);
	rpc.n = 0;
	xb_rpc_call(&rpc, xid, 100003, 3, 3);  /* LOOKUP */
	xb_fh(&rpc, 3);
	xb_str(&rpc, "a-long-name");
	size_t half = 40;

	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 1);
	xb_u32(&x, 1);
	xb_u32(&x, 0);
	xb_seg(&x, 0x300, (uint32_t)half, 0x9000);
	xb_u32(&x, 1);
	xb_u32(&x, 0);
	xb_seg(&x, 0x301, (uint32_t)(rpc.n - half), 0xa000);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	struct rdma_event ev = tb_send(&c, 0, 1000000, 1, &x);
	dissect_event(&ev, d);
	/* second segment read first: order must not matter */
	ev = tb_rdma(&c, RDMA_EV_READ, 1, 1100000, 2, 0x301, 0xa000, rpc.b + half, rpc.n - half);
	dissect_event(&ev, d);
	ev = tb_rdma(&c, RDMA_EV_READ, 1, 1110000, 4, 0x300, 0x9000, rpc.b, half);
	dissect_event(&ev, d);

	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, xid);
	xb_u32(&x, 2);   /* NFS3ERR_NOENT */
	xb_u32(&x, 0);
	ev = tb_send(&c, 1, 1300000, 6, &x);
	dissect_event(&ev, d);

	CHECK_EQ_U64(nrec, 1);
	struct nfsrdma_record *r = &recs[0];
	CHECK_EQ_U64(r->prog, 100003);
	CHECK_EQ_U64(r->proc, 3);
	CHECK_EQ_STR(r->name, "a-long-name");
	CHECK_EQ_U64(r->status, 2);
	CHECK(r->flags & RECF_ARGS_DDP, "args by DDP (flags 0x%x)", r->flags);
	CHECK(!(r->flags & RECF_CALL_PARTIAL), "complete call");
	CHECK_EQ_U64(r->call_rdma_proc, 1);
	CHECK_EQ_U64(r->n_read_segs, 2);
	CHECK_EQ_U64(r->n_read_chunks, 1);
	CHECK_EQ_U64(r->n_rdma_reads, 2);
	CHECK_EQ_U64(r->read_bytes, rpc.n);
	CHECK_EQ_U64(r->nfindings, 0);
	CHECK_EQ_U64(ndiag, 0);
	dissect_free(d);
}

/* RDMA_NOMSG reply: READDIRPLUS result written into the Reply chunk */
static void test_reply_chunk(void)
{
	struct rdma_conn c;
	struct xb x, rpc;
	struct dissect *d = mk();
	uint32_t xid = 0x44;

	tb_conn(&c, 1);
	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 1);          /* reply chunk, 2 segments */
	xb_u32(&x, 2);
	xb_seg(&x, 0x400, 4096, 0x10000);
	xb_seg(&x, 0x401, 4096, 0x20000);
	xb_rpc_call(&x, xid, 100003, 3, 17);
	xb_fh(&x, 4);
	xb_u64(&x, 0);
	xb_u64(&x, 0);
	xb_u32(&x, 4096);
	xb_u32(&x, 32768);
	struct rdma_event ev = tb_send(&c, 0, 1000000, 1, &x);
	dissect_event(&ev, d);

	rpc.n = 0;
	xb_rpc_reply_ok(&rpc, xid);
	xb_u32(&rpc, 0);    /* NFS3_OK */
	for (int i = 0; i < 1200; i++)
		xb_u32(&rpc, 0x5a5a5a5a);
	uint32_t first = 4096, second = (uint32_t)rpc.n - first;
	ev = tb_rdma(&c, RDMA_EV_WRITE, 1, 1200000, 2, 0x400, 0x10000, rpc.b, first);
	dissect_event(&ev, d);
	ev = tb_rdma(&c, RDMA_EV_WRITE, 1, 1210000, 4, 0x401, 0x20000, rpc.b + first, second);
	dissect_event(&ev, d);

	x.n = 0;
	xb_rdma_hdr(&x, xid, 128, 1);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 1);
	xb_u32(&x, 2);
	xb_seg(&x, 0x400, first, 0x10000);
	xb_seg(&x, 0x401, second, 0x20000);
	ev = tb_send(&c, 1, 1300000, 6, &x);
	dissect_event(&ev, d);

	CHECK_EQ_U64(nrec, 1);
	struct nfsrdma_record *r = &recs[0];
	CHECK_EQ_U64(r->proc, 17);
	CHECK_EQ_U64(r->status, 0);
	CHECK_EQ_U64(r->rpc_status, 0);
	CHECK(r->flags & RECF_RES_DDP, "reply by DDP (flags 0x%x)", r->flags);
	CHECK(!(r->flags & RECF_REPLY_PARTIAL), "complete reply");
	CHECK_EQ_U64(r->n_reply_segs, 2);
	CHECK_EQ_U64(r->reply_chunk_bytes, 8192);
	CHECK_EQ_U64(r->reply_bytes, rpc.n);
	CHECK_EQ_U64(r->reply_rdma_proc, 1);
	CHECK_EQ_U64(r->t_write_first, 1200000);
	CHECK_EQ_U64(ndiag, 0);
	dissect_free(d);
}

static void test_unmatched_flush_hint_error(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();
	static uint8_t data[100];

	tb_conn(&c, 1);
	/* reply without call */
	x.n = 0;
	xb_rdma_hdr(&x, 0x55, 64, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, 0x55);
	struct rdma_event ev = tb_send(&c, 1, 1000, 1, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 1);
	CHECK(recs[0].flags & RECF_NO_CALL, "no call flag");
	CHECK(recs[0].findings & (1ull << FND_UNMATCHED_REPLY), "unmatched finding");

	/* call with write chunk; WRITE on an unknown handle but XID in the offset */
	x.n = 0;
	xb_rdma_hdr(&x, 0x66, 128, 0);
	xb_u32(&x, 0);
	xb_u32(&x, 1);
	xb_u32(&x, 1);
	xb_seg(&x, 0x600, 100, 0x66ull << 32);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	xb_rpc_call(&x, 0x66, 100003, 3, 6);
	xb_fh(&x, 6);
	xb_u64(&x, 0);
	xb_u32(&x, 100);
	ev = tb_send(&c, 0, 2000, 2, &x);
	dissect_event(&ev, d);
	ev = tb_rdma(&c, RDMA_EV_WRITE, 1, 3000, 3, 0x999, (0x66ull << 32) | 0x10, data, 100);
	dissect_event(&ev, d);
	/* RDMA_ERROR reply */
	x.n = 0;
	xb_rdma_hdr(&x, 0x66, 128, 4);
	xb_u32(&x, 2);
	ev = tb_send(&c, 1, 4000, 4, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 2);
	CHECK(recs[1].flags & RECF_XID_HINT, "hint flag 0x%x", recs[1].flags);
	CHECK(recs[1].flags & RECF_RDMA_ERROR, "rdma error flag");
	CHECK_EQ_U64(recs[1].rpc_status, REC_RPC_RDMA_ERR_CHUNK);
	CHECK_EQ_U64(recs[1].write_bytes, 100);
	CHECK(recs[1].findings & (1ull << FND_RDMA_ERROR), "rdma-error finding");

	/* a call never answered: flushed at the end */
	x.n = 0;
	xb_rdma_hdr(&x, 0x77, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 0x77, 100003, 3, 0);
	ev = tb_send(&c, 0, 5000, 5, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 2);
	dissect_flush(d);
	CHECK_EQ_U64(nrec, 3);
	CHECK(recs[2].flags & RECF_TIMEOUT, "timeout flag");
	CHECK_EQ_U64(recs[2].rpc_status, REC_RPC_NONE);
	CHECK_EQ_U64(dissect_stats(d)->timeouts, 1);
	dissect_free(d);
}

/* Findings raised while matching: p0 in RDMA_MSG, oversize inline, credits */
static void test_findings(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();

	tb_conn(&c, 1);
	/* grant 1 credit via a first exchange */
	x.n = 0;
	xb_rdma_hdr(&x, 1, 1, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 1, 100003, 3, 0);
	struct rdma_event ev = tb_send(&c, 0, 1000, 1, &x);
	dissect_event(&ev, d);
	x.n = 0;
	xb_rdma_hdr(&x, 1, 1, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, 1);
	ev = tb_send(&c, 1, 2000, 2, &x);
	dissect_event(&ev, d);
	/* two calls outstanding with one credit; the second has a P0 chunk in RDMA_MSG */
	for (uint32_t xid = 2; xid <= 3; xid++) {
		x.n = 0;
		xb_rdma_hdr(&x, xid, 1, 0);
		if (xid == 3) {
			xb_u32(&x, 1);
			xb_u32(&x, 0);
			xb_seg(&x, 0x700, 64, 0x1000);
			xb_u32(&x, 0);
			xb_u32(&x, 0);
			xb_u32(&x, 0);
		} else {
			xb_no_chunks(&x);
		}
		xb_rpc_call(&x, xid, 100003, 3, 0);
		if (xid == 2) /* oversize: pad the message beyond 4096 */
			while (x.n < 5000)
				xb_u32(&x, 0);
		ev = tb_send(&c, 0, 3000 + xid, 3 + xid, &x);
		dissect_event(&ev, d);
	}
	dissect_flush(d);
	CHECK_EQ_U64(nrec, 3);
	CHECK(recs[1].findings & (1ull << FND_INLINE_OVERSIZE), "oversize 0x%" PRIx64, recs[1].findings);
	CHECK(recs[2].findings & (1ull << FND_CREDIT_OVERRUN), "credits 0x%" PRIx64, recs[2].findings);
	CHECK(recs[2].findings & (1ull << FND_P0_IN_MSG), "p0 in msg 0x%" PRIx64, recs[2].findings);
	char buf[256];
	finding_format(buf, sizeof(buf), FND_P0_IN_MSG, 1, 64);
	CHECK(strstr(buf, "RFC 8166") != NULL, "section named: %s", buf);
	dissect_free(d);
}

/* Bad input never stops the dissector: garbage, truncated header, bad proc */
static void test_bad_input(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();

	tb_conn(&c, 1);
	x.n = 0;
	xb_rdma_hdr(&x, 9, 1, 0);
	xb_u32(&x, 1);   /* read list entry truncated */
	struct rdma_event ev = tb_send(&c, 0, 1000, 1, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 1);
	x.n = 0;
	xb_rdma_hdr(&x, 9, 1, 9);   /* bad proc */
	ev = tb_send(&c, 0, 1000, 2, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 2);
	x.n = 0;
	xb_rdma_hdr(&x, 9, 1, 0);
	xb_no_chunks(&x);
	xb_u32(&x, 9);
	xb_u32(&x, 7);   /* msg_type 7 */
	ev = tb_send(&c, 0, 1000, 3, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 3);
	CHECK_EQ_U64(nrec, 0);
	/* a call whose args are cut short: record, flagged partial */
	x.n = 0;
	xb_rdma_hdr(&x, 10, 1, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 10, 100003, 3, 6);
	xb_u32(&x, 32);  /* fh length, then nothing */
	ev = tb_send(&c, 0, 1000, 4, &x);
	dissect_event(&ev, d);
	dissect_flush(d);
	CHECK_EQ_U64(nrec, 1);
	CHECK(recs[0].flags & RECF_CALL_PARTIAL, "partial 0x%x", recs[0].flags);
	CHECK_EQ_U64(ndiag, 4);
	dissect_free(d);

	/* Non-RPC RDMA traffic (perftest exchanging QP info by SEND) on a
	 * connection with no RFC 8797 data and no RPC seen: counted, silent. */
	d = mk();
	tb_conn(&c, 2);
	c.cm_params[0] = c.cm_params[1] = false;
	x.n = 0;
	xb_u32(&x, 0); xb_u32(&x, 1); xb_u32(&x, 0x12); xb_u32(&x, 0x17badf);
	ev = tb_send(&c, 0, 1000, 1, &x);
	dissect_event(&ev, d);
	static uint8_t junk[64];
	ev = tb_rdma(&c, RDMA_EV_WRITE, 0, 2000, 2, 0x1234, 0x5678, junk, sizeof(junk));
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 0);
	CHECK_EQ_U64(dissect_stats(d)->not_rpcrdma, 1);
	CHECK_EQ_U64(dissect_stats(d)->rdma_unmatched, 0);
	dissect_free(d);
}

/* RPC-over-RDMA v2 (draft -07): CALL_INLINE / REPLY_INLINE make a record */
static void test_v2(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();

	tb_conn(&c, 1);
	x.n = 0;
	xb_u32(&x, 0x88); xb_u32(&x, 2); xb_u32(&x, 16); xb_u32(&x, 10);
	xb_u32(&x, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 0x88, 100003, 3, 1);
	xb_fh(&x, 8);
	struct rdma_event ev = tb_send(&c, 0, 1000, 1, &x);
	dissect_event(&ev, d);
	x.n = 0;
	xb_u32(&x, 0x88); xb_u32(&x, 2); xb_u32(&x, 16); xb_u32(&x, 13);
	xb_u32(&x, 0);
	xb_rpc_reply_ok(&x, 0x88);
	xb_u32(&x, 0);
	xb_u32(&x, 0);
	ev = tb_send(&c, 1, 2000, 2, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 1);
	CHECK_EQ_U64(recs[0].rdma_vers, 2);
	CHECK_EQ_U64(recs[0].proc, 1);
	CHECK_EQ_U64(recs[0].status, 0);
	CHECK_EQ_U64(recs[0].credits_granted, 16);
	CHECK_EQ_U64(ndiag, 0);
	dissect_free(d);
}

/* A connection's first call leaves before the callee sent anything on
 * it (its UDP source port unknown then); the reply shows the port, and
 * the record must carry it like every later one. */
static void test_callee_port_from_reply(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();

	tb_conn(&c, 1);
	c.side[0].udp_sport = 56371;
	c.side[1].udp_sport = 0;   /* the callee has not sent yet */
	x.n = 0;
	xb_rdma_hdr(&x, 0x21, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 0x21, 100003, 3, 0);
	struct rdma_event ev = tb_send(&c, 0, 1000, 1, &x);
	dissect_event(&ev, d);
	c.side[1].udp_sport = 51234;   /* what the transport learns from the reply packet */
	x.n = 0;
	xb_rdma_hdr(&x, 0x21, 64, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, 0x21);
	ev = tb_send(&c, 1, 2000, 2, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 1);
	CHECK_EQ_U64(recs[0].caller.port, 56371);
	CHECK_EQ_U64(recs[0].callee.port, 51234);
	dissect_free(d);
}

static unsigned nfinding;

static void on_finding(const struct dissect_finding *f, void *ctx)
{
	nfinding++;
}

/* A call whose RPC-over-RDMA version is 7: one diagnostic naming the
 * frame; its reply (no call to match) and the server's READ of its chunk
 * (no segment to match) are not blamed on the server. */
static void test_unknown_version(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect_cbs cbs = { on_rec, on_finding, on_diag, NULL, NULL };
	static uint8_t data[64];

	nrec = ndiag = nfinding = 0;
	struct dissect *d = dissect_new(NULL, &cbs);
	tb_conn(&c, 1);
	x.n = 0;
	xb_u32(&x, 0x31); xb_u32(&x, 7); xb_u32(&x, 128); xb_u32(&x, 0);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_seg(&x, 0x800, 64, 0x5000);
	xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	xb_rpc_call(&x, 0x31, 100003, 3, 7);
	struct rdma_event ev = tb_send(&c, 0, 1000, 48, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 1);
	CHECK_EQ_U64(dissect_stats(d)->bad_rpcrdma, 1);
	CHECK_EQ_U64(dissect_stats(d)->not_rpcrdma, 0);
	ev = tb_rdma(&c, RDMA_EV_READ, 1, 1500, 49, 0x800, 0x5000, data, sizeof(data));
	dissect_event(&ev, d);
	x.n = 0;
	xb_rdma_hdr(&x, 0x31, 64, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, 0x31);
	ev = tb_send(&c, 1, 2000, 50, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 1);
	CHECK(recs[0].flags & RECF_NO_CALL, "no call flag 0x%x", recs[0].flags);
	CHECK_EQ_U64(recs[0].findings, 0);
	CHECK_EQ_U64(nfinding, 0);
	/* answered: a later reply with no call is the server's again */
	ev = tb_send(&c, 1, 3000, 51, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(nrec, 2);
	CHECK(recs[1].findings & (1ull << FND_UNMATCHED_REPLY), "unmatched 0x%" PRIx64, recs[1].findings);
	CHECK_EQ_U64(ndiag, 1);
	dissect_free(d);
}

/* A record's findings reach the caller once, in the record, whatever
 * its XID (an XID of 0 printed them twice: once with the record, once
 * through the callback for findings tied to no record). */
static void test_findings_once(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect_cbs cbs = { on_rec, on_finding, on_diag, NULL, NULL };

	for (uint32_t xid = 0; xid < 2; xid++) {
		nrec = ndiag = nfinding = 0;
		struct dissect *d = dissect_new(NULL, &cbs);
		tb_conn(&c, 1);
		x.n = 0;
		xb_rdma_hdr(&x, xid, 64, 0);
		xb_no_chunks(&x);
		xb_rpc_reply_ok(&x, xid);
		struct rdma_event ev = tb_send(&c, 1, 2000, 1, &x);
		dissect_event(&ev, d);
		ev = tb_send(&c, 1, 3000, 2, &x);
		dissect_event(&ev, d);
		dissect_flush(d);
		CHECK(nrec >= 1, "xid %u: %u records", xid, nrec);
		unsigned in_recs = 0;
		for (unsigned i = 0; i < nrec && i < sizeof(recs) / sizeof(recs[0]); i++)
			in_recs += recs[i].nfindings;
		CHECK(in_recs >= 1, "xid %u: the unmatched reply's finding is in its record", xid);
		CHECK_EQ_U64(nfinding, 0);
		dissect_free(d);
	}
}

/* The snap length cut a call inside its RPC header, then a call and a
 * reply inside their RPC-over-RDMA headers: counted for the one note at
 * the end, not one diagnostic each; the same cut without the snap length
 * (the message really is that short) stays a diagnostic. */
static void test_snap_cut(void)
{
	struct rdma_conn c;
	struct xb x;
	struct dissect *d = mk();
	char note[256];

	tb_conn(&c, 1);
	x.n = 0;
	xb_rdma_hdr(&x, 0x41, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 0x41, 100003, 3, 17);
	xb_fh(&x, 3);
	struct rdma_event ev = tb_send(&c, 0, 1000, 1, &x);
	ev.data_len = 28 + 20;   /* header, then the RPC call up to vers */
	ev.flags |= RDMA_EVF_TRUNC_DATA;
	dissect_event(&ev, d);
	x.n = 0;
	xb_rdma_hdr(&x, 0x41, 64, 0);
	xb_no_chunks(&x);
	xb_rpc_reply_ok(&x, 0x41);
	ev = tb_send(&c, 1, 2000, 2, &x);
	ev.data_len = 20;        /* inside the chunk lists */
	ev.flags |= RDMA_EVF_TRUNC_DATA;
	dissect_event(&ev, d);
	x.n = 0;
	xb_rdma_hdr(&x, 0x42, 128, 0);
	xb_no_chunks(&x);
	xb_rpc_call(&x, 0x42, 100003, 3, 1);
	ev = tb_send(&c, 0, 3000, 3, &x);
	ev.data_len = 20;
	ev.flags |= RDMA_EVF_TRUNC_DATA;
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 0);
	CHECK_EQ_U64(dissect_stats(d)->snap_cut_calls, 2);
	CHECK_EQ_U64(dissect_stats(d)->snap_cut_replies, 1);
	CHECK_EQ_U64(dissect_stats(d)->snap_cut_kept, 48);
	CHECK(dissect_snap_note(dissect_stats(d), note, sizeof(note)), "a note");
	CHECK(strstr(note, "2 calls and 1 replies could not be named") != NULL, "note: %s", note);
	/* a message that short on the wire: the diagnostic as before */
	x.n = 0;
	xb_rdma_hdr(&x, 0x43, 128, 0);
	xb_u32(&x, 0);
	ev = tb_send(&c, 0, 4000, 4, &x);
	dissect_event(&ev, d);
	CHECK_EQ_U64(ndiag, 1);
	CHECK_EQ_U64(dissect_stats(d)->snap_cut_calls, 2);
	dissect_flush(d);
	dissect_free(d);

	/* cut after the RPC's xid, before its msg_type: a reply when its call
	 * is outstanding (0x51 and 0x52, sent whole), a call when none is
	 * (0x53) */
	d = mk();
	for (uint32_t xid = 0x51; xid <= 0x52; xid++) {
		x.n = 0;
		xb_rdma_hdr(&x, xid, 128, 0);
		xb_no_chunks(&x);
		xb_rpc_call(&x, xid, 100003, 3, 1);
		xb_fh(&x, 3);
		ev = tb_send(&c, 0, 5000 + xid, xid, &x);
		dissect_event(&ev, d);
	}
	for (uint32_t xid = 0x51; xid <= 0x53; xid++) {
		x.n = 0;
		xb_rdma_hdr(&x, xid, 64, 0);
		xb_no_chunks(&x);
		xb_rpc_reply_ok(&x, xid);
		ev = tb_send(&c, xid < 0x53 ? 1 : 0, 6000 + xid, 0x100 + xid, &x);
		ev.data_len = 28 + 4;
		ev.flags |= RDMA_EVF_TRUNC_DATA;
		dissect_event(&ev, d);
	}
	CHECK_EQ_U64(ndiag, 0);
	CHECK_EQ_U64(dissect_stats(d)->snap_cut_replies, 2);
	CHECK_EQ_U64(dissect_stats(d)->snap_cut_calls, 1);
	dissect_flush(d);
	dissect_free(d);

	d = mk();
	CHECK(!dissect_snap_note(dissect_stats(d), note, sizeof(note)) && !note[0], "no cut, no note");
	dissect_free(d);
}

int main(void)
{
	test_snap_cut();
	test_callee_port_from_reply();
	test_unknown_version();
	test_findings_once();
	test_v2();
	test_getattr();
	test_read_write_chunk();
	test_write_read_chunk();
	test_p0_call();
	test_reply_chunk();
	test_unmatched_flush_hint_error();
	test_findings();
	test_bad_input();
	return check_summary("test_xid");
}
