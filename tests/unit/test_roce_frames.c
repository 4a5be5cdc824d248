/* RoCE framing: Ethernet, VLAN/QinQ, IPv4/IPv6 + UDP 4791, RoCEv1, Linux
 * cooked v1/v2, lengths from the headers (not the frame), and bad frames. */
#include <errno.h>

#include "check.h"
#include "dissect/roce.h"
#include "test_transport_frames.h"

static const struct rhost C = { { 0x52, 0x54, 0, 0, 0, 2 }, 0x0a090002, 0xc123 };
static const struct rhost S = { { 0x52, 0x54, 0, 0, 0, 1 }, 0x0a090001, 0xc456 };

static void one_send(struct ibp *p, const uint8_t *pl, size_t n)
{
	ibp_init(p, 0x04, 0x200, 7);
	p->payload = pl;
	p->plen = n;
}

static void test_ipv4(void)
{
	static struct fb b;
	struct ib_frame f;
	struct ibp p;
	uint8_t pl[10] = { 9 };

	one_send(&p, pl, sizeof(pl));
	fb_rocev2(&b, &C, &S, &p);
	struct cursor c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.kind, IBF_ROCE_V2);
	CHECK_EQ_U64(f.family, 4);
	CHECK_EQ_U64(f.sport, 0xc123);
	CHECK_EQ_U64(f.src[3], 2);
	CHECK_EQ_U64(f.dst[3], 1);
	CHECK_EQ_U64(f.ecn, 2);
	CHECK_EQ_U64(f.bth.off, 42);
	CHECK_EQ_U64(f.wire_len, 12 + 12);           /* BTH + 10 + pad 2 */
	CHECK_EQ_U64(f.bth.len, 42 + 24);            /* ICRC cut off */

	/* Ethernet padding and FCS after the UDP datagram change nothing. */
	size_t n0 = b.n;
	fb_zero(&b, 64);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.wire_len, 24);
	b.n = n0;

	/* 802.1Q, then QinQ */
	b.n = 0;
	fb_eth_ipv4_udp(&b, &C, &S, ibp_len(&p) + 4, 100);
	fb_ib_transport(&b, &p);
	fb_be32(&b, 0);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.bth.off, 46);
	uint8_t tmp[256];
	memcpy(tmp, b.b, b.n);
	size_t tn = b.n;
	b.n = 0;
	fb_mem(&b, tmp, 12);
	fb_be16(&b, 0x88a8);
	fb_be16(&b, 7);
	fb_mem(&b, tmp + 12, tn - 12);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.bth.off, 50);

	/* Not RoCE: another UDP port, TCP, ARP, an 802.3 length field, a fragment */
	fb_rocev2(&b, &C, &S, &p);
	fb_put_be16(&b, 36, 2049);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 0);
	fb_rocev2(&b, &C, &S, &p);
	b.b[23] = 6;
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 0);
	fb_rocev2(&b, &C, &S, &p);
	fb_put_be16(&b, 12, 0x0806);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 0);
	fb_put_be16(&b, 12, 0x0100);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 0);
	fb_rocev2(&b, &C, &S, &p);
	fb_put_be16(&b, 20, 0x2001);   /* MF */
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 0);

	/* Bad IPv4: IHL 4, version 5, total length past the frame */
	fb_rocev2(&b, &C, &S, &p);
	b.b[14] = 0x44;
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	CHECK_EQ_STR(f.layer, "ipv4");
	CHECK_EQ_STR(c.err_what, "IPv4 header length < 20");
	CHECK_EQ_U64(c.err_off, 14);
	b.b[14] = 0x55;
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	fb_rocev2(&b, &C, &S, &p);
	fb_put_be16(&b, 16, 1500);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	CHECK_EQ_U64(c.err_off, 16);

	/* Bad UDP length; RoCE payload too short for BTH + ICRC */
	fb_rocev2(&b, &C, &S, &p);
	fb_put_be16(&b, 38, 4);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	CHECK_EQ_STR(f.layer, "udp");
	fb_put_be16(&b, 38, 8 + 10);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	CHECK_EQ_STR(f.layer, "roce");

	/* Truncated inside the IPv4 header */
	c = cur_make(b.b, 20);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);
	CHECK_EQ_STR(c.err_what, "IPv4 fragment offset");
}

static void test_ipv6(void)
{
	static struct fb b;
	struct ib_frame f;
	struct ibp p;
	uint8_t pl[4] = { 1, 2, 3, 4 };

	one_send(&p, pl, 4);
	size_t tl = ibp_len(&p) + 4;
	b.n = 0;
	fb_mem(&b, S.mac, 6);
	fb_mem(&b, C.mac, 6);
	fb_be16(&b, 0x86dd);
	fb_be32(&b, 0x60300000u);       /* ECN bits 3 */
	fb_be16(&b, (uint16_t)(8 + 8 + tl));
	fb_u8(&b, 0);                   /* hop-by-hop first */
	fb_u8(&b, 64);
	fb_zero(&b, 15); fb_u8(&b, 2);
	fb_zero(&b, 15); fb_u8(&b, 1);
	fb_u8(&b, 17); fb_u8(&b, 0); fb_zero(&b, 6);   /* HBH: next UDP, 8 bytes */
	fb_be16(&b, 0xc999); fb_be16(&b, 4791); fb_be16(&b, (uint16_t)(8 + tl)); fb_be16(&b, 0);
	fb_ib_transport(&b, &p);
	fb_be32(&b, 0);
	struct cursor c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.family, 6);
	CHECK_EQ_U64(f.src[15], 2);
	CHECK_EQ_U64(f.sport, 0xc999);
	CHECK_EQ_U64(f.ecn, 3);
	CHECK_EQ_U64(f.wire_len, 16);
	CHECK_EQ_U64(f.bth.off, 14 + 40 + 8 + 8);

	/* payload length past the frame */
	fb_put_be16(&b, 18, 4000);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	CHECK_EQ_STR(f.layer, "ipv6");
}

static void test_v1_and_cooked(void)
{
	static struct fb b;
	struct ib_frame f;
	struct ibp p;
	uint8_t pl[8] = { 0 };
	uint8_t sg[16] = { 0xfe, 0x80, [15] = 2 }, dg[16] = { 0xfe, 0x80, [15] = 1 };

	/* RoCEv1: Ethertype 0x8915, GRH, BTH, ICRC */
	one_send(&p, pl, 8);
	b.n = 0;
	fb_mem(&b, S.mac, 6);
	fb_mem(&b, C.mac, 6);
	fb_be16(&b, 0x8915);
	fb_be32(&b, 0x60000000u);
	fb_be16(&b, (uint16_t)(ibp_len(&p) + 4));
	fb_u8(&b, 0x1b);
	fb_u8(&b, 1);
	fb_mem(&b, sg, 16);
	fb_mem(&b, dg, 16);
	fb_ib_transport(&b, &p);
	fb_be32(&b, 0);
	struct cursor c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.kind, IBF_ROCE_V1);
	CHECK_EQ_U64(f.family, 'G');
	CHECK_EQ_U64(f.src[15], 2);
	CHECK_EQ_U64(f.bth.off, 54);
	CHECK_EQ_U64(f.wire_len, 20);
	fb_put_be16(&b, 18, 2);       /* PayLen too short */
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_eth(&c, b.n, &f), (uint64_t)-EINVAL);
	CHECK_EQ_STR(f.layer, "roce");

	/* SLL and SLL2 carrying the same IPv4 RoCEv2 packet */
	static struct fb r;
	fb_rocev2(&r, &C, &S, &p);
	b.n = 0;
	fb_be16(&b, 4); fb_be16(&b, 1); fb_be16(&b, 6); fb_mem(&b, C.mac, 6); fb_zero(&b, 2);
	fb_be16(&b, 0x0800);
	fb_mem(&b, r.b + 14, r.n - 14);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_sll(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.bth.off, 16 + 28);
	b.n = 0;
	fb_be16(&b, 0x0800); fb_be16(&b, 0); fb_be32(&b, 3); fb_be16(&b, 1); fb_u8(&b, 4); fb_u8(&b, 6);
	fb_mem(&b, C.mac, 6); fb_zero(&b, 2);
	fb_mem(&b, r.b + 14, r.n - 14);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(roce_parse_sll2(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.bth.off, 20 + 28);
	c = cur_make(b.b, 12);
	CHECK_EQ_U64(roce_parse_sll2(&c, b.n, &f), (uint64_t)-EBADMSG);

	/* Bare IP */
	c = cur_make(r.b + 14, r.n - 14);
	CHECK_EQ_U64(roce_parse_ip(&c, r.n - 14, &f), 1);
	c = cur_make(r.b, 0);
	CHECK_EQ_U64(roce_parse_ip(&c, 0, &f), (uint64_t)-EBADMSG);
}

int main(void)
{
	test_ipv4();
	test_ipv6();
	test_v1_and_cooked();
	return check_summary("test_roce_frames");
}
