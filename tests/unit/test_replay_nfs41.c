/* Replay of NFSv4.1/4.2 captures (src/clnt/nfs41_clnt_rewrite.c): every
 * COMPOUND of the catalogue's nfs41/nfs42 captures is walked, rewritten
 * with other identities (handles, stateids, client and session IDs, our
 * SEQUENCE) and read back with the dissector's NFSv4 decoder: same ops,
 * the new identities where the old ones were, nothing else changed; the
 * trace's replies are decoded by our reply decoder. */
#include "check.h"

#include <errno.h>

#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/record.h"
#include "dissect/rpc.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/replay/trace.h"
#include "nfs4_decode.h"

struct ctx {
	unsigned seqs, fhs, sids, cids, sess, xids;
	uint32_t last_seq;
};

static const struct nfs_fh NEWFH = { .len = 36, .data = { 0xfe, 0xed, 1, 2, 3 } };
static const uint8_t NEWSID[16] = { 'r', 'e', 'p', 'l', 'a', 'y', '-', 's', 'e', 's', 's', 'i', 'o', 'n' };

static int m_sequence(void *c, struct xenc *e, const uint8_t tsid[16], bool cachethis)
{
	struct ctx *x = c;
	(void)tsid;
	x->seqs++;
	x->last_seq = 1000 + x->seqs;
	xenc_fixed(e, NEWSID, 16);
	xenc_u32(e, x->last_seq);
	xenc_u32(e, 5);
	xenc_u32(e, 7);
	xenc_bool(e, cachethis);
	return 0;
}

static int m_fh(void *c, const struct nfs_fh *t, struct nfs_fh *out)
{
	((struct ctx *)c)->fhs++;
	(void)t;
	*out = NEWFH;
	return 0;
}

static int m_sid(void *c, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	((struct ctx *)c)->sids++;
	*out = *t;
	for (int i = 0; i < 12; i++)
		out->other[i] ^= 0x5a;
	return 0;
}

static int m_cid(void *c, uint64_t t, uint64_t *out)
{
	((struct ctx *)c)->cids++;
	*out = ~t;
	return 0;
}

static int m_sess(void *c, const uint8_t t[16], uint8_t out[16])
{
	((struct ctx *)c)->sess++;
	(void)t;
	memcpy(out, NEWSID, 16);
	return 0;
}

static void m_xid(void *c, uint8_t verf[8], const uint8_t **owner, uint32_t *len)
{
	((struct ctx *)c)->xids++;
	memset(verf, 0x77, 8);
	*owner = (const uint8_t *)"replay-owner";
	*len = 12;
}

static uint32_t m_cs(void *c, uint64_t cid)
{
	(void)c;
	(void)cid;
	return 99;
}

static int m_fail(void *c, const struct nfs_fh *t, struct nfs_fh *out)
{
	(void)c;
	(void)t;
	(void)out;
	return -ENOENT;
}

static void replay_capture(const char *rel, unsigned *ncalls)
{
	char path[4096], err[256];
	struct trace t;
	int ret = trace_load(&t, check_path(rel, path, sizeof(path)), err, sizeof(err));
	CHECK(ret == 0, "%s: %s", rel, err);
	if (ret)
		return;
	struct ctx x = { 0 };
	const struct nfs4_rewrite_ops ops = { &x, m_sequence, m_fh, m_sid, m_cid, m_sess, m_xid, m_cs, NULL, NULL, NULL, NULL };
	unsigned v4 = 0, withddp = 0, opens = 0, sessions = 0;
	static uint8_t out[1 << 17];
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		if (tc->prog != 100003 || tc->vers != 4 || tc->proc != 1)
			continue;
		v4++;
		struct nfs4_call_info in;
		CHECK(nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) == 0,
		      "%s: xid 0x%08x: every op's arguments walked", rel, tc->xid);
		CHECK(in.minor >= 1, "minor version");
		/* rewrite after a fresh RPC header */
		struct xenc e;
		xenc_init(&e, out, sizeof(out));
		xenc_rpc_call(&e, 0x12345678, 100003, 4, 1, NULL);
		size_t ddp_out = 0;
		unsigned fhs0 = x.fhs, seqs0 = x.seqs;
		ret = nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &ops, &e, &ddp_out);
		CHECK(ret == 0, "%s: xid 0x%08x rewritten (%d)", rel, tc->xid, ret);
		/* the original and the rewrite, through the dissector */
		struct nfsrdma_record a, b;
		bool oka, okb;
		struct xdr_ddp da = { 0 }, db = { 0 };
		uint8_t orig[1 << 16];
		struct xenc oe;
		xenc_init(&oe, orig, sizeof(orig));
		xenc_rpc_call(&oe, 0x12345678, 100003, 4, 1, NULL);
		size_t hdr = oe.len;
		uint8_t *p = xenc_reserve(&oe, tc->args_len);
		if (p)
			memcpy(p, tc->args, tc->args_len);
		if (tc->rpos) {
			da.nread = 1;
			da.read_pos[0] = (uint32_t)(hdr + tc->rpos);
			da.read_len[0] = tc->ddp_len;
		}
		if (in.has_ddp) {
			withddp++;
			CHECK(ddp_out > 0, "DDP argument located in the rewrite");
			if (in.ddp_inline) {
				/* the rewrite leaves the bytes out: the transport adds them;
				 * the dissector sees them as a Read chunk at that position */
				db.nread = 1;
				db.read_pos[0] = (uint32_t)ddp_out;
				db.read_len[0] = in.ddp_len;
			} else {
				db.nread = 1;
				db.read_pos[0] = (uint32_t)ddp_out;
				db.read_len[0] = in.ddp_len;
			}
		}
		decode(orig, oe.len, &a, &da, &oka);
		decode(out, e.len, &b, &db, &okb);
		CHECK(oka && okb, "%s: xid 0x%08x: the dissector decodes the original and the rewrite", rel, tc->xid);
		CHECK(a.nops == b.nops && a.minorvers == b.minorvers, "same op count and minor version");
		unsigned n = a.nops < REC_MAX_OPS ? a.nops : REC_MAX_OPS;
		for (unsigned k = 0; k < n; k++) {
			CHECK(a.ops[k].op == b.ops[k].op, "op %u the same", k);
			if (b.ops[k].op == NFS4_OP_PUTFH)
				CHECK(b.ops[k].fh_hash == xdr_fh_hash(NEWFH.data, NEWFH.len), "PUTFH handle mapped");
			if (b.ops[k].op == NFS4_OP_SEQUENCE)
				CHECK(b.ops[k].seqid == x.last_seq && b.ops[k].count == 5, "our SEQUENCE seqid and slot");
			if (b.ops[k].op == NFS4_OP_READ || b.ops[k].op == NFS4_OP_WRITE ||
			    b.ops[k].op == NFS4_OP_CLOSE)
				CHECK(a.ops[k].seqid == b.ops[k].seqid && a.ops[k].offset == b.ops[k].offset &&
				      a.ops[k].count == b.ops[k].count, "stateid seqid, offset, count kept");
			if (a.ops[k].op == NFS4_OP_OPEN)
				opens++;
			if (a.ops[k].op == NFS4_OP_CREATE_SESSION)
				sessions++;
		}
		CHECK(strcmp(a.name, b.name) == 0, "names kept (\"%s\")", a.name);
		unsigned putfh = 0;
		for (unsigned k = 0; k < n; k++)
			putfh += a.ops[k].op == NFS4_OP_PUTFH;
		CHECK(x.fhs - fhs0 == putfh, "one handle mapped per PUTFH");
		CHECK(x.seqs - seqs0 == (in.has_sequence ? 1u : 0u), "one SEQUENCE per COMPOUND with one");
		/* the trace's reply, through our decoder */
		if (tc->res && tc->rpc_status == 0) {
			struct nfs4_res r;
			memset(&r, 0, sizeof(r));
			CHECK(nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &r) == 0 && r.complete,
			      "%s: xid 0x%08x: trace reply decoded", rel, tc->xid);
			CHECK(r.status == tc->status, "COMPOUND status");
			for (unsigned k = 0; k < r.nres && k < in.nops && k < NFS4_RES_MAXOPS; k++)
				CHECK(r.op[k] == in.op[k], "result %u answers op %u", k, k);
			if (in.main_opnum == NFS4_OP_OPEN && r.status == 0)
				CHECK(r.nsid == 1, "OPEN 0x%08x: stateid (nsid %u nfh %u nres %u complete %d res_len %u)", tc->xid, r.nsid, r.nfh, r.nres, r.complete, tc->res_len);
			if (in.main_opnum == NFS4_OP_CREATE_SESSION && r.status == 0)
				CHECK(r.has_session && r.fore_maxreqs > 0, "CREATE_SESSION: session");
			if (in.main_opnum == NFS4_OP_EXCHANGE_ID && r.status == 0)
				CHECK(r.has_clientid, "EXCHANGE_ID: client id");
		}
	}
	CHECK(v4 > 30, "%s: NFSv4 COMPOUNDs read (%u)", rel, v4);
	CHECK(withddp >= 2 && opens >= 4 && sessions == 1, "%s: WRITEs, OPENs and one CREATE_SESSION", rel);
	CHECK(x.xids == 2 && x.cids >= 2 && x.sess >= 1 && x.sids >= 4,
	      "%s: owner, client ids, session ids and stateids rewritten (%u %u %u %u)", rel, x.xids,
	      x.cids, x.sess, x.sids);
	*ncalls += v4;

	/* a map failure stops the call */
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		struct nfs4_call_info in;
		if (tc->vers != 4 || tc->proc != 1 || nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) ||
		    in.main_opnum != NFS4_OP_READ)
			continue;
		struct nfs4_rewrite_ops bad = ops;
		bad.map_fh = m_fail;
		struct xenc e;
		size_t d;
		xenc_init(&e, out, sizeof(out));
		CHECK(nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &bad, &e, &d) == -ENOENT,
		      "unmapped handle: -ENOENT");
		break;
	}
	trace_free(&t);
}

/* Hostile arguments: every truncation of a real COMPOUND fails cleanly. */
static void test_truncated(void)
{
	char path[4096], err[256];
	struct trace t;
	if (trace_load(&t, check_path("tests/captures/nfs41.pcap", path, sizeof(path)), err, sizeof(err)))
		return;
	unsigned fails = 0, n = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		if (tc->vers != 4 || tc->proc != 1)
			continue;
		for (uint32_t cut = 0; cut < tc->args_len; cut++) {
			struct nfs4_call_info in;
			n++;
			fails += nfs4_call_parse(tc->args, cut, 0, &in) < 0;
		}
	}
	CHECK(n > 1000 && fails == n, "every truncated COMPOUND refused (%u of %u)", fails, n);
	trace_free(&t);
}

int main(void)
{
	unsigned n = 0;
	replay_capture("tests/captures/nfs41.pcap", &n);
	replay_capture("tests/captures/nfs42.pcap", &n);
	test_truncated();
	return check_summary("test_replay_nfs41");
}
