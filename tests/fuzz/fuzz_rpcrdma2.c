/* libFuzzer harness for the RPC-over-RDMA version 2 header decoder
 * (dissect/rpcrdma2.c: draft -07 and the -00..-02 layout).  fuzz_rpcrdma
 * already runs rpcrdma2_decode over v1-shaped seeds; this one starts from
 * v2 headers and checks what a decoded header promises.
 *
 * Input: byte 0 picks the connection's layout hint (% 3: unknown, -00..-02,
 * -07); the rest is the transport header and whatever follows it.
 *
 * Invariants (trap):
 *   - the return is 0 or -EBADMSG; a failure leaves the cursor failed
 *     with a field name, a success leaves it good;
 *   - hdr_len is the cursor's advance, within the input, at least the
 *     16-byte prefix; stored list entries within their arrays, every
 *     stored Write chunk's segments inside wsegs;
 *   - a known hint decides the layout for the types both drafts define;
 *   - a continued (middle) message carries RPC bytes;
 *   - with a known hint, the header alone (an exactly-sized heap copy of
 *     its hdr_len bytes) decodes to the same header: the decoder never
 *     depends on, or reads, what follows its header. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/rpcrdma2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void check_lists(const struct rpcrdma_hdr *l)
{
	if (l->nrsegs > RPCRDMA_MAX_RSEGS || l->nwsegs > RPCRDMA_MAX_WSEGS ||
	    l->nwchunks > RPCRDMA_MAX_WCHUNKS || l->nrpsegs > RPCRDMA_MAX_RPSEGS)
		__builtin_trap();
	for (unsigned i = 0; i < l->nwchunks; i++)
		if ((unsigned)l->wchunks[i].first + l->wchunks[i].nsegs > l->nwsegs)
			__builtin_trap();
	if (l->nrpsegs && !l->has_reply)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rpcrdma2_layout hints[] = { RPCRDMA2_UNKNOWN, RPCRDMA2_DRAFT00, RPCRDMA2_DRAFT07 };
	static struct rpcrdma2_hdr h, h2;

	if (size < 1)
		return 0;
	enum rpcrdma2_layout hint = hints[data[0] % 3];
	data++;
	size--;

	struct cursor c = cur_make(data, size);
	int rc = rpcrdma2_decode(&h, &c, hint);
	if (rc != 0 && rc != -EBADMSG)
		__builtin_trap();
	sink += (unsigned)strlen(rpcrdma2_htype_name(&h)) + (unsigned)strlen(rpcrdma2_err_name(h.err));
	for (unsigned i = 0; i < h.nprops && i < RPCRDMA2_MAX_PROPS; i++)
		sink += (unsigned)strlen(rpcrdma2_prop_name(h.prop_id[i]));
	if (rc) {
		if (cur_ok(&c) || !c.err_what || c.err_off > size)
			__builtin_trap();
		return 0;
	}
	if (!cur_ok(&c) || h.hdr_len != c.off || h.hdr_len > size || h.hdr_len < 16)
		__builtin_trap();
	if (h.vers != 2 || (h.layout != RPCRDMA2_DRAFT00 && h.layout != RPCRDMA2_DRAFT07))
		__builtin_trap();
	if (hint != RPCRDMA2_UNKNOWN && h.htype >= 4 && h.htype <= 6 && h.layout != hint)
		__builtin_trap();
	if (h.nprops > RPCRDMA2_MAX_PROPS)
		__builtin_trap();
	check_lists(&h.lists);
	if (rpcrdma2_is_middle(&h) && !h.has_rpc)
		__builtin_trap();
	sink += rpcrdma2_is_reply(&h);

	if (hint == RPCRDMA2_UNKNOWN)
		return 0;   /* the shape rule looks at the length: not prefix-stable */
	uint8_t *hdr = malloc(h.hdr_len);
	if (!hdr)
		return 0;
	memcpy(hdr, data, h.hdr_len);
	c = cur_make(hdr, h.hdr_len);
	rc = rpcrdma2_decode(&h2, &c, hint);
	if (rc != 0 || h2.hdr_len != h.hdr_len || h2.htype != h.htype || h2.layout != h.layout ||
	    h2.lists.nrsegs != h.lists.nrsegs || h2.lists.nwchunks != h.lists.nwchunks ||
	    h2.lists.nwsegs != h.lists.nwsegs || h2.lists.has_reply != h.lists.has_reply ||
	    h2.lists.reply_len != h.lists.reply_len || h2.nprops != h.nprops || h2.err != h.err ||
	    h2.has_rpc != h.has_rpc)
		__builtin_trap();
	free(hdr);
	return 0;
}
