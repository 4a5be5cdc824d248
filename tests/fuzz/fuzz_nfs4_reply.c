/* libFuzzer: the replay client's decoder of NFSv4 COMPOUND replies (every
 * minor version: EXCHANGE_ID, CREATE_SESSION, SETCLIENTID, OPEN with
 * delegations, LOCK denied, READ, READDIR...) and nfs4_deleg_pairs on two
 * decoded replies (the trace's and the target's to the same COMPOUND).
 *   byte 0: bit 0 whole messages (RPC header first) else results only;
 *           bit 1/2 bulk_moved of reply A/B; bit 3 proc NULL (0) for A
 *   byte 1-2: length of reply A (big-endian; beyond the input: all of it,
 *           and B is A again)
 *   rest:   reply A then reply B
 * Seeds: tests/fuzz/seeds/nfs4_reply/ (tests/fuzz/make-clnt-seeds.sh).
 * Invariants: counts and lengths within what the bytes can hold, kept
 * arrays within their bounds, each kept item tied to an op index the
 * reply really had, and the delegation pairs consistent with both. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/clnt/nfs3.h"
#include "src/clnt/nfs4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { fprintf(stderr, "invariant: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static void check_res(const struct nfs4_res *r, size_t len, bool moved, int ret, bool whole)
{
	if (ret != 0 && ret != -EBADMSG)
		FAIL("decode returned %d", ret);
	if (whole && ret == 0 && !r->ok)
		FAIL("0 without an RPC header");
	if (r->complete && !r->has_status)
		FAIL("complete without status");
	/* each result is at least opnum + status */
	if ((size_t)r->nres * 8 > len)
		FAIL("%u results from %zu bytes", r->nres, len);
	if (r->nfh > NFS4_RES_MAXFH || r->nsid > NFS4_RES_MAXSID || r->ndeleg > NFS4_RES_MAXSID)
		FAIL("kept arrays overflow: fh %u sid %u deleg %u", r->nfh, r->nsid, r->ndeleg);
	for (unsigned i = 0; i < r->nfh; i++) {
		if (r->fh[i].len > NFS4_FHSIZE_MAX || (size_t)r->fh[i].len + 12 > len)
			FAIL("GETFH handle %u of %u bytes (input %zu)", i, r->fh[i].len, len);
		if (r->fh_at[i] >= r->nres || (r->fh_at[i] < NFS4_RES_MAXOPS &&
					       (r->op[r->fh_at[i]] != NFS4_OP_GETFH || r->opst[r->fh_at[i]])))
			FAIL("GETFH handle %u at op %u", i, r->fh_at[i]);
		if (i && r->fh_at[i] <= r->fh_at[i - 1])
			FAIL("GETFH handles out of order");
	}
	for (unsigned i = 0; i < r->nsid; i++)
		if (r->sid_at[i] >= r->nres || (r->sid_at[i] < NFS4_RES_MAXOPS && r->opst[r->sid_at[i]]))
			FAIL("stateid %u at op %u of %u", i, r->sid_at[i], r->nres);
	for (unsigned i = 0; i < r->ndeleg; i++) {
		uint32_t at = r->deleg_at[i];
		if (at >= r->nres || (at < NFS4_RES_MAXOPS && (r->op[at] != NFS4_OP_OPEN || r->opst[at])))
			FAIL("delegation %u at op %u", i, at);
		if (r->deleg_type[i] != 1 && r->deleg_type[i] != 2)
			FAIL("delegation type %u", r->deleg_type[i]);
	}
	if (r->has_open && (r->open_at >= r->nres ||
			    (r->open_at < NFS4_RES_MAXOPS && r->op[r->open_at] != NFS4_OP_OPEN)))
		FAIL("OPEN flags from op %u", r->open_at);
	/* data that was in the message is no bigger than the message */
	if (!moved && ((size_t)r->read_count > len))
		FAIL("read_count %u from %zu bytes", r->read_count, len);
	/* a READDIR entry is at least 24 bytes (more, cookie, name, bitmap, attrs) */
	if ((size_t)r->nentries * 24 > len)
		FAIL("%u entries from %zu bytes", r->nentries, len);
}

static int decode(const uint8_t *p, size_t len, bool whole, uint32_t proc, bool moved,
		  struct nfs4_res *r)
{
	static struct nfs4_res b;
	int ret;
	memset(r, 0xa5, sizeof(*r));
	if (whole) {
		ret = nfs4_decode_reply(proc, p, len, moved, r);
		/* the results decoder alone, after the header, agrees */
		struct rpc_res h;
		size_t off;
		if (ret == 0 && r->rpc_status == 0 && rpc_decode_reply_hdr(p, len, &h, &off) == 0) {
			memset(&b, 0, sizeof(b));
			nfs4_decode_body(proc, p + off, len - off, moved, &b);
			b.ok = r->ok;
			b.rpc_status = r->rpc_status;
			if (memcmp(&b, r, sizeof(b)) != 0)
				FAIL("results-only decode differs from the whole-message decode");
		}
		return ret;
	}
	memset(r, 0, sizeof(*r));
	ret = nfs4_decode_body(proc, p, len, moved, r);
	if (ret == 0 && !r->complete)
		FAIL("0 but not complete");
	return ret;
}

static void check_pairs(const struct nfs4_res *tr, const struct nfs4_res *rr)
{
	struct nfs4_deleg_pair out[NFS4_RES_MAXSID + 1];
	unsigned max = NFS4_RES_MAXSID;
	unsigned n = nfs4_deleg_pairs(tr, rr, out, max);
	if (n > max || n > tr->ndeleg)
		FAIL("%u delegation pairs from %u delegations", n, tr->ndeleg);
	for (unsigned i = 0; i < n; i++) {
		const struct nfs4_deleg_pair *p = &out[i];
		bool found = false;
		for (unsigned j = 0; j < tr->ndeleg && !found; j++)
			found = !memcmp(&tr->deleg[j], &p->tdeleg, sizeof(p->tdeleg));
		if (!found)
			FAIL("pair %u: a delegation the trace reply does not hold", i);
		found = false;
		for (unsigned j = 0; j < rr->ndeleg && !found; j++)
			found = !memcmp(&rr->deleg[j], &p->g, sizeof(p->g));
		if (p->granted && !found)
			FAIL("pair %u: granted a delegation the target reply does not hold", i);
		found = false;
		for (unsigned j = 0; j < rr->nsid && !found; j++)
			found = !memcmp(&rr->sid[j], &p->g, sizeof(p->g));
		if (!p->granted && !found)
			FAIL("pair %u: an open stateid the target reply does not hold", i);
	}
	/* a reply paired with itself: every delegation of an OPEN that
	 * also kept its open stateid is granted to itself */
	if (tr == rr)
		for (unsigned i = 0; i < n; i++)
			if (!out[i].granted)
				FAIL("self pair %u not granted", i);
	/* max bounds the output */
	if (nfs4_deleg_pairs(tr, rr, out, 1) > 1 || nfs4_deleg_pairs(tr, rr, out, 0) != 0)
		FAIL("max not honoured");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nfs4_res ra, rb;
	if (size < 3)
		return 0;
	bool whole = data[0] & 1, ma = data[0] & 2, mb = data[0] & 4;
	uint32_t proc_a = data[0] & 8 ? 0 : 1;
	size_t alen = (size_t)data[1] << 8 | data[2];
	size_t rest = size - 3;
	bool same = alen > rest;
	if (same)
		alen = rest;
	/* private copies of the exact sizes: ASan sees any over-read */
	uint8_t *a = malloc(alen ? alen : 1);
	uint8_t *b = malloc(rest - alen ? rest - alen : 1);
	if (!a || !b)
		goto out;
	memcpy(a, data + 3, alen);
	memcpy(b, data + 3 + alen, rest - alen);

	int ret = decode(a, alen, whole, proc_a, ma, &ra);
	check_res(&ra, alen, ma, ret, whole);
	if (same) {
		check_pairs(&ra, &ra);
	} else {
		ret = decode(b, rest - alen, whole, 1, mb, &rb);
		check_res(&rb, rest - alen, mb, ret, whole);
		check_pairs(&ra, &rb);
		check_pairs(&rb, &ra);
	}
out:
	free(a);
	free(b);
	return 0;
}
