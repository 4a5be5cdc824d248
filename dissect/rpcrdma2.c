#include "dissect/rpcrdma2.h"

#include <errno.h>
#include <string.h>

/* v2 chunk lists reuse the v1 encodings (optional-data lists of Read
 * segments and Write chunks, an optional Reply chunk); they are stored in
 * the v1 structure so the chunk tracker understands them.  Lists absent
 * from a header type are skipped, not read. */
static void lists(struct rpcrdma2_hdr *h, struct cursor *c, bool reads, bool writes, bool reply)
{
	struct rpcrdma_hdr *l = &h->lists;

	struct cursor x = *c;
	memset(l, 0, sizeof(*l));
	l->vers = 1;
	if (reads) {
		while (cur_be32(&x, "v2 read list discriminator") == 1 && cur_ok(&x)) {
			struct rpcrdma_rseg rs;
			rs.position = cur_be32(&x, "v2 read segment position");
			rs.seg.handle = cur_be32(&x, "v2 segment handle");
			rs.seg.length = cur_be32(&x, "v2 segment length");
			rs.seg.offset = cur_be64(&x, "v2 segment offset");
			if (!cur_ok(&x))
				break;
			if (++l->nrsegs_wire > RPCRDMA_LIST_LIMIT) {
				cur_fail(&x, CUR_INVALID, "v2 read list too long");
				break;
			}
			if (l->nrsegs < RPCRDMA_MAX_RSEGS)
				l->rsegs[l->nrsegs++] = rs;
		}
	}
	if (writes && cur_ok(&x)) {
		while (cur_be32(&x, "v2 write list discriminator") == 1 && cur_ok(&x)) {
			uint32_t k = cur_be32(&x, "v2 write chunk segment count");
			if (k > RPCRDMA_LIST_LIMIT || (size_t)k * 16 > cur_left(&x)) {
				cur_fail(&x, k > RPCRDMA_LIST_LIMIT ? CUR_INVALID : CUR_TRUNCATED,
					 "v2 write chunk segments");
				break;
			}
			struct rpcrdma_wchunk wc = { l->nwsegs, 0, k, 0 };
			for (uint32_t i = 0; i < k; i++) {
				struct rpcrdma_seg s;
				s.handle = cur_be32(&x, "v2 segment handle");
				s.length = cur_be32(&x, "v2 segment length");
				s.offset = cur_be64(&x, "v2 segment offset");
				wc.length += s.length;
				if (l->nwsegs < RPCRDMA_MAX_WSEGS) {
					l->wsegs[l->nwsegs++] = s;
					wc.nsegs++;
				}
			}
			if (++l->nwchunks_wire > RPCRDMA_LIST_LIMIT) {
				cur_fail(&x, CUR_INVALID, "v2 write list too long");
				break;
			}
			if (l->nwchunks < RPCRDMA_MAX_WCHUNKS)
				l->wchunks[l->nwchunks++] = wc;
		}
	}
	if (reply && cur_ok(&x)) {
		uint32_t present = cur_be32(&x, "v2 reply chunk discriminator");
		if (present == 1) {
			uint32_t k = cur_be32(&x, "v2 reply chunk segment count");
			if (k > RPCRDMA_LIST_LIMIT || (size_t)k * 16 > cur_left(&x)) {
				cur_fail(&x, k > RPCRDMA_LIST_LIMIT ? CUR_INVALID : CUR_TRUNCATED,
					 "v2 reply chunk segments");
			} else {
				l->has_reply = true;
				l->nrpsegs_wire = k;
				for (uint32_t i = 0; i < k; i++) {
					struct rpcrdma_seg s;
					s.handle = cur_be32(&x, "v2 segment handle");
					s.length = cur_be32(&x, "v2 segment length");
					s.offset = cur_be64(&x, "v2 segment offset");
					l->reply_len += s.length;
					if (l->nrpsegs < RPCRDMA_MAX_RPSEGS)
						l->rpsegs[l->nrpsegs++] = s;
				}
			}
		} else if (present > 1) {
			cur_fail(&x, CUR_INVALID, "v2 reply chunk discriminator");
		}
	}
	*c = x;
}

/* union rpcrdma2_hdr_error (-07 section 6.3.1; the same arms in -00..-02):
 * VERS carries rdma_vers_low/high, READ_CHUNKS / WRITE_CHUNKS / SEGMENTS a
 * maximum, WRITE_RESOURCE a chunk index and the length needed,
 * REPLY_RESOURCE the length needed; the others nothing. */
static void error_body(struct rpcrdma2_hdr *h, struct cursor *c)
{
	h->err = cur_be32(c, "v2 error code");
	switch (h->err) {
	case R2ERR_VERS: case R2ERR_WRITE_RESOURCE:
		h->err_a = cur_be32(c, "v2 error detail");
		h->err_b = cur_be32(c, "v2 error detail");
		break;
	case R2ERR_READ_CHUNKS: case R2ERR_WRITE_CHUNKS: case R2ERR_SEGMENTS:
	case R2ERR_REPLY_RESOURCE:
		h->err_a = cur_be32(c, "v2 error detail");
		break;
	default:
		break;
	}
}

/* The connection properties (the same in every draft): a count, then
 * (id, opaque value) pairs; the first RPCRDMA2_MAX_PROPS are kept, each
 * value as its first XDR word. */
static void connprops(struct rpcrdma2_hdr *h, struct cursor *c)
{
	uint32_t n = cur_be32(c, "v2 connprop count");

	if (n > 256) {
		cur_fail(c, CUR_INVALID, "v2 connprop count");
		return;
	}
	for (uint32_t i = 0; i < n && cur_ok(c); i++) {
		uint32_t id = cur_be32(c, "v2 property id"), len;
		const uint8_t *p = cur_xdr_opaque(c, 65536, &len, "v2 property value");
		if (h->nprops < RPCRDMA2_MAX_PROPS) {
			h->prop_id[h->nprops] = id;
			h->prop_val[h->nprops++] = (p && len >= 4) ?
				((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) : 0;
		}
	}
}

static int decode07(struct rpcrdma2_hdr *h, struct cursor *c)
{
	h->layout = RPCRDMA2_DRAFT07;
	switch (h->htype) {
	case R2_ERROR:
		error_body(h, c);
		break;
	case R2_GRANT:
		break;
	case R2_CONNPROP_MIDDLE:
	case R2_CONNPROP_FINAL:
		connprops(h, c);
		break;
	case R2_CALL_EXTERNAL:
		h->inv_handle = cur_be32(c, "v2 inv_handle");
		/* rdma_call: the position-zero Read chunk */
		h->has_call_chunk = true;
		lists(h, c, true, false, false);
		{
			struct rpcrdma_hdr call = h->lists;
			lists(h, c, true, true, true);
			/* merge: call segments first, at position 0 */
			for (unsigned i = 0; i < call.nrsegs && h->lists.nrsegs < RPCRDMA_MAX_RSEGS; i++) {
				call.rsegs[i].position = 0;
				h->lists.rsegs[h->lists.nrsegs++] = call.rsegs[i];
			}
		}
		break;
	case R2_CALL_INLINE:
		h->inv_handle = cur_be32(c, "v2 inv_handle");
		lists(h, c, true, true, true);
		h->has_rpc = true;
		break;
	case R2_CALL_MIDDLE:
	case R2_REPLY_MIDDLE:
		h->remaining = cur_be32(c, "v2 rdma_remaining");
		h->has_rpc = true;
		break;
	case R2_REPLY_EXTERNAL:
		lists(h, c, false, true, true);
		break;
	case R2_REPLY_INLINE:
		lists(h, c, false, true, false);
		h->has_rpc = true;
		break;
	default:
		c->off -= 4;
		cur_fail(c, CUR_INVALID, "v2 header type");
		return -EBADMSG;
	}
	return cur_ok(c) ? 0 : -EBADMSG;
}

/* -00..-02: struct rpcrdma2_hdr_prefix carries rdma_flags after the
 * common words; RDMA2_MSG / RDMA2_NOMSG start with struct
 * rpcrdma2_chunk_lists { rdma_inv_handle; *reads; *writes; *reply }. */
static int decode_old(struct rpcrdma2_hdr *h, struct cursor *c)
{
	h->layout = RPCRDMA2_DRAFT00;
	h->flags = cur_be32(c, "v2 (-00..-02) flags");
	switch (h->htype) {
	case R2OLD_MSG:
	case R2OLD_NOMSG:
		h->inv_handle = cur_be32(c, "v2 inv_handle");
		lists(h, c, true, true, true);
		h->has_rpc = h->htype == R2OLD_MSG;
		break;
	case R2OLD_ERROR:
		error_body(h, c);
		break;
	case R2OLD_CONNPROP:
		connprops(h, c);
		break;
	case R2OLD_GRANT:
		break;
	default:
		c->off -= 4;
		cur_fail(c, CUR_INVALID, "v2 (-00..-02) message type");
		break;
	}
	if (cur_ok(c) && (h->flags & ~(uint32_t)(R2OLD_F_RESPONSE | R2OLD_F_MORE | R2OLD_F_TPMORE))) {
		c->off = 16;
		cur_fail(c, CUR_INVALID, "v2 (-00..-02) flags");
	}
	return cur_ok(c) ? 0 : -EBADMSG;
}

/* Which layout a header uses.  Types 0 and 1 exist only in -00..-02 and
 * 7..13 only in -07; 4, 5 and 6 exist in both (ERROR; GRANT / CONNPROP;
 * CONNPROP_MIDDLE / GRANT).  For those the connection's layout decides
 * when it is known, else the shape does: a -07 GRANT carries nothing
 * after the 16-byte prefix, an old GRANT only its flags word. */
static enum rpcrdma2_layout pick_layout(uint32_t htype, size_t left, enum rpcrdma2_layout hint)
{
	if (htype <= 1)
		return RPCRDMA2_DRAFT00;
	if (htype >= 7)
		return RPCRDMA2_DRAFT07;
	if (hint == RPCRDMA2_DRAFT00 || hint == RPCRDMA2_DRAFT07)
		return hint;
	if (htype == 5)
		return left == 0 ? RPCRDMA2_DRAFT07 : RPCRDMA2_DRAFT00;
	if (htype == 6)
		return left == 4 ? RPCRDMA2_DRAFT00 : RPCRDMA2_DRAFT07;
	return RPCRDMA2_DRAFT07;
}

int rpcrdma2_decode(struct rpcrdma2_hdr *h, struct cursor *c, enum rpcrdma2_layout hint)
{
	size_t start = c->off;

	memset(h, 0, sizeof(*h));
	h->xid = cur_be32(c, "rpcrdma xid");
	h->vers = cur_be32(c, "rpcrdma vers");
	h->credits = cur_be32(c, "rpcrdma credits");
	h->htype = cur_be32(c, "v2 header type");
	if (!cur_ok(c))
		return -EBADMSG;
	if (h->vers != 2) {
		c->off = start + 4;
		cur_fail(c, CUR_INVALID, "rpcrdma vers (not 2)");
		return -EBADMSG;
	}
	int ret;
	if (pick_layout(h->htype, cur_left(c), hint) == RPCRDMA2_DRAFT00) {
		ret = decode_old(h, c);
	} else {
		ret = decode07(h, c);
	}
	h->hdr_len = c->off - start;
	return ret;
}

bool rpcrdma2_is_reply(const struct rpcrdma2_hdr *h)
{
	if (h->layout == RPCRDMA2_DRAFT00)
		return h->flags & R2OLD_F_RESPONSE;
	return h->htype >= R2_REPLY_EXTERNAL || h->htype == R2_ERROR;
}

bool rpcrdma2_is_middle(const struct rpcrdma2_hdr *h)
{
	if (h->layout == RPCRDMA2_DRAFT00)
		return (h->htype == R2OLD_MSG) && (h->flags & R2OLD_F_MORE);
	return h->htype == R2_CALL_MIDDLE || h->htype == R2_REPLY_MIDDLE;
}

const char *rpcrdma2_htype_name(const struct rpcrdma2_hdr *h)
{
	if (h->layout == RPCRDMA2_DRAFT00) {
		switch (h->htype) {
		case R2OLD_MSG: return "RDMA2_MSG";
		case R2OLD_NOMSG: return "RDMA2_NOMSG";
		case R2OLD_ERROR: return "RDMA2_ERROR";
		case R2OLD_CONNPROP: return "RDMA2_CONNPROP";
		case R2OLD_GRANT: return "RDMA2_GRANT";
		default: return "RDMA2_?";
		}
	}
	static const char *const n[] = { "RDMA2_ERROR", "RDMA2_GRANT", "RDMA2_CONNPROP_MIDDLE",
					 "RDMA2_CONNPROP_FINAL", "RDMA2_CALL_EXTERNAL", "RDMA2_CALL_MIDDLE",
					 "RDMA2_CALL_INLINE", "RDMA2_REPLY_EXTERNAL", "RDMA2_REPLY_MIDDLE",
					 "RDMA2_REPLY_INLINE" };
	return h->htype >= 4 && h->htype <= 13 ? n[h->htype - 4] : "RDMA2_?";
}

const char *rpcrdma2_err_name(uint32_t e)
{
	switch (e) {
	case 1: return "VERS"; case 2: return "BAD_XDR"; case 3: return "BAD_PROPVAL";
	case 4: return "INVAL_HTYPE"; case 5: return "INVAL_CONT"; case 6: return "READ_CHUNKS";
	case 7: return "WRITE_CHUNKS"; case 8: return "SEGMENTS"; case 9: return "WRITE_RESOURCE";
	case 10: return "REPLY_RESOURCE"; case 11: return "VERS_MISMATCH"; case 100: return "SYSTEM";
	default: return "?";
	}
}

const char *rpcrdma2_prop_name(uint32_t id)
{
	static const char *const n[] = { "?", "max-send-size", "receive-buffer-size",
					 "max-segment-size", "max-segment-count",
					 "reverse-direction-support", "host-auth" };
	return id < 7 ? n[id] : "?";
}
