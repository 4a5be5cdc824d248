/* Link and network layers down to the BTH for RoCEv1 and RoCEv2.  Lengths
 * come from the IP/UDP/GRH headers, never from the frame size, so Ethernet
 * padding and FCS bytes are not mistaken for payload, and the ICRC (last 4
 * bytes of the UDP payload / GRH payload) is cut off here. */
#include <errno.h>
#include <string.h>

#include "dissect/roce.h"

/* Bytes of the frame left on the wire after the cursor. */
static size_t wire_left(const struct cursor *c, size_t wirelen)
{
	return wirelen > c->off ? wirelen - c->off : 0;
}

static int invalid(struct cursor *c, size_t off, const char *what)
{
	c->off = off;
	cur_fail(c, CUR_INVALID, what);
	return -EINVAL;
}

/* RoCEv2 after the UDP header: the IB part ends 4 bytes (ICRC) before the
 * end of the UDP payload. */
static int udp_roce(struct cursor *c, size_t udp_payload, struct ib_frame *f)
{
	f->layer = "roce";
	if (udp_payload < (size_t)IB_BTH_LEN + f->icrc_len)
		return invalid(c, c->off, f->icrc_len ? "RoCEv2 UDP payload shorter than BTH + ICRC"
						      : "RoCEv2 UDP payload shorter than BTH");
	f->kind = IBF_ROCE_V2;
	f->wire_len = udp_payload - f->icrc_len;
	cur_clip_into(&f->bth, c, f->wire_len);
	return 1;
}

static int parse_udp(struct cursor *c, size_t ip_payload, struct ib_frame *f)
{
	size_t start = c->off;

	f->layer = "udp";
	f->sport = cur_be16(c, "UDP source port");
	uint16_t dport = cur_be16(c, "UDP destination port");
	uint16_t len = cur_be16(c, "UDP length");
	cur_skip(c, 2, "UDP checksum");
	if (!cur_ok(c))
		return -EBADMSG;
	if (dport != ROCE_V2_UDP_PORT)
		return 0;
	if (len < 8 || len > ip_payload)
		return invalid(c, start + 4, "UDP length outside the IP payload");
	return udp_roce(c, (size_t)len - 8, f);
}

static int parse_ipv4(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	size_t start = c->off;

	f->layer = "ipv4";
	f->net_off = start;
	f->ip_ver = 4;
	uint8_t vihl = cur_u8(c, "IPv4 version/IHL");
	uint8_t tos = cur_u8(c, "IPv4 TOS");
	uint16_t tot = cur_be16(c, "IPv4 total length");
	cur_skip(c, 2, "IPv4 identification");
	uint16_t frag = cur_be16(c, "IPv4 fragment offset");
	cur_skip(c, 1, "IPv4 TTL");
	uint8_t proto = cur_u8(c, "IPv4 protocol");
	cur_skip(c, 2, "IPv4 checksum");
	const uint8_t *src = cur_bytes(c, 4, "IPv4 source");
	const uint8_t *dst = cur_bytes(c, 4, "IPv4 destination");
	if (!cur_ok(c))
		return -EBADMSG;
	size_t ihl = (size_t)(vihl & 0xf) * 4;
	if ((vihl >> 4) != 4)
		return invalid(c, start, "IPv4 version is not 4");
	if (ihl < 20)
		return invalid(c, start, "IPv4 header length < 20");
	if (tot < ihl || tot > wire_left(c, wirelen) + (c->off - start))
		return invalid(c, start + 2, "IPv4 total length outside the frame");
	if (!cur_skip(c, ihl - 20, "IPv4 options"))
		return -EBADMSG;
	if (proto != 17 || (frag & 0x3fff))   /* not UDP, or a fragment */
		return 0;
	memset(f->src, 0, sizeof(f->src));
	memset(f->dst, 0, sizeof(f->dst));
	memcpy(f->src, src, 4);
	memcpy(f->dst, dst, 4);
	f->family = 4;
	f->ecn = tos & 3;
	return parse_udp(c, tot - ihl, f);
}

static int parse_ipv6(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	size_t start = c->off;

	f->layer = "ipv6";
	f->net_off = start;
	f->ip_ver = 6;
	uint32_t w0 = cur_be32(c, "IPv6 version/class/flow");
	uint16_t plen = cur_be16(c, "IPv6 payload length");
	uint8_t nh = cur_u8(c, "IPv6 next header");
	cur_skip(c, 1, "IPv6 hop limit");
	const uint8_t *src = cur_bytes(c, 16, "IPv6 source");
	const uint8_t *dst = cur_bytes(c, 16, "IPv6 destination");
	if (!cur_ok(c))
		return -EBADMSG;
	if ((w0 >> 28) != 6)
		return invalid(c, start, "IPv6 version is not 6");
	if (plen > wire_left(c, wirelen))
		return invalid(c, start + 4, "IPv6 payload length outside the frame");
	size_t left = plen;
	/* Hop-by-hop, routing and destination options may precede UDP. */
	for (int i = 0; i < 8 && (nh == 0 || nh == 43 || nh == 60); i++) {
		size_t eh = c->off;
		nh = cur_u8(c, "IPv6 extension header");
		size_t len = ((size_t)cur_u8(c, "IPv6 extension header") + 1) * 8;
		if (!cur_ok(c))
			return -EBADMSG;
		if (len > left)
			return invalid(c, eh + 1, "IPv6 extension header outside the payload");
		if (!cur_skip(c, len - 2, "IPv6 extension header"))
			return -EBADMSG;
		left -= len;
	}
	if (nh != 17)
		return 0;
	memcpy(f->src, src, 16);
	memcpy(f->dst, dst, 16);
	f->family = 6;
	f->ecn = (uint8_t)((w0 >> 20) & 3);
	return parse_udp(c, left, f);
}

static int roce_parse_ip_impl(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	f->layer = "ip";
	struct cursor peek = *c;   /* the IPv4/IPv6 parsers reread the byte */
	uint8_t v = cur_u8(&peek, "IP version") >> 4;
	if (!cur_ok(&peek)) {
		*c = peek;
		return -EBADMSG;
	}
	if (v == 4)
		return parse_ipv4(c, wirelen, f);
	if (v == 6)
		return parse_ipv6(c, wirelen, f);
	return 0;
}

/* RoCEv1: a GRH straight after the Ethertype, PayLen covering BTH..ICRC. */
static int parse_roce_v1(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	struct ib_grh g;
	size_t start = c->off;

	f->layer = "roce";
	f->net_off = start;
	if (ib_parse_grh(c, &g) < 0)
		return -EBADMSG;
	if (g.nxthdr != 0x1b)
		return invalid(c, start + 6, "RoCEv1 GRH NxtHdr is not 0x1B (IBA transport)");
	if (g.paylen < (size_t)IB_BTH_LEN + f->icrc_len || g.paylen > wire_left(c, wirelen))
		return invalid(c, start + 4, "RoCEv1 GRH PayLen outside the frame");
	memcpy(f->src, g.sgid, 16);
	memcpy(f->dst, g.dgid, 16);
	f->family = 'G';
	f->kind = IBF_ROCE_V1;
	f->sport = 0;
	f->ecn = g.tclass & 3;
	f->wire_len = (size_t)g.paylen - f->icrc_len;
	cur_clip_into(&f->bth, c, f->wire_len);
	return 1;
}

static int roce_parse_ethertype_impl(struct cursor *c, uint16_t etype, size_t wirelen, struct ib_frame *f)
{
	/* Up to two (QinQ) or a few more stacked tags. */
	for (int i = 0; i < 4 && (etype == ETHERTYPE_VLAN || etype == ETHERTYPE_QINQ ||
				  etype == ETHERTYPE_QINQ_OLD); i++) {
		f->layer = "vlan";
		cur_skip(c, 2, "VLAN tag");
		etype = cur_be16(c, "VLAN Ethertype");
		if (!cur_ok(c))
			return -EBADMSG;
	}
	f->slid = f->dlid = 0;
	f->has_grh = false;
	switch (etype) {
	case ETHERTYPE_IPV4:
	case ETHERTYPE_IPV6:
		/* The Ethertype, not the nibble, says which IP it is. */
		return etype == ETHERTYPE_IPV4 ? parse_ipv4(c, wirelen, f) : parse_ipv6(c, wirelen, f);
	case ETHERTYPE_ROCE:
		return parse_roce_v1(c, wirelen, f);
	default:
		return 0;
	}
}

static int roce_parse_eth_impl(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	f->layer = "eth";
	cur_skip(c, 12, "Ethernet addresses");
	uint16_t etype = cur_be16(c, "Ethertype");
	if (!cur_ok(c))
		return -EBADMSG;
	if (etype < 0x600)   /* 802.3 length: LLC, never RoCE */
		return 0;
	return roce_parse_ethertype_impl(c, etype, wirelen, f);
}

/* Linux cooked v1: pkttype, ARPHRD type, address length, 8 address bytes,
 * protocol (an Ethertype). */
static int roce_parse_sll_impl(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	f->layer = "sll";
	cur_skip(c, 14, "SLL header");
	uint16_t proto = cur_be16(c, "SLL protocol");
	if (!cur_ok(c))
		return -EBADMSG;
	return roce_parse_ethertype_impl(c, proto, wirelen, f);
}

/* Linux cooked v2: protocol first, then reserved, ifindex, ARPHRD type,
 * pkttype, address length and 8 address bytes (20 bytes). */
static int roce_parse_sll2_impl(struct cursor *c, size_t wirelen, struct ib_frame *f)
{
	f->layer = "sll2";
	uint16_t proto = cur_be16(c, "SLL2 protocol");
	cur_skip(c, 18, "SLL2 header");
	if (!cur_ok(c))
		return -EBADMSG;
	return roce_parse_ethertype_impl(c, proto, wirelen, f);
}

/* ---- public entry points ----------------------------------------------- */

#define ENTRY(name, ...)                                                          \
	int name(struct cursor *c, size_t wirelen, struct ib_frame *f)             \
	{                                                                         \
		f->icrc_len = IB_ICRC_LEN;                                        \
		return name##_impl(c, __VA_ARGS__);                               \
	}                                                                         \
	int name##_icrc(struct cursor *c, size_t wirelen, struct ib_frame *f, uint8_t icrc_len) \
	{                                                                         \
		f->icrc_len = icrc_len;                                           \
		return name##_impl(c, __VA_ARGS__);                               \
	}
ENTRY(roce_parse_eth, wirelen, f)
ENTRY(roce_parse_sll, wirelen, f)
ENTRY(roce_parse_sll2, wirelen, f)
ENTRY(roce_parse_ip, wirelen, f)

int roce_parse_ethertype(struct cursor *c, uint16_t etype, size_t wirelen, struct ib_frame *f)
{
	f->icrc_len = IB_ICRC_LEN;
	return roce_parse_ethertype_impl(c, etype, wirelen, f);
}

/* ---- ICRC ------------------------------------------------------------ */

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

/* CRC-32 (the Ethernet one), running: start with ~0, finish with ~. */
static uint32_t crc_run(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

bool roce_icrc_matches(const uint8_t *frame, size_t caplen, const struct ib_frame *f)
{
	uint8_t m[8 + 40 + 8 + IB_BTH_LEN];
	size_t bth = f->bth.off, end = bth + f->wire_len, net = f->net_off, n = 8;

	if ((f->kind != IBF_ROCE_V2 && f->kind != IBF_ROCE_V1) || f->icrc_len != IB_ICRC_LEN ||
	    end + IB_ICRC_LEN > caplen || bth < net || f->wire_len < IB_BTH_LEN)
		return false;
	if (!crc_table[1])
		crc_init();
	/* The LRH a RoCE packet lacks counts as 8 bytes of ones; the fields
	 * routers may change are ones too (IBA A16/A17, rxe_icrc.c). */
	memset(m, 0xff, 8);
	size_t hl = bth - net;          /* IP + UDP headers, or the GRH */
	if (hl > 48)
		return false;           /* IPv4 options / IPv6 extension headers: not checked */
	memcpy(m + 8, frame + net, hl);
	uint8_t *h = m + 8;
	if (f->kind == IBF_ROCE_V2 && (h[0] >> 4) == 4) {
		if (hl != 28)
			return false;
		h[1] = 0xff;                       /* TOS */
		h[8] = 0xff;                       /* TTL */
		h[10] = h[11] = 0xff;              /* header checksum */
		h[26] = h[27] = 0xff;              /* UDP checksum */
	} else {
		h[0] |= 0x0f;                      /* traffic class, flow label */
		h[1] = h[2] = h[3] = 0xff;
		h[7] = 0xff;                       /* hop limit */
		if (f->kind == IBF_ROCE_V2) {
			if (hl != 48)
				return false;
			h[46] = h[47] = 0xff;      /* UDP checksum */
		} else if (hl != 40) {
			return false;
		}
	}
	n += hl;
	memcpy(m + n, frame + bth, IB_BTH_LEN);
	m[n + 4] = 0xff;                           /* BTH resv8a */
	n += IB_BTH_LEN;
	uint32_t c = crc_run(0xffffffffu, m, n);
	c = ~crc_run(c, frame + bth + IB_BTH_LEN, f->wire_len - IB_BTH_LEN);
	const uint8_t *ic = frame + end;
	return ic[0] == (uint8_t)c && ic[1] == (uint8_t)(c >> 8) && ic[2] == (uint8_t)(c >> 16) &&
	       ic[3] == (uint8_t)(c >> 24);
}
