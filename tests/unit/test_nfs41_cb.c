/* The replay client's NFSv4.1 callback service (src/clnt/nfs41_cb.c) on the
 * callbacks knfsd sent in the lab (tests/fuzz/seeds/nfs41_cb/, extracted
 * from nfs41-deleg.pcap and nfs40-deleg.pcap by tests/fuzz/clnt_seeds.c)
 * and on hand-encoded ones: replies read back by hand, the recall handed
 * over with the stateid and handle the call carried, unsupported and
 * malformed calls answered as RFC 5531 / RFC 8881 say. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"
#include "src/xprt/xdr_enc.h"

static struct nfs41_cb_recall got;
static unsigned ngot;

static void on_recall(void *ctx, const struct nfs41_cb_recall *r)
{
	(void)ctx;
	got = *r;
	ngot++;
}

/* The RPC reply header: accepted, AUTH_NONE verifier; returns accept_stat
 * (or 99 when it is not that), c left after it. */
static uint32_t reply_head(struct cursor *c, uint32_t xid)
{
	if (cur_be32(c, "xid") != xid || cur_be32(c, "mtype") != 1 || cur_be32(c, "stat") != 0 ||
	    cur_be32(c, "verf flavor") != 0 || cur_be32(c, "verf len") != 0)
		return 99;
	uint32_t st = cur_be32(c, "accept_stat");
	return cur_ok(c) ? st : 99;
}

static size_t call_head(struct xenc *x, uint32_t xid, uint32_t vers, uint32_t proc)
{
	xenc_u32(x, xid);
	xenc_u32(x, 0);
	xenc_u32(x, 2);
	xenc_u32(x, 0x40000000);
	xenc_u32(x, vers);
	xenc_u32(x, proc);
	xenc_u32(x, 0);    /* AUTH_NONE cred and verifier */
	xenc_u32(x, 0);
	xenc_u32(x, 0);
	xenc_u32(x, 0);
	return x->len;
}

static const uint8_t SID[16] = "cb-session-0001";
static const uint8_t OTHER[12] = { 0xaa, 0x94, 2, 0x6b, 0x9f, 0x33, 0xe3, 0x0f, 2, 0, 0, 0 };
static const uint8_t FH[20] = { 1, 0, 1, 1, 0, 0, 0, 0, 0x0e, 0xad, 0x32, 0xc7, 3 };

/* CB_COMPOUND: CB_SEQUENCE (seqid 7, slot 0, highest 0), then extra ops. */
static size_t compound(uint8_t *buf, size_t cap, uint32_t xid, const uint32_t *ops, unsigned nops)
{
	struct xenc x;
	xenc_init(&x, buf, cap);
	call_head(&x, xid, 1, 1);
	xenc_u32(&x, 0);           /* tag */
	xenc_u32(&x, 1);           /* minorversion */
	xenc_u32(&x, 0);           /* callback_ident */
	xenc_u32(&x, nops);
	for (unsigned i = 0; i < nops; i++) {
		xenc_u32(&x, ops[i]);
		if (ops[i] == 11) {
			xenc_fixed(&x, SID, 16);
			xenc_u32(&x, 7);
			xenc_u32(&x, 0);
			xenc_u32(&x, 0);
			xenc_u32(&x, 0);
			xenc_u32(&x, 1);            /* one referring call list */
			xenc_fixed(&x, SID, 16);
			xenc_u32(&x, 1);
			xenc_u32(&x, 3);
			xenc_u32(&x, 0);
		} else if (ops[i] == 4) {
			xenc_u32(&x, 1);
			xenc_fixed(&x, OTHER, 12);
			xenc_u32(&x, 0);
			xenc_opaque(&x, FH, sizeof(FH));
		} else if (ops[i] == 5) {           /* CB_LAYOUTRECALL: args never read */
			xenc_u32(&x, 1);
		}
	}
	return xenc_ok(&x) ? x.len : 0;
}

static void test_sequence_recall(void)
{
	uint8_t call[512], out[512];
	const uint32_t ops[] = { 11, 4 };
	size_t n = compound(call, sizeof(call), 0x1234, ops, 2);
	struct nfs41_cb cb = { .recall = on_recall };
	ngot = 0;
	size_t r = nfs41_cb_serve(&cb, call, n, out, sizeof(out));
	struct cursor c = cur_make(out, r);
	CHECK(reply_head(&c, 0x1234) == 0, "CB_COMPOUND: accepted, SUCCESS");
	uint32_t st = cur_be32(&c, "status");
	uint32_t tl = cur_be32(&c, "tag len");
	uint32_t nres = cur_be32(&c, "count");
	CHECK(st == 0 && tl == 0 && nres == 2, "CB_COMPOUND: NFS4_OK, empty tag, 2 results (%u %u %u)", st, tl,
	      nres);
	uint32_t op = cur_be32(&c, "op"), ost = cur_be32(&c, "st");
	const uint8_t *sid = cur_bytes(&c, 16, "sessionid");
	uint32_t seq = cur_be32(&c, "seq"), slot = cur_be32(&c, "slot"), hi = cur_be32(&c, "hi"),
		 thi = cur_be32(&c, "thi");
	CHECK(op == 11 && ost == 0 && sid && !memcmp(sid, SID, 16) && seq == 7 && slot == 0 && hi == 0 &&
	      thi == 0, "CB_SEQUENCE result echoes the server's session, sequence and slot");
	op = cur_be32(&c, "op");
	ost = cur_be32(&c, "st");
	CHECK(op == 4 && ost == 0 && cur_ok(&c) && cur_left(&c) == 0, "CB_RECALL answered OK, nothing after");
	CHECK(ngot == 1 && got.sid.seqid == 1 && !memcmp(got.sid.other, OTHER, 12) &&
	      got.fh.len == sizeof(FH) && !memcmp(got.fh.data, FH, sizeof(FH)) && !got.truncate,
	      "the recall handed over with the call's stateid and handle");
	CHECK(cb.calls == 1 && cb.compounds == 1 && cb.recalls == 1, "counted");

	/* every truncation of the call: no read past it, no recall from a
	 * partial one, and a reply only when the RPC header is whole */
	unsigned bad = 0;
	for (size_t k = 0; k < n; k++) {
		uint8_t *p = malloc(k ? k : 1);
		memcpy(p, call, k);
		ngot = 0;
		size_t rk = nfs41_cb_serve(&cb, p, k, out, sizeof(out));
		free(p);
		bad += ngot != 0 || (k < 40 && rk != 0) || rk > sizeof(out);
	}
	CHECK(bad == 0, "%zu truncations of the call: %u misbehaved", n, bad);
}

static void test_unsupported(void)
{
	uint8_t call[512], out[512];
	struct nfs41_cb cb = { 0 };
	const uint32_t ops[] = { 11, 5, 4 };
	size_t n = compound(call, sizeof(call), 7, ops, 3);
	size_t r = nfs41_cb_serve(&cb, call, n, out, sizeof(out));
	struct cursor c = cur_make(out, r);
	reply_head(&c, 7);
	uint32_t st = cur_be32(&c, "status");
	cur_be32(&c, "tag");
	uint32_t nres = cur_be32(&c, "count");
	cur_skip(&c, 8 + 16 + 16, "CB_SEQUENCE result");
	uint32_t op = cur_be32(&c, "op"), ost = cur_be32(&c, "st");
	CHECK(st == 10004 && nres == 2 && op == 5 && ost == 10004 && cur_left(&c) == 0 && cb.recalls == 0,
	      "CB_LAYOUTRECALL: NFS4ERR_NOTSUPP, the compound stops there (%u %u %u %u)", st, nres, op, ost);

	struct xenc x;
	xenc_init(&x, call, sizeof(call));
	call_head(&x, 8, 1, 0);
	r = nfs41_cb_serve(&cb, call, x.len, out, sizeof(out));
	c = cur_make(out, r);
	CHECK(reply_head(&c, 8) == 0 && r == 24, "CB_NULL: accepted, SUCCESS, no body");
	xenc_init(&x, call, sizeof(call));
	call_head(&x, 9, 4, 1);
	r = nfs41_cb_serve(&cb, call, x.len, out, sizeof(out));
	c = cur_make(out, r);
	CHECK(reply_head(&c, 9) == 2 && cur_be32(&c, "low") == 1 && cur_be32(&c, "high") == 1,
	      "version 4: PROG_MISMATCH 1..1");
	xenc_init(&x, call, sizeof(call));
	call_head(&x, 10, 1, 2);
	r = nfs41_cb_serve(&cb, call, x.len, out, sizeof(out));
	c = cur_make(out, r);
	CHECK(reply_head(&c, 10) == 3, "procedure 2: PROC_UNAVAIL");
	uint32_t many[17];
	for (unsigned i = 0; i < 17; i++)
		many[i] = 3;     /* CB_GETATTR, its arguments left out: never read */
	n = compound(call, sizeof(call), 11, many, 17);
	r = nfs41_cb_serve(&cb, call, n, out, sizeof(out));
	c = cur_make(out, r);
	reply_head(&c, 11);
	st = cur_be32(&c, "status");
	cur_be32(&c, "tag");
	CHECK(st == 10018 && cur_be32(&c, "count") == 0, "17 operations: NFS4ERR_RESOURCE, no result");
	r = nfs41_cb_serve(&cb, call, n, out, 30);
	CHECK(r == 0, "a reply that does not fit is not sent (%zu)", r);
}

/* The lab's callbacks, as knfsd sent them */
static void test_lab(void)
{
	static const struct { const char *name; uint32_t proc; bool recall; } seeds[] = {
		{ "tests/fuzz/seeds/nfs41_cb/nfs41-deleg-cb-1-172", 1, true },
		{ "tests/fuzz/seeds/nfs41_cb/nfs40-deleg-cb-1-132", 1, true },
		{ "tests/fuzz/seeds/nfs41_cb/nfs40-deleg-cb-0-68", 0, false },
	};
	for (unsigned i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[512];
		uint8_t call[4096], out[1024];
		FILE *f = fopen(check_path(seeds[i].name, path, sizeof(path)), "rb");
		CHECK(f != NULL, "%s", seeds[i].name);
		if (!f)
			continue;
		size_t n = fread(call, 1, sizeof(call), f);
		fclose(f);
		struct nfs41_cb cb = { .recall = on_recall };
		ngot = 0;
		uint32_t xid = (uint32_t)call[0] << 24 | (uint32_t)call[1] << 16 | (uint32_t)call[2] << 8 | call[3];
		size_t r = nfs41_cb_serve(&cb, call, n, out, sizeof(out));
		struct cursor c = cur_make(out, r);
		bool ok = reply_head(&c, xid) == 0;
		if (seeds[i].proc == 1) {
			ok &= cur_be32(&c, "status") == 0;
			cur_xdr_opaque(&c, 64, NULL, "tag");
			uint32_t nres = cur_be32(&c, "count");
			/* the call's own op list, read by hand */
			struct cursor a = cur_make(call, n);
			cur_skip(&a, 24, "call head");
			for (int k = 0; k < 2; k++) {
				cur_skip(&a, 4, "flavor");
				cur_xdr_opaque(&a, 400, NULL, "body");
			}
			cur_xdr_opaque(&a, 64, NULL, "tag");
			uint32_t minor = cur_be32(&a, "minor");
			cur_be32(&a, "ident");
			uint32_t nops = cur_be32(&a, "nops");
			ok &= nres == nops && ngot == 1;
			/* 4.1: CB_SEQUENCE then CB_RECALL; 4.0: CB_RECALL alone */
			ok &= minor == 1 ? nops == 2 : nops == 1;
		}
		CHECK(ok && r > 0, "%s: answered as knfsd expects (accepted, NFS4_OK, one result per op, %u recall)",
		      seeds[i].name, ngot);
	}
}

int main(void)
{
	test_sequence_recall();
	test_unsupported();
	test_lab();
	return check_summary("test_nfs41_cb");
}
