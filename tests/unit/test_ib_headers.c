/* InfiniBand header decoding: the opcode table, BTH + extended headers,
 * pad handling, LRH/GRH framing with and without CRCs, PSN arithmetic and
 * the RoCE UDP source-port rules used as pairing evidence. */
#include <errno.h>

#include "check.h"
#include "dissect/ib.h"
#include "test_transport_frames.h"

static void test_opcode_table(void)
{
	CHECK_EQ_STR(ib_opcode_name(0x04), "RC SEND Only");
	CHECK_EQ_STR(ib_opcode_name(0x0c), "RC RDMA READ Request");
	CHECK_EQ_STR(ib_opcode_name(0x11), "RC Acknowledge");
	CHECK_EQ_STR(ib_opcode_name(0x17), "RC SEND Only with Invalidate");
	CHECK_EQ_STR(ib_opcode_name(0x1c), "RC FLUSH");
	CHECK_EQ_STR(ib_opcode_name(0x64), "UD SEND Only");
	CHECK_EQ_STR(ib_opcode_name(0x65), "UD SEND Only with Immediate");
	CHECK_EQ_STR(ib_opcode_name(0x55), "RD RESYNC");
	CHECK_EQ_STR(ib_opcode_name(0x81), "CNP");
	CHECK_EQ_STR(ib_opcode_name(0xa4), "XRC SEND Only");
	CHECK_EQ_STR(ib_opcode_name(0x15), "reserved");   /* RC has no RESYNC */
	CHECK_EQ_STR(ib_opcode_name(0x2c), "reserved");   /* UC has no READ */
	CHECK_EQ_STR(ib_opcode_name(0x60), "reserved");   /* UD: only SEND Only */
	CHECK_EQ_STR(ib_opcode_name(0xff), "reserved");

	/* Every RC opcode of protocol-facts (0x00-0x17 but 0x15) is known. */
	for (unsigned op = 0; op <= 0x17; op++) {
		const struct ib_opinfo *o = ib_opinfo((uint8_t)op);
		if (op == 0x15)
			CHECK(o->kind == IBK_INVALID, "RC 0x15 must be reserved");
		else
			CHECK(o->kind != IBK_INVALID && o->service == IBS_RC, "RC opcode 0x%02x unknown", op);
	}
	CHECK_EQ_U64(ib_opinfo(0x0b)->hdrs & ~IBH_PAYLOAD, IBH_RETH | IBH_IMMDT);
	CHECK_EQ_U64(ib_opinfo(0x12)->hdrs, IBH_AETH | IBH_ATOMICACKETH);
	CHECK_EQ_U64(ib_opinfo(0x13)->hdrs, IBH_ATOMICETH);
	CHECK_EQ_U64(ib_opinfo(0x0c)->hdrs, IBH_RETH);
	CHECK_EQ_U64(ib_opinfo(0x16)->hdrs & ~IBH_PAYLOAD, IBH_IETH);
	CHECK_EQ_U64(ib_opinfo(0x64)->hdrs & ~IBH_PAYLOAD, IBH_DETH);
	CHECK_EQ_U64(ib_opinfo(0x44)->hdrs & ~IBH_PAYLOAD, IBH_RDETH | IBH_DETH);
	CHECK_EQ_U64(ib_opinfo(0x4d)->hdrs & ~IBH_PAYLOAD, IBH_RDETH | IBH_AETH);
	CHECK_EQ_U64(ib_opinfo(0xa0)->hdrs & ~IBH_PAYLOAD, IBH_XRCETH);
	CHECK_EQ_U64(ib_opinfo(0x0f)->kind, IBK_READ_RESP_LAST);

	CHECK_EQ_STR(ib_aeth_name(0x1f), "ACK");
	CHECK_EQ_STR(ib_aeth_name(0x21), "RNR NAK");
	CHECK_EQ_STR(ib_aeth_name(0x60), "NAK PSN sequence error");
	CHECK_EQ_STR(ib_aeth_name(0x62), "NAK remote access error");
	CHECK_EQ_STR(ib_aeth_name(0x40), "reserved syndrome");
}

/* Parses a transport part built by fb_ib_transport. */
static int parse(const struct ibp *p, struct ib_pkt *out, struct ib_frame *f, struct fb *b)
{
	b->n = 0;
	fb_ib_transport(b, p);
	memset(f, 0, sizeof(*f));
	f->bth = cur_make(b->b, b->n);
	f->wire_len = b->n;
	return ib_parse_bth(f, out);
}

static void test_bth(void)
{
	static struct fb b;
	struct ib_frame f;
	struct ib_pkt k;
	struct ibp p;
	uint8_t pl[64];
	for (int i = 0; i < 64; i++)
		pl[i] = (uint8_t)i;

	/* WRITE Only, 18 bytes: pad 2 is excluded from the payload. */
	ibp_init(&p, 0x0a, 0x11, 9209053);
	p.ackreq = true;
	ibp_reth(&p, 0xaaab09dd5000ull, 0x2d5, 18);
	p.payload = pl;
	p.plen = 18;
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.opcode, 0x0a);
	CHECK_EQ_U64(k.pad, 2);
	CHECK_EQ_U64(k.dqpn, 0x11);
	CHECK_EQ_U64(k.psn, 9209053);
	CHECK_EQ_U64(k.ackreq, 1);
	CHECK_EQ_U64(k.pkey, 0xffff);
	CHECK_EQ_U64(k.reth_va, 0xaaab09dd5000ull);
	CHECK_EQ_U64(k.reth_rkey, 0x2d5);
	CHECK_EQ_U64(k.reth_len, 18);
	CHECK_EQ_U64(k.payload_len, 18);
	CHECK_EQ_U64(k.payload_cap, 18);
	CHECK(k.payload && memcmp(k.payload, pl, 18) == 0, "payload bytes");
	CHECK_EQ_U64(k.payload_off, 12 + 16);

	/* Each pad count 0..3 */
	for (size_t n = 1; n <= 8; n++) {
		ibp_init(&p, 0x04, 5, 1);
		p.payload = pl;
		p.plen = n;
		CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
		CHECK_EQ_U64(k.payload_len, n);
		CHECK_EQ_U64(k.pad, (4 - n % 4) % 4);
	}

	/* ACK: AETH */
	ibp_init(&p, 0x11, 0x17, 77);
	ibp_aeth(&p, 0x1f, 0x123456);
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.aeth_syn, 0x1f);
	CHECK_EQ_U64(k.aeth_msn, 0x123456);
	CHECK_EQ_U64(k.payload_len, 0);

	/* SEND Last with Invalidate: IETH */
	ibp_init(&p, 0x16, 1, 2);
	ibp_ext_be32(&p, 0xcafe0001);
	p.payload = pl;
	p.plen = 4;
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.ieth_rkey, 0xcafe0001);
	CHECK_EQ_U64(k.payload_len, 4);

	/* RDMA WRITE Only with Immediate: RETH then ImmDt */
	ibp_init(&p, 0x0b, 1, 2);
	ibp_reth(&p, 1, 2, 3);
	ibp_ext_be32(&p, 0x01020304);
	p.payload = pl;
	p.plen = 3;
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.imm, 0x01020304);
	CHECK_EQ_U64(k.reth_len, 3);
	CHECK_EQ_U64(k.payload_len, 3);

	/* CmpSwap: AtomicETH; Atomic ACK: AETH + AtomicAckETH */
	ibp_init(&p, 0x13, 1, 2);
	ibp_reth(&p, 0x1000, 0x77, 0);   /* VA, R_Key, then swap/compare: */
	p.ext_len -= 4;
	ibp_ext_be32(&p, 0); ibp_ext_be32(&p, 5); ibp_ext_be32(&p, 0); ibp_ext_be32(&p, 6);
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.atomic_va, 0x1000);
	CHECK_EQ_U64(k.atomic_rkey, 0x77);
	CHECK_EQ_U64(k.atomic_swap, 5);
	CHECK_EQ_U64(k.atomic_cmp, 6);
	ibp_init(&p, 0x12, 1, 2);
	ibp_aeth(&p, 0, 9);
	ibp_ext_be32(&p, 0); ibp_ext_be32(&p, 42);
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.atomic_orig, 42);

	/* UD SEND Only: DETH */
	ibp_init(&p, 0x64, 1, 2);
	ibp_deth(&p, 0x80010000u, 0x1);
	p.payload = pl;
	p.plen = 8;
	CHECK_EQ_U64(parse(&p, &k, &f, &b), 0);
	CHECK_EQ_U64(k.deth_qkey, 0x80010000u);
	CHECK_EQ_U64(k.deth_srcqp, 1);

	/* Errors */
	ibp_init(&p, 0x15, 1, 2);     /* reserved in RC */
	CHECK_EQ_U64(parse(&p, &k, &f, &b), (uint64_t)-EINVAL);
	CHECK_EQ_U64(f.bth.err, CUR_INVALID);
	CHECK_EQ_STR(f.bth.err_what, "BTH opcode is reserved");

	ibp_init(&p, 0x11, 1, 2);     /* ACK with trailing bytes */
	ibp_aeth(&p, 0, 0);
	p.payload = pl;
	p.plen = 4;
	CHECK_EQ_U64(parse(&p, &k, &f, &b), (uint64_t)-EINVAL);
	CHECK_EQ_STR(f.bth.err_what, "payload after a header-only opcode");

	ibp_init(&p, 0x04, 1, 2);     /* pad 3 but no payload */
	p.pad = 3;
	b.n = 0;
	fb_ib_transport(&b, &p);
	b.n -= 3;                     /* claim pad but carry none */
	memset(&f, 0, sizeof(f));
	f.bth = cur_make(b.b, b.n);
	f.wire_len = b.n;
	CHECK_EQ_U64(ib_parse_bth(&f, &k), (uint64_t)-EINVAL);

	ibp_init(&p, 0x0c, 1, 2);     /* READ request cut inside RETH */
	ibp_reth(&p, 1, 2, 3);
	b.n = 0;
	fb_ib_transport(&b, &p);
	memset(&f, 0, sizeof(f));
	f.bth = cur_make(b.b, 20);
	f.wire_len = b.n;
	CHECK_EQ_U64(ib_parse_bth(&f, &k), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(f.bth.err, CUR_TRUNCATED);

	ibp_init(&p, 0x04, 1, 2);     /* TVer 1 */
	b.n = 0;
	fb_ib_transport(&b, &p);
	b.b[1] |= 1;
	memset(&f, 0, sizeof(f));
	f.bth = cur_make(b.b, b.n);
	f.wire_len = b.n;
	CHECK_EQ_U64(ib_parse_bth(&f, &k), (uint64_t)-EINVAL);

	/* Snaplen: payload partly captured */
	ibp_init(&p, 0x04, 1, 2);
	p.payload = pl;
	p.plen = 40;
	b.n = 0;
	fb_ib_transport(&b, &p);
	memset(&f, 0, sizeof(f));
	f.bth = cur_make(b.b, 12 + 10);
	f.wire_len = b.n;
	CHECK_EQ_U64(ib_parse_bth(&f, &k), 0);
	CHECK_EQ_U64(k.payload_len, 40);
	CHECK_EQ_U64(k.payload_cap, 10);
}

static void test_lrh_frame(void)
{
	static struct fb b;
	struct ib_frame f;
	struct ibp p;
	uint8_t pl[20] = { 1, 2, 3 };
	uint8_t sg[16] = { 0xfe, 0x80 }, dg[16] = { 0xfe, 0x80, 1 };

	ibp_init(&p, 0x04, 0xfc0407, 13896277);
	p.payload = pl;
	p.plen = 20;
	fb_ib(&b, 4, 1, NULL, NULL, &p);
	CHECK_EQ_U64(b.n, 8 + 12 + 20 + 4 + 2);
	struct cursor c = cur_make(b.b, b.n);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n, &f), 1);
	CHECK_EQ_U64(f.kind, IBF_IB);
	CHECK_EQ_U64(f.slid, 4);
	CHECK_EQ_U64(f.dlid, 1);
	CHECK_EQ_U64(f.wire_len, 12 + 20);
	CHECK_EQ_U64(f.bth.off, 8);
	CHECK_EQ_U64(f.bth.len, 8 + 12 + 20);
	CHECK(!f.has_grh, "no GRH");

	/* Without VCRC, and without both CRCs */
	c = cur_make(b.b, b.n - 2);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n - 2, &f), 1);
	CHECK_EQ_U64(f.wire_len, 32);
	c = cur_make(b.b, b.n - 6);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n - 6, &f), 1);
	CHECK_EQ_U64(f.wire_len, 32);
	c = cur_make(b.b, b.n - 7);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n - 7, &f), (uint64_t)-EINVAL);
	CHECK_EQ_STR(c.err_what, "LRH PktLen longer than the packet");
	CHECK_EQ_U64(c.err_off, 4);

	/* With a GRH */
	fb_ib(&b, 4, 1, sg, dg, &p);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n, &f), 1);
	CHECK(f.has_grh, "GRH");
	CHECK_EQ_U64(f.bth.off, 48);
	CHECK_EQ_U64(f.wire_len, 32);
	CHECK_EQ_U64(f.dst[2], 1);
	b.b[8 + 6] = 0x11;   /* NxtHdr */
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n, &f), (uint64_t)-EINVAL);

	/* Raw packet (LNH 0): not ours */
	fb_ib(&b, 4, 1, NULL, NULL, &p);
	b.b[1] = 0;
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n, &f), 0);

	/* PktLen too small for the headers */
	fb_ib(&b, 4, 1, NULL, NULL, &p);
	fb_put_be16(&b, 4, 4);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n, &f), (uint64_t)-EINVAL);

	/* Truncated LRH */
	c = cur_make(b.b, 5);
	CHECK_EQ_U64(ib_parse_lrh_frame(&c, b.n, &f), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);
}

static void test_psn_and_ports(void)
{
	CHECK_EQ_U64((uint64_t)(int64_t)psn_diff(0, 0xffffff), 1);
	CHECK_EQ_U64((uint64_t)(int64_t)psn_diff(0xffffff, 0), (uint64_t)-1);
	CHECK_EQ_U64((uint64_t)(int64_t)psn_diff(100, 90), 10);
	CHECK_EQ_U64(psn_add(0xffffff, 2), 1);
	CHECK_EQ_U64(ib_mtu_bytes(3), 1024);
	CHECK_EQ_U64(ib_mtu_bytes(5), 4096);
	CHECK_EQ_U64(ib_mtu_bytes(0), 0);
	/* rxe ports seen in the public RoCE captures (QP 0x11, 0x17, QP1) */
	CHECK_EQ_U64(roce_rxe_sport(0x11), 57236);
	CHECK_EQ_U64(roce_rxe_sport(0x17), 62017);
	CHECK_EQ_U64(roce_rxe_sport(1), 55410);
	CHECK_EQ_U64(roce_flow_sport(0x123, 0x456), roce_flow_sport(0x456, 0x123));
	CHECK(roce_flow_sport(7, 9) >= 0xC000, "flow port in the RoCE range");
}

int main(void)
{
	test_opcode_table();
	test_bth();
	test_lrh_frame();
	test_psn_and_ports();
	return check_summary("test_ib_headers");
}
