#include "dissect/rpcrdma.h"

#include <errno.h>
#include <string.h>

static void seg_read(struct cursor *c, struct rpcrdma_seg *s)
{
	s->handle = cur_be32(c, "rpcrdma segment handle");
	s->length = cur_be32(c, "rpcrdma segment length");
	s->offset = cur_be64(c, "rpcrdma segment offset");
}

/* An XDR optional-data discriminator must be 0 or 1; anything else is a
 * corrupt or misaligned header, not a long list. */
static int list_more(struct cursor *c, const char *what)
{
	uint32_t v = cur_be32(c, what);

	if (!cur_ok(c))
		return 0;
	if (v > 1) {
		c->off -= 4;
		cur_fail(c, CUR_INVALID, what);
		return 0;
	}
	return (int)v;
}

static void read_list(struct rpcrdma_hdr *h, struct cursor *c)
{
	while (list_more(c, "read list discriminator")) {
		struct rpcrdma_rseg rs;

		rs.position = cur_be32(c, "read segment position");
		seg_read(c, &rs.seg);
		if (!cur_ok(c))
			return;
		if (++h->nrsegs_wire > RPCRDMA_LIST_LIMIT) {
			cur_fail(c, CUR_INVALID, "read list too long");
			return;
		}
		if (h->nrsegs < RPCRDMA_MAX_RSEGS)
			h->rsegs[h->nrsegs++] = rs;
		else
			h->overflow = true;
	}
}

/* One write chunk (a counted array of segments) into wsegs. */
static void write_chunk(struct rpcrdma_hdr *h, struct cursor *c, struct rpcrdma_wchunk *wc,
			struct rpcrdma_seg *segs, uint16_t *nsegs, uint16_t maxsegs, const char *what)
{
	uint32_t n = cur_be32(c, what);

	if (!cur_ok(c))
		return;
	if (n > RPCRDMA_LIST_LIMIT || (size_t)n * 16 > cur_left(c)) {
		c->off -= 4;
		cur_fail(c, n > RPCRDMA_LIST_LIMIT ? CUR_INVALID : CUR_TRUNCATED, what);
		return;
	}
	wc->first = *nsegs;
	wc->nsegs = 0;
	wc->nsegs_wire = n;
	wc->length = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct rpcrdma_seg s;

		seg_read(c, &s);
		wc->length += s.length;
		if (*nsegs < maxsegs) {
			segs[(*nsegs)++] = s;
			wc->nsegs++;
		} else {
			h->overflow = true;
		}
	}
}

static void write_list(struct rpcrdma_hdr *h, struct cursor *c)
{
	while (list_more(c, "write list discriminator")) {
		struct rpcrdma_wchunk wc;

		write_chunk(h, c, &wc, h->wsegs, &h->nwsegs, RPCRDMA_MAX_WSEGS, "write chunk segment count");
		if (!cur_ok(c))
			return;
		if (++h->nwchunks_wire > RPCRDMA_LIST_LIMIT) {
			cur_fail(c, CUR_INVALID, "write list too long");
			return;
		}
		if (h->nwchunks < RPCRDMA_MAX_WCHUNKS)
			h->wchunks[h->nwchunks++] = wc;
		else
			h->overflow = true;
	}
}

static void reply_chunk(struct rpcrdma_hdr *h, struct cursor *c)
{
	if (!list_more(c, "reply chunk discriminator"))
		return;
	struct rpcrdma_wchunk wc;
	write_chunk(h, c, &wc, h->rpsegs, &h->nrpsegs, RPCRDMA_MAX_RPSEGS, "reply chunk segment count");
	if (!cur_ok(c))
		return;
	h->has_reply = true;
	h->nrpsegs_wire = wc.nsegs_wire;
	h->reply_len = wc.length;
}

uint32_t rpcrdma_peek_vers(const uint8_t *p, size_t len)
{
	if (len < 8)
		return 0;
	return ((uint32_t)p[4] << 24) | ((uint32_t)p[5] << 16) | ((uint32_t)p[6] << 8) | p[7];
}

int rpcrdma_decode(struct rpcrdma_hdr *h, struct cursor *c)
{
	size_t start = c->off;

	h->xid = cur_be32(c, "rpcrdma xid");
	h->vers = cur_be32(c, "rpcrdma vers");
	h->credits = cur_be32(c, "rpcrdma credits");
	h->proc = cur_be32(c, "rpcrdma proc");
	h->nrsegs = h->nwchunks = h->nwsegs = h->nrpsegs = 0;
	h->nrsegs_wire = h->nwchunks_wire = h->nrpsegs_wire = 0;
	h->has_reply = h->overflow = false;
	h->reply_len = 0;
	h->align = h->thresh = h->err = h->vers_low = h->vers_high = 0;
	if (!cur_ok(c))
		return -EBADMSG;
	if (h->vers != 1) {
		c->off = start + 4;
		cur_fail(c, CUR_INVALID, "rpcrdma vers (not 1)");
		return -EBADMSG;
	}
	switch (h->proc) {
	case RDMA_MSGP:
		h->align = cur_be32(c, "rpcrdma align");
		h->thresh = cur_be32(c, "rpcrdma thresh");
		/* chunk lists follow */
		__attribute__((fallthrough));
	case RDMA_MSG:
	case RDMA_NOMSG:
		read_list(h, c);
		write_list(h, c);
		reply_chunk(h, c);
		break;
	case RDMA_DONE:
		break;
	case RDMA_ERROR:
		h->err = cur_be32(c, "rdma_error code");
		if (h->err == ERR_VERS) {
			h->vers_low = cur_be32(c, "rdma_error vers low");
			h->vers_high = cur_be32(c, "rdma_error vers high");
		} else if (cur_ok(c) && h->err != ERR_CHUNK) {
			c->off -= 4;
			cur_fail(c, CUR_INVALID, "rdma_error code");
		}
		break;
	default:
		c->off -= 4;
		cur_fail(c, CUR_INVALID, "rpcrdma proc");
		break;
	}
	if (!cur_ok(c))
		return -EBADMSG;
	h->hdr_len = c->off - start;
	h->body_off = c->off;
	/* RDMA_MSGP: the RPC message starts at the next multiple of align
	 * (RFC 5666 §3.9); a silly align value means no padding. */
	if (h->proc == RDMA_MSGP && h->align >= 4 && h->align <= 4096 &&
	    (h->align & (h->align - 1)) == 0) {
		size_t a = (h->hdr_len + h->align - 1) & ~((size_t)h->align - 1);
		if (start + a <= c->len)
			h->body_off = start + a;
	}
	return 0;
}

const char *rpcrdma_proc_name(uint32_t proc)
{
	static const char *const n[] = { "RDMA_MSG", "RDMA_NOMSG", "RDMA_MSGP", "RDMA_DONE", "RDMA_ERROR" };
	return proc < 5 ? n[proc] : "RDMA_?";
}

const char *rpcrdma_err_name(uint32_t err)
{
	return err == ERR_VERS ? "ERR_VERS" : err == ERR_CHUNK ? "ERR_CHUNK" : "ERR_?";
}

uint64_t rpcrdma_read_chunk_len(const struct rpcrdma_hdr *h, uint32_t position)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < h->nrsegs; i++)
		if (h->rsegs[i].position == position)
			n += h->rsegs[i].seg.length;
	return n;
}

unsigned rpcrdma_read_chunk_count(const struct rpcrdma_hdr *h)
{
	unsigned n = 0;

	for (unsigned i = 0; i < h->nrsegs; i++) {
		bool seen = false;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = h->rsegs[j].position == h->rsegs[i].position;
		n += !seen;
	}
	return n;
}

bool rpcrdma_has_p0(const struct rpcrdma_hdr *h)
{
	for (unsigned i = 0; i < h->nrsegs; i++)
		if (h->rsegs[i].position == 0)
			return true;
	return false;
}
