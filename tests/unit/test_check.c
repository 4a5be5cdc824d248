/* check_record, the rules judged when a call and its reply are both in:
 * the Write list the reply echoes against the chunks the call offered
 * (RFC 8166 §4.3.2), the XDR roundup of a result written by DDP, and
 * DDP eligibility by procedure (RFC 8267 §4) for programs whose
 * procedure alone decides it.  Each record is built here; the expected
 * findings follow from the lengths it is given. */
#include "check.h"

#include "dissect/check.h"
#include "dissect/programs.h"
#include "dissect/xdr.h"

static struct nfsrdma_record rec;
static struct xdr_ddp call_ddp, reply_ddp;
static uint64_t offered[XDR_DDP_MAX];

/* A READ of NFSv3 with both halves in: n chunks offered (offered[]), the
 * reply echoing n_echo lengths (reply_ddp.write_len). */
static void judge(unsigned n, unsigned n_echo)
{
	rec.flags = RECF_CALL | RECF_REPLY;
	rec.prog = 100003;
	rec.vers = 3;
	rec.proc = 6;
	rec.n_write_chunks = (uint16_t)n;
	reply_ddp.nwrite = (uint16_t)n_echo;
	check_record(&rec, prog_lookup(100003, 3), &call_ddp, &reply_ddp, offered, n);
}

static void reset(void)
{
	memset(&rec, 0, sizeof(rec));
	memset(&call_ddp, 0, sizeof(call_ddp));
	memset(&reply_ddp, 0, sizeof(reply_ddp));
	memset(offered, 0, sizeof(offered));
}

static void test_write_list_echo(void)
{
	/* two chunks of 1000 and 2000 bytes, the second echoed as 2500 */
	reset();
	offered[0] = 1000, offered[1] = 2000;
	reply_ddp.write_len[0] = 1000, reply_ddp.write_len[1] = 2500;
	judge(2, 2);
	CHECK_EQ_U64(rec.findings, 1ull << FND_WLIST_ECHO_LONGER);
	CHECK_EQ_U64(rec.nfindings, 1);
	CHECK(rec.finding[0].a == 2500 && rec.finding[0].b == 2000, "echoed 2500 of 2000: %u of %" PRIu64,
	      rec.finding[0].a, rec.finding[0].b);

	/* echoed as offered, and shorter: nothing */
	reset();
	offered[0] = 1000, offered[1] = 2000;
	reply_ddp.write_len[0] = 1000, reply_ddp.write_len[1] = 1999;
	judge(2, 2);
	CHECK_EQ_U64(rec.findings, 0);

	/* the reply echoes the first of the two alone: the second chunk was
	 * not returned, whatever the struct holds past the echoed count
	 * (5000 here, as a struct used for an earlier reply would) */
	reset();
	offered[0] = 1000, offered[1] = 2000;
	reply_ddp.write_len[0] = 1000, reply_ddp.write_len[1] = 5000;
	judge(2, 1);
	CHECK_EQ_U64(rec.findings, 0);

	/* one offered, two echoed: the second has no chunk to compare with */
	reset();
	offered[0] = 1000, offered[1] = 5000;
	reply_ddp.write_len[0] = 1000, reply_ddp.write_len[1] = 9000;
	judge(1, 2);
	CHECK_EQ_U64(rec.findings, 0);

	/* all 16 chunks a call can offer, each echoed one byte longer: a
	 * finding for each, as many as the record keeps */
	reset();
	for (unsigned i = 0; i < XDR_DDP_MAX; i++) {
		offered[i] = 100 * (i + 1);
		reply_ddp.write_len[i] = offered[i] + 1;
	}
	judge(XDR_DDP_MAX, XDR_DDP_MAX);
	CHECK_EQ_U64(rec.findings, 1ull << FND_WLIST_ECHO_LONGER);
	CHECK_EQ_U64(rec.nfindings, XDR_DDP_MAX < REC_MAX_FINDINGS ? XDR_DDP_MAX : REC_MAX_FINDINGS);
	CHECK(rec.finding[0].a == 101 && rec.finding[0].b == 100, "the first: 101 of 100");

	/* the same echo with the reply not in: not judged */
	reset();
	offered[0] = 1000;
	reply_ddp.write_len[0] = 2000;
	reply_ddp.nwrite = 1;
	rec.flags = RECF_CALL;
	check_record(&rec, prog_lookup(100003, 3), &call_ddp, &reply_ddp, offered, 1);
	CHECK_EQ_U64(rec.findings, 0);
}

static void test_roundup(void)
{
	/* READ of 1001 bytes: a Write chunk echoed as 1004 counted the pad */
	reset();
	offered[0] = 4096;
	reply_ddp.write_len[0] = 1004;
	rec.res_count = 1001;
	judge(1, 1);
	CHECK_EQ_U64(rec.findings, 1ull << FND_WRITE_ROUNDUP);
	CHECK(rec.nfindings == 1 && rec.finding[0].b == 3, "3 pad bytes");
	/* echoed as 1001, or a count already aligned: nothing */
	reset();
	offered[0] = 4096;
	reply_ddp.write_len[0] = 1001;
	rec.res_count = 1001;
	judge(1, 1);
	CHECK_EQ_U64(rec.findings, 0);
	reset();
	offered[0] = 4096;
	reply_ddp.write_len[0] = 1004;
	rec.res_count = 1004;
	judge(1, 1);
	CHECK_EQ_U64(rec.findings, 0);
}

/* Eligibility by procedure: NLM version 4 has no DDP-eligible item, so
 * a Write chunk on its LOCK is flagged; NFSv4 is left to nfs4.c (per
 * op), so check_record flags nothing for a COMPOUND or a NULL. */
static void test_eligible(void)
{
	reset();
	rec.flags = RECF_CALL;
	rec.prog = 100021, rec.vers = 4, rec.proc = 2;
	rec.n_write_chunks = 1, rec.write_chunk_bytes = 4096;
	check_record(&rec, prog_lookup(100021, 4), &call_ddp, NULL, offered, 0);
	CHECK_EQ_U64(rec.findings, 1ull << FND_NOT_ELIGIBLE);
	CHECK(rec.nfindings == 1 && rec.finding[0].a == 1 && rec.finding[0].b == 4096,
	      "one chunk of 4096 bytes");

	for (uint32_t proc = 0; proc <= 1; proc++) {
		reset();
		rec.flags = RECF_CALL;
		rec.prog = 100003, rec.vers = 4, rec.proc = proc;
		rec.n_write_chunks = 1, rec.write_chunk_bytes = 4096;
		check_record(&rec, prog_lookup(100003, 4), &call_ddp, NULL, offered, 0);
		CHECK(rec.findings == 0, "NFSv4 proc %u: left to nfs4.c (0x%" PRIx64 ")", proc, rec.findings);
	}

	/* NFSv3: a Read chunk on GETATTR is not eligible; on WRITE, the
	 * one its arguments moved (RECF_ARGS_DDP) is */
	reset();
	rec.flags = RECF_CALL;
	rec.prog = 100003, rec.vers = 3, rec.proc = 1;
	rec.n_read_chunks = 1, rec.read_chunk_bytes = 64;
	check_record(&rec, prog_lookup(100003, 3), &call_ddp, NULL, offered, 0);
	CHECK_EQ_U64(rec.findings, 1ull << FND_NOT_ELIGIBLE);
	CHECK(rec.nfindings == 1 && rec.finding[0].a == 1 && rec.finding[0].b == 64, "one chunk of 64 bytes");
	reset();
	rec.flags = RECF_CALL | RECF_ARGS_DDP;
	rec.prog = 100003, rec.vers = 3, rec.proc = 7;
	rec.n_read_chunks = 1, rec.read_chunk_bytes = 8192;
	check_record(&rec, prog_lookup(100003, 3), &call_ddp, NULL, offered, 0);
	CHECK_EQ_U64(rec.findings, 0);
}

int main(void)
{
	test_write_list_echo();
	test_roundup();
	test_eligible();
	return check_summary("test_check");
}
