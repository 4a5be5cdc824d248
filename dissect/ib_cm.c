/* CM MAD decoding.  Offsets are from IBA vol. 1 section 12.6 (message
 * layouts); the rdma_cm header is librdmacm's struct cma_hdr. */
#include <errno.h>
#include <string.h>

#include "dissect/ib.h"
#include "dissect/ib_cm.h"

const char *ib_cm_attr_name(uint16_t attr)
{
	switch (attr) {
	case CM_ATTR_CLASSPORTINFO: return "ClassPortInfo";
	case CM_ATTR_REQ:  return "REQ";
	case CM_ATTR_MRA:  return "MRA";
	case CM_ATTR_REJ:  return "REJ";
	case CM_ATTR_REP:  return "REP";
	case CM_ATTR_RTU:  return "RTU";
	case CM_ATTR_DREQ: return "DREQ";
	case CM_ATTR_DREP: return "DREP";
	case CM_ATTR_SIDR_REQ: return "SIDR_REQ";
	case CM_ATTR_SIDR_REP: return "SIDR_REP";
	case CM_ATTR_LAP:  return "LAP";
	case CM_ATTR_APR:  return "APR";
	default:           return "unknown";
	}
}

bool ib_cm_rpcrdma_params(const uint8_t *priv, size_t len, struct cm_msg *m)
{
	struct cursor c = cur_make(priv, priv ? len : 0);
	uint32_t magic = cur_be32(&c, "cp_magic");
	uint8_t ver = cur_u8(&c, "cp_version");
	uint8_t flags = cur_u8(&c, "cp_flags");
	uint8_t ss = cur_u8(&c, "cp_send_size");
	uint8_t rs = cur_u8(&c, "cp_recv_size");
	if (!cur_ok(&c) || magic != RPCRDMA_CM_MAGIC)
		return false;
	m->has_rpcrdma = true;
	m->rr_version = ver;
	m->rr_flags = flags;
	/* RFC 8797 section 4.1: encoded as (size >> 10) - 1. */
	m->rr_send_size = ((uint32_t)ss + 1) << 10;
	m->rr_recv_size = ((uint32_t)rs + 1) << 10;
	return true;
}

/* Private data runs from its offset to the end of the 232-byte MAD data;
 * take what was captured. */
static void set_priv(struct cursor *d, size_t base, size_t rel, struct cm_msg *m)
{
	if (!cur_seek(d, base + rel, "CM private data"))
		return;
	size_t n = cur_left(d);
	size_t max = MAD_LEN - MAD_HDR_LEN - rel;
	if (n > max)
		n = max;
	m->priv_off = d->off;
	m->priv_len = n;
	m->priv = n ? cur_bytes(d, n, "CM private data") : NULL;
}

static void parse_req(struct cursor *d, size_t base, struct cm_msg *m)
{
	cur_seek(d, base + 8, "REQ ServiceID");
	m->service_id = cur_be64(d, "REQ ServiceID");
	cur_seek(d, base + 32, "REQ local QPN");
	m->local_qpn = cur_be24(d, "REQ local QPN");
	cur_seek(d, base + 44, "REQ starting PSN");
	m->start_psn = cur_be24(d, "REQ starting PSN");
	cur_seek(d, base + 50, "REQ path MTU");
	m->path_mtu = cur_u8(d, "REQ path MTU") >> 4;
	cur_seek(d, base + 52, "REQ primary local LID");
	m->prim_local_lid = cur_be16(d, "REQ primary local LID");
	m->prim_remote_lid = cur_be16(d, "REQ primary remote LID");
	const uint8_t *lg = cur_bytes(d, 16, "REQ primary local GID");
	const uint8_t *rg = cur_bytes(d, 16, "REQ primary remote GID");
	if (lg)
		memcpy(m->prim_local_gid, lg, 16);
	if (rg)
		memcpy(m->prim_remote_gid, rg, 16);
	if (!cur_ok(d))
		return;
	set_priv(d, base, 140, m);

	/* IP-based service IDs (0x0000000001 << 24 | proto << 16 | port) put
	 * the rdma_cm header first: version 0, IP version in the high nibble,
	 * source port, then source and destination as 16-byte addresses with
	 * IPv4 in the last 4 bytes. */
	if ((m->service_id >> 24) == 1 && m->priv_len >= CMA_HDR_LEN) {
		struct cursor h = cur_make(m->priv, m->priv_len);
		uint8_t ver = cur_u8(&h, "cma version");
		uint8_t ipv = cur_u8(&h, "cma ip version") >> 4;
		uint16_t port = cur_be16(&h, "cma port");
		const uint8_t *s = cur_bytes(&h, 16, "cma src");
		const uint8_t *t = cur_bytes(&h, 16, "cma dst");
		if (cur_ok(&h) && ver == 0 && (ipv == 4 || ipv == 6)) {
			m->has_cma_hdr = true;
			m->cma_ipver = ipv;
			m->cma_sport = port;
			memset(m->cma_src, 0, 16);
			memset(m->cma_dst, 0, 16);
			if (ipv == 4) {
				memcpy(m->cma_src, s + 12, 4);
				memcpy(m->cma_dst, t + 12, 4);
			} else {
				memcpy(m->cma_src, s, 16);
				memcpy(m->cma_dst, t, 16);
			}
			m->priv_len -= CMA_HDR_LEN;
			m->priv = m->priv_len ? cur_ptr(&h) : NULL;
			m->priv_off += CMA_HDR_LEN;
		}
	}
}

int ib_cm_parse(struct cursor *c, struct cm_msg *m)
{
	memset(m, 0, sizeof(*m));
	cur_u8(c, "MAD base version");
	m->mgmt_class = cur_u8(c, "MAD management class");
	m->class_version = cur_u8(c, "MAD class version");
	m->method = cur_u8(c, "MAD method");
	cur_skip(c, 4, "MAD status");
	m->tid = cur_be64(c, "MAD transaction ID");
	m->attr = cur_be16(c, "MAD attribute ID");
	cur_skip(c, 6, "MAD attribute modifier");
	if (!cur_ok(c))
		return -EBADMSG;
	if (m->mgmt_class != MAD_CLASS_CM)
		return 0;

	size_t base = c->off;   /* MAD data, 232 bytes */
	m->local_comm_id = cur_be32(c, "CM local comm ID");
	switch (m->attr) {
	case CM_ATTR_REQ:
		parse_req(c, base, m);
		break;
	case CM_ATTR_REP:
		m->remote_comm_id = cur_be32(c, "REP remote comm ID");
		cur_seek(c, base + 12, "REP local QPN");
		m->local_qpn = cur_be24(c, "REP local QPN");
		cur_seek(c, base + 20, "REP starting PSN");
		m->start_psn = cur_be24(c, "REP starting PSN");
		if (cur_ok(c))
			set_priv(c, base, 36, m);
		break;
	case CM_ATTR_RTU:
	case CM_ATTR_DREP:
		m->remote_comm_id = cur_be32(c, "CM remote comm ID");
		if (cur_ok(c))
			set_priv(c, base, 8, m);
		break;
	case CM_ATTR_DREQ:
		m->remote_comm_id = cur_be32(c, "DREQ remote comm ID");
		m->remote_qpn = cur_be24(c, "DREQ remote QPN");
		if (cur_ok(c))
			set_priv(c, base, 12, m);
		break;
	case CM_ATTR_REJ:
		m->remote_comm_id = cur_be32(c, "REJ remote comm ID");
		cur_seek(c, base + 10, "REJ reason");
		m->rej_reason = cur_be16(c, "REJ reason");
		if (cur_ok(c))
			set_priv(c, base, 84, m);
		break;
	case CM_ATTR_MRA:
		m->remote_comm_id = cur_be32(c, "MRA remote comm ID");
		break;
	default:
		break;
	}
	if (!cur_ok(c))
		return -EBADMSG;
	if (m->attr == CM_ATTR_REQ || m->attr == CM_ATTR_REP)
		ib_cm_rpcrdma_params(m->priv, m->priv_len, m);
	return 1;
}
