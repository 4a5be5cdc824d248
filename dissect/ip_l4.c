/* IPv4 / IPv6 -> TCP / UDP (see ip_l4.h). */
#include "dissect/ip_l4.h"

#include <errno.h>
#include <string.h>

static int invalid(struct cursor *c, size_t off, const char *what)
{
	c->off = off;
	cur_fail(c, CUR_INVALID, what);
	return -EINVAL;
}

static void payload(struct cursor *c, size_t wire, struct l4_pkt *p)
{
	size_t cap = cur_left(c);

	p->off = c->off;
	p->payload = cur_ptr(c);
	p->wire_len = wire;
	p->cap_len = cap < wire ? cap : wire;
}

int ip_l4_udp(struct cursor *c, size_t ip_payload, struct l4_pkt *p)
{
	size_t start = c->off;

	p->sport = cur_be16(c, "UDP source port");
	p->dport = cur_be16(c, "UDP destination port");
	uint16_t len = cur_be16(c, "UDP length");
	cur_skip(c, 2, "UDP checksum");
	if (!cur_ok(c))
		return -EBADMSG;
	/* 0: a jumbogram's (RFC 2675); otherwise it must fit the IP payload */
	if (len == 0)
		len = ip_payload > 0xffff ? 0xffff : (uint16_t)ip_payload;
	if (len < 8 || len > ip_payload)
		return invalid(c, start + 4, "UDP length outside the IP payload");
	payload(c, (size_t)len - 8, p);
	return 1;
}

static int tcp(struct cursor *c, size_t ip_payload, struct l4_pkt *p)
{
	size_t start = c->off;

	p->sport = cur_be16(c, "TCP source port");
	p->dport = cur_be16(c, "TCP destination port");
	p->seq = cur_be32(c, "TCP sequence number");
	p->ack = cur_be32(c, "TCP acknowledgment number");
	uint8_t doff = cur_u8(c, "TCP data offset");
	p->tcp_flags = cur_u8(c, "TCP flags");
	cur_skip(c, 6, "TCP window, checksum, urgent pointer");
	if (!cur_ok(c))
		return -EBADMSG;
	size_t hl = (size_t)(doff >> 4) * 4;
	if (hl < 20 || hl > ip_payload)
		return invalid(c, start + 12, "TCP data offset outside the segment");
	if (!cur_skip(c, hl - 20, "TCP options"))
		return -EBADMSG;
	payload(c, ip_payload - hl, p);
	return 1;
}

static int l4(struct cursor *c, size_t ip_payload, struct l4_pkt *p)
{
	if (p->frag) {
		payload(c, ip_payload, p);
		return 1;
	}
	if (p->proto == IPPROTO_TCP_NUM)
		return tcp(c, ip_payload, p);
	return ip_l4_udp(c, ip_payload, p);
}

static int ipv4(struct cursor *c, size_t wirelen, struct l4_pkt *p)
{
	size_t start = c->off;
	uint8_t vihl = cur_u8(c, "IPv4 version/IHL");
	cur_skip(c, 1, "IPv4 TOS");
	uint16_t tot = cur_be16(c, "IPv4 total length");
	uint16_t id = cur_be16(c, "IPv4 identification");
	uint16_t frag = cur_be16(c, "IPv4 fragment offset");
	cur_skip(c, 1, "IPv4 TTL");
	p->proto = cur_u8(c, "IPv4 protocol");
	cur_skip(c, 2, "IPv4 checksum");
	const uint8_t *src = cur_bytes(c, 4, "IPv4 source");
	const uint8_t *dst = cur_bytes(c, 4, "IPv4 destination");
	if (!cur_ok(c))
		return -EBADMSG;
	size_t ihl = (size_t)(vihl & 0xf) * 4;
	if (ihl < 20)
		return invalid(c, start, "IPv4 header length < 20");
	if (tot < ihl || tot > wirelen - start)
		return invalid(c, start + 2, "IPv4 total length outside the frame");
	if (p->proto != IPPROTO_TCP_NUM && p->proto != IPPROTO_UDP_NUM)
		return 0;
	if (!cur_skip(c, ihl - 20, "IPv4 options"))
		return -EBADMSG;
	p->family = 4;
	memcpy(p->src, src, 4);
	memcpy(p->dst, dst, 4);
	p->frag_more = frag & 0x2000;
	p->frag_off = (uint32_t)(frag & 0x1fff) * 8;
	p->frag = p->frag_more || p->frag_off;
	p->frag_id = id;
	return l4(c, tot - ihl, p);
}

static int ipv6(struct cursor *c, size_t wirelen, struct l4_pkt *p)
{
	size_t start = c->off;

	cur_skip(c, 4, "IPv6 version/class/flow");
	uint16_t plen = cur_be16(c, "IPv6 payload length");
	uint8_t nh = cur_u8(c, "IPv6 next header");
	cur_skip(c, 1, "IPv6 hop limit");
	const uint8_t *src = cur_bytes(c, 16, "IPv6 source");
	const uint8_t *dst = cur_bytes(c, 16, "IPv6 destination");
	if (!cur_ok(c))
		return -EBADMSG;
	if (plen > wirelen - c->off)
		return invalid(c, start + 4, "IPv6 payload length outside the frame");
	size_t left = plen;
	/* hop-by-hop, routing, fragment and destination options */
	for (int i = 0; i < 8 && (nh == 0 || nh == 43 || nh == 44 || nh == 60); i++) {
		size_t eh = c->off;
		uint8_t next = cur_u8(c, "IPv6 extension header");
		size_t len = ((size_t)cur_u8(c, "IPv6 extension header") + 1) * 8;
		if (nh == 44) {
			len = 8;
			c->off = eh + 2;
			uint16_t fo = cur_be16(c, "IPv6 fragment offset");
			p->frag_id = cur_be32(c, "IPv6 fragment identification");
			p->frag_more = fo & 1;
			p->frag_off = fo & 0xfff8;
			p->frag = p->frag_more || p->frag_off;
			c->off = eh + 2;
		}
		if (!cur_ok(c))
			return -EBADMSG;
		if (len > left)
			return invalid(c, eh + 1, "IPv6 extension header outside the payload");
		if (!cur_skip(c, len - 2, "IPv6 extension header"))
			return -EBADMSG;
		left -= len;
		nh = next;
	}
	if (nh != IPPROTO_TCP_NUM && nh != IPPROTO_UDP_NUM)
		return 0;
	p->proto = nh;
	p->family = 6;
	memcpy(p->src, src, 16);
	memcpy(p->dst, dst, 16);
	return l4(c, left, p);
}

int ip_l4_parse(struct cursor *c, size_t wirelen, struct l4_pkt *p)
{
	memset(p, 0, sizeof(*p));
	struct cursor peek = *c;
	uint8_t v = cur_u8(&peek, "IP version") >> 4;
	if (!cur_ok(&peek)) {
		*c = peek;
		return -EBADMSG;
	}
	if (wirelen < c->off)
		wirelen = c->off;
	if (v == 4)
		return ipv4(c, wirelen, p);
	if (v == 6)
		return ipv6(c, wirelen, p);
	return 0;
}
