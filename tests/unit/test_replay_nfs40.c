/* Replay of NFSv4.0 (src/clnt/nfs41_clnt_rewrite.c with the 4.0 extras,
 * src/clnt/nfs40_clnt.c): every COMPOUND of the catalogue's nfs40.pcap (a Linux
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
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/clnt/nfs4_session.h"
#include "src/replay/trace.h"
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
		uint8_t sid_other[12];
		const uint8_t *owner;
		uint32_t owner_len;
		uint64_t clientid;
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
		if (ref->sid)
			memcpy(x->ref[x->nref].sid_other, ref->sid->other, 12);
		x->ref[x->nref].owner = ref->owner;
		x->ref[x->nref].owner_len = ref->owner_len;
		x->ref[x->nref].clientid = ref->clientid;
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
	const struct nfs4_rewrite_ops ops = { &x, m_seq41, m_fh, m_sid, m_cid, m_sess, m_id, m_cs, NULL, NULL, NULL, NULL };
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

/* The lock calls of nfs40-locks.pcap (flock, byte-range LOCK/LOCKU, a
 * LOCKT and LOCK DENIED from a second open- and lock-owner,
 * OPEN_DOWNGRADE, RELEASE_LOCKOWNER): each rewritten call and its
 * original are read by hand (nfs4_decode.h lockop_read, RFC 7530 XDR) and
 * compared: the seqids replaced by what the map handed out, the map asked
 * about the owner the original names (by stateid or by owner bytes), the
 * client ID mapped, stateids mapped, everything else kept. */
static void test_locks(void)
{
	char path[4096], err[256];
	struct trace t;
	int ret = trace_load(&t, check_path("tests/captures/nfs40-locks.pcap", path, sizeof(path)), err,
			     sizeof(err));
	CHECK(ret == 0, "nfs40-locks.pcap: %s", err);
	if (ret)
		return;
	struct ctx x = { 0 };
	const struct nfs4_rewrite_ops ops = { &x, m_seq41, m_fh, m_sid, m_cid, m_sess, m_id, m_cs, NULL, NULL, NULL, NULL };
	const struct nfs40_rewrite_ops v40 = { m_confirm, m_seqid };
	static uint8_t out[1 << 16];
	unsigned n[40] = { 0 }, lock_new = 0, denied = 0, ok_all = 0, total = 0;
	uint8_t new_owner[4][64];
	uint32_t new_owner_len[4] = { 0 };
	unsigned nnew = 0, released_known = 0;
	uint8_t last_lock_sid[12];
	bool have_lock_sid = false;
	unsigned exist_follows = 0;

	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		struct lockop a, b;
		if (tc->prog != 100003 || tc->vers != 4 || tc->proc != 1 ||
		    !lockop_read(tc->args, tc->args_len, &a))
			continue;
		total++;
		n[a.op]++;
		struct xenc e;
		xenc_init(&e, out, sizeof(out));
		xenc_rpc_call(&e, 0x40404040, 100003, 4, 1, NULL);
		size_t hdr = e.len, ddp_out = 0;
		unsigned r0 = x.nref, cids0 = x.cids, sids0 = x.sids;
		ret = nfs4_call_rewrite_v40(tc->args, tc->args_len, 0, &ops, &v40, &e, &ddp_out);
		bool okb = ret == 0 && lockop_read(out + hdr, e.len - hdr, &b);
		CHECK(okb, "xid 0x%08x %s: rewritten (%d) and read back", tc->xid, nfs4_op_name(a.op), ret);
		if (!okb)
			continue;
		struct nfsrdma_record rb;
		bool dok;
		struct xdr_ddp dd = { 0 };
		decode(out, e.len, &rb, &dd, &dok);
		bool same = dok && b.op == a.op && b.locktype == a.locktype && b.offset == a.offset &&
			    b.length == a.length && b.new_owner == a.new_owner &&
			    b.share_access == a.share_access && b.share_deny == a.share_deny &&
			    b.owner_len == a.owner_len &&
			    (!a.owner_len || memcmp(a.owner, b.owner, a.owner_len) == 0);
		CHECK(same, "xid 0x%08x %s: the dissector decodes it; type, range, share, owner bytes kept",
		      tc->xid, nfs4_op_name(a.op));
		bool has_sid = a.op == 12 || a.op == 14 || a.op == 21;
		bool has_owner = (a.op == 12 && a.new_owner) || a.op == 13 || a.op == 39;
		uint8_t xo[12];
		for (int k = 0; k < 12; k++)
			xo[k] = a.sid_other[k] ^ 0xa5;
		CHECK(!has_sid || (b.sid_seqid == a.sid_seqid && memcmp(b.sid_other, xo, 12) == 0 &&
				   x.sids - sids0 == 1),
		      "xid 0x%08x: its stateid mapped (seqid kept)", tc->xid);
		CHECK(!has_owner || (b.clientid == 0x0123456789abcdefull && x.last_tcid == a.clientid &&
				     x.cids - cids0 == 1),
		      "xid 0x%08x: the lock-owner's client ID mapped", tc->xid);
		unsigned refs = x.nref - r0;
		switch (a.op) {
		case 12:
			if (a.new_owner) {
				/* open_seqid: the open-owner named by the open stateid;
				 * lock_seqid: the new lock-owner named by its bytes */
				lock_new++;
				CHECK(refs == 2 && x.ref[r0].by_sid && !x.ref[r0].lock && x.ref[r0].tseq == a.seqid &&
				      x.ref[r0].sid_seqid == a.sid_seqid &&
				      memcmp(x.ref[r0].sid_other, a.sid_other, 12) == 0 &&
				      b.seqid == x.ref[r0].out && !x.ref[r0 + 1].by_sid && x.ref[r0 + 1].lock &&
				      x.ref[r0 + 1].names && x.ref[r0 + 1].tseq == a.lock_seqid &&
				      b.lock_seqid == x.ref[r0 + 1].out && x.ref[r0 + 1].clientid == a.clientid &&
				      x.ref[r0 + 1].owner_len == a.owner_len &&
				      memcmp(x.ref[r0 + 1].owner, a.owner, a.owner_len) == 0,
				      "xid 0x%08x LOCK (new lock-owner): open_seqid %u by the open stateid, lock_seqid %u "
				      "by the owner, both replaced", tc->xid, a.seqid, a.lock_seqid);
				if (nnew < 4 && a.owner_len <= 64) {
					memcpy(new_owner[nnew], a.owner, a.owner_len);
					new_owner_len[nnew++] = a.owner_len;
				}
			} else {
				CHECK(refs == 1 && x.ref[r0].by_sid && x.ref[r0].lock && x.ref[r0].tseq == a.seqid &&
				      memcmp(x.ref[r0].sid_other, a.sid_other, 12) == 0 && b.seqid == x.ref[r0].out,
				      "xid 0x%08x LOCK (existing lock-owner): lock_seqid %u by the lock stateid, replaced",
				      tc->xid, a.seqid);
				/* the lock stateid is the one the previous LOCK returned */
				exist_follows += have_lock_sid && memcmp(a.sid_other, last_lock_sid, 12) == 0;
			}
			break;
		case 14:
			CHECK(refs == 1 && x.ref[r0].by_sid && x.ref[r0].lock && x.ref[r0].tseq == a.seqid &&
			      memcmp(x.ref[r0].sid_other, a.sid_other, 12) == 0 && b.seqid == x.ref[r0].out,
			      "xid 0x%08x LOCKU: seqid %u by the lock stateid, replaced", tc->xid, a.seqid);
			break;
		case 21:
			CHECK(refs == 1 && x.ref[r0].by_sid && !x.ref[r0].lock && x.ref[r0].tseq == a.seqid &&
			      b.seqid == x.ref[r0].out && a.share_access == 1,
			      "xid 0x%08x OPEN_DOWNGRADE to READ: seqid %u by the open stateid, replaced", tc->xid,
			      a.seqid);
			break;
		case 13: case 39:
			CHECK(refs == 0, "xid 0x%08x %s: no seqid", tc->xid, nfs4_op_name(a.op));
			if (a.op == 39) {
				/* (the client reuses an owner id once its lock state is
				 * freed: two LOCKs may name the same bytes) */
				bool known = false;
				for (unsigned k = 0; k < nnew; k++)
					known |= new_owner_len[k] == a.owner_len &&
						 memcmp(new_owner[k], a.owner, a.owner_len) == 0;
				released_known += known;
			}
			break;
		}
		/* the trace's reply, through our decoder */
		if (tc->res && tc->rpc_status == 0) {
			struct nfs4_res r;
			memset(&r, 0, sizeof(r));
			bool rok = nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &r) == 0 && r.complete;
			CHECK(rok && r.nres == a.idx + 1 && r.op[a.idx] == a.op,
			      "xid 0x%08x: reply decoded, one result per op", tc->xid);
			if (rok && (a.op == 12 || a.op == 13) && r.opst[a.idx] == 10010)
				denied++;
			else if (rok && r.opst[a.idx] == 0)
				ok_all++;
			if (rok && a.op == 12 && r.opst[a.idx] == 0 && r.nsid == 1) {
				memcpy(last_lock_sid, r.sid[0].other, 12);
				have_lock_sid = true;
			}
		}
	}
	/* tshark on the capture: LOCK 4 (one DENIED), LOCKT 1 (DENIED),
	 * LOCKU 3, OPEN_DOWNGRADE 1, RELEASE_LOCKOWNER 2 */
	CHECK(n[12] == 4 && n[13] == 1 && n[14] == 3 && n[21] == 1 && n[39] == 2,
	      "nfs40-locks.pcap: LOCK %u, LOCKT %u, LOCKU %u, OPEN_DOWNGRADE %u, RELEASE_LOCKOWNER %u", n[12],
	      n[13], n[14], n[21], n[39]);
	CHECK(lock_new == 3 && exist_follows == 1,
	      "3 LOCKs open a lock-owner (flock, the first range, the DENIED one); the 4th names the "
	      "lock stateid the previous LOCK returned (%u, %u)", lock_new, exist_follows);
	CHECK(denied == 2 && ok_all == total - 2, "the conflicting LOCK and LOCKT DENIED, the rest OK (%u, %u of %u)",
	      denied, ok_all, total);
	CHECK(released_known == 2, "each RELEASE_LOCKOWNER names a lock-owner a LOCK opened (%u)", released_known);
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
static void test_truncated(const char *cap)
{
	char path[4096], err[256];
	struct trace t;
	if (trace_load(&t, check_path(cap, path, sizeof(path)), err, sizeof(err)))
		return;
	struct ctx x = { 0 };
	const struct nfs4_rewrite_ops ops = { &x, m_seq41, m_fh, m_sid, m_cid, m_sess, m_id, m_cs, NULL, NULL, NULL, NULL };
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
	CHECK(n > 1000 && fails == n, "%s: every truncated 4.0 COMPOUND refused (%u of %u)", cap, fails, n);
	trace_free(&t);
}

int main(void)
{
	test_capture();
	test_locks();
	test_owners();
	test_truncated("tests/captures/nfs40.pcap");
	test_truncated("tests/captures/nfs40-locks.pcap");
	return check_summary("test_replay_nfs40");
}
