/* NFSv4.x COMPOUND and CB_COMPOUND: op names, key args, per-op status,
 * Write list consumption, naming the COMPOUND like the client does. */
#include "check.h"
#include "xdrbuild.h"

#include "dissect/check.h"
#include "dissect/nfs4.h"
#include "dissect/pnfs_rdma.h"
#include "dissect/programs.h"

static struct nfsrdma_record rec;
static struct xdr_ddp ddp;

static bool run(const struct prog_info *p, uint32_t proc, bool reply, const struct xb *x)
{
	struct pdec d = { .c = cur_make(x->b, x->n), .rec = &rec, .ddp = &ddp, .reply = reply,
			  .vers = 4, .proc = proc, .layer = p->layer };
	if (reply)
		p->decode_reply(&d);
	else
		p->decode_call(&d);
	if (!cur_ok(&d.c))
		fprintf(stderr, "cursor: %s at %zu\n", d.c.err_what, d.c.err_off);
	return cur_ok(&d.c) && d.c.off == x->n;
}

static void stateid(struct xb *x, uint32_t seq)
{
	xb_u32(x, seq);
	xb_u32(x, 1); xb_u32(x, 2); xb_u32(x, 3);
}

static void seq_op(struct xb *x)
{
	xb_u32(x, 53);
	for (int i = 0; i < 4; i++)
		xb_u32(x, 0x11111111);
	xb_u32(x, 9); xb_u32(x, 0); xb_u32(x, 0); xb_u32(x, 0);
}

/* SEQUENCE PUTFH READ GETATTR with a Write chunk, and its reply. */
static void test_read_write_list(void)
{
	struct xb x;

	/* SEQUENCE PUTFH READ GETATTR, with one Write chunk */
	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	rec.n_write_chunks = 1;
	x.n = 0;
	xb_str(&x, "");
	xb_u32(&x, 1);
	xb_u32(&x, 4);
	seq_op(&x);
	xb_u32(&x, 22); xb_fh(&x, 4);
	xb_u32(&x, 25); stateid(&x, 3); xb_u64(&x, 1 << 20); xb_u32(&x, 262144);
	xb_u32(&x, 9); xb_u32(&x, 2); xb_u32(&x, 0x18); xb_u32(&x, 0);
	CHECK(run(&prog_nfs4, 1, false, &x), "read compound args");
	CHECK_EQ_U64(rec.minorvers, 1);
	CHECK_EQ_U64(rec.nops, 4);
	CHECK_EQ_U64(rec.ops[2].op, 25);
	CHECK_EQ_U64(rec.ops[2].seqid, 3);
	CHECK_EQ_U64(rec.ops[2].offset, 1 << 20);
	CHECK_EQ_U64(rec.ops[2].count, 262144);
	CHECK(rec.ops[2].flags & REC_OPF_FH, "READ has the current fh");
	CHECK_EQ_U64(rec.ops[2].fh_hash, rec.ops[1].fh_hash);
	CHECK_EQ_U64(rec.offset, 1 << 20);
	CHECK_EQ_U64(rec.count, 262144);
	CHECK_EQ_U64(rec.fh_hash, rec.ops[1].fh_hash);
	rec.prog = 100003; rec.vers = 4; rec.proc = 1;
	CHECK_EQ_STR(nfs4_compound_name(&rec), "READ");
	CHECK_EQ_U64(rec.nfindings, 0);

	/* its reply: data by Write chunk */
	ddp.nwrite = 1;
	ddp.write_len[0] = 262144;
	x.n = 0;
	xb_u32(&x, 0); xb_str(&x, ""); xb_u32(&x, 4);
	xb_u32(&x, 53); xb_u32(&x, 0);
	for (int i = 0; i < 4; i++) xb_u32(&x, 0x11111111);
	xb_u32(&x, 9); xb_u32(&x, 0); xb_u32(&x, 63); xb_u32(&x, 63); xb_u32(&x, 0);
	xb_u32(&x, 22); xb_u32(&x, 0);
	xb_u32(&x, 25); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 262144);
	xb_u32(&x, 9); xb_u32(&x, 0); xb_u32(&x, 2); xb_u32(&x, 0x18); xb_u32(&x, 0); xb_opaque(&x, "12345678", 8);
	CHECK(run(&prog_nfs4, 1, true, &x), "read compound reply");
	CHECK_EQ_U64(rec.status, 0);
	CHECK_EQ_U64(rec.ops[3].status, 0);
	CHECK_EQ_U64(rec.res_count, 262144);
	CHECK(rec.ops[2].flags & REC_OPF_DDP, "READ data by DDP");
	CHECK_EQ_U64(ddp.write_used, 1);
}

/* Naming a COMPOUND as the client's procedure: after an error, by the
 * GETATTR bitmap, the root's lookup. */
static void test_naming(void)
{
	struct xb x;

	/* error stops the compound: LOOKUP NOENT */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 2); xb_u32(&x, 3);
	seq_op(&x);
	xb_u32(&x, 22); xb_fh(&x, 4);
	xb_u32(&x, 15); xb_str(&x, "missing");
	CHECK(run(&prog_nfs4, 1, false, &x), "lookup args");
	CHECK_EQ_STR(rec.name, "missing");
	x.n = 0;
	xb_u32(&x, 2); xb_str(&x, ""); xb_u32(&x, 3);
	xb_u32(&x, 53); xb_u32(&x, 0);
	for (int i = 0; i < 4; i++) xb_u32(&x, 0x11111111);
	xb_u32(&x, 9); xb_u32(&x, 0); xb_u32(&x, 63); xb_u32(&x, 63); xb_u32(&x, 0);
	xb_u32(&x, 22); xb_u32(&x, 0);
	xb_u32(&x, 15); xb_u32(&x, 2);
	CHECK(run(&prog_nfs4, 1, true, &x), "lookup reply");
	CHECK_EQ_U64(rec.status, 2);
	CHECK_EQ_U64(rec.ops[2].status, 2);
	rec.prog = 100003; rec.vers = 4; rec.proc = 1;
	CHECK_EQ_STR(nfs4_compound_name(&rec), "LOOKUP");

	/* naming by GETATTR bitmap: FSINFO, SERVER_CAPS, PATHCONF, STATFS, LOOKUP_ROOT */
	struct { uint32_t w0, w1; const char *name; } g[] = {
		{ (1u << 27) | (1u << 30) | (1u << 31) | (1u << 10), 0, "FSINFO" },
		{ 1u | (1u << 5), 0, "SERVER_CAPS" },
		{ (1u << 28) | (1u << 29), 0, "PATHCONF" },
		{ (1u << 21) | (1u << 22), 1u << 10, "STATFS" },
		{ 1u << 10, 0, "GET_LEASE_TIME" },
		{ (1u << 1) | (1u << 3) | (1u << 4), 0, "GETATTR" },
	};
	for (unsigned i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		x.n = 0;
		xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 3);
		seq_op(&x);
		xb_u32(&x, 22); xb_fh(&x, 4);
		xb_u32(&x, 9); xb_u32(&x, 2); xb_u32(&x, g[i].w0); xb_u32(&x, g[i].w1);
		CHECK(run(&prog_nfs4, 1, false, &x), "getattr args %u", i);
		rec.prog = 100003; rec.vers = 4; rec.proc = 1;
		CHECK_EQ_STR(nfs4_compound_name(&rec), g[i].name);
	}
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 4);
	seq_op(&x);
	xb_u32(&x, 24);
	xb_u32(&x, 10);
	xb_u32(&x, 9); xb_u32(&x, 1); xb_u32(&x, 0x1f);
	CHECK(run(&prog_nfs4, 1, false, &x), "lookup_root args");
	rec.prog = 100003; rec.vers = 4; rec.proc = 1;
	CHECK_EQ_STR(nfs4_compound_name(&rec), "LOOKUP_ROOT");
	/* the same GETFH and GETATTR after PUTFH of a known handle: not the
	 * root's lookup; the bitmap (types, change, size) names it GETATTR */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 4);
	seq_op(&x);
	xb_u32(&x, 22); xb_fh(&x, 4);
	xb_u32(&x, 10);
	xb_u32(&x, 9); xb_u32(&x, 1); xb_u32(&x, (1u << 1) | (1u << 3) | (1u << 4));
	CHECK(run(&prog_nfs4, 1, false, &x), "putfh getfh getattr args");
	rec.prog = 100003; rec.vers = 4; rec.proc = 1;
	CHECK_EQ_STR(nfs4_compound_name(&rec), "GETATTR");
}

/* COPY failing (RFC 7862 §15.2.3): NFS4ERR_OFFLOAD_NO_REQS (10094)
 * returns copy_requirements4 (two bools), any other error nothing;
 * both replies decode to their last byte. */
static void test_copy_errors(void)
{
	struct xb x;

	for (int k = 0; k < 2; k++) {
		uint32_t st = k ? 10008 : 10094;   /* NFS4ERR_DELAY */
		memset(&rec, 0, sizeof(rec));
		memset(&ddp, 0, sizeof(ddp));
		x.n = 0;
		xb_u32(&x, st); xb_str(&x, ""); xb_u32(&x, 3);
		xb_u32(&x, 53); xb_u32(&x, 0);
		for (int i = 0; i < 4; i++) xb_u32(&x, 0x11111111);
		xb_u32(&x, 9); xb_u32(&x, 0); xb_u32(&x, 63); xb_u32(&x, 63); xb_u32(&x, 0);
		xb_u32(&x, 22); xb_u32(&x, 0);
		xb_u32(&x, 60); xb_u32(&x, st);
		if (st == 10094) {
			xb_u32(&x, 1);   /* cr_consecutive */
			xb_u32(&x, 0);   /* cr_synchronous */
		}
		CHECK(run(&prog_nfs4, 1, true, &x), "COPY reply, status %u, %zu bytes, decoded to its end", st, x.n);
		CHECK_EQ_U64(rec.status, st);
		CHECK_EQ_U64(rec.ops[2].op, 60);
		CHECK_EQ_U64(rec.ops[2].status, st);
	}
}

/* The session ops' arguments walked; chunks on WRITE, OPEN and READ_PLUS;
 * an unknown op. */
static void test_sessions_and_chunks(void)
{
	struct xb x;

	/* EXCHANGE_ID + CREATE_SESSION args walk */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 2);
	xb_u32(&x, 42); xb_u64(&x, 1); xb_str(&x, "Linux NFSv4.1 client"); xb_u32(&x, 0x103);
	xb_u32(&x, 0); xb_u32(&x, 1); xb_str(&x, "kernel.org"); xb_str(&x, "Linux 6.1"); xb_u64(&x, 0); xb_u32(&x, 0);
	xb_u32(&x, 43); xb_u64(&x, 7); xb_u32(&x, 1); xb_u32(&x, 3);
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 6; i++) xb_u32(&x, 4096);
		xb_u32(&x, 0);
	}
	xb_u32(&x, 0x40000000);
	xb_u32(&x, 1); xb_u32(&x, 1); xb_u32(&x, 0); xb_str(&x, "m"); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	CHECK(run(&prog_nfs4, 1, false, &x), "exchange_id + create_session args");
	rec.prog = 100003; rec.vers = 4; rec.proc = 1;
	CHECK_EQ_STR(nfs4_compound_name(&rec), "EXCHANGE_ID");

	/* WRITE with a Read chunk at the data position; OPEN; READ_PLUS with a Write chunk */
	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 2); xb_u32(&x, 4);
	seq_op(&x);
	xb_u32(&x, 22); xb_fh(&x, 4);
	xb_u32(&x, 38); stateid(&x, 5); xb_u64(&x, 0); xb_u32(&x, 2); xb_u32(&x, 100000);
	ddp.nread = 1;
	ddp.read_pos[0] = (uint32_t)x.n;
	ddp.read_len[0] = 100000;
	xb_u32(&x, 9); xb_u32(&x, 1); xb_u32(&x, 0x18);
	rec.n_read_chunks = 1;
	CHECK(run(&prog_nfs4, 1, false, &x), "write with read chunk, GETATTR after it");
	CHECK_EQ_U64(rec.ops[2].count, 100000);
	CHECK(rec.ops[2].flags & REC_OPF_DDP, "write data by DDP");
	CHECK_EQ_U64(rec.nfindings, 0);

	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	rec.n_write_chunks = 1;
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 2); xb_u32(&x, 3);
	seq_op(&x);
	xb_u32(&x, 22); xb_fh(&x, 4);
	xb_u32(&x, 68); stateid(&x, 5); xb_u64(&x, 0); xb_u32(&x, 4096);
	CHECK(run(&prog_nfs4, 1, false, &x), "read_plus args");
	CHECK(rec.findings & (1ull << FND_READ_PLUS_WCHUNK), "READ_PLUS with Write chunk flagged");

	memset(&rec, 0, sizeof(rec));
	memset(&ddp, 0, sizeof(ddp));
	rec.n_write_chunks = 1;
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 3);
	seq_op(&x);
	xb_u32(&x, 22); xb_fh(&x, 4);
	xb_u32(&x, 18); xb_u32(&x, 0); xb_u32(&x, 2); xb_u32(&x, 0); xb_u64(&x, 5); xb_opaque(&x, "owner", 5);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 1); xb_u32(&x, 0x10); xb_opaque(&x, "\0\0\1\xa4", 4);
	xb_u32(&x, 0); xb_str(&x, "newfile");
	CHECK(run(&prog_nfs4, 1, false, &x), "open create args");
	CHECK_EQ_STR(rec.name, "newfile");
	CHECK(rec.findings & (1ull << FND_NOT_ELIGIBLE), "Write chunk on OPEN flagged");

	/* unknown op stops the walk with an error */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 2);
	xb_u32(&x, 999); xb_u32(&x, 0);
	CHECK(!run(&prog_nfs4, 1, false, &x), "unknown op is an error");
	CHECK_EQ_U64(rec.ops[0].op, 999);
}

/* CB_COMPOUND; the pNFS RDMA layout. */
static void test_cb_and_pnfs(void)
{
	struct xb x;

	/* CB_COMPOUND: CB_SEQUENCE + CB_RECALL */
	memset(&rec, 0, sizeof(rec));
	x.n = 0;
	xb_str(&x, ""); xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 2);
	xb_u32(&x, 11); for (int i = 0; i < 4; i++) xb_u32(&x, 7);
	xb_u32(&x, 1); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0); xb_u32(&x, 0);
	xb_u32(&x, 4); stateid(&x, 1); xb_u32(&x, 0); xb_fh(&x, 8);
	CHECK(run(&prog_nfs_cb, 1, false, &x), "cb_compound args");
	rec.prog = PROG_NFS_CB; rec.vers = 1; rec.proc = 1;
	CHECK_EQ_STR(nfs4_compound_name(&rec), "CB_RECALL");
	CHECK(rec.fh_hash != 0, "recall fh");

	/* pNFS RDMA layout body */
	x.n = 0;
	xb_u32(&x, 2);
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 4; k++) xb_u32(&x, 0xd0d0d0d0);
		xb_u64(&x, (uint64_t)i << 20); xb_u32(&x, 0x1234 + (uint32_t)i); xb_u64(&x, 1 << 20);
		xb_u64(&x, 0xffff0000); xb_u32(&x, (uint32_t)i);
	}
	struct pnfs_rdma_extent e[4];
	CHECK_EQ_U64(pnfs_rdma_extents(x.b, x.n, e, 4), 2);
	CHECK_EQ_U64(e[1].handle, 0x1235);
	CHECK_EQ_U64(e[1].file_offset, 1 << 20);
	CHECK_EQ_STR(pnfs_rdma_state_name(e[1].state), "READ");
	CHECK_EQ_U64(pnfs_rdma_extents(x.b, x.n - 4, e, 4), (uint64_t)-1);
	/* LAYOUTGET reply carrying a LAYOUT4_RDMA layout */
	struct xb y;
	memset(&rec, 0, sizeof(rec));
	y.n = 0;
	xb_u32(&y, 0); xb_str(&y, ""); xb_u32(&y, 1);
	xb_u32(&y, 50); xb_u32(&y, 0); xb_u32(&y, 1); stateid(&y, 1); xb_u32(&y, 1);
	xb_u64(&y, 0); xb_u64(&y, ~0ull); xb_u32(&y, 2); xb_u32(&y, LAYOUT4_RDMA);
	xb_opaque(&y, x.b, (uint32_t)x.n);
	CHECK(run(&prog_nfs4, 1, true, &y), "layoutget reply with rdma layout");
	CHECK_EQ_U64(rec.offset, 0);
}

int main(void)
{
	CHECK_EQ_STR(nfs4_op_name(25), "READ");
	CHECK_EQ_STR(nfs4_op_name(53), "SEQUENCE");
	CHECK_EQ_STR(nfs4_op_name(68), "READ_PLUS");
	CHECK_EQ_STR(nfs4_op_name(75), "REMOVEXATTR");
	CHECK_EQ_STR(nfs4_op_name(10044), "ILLEGAL");
	CHECK_EQ_STR(nfs4_op_name(2), "OP_?");
	CHECK_EQ_STR(nfs4_cb_op_name(11), "CB_SEQUENCE");
	for (uint32_t op = 3; op <= 75; op++)
		CHECK(strcmp(nfs4_op_name(op), "OP_?") != 0, "op %u named", op);

	test_read_write_list();
	test_naming();
	test_copy_errors();
	test_sessions_and_chunks();
	test_cb_and_pnfs();
	return check_summary("test_nfs4");
}
