/* ERF record headers: fields, extension headers, Ethernet pad, bad
 * lengths, and an ERF type-21 record going all the way to an event. */
#include <errno.h>

#include "check.h"
#include "dissect/erf.h"
#include "test_transport_frames.h"

static void test_header(void)
{
	static struct fb b;
	struct erf_hdr h;
	uint8_t pkt[30] = { 0 };

	b.n = 0;
	fb_mem(&b, pkt, sizeof(pkt));
	fb_erf_wrap(&b, ERF_TYPE_INFINIBAND, false);
	struct cursor c = cur_make(b.b, b.n);
	CHECK_EQ_U64(erf_parse(&c, &h), 0);
	CHECK_EQ_U64(h.type, 21);
	CHECK(!h.ext, "no extension");
	CHECK_EQ_U64(h.flags, 0x04);
	CHECK_EQ_U64(h.wlen, 30);
	CHECK_EQ_U64(h.rlen, 48);
	CHECK_EQ_U64(c.off, 16);
	CHECK_EQ_U64(h.ts, ((uint64_t)1700000000u << 32) | 0x80000000u);
	CHECK_EQ_U64(erf_ts_ns(h.ts), 1700000000ull * 1000000000ull + 500000000ull);
	CHECK_EQ_STR(erf_type_name(h.type), "INFINIBAND");

	/* one extension header */
	b.n = 0;
	fb_mem(&b, pkt, sizeof(pkt));
	fb_erf_wrap(&b, ERF_TYPE_INFINIBAND, true);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(erf_parse(&c, &h), 0);
	CHECK(h.ext, "extension flag");
	CHECK_EQ_U64(h.n_ext, 1);
	CHECK_EQ_U64(c.off, 24);

	/* two chained extension headers */
	b.b[16] |= 0x80;
	memcpy(b.b + 24, (const uint8_t[8]){ 0x04 }, 8);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(erf_parse(&c, &h), 0);
	CHECK_EQ_U64(h.n_ext, 2);
	CHECK_EQ_U64(c.off, 32);

	/* Ethernet types skip the 2-byte pad */
	b.n = 0;
	fb_mem(&b, pkt, sizeof(pkt));
	fb_erf_wrap(&b, ERF_TYPE_ETH, false);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(erf_parse(&c, &h), 0);
	CHECK_EQ_U64(c.off, 18);
	CHECK(erf_type_is_eth(ERF_TYPE_COLOR_HASH_ETH), "colour hash Ethernet");
	CHECK(!erf_type_is_eth(ERF_TYPE_INFINIBAND), "IB is not Ethernet");

	/* rlen below the header */
	b.n = 0;
	fb_mem(&b, pkt, sizeof(pkt));
	fb_erf_wrap(&b, ERF_TYPE_INFINIBAND, false);
	fb_put_be16(&b, 10, 8);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(erf_parse(&c, &h), (uint64_t)-EINVAL);
	CHECK_EQ_U64(c.err, CUR_INVALID);
	CHECK_EQ_U64(c.err_off, 10);

	/* extension chain running past rlen */
	b.n = 0;
	fb_mem(&b, pkt, sizeof(pkt));
	fb_erf_wrap(&b, ERF_TYPE_INFINIBAND, true);
	fb_put_be16(&b, 10, 16);
	c = cur_make(b.b, b.n);
	CHECK_EQ_U64(erf_parse(&c, &h), (uint64_t)-EINVAL);
	CHECK_EQ_STR(c.err_what, "ERF extension headers run past rlen");

	/* endless chain: every header says "more" -> stops at the data end */
	memset(b.b + 16, 0x80, b.n - 16);
	fb_put_be16(&b, 10, 0xfff8);
	c = cur_make(b.b, b.n);
	CHECK(erf_parse(&c, &h) < 0, "runaway chain");
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);

	/* truncated header */
	c = cur_make(b.b, 9);
	CHECK_EQ_U64(erf_parse(&c, &h), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(c.err, CUR_TRUNCATED);
}

/* ERF type 21 with an extension header, padded record, through the
 * transport: the same LRH path as DLT_INFINIBAND. */
static void test_erf_to_event(void)
{
	static struct th h;
	static struct fb b;
	struct ibp p;
	uint8_t pl[88];
	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 3);

	th_init(&h, LINKTYPE_ERF);
	ibp_init(&p, 0x04, 0xfc0407, 100);
	p.payload = pl;
	p.plen = sizeof(pl);
	fb_ib(&b, 4, 1, NULL, NULL, &p);
	fb_erf_wrap(&b, ERF_TYPE_INFINIBAND, true);
	th_feed(&h, &b);
	transport_flush(h.t);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_SEND, 0);
	CHECK(e != NULL, "SEND from an ERF record");
	if (e) {
		CHECK_EQ_U64(e->ev.data_len, sizeof(pl));
		CHECK(memcmp(e->copy, pl, sizeof(pl)) == 0, "payload");
		CHECK_EQ_U64(e->conn.side[1].lid, 1);
		CHECK_EQ_U64(e->conn.side[0].lid, 4);
		CHECK_EQ_U64(e->conn.side[0].family, 'L');
	}
	CHECK_EQ_U64(transport_stats(h.t)->ib_native, 1);
	CHECK_EQ_U64(h.r.ndiag, 0);

	/* A non-IB ERF type is counted as non-RDMA, not an error. */
	b.n = 0;
	fb_zero(&b, 20);
	fb_erf_wrap(&b, ERF_TYPE_HDLC_POS, false);
	th_feed(&h, &b);
	CHECK_EQ_U64(transport_stats(h.t)->non_rdma, 1);
	CHECK_EQ_U64(h.r.ndiag, 0);

	/* ERF record too short for its header: one diagnostic, layer erf */
	b.n = 10;
	th_feed(&h, &b);
	CHECK_EQ_U64(h.r.ndiag, 1);
	CHECK_EQ_STR(h.r.diag[0], "frame 3, offset 10: erf: truncated in ERF rlen (10 of 10 bytes captured)");
	th_done(&h);
}

int main(void)
{
	test_header();
	test_erf_to_event();
	return check_summary("test_erf_header");
}
