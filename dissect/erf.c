/* ERF record headers.  We only need the type, the wire length and where
 * the packet starts; the pcap record already gives the timestamp. */
#include <errno.h>

#include "dissect/erf.h"

bool erf_type_is_eth(uint8_t type)
{
	return type == ERF_TYPE_ETH || type == ERF_TYPE_COLOR_ETH ||
	       type == ERF_TYPE_DSM_COLOR_ETH || type == ERF_TYPE_COLOR_HASH_ETH;
}

const char *erf_type_name(uint8_t type)
{
	switch (type) {
	case ERF_TYPE_HDLC_POS:        return "HDLC_POS";
	case ERF_TYPE_ETH:             return "ETH";
	case ERF_TYPE_ATM:             return "ATM";
	case ERF_TYPE_AAL5:            return "AAL5";
	case ERF_TYPE_COLOR_ETH:       return "COLOR_ETH";
	case ERF_TYPE_DSM_COLOR_ETH:   return "DSM_COLOR_ETH";
	case ERF_TYPE_COLOR_HASH_ETH:  return "COLOR_HASH_ETH";
	case ERF_TYPE_INFINIBAND:      return "INFINIBAND";
	case ERF_TYPE_IPV4:            return "IPV4";
	case ERF_TYPE_IPV6:            return "IPV6";
	case ERF_TYPE_RAW_LINK:        return "RAW_LINK";
	case ERF_TYPE_INFINIBAND_LINK: return "INFINIBAND_LINK";
	case ERF_TYPE_META:            return "META";
	case ERF_TYPE_PAD:             return "PAD";
	default:                       return "unknown";
	}
}

int erf_parse(struct cursor *c, struct erf_hdr *h)
{
	size_t start = c->off;

	h->ts = cur_le64(c, "ERF timestamp");
	uint8_t t = cur_u8(c, "ERF type");
	h->flags = cur_u8(c, "ERF flags");
	h->rlen = cur_be16(c, "ERF rlen");
	h->lctr = cur_be16(c, "ERF lctr");
	h->wlen = cur_be16(c, "ERF wlen");
	h->n_ext = 0;
	if (!cur_ok(c))
		return -EBADMSG;
	h->type = t & 0x7f;
	h->ext = t & 0x80;
	if (h->rlen < ERF_HDR_LEN) {
		c->off = start + 10;
		cur_fail(c, CUR_INVALID, "ERF rlen shorter than the header");
		return -EINVAL;
	}
	/* Extension headers: 8 bytes each, bit 7 of the first byte says
	 * another follows.  Bounded by rlen, so a loop cannot run away. */
	bool more = h->ext;
	while (more) {
		uint8_t et = cur_u8(c, "ERF extension header");
		cur_skip(c, 7, "ERF extension header");
		if (!cur_ok(c))
			return -EBADMSG;
		h->n_ext++;
		more = et & 0x80;
		if (c->off - start > h->rlen) {
			c->off -= 8;
			cur_fail(c, CUR_INVALID, "ERF extension headers run past rlen");
			return -EINVAL;
		}
	}
	if (erf_type_is_eth(h->type)) {
		cur_skip(c, 2, "ERF Ethernet pad");
		if (!cur_ok(c))
			return -EBADMSG;
	}
	return 0;
}

uint64_t erf_ts_ns(uint64_t ts)
{
	uint64_t frac = ts & 0xffffffffu;
	return (ts >> 32) * 1000000000ull + ((frac * 1000000000ull) >> 32);
}
