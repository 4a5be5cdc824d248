/* XDR encoding of calls (src/xprt/xdr_enc.c, src/clnt/nfs3_clnt.c): what we encode
 * is read back with the dissector's independent decoders (dissect/rpc.c,
 * dissect/nfs3.c); RFC 8797 private data against the RFC's layout; the
 * latency histogram against exact distributions. */
#include "check.h"

#include <errno.h>

#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/rpc.h"
#include "src/xprt/xprt.h"
#include "src/clnt/nfs3.h"
#include "src/replay/loadgen_hist.h"
#include "src/xprt/xdr_enc.h"

static void test_primitives(void)
{
	uint8_t buf[64];
	struct xenc e;

	xenc_init(&e, buf, sizeof(buf));
	xenc_u32(&e, 0x01020304);
	xenc_u64(&e, 0x1122334455667788ull);
	xenc_opaque(&e, "abcde", 5);  /* 4 + 5 + 3 pad */
	CHECK_EQ_U64(e.len, 4 + 8 + 12);
	CHECK(xenc_ok(&e), "no overflow");
	static const uint8_t want[] = { 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
					0, 0, 0, 5, 'a', 'b', 'c', 'd', 'e', 0, 0, 0 };
	CHECK(memcmp(buf, want, sizeof(want)) == 0, "XDR bytes as RFC 4506 says");
	/* overflow is sticky and nothing is written past the end */
	uint8_t small[8];
	xenc_init(&e, small, sizeof(small));
	xenc_u32(&e, 1);
	xenc_u64(&e, 2);
	xenc_u32(&e, 3);
	CHECK(!xenc_ok(&e), "overflow detected");
	CHECK_EQ_U64(e.len, 4);
}

static void test_rpc_header(void)
{
	uint8_t buf[256];
	struct xenc e;
	struct rpc_cred c;

	rpc_cred_sys(&c, 1000, 100);
	snprintf(c.machine, sizeof(c.machine), "clientname");
	c.ngids = 2;
	c.gids[0] = 5;
	c.gids[1] = 6;
	xenc_init(&e, buf, sizeof(buf));
	xenc_rpc_call(&e, 0xdeadbeef, 100003, 3, 6, &c);
	struct rpc_msg m;
	struct cursor cur = cur_make(buf, e.len);
	CHECK(rpc_decode(&m, &cur, NULL) == 0, "dissector decodes our call header");
	CHECK_EQ_U64(m.xid, 0xdeadbeef);
	CHECK_EQ_U64(m.mtype, RPC_CALL);
	CHECK_EQ_U64(m.prog, 100003);
	CHECK_EQ_U64(m.vers, 3);
	CHECK_EQ_U64(m.proc, 6);
	CHECK_EQ_U64(m.cred_flavor, AUTH_SYS);
	CHECK_EQ_U64(m.sys_uid, 1000);
	CHECK_EQ_U64(m.sys_gid, 100);
	CHECK_EQ_U64(m.sys_ngids, 2);
	CHECK_EQ_STR(m.sys_machine, "clientname");
	CHECK_EQ_U64(cur.off, e.len);
}

/* Encodes with nfs3_clnt, decodes the arguments with dissect/nfs3.c. */
static void decode_args(struct nfs_msg *m, uint32_t proc, struct nfsrdma_record *r, struct xdr_ddp *ddp)
{
	struct rpc_msg rm;
	struct cursor cur = cur_make(m->req.msg, m->req.len);
	memset(r, 0, sizeof(*r));
	CHECK(rpc_decode(&rm, &cur, NULL) == 0, "call header");
	CHECK_EQ_U64(rm.proc, proc);
	struct pdec d = { .c = cur, .rec = r, .ddp = ddp, .vers = 3, .proc = proc, .layer = "nfs3" };
	prog_nfs3.decode_call(&d);
	CHECK(!d.failed && cur_ok(&d.c), "dissector decodes the arguments");
}

static void test_nfs3_calls(void)
{
	struct nfs_msg m;
	struct nfs_fh fh = { .len = 8, .data = { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct rpc_cred c;
	struct nfsrdma_record r;

	rpc_cred_sys(&c, 0, 0);
	CHECK(nfs3_enc_read(&m, &c, &fh, 1u << 20, 262144) == 0, "READ encodes");
	decode_args(&m, 6, &r, NULL);
	CHECK_EQ_U64(r.offset, 1u << 20);
	CHECK_EQ_U64(r.count, 262144);
	CHECK_EQ_U64(r.fh_hash, xdr_fh_hash(fh.data, fh.len));
	CHECK_EQ_U64(m.req.wchunk, 262144);  /* READ data is DDP-eligible (RFC 8267) */
	CHECK(!m.req.has_ddp, "READ call has no DDP argument");

	/* WRITE: the data's length word is the last thing inline; the dissector
	 * sees a Read chunk at that position (RFC 8166 3.4.5) */
	CHECK(nfs3_enc_write(&m, &c, &fh, 4096, 65536, 2, NULL) == 0, "WRITE encodes");
	struct xdr_ddp ddp = { .nread = 1 };
	size_t hdr_len;
	{
		struct rpc_msg rm;
		struct cursor cur = cur_make(m.req.msg, m.req.len);
		rpc_decode(&rm, &cur, NULL);
		hdr_len = cur.off;
	}
	ddp.read_pos[0] = (uint32_t)m.req.len;  /* position = end of the inline part */
	ddp.read_len[0] = 65536;
	decode_args(&m, 7, &r, &ddp);
	CHECK_EQ_U64(r.offset, 4096);
	CHECK_EQ_U64(r.count, 65536);
	CHECK_EQ_U64(ddp.read_used, 1);
	CHECK(m.req.has_ddp && m.req.ddp_len == 65536, "WRITE data is DDP-eligible");
	CHECK_EQ_U64(m.req.len, hdr_len + 4 + 8 + 8 + 4 + 4 + 4);

	CHECK(nfs3_enc_lookup(&m, &c, &fh, "a-name") == 0, "LOOKUP encodes");
	decode_args(&m, 3, &r, NULL);
	CHECK_EQ_STR(r.name, "a-name");

	CHECK(nfs3_enc_readdirplus(&m, &c, &fh, 0, NULL, 8192, 65536) == 0, "READDIRPLUS encodes");
	decode_args(&m, 17, &r, NULL);
	CHECK_EQ_U64(r.count, 65536);
	CHECK(m.req.reply_max > 65536, "READDIRPLUS reply bound covers maxcount (Reply chunk)");

	/* a name too long for the buffer fails cleanly */
	char longname[4000];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	CHECK(nfs3_enc_lookup(&m, &c, &fh, longname) == -EMSGSIZE, "oversized call refused");
}

static void test_cm_priv(void)
{
	uint8_t p[8];
	uint32_t s, r;
	bool inv;

	/* RFC 8797 section 4: magic, version 1, flags, (size >> 10) - 1 */
	rpcrdma_cm_priv_encode(p, 4096, 4096, false);
	static const uint8_t want[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 0, 3, 3 };
	CHECK(memcmp(p, want, 8) == 0, "4096/4096 encodes as 3/3");
	CHECK(rpcrdma_cm_priv_decode(p, 8, &s, &r, &inv), "decodes");
	CHECK_EQ_U64(s, 4096);
	CHECK_EQ_U64(r, 4096);
	static const uint8_t linux_srv[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 0, 255 };
	CHECK(rpcrdma_cm_priv_decode(linux_srv, 8, &s, &r, &inv), "decodes peer data");
	CHECK_EQ_U64(s, 1024);
	CHECK_EQ_U64(r, 256 * 1024);
	CHECK(inv, "remote invalidation flag");
	static const uint8_t bad[8] = { 0xf6, 0xab, 0x0e, 0x19, 1, 0, 3, 3 };
	CHECK(!rpcrdma_cm_priv_decode(bad, 8, &s, &r, &inv), "wrong magic rejected");
	CHECK(!rpcrdma_cm_priv_decode(want, 7, &s, &r, &inv), "short data rejected");
	CHECK(!rpcrdma_cm_priv_decode(NULL, 0, &s, &r, &inv), "no data rejected");
}

static void test_hist(void)
{
	static struct lhist h;

	memset(&h, 0, sizeof(h));
	for (uint64_t i = 1; i <= 10000; i++)
		lhist_add(&h, i * 1000);  /* 1 us .. 10 ms, uniform */
	CHECK_EQ_U64(h.n, 10000);
	CHECK_EQ_U64(h.min, 1000);
	CHECK_EQ_U64(h.max, 10000000);
	uint64_t p50 = lhist_pct(&h, 50), p99 = lhist_pct(&h, 99), p999 = lhist_pct(&h, 99.9);
	/* exact: 5 ms, 9.9 ms, 9.99 ms; the shared histogram (src/stats/hist.h,
	 * HIST_RES) reports its bucket's upper bound, within 1/32 above */
	CHECK(p50 >= 5000000 && p50 <= 5000000 + 5000000 / 32, "p50 %" PRIu64, p50);
	CHECK(p99 >= 9900000 && p99 <= 9900000 + 9900000 / 32, "p99 %" PRIu64, p99);
	CHECK(p999 >= 9990000 && p999 <= 10000000, "p99.9 %" PRIu64, p999);
	CHECK_EQ_U64(lhist_pct(&h, 100), 10000000);
	static struct lhist one;
	memset(&one, 0, sizeof(one));
	lhist_add(&one, 42);
	CHECK_EQ_U64(lhist_pct(&one, 50), 42);  /* small values are exact */
	lhist_add(&one, UINT64_MAX);             /* out of range: clamped, no crash */
	CHECK_EQ_U64(lhist_pct(&one, 100), UINT64_MAX);
}

int main(void)
{
	test_primitives();
	test_rpc_header();
	test_nfs3_calls();
	test_cm_priv();
	test_hist();
	return check_summary("test_xdr_enc");
}
