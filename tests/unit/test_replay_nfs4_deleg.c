/* Replay of NFSv4 traces whose client held delegations (src/clnt/nfs4_reply.c's
 * reply decoder and nfs4_deleg_pairs, src/clnt/nfs41_clnt_rewrite.c's walker):
 * on the catalogue's real captures, every OPEN reply's delegation, every
 * DELEGRETURN and every READ/WRITE/SETATTR under a delegation stateid is
 * read by hand from the XDR (tests/unit/nfs4_decode.h) and compared with
 * what the code under test found; each trace delegation is paired with a
 * target reply to the same OPEN that granted none (the replay's case),
 * that granted one, and that failed. */
#include "check.h"

#include <errno.h>

#include "dissect/extract.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/replay/trace.h"
#include "nfs4_decode.h"

#define MAXD 64

/* The trace's delegations (hand-read), for the rewrite callbacks. */
struct ctx {
	unsigned nd;
	uint8_t d[MAXD][12];
	unsigned sids, returned_calls, claimed_calls;
};

static const uint8_t TOPEN[12] = { 't', 'a', 'r', 'g', 'e', 't', '-', 'o', 'p', 'e', 'n', 1 };
static const uint8_t TDELEG[12] = { 't', 'a', 'r', 'g', 'e', 't', '-', 'd', 'e', 'l', 'e', 'g' };

static bool is_deleg(const struct ctx *x, const uint8_t other[12])
{
	for (unsigned k = 0; k < x->nd; k++)
		if (!memcmp(x->d[k], other, 12))
			return true;
	return false;
}

static int m_seq(void *c, struct xenc *e, const uint8_t tsid[16], bool cachethis)
{
	(void)c; (void)tsid;
	static const uint8_t sid[16] = "replay-session!";
	xenc_fixed(e, sid, 16);
	xenc_u32(e, 2);
	xenc_u32(e, 0);
	xenc_u32(e, 0);
	xenc_bool(e, cachethis);
	return 0;
}

static int m_fh(void *c, const struct nfs_fh *t, struct nfs_fh *out)
{
	(void)c;
	*out = *t;
	return 0;
}

/* As the replay engine does for a delegation the target did not grant:
 * the target's open stateid (here TOPEN, seqid 7) stands for it. */
static int m_sid(void *c, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct ctx *x = c;
	x->sids++;
	*out = *t;
	if (is_deleg(x, t->other)) {
		memcpy(out->other, TOPEN, 12);
		out->seqid = 7;
	}
	return 0;
}

static int m_returned(void *c, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct ctx *x = c;
	x->returned_calls++;
	if (is_deleg(x, t->other))
		return -ENODATA;
	*out = *t;
	return 0;
}

/* An OPEN's claim of a delegation: one the target never granted makes
 * the claim plain (-ENODATA). */
static int m_claimed(void *c, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct ctx *x = c;
	x->claimed_calls++;
	if (is_deleg(x, t->other))
		return -ENODATA;
	*out = *t;
	return 0;
}

static int m_cid(void *c, uint64_t t, uint64_t *out)
{
	(void)c;
	*out = t;
	return 0;
}

static int m_sess(void *c, const uint8_t t[16], uint8_t out[16])
{
	(void)c;
	memcpy(out, t, 16);
	return 0;
}

static void m_xid(void *c, uint8_t verf[8], const uint8_t **owner, uint32_t *len)
{
	(void)c;
	static const char o[] = "nfsrdma-replay/unit/deleg";
	memset(verf, 1, 8);
	*owner = (const uint8_t *)o;
	*len = sizeof(o) - 1;
}

static uint32_t m_cs(void *c, uint64_t id)
{
	(void)c; (void)id;
	return 1;
}

/* A target's reply to the COMPOUND of trace reply tr (hand-encoded): the
 * same ops up to the OPEN at idx (SEQUENCE, PUTFH), the OPEN answered
 * with open stateid TOPEN (seqid 1) and delegation dtype (0 NONE, 1 READ
 * with stateid TDELEG), or failed with status ost. */
static size_t target_reply(uint8_t *buf, size_t cap, const struct nfs4_res *tr, uint32_t idx,
			   uint32_t dtype, uint32_t ost)
{
	struct xenc e;
	xenc_init(&e, buf, cap);
	xenc_u32(&e, ost);
	xenc_u32(&e, 0);                     /* tag */
	xenc_u32(&e, idx + 1);
	for (uint32_t k = 0; k < idx; k++) {
		xenc_u32(&e, tr->op[k]);
		xenc_u32(&e, 0);
		if (tr->op[k] == NFS4_OP_SEQUENCE) {
			static const uint8_t z[36];
			xenc_fixed(&e, z, 36);
		}
	}
	xenc_u32(&e, NFS4_OP_OPEN);
	xenc_u32(&e, ost);
	if (ost == 0) {
		xenc_u32(&e, 1);
		xenc_fixed(&e, TOPEN, 12);
		static const uint8_t cinfo[20];
		xenc_fixed(&e, cinfo, 20);
		xenc_u32(&e, 4);             /* rflags: LOCKTYPE_POSIX */
		xenc_u32(&e, 0);             /* attrset: empty bitmap */
		xenc_u32(&e, dtype);
		if (dtype == 1) {
			xenc_u32(&e, 1);
			xenc_fixed(&e, TDELEG, 12);
			xenc_u32(&e, 0);     /* recall */
			xenc_u32(&e, 0);     /* nfsace4: type, flag, mask, who */
			xenc_u32(&e, 0);
			xenc_u32(&e, 0);
			xenc_string(&e, "EVERYONE@");
		}
	}
	return xenc_ok(&e) ? e.len : 0;
}

struct expect {
	const char *cap;
	int delegs, delegreturns, deleg_io;   /* -1: whatever the capture holds */
	int deleg_claims;                     /* OPEN CLAIM_DELEGATE_CUR / CLAIM_DELEG_CUR_FH */
};

static void test_capture(const struct expect *ex)
{
	struct trace t;
	char err[256], path[512];
	int ret = trace_load(&t, check_path(ex->cap, path, sizeof(path)), err, sizeof(err));
	CHECK(ret == 0, "%s: %s", ex->cap, err);
	if (ret)
		return;
	struct ctx x = { 0 };
	unsigned opens = 0, dec_ok = 0, delegs = 0, pairs_ok = 0;
	unsigned drets = 0, dret_ok = 0, dret_rw = 0, io = 0, io_ok = 0, claims = 0, claims_ok = 0;
	static uint8_t out[1 << 17], tbuf[4096];

	/* 1. the OPEN replies: hand reader vs the reply decoder; pairing */
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		struct openres h;
		if (tc->prog != 100003 || tc->vers != 4 || tc->proc != 1 || !tc->res || tc->rpc_status ||
		    !openres_read(tc->res, tc->res_len, &h))
			continue;
		opens++;
		struct nfs4_res r;
		memset(&r, 0, sizeof(r));
		nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &r);
		bool open_sid = false, deleg_seen = false, deleg_right = false;
		for (unsigned k = 0; k < r.nsid; k++)
			open_sid |= r.sid_at[k] == h.idx && r.sid[k].seqid == h.open_seqid &&
				    !memcmp(r.sid[k].other, h.open_other, 12);
		for (unsigned k = 0; k < r.ndeleg; k++)
			if (r.deleg_at[k] == h.idx) {
				deleg_seen = true;
				deleg_right = r.deleg_type[k] == h.dtype && r.deleg[k].seqid == h.d_seqid &&
					      !memcmp(r.deleg[k].other, h.d_other, 12);
			}
		bool has_d = h.dtype == 1 || h.dtype == 2;
		dec_ok += open_sid && deleg_seen == has_d && deleg_right == has_d;
		if (!has_d)
			continue;
		delegs++;
		if (x.nd < MAXD)
			memcpy(x.d[x.nd++], h.d_other, 12);

		/* the target granted none: the trace's delegation pairs with
		 * the target's open stateid of the same OPEN */
		struct nfs4_res rr;
		struct nfs4_deleg_pair p[NFS4_RES_MAXSID];
		size_t n = target_reply(tbuf, sizeof(tbuf), &r, h.idx, 0, 0);
		memset(&rr, 0, sizeof(rr));
		nfs4_decode_body(1, tbuf, n, false, &rr);
		unsigned np = nfs4_deleg_pairs(&r, &rr, p, NFS4_RES_MAXSID);
		bool none_ok = n && rr.ndeleg == 0 && np == 1 && !p[0].granted &&
			       !memcmp(p[0].tdeleg.other, h.d_other, 12) && p[0].tdeleg.seqid == h.d_seqid &&
			       !memcmp(p[0].topen.other, h.open_other, 12) && p[0].topen.seqid == h.open_seqid &&
			       !memcmp(p[0].g.other, TOPEN, 12) && p[0].g.seqid == 1;
		/* the target granted a READ delegation: that one */
		n = target_reply(tbuf, sizeof(tbuf), &r, h.idx, 1, 0);
		memset(&rr, 0, sizeof(rr));
		nfs4_decode_body(1, tbuf, n, false, &rr);
		np = nfs4_deleg_pairs(&r, &rr, p, NFS4_RES_MAXSID);
		bool granted_ok = n && rr.complete && np == 1 && p[0].granted &&
				  !memcmp(p[0].g.other, TDELEG, 12) && !memcmp(p[0].tdeleg.other, h.d_other, 12);
		/* the target's OPEN failed (NFS4ERR_ACCESS): nothing to pair */
		n = target_reply(tbuf, sizeof(tbuf), &r, h.idx, 0, 13);
		memset(&rr, 0, sizeof(rr));
		nfs4_decode_body(1, tbuf, n, false, &rr);
		np = nfs4_deleg_pairs(&r, &rr, p, NFS4_RES_MAXSID);
		pairs_ok += none_ok && granted_ok && n && np == 0;
	}
	CHECK(opens > 0 && dec_ok == opens, "%s: %u OPEN replies, %u decoded with the open stateid and "
	      "delegation the hand reader found", ex->cap, opens, dec_ok);
	CHECK(ex->delegs < 0 || delegs == (unsigned)ex->delegs, "%s: %u delegations granted in the "
	      "trace (expected %d)", ex->cap, delegs, ex->delegs);
	CHECK(pairs_ok == delegs, "%s: %u/%u delegations paired with a target OPEN that granted none "
	      "(its open stateid), one that granted one, and none with a failed OPEN", ex->cap, pairs_ok,
	      delegs);

	/* 2. the calls that name a delegation stateid */
	const struct nfs4_rewrite_ops ops = { &x, m_seq, m_fh, m_sid, m_cid, m_sess, m_xid, m_cs,
					      m_returned, m_claimed, NULL, NULL };
	struct nfs4_rewrite_ops plain = ops;
	plain.map_returned = NULL;
	plain.map_claimed = NULL;
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		if (tc->prog != 100003 || tc->vers != 4 || tc->proc != 1)
			continue;
		uint32_t idx, seqid, oidx, oseq;
		uint8_t other[12], oother[12];
		struct nfs4_call_info in;
		struct xenc e;
		size_t ddp;
		if (argsid_read(tc->args, tc->args_len, NFS4_OP_DELEGRETURN, &idx, &seqid, other)) {
			drets++;
			int pr = nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in);
			bool walk = pr == 0 && in.nreturned == 1 && !in.other_work &&
				    in.returned[0].seqid == seqid && !memcmp(in.returned[0].other, other, 12);
			/* a delegation of this trace: the rewrite stops with
			 * -ENODATA (the target never granted it) */
			xenc_init(&e, out, sizeof(out));
			int rr = nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &ops, &e, &ddp);
			/* without map_returned: mapped as any stateid */
			xenc_init(&e, out, sizeof(out));
			int rp = nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &plain, &e, &ddp);
			bool mapped = rp == 0 && argsid_read(out, e.len, NFS4_OP_DELEGRETURN, &oidx, &oseq, oother) &&
				      oidx == idx && !memcmp(oother, TOPEN, 12) && oseq == 7;
			dret_ok += walk && is_deleg(&x, other);
			dret_rw += rr == -ENODATA && mapped;
			continue;
		}
		uint32_t claim;
		if (openclaim_read(tc->args, tc->args_len, &idx, &claim, &seqid, other) &&
		    (claim == 2 || claim == 5)) {
			claims++;
			/* the target never granted it: the claim is made plain
			 * (CLAIM_FH for 5, CLAIM_NULL for 2) and its stateid
			 * left out; everything else as before */
			xenc_init(&e, out, sizeof(out));
			int rr = nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &ops, &e, &ddp);
			uint32_t oclaim = 99;
			struct nfs4_call_info in2;
			bool plain_ok = rr == 0 && e.len + 16 == tc->args_len &&
					openclaim_read(out, e.len, &oidx, &oclaim, &oseq, oother) &&
					oidx == idx && oclaim == (claim == 5 ? 4u : 0u) &&
					nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) == 0 &&
					nfs4_call_parse(out, e.len, 0, &in2) == 0 && in2.nops == in.nops &&
					in2.op[idx] == NFS4_OP_OPEN;
			/* without map_claimed: the stateid is mapped as any
			 * (here to the open stateid standing for it) */
			xenc_init(&e, out, sizeof(out));
			int rp = nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &plain, &e, &ddp);
			bool kept = rp == 0 && e.len == tc->args_len &&
				    openclaim_read(out, e.len, &oidx, &oclaim, &oseq, oother) && oclaim == claim &&
				    !memcmp(oother, TOPEN, 12) && oseq == 7;
			claims_ok += is_deleg(&x, other) && plain_ok && kept;
			continue;
		}
		static const uint32_t iops[] = { NFS4_OP_READ, NFS4_OP_WRITE, NFS4_OP_SETATTR };
		for (unsigned k = 0; k < 3; k++) {
			if (!argsid_read(tc->args, tc->args_len, iops[k], &idx, &seqid, other) ||
			    !is_deleg(&x, other))
				continue;
			io++;
			/* I/O under a delegation: the target's open stateid goes */
			xenc_init(&e, out, sizeof(out));
			int rr = nfs4_call_rewrite(tc->args, tc->args_len, tc->rpos, &ops, &e, &ddp);
			int pr = nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in);
			io_ok += rr == 0 && pr == 0 && in.nreturned == 0 && in.other_work &&
				 argsid_read(out, e.len, iops[k], &oidx, &oseq, oother) && oidx == idx &&
				 !memcmp(oother, TOPEN, 12) && oseq == 7;
		}
	}
	CHECK(ex->delegreturns < 0 || drets == (unsigned)ex->delegreturns,
	      "%s: %u DELEGRETURNs in the trace (expected %d)", ex->cap, drets, ex->delegreturns);
	CHECK(dret_ok == drets, "%s: %u/%u DELEGRETURNs give back a delegation an OPEN reply granted, "
	      "found by the walker, with nothing else to do", ex->cap, dret_ok, drets);
	CHECK(dret_rw == drets, "%s: %u/%u DELEGRETURNs: rewrite refused (-ENODATA) for a delegation the "
	      "target never granted, mapped without map_returned", ex->cap, dret_rw, drets);
	CHECK(ex->deleg_io < 0 || io == (unsigned)ex->deleg_io, "%s: %u READ/WRITE/SETATTR under a "
	      "delegation stateid (expected %d)", ex->cap, io, ex->deleg_io);
	CHECK(io_ok == io, "%s: %u/%u of them rewritten with the target's open stateid", ex->cap, io_ok, io);
	CHECK(ex->deleg_claims < 0 || claims == (unsigned)ex->deleg_claims, "%s: %u OPENs claim a "
	      "delegation (expected %d)", ex->cap, claims, ex->deleg_claims);
	CHECK(claims_ok == claims, "%s: %u/%u of them claim one the trace's OPEN got, made plain when "
	      "the target never granted it, mapped without map_claimed", ex->cap, claims_ok, claims);
	trace_free(&t);
}

/* OPEN claims that name a delegation (RFC 8881 18.16.1: CLAIM_FH 4,
 * CLAIM_DELEG_CUR_FH 5, CLAIM_DELEG_PREV_FH 6): the walker must consume
 * CLAIM_DELEG_CUR_FH's stateid and nothing for the others, so the GETFH
 * after the OPEN is read as the next op. */
static void test_claims(void)
{
	for (uint32_t claim = 4; claim <= 6; claim++) {
		uint8_t buf[512];
		struct xenc e;
		xenc_init(&e, buf, sizeof(buf));
		xenc_u32(&e, 0);             /* tag */
		xenc_u32(&e, 1);             /* minor */
		xenc_u32(&e, 3);
		xenc_u32(&e, NFS4_OP_PUTFH);
		xenc_string(&e, "fh-12345");
		xenc_u32(&e, NFS4_OP_OPEN);
		xenc_u32(&e, 0);             /* seqid */
		xenc_u32(&e, 1);             /* share_access READ */
		xenc_u32(&e, 0);
		xenc_u64(&e, 0x1122334455667788ull);
		xenc_string(&e, "owner");
		xenc_u32(&e, 0);             /* OPEN4_NOCREATE */
		xenc_u32(&e, claim);
		if (claim == 5) {
			xenc_u32(&e, 0x12345);   /* not an op number */
			xenc_fixed(&e, TDELEG, 12);
		}
		xenc_u32(&e, NFS4_OP_GETFH);
		size_t alen = e.len;
		struct nfs4_call_info in;
		int ret = nfs4_call_parse(buf, alen, 0, &in);
		CHECK(ret == 0 && in.known && in.nops == 3 && in.op[2] == NFS4_OP_GETFH,
		      "OPEN claim %u walked (ret %d)", claim, ret);
		struct ctx x = { .nd = 1 };
		memcpy(x.d[0], TDELEG, 12);
		const struct nfs4_rewrite_ops ops = { &x, m_seq, m_fh, m_sid, m_cid, m_sess, m_xid, m_cs,
						      m_returned, NULL, NULL, NULL };
		static uint8_t out[1024];
		size_t ddp;
		xenc_init(&e, out, sizeof(out));
		ret = nfs4_call_rewrite(buf, alen, 0, &ops, &e, &ddp);
		CHECK(ret == 0 && e.len == alen && x.sids == (claim == 5 ? 1u : 0u),
		      "OPEN claim %u rewritten (ret %d), %u stateid mapped", claim, ret, x.sids);
	}
}

int main(void)
{
	/* What the captures hold, as tshark reads them (nfs.open.delegation_type
	 * of the OPEN replies; DELEGRETURN and READ calls):
	 * nfs40-locks.pcap: 4 OPENs got a READ delegation; 4 DELEGRETURNs
	 * (frames 169, 195, 287, 335); 1 READ under one (frame 301).
	 * nfs41-deleg.pcap: 2 READ delegations (stateid others ...02 and
	 * ...05, tshark nfs.stateid.other); 2 DELEGRETURNs; READs at frames
	 * 103 (under ...02), 173 and 186 (under ...05, the last after the
	 * CLOSE of its OPEN); 1 OPEN with claim 5 (frame 128; Wireshark 4.0
	 * names the claim but does not read its stateid).
	 * nfs40-deleg.pcap: the same workload over 4.0 (claim 2,
	 * CLAIM_DELEGATE_CUR, whose stateid tshark does read).
	 * nfs40/nfs41/nfs42.pcap: OPEN_DELEGATE_NONE / NONE_EXT only. */
	static const struct expect ex[] = {
		{ "tests/captures/nfs40-locks.pcap", 4, 4, 1, 0 },
		{ "tests/captures/nfs40-deleg.pcap", 2, 2, 3, 1 },
		{ "tests/captures/nfs40.pcap", 0, 0, 0, 0 },
		{ "tests/captures/nfs41.pcap", 0, 0, 0, 0 },
		{ "tests/captures/nfs41-deleg.pcap", 2, 2, 3, 1 },
		{ "tests/captures/nfs42.pcap", 0, 0, 0, 0 },
	};
	for (unsigned i = 0; i < sizeof(ex) / sizeof(ex[0]); i++)
		test_capture(&ex[i]);
	test_claims();
	return check_summary("test_replay_nfs4_deleg");
}
