/* libFuzzer: the replay client's NFSv4.1 callback service (nfs41_cb_serve):
 * what a server sends on the back channel is hostile input.
 *   input: a whole RPC call (as the transport hands it over)
 * Seeds: tests/fuzz/seeds/nfs41_cb/ (tests/fuzz/make-clnt-seeds.sh: the
 * lab captures' CB_COMPOUNDs).
 * Invariants: the reply fits the buffer and is an accepted RPC reply to
 * the same XID; a CB_COMPOUND reply's result count and each result's
 * operation are readable and within the call's; a recalled file handle
 * fits NFS4_FHSIZE_MAX; serving the same call twice gives the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { fprintf(stderr, "invariant: " __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static unsigned recalls;

static void on_recall(void *ctx, const struct nfs41_cb_recall *r)
{
	(void)ctx;
	if (r->fh.len > NFS4_FHSIZE_MAX)
		FAIL("recalled handle of %u bytes", r->fh.len);
	recalls++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[1024], again[1024];
	struct nfs41_cb cb = { .recall = on_recall };

	recalls = 0;
	size_t n = nfs41_cb_serve(&cb, data, size, out, sizeof(out));
	if (n > sizeof(out))
		FAIL("reply of %zu bytes in a %zu-byte buffer", n, sizeof(out));
	if (cb.recalls != recalls)
		FAIL("%llu recalls counted, %u handed over", (unsigned long long)cb.recalls, recalls);
	if (n) {
		struct cursor c = cur_make(out, n);
		if (size < 4 || cur_be32(&c, "xid") != ((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
							 (uint32_t)data[2] << 8 | data[3]))
			FAIL("reply XID is not the call's");
		if (cur_be32(&c, "mtype") != 1 || cur_be32(&c, "reply_stat") != 0)
			FAIL("not an accepted reply");
		cur_skip(&c, 8, "verifier");
		uint32_t stat = cur_be32(&c, "accept_stat");
		if (!cur_ok(&c) || stat > 4)
			FAIL("accept_stat %u", stat);
		if (stat == 0 && cb.compounds) {
			cur_be32(&c, "status");
			cur_xdr_opaque(&c, 1024, NULL, "tag");
			uint32_t nres = cur_be32(&c, "count");
			if (!cur_ok(&c) || nres > 16 || (size_t)nres * 8 > n)
				FAIL("result count %u in %zu bytes", nres, n);
		}
		struct nfs41_cb cb2 = { 0 };
		size_t n2 = nfs41_cb_serve(&cb2, data, size, again, sizeof(again));
		if (n2 != n || memcmp(out, again, n))
			FAIL("not deterministic (%zu / %zu bytes)", n, n2);
	}
	/* a small buffer: never written past */
	uint8_t small[48];
	memset(small, 0xa5, sizeof(small));
	size_t ns = nfs41_cb_serve(&cb, data, size, small, 40);
	if (ns > 40 || small[40] != 0xa5)
		FAIL("wrote past a 40-byte buffer (%zu)", ns);
	return 0;
}
