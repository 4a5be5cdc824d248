/* What one record keeps, at its caps (issue 32, item 2; the XDR bounds
 * are in test_bounds.c, the transport's in test_bounds_net.c): a COMPOUND
 * of REC_MAX_OPS (24) ops keeps every one, one of 25 keeps 24 and counts
 * 25 -- in the call, the reply, a CB_COMPOUND reply, the name the record
 * is given and the op a filter looks for -- and nothing is written or
 * read past the kept ones (the record's bytes after ops[] are set to a
 * pattern that reads as a READ op, so a read past them shows); a call of
 * XDR_DDP_MAX (16) Read chunks at distinct positions keeps each one's
 * position and length, one of 17 keeps 16.  tests/unit/bounds_list.sh
 * reads the sites of this table too. */
#include <stddef.h>
#include <stdlib.h>

#include "check.h"

#include "dissect/chunks.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"
#include "dissect/record_names.h"
#include "dissect/rpcrdma.h"
#include "dissect/xdr.h"
#include "dissect/xid.h"

/* The Write list is cut at RPCRDMA_MAX_WCHUNKS by the header's decoder
 * (its edge is test_bounds.c's row "rpcrdma.c:RPCRDMA_MAX_WCHUNKS"), so
 * the XDR_DDP_MAX checks on Write chunks behind it (chunks.c, the call's;
 * dissect_record.c, the reply's echo) cannot be reached: bounds_list.sh
 * names them as shadowed, and this keeps that true. */
_Static_assert(RPCRDMA_MAX_WCHUNKS <= XDR_DDP_MAX, "Write chunks kept past XDR_DDP_MAX: give them their edge");

enum orun { O_CALL, O_REPLY, O_NAME, O_CB_REPLY, O_HAS_OP, O_READ_POS };

struct ocase {
	const char *site;
	enum orun run;
	unsigned n;
};

static const struct ocase rows[] = {
	{ "nfs4.c:REC_MAX_OPS", O_CALL, REC_MAX_OPS },
	{ "nfs4.c:REC_MAX_OPS", O_CALL, REC_MAX_OPS + 1 },
	{ "nfs4.c:REC_MAX_OPS", O_REPLY, REC_MAX_OPS },
	{ "nfs4.c:REC_MAX_OPS", O_REPLY, REC_MAX_OPS + 1 },
	{ "nfs4.c:REC_MAX_OPS", O_NAME, REC_MAX_OPS },
	{ "nfs4.c:REC_MAX_OPS", O_NAME, REC_MAX_OPS + 1 },
	{ "nfs4_cb.c:REC_MAX_OPS", O_CB_REPLY, REC_MAX_OPS },
	{ "nfs4_cb.c:REC_MAX_OPS", O_CB_REPLY, REC_MAX_OPS + 1 },
	{ "record_names.c:REC_MAX_OPS", O_HAS_OP, REC_MAX_OPS },
	{ "record_names.c:REC_MAX_OPS", O_HAS_OP, REC_MAX_OPS + 1 },
	{ "chunks.c:XDR_DDP_MAX", O_READ_POS, XDR_DDP_MAX },
	{ "chunks.c:XDR_DDP_MAX", O_READ_POS, XDR_DDP_MAX + 1 },
};

static uint8_t msg[4096];
static size_t msg_n;

static void w32(uint32_t v)
{
	for (int i = 0; i < 4; i++)
		msg[msg_n++] = (uint8_t)(v >> (24 - 8 * i));
}

/* The record's bytes after ops[]: read as a rec_op they say READ */
static void mark_after_ops(struct nfsrdma_record *r)
{
	uint8_t *p = (uint8_t *)r + offsetof(struct nfsrdma_record, ops) + sizeof(r->ops);
	memset(p, 0xa5, sizeof(struct rec_op));
	uint16_t op = NFS4_OP_READ;
	memcpy(p, &op, sizeof(op));
}

static bool after_ops_intact(const struct nfsrdma_record *r)
{
	const uint8_t *p = (const uint8_t *)r + offsetof(struct nfsrdma_record, ops) + sizeof(r->ops);
	uint16_t op;
	memcpy(&op, p, sizeof(op));
	for (size_t i = sizeof(op); i < sizeof(struct rec_op); i++)
		if (p[i] != 0xa5)
			return false;
	return op == NFS4_OP_READ;
}

static bool decode(const struct prog_info *pi, bool reply, struct nfsrdma_record *r)
{
	struct pdec d = { .c = cur_make(msg, msg_n), .rec = r, .reply = reply, .vers = 4, .proc = 1,
			  .layer = pi->layer };
	if (reply)
		pi->decode_reply(&d);
	else
		pi->decode_call(&d);
	return !d.failed && cur_ok(&d.c) && d.c.off == msg_n;
}

/* A COMPOUND call of n ops: PUTROOTFH, then GETFH last. */
static void call_of(struct nfsrdma_record *r, unsigned n)
{
	msg_n = 0;
	w32(0);            /* tag */
	w32(0);            /* minorversion */
	w32(n);
	for (unsigned i = 0; i < n; i++)
		w32(i + 1 < n ? NFS4_OP_PUTROOTFH : NFS4_OP_GETFH);
	memset(r, 0, sizeof(*r));
	r->prog = PROG_NFS;
	r->vers = 4;
	r->proc = 1;
	mark_after_ops(r);
	CHECK(decode(&prog_nfs4, false, r), "a COMPOUND of %u ops decodes", n);
}

static void kept_ops(const struct ocase *k, const struct nfsrdma_record *r, uint16_t first, uint16_t last)
{
	unsigned kept = k->n < REC_MAX_OPS ? k->n : REC_MAX_OPS;
	CHECK_EQ_U64(r->nops, k->n);
	for (unsigned i = 0; i < kept; i++) {
		uint16_t want = i + 1 == k->n ? last : first;
		CHECK(r->ops[i].op == want, "%s, %u ops: op %u is %u, not %u", k->site, k->n, i, r->ops[i].op, want);
	}
	CHECK(after_ops_intact(r), "%s, %u ops: the bytes after the %u kept ops untouched", k->site, k->n,
	      REC_MAX_OPS);
}

static void one(const struct ocase *k)
{
	static struct nfsrdma_record r;

	switch (k->run) {
	case O_CALL:
		call_of(&r, k->n);
		kept_ops(k, &r, NFS4_OP_PUTROOTFH, NFS4_OP_GETFH);
		break;
	case O_REPLY:
		call_of(&r, k->n);
		msg_n = 0;
		w32(0);    /* NFS4_OK */
		w32(0);    /* tag */
		w32(k->n);
		for (unsigned i = 0; i < k->n; i++) {
			w32(i + 1 < k->n ? NFS4_OP_PUTROOTFH : NFS4_OP_GETFH);
			w32(0);
			if (i + 1 == k->n) {
				w32(8);
				w32(0x01020304);
				w32(0x05060708);
			}
		}
		CHECK(decode(&prog_nfs4, true, &r), "a reply of %u results decodes", k->n);
		kept_ops(k, &r, NFS4_OP_PUTROOTFH, NFS4_OP_GETFH);
		for (unsigned i = 0; i < REC_MAX_OPS && i < k->n; i++)
			CHECK(r.ops[i].status == 0, "%s: result %u's status kept", k->site, i);
		break;
	case O_NAME:
		/* 24: PUTROOTFH ... GETFH, the Linux client's root lookup; 25:
		 * the kept 24 are PUTROOTFH alone, and the name says so */
		call_of(&r, k->n);
		CHECK_EQ_STR(nfs4_compound_name(&r), k->n <= REC_MAX_OPS ? "LOOKUP_ROOT" : "PUTROOTFH");
		break;
	case O_CB_REPLY:
		memset(&r, 0, sizeof(r));
		r.prog = PROG_NFS_CB;
		r.vers = 1;
		r.proc = 1;
		mark_after_ops(&r);
		msg_n = 0;
		w32(0);
		w32(0);
		w32(k->n);
		for (unsigned i = 0; i < k->n; i++) {
			w32(NFS4_OP_CB_RECALL);
			w32(0);
		}
		CHECK(decode(&prog_nfs_cb, true, &r), "a CB_COMPOUND reply of %u results decodes", k->n);
		kept_ops(k, &r, NFS4_OP_CB_RECALL, NFS4_OP_CB_RECALL);
		break;
	case O_HAS_OP:
		call_of(&r, k->n);
		CHECK(rec_has_op(&r, "PUTROOTFH"), "%s: a kept op is found", k->site);
		CHECK(rec_has_op(&r, "GETFH") == (k->n <= REC_MAX_OPS), "%s, %u ops: GETFH %s", k->site, k->n,
		      k->n <= REC_MAX_OPS ? "kept, found" : "not kept, not found");
		CHECK(!rec_has_op(&r, "READ"), "%s, %u ops: nothing past the kept ops is read", k->site, k->n);
		break;
	case O_READ_POS: {
		static struct rpcrdma_hdr h;
		static struct xentry x;
		struct seg_table t;
		memset(&h, 0, sizeof(h));
		memset(&x, 0, sizeof(x));
		CHECK_EQ_U64(seg_table_init(&t), 0);
		h.nrsegs = h.nrsegs_wire = (uint16_t)k->n;
		for (unsigned i = 0; i < k->n; i++) {
			h.rsegs[i].position = 8 * (i + 1);
			h.rsegs[i].seg.handle = 0x100 + i;
			h.rsegs[i].seg.length = 100 + i;
			h.rsegs[i].seg.offset = 0x10000ull * (i + 1);
		}
		CHECK_EQ_U64(chunks_register_call(&t, &x, 1, 0, &h), 0);
		unsigned kept = k->n < XDR_DDP_MAX ? k->n : XDR_DDP_MAX;
		CHECK_EQ_U64(x.call_ddp.nread, kept);
		for (unsigned i = 0; i < kept; i++)
			CHECK(x.call_ddp.read_pos[i] == 8 * (i + 1) && x.call_ddp.read_len[i] == 100 + i,
			      "%s, %u chunks: chunk %u at %u, %llu bytes", k->site, k->n, i, x.call_ddp.read_pos[i],
			      (unsigned long long)x.call_ddp.read_len[i]);
		CHECK_EQ_U64(x.rec.n_read_chunks, k->n);
		chunks_release(&t, &x);
		seg_table_free(&t);
		break;
	}
	}
}

int main(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		one(&rows[i]);
	return check_summary("test_bounds_caps");
}
