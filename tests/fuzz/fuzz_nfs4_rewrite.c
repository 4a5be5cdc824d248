/* libFuzzer: the replay's walk and rewrite of a captured NFSv4 COMPOUND's
 * arguments (the capture is hostile): nfs4_call_parse, nfs4_call_rewrite
 * and nfs4_call_rewrite_v40, with mapping callbacks that succeed or fail
 * (-ENOENT, -EPERM, -ENODATA) as the input says.
 *   byte 0: which callback fails (0: none; else 1 + kind, kinds below)
 *   byte 1: on its how-manyth call (0..15, low nibble), errno (high nibble % 3)
 *   byte 2-3: rpos, the trace's Read chunk position (big-endian, 0 none)
 *   byte 4: bit 0 v40 ops, bit 1 identity mappings (else other identities),
 *           bit 2 a map_returned callback, bit 3 a map_claimed one (its
 *           -ENODATA makes an OPEN claim plain: no failure), bit 4 a
 *           callback location (the replay serving callbacks)
 *   rest:   the COMPOUND4args
 * Seeds: tests/fuzz/seeds/nfs4_rewrite/ (tests/fuzz/make-clnt-seeds.sh).
 * Invariants: the walk's offsets and counts within the input, the
 * rewrite's output bounded by the input plus what the callbacks add, the
 * rewrite succeeding exactly when the walk does and no callback fails,
 * a failing callback's errno returned as is, and a successful rewrite
 * re-parsing (its DDP data position as the Read chunk) to the same ops. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"
#include "src/clnt/nfs4_rewrite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { fprintf(stderr, "invariant: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

enum kind { K_FH, K_SID, K_CID, K_SESS, K_RET, K_SEQ, K_CONFIRM, K_SEQUENCE, K_CLAIM, K_NKINDS };

static const uint8_t our_owner[] = "nfsrdma-replay/fuzz/1/tag";
#define OUR_OWNER_LEN ((uint32_t)sizeof(our_owner) - 1)
#define OUR_FH_LEN 40u

struct fctx {
	int fail_kind;            /* -1: none */
	unsigned fail_at, calls[K_NKINDS];
	int err;
	bool failed;
	bool identity;
	size_t added;             /* bytes the callbacks may have added */
};

static int maybe_fail(struct fctx *f, enum kind k)
{
	if ((int)k == f->fail_kind && f->calls[k]++ == f->fail_at) {
		f->failed = true;
		return f->err;
	}
	return 0;
}

static int c_sequence(void *ctx, struct xenc *e, const uint8_t tsid[16], bool cachethis)
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_SEQUENCE);
	if (ret)
		return ret;
	/* sessionid, sequenceid, slotid, highest_slotid, cachethis: 32 bytes as on the wire */
	xenc_fixed(e, tsid, 16);
	xenc_u32(e, 1);
	xenc_u32(e, 0);
	xenc_u32(e, 0);
	xenc_bool(e, cachethis);
	return 0;
}

static int c_map_fh(void *ctx, const struct nfs_fh *t, struct nfs_fh *out)
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_FH);
	if (ret)
		return ret;
	if (t->len > NFS4_FHSIZE_MAX)
		FAIL("map_fh given a %u-byte handle", t->len);
	if (f->identity) {
		*out = *t;
		return 0;
	}
	out->len = OUR_FH_LEN;
	memset(out->data, 0x42, OUR_FH_LEN);
	f->added += OUR_FH_LEN;
	return 0;
}

static int c_map_sid(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_SID);
	if (ret)
		return ret;
	*out = *t;
	if (!f->identity)
		out->other[0] ^= 0xff;
	return 0;
}

static int c_map_ret(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_RET);
	if (ret)
		return ret;
	*out = *t;
	return 0;
}

/* -ENODATA here is no failure: the OPEN's claim is made plain. */
static int c_map_claim(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_CLAIM);
	if (ret == -ENODATA) {
		f->failed = false;
		return ret;
	}
	if (ret)
		return ret;
	*out = *t;
	return 0;
}

static int c_map_cid(void *ctx, uint64_t t, uint64_t *out)
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_CID);
	if (ret)
		return ret;
	*out = f->identity ? t : ~t;
	return 0;
}

static int c_map_sess(void *ctx, const uint8_t t[16], uint8_t out[16])
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_SESS);
	if (ret)
		return ret;
	memcpy(out, t, 16);
	return 0;
}

static void c_exchange_id(void *ctx, uint8_t verf[8], const uint8_t **owner, uint32_t *owner_len)
{
	struct fctx *f = ctx;
	memset(verf, 7, 8);
	*owner = our_owner;
	*owner_len = OUR_OWNER_LEN;
	f->added += 4 + OUR_OWNER_LEN + 3;
}

static uint32_t c_cs_sequence(void *ctx, uint64_t clientid)
{
	(void)ctx;
	return (uint32_t)clientid | 1;
}

static int c_sc_confirm(void *ctx, uint8_t verf[8])
{
	struct fctx *f = ctx;
	int ret = maybe_fail(f, K_CONFIRM);
	if (ret)
		return ret;
	memset(verf, 9, 8);
	return 0;
}

static int c_map_seqid(void *ctx, const struct nfs4_seqid_ref *ref, uint32_t tseqid, uint32_t *out)
{
	struct fctx *f = ctx;
	if (ref->owner_len > 1024 || (ref->owner_len && !ref->owner))
		FAIL("seqid ref owner of %u bytes", ref->owner_len);
	int ret = maybe_fail(f, K_SEQ);
	if (ret)
		return ret;
	*out = f->identity ? tseqid : tseqid + 1;
	return 0;
}

static void check_info(const struct nfs4_call_info *in, size_t len, uint32_t rpos, int ret)
{
	if (ret == 0 && !in->known)
		FAIL("parsed but not known");
	if (in->known && ret != 0)
		FAIL("known but %d", ret);
	/* opnum + nothing: 4 bytes per op at least; tag + minor + count: 12 */
	if (in->known && (size_t)in->nops * 4 + 12 > len)
		FAIL("%u ops from %zu bytes", in->nops, len);
	unsigned n = in->nops < NFS4_RES_MAXOPS ? in->nops : NFS4_RES_MAXOPS;
	for (unsigned i = 0; in->known && i < n; i++)
		if (in->op_off[i] > len || (i && in->op_off[i] <= in->op_off[i - 1]))
			FAIL("op %u at offset %u of %zu", i, in->op_off[i], len);
	if (in->has_ddp) {
		if (in->ddp_at > len || in->ddp_at < 4)
			FAIL("DDP data at %u of %zu", in->ddp_at, len);
		if (in->ddp_inline && (size_t)in->ddp_at + in->ddp_len > len)
			FAIL("inline DDP data %u+%u beyond %zu", in->ddp_at, in->ddp_len, len);
		if (!in->ddp_inline && in->ddp_at != rpos)
			FAIL("DDP data in the Read chunk at %u, the chunk at %u", in->ddp_at, rpos);
		if (in->known && in->ddp_op >= in->nops)
			FAIL("DDP op %u of %u", in->ddp_op, in->nops);
	}
	if (in->nreturned > NFS4_DELEGRET_MAX)
		FAIL("%u returned stateids", in->nreturned);
}

static void same_ops(const struct nfs4_call_info *a, const struct nfs4_call_info *b)
{
	if (a->nops != b->nops || a->minor != b->minor || a->known != b->known)
		FAIL("re-parse: %u ops minor %u, was %u ops minor %u", b->nops, b->minor, a->nops,
		     a->minor);
	unsigned n = a->nops < NFS4_RES_MAXOPS ? a->nops : NFS4_RES_MAXOPS;
	for (unsigned i = 0; i < n; i++)
		if (a->op[i] != b->op[i])
			FAIL("re-parse: op %u is %u, was %u", i, b->op[i], a->op[i]);
	if (a->mutates != b->mutates || a->ns_change != b->ns_change ||
	    a->state_change != b->state_change || a->has_sequence != b->has_sequence ||
	    a->has_ddp != b->has_ddp || a->read_count != b->read_count ||
	    a->readdir_max != b->readdir_max || a->nreturned != b->nreturned ||
	    a->other_work != b->other_work || a->main_opnum != b->main_opnum)
		FAIL("re-parse: the call's summary differs");
	if (a->has_ddp && (a->ddp_len != b->ddp_len || a->ddp_op != b->ddp_op || b->ddp_inline))
		FAIL("re-parse: DDP %u bytes op %u, was %u op %u", b->ddp_len, b->ddp_op, a->ddp_len,
		     a->ddp_op);
	if (a->has_sequence && (memcmp(a->tsid, b->tsid, 16) || a->cachethis != b->cachethis))
		FAIL("re-parse: SEQUENCE differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t obuf[1 << 20];
	if (size < 5)
		return 0;
	static const int errs[] = { -ENOENT, -EPERM, -ENODATA };
	struct fctx f = { .fail_kind = data[0] % (K_NKINDS + 1) - 1, .fail_at = data[1] & 15,
			  .err = errs[(data[1] >> 4) % 3], .identity = data[4] & 2 };
	uint32_t rpos = (uint32_t)data[2] << 8 | data[3];
	bool v40 = data[4] & 1;
	size_t len = size - 5;
	/* a private copy of the exact size: ASan sees any over-read */
	uint8_t *args = malloc(len ? len : 1);
	if (!args)
		return 0;
	memcpy(args, data + 5, len);

	struct nfs4_call_info in, again;
	int pret = nfs4_call_parse(args, len, rpos, &in);
	check_info(&in, len, rpos, pret);

	struct nfs4_rewrite_ops ops = {
		.ctx = &f, .sequence = c_sequence, .map_fh = c_map_fh, .map_stateid = c_map_sid,
		.map_clientid = c_map_cid, .map_sessionid = c_map_sess, .exchange_id = c_exchange_id,
		.cs_sequence = c_cs_sequence, .map_returned = (data[4] & 4) ? c_map_ret : NULL,
		.map_claimed = (data[4] & 8) ? c_map_claim : NULL,
	};
	/* a callback location: 4.1 keeps the back-channel flag, 4.0's
	 * SETCLIENTID gets this address (20 bytes more than an empty one) */
	static const struct nfs4_cb_location loc = { true, "tcp", "10.9.0.2.157.7" };
	if (data[4] & 16) {
		ops.cb = &loc;
		unsigned k, n = in.nops < NFS4_RES_MAXOPS ? in.nops : NFS4_RES_MAXOPS;
		for (k = 0; k < n; k++)
			if (in.op[k] == NFS4_OP_SETCLIENTID)
				f.added += 20;
		if (in.nops > NFS4_RES_MAXOPS)
			f.added += 20 * (len / 4);
	}
	struct nfs40_rewrite_ops o40 = { .sc_confirm = c_sc_confirm, .map_seqid = c_map_seqid };
	struct xenc out;
	size_t ddp_out = 0;
	xenc_init(&out, obuf, sizeof(obuf));
	int ret = v40 ? nfs4_call_rewrite_v40(args, len, rpos, &ops, &o40, &out, &ddp_out)
		      : nfs4_call_rewrite(args, len, rpos, &ops, &out, &ddp_out);

	if (ret == 0 && (pret != 0 || f.failed))
		FAIL("rewrite 0, parse %d, callback failed %d", pret, f.failed);
	if (f.failed && ret != f.err)
		FAIL("callback failed with %d, rewrite returned %d", f.err, ret);
	if (!f.failed && (ret == 0) != (pret == 0))
		FAIL("rewrite %d, parse %d", ret, pret);
	if (ret != 0 && ret != -EBADMSG && ret != -EMSGSIZE && !f.failed)
		FAIL("rewrite returned %d", ret);
	if (out.len > len + f.added)
		FAIL("rewrite wrote %zu bytes from %zu (+%zu from callbacks)", out.len, len, f.added);
	if (ret == 0) {
		if (in.has_ddp != (ddp_out != 0) || ddp_out > out.len)
			FAIL("DDP at %zu of %zu, parse says %d", ddp_out, out.len, in.has_ddp);
		/* the rewrite leaves the DDP bytes out: the re-parse finds them
		 * where the rewrite said, as in a Read chunk */
		int r2 = nfs4_call_parse(obuf, out.len, (uint32_t)ddp_out, &again);
		if (r2 != 0)
			FAIL("rewrite does not re-parse (%d)", r2);
		same_ops(&in, &again);
		if (f.identity) {
			/* with identity mappings the rewrite is idempotent: what
			 * it normalises (owner, SEQUENCE slot fields, callback,
			 * XDR padding) it writes the same way the second time */
			static uint8_t obuf2[1 << 20];
			struct xenc out2;
			size_t ddp2 = 0;
			size_t added = f.added;
			xenc_init(&out2, obuf2, sizeof(obuf2));
			f.fail_kind = -1;
			int r3 = v40 ? nfs4_call_rewrite_v40(obuf, out.len, (uint32_t)ddp_out, &ops, &o40,
							     &out2, &ddp2)
				     : nfs4_call_rewrite(obuf, out.len, (uint32_t)ddp_out, &ops, &out2, &ddp2);
			if (r3 != 0 || ddp2 != ddp_out || out2.len != out.len ||
			    memcmp(obuf2, obuf, out.len) != 0)
				FAIL("identity rewrite not idempotent (%d, %zu/%zu bytes, DDP %zu/%zu)", r3,
				     out2.len, out.len, ddp2, ddp_out);
			f.added = added;
		}
	}
	free(args);
	return 0;
}
