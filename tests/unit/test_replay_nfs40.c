/* Replay of NFSv4.0 (src/nfs41_clnt_rewrite.c with the 4.0 extras,
 * src/nfs40_clnt.c): every COMPOUND of the catalogue's nfs40.pcap (a Linux
 * 6.1 NFSv4.0 mount over RDMA) is walked, rewritten with other identities
 * (handles, stateids, client ID, SETCLIENTID's client and callback,
 * SETCLIENTID_CONFIRM's verifier, open-owner seqids) and read back with
 * the dissector's NFSv4 decoder.  What the rewrite must have found is
 * checked against what the dissector says about the original (the OPEN
 * seqids, the stateid seqids of CLOSE and OPEN_CONFIRM, the ops), and the
 * trace's replies against the calls that follow them in the capture. */
#include "check.h"

#include <errno.h>

#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/record.h"
#include "dissect/rpc.h"
#include "src/rdma_ep_nfs41.h"
#include "src/rdma_ep_replay.h"
#include "nfs4_decode.h"

#define MAXREF 64

struct ctx {
	unsigned fhs, sids, cids, ids, confirms, seqids;
	uint64_t last_tcid;             /* trace client ID last mapped */
	/* the seqids the rewrite handed over, in order */
	struct {
		uint32_t idx, op, tseq, out;
		bool by_sid, lock, names;
		uint32_t sid_seqid;
	} ref[MAXREF];
	unsigned nref;
};

static const struct nfs_fh NEWFH = { .len = 28, .data = { 0xfe, 0xed, 4, 0 } };
static const uint8_t CONFIRM[8] = { 0xc0, 0xf1, 0x2a, 0x11, 0x0e, 0xd0, 0x0d, 0x40 };
static const char OWNER[] = "nfsrdma-replay/unit/v40";

static int m_seq41(void *c, struct xenc *e, const uint8_t tsid[16], bool cachethis)
{
	(void)c; (void)e; (void)tsid; (void)cachethis;
	return -EINVAL;   /* NFSv4.0 has no SEQUENCE */
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
		out->other[i] ^= 0xa5;
	return 0;
}

static int m_cid(void *c, uint64_t t, uint64_t *out)
{
	struct ctx *x = c;
	x->cids++;
	x->last_tcid = t;
	*out = 0x0123456789abcdefull;
	return 0;
}

static int m_sess(void *c, const uint8_t t[16], uint8_t out[16])
{
	(void)c; (void)t; (void)out;
	return -EINVAL;
}

static void m_id(void *c, uint8_t verf[8], const uint8_t **owner, uint32_t *len)
{
	((struct ctx *)c)->ids++;
	memset(verf, 0x77, 8);
	*owner = (const uint8_t *)OWNER;
	*len = (uint32_t)strlen(OWNER);
}

static uint32_t m_cs(void *c, uint64_t cid)
{
	(void)c; (void)cid;
	return 0;
}

static int m_confirm(void *c, uint8_t verf[8])
{
	((struct ctx *)c)->confirms++;
	memcpy(verf, CONFIRM, 8);
	return 0;
}

static int m_seqid(void *c, const struct nfs4_seqid_ref *ref, uint32_t tseq, uint32_t *out)
{
	struct ctx *x = c;
	*out = 0x5e000000u + x->seqids++;
	if (x->nref < MAXREF) {
		x->ref[x->nref].idx = ref->idx;
		x->ref[x->nref].op = ref->op;
		x->ref[x->nref].tseq = tseq;
		x->ref[x->nref].out = *out;
		x->ref[x->nref].by_sid = ref->sid != NULL;
		x->ref[x->nref].sid_seqid = ref->sid ? ref->sid->seqid : 0;
		x->ref[x->nref].lock = ref->lock;
		x->ref[x->nref].names = ref->names_owner;
		x->nref++;
	}
	return 0;
}

static bool has_bytes(const uint8_t *p, size_t n, const void *needle, size_t k)
{
	return k <= n && memmem(p, n, needle, k) != NULL;
}

/* The (single-op) COMPOUND's first op arguments, read here by hand:
 * empty-or-not tag, minorversion, count, opnum. */
static struct cursor first_op(const struct tcall *tc)
{
	struct cursor c = cur_make(tc->args, tc->args_len);
	cur_xdr_opaque(&c, 1024, NULL, "tag");
	cur_skip(&c, 12, "minor count opnum");
	return c;
}

static void test_capture(void)
{
	char path[4096], err[256];
	struct trace t;
	int ret = trace_load(&t, check_path("tests/captures/nfs40.pcap", path, sizeof(path)), err,
			     sizeof(err));
	CHECK(ret == 0, "nfs40.pcap: %s", err);
	if (ret)
		return;
	struct ctx x = { 0 };
	const struct nfs4_rewrite_ops ops = { &x, m_seq41, m_fh, m_sid, m_cid, m_sess, m_id, m_cs };
	const struct nfs40_rewrite_ops v40 = { m_confirm, m_seqid };
	static uint8_t out[1 << 17], orig[1 << 17];
	unsigned v4 = 0, setcids = 0, scconfirms = 0, opens = 0, open_seq_ok = 0, sid_seq_ok = 0;
	unsigned confirm_flags = 0, confirm_next = 0, leases = 0;
	uint64_t sc_clientid = 0;
	uint8_t sc_confirm[8] = { 0 };
	bool have_sc = false;
	int open_res_confirm = -1;        /* the last OPEN reply's CONFIRM flag */

	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		if (tc->prog != 100003 || tc->vers != 4 || tc->proc != 1)
			continue;
		v4++;
		struct nfs4_call_info in;
		CHECK(nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) == 0 && in.known,
		      "xid 0x%08x: every op's arguments walked", tc->xid);
		CHECK(in.minor == 0, "xid 0x%08x: minor version 0", tc->xid);
		struct xenc e, oe;
		xenc_init(&e, out, sizeof(out));
		xenc_rpc_call(&e, 0x40404040, 100003, 4, 1, NULL);
		size_t ddp_out = 0;
		unsigned nref0 = x.nref, fhs0 = x.fhs;
		ret = nfs4_call_rewrite_v40(tc->args, tc->args_len, tc->rpos, &ops, &v40, &e, &ddp_out);
		CHECK(ret == 0, "xid 0x%08x rewritten (%d)", tc->xid, ret);
		xenc_init(&oe, orig, sizeof(orig));
		xenc_rpc_call(&oe, 0x40404040, 100003, 4, 1, NULL);
		size_t hdr = oe.len;
		uint8_t *p = xenc_reserve(&oe, tc->args_len);
		if (p)
			memcpy(p, tc->args, tc->args_len);
		struct xdr_ddp da = { 0 }, db = { 0 };
		if (tc->rpos) {
			da.nread = 1;
			da.read_pos[0] = (uint32_t)(hdr + tc->rpos);
			da.read_len[0] = tc->ddp_len;
		}
		if (in.has_ddp) {
			db.nread = 1;
			db.read_pos[0] = (uint32_t)ddp_out;
			db.read_len[0] = in.ddp_len;
		}
		struct nfsrdma_record a, b;
		bool oka, okb;
		decode(orig, oe.len, &a, &da, &oka);
		decode(out, e.len, &b, &db, &okb);
		CHECK(oka && okb, "xid 0x%08x: the dissector decodes the original and the rewrite", tc->xid);
		CHECK(a.nops == b.nops && b.minorvers == 0, "same op count, minor version 0");
		unsigned n = a.nops < REC_MAX_OPS ? a.nops : REC_MAX_OPS, want_refs = 0, putfh = 0;
		for (unsigned k = 0; k < n; k++) {
			uint32_t op = a.ops[k].op;
			CHECK(op == b.ops[k].op, "xid 0x%08x op %u the same", tc->xid, k);
			putfh += op == NFS4_OP_PUTFH;
			if (op == NFS4_OP_PUTFH)
				CHECK(b.ops[k].fh_hash == xdr_fh_hash(NEWFH.data, NEWFH.len), "PUTFH handle mapped");
			if (op == NFS4_OP_READ || op == NFS4_OP_WRITE)
				CHECK(a.ops[k].seqid == b.ops[k].seqid && a.ops[k].offset == b.ops[k].offset &&
				      a.ops[k].count == b.ops[k].count, "READ/WRITE stateid seqid, offset, count kept");
			if (op == NFS4_OP_OPEN || op == NFS4_OP_OPEN_CONFIRM || op == NFS4_OP_CLOSE ||
			    op == NFS4_OP_OPEN_DOWNGRADE || op == NFS4_OP_LOCKU)
				want_refs++;
			/* the seqid the rewrite handed over for this op */
			for (unsigned r = nref0; r < x.nref; r++) {
				if (x.ref[r].idx != k)
					continue;
				CHECK(x.ref[r].op == op, "seqid of op %u is that op's", k);
				if (op == NFS4_OP_OPEN) {
					/* the dissector reads OPEN's seqid: the trace's went
					 * to the map, the map's came out */
					opens++;
					open_seq_ok += a.ops[k].seqid == x.ref[r].tseq &&
						       b.ops[k].seqid == x.ref[r].out && !x.ref[r].by_sid &&
						       x.ref[r].names && !x.ref[r].lock;
				} else if (op == NFS4_OP_CLOSE || op == NFS4_OP_OPEN_CONFIRM) {
					/* named by the open stateid the dissector saw */
					sid_seq_ok += x.ref[r].by_sid && x.ref[r].sid_seqid == a.ops[k].seqid &&
						      a.ops[k].seqid == b.ops[k].seqid;
				}
			}
		}
		CHECK(x.nref - nref0 == want_refs, "xid 0x%08x: one owner seqid per OPEN/OPEN_CONFIRM/CLOSE "
		      "(%u, dissector %u)", tc->xid, x.nref - nref0, want_refs);
		CHECK(x.fhs - fhs0 == putfh, "one handle mapped per PUTFH");
		CHECK(strcmp(a.name, b.name) == 0, "names kept (\"%s\")", a.name);

		if (in.main_opnum == NFS4_OP_SETCLIENTID) {
			setcids++;
			/* our client and an empty callback; the trace's client's
			 * callback address (10.9.0.2.x.y, as tshark shows) gone */
			CHECK(has_bytes(out, e.len, OWNER, strlen(OWNER)) &&
			      !has_bytes(out, e.len, "10.9.0.2.", 9) && has_bytes(orig, oe.len, "10.9.0.2.", 9),
			      "SETCLIENTID: our nfs_client_id4, no callback address");
			CHECK(e.len < oe.len, "SETCLIENTID: shorter without the trace's id and address");
		}
		if (in.main_opnum == NFS4_OP_SETCLIENTID_CONFIRM) {
			scconfirms++;
			struct cursor c = first_op(tc);
			uint64_t cid = cur_be64(&c, "clientid");
			const uint8_t *v = cur_bytes(&c, 8, "verifier");
			CHECK(has_bytes(out, e.len, CONFIRM, 8) && v && !has_bytes(out, e.len, v, 8),
			      "SETCLIENTID_CONFIRM: the target's confirm verifier, not the trace's");
			/* the previous SETCLIENTID reply, through our decoder, named
			 * this client ID and verifier */
			CHECK(have_sc && cid == sc_clientid && v && memcmp(v, sc_confirm, 8) == 0 &&
			      x.last_tcid == cid,
			      "SETCLIENTID reply decoded: client ID 0x%016llx and confirm verifier",
			      (unsigned long long)sc_clientid);
		}
		if (in.main_opnum == NFS4_OP_OPEN_CONFIRM || open_res_confirm >= 0) {
			/* an OPEN reply with OPEN4_RESULT_CONFIRM is followed, in the
			 * capture, by the client's OPEN_CONFIRM, and only then */
			if (open_res_confirm >= 0)
				confirm_next += (open_res_confirm == 1) == (in.main_opnum == NFS4_OP_OPEN_CONFIRM);
			open_res_confirm = -1;
		}
		/* the trace's reply, through our decoder */
		if (tc->res && tc->rpc_status == 0) {
			struct nfs4_res r;
			memset(&r, 0, sizeof(r));
			CHECK(nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &r) == 0 && r.complete,
			      "xid 0x%08x: trace reply decoded", tc->xid);
			CHECK(r.status == tc->status, "COMPOUND status");
			for (unsigned k = 0; k < r.nres && k < in.nops && k < NFS4_RES_MAXOPS; k++)
				CHECK(r.op[k] == in.op[k], "result %u answers op %u", k, k);
			if (in.main_opnum == NFS4_OP_SETCLIENTID) {
				have_sc = r.has_setclientid;
				sc_clientid = r.sc_clientid;
				memcpy(sc_confirm, r.sc_confirm, 8);
			}
			if (in.main_opnum == NFS4_OP_OPEN) {
				CHECK(r.has_open && r.nsid == 1 && r.sid_at[0] == r.open_at,
				      "OPEN reply: flags and stateid");
				open_res_confirm = (r.open_rflags & NFS4_OPEN_RESULT_CONFIRM) != 0;
				confirm_flags += open_res_confirm;
			}
			if (r.has_lease) {
				leases++;
				CHECK(r.lease_time == 90, "lease_time 90 s, as tshark reads it (%u)", r.lease_time);
			}
		}
	}
	CHECK(v4 == 39, "nfs40.pcap: 39 COMPOUNDs (%u)", v4);
	CHECK(setcids == 2 && scconfirms == 2 && x.ids == 2 && x.confirms == 2,
	      "two SETCLIENTID/SETCLIENTID_CONFIRM pairs rewritten (%u %u %u %u)", setcids, scconfirms,
	      x.ids, x.confirms);
	/* tshark: 4 OPENs, the first with result flags "confirm" */
	CHECK(opens == 4 && open_seq_ok == 4, "the 4 OPENs' seqids mapped (%u of %u)", open_seq_ok, opens);
	CHECK(confirm_flags == 1 && confirm_next == 4,
	      "one OPEN reply asks for OPEN_CONFIRM, and the capture confirms exactly that one (%u, %u)",
	      confirm_flags, confirm_next);
	CHECK(sid_seq_ok == 5, "CLOSE x4 and OPEN_CONFIRM: the owner named by their stateid (%u)", sid_seq_ok);
	CHECK(leases >= 1, "lease_time read from the GETATTR replies (%u)", leases);
	/* the Linux client has one open-owner here, all its ops succeed: its
	 * seqids are 0, 1, 2, ... in the capture */
	bool consecutive = x.nref == 9;
	for (unsigned r = 0; r < x.nref; r++)
		consecutive &= x.ref[r].tseq == r;
	CHECK(consecutive, "the trace's open-owner seqids seen in order 0..8 (%u refs)", x.nref);
	/* tshark: stateids in OPEN_CONFIRM, 2 WRITEs, 4 CLOSEs, 2 READs; client
	 * IDs in 2 SETCLIENTID_CONFIRMs and 4 OPENs */
	CHECK(x.sids == 9 && x.cids == 6, "stateids and client IDs mapped (%u, %u)", x.sids, x.cids);
	trace_free(&t);
}

static void test_owners(void)
{
	struct nfs40_owners t;
	memset(&t, 0, sizeof(t));
	const uint8_t a[] = "open id:\x00\x00\x00\x01", b2[] = "open id:\x00\x00\x00\x02";
	struct nfs40_owner *o1 = nfs40_owner_get(&t, false, 7, a, sizeof(a));
	struct nfs40_owner *o2 = nfs40_owner_get(&t, false, 7, a, sizeof(a));
	struct nfs40_owner *o3 = nfs40_owner_get(&t, true, 7, a, sizeof(a));
	struct nfs40_owner *o4 = nfs40_owner_get(&t, false, 8, a, sizeof(a));
	struct nfs40_owner *o5 = nfs40_owner_get(&t, false, 7, b2, sizeof(b2));
	CHECK(o1 && o1 == o2 && o3 != o1 && o4 != o1 && o5 != o1 && t.n == 4,
	      "owners keyed by (lock?, client ID, bytes)");
	const uint8_t other[12] = { 1, 2, 3 }, other2[12] = { 1, 2, 4 };
	nfs40_owner_bind(&t, other, o3);
	CHECK(nfs40_owner_of(&t, other) == o3 && nfs40_owner_of(&t, other2) == NULL,
	      "stateid -> owner");
	nfs40_owner_bind(&t, other, o1);
	CHECK(nfs40_owner_of(&t, other) == o1, "stateid rebound");
	nfs40_owners_free(&t);
	CHECK(t.n == 0 && nfs40_owner_of(&t, other) == NULL, "owners freed");
	/* RFC 7530 9.1.7: the seqid advances except after these */
	CHECK(nfs40_seqid_advances(0) && nfs40_seqid_advances(NFS4ERR_NOENT) &&
	      nfs40_seqid_advances(10010 /* DENIED */) && !nfs40_seqid_advances(NFS4ERR_BAD_SEQID) &&
	      !nfs40_seqid_advances(NFS4ERR_STALE_CLIENTID) && !nfs40_seqid_advances(NFS4ERR_BAD_STATEID) &&
	      !nfs40_seqid_advances(NFS4ERR_BADXDR) && !nfs40_seqid_advances(NFS4ERR_NOFILEHANDLE),
	      "seqid advance rule");
}

/* Hostile arguments: every truncation of a real 4.0 COMPOUND fails cleanly,
 * with the rewrite too. */
static void test_truncated(void)
{
	char path[4096], err[256];
	struct trace t;
	if (trace_load(&t, check_path("tests/captures/nfs40.pcap", path, sizeof(path)), err, sizeof(err)))
		return;
	struct ctx x = { 0 };
	const struct nfs4_rewrite_ops ops = { &x, m_seq41, m_fh, m_sid, m_cid, m_sess, m_id, m_cs };
	const struct nfs40_rewrite_ops v40 = { m_confirm, m_seqid };
	static uint8_t out[1 << 16];
	unsigned fails = 0, n = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		if (tc->vers != 4 || tc->proc != 1)
			continue;
		for (uint32_t cut = 0; cut < tc->args_len; cut++) {
			struct xenc e;
			size_t d;
			xenc_init(&e, out, sizeof(out));
			x.nref = 0;
			n++;
			fails += nfs4_call_rewrite_v40(tc->args, cut, 0, &ops, &v40, &e, &d) < 0;
		}
	}
	CHECK(n > 1000 && fails == n, "every truncated 4.0 COMPOUND refused (%u of %u)", fails, n);
	trace_free(&t);
}

int main(void)
{
	test_capture();
	test_owners();
	test_truncated();
	return check_summary("test_replay_nfs40");
}
