/* NFSv4.1 encoders (src/clnt/nfs4_enc.c): every COMPOUND we build is read
 * back with the dissector's independent NFSv4 decoder (dissect/nfs4.c);
 * replies built by hand (as knfsd would send them) are decoded both by
 * our bounded decoder and the dissector; the session slot table. */
#include "check.h"

#include <errno.h>

#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/record.h"
#include "dissect/rpc.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/clnt/nfs4_session.h"

/* Decodes a call with rpc_decode + prog_nfs4.decode_call. */
static void decode_call(const uint8_t *msg, size_t len, struct nfsrdma_record *r, struct xdr_ddp *ddp)
{
	struct rpc_msg rm;
	struct cursor cur = cur_make(msg, len);
	memset(r, 0, sizeof(*r));
	CHECK(rpc_decode(&rm, &cur, NULL) == 0, "call header");
	CHECK_EQ_U64(rm.prog, 100003);
	CHECK_EQ_U64(rm.vers, 4);
	struct pdec d = { .c = cur, .rec = r, .ddp = ddp, .vers = 4, .proc = rm.proc, .layer = "nfs4" };
	prog_nfs4.decode_call(&d);
	CHECK(!d.failed && cur_ok(&d.c), "the dissector decodes the COMPOUND");
	CHECK_EQ_U64(d.c.off, len);
}

static void decode_reply(const uint8_t *body, size_t len, struct nfsrdma_record *r)
{
	struct pdec d = { .c = cur_make(body, len), .rec = r, .vers = 4, .proc = 1, .reply = true,
			  .layer = "nfs4" };
	prog_nfs4.decode_reply(&d);
	CHECK(!d.failed && cur_ok(&d.c), "the dissector decodes the reply");
	CHECK_EQ_U64(d.c.off, len);
}

static const uint8_t SID[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void test_open_compound(void)
{
	uint8_t buf[2048];
	struct xenc e;
	struct rpc_cred c;
	struct nfsrdma_record r;
	struct nfs_fh dir = { .len = 28 };
	for (int i = 0; i < 28; i++)
		dir.data[i] = (uint8_t)(0x40 + i);

	rpc_cred_sys(&c, 0, 0);
	xenc_init(&e, buf, sizeof(buf));
	size_t at = nfs4_compound_begin(&e, &c, 1);
	nfs4_enc_sequence(&e, SID, 42, 3, 31, false);
	nfs4_enc_putfh(&e, &dir);
	nfs4_enc_open(&e, 3, 0x1122334455667788ull, "owner-1", 7, true, 0644, "new-file");
	nfs4_enc_getfh(&e);
	nfs4_compound_end(&e, at, 4);
	CHECK(xenc_ok(&e), "OPEN compound encodes");
	decode_call(buf, e.len, &r, NULL);
	CHECK_EQ_U64(r.minorvers, 1);
	CHECK_EQ_U64(r.nops, 4);
	CHECK_EQ_U64(r.ops[0].op, NFS4_OP_SEQUENCE);
	CHECK_EQ_U64(r.ops[0].seqid, 42);
	CHECK_EQ_U64(r.ops[0].count, 3);     /* the dissector keeps the slot id in count */
	CHECK_EQ_U64(r.ops[1].op, NFS4_OP_PUTFH);
	CHECK_EQ_U64(r.ops[1].fh_hash, xdr_fh_hash(dir.data, dir.len));
	CHECK_EQ_U64(r.ops[2].op, NFS4_OP_OPEN);
	CHECK_EQ_U64(r.ops[2].count, 0);     /* CLAIM_NULL */
	CHECK_EQ_STR(r.name, "new-file");
	CHECK_EQ_U64(r.ops[3].op, NFS4_OP_GETFH);

	/* our own walker agrees: OPEN with create changes the namespace */
	struct nfs4_call_info in;
	struct rpc_msg rm;
	struct cursor cur = cur_make(buf, e.len);
	rpc_decode(&rm, &cur, NULL);
	CHECK(nfs4_call_parse(buf + cur.off, e.len - cur.off, 0, &in) == 0, "walker parses it");
	CHECK(in.known && in.mutates && in.ns_change && in.state_change && in.has_sequence,
	      "OPEN(create): mutation, namespace and state change");
	CHECK(memcmp(in.tsid, SID, 16) == 0, "session id found");
	CHECK_EQ_STR(in.main_op, "OPEN");
}

static void test_read_write(void)
{
	uint8_t buf[2048];
	struct xenc e;
	struct nfsrdma_record r;
	struct nfs_fh fh = { .len = 8, .data = { 9, 8, 7, 6, 5, 4, 3, 2 } };
	struct nfs4_stateid sid = { .seqid = 7, .other = { 0xa, 0xb, 0xc } };

	xenc_init(&e, buf, sizeof(buf));
	size_t at = nfs4_compound_begin(&e, NULL, 2);
	nfs4_enc_sequence(&e, SID, 1, 0, 0, false);
	nfs4_enc_putfh(&e, &fh);
	nfs4_enc_read(&e, &sid, 1u << 20, 131072);
	nfs4_compound_end(&e, at, 3);
	decode_call(buf, e.len, &r, NULL);
	CHECK_EQ_U64(r.minorvers, 2);
	CHECK_EQ_U64(r.ops[2].op, NFS4_OP_READ);
	CHECK_EQ_U64(r.ops[2].seqid, 7);
	CHECK_EQ_U64(r.ops[2].offset, 1u << 20);
	CHECK_EQ_U64(r.ops[2].count, 131072);
	CHECK_EQ_U64(r.fh_hash, xdr_fh_hash(fh.data, fh.len));

	/* WRITE then GETATTR: the data's length word inline, the bytes in a
	 * Read chunk at that XDR position, GETATTR after it (RFC 8166 3.4.5) */
	xenc_init(&e, buf, sizeof(buf));
	at = nfs4_compound_begin(&e, NULL, 1);
	nfs4_enc_sequence(&e, SID, 2, 1, 1, false);
	nfs4_enc_putfh(&e, &fh);
	nfs4_enc_write(&e, &sid, 4096, 2, 65536);
	size_t ddp_at = e.len;
	nfs4_enc_getattr(&e, FATTR4_W0_SIZE | FATTR4_W0_CHANGE, FATTR4_W1_TIME_MODIFY);
	nfs4_compound_end(&e, at, 4);
	struct xdr_ddp ddp = { .nread = 1 };
	ddp.read_pos[0] = (uint32_t)ddp_at;
	ddp.read_len[0] = 65536;
	decode_call(buf, e.len, &r, &ddp);
	CHECK_EQ_U64(r.nops, 4);
	CHECK_EQ_U64(r.ops[2].op, NFS4_OP_WRITE);
	CHECK_EQ_U64(r.ops[2].offset, 4096);
	CHECK_EQ_U64(r.ops[2].count, 65536);
	CHECK(r.ops[2].flags & REC_OPF_DDP, "WRITE data taken from the Read chunk");
	CHECK_EQ_U64(ddp.read_used, 1);
	CHECK_EQ_U64(r.ops[3].op, NFS4_OP_GETATTR);
	CHECK_EQ_U64(r.ops[3].offset, (uint64_t)FATTR4_W1_TIME_MODIFY << 32 | FATTR4_W0_SIZE | FATTR4_W0_CHANGE);

	struct nfs4_call_info in;
	struct rpc_msg rm;
	struct cursor cur = cur_make(buf, e.len);
	rpc_decode(&rm, &cur, NULL);
	uint32_t rpos = (uint32_t)(ddp_at - cur.off);
	CHECK(nfs4_call_parse(buf + cur.off, e.len - cur.off, rpos, &in) == 0, "walker: WRITE + GETATTR");
	CHECK(in.has_ddp && !in.ddp_inline && in.ddp_len == 65536 && in.ddp_at == rpos && in.ddp_op == 2,
	      "walker finds the DDP argument at the chunk's position");
	CHECK(in.mutates && !in.ns_change, "WRITE mutates data, not the namespace");
}

static void test_session_ops(void)
{
	uint8_t buf[2048];
	struct xenc e;
	struct nfsrdma_record r;
	uint8_t verf[8] = { 1, 1, 2, 3, 5, 8, 13, 21 };

	xenc_init(&e, buf, sizeof(buf));
	size_t at = nfs4_compound_begin(&e, NULL, 1);
	nfs4_enc_exchange_id(&e, verf, "nfsrdma-replay/test", 19, 0x10000);
	nfs4_compound_end(&e, at, 1);
	decode_call(buf, e.len, &r, NULL);
	CHECK_EQ_U64(r.ops[0].op, NFS4_OP_EXCHANGE_ID);

	xenc_init(&e, buf, sizeof(buf));
	at = nfs4_compound_begin(&e, NULL, 1);
	nfs4_enc_create_session(&e, 0xabcdef0012345678ull, 1, 0, 1 << 20, 1 << 20, 64);
	nfs4_compound_end(&e, at, 1);
	decode_call(buf, e.len, &r, NULL);
	CHECK_EQ_U64(r.ops[0].op, NFS4_OP_CREATE_SESSION);

	xenc_init(&e, buf, sizeof(buf));
	at = nfs4_compound_begin(&e, NULL, 1);
	nfs4_enc_sequence(&e, SID, 1, 0, 0, false);
	nfs4_enc_reclaim_complete(&e, false);
	nfs4_enc_putrootfh(&e);
	nfs4_enc_lookup(&e, "dir");
	nfs4_enc_getfh(&e);
	nfs4_enc_access(&e, 0x3f);
	nfs4_enc_getattr(&e, FATTR4_W0_TYPE, 0);
	nfs4_enc_readdir(&e, 0, NULL, 8192, 65536, FATTR4_W0_TYPE | FATTR4_W0_FILEID, FATTR4_W1_MODE);
	struct nfs4_stateid sid = { .seqid = 3 };
	nfs4_enc_close(&e, &sid);
	nfs4_enc_destroy_session(&e, SID);
	nfs4_enc_destroy_clientid(&e, 77);
	nfs4_compound_end(&e, at, 11);
	decode_call(buf, e.len, &r, NULL);
	CHECK_EQ_U64(r.nops, 11);
	static const uint16_t want[] = { NFS4_OP_SEQUENCE, NFS4_OP_RECLAIM_COMPLETE, NFS4_OP_PUTROOTFH,
		NFS4_OP_LOOKUP, NFS4_OP_GETFH, NFS4_OP_ACCESS, NFS4_OP_GETATTR, NFS4_OP_READDIR,
		NFS4_OP_CLOSE, NFS4_OP_DESTROY_SESSION, NFS4_OP_DESTROY_CLIENTID };
	for (unsigned i = 0; i < 11; i++)
		CHECK(r.ops[i].op == want[i], "op %u is %s (got %u)", i, nfs4_op_name(want[i]), r.ops[i].op);
	CHECK_EQ_STR(r.name, "dir");
	CHECK_EQ_U64(r.ops[7].count, 65536);
	CHECK_EQ_U64(r.ops[8].seqid, 3);
}

/* A knfsd-style reply: SEQUENCE, PUTFH, OPEN (stateid, no delegation),
 * GETFH, GETATTR, READ of 5 bytes inline. */
static void test_reply_decode(void)
{
	uint8_t buf[2048];
	struct xenc e;
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0xdeadbeef);  /* xid */
	xenc_u32(&e, 1);           /* REPLY */
	xenc_u32(&e, 0);           /* MSG_ACCEPTED */
	xenc_u32(&e, 0);           /* verifier AUTH_NONE */
	xenc_u32(&e, 0);
	xenc_u32(&e, 0);           /* SUCCESS */
	size_t body = e.len;
	xenc_u32(&e, 0);           /* NFS4_OK */
	xenc_u32(&e, 0);           /* tag */
	xenc_u32(&e, 6);
	xenc_u32(&e, NFS4_OP_SEQUENCE);
	xenc_u32(&e, 0);
	xenc_fixed(&e, SID, 16);
	xenc_u32(&e, 9);           /* sequenceid */
	xenc_u32(&e, 2);           /* slot */
	xenc_u32(&e, 63);
	xenc_u32(&e, 63);
	xenc_u32(&e, 0x100);       /* status flags */
	xenc_u32(&e, NFS4_OP_PUTFH);
	xenc_u32(&e, 0);
	xenc_u32(&e, NFS4_OP_OPEN);
	xenc_u32(&e, 0);
	xenc_u32(&e, 1);           /* stateid seqid */
	static const uint8_t other[12] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc };
	xenc_fixed(&e, other, 12);
	xenc_u32(&e, 1);           /* change_info4 atomic */
	xenc_u64(&e, 1);
	xenc_u64(&e, 2);
	xenc_u32(&e, 4);           /* rflags */
	xenc_u32(&e, 0);           /* attrset bitmap: empty */
	xenc_u32(&e, 3);           /* OPEN_DELEGATE_NONE_EXT */
	xenc_u32(&e, 0);           /* WND4_NOT_WANTED */
	xenc_u32(&e, NFS4_OP_GETFH);
	xenc_u32(&e, 0);
	static const uint8_t fh[20] = { 1, 0, 1, 0, 9, 9, 9, 9 };
	xenc_opaque(&e, fh, 20);
	xenc_u32(&e, NFS4_OP_GETATTR);
	xenc_u32(&e, 0);
	xenc_u32(&e, 1);
	xenc_u32(&e, FATTR4_W0_SIZE);
	xenc_u32(&e, 8);
	xenc_u64(&e, 5);
	xenc_u32(&e, NFS4_OP_READ);
	xenc_u32(&e, 0);
	xenc_u32(&e, 1);           /* eof */
	xenc_opaque(&e, "hello", 5);
	CHECK(xenc_ok(&e), "reply built");

	struct nfs4_res res;
	CHECK(nfs4_decode_reply(1, buf, e.len, false, &res) == 0, "our decoder reads the reply");
	CHECK(res.ok && res.rpc_status == 0 && res.has_status && res.status == 0 && res.complete,
	      "status NFS4_OK, every result walked");
	CHECK_EQ_U64(res.nres, 6);
	CHECK(res.has_seq && res.seq_status == 0 && res.seq_seqid == 9 && res.seq_slot == 2 &&
	      res.seq_flags == 0x100, "SEQUENCE result");
	CHECK_EQ_U64(res.nsid, 1);
	CHECK_EQ_U64(res.sid_at[0], 2);
	CHECK_EQ_U64(res.sid[0].seqid, 1);
	CHECK(memcmp(res.sid[0].other, other, 12) == 0, "OPEN stateid");
	CHECK_EQ_U64(res.nfh, 1);
	CHECK_EQ_U64(res.fh_at[0], 3);
	CHECK(res.fh[0].len == 20 && memcmp(res.fh[0].data, fh, 20) == 0, "GETFH handle");
	CHECK_EQ_U64(res.read_count, 5);
	CHECK(res.eof, "READ eof");

	/* the dissector reads the same bytes the same way */
	struct nfsrdma_record r;
	memset(&r, 0, sizeof(r));
	decode_reply(buf + body, e.len - body, &r);
	CHECK_EQ_U64(r.nops, 6);
	CHECK_EQ_U64(r.ops[2].op, NFS4_OP_OPEN);
	CHECK_EQ_U64(r.ops[2].seqid, 1);
	CHECK_EQ_U64(r.res_count, 5);

	/* truncated anywhere: bounded, no crash, incomplete */
	for (size_t cut = body; cut < e.len; cut += 4) {
		CHECK(nfs4_decode_reply(1, buf, cut, false, &res) == 0, "truncated reply: header still decodes");
		CHECK(!res.complete, "truncated at %zu: not complete", cut);
	}
	/* READ with its data in a Write chunk: only the length is inline */
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 1); xenc_u32(&e, 1); xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 0);
	xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 1);
	xenc_u32(&e, NFS4_OP_READ); xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 131072);
	CHECK(nfs4_decode_reply(1, buf, e.len, true, &res) == 0 && res.complete && res.read_count == 131072,
	      "READ data moved: decoded from its length word");
}

/* EXCHANGE_ID and CREATE_SESSION results. */
static void test_session_replies(void)
{
	uint8_t buf[1024];
	struct xenc e;
	struct nfs4_res res;

	memset(&res, 0, sizeof(res));
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 1);
	xenc_u32(&e, NFS4_OP_EXCHANGE_ID); xenc_u32(&e, 0);
	xenc_u64(&e, 0x0102030405060708ull);
	xenc_u32(&e, 5);          /* sequenceid */
	xenc_u32(&e, 0x10001);    /* flags */
	xenc_u32(&e, 0);          /* SP4_NONE */
	xenc_u64(&e, 0);          /* so_minor_id */
	xenc_opaque(&e, "major", 5);
	xenc_opaque(&e, "scope", 5);
	xenc_u32(&e, 1);          /* impl id */
	xenc_opaque(&e, "kernel.org", 10);
	xenc_opaque(&e, "Linux 6.1", 9);
	xenc_u64(&e, 0);
	xenc_u32(&e, 0);
	CHECK(nfs4_decode_body(1, buf, e.len, false, &res) == 0 && res.complete, "EXCHANGE_ID reply");
	CHECK(res.has_clientid && res.clientid == 0x0102030405060708ull && res.eir_seq == 5 &&
	      res.eir_flags == 0x10001, "client id, sequence, flags");

	memset(&res, 0, sizeof(res));
	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0); xenc_u32(&e, 0); xenc_u32(&e, 1);
	xenc_u32(&e, NFS4_OP_CREATE_SESSION); xenc_u32(&e, 0);
	xenc_fixed(&e, SID, 16);
	xenc_u32(&e, 5);
	xenc_u32(&e, 0);
	for (int ch = 0; ch < 2; ch++) {
		xenc_u32(&e, 0);
		xenc_u32(&e, ch ? 4096 : 1049620);
		xenc_u32(&e, ch ? 4096 : 1049480);
		xenc_u32(&e, 7584);
		xenc_u32(&e, 8);
		xenc_u32(&e, ch ? 1 : 30);
		xenc_u32(&e, 0);
	}
	struct nfsrdma_record r;
	memset(&r, 0, sizeof(r));
	decode_reply(buf, e.len, &r);
	CHECK(nfs4_decode_body(1, buf, e.len, false, &res) == 0 && res.complete, "CREATE_SESSION reply");
	CHECK(res.has_session && memcmp(res.sessionid, SID, 16) == 0 && res.fore_maxreqs == 30 &&
	      res.fore_maxreq == 1049620, "session id and fore channel");
}

static void test_slots(void)
{
	struct nfs41_session s;
	uint32_t seq;

	nfs41_session_init(&s, 1, "t");
	CHECK(strncmp(s.owner, "nfsrdma-replay/", 15) == 0, "owner names the tool");
	s.nslots = 2;
	int a = nfs41_slot_get(&s, &seq);
	CHECK(a == 0 && seq == 1, "first slot, seqid 1");
	int b = nfs41_slot_get(&s, &seq);
	CHECK(b == 1 && seq == 1, "second slot");
	CHECK(nfs41_slot_get(&s, &seq) < 0, "no third slot");
	nfs41_slot_put(&s, a, 1, true, false);
	a = nfs41_slot_get(&s, &seq);
	CHECK(a == 0 && seq == 2, "seqid advances after a SEQUENCE the server ran");
	nfs41_slot_put(&s, a, 2, false, false);
	a = nfs41_slot_get(&s, &seq);
	CHECK(a == 0 && seq == 2, "seqid kept when the SEQUENCE failed");
	nfs41_slot_put(&s, a, 2, false, true);
	nfs41_slot_put(&s, b, 1, true, false);
	a = nfs41_slot_get(&s, &seq);
	CHECK(a == 1 && seq == 2, "a slot whose call was lost is retired");
	CHECK_EQ_U64(nfs41_highest(&s), 1);
}

int main(void)
{
	test_open_compound();
	test_read_write();
	test_session_ops();
	test_reply_decode();
	test_session_replies();
	test_slots();
	return check_summary("test_xdr_enc_nfs41");
}
