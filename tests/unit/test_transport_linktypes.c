/* The same RC conversation through every framing the transport accepts:
 * RoCEv2 (plain, VLAN, Linux SLL, SLL2, inside ERF type 2), RoCEv1, native
 * IB (DLT_INFINIBAND with and without GRH, ERF type 21 with an extension
 * header) must give identical messages.  Also: unsupported link types. */
#include <errno.h>

#include "check.h"
#include "dissect/erf.h"
#include "test_transport_frames.h"

static const struct rhost C = { { 0x52, 0x54, 0, 0, 0, 2 }, 0x0a090002, 0xc002 };
static const struct rhost S = { { 0x52, 0x54, 0, 0, 0, 1 }, 0x0a090001, 0xc001 };
static const uint8_t GC[16] = { 0xfe, 0x80, [15] = 2 }, GS[16] = { 0xfe, 0x80, [15] = 1 };

enum enc { E_ROCE2, E_VLAN, E_SLL, E_SLL2, E_ERF_ETH, E_ROCE1, E_IB, E_IB_GRH, E_ERF_IB, E_N };
static const char *const enc_name[E_N] = {
	"RoCEv2", "RoCEv2 VLAN", "SLL", "SLL2", "ERF Ethernet", "RoCEv1", "IB LRH", "IB LRH+GRH", "ERF IB",
};
static const int enc_link[E_N] = {
	LINKTYPE_ETHERNET, LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2, LINKTYPE_ERF,
	LINKTYPE_ETHERNET, LINKTYPE_INFINIBAND, LINKTYPE_INFINIBAND, LINKTYPE_ERF,
};

static struct th h;
static struct fb b;
static uint8_t big[8192];

static void frame(enum enc e, bool from_client, const struct ibp *p)
{
	const struct rhost *s = from_client ? &C : &S, *d = from_client ? &S : &C;
	static struct fb tmp;
	switch (e) {
	case E_ROCE2:
		fb_rocev2(&b, s, d, p);
		break;
	case E_VLAN:
		b.n = 0;
		fb_eth_ipv4_udp(&b, s, d, ibp_len(p) + 4, 42);
		fb_ib_transport(&b, p);
		fb_be32(&b, 0);
		break;
	case E_SLL:
	case E_SLL2:
		fb_rocev2(&tmp, s, d, p);
		b.n = 0;
		if (e == E_SLL) {
			fb_be16(&b, 0); fb_be16(&b, 1); fb_be16(&b, 6); fb_mem(&b, s->mac, 6); fb_zero(&b, 2);
			fb_be16(&b, 0x0800);
		} else {
			fb_be16(&b, 0x0800); fb_be16(&b, 0); fb_be32(&b, 2); fb_be16(&b, 1); fb_u8(&b, 0);
			fb_u8(&b, 6); fb_mem(&b, s->mac, 6); fb_zero(&b, 2);
		}
		fb_mem(&b, tmp.b + 14, tmp.n - 14);
		break;
	case E_ERF_ETH:
		fb_rocev2(&b, s, d, p);
		fb_be32(&b, 0x11111111);     /* Ethernet FCS, counted in wlen */
		{
			uint8_t t2[9216];
			size_t n = b.n;
			memcpy(t2, b.b, n);
			b.n = 0;
			fb_mem(&b, t2, n);
			fb_erf_wrap(&b, ERF_TYPE_ETH, false);
			/* fb_erf_wrap puts the frame right after the header; make
			 * room for the 2-byte Ethernet pad ERF requires. */
			memmove(b.b + 18, b.b + 16, b.n - 16);
			b.b[16] = b.b[17] = 0;
			b.n += 2;
		}
		break;
	case E_ROCE1:
		b.n = 0;
		fb_mem(&b, d->mac, 6);
		fb_mem(&b, s->mac, 6);
		fb_be16(&b, 0x8915);
		fb_be32(&b, 0x60000000u);
		fb_be16(&b, (uint16_t)(ibp_len(p) + 4));
		fb_u8(&b, 0x1b);
		fb_u8(&b, 1);
		fb_mem(&b, from_client ? GC : GS, 16);
		fb_mem(&b, from_client ? GS : GC, 16);
		fb_ib_transport(&b, p);
		fb_be32(&b, 0);
		break;
	case E_IB:
		fb_ib(&b, from_client ? 2 : 1, from_client ? 1 : 2, NULL, NULL, p);
		break;
	case E_IB_GRH:
		fb_ib(&b, from_client ? 2 : 1, from_client ? 1 : 2, from_client ? GC : GS, from_client ? GS : GC, p);
		break;
	case E_ERF_IB:
		fb_ib(&b, from_client ? 2 : 1, from_client ? 1 : 2, NULL, NULL, p);
		fb_erf_wrap(&b, ERF_TYPE_INFINIBAND, true);
		break;
	default:
		break;
	}
	th_feed(&h, &b);
}

/* The conversation: a 2500-byte call SEND, its ACK, a 3000-byte WRITE by
 * the server, a 3000-byte READ by the server, the reply SEND with
 * Invalidate. */
static void conversation(enum enc e)
{
	struct ibp p;
	uint32_t cpsn = 100, spsn = 900;
	static const uint8_t sops[] = { 0x00, 0x01, 0x02 }, wops[] = { 0x06, 0x07, 0x08 };
	static const uint8_t rops[] = { 0x0d, 0x0e, 0x0f };
	for (int i = 0; i < 3; i++) {
		ibp_init(&p, sops[i], 0x200, cpsn++);
		p.payload = big + i * 1024;
		p.plen = i < 2 ? 1024 : 452;
		frame(e, true, &p);
	}
	ibp_init(&p, 0x11, 0x100, cpsn - 1);
	ibp_aeth(&p, 0x1f, 1);
	frame(e, false, &p);
	for (int i = 0; i < 3; i++) {
		ibp_init(&p, wops[i], 0x100, spsn++);
		if (i == 0)
			ibp_reth(&p, 0xabc000, 0x1234, 3000);
		p.payload = big + 100 + i * 1024;
		p.plen = i < 2 ? 1024 : 952;
		frame(e, false, &p);
	}
	ibp_init(&p, 0x0c, 0x100, spsn);
	ibp_reth(&p, 0xdef000, 0x5678, 3000);
	frame(e, false, &p);
	for (int i = 0; i < 3; i++) {
		ibp_init(&p, rops[i], 0x200, spsn + (uint32_t)i);
		if (i != 1)
			ibp_aeth(&p, 0x1f, 2);
		p.payload = big + 200 + i * 1024;
		p.plen = i < 2 ? 1024 : 952;
		frame(e, true, &p);
	}
	spsn += 3;
	ibp_init(&p, 0x17, 0x100, spsn++);
	ibp_ext_be32(&p, 0x1234);
	p.payload = big + 7;
	p.plen = 77;
	frame(e, false, &p);
	transport_flush(h.t);
}

static void test_same_events(void)
{
	static struct recorder ref;
	for (int e = 0; e < E_N; e++) {
		th_init(&h, enc_link[e]);
		conversation((enum enc)e);
		CHECK(h.r.ndiag == 0, "%s: diagnostic %s", enc_name[e], h.r.ndiag ? h.r.diag[0] : "");
		CHECK(rec_count(&h.r, RDMA_EV_SEND) == 2 && rec_count(&h.r, RDMA_EV_WRITE) == 1 &&
		      rec_count(&h.r, RDMA_EV_READ) == 1, "%s: message counts", enc_name[e]);
		if (e == 0) {
			ref = h.r;
			for (size_t i = 0; i < h.r.n; i++)
				h.r.ev[i].copy = NULL;   /* ownership moved to ref */
			h.r.n = 0;
		} else {
			CHECK(h.r.n == ref.n, "%s: %zu events, RoCEv2 gave %zu", enc_name[e], h.r.n, ref.n);
			for (size_t i = 0; i < h.r.n && i < ref.n; i++) {
				const struct rdma_event *x = &h.r.ev[i].ev, *y = &ref.ev[i].ev;
				bool same = x->type == y->type && x->dir == y->dir && x->flags == y->flags &&
					    x->npkts == y->npkts && x->psn_first == y->psn_first &&
					    x->data_len == y->data_len && x->msg_len == y->msg_len &&
					    x->rkey == y->rkey && x->va == y->va && x->dma_len == y->dma_len &&
					    x->inv_rkey == y->inv_rkey && x->frame_first == y->frame_first &&
					    x->frame_last == y->frame_last &&
					    (!x->data_len || memcmp(h.r.ev[i].copy, ref.ev[i].copy, x->data_len) == 0);
				CHECK(same, "%s: event %zu (type %d) differs from RoCEv2", enc_name[e], i, x->type);
			}
			const struct rdma_conn *c = transport_conn(h.t, 0);
			CHECK(c && c->client_known && c->side[0].qpn == 0x100 && c->side[1].qpn == 0x200,
			      "%s: pairing", enc_name[e]);
			if (c && (e == E_IB || e == E_ERF_IB)) {
				CHECK_EQ_U64(c->side[0].lid, 2);
				CHECK_EQ_U64(c->side[0].family, 'L');
			}
			if (c && e == E_IB_GRH)
				CHECK(c->side[0].family == 'G' && c->side[0].addr[15] == 2, "GID recorded");
			if (c && e == E_ROCE1)
				CHECK(c->side[0].family == 'G' && c->side[0].addr[15] == 2, "RoCEv1 GID");
		}
		const struct transport_stats *st = transport_stats(h.t);
		uint64_t kinds = e <= E_ERF_ETH ? st->roce_v2 : e == E_ROCE1 ? st->roce_v1 : st->ib_native;
		CHECK(kinds == st->frames, "%s: every frame classified", enc_name[e]);
		th_done(&h);
	}
	rec_free(&ref);
}

static void test_unsupported(void)
{
	struct transport *t = transport_new(NULL, NULL, NULL);
	static const int bad[] = { 0, 101, 105, 127, 228, 229, 12345, -1 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(transport_set_linktype(t, bad[i]) == -EPROTONOSUPPORT, "link type %d refused", bad[i]);
	CHECK_EQ_STR(transport_linktype_name(105), "IEEE 802.11");
	CHECK_EQ_STR(transport_linktype_name(228), "raw IPv4");
	CHECK_EQ_STR(transport_linktype_name(12345), "unknown link type");
	CHECK_EQ_STR(transport_linktype_name(LINKTYPE_ERF), "Endace ERF");
	CHECK_EQ_STR(transport_linktype_name(LINKTYPE_INFINIBAND), "InfiniBand");
	static const int good[] = { 1, 113, 197, 247, 276 };
	for (size_t i = 0; i < 5; i++)
		CHECK(transport_set_linktype(t, good[i]) == 0, "link type %d accepted", good[i]);
	transport_free(t);

	/* Packets before any link type: one diagnostic each, no crash */
	static struct recorder r;
	t = transport_new(rec_event, rec_diag, &r);
	uint8_t x[20] = { 0 };
	transport_packet(t, 1, 1, x, sizeof(x), sizeof(x));
	CHECK_EQ_U64(r.ndiag, 1);
	CHECK_EQ_U64(transport_stats(t)->invalid, 1);
	transport_free(t);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 13 + 1);
	test_same_events();
	test_unsupported();
	return check_summary("test_transport_linktypes");
}
