/* Encoder and bounded decoder of forwarded records (see fwd_msg.h). */
#include "src/daemon/fwd_msg.h"

#include <stdbool.h>
#include <string.h>

#include "dissect/extract.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fwd_msg: the record crosses in its in-memory form, which is little-endian here"
#endif

static const uint8_t magic[4] = { 'N', 'R', 'F', 'W' };

static uint8_t *put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); return p + 2; }
static uint8_t *put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); return p + 8; }

static uint8_t *header(uint8_t *p, const struct fwd_meta *m, uint8_t kind, uint16_t recv, uint16_t fixed,
		       unsigned nf, unsigned no, size_t hl)
{
	memcpy(p, magic, 4);
	p += 4;
	*p++ = FWD_MSG_VERSION;
	*p++ = m->vantage;
	p = put16(p, recv);
	p = put16(p, fixed);
	*p++ = (uint8_t)nf;
	*p++ = (uint8_t)no;
	*p++ = (uint8_t)hl;
	*p++ = kind;
	memset(p, 0, 2);
	return p + 2;
}

size_t fwd_msg_encode_end(uint8_t *buf, const struct fwd_meta *m)
{
	size_t hl = strnlen(m->host, FWD_HOST_MAX);
	uint8_t *p = header(buf, m, FWD_KIND_END, NFSRDMA_RECORD_VERSION, 0, 0, 0, hl);

	p = put64(p, m->session);
	p = put64(p, m->seq);
	p = put64(p, m->dropped);
	p = put64(p, m->realtime_ns);
	p = put64(p, m->mono_ns);
	memcpy(p, m->host, hl);
	return (size_t)(p + hl - buf);
}

size_t fwd_msg_encode_clock(uint8_t *buf, const struct fwd_meta *m, const char *line, size_t len)
{
	size_t hl = strnlen(m->host, FWD_HOST_MAX);

	if (!len || len > FWD_CLOCK_MAX)
		return 0;
	uint8_t *p = header(buf, m, FWD_KIND_CLOCK, NFSRDMA_RECORD_VERSION, (uint16_t)len, 0, 0, hl);
	p = put64(p, m->session);
	p = put64(p, m->seq);
	p = put64(p, m->dropped);
	p = put64(p, m->realtime_ns);
	p = put64(p, m->mono_ns);
	memcpy(p, m->host, hl);
	memcpy(p + hl, line, len);
	return (size_t)(p + hl + len - buf);
}

size_t fwd_msg_encode(uint8_t *buf, const struct fwd_meta *m, const struct nfsrdma_record *r)
{
	size_t hl = strnlen(m->host, FWD_HOST_MAX);
	unsigned nf = r->nfindings < REC_MAX_FINDINGS ? r->nfindings : REC_MAX_FINDINGS;
	unsigned no = r->nops < REC_MAX_OPS ? r->nops : REC_MAX_OPS;
	/* the header names the layout that crosses (always this build's); the
	 * record's own version may be older (one read back from old JSON Lines) */
	uint8_t *p = header(buf, m, FWD_KIND_RECORD, NFSRDMA_RECORD_VERSION, (uint16_t)FWD_REC_FIXED, nf, no, hl);

	p = put64(p, m->session);
	p = put64(p, m->seq);
	p = put64(p, m->dropped);
	p = put64(p, m->realtime_ns);
	p = put64(p, m->mono_ns);
	memcpy(p, m->host, hl);
	p += hl;
	memcpy(p, r, FWD_REC_FIXED);
	p += FWD_REC_FIXED;
	memcpy(p, r->finding, nf * sizeof(r->finding[0]));
	p += nf * sizeof(r->finding[0]);
	memcpy(p, r->ops, no * sizeof(r->ops[0]));
	p += no * sizeof(r->ops[0]);
	memcpy(p, (const uint8_t *)r + FWD_REC_VT_OFF, FWD_REC_VT_LEN);
	p += FWD_REC_VT_LEN;
	return (size_t)(p - buf);
}

const char *fwd_msg_err_name(int neg_err)
{
	static const char *const n[FWD_ERR_N] = { "?", "truncated", "not a forwarded record",
						  "unsupported version", "field out of bounds" };
	int e = -neg_err;
	return e > 0 && e < FWD_ERR_N ? n[e] : "?";
}

static int fail(const struct cursor *c, size_t *off, int err)
{
	if (off)
		*off = c->err ? c->err_off : c->off;
	return -err;
}

int fwd_msg_decode(const uint8_t *buf, size_t len, struct fwd_meta *m, struct nfsrdma_record *r,
		   size_t *off)
{
	struct cursor c = cur_make(buf, len);
	const uint8_t *mg = cur_bytes(&c, 4, "magic");

	if (!mg)
		return fail(&c, off, FWD_ERR_SHORT);
	if (memcmp(mg, magic, 4))
		return fail(&c, off, FWD_ERR_MAGIC);
	uint8_t mv = cur_u8(&c, "msg version");
	uint8_t vantage = cur_u8(&c, "vantage");
	uint16_t recv = cur_u8(&c, "record version");
	recv |= (uint16_t)(cur_u8(&c, "record version") << 8);
	uint16_t fixed = cur_u8(&c, "fixed length");
	fixed |= (uint16_t)(cur_u8(&c, "fixed length") << 8);
	uint8_t nf = cur_u8(&c, "findings"), no = cur_u8(&c, "ops"), hl = cur_u8(&c, "host length");
	uint8_t kind = cur_u8(&c, "kind");
	uint8_t pad = cur_u8(&c, "pad");
	pad |= cur_u8(&c, "pad");
	memset(m, 0, sizeof(*m));
	m->vantage = vantage;
	m->kind = kind;
	m->session = cur_le64(&c, "session");
	m->seq = cur_le64(&c, "seq");
	m->dropped = cur_le64(&c, "dropped");
	m->realtime_ns = cur_le64(&c, "realtime");
	m->mono_ns = cur_le64(&c, "monotonic");
	if (!cur_ok(&c))
		return fail(&c, off, FWD_ERR_SHORT);
	bool end = kind == FWD_KIND_END, clk = kind == FWD_KIND_CLOCK;
	if (mv == FWD_MSG_VERSION && (kind > FWD_KIND_CLOCK || pad)) {
		c.off = 13;
		return fail(&c, off, FWD_ERR_FIELD);
	}
	if (mv != FWD_MSG_VERSION || recv != NFSRDMA_RECORD_VERSION ||
	    (clk ? !fixed || fixed > FWD_CLOCK_MAX : fixed != (end ? 0 : FWD_REC_FIXED))) {
		c.off = mv != FWD_MSG_VERSION ? 4 : 6;
		return fail(&c, off, FWD_ERR_VERSION);
	}
	if (nf > REC_MAX_FINDINGS || no > REC_MAX_OPS || hl > FWD_HOST_MAX || hl == 0 || kind > FWD_KIND_CLOCK ||
	    ((end || clk) && (nf || no)) || (clk && vantage)) {
		c.off = 10;
		return fail(&c, off, FWD_ERR_FIELD);
	}
	const uint8_t *host = cur_bytes(&c, hl, "host");
	const uint8_t *fix = cur_bytes(&c, end ? 0 : clk ? fixed : FWD_REC_FIXED, clk ? "clock line" : "record");
	const uint8_t *fd = cur_bytes(&c, nf * sizeof(r->finding[0]), "findings");
	const uint8_t *od = cur_bytes(&c, no * sizeof(r->ops[0]), "ops");
	const uint8_t *vt = cur_bytes(&c, end || clk ? 0 : FWD_REC_VT_LEN, "vantage part");
	if (!host || !fix || !fd || !od || !vt)
		return fail(&c, off, FWD_ERR_SHORT);
	if (cur_left(&c))
		return fail(&c, off, FWD_ERR_FIELD);   /* trailing bytes: not what we wrote */
	for (unsigned i = 0; i < hl; i++) {
		/* a host name goes into logs, labels and JSON: printable ASCII only */
		if (host[i] <= 0x20 || host[i] >= 0x7f || host[i] == '"' || host[i] == '\\') {
			c.off = FWD_HDR_LEN + i;
			return fail(&c, off, FWD_ERR_FIELD);
		}
		m->host[i] = (char)host[i];
	}
	if (end)
		return 0;
	if (clk) {
		/* a JSON line for the join's bounded reader: printable ASCII */
		for (unsigned i = 0; i < fixed; i++)
			if (fix[i] < 0x20 || fix[i] >= 0x7f) {
				c.off = FWD_HDR_LEN + hl + i;
				return fail(&c, off, FWD_ERR_FIELD);
			}
		m->clock = (const char *)fix;
		m->clock_len = fixed;
		return 0;
	}
	memset(r, 0, sizeof(*r));
	memcpy(r, fix, FWD_REC_FIXED);
	memcpy(r->finding, fd, nf * sizeof(r->finding[0]));
	memcpy(r->ops, od, no * sizeof(r->ops[0]));
	memcpy((uint8_t *)r + FWD_REC_VT_OFF, vt, FWD_REC_VT_LEN);
	size_t roff = FWD_HDR_LEN + hl;
	/* what the record says of itself must agree with what crossed */
	if (r->rec_version > recv || !r->rec_version || r->nfindings != nf || (r->nops < REC_MAX_OPS ? r->nops : REC_MAX_OPS) != no ||
	    r->source != vantage || r->source < REC_SRC_WIRE || r->source > REC_SRC_XDP ||
	    r->transport >= REC_TR_N || (r->vantages & ~REC_VT_ALL) ||
	    r->f_clock > REC_VT_SERVER || (r->f_clock & (r->f_clock - 1))) {
		c.off = roff;
		return fail(&c, off, FWD_ERR_FIELD);
	}
	r->name[REC_NAME_MAX - 1] = 0;
	/* the phases are ours to derive: they must partition the total */
	rec_derive(r);
	return 0;
}
