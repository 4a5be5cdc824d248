/* libFuzzer: the replay client's decoders of what a server sends back
 * outside NFSv4: NFSv3 replies (RPC header + results, every procedure the
 * replay sends), the portmapper GETPORT and MOUNT MNT replies, and the
 * RFC 8797 private data of the server's CM reply.
 *   byte 0: bits 0-1 the decoder (0 NFSv3 whole reply, 1 NFSv3 results
 *           only, 2 GETPORT + MNT, 3 CM private data); bit 7 bulk_moved
 *   byte 1: the NFSv3 procedure
 *   rest:   the message
 * Seeds: tests/fuzz/seeds/nfs3_clnt/ (tests/fuzz/make-clnt-seeds.sh).
 * Beyond "no crash" it checks what a decode may claim: handles within
 * their XDR bound, entries and data no larger than the bytes they came
 * from, the CM parameters in RFC 8797's range and round-tripping. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { fprintf(stderr, "invariant: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

struct ents {
	uint32_t n;
	size_t len;
};

static void on_entry(void *ctx, const char *name, const struct nfs_fh *fh)
{
	struct ents *e = ctx;
	size_t nl = strlen(name);
	if (nl > 255 || fh->len > NFS3_FHSIZE_MAX)
		FAIL("READDIRPLUS entry name %zu handle %u bytes", nl, fh->len);
	e->n++;
	/* an entry is at least 32 bytes of XDR plus its name and handle */
	if ((size_t)e->n * 32 > e->len)
		FAIL("%u entries from %zu bytes", e->n, e->len);
}

static void check_nfs3(uint32_t proc, size_t len, bool moved, const struct rpc_res *r,
		       const struct ents *e, int ret)
{
	if (ret != 0 && ret != -EBADMSG)
		FAIL("nfs3 decode returned %d", ret);
	if (r->has_fh && r->fh.len > NFS3_FHSIZE_MAX)
		FAIL("handle of %u bytes", r->fh.len);
	if (r->has_fh && proc != NFS3P_LOOKUP && proc != NFS3P_CREATE && proc != NFS3P_MKDIR &&
	    proc != NFS3P_SYMLINK && proc != NFS3P_MKNOD)
		FAIL("handle from proc %u", proc);
	/* READ data in the message: its count is no more than the bytes */
	if (ret == 0 && proc == NFS3P_READ && !moved && r->has_status && r->status == 0 &&
	    r->count > len)
		FAIL("READ count %u from %zu bytes", r->count, len);
	if ((size_t)r->nentries * 32 > len)
		FAIL("%u entries from %zu bytes", r->nentries, len);
	if (e->n > r->nentries)
		FAIL("%u entries handed out, %u counted", e->n, r->nentries);
	if (ret == 0 && r->rpc_status == 0 && proc == NFS3P_NULL && (!r->has_status || r->status))
		FAIL("NULL without status 0");
}

static void fuzz_nfs3(const uint8_t *p, size_t len, uint32_t proc, bool moved, bool whole)
{
	struct rpc_res r;
	struct ents e = { .len = len };
	int ret;

	memset(&r, 0xa5, sizeof(r));
	if (whole) {
		ret = nfs3_decode_reply(proc, p, len, moved, &r, on_entry, &e);
		if (ret == 0 && !r.ok)
			FAIL("decoded without an RPC header");
		if (ret == 0 && r.rpc_status == 0 && !r.has_status)
			FAIL("accepted reply without a status");
		/* the header decoder alone agrees with the full decode */
		struct rpc_res h;
		size_t off = 0;
		int hr = rpc_decode_reply_hdr(p, len, &h, &off);
		if ((hr == 0) != r.ok || (hr == 0 && (off > len || h.rpc_status != r.rpc_status)))
			FAIL("header decode disagrees (%d, off %zu of %zu)", hr, off, len);
		if (hr < 0 && (h.ok || h.rpc_status != 0xffff))
			FAIL("failed header decode left ok/status set");
		/* the results decoder alone, on the bytes after the header,
		 * decodes the same */
		if (hr == 0 && h.rpc_status == 0) {
			struct rpc_res b;
			struct ents e2 = { .len = len - off };
			memset(&b, 0, sizeof(b));
			int br = nfs3_decode_body(proc, p + off, len - off, moved, &b, on_entry, &e2);
			if (br != ret || b.status != r.status || b.has_status != r.has_status ||
			    b.has_fh != r.has_fh || (b.has_fh && (b.fh.len != r.fh.len ||
								  memcmp(b.fh.data, r.fh.data, b.fh.len))) ||
			    b.count != r.count || b.eof != r.eof || b.nentries != r.nentries ||
			    b.rtmax != r.rtmax || b.wtmax != r.wtmax || e2.n != e.n)
				FAIL("results-only decode differs from the whole-message decode");
		}
	} else {
		memset(&r, 0, sizeof(r));
		ret = nfs3_decode_body(proc, p, len, moved, &r, on_entry, &e);
	}
	check_nfs3(proc, len, moved, &r, &e, ret);
}

static void fuzz_mount(const uint8_t *p, size_t len)
{
	int port = pmap_decode_getport(p, len);
	if (port != -EPROTO && port != -ENOENT && (port <= 0 || port > 65535))
		FAIL("GETPORT gave %d", port);

	struct nfs_fh fh;
	char err[128];
	memset(&fh, 0xa5, sizeof(fh));
	err[0] = 0;
	int ret = mount3_decode_mnt(p, len, "h", "/p", &fh, err, sizeof(err));
	if (ret == 0) {
		if (fh.len > NFS3_FHSIZE_MAX || (size_t)fh.len + 4 > len)
			FAIL("MNT handle of %u bytes from %zu", fh.len, len);
	} else {
		if (ret != -EPROTO && ret != -EBADMSG && ret != -EACCES && ret != -ENOENT &&
		    ret != -EPERM)
			FAIL("MNT returned %d", ret);
		if (strncmp(err, "MOUNT h:/p: ", 12) != 0)
			FAIL("MNT error without its reason: '%s'", err);
	}
}

static void fuzz_cm_priv(const uint8_t *p, size_t len)
{
	uint32_t s = 0, r = 0;
	bool inv = false;
	if (!rpcrdma_cm_priv_decode(p, len, &s, &r, &inv))
		return;
	if (len < 8 || s < 1024 || r < 1024 || s > 256 * 1024 || r > 256 * 1024 || (s | r) & 1023)
		FAIL("CM private data: send %u recv %u from %zu bytes", s, r, len);
	uint8_t again[8];
	rpcrdma_cm_priv_encode(again, s, r, inv);
	uint32_t s2, r2;
	bool inv2;
	if (!rpcrdma_cm_priv_decode(again, 8, &s2, &r2, &inv2) || s2 != s || r2 != r || inv2 != inv)
		FAIL("CM private data does not round-trip");
	if (memcmp(again, p, 5) != 0 || again[6] != p[6] || again[7] != p[7])
		FAIL("CM private data re-encodes differently");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	/* a private copy of the exact size: ASan sees any over-read */
	size_t len = size - 2;
	uint8_t *p = malloc(len ? len : 1);
	if (!p)
		return 0;
	memcpy(p, data + 2, len);
	bool moved = data[0] & 0x80;
	uint32_t proc = data[1] % NFS3P_NPROCS;
	switch (data[0] & 3) {
	case 0: fuzz_nfs3(p, len, proc, moved, true); break;
	case 1: fuzz_nfs3(p, len, proc, moved, false); break;
	case 2: fuzz_mount(p, len); break;
	default: fuzz_cm_priv(p, len); break;
	}
	free(p);
	return 0;
}
