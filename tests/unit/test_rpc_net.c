/* ONC RPC over TCP and UDP through the transport's public entry points
 * (transport_packet / transport_flush / transport_stats and the events):
 * hand-built Ethernet/IPv4/TCP segments and UDP datagrams / IP fragments.
 * Every expected value is worked out below from the bytes the test
 * sends (record marks of RFC 5531 section 11, TCP sequence numbers), not
 * taken from an earlier run.
 *
 * Messages: a NFSv3 GETATTR call of 52 bytes (xid, CALL, rpcvers 2,
 * 100003/3/1, AUTH_NONE credential and verifier, a file handle of 8
 * bytes with no byte 0x02 in it) and its reply of 28 bytes (xid, REPLY,
 * MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, NFS3_OK); on the wire each
 * is one last-fragment record: 56 and 32 bytes. */
#include "check.h"
#include "test_transport_frames.h"

#define CALL_LEN  52
#define REPLY_LEN 28
#define REC_CALL  (4 + CALL_LEN)

static struct th h;

static const struct rhost cli = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 800 };
static const struct rhost srv = { { 2, 0, 0, 0, 0, 2 }, 0x0a000002, 2049 };

static uint32_t rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* ---------------------------------------------------------- messages */

static void put32(uint8_t *b, size_t *n, uint32_t v)
{
	b[(*n)++] = (uint8_t)(v >> 24);
	b[(*n)++] = (uint8_t)(v >> 16);
	b[(*n)++] = (uint8_t)(v >> 8);
	b[(*n)++] = (uint8_t)v;
}

static size_t call_msg(uint8_t *b, uint32_t xid)
{
	size_t n = 0;
	put32(b, &n, xid);
	put32(b, &n, 0);            /* CALL */
	put32(b, &n, 2);
	put32(b, &n, 100003);
	put32(b, &n, 3);
	put32(b, &n, 1);            /* GETATTR */
	put32(b, &n, 0);            /* AUTH_NONE, 0 bytes */
	put32(b, &n, 0);
	put32(b, &n, 0);            /* verifier */
	put32(b, &n, 0);
	put32(b, &n, 8);            /* file handle */
	put32(b, &n, 0x11111111);
	put32(b, &n, 0x33333333);
	return n;
}

static size_t reply_msg(uint8_t *b, uint32_t xid)
{
	size_t n = 0;
	put32(b, &n, xid);
	put32(b, &n, 1);            /* REPLY */
	put32(b, &n, 0);            /* MSG_ACCEPTED */
	put32(b, &n, 0);
	put32(b, &n, 0);
	put32(b, &n, 0);            /* SUCCESS */
	put32(b, &n, 0);            /* NFS3_OK */
	return n;
}

/* One direction's byte stream, built record by record. */
struct bs {
	uint8_t b[65536];
	size_t n;
};

static void bs_mark(struct bs *s, bool last, uint32_t len) { put32(s->b, &s->n, (last ? 0x80000000u : 0) | len); }

static void bs_call(struct bs *s, uint32_t xid)
{
	bs_mark(s, true, CALL_LEN);
	s->n += call_msg(s->b + s->n, xid);
}

static void bs_reply(struct bs *s, uint32_t xid)
{
	bs_mark(s, true, REPLY_LEN);
	s->n += reply_msg(s->b + s->n, xid);
}

/* ------------------------------------------------------------ frames */

static void fb_eth_ipv4(struct fb *f, const struct rhost *s, const struct rhost *d, uint8_t proto,
			size_t ip_payload, uint16_t id, uint16_t frag)
{
	f->n = 0;
	fb_mem(f, d->mac, 6);
	fb_mem(f, s->mac, 6);
	fb_be16(f, 0x0800);
	fb_u8(f, 0x45);
	fb_u8(f, 0);
	fb_be16(f, (uint16_t)(20 + ip_payload));
	fb_be16(f, id);
	fb_be16(f, frag);
	fb_u8(f, 64);
	fb_u8(f, proto);
	fb_be16(f, 0);
	fb_be32(f, s->ip);
	fb_be32(f, d->ip);
}

static void tcp_seg(const struct rhost *s, const struct rhost *d, uint32_t seq, uint8_t flags,
		    const uint8_t *p, size_t n)
{
	struct fb f;
	fb_eth_ipv4(&f, s, d, 6, 20 + n, 1, 0x4000);
	fb_be16(&f, s->sport);
	fb_be16(&f, d->sport);
	fb_be32(&f, seq);
	fb_be32(&f, 0);
	fb_u8(&f, 0x50);
	fb_u8(&f, flags);
	fb_be16(&f, 65535);
	fb_be32(&f, 0);
	fb_mem(&f, p, n);
	th_feed(&h, &f);
}

/* Sequence numbers: the client's ISN is CISN, the server's SISN; data
 * byte k of a direction has sequence number ISN + 1 + k. */
#define CISN 1000u
#define SISN 0xfffffff0u    /* its data wraps round 2^32 after 15 bytes */

static void syn(void)
{
	tcp_seg(&cli, &srv, CISN, 0x02, NULL, 0);
	tcp_seg(&srv, &cli, SISN, 0x12, NULL, 0);
}

static void fin(void)
{
	tcp_seg(&cli, &srv, 0, 0x11, NULL, 0);
	tcp_seg(&srv, &cli, 0, 0x11, NULL, 0);
}

/* Bytes [a, b) of the client's stream in one segment. */
static void cseg(const struct bs *s, size_t a, size_t b) { tcp_seg(&cli, &srv, CISN + 1 + (uint32_t)a, 0x18, s->b + a, b - a); }
static void sseg(const struct bs *s, size_t a, size_t b) { tcp_seg(&srv, &cli, SISN + 1 + (uint32_t)a, 0x18, s->b + a, b - a); }

/* --------------------------------------------------------- checking */

static void start(void) { th_init(&h, LINKTYPE_ETHERNET); }

/* The RPC messages of direction dir, in order: their xids, and each one
 * whole (data_len = msg_len = len, no flag but those of flags_of[k])
 * when len is given. */
static uint32_t flags_of[8];

static void expect_msgs(const char *what, int dir, const uint32_t *xids, size_t n, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < h.r.n; i++) {
		const struct rec_ev *e = &h.r.ev[i];
		if (e->ev.type != RDMA_EV_RPC || e->ev.dir != dir)
			continue;
		CHECK(e->conn.ip_proto == 6, "%s: RPC on a TCP connection", what);
		if (k < n) {
			CHECK(e->ev.data_len >= 4 && rd32(e->copy) == xids[k], "%s: message %zu has xid 0x%x, got 0x%x",
			      what, k, xids[k], e->ev.data_len >= 4 ? rd32(e->copy) : 0);
			if (len)
				CHECK(e->ev.data_len == len && e->ev.msg_len == len &&
				      e->ev.flags == (k < 8 ? flags_of[k] : 0),
				      "%s: message %zu whole: %zu of %zu bytes, flags 0x%x", what, k, e->ev.data_len,
				      e->ev.msg_len, e->ev.flags);
		}
		k++;
	}
	CHECK(k == n, "%s: %zu messages from side %d, expected %zu", what, k, dir, n);
}

static const struct transport_stats *st(void) { return transport_stats(h.t); }

/* -------------------------------------------------------------- TCP */

static void test_in_order(void)
{
	struct bs c = { .n = 0 }, s = { .n = 0 };
	start();
	syn();
	bs_call(&c, 0xa1);
	bs_reply(&s, 0xa1);
	cseg(&c, 0, c.n);
	sseg(&s, 0, s.n);
	fin();
	const uint32_t x[] = { 0xa1 };
	expect_msgs("in order, call", 0, x, 1, CALL_LEN);
	expect_msgs("in order, reply", 1, x, 1, REPLY_LEN);
	CHECK_EQ_U64(rec_count_proto(&h.r, RDMA_EV_CONN_NEW, 6), 1);
	CHECK_EQ_U64(rec_count_proto(&h.r, RDMA_EV_CONN_CLOSE, 6), 1);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(e && e->conn.side[0].udp_sport == 800 && e->conn.side[1].udp_sport == 2049 &&
	      e->conn.side[0].addr[3] == 1, "side 0 is the SYN's sender, the client 10.0.0.1.800");
	/* the call's bytes come up as sent */
	uint8_t m[CALL_LEN];
	call_msg(m, 0xa1);
	CHECK(e && e->ev.data_len == CALL_LEN && !memcmp(e->copy, m, CALL_LEN), "call bytes intact");
	CHECK_EQ_U64(st()->rpc_msgs_tcp, 2);
	CHECK_EQ_U64(st()->rpc_streams, 1);
	CHECK_EQ_U64(st()->tcp_out_of_order + st()->tcp_retransmits + st()->tcp_gaps + st()->rpc_resyncs, 0);
	CHECK_EQ_U64(h.r.ndiag, 0);
	th_done(&h);
}

/* Three calls: 168 bytes; segment 1 = [0, 66) (call 1 + 10 bytes of
 * call 2), segment 2 = [66, 168). */
static void three_calls(struct bs *c)
{
	c->n = 0;
	bs_call(c, 0xb1);
	bs_call(c, 0xb2);
	bs_call(c, 0xb3);
}

static const uint32_t xb[] = { 0xb1, 0xb2, 0xb3 };

static void test_split_and_ooo(void)
{
	struct bs c;
	three_calls(&c);
	CHECK_EQ_U64(c.n, 3 * REC_CALL);

	start();
	syn();
	cseg(&c, 0, 66);
	cseg(&c, 66, c.n);
	expect_msgs("a record across two segments", 0, xb, 3, CALL_LEN);
	th_done(&h);

	/* the second segment first: held, then taken after the first */
	start();
	syn();
	cseg(&c, 66, c.n);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 0);
	cseg(&c, 0, 66);
	expect_msgs("out of order", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_out_of_order, 1);
	CHECK_EQ_U64(st()->tcp_gaps + st()->tcp_retransmits, 0);
	th_done(&h);

	/* every byte in its own segment, in reverse order: 167 held, then
	 * the first byte releases them all */
	start();
	syn();
	for (size_t i = c.n; i-- > 1;)
		cseg(&c, i, i + 1);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 0);
	cseg(&c, 0, 1);
	expect_msgs("byte by byte, reversed", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_out_of_order, 167);
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	th_done(&h);
}

/* Frame tracking: a segment held out of order is its message's frame,
 * noted once, not other traffic; a duplicate of it is.  Frames: 1, 2
 * SYN and SYN-ACK, 3 = [66, 168) held, 4 = its duplicate, 5 = [0, 66). */
static void test_ooo_frames(void)
{
	struct bs c;
	three_calls(&c);
	start();
	transport_set_frame_tracking(h.t, true);
	syn();
	cseg(&c, 66, c.n);
	cseg(&c, 66, c.n);
	cseg(&c, 0, 66);
	expect_msgs("out of order, frames tracked", 0, xb, 3, CALL_LEN);
	/* a frame is noted once, with the first message it carries bytes
	 * of: call 1 has frame 5; call 2 (from 5 and 3) has 3; call 3, all
	 * in 3, none of its own */
	const struct rec_ev *e1 = rec_nth(&h.r, RDMA_EV_RPC, 0), *e2 = rec_nth(&h.r, RDMA_EV_RPC, 1);
	CHECK(e1 && e1->ev.nframes == 1 && e1->ev.frames && e1->ev.frames[0] == 5, "call 1: frame 5");
	CHECK(e2 && e2->ev.nframes == 1 && e2->ev.frames[0] == 3, "call 2: the held frame 3 (%u frames)",
	      e2 ? e2->ev.nframes : 0);
	size_t other3 = 0, other4 = 0;
	for (size_t i = 0; i < h.r.n; i++)
		if (h.r.ev[i].ev.type == RDMA_EV_FRAME) {
			other3 += h.r.ev[i].ev.frame_first == 3;
			other4 += h.r.ev[i].ev.frame_first == 4;
		}
	CHECK(other3 == 0, "the held frame 3 is not other traffic (%zu)", other3);
	CHECK(other4 == 1, "its duplicate, frame 4, is (%zu)", other4);
	th_done(&h);
}

static void test_retransmit_overlap(void)
{
	struct bs c;
	three_calls(&c);

	/* an exact duplicate of a segment already taken */
	start();
	syn();
	cseg(&c, 0, 66);
	cseg(&c, 0, 66);
	cseg(&c, 66, c.n);
	expect_msgs("duplicate", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_retransmits, 1);
	th_done(&h);

	/* an exact duplicate of a segment still held out of order */
	start();
	syn();
	cseg(&c, 66, c.n);
	cseg(&c, 66, c.n);
	cseg(&c, 0, 66);
	expect_msgs("duplicate of a held segment", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_out_of_order, 1);
	CHECK_EQ_U64(st()->tcp_retransmits, 1);
	th_done(&h);

	/* partial overlap: [0, 66) then [40, 168): bytes 40..65 twice;
	 * call 2 ([56, 112)) was sent partly twice and says so */
	flags_of[1] = RDMA_EVF_RETRANSMIT;
	start();
	syn();
	cseg(&c, 0, 66);
	cseg(&c, 40, c.n);
	expect_msgs("overlap", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_retransmits, 1);
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	th_done(&h);

	/* overlap out of order: [40, 168) held, then [0, 100): bytes
	 * 56..99 of call 2 twice */
	start();
	syn();
	cseg(&c, 40, c.n);
	cseg(&c, 0, 100);
	expect_msgs("overlap out of order", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_retransmits, 1);
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	th_done(&h);
	flags_of[1] = 0;
}

static void test_server_seq_wrap(void)
{
	struct bs c = { .n = 0 }, s = { .n = 0 };
	start();
	syn();
	bs_call(&c, 0xc1);
	bs_call(&c, 0xc2);
	bs_reply(&s, 0xc1);
	bs_reply(&s, 0xc2);
	cseg(&c, 0, c.n);
	/* the server's bytes 15.. have sequence numbers 0..: second reply
	 * first, then the first across the wrap */
	sseg(&s, 32, 64);
	sseg(&s, 0, 32);
	const uint32_t x[] = { 0xc1, 0xc2 };
	expect_msgs("sequence wrap", 1, x, 2, REPLY_LEN);
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	th_done(&h);
}

/* Five calls 0xd1..0xd5 at [0,56) [56,112) [112,168) [168,224) [224,280). */
static void five_calls(struct bs *c)
{
	c->n = 0;
	for (uint32_t x = 0xd1; x <= 0xd5; x++)
		bs_call(c, x);
}

static void test_lost(void)
{
	struct bs c;
	five_calls(&c);

	/* a whole record lost ([56,112)): the gap is known at the end */
	start();
	syn();
	cseg(&c, 0, 56);
	cseg(&c, 112, 168);
	cseg(&c, 168, c.n);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 1);
	fin();
	const uint32_t x1[] = { 0xd1, 0xd3, 0xd4, 0xd5 };
	expect_msgs("record lost", 0, x1, 4, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_gaps, 1);
	CHECK_EQ_U64(st()->tcp_gap_bytes, 56);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_GAP), 1);
	th_done(&h);

	/* lost inside one fragment ([76,106) of call 2 at [56,112)): the
	 * marks stay in step, call 2 comes up with 20 of its 52 bytes
	 * (16 before the hole, none after: copying stops at a hole) */
	start();
	syn();
	cseg(&c, 0, 76);
	cseg(&c, 106, c.n);
	fin();
	const uint32_t x2[] = { 0xd1, 0xd2, 0xd3, 0xd4, 0xd5 };
	expect_msgs("lost inside a record", 0, x2, 5, 0);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 1);
	CHECK(e && e->ev.data_len == 16 && e->ev.msg_len == CALL_LEN &&
	      (e->ev.flags & RDMA_EVF_INCOMPLETE) && (e->ev.flags & RDMA_EVF_TRUNC_DATA),
	      "call 2: 16 of 52 bytes, incomplete");
	e = rec_nth(&h.r, RDMA_EV_RPC, 2);
	CHECK(e && e->ev.data_len == CALL_LEN && e->ev.flags == 0, "call 3 whole");
	CHECK_EQ_U64(st()->tcp_gap_bytes, 30);
	CHECK_EQ_U64(st()->rpc_resyncs, 0);
	th_done(&h);

	/* lost across a record mark ([76,122): the end of call 2 and the
	 * mark + 6 bytes of call 3): call 2 is dropped, call 3's tail
	 * (bytes 122..167) is searched through, call 4's mark at 168 found
	 * 46 bytes on: one resynchronisation */
	start();
	syn();
	cseg(&c, 0, 76);
	cseg(&c, 122, 200);
	cseg(&c, 200, c.n);
	fin();
	const uint32_t x3[] = { 0xd1, 0xd4, 0xd5 };
	expect_msgs("lost across a mark", 0, x3, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_gaps, 1);
	CHECK_EQ_U64(st()->tcp_gap_bytes, 46);
	CHECK_EQ_U64(st()->rpc_resyncs, 1);
	th_done(&h);
}

/* More segments after a hole than the hold keeps (256): the hole is
 * given up when the 257th comes, and every record after it decodes.
 * The hole is [20, 56), inside call 0x100: it comes up with the 16
 * bytes before the hole, and the marks stay in step. */
static void test_lost_hold_full(void)
{
	static struct bs c;
	c.n = 0;
	bs_call(&c, 0x100);
	for (uint32_t i = 0; i < 300; i++)
		bs_call(&c, 0x1000 + i);
	start();
	syn();
	cseg(&c, 0, 20);
	for (size_t i = 1; i <= 300; i++)
		cseg(&c, i * REC_CALL, (i + 1) * REC_CALL);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(e && rd32(e->copy) == 0x100 && e->ev.data_len == 16 && e->ev.msg_len == CALL_LEN &&
	      (e->ev.flags & RDMA_EVF_INCOMPLETE), "call 0x100: 16 of 52 bytes");
	size_t n = 0;
	bool order = true;
	for (size_t i = 0; i < h.r.n; i++)
		if (h.r.ev[i].ev.type == RDMA_EV_RPC && n++ > 0)
			order &= rd32(h.r.ev[i].copy) == 0x1000 + n - 2 && h.r.ev[i].ev.flags == 0;
	CHECK(n == 301 && order, "then 300 calls after the hole, in order and whole (%zu)", n);
	CHECK_EQ_U64(st()->tcp_out_of_order, 256);
	CHECK_EQ_U64(st()->tcp_gaps, 1);
	CHECK_EQ_U64(st()->tcp_gap_bytes, 36);
	CHECK_EQ_U64(st()->rpc_msgs_cut, 0);
	th_done(&h);
}

static void test_fragments(void)
{
	uint8_t m[CALL_LEN];
	struct bs c = { .n = 0 };
	call_msg(m, 0xe1);
	/* call 0xe1 in three fragments of 20, 4 and 28 bytes */
	bs_mark(&c, false, 20);
	memcpy(c.b + c.n, m, 20), c.n += 20;
	bs_mark(&c, false, 4);
	memcpy(c.b + c.n, m + 20, 4), c.n += 4;
	bs_mark(&c, true, 28);
	memcpy(c.b + c.n, m + 24, 28), c.n += 28;
	bs_call(&c, 0xe2);
	CHECK_EQ_U64(c.n, 64 + REC_CALL);

	const uint32_t x[] = { 0xe1, 0xe2 };
	start();
	syn();
	cseg(&c, 0, c.n);
	expect_msgs("three fragments", 0, x, 2, CALL_LEN);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(e && e->ev.data_len == CALL_LEN && !memcmp(e->copy, m, CALL_LEN), "fragments joined");
	th_done(&h);

	/* cut inside marks and fragments: [0,2) [2,26) [26,30) [30,66) [66,..) */
	start();
	syn();
	cseg(&c, 0, 2);
	cseg(&c, 2, 26);
	cseg(&c, 26, 30);
	cseg(&c, 30, 66);
	cseg(&c, 66, c.n);
	expect_msgs("fragments, marks split", 0, x, 2, CALL_LEN);
	e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(e && e->ev.data_len == CALL_LEN && !memcmp(e->copy, m, CALL_LEN) && e->ev.npkts == 4,
	      "fragments joined from 4 segments (%u)", e ? e->ev.npkts : 0);
	th_done(&h);
}

static void test_mid_stream(void)
{
	struct bs c;
	five_calls(&c);
	/* no SYN; the capture starts 30 bytes into call 1: its last 26
	 * bytes are skipped, call 2 found at the segment's byte 26 */
	start();
	cseg(&c, 30, c.n);
	const uint32_t x[] = { 0xd2, 0xd3, 0xd4, 0xd5 };
	expect_msgs("mid-stream", 0, x, 4, CALL_LEN);
	CHECK_EQ_U64(st()->rpc_resyncs, 1);
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	transport_flush(h.t);
	CHECK_EQ_U64(st()->rpc_msgs_cut, 0);
	CHECK_EQ_U64(rec_count_proto(&h.r, RDMA_EV_CONN_CLOSE, 6), 1);
	th_done(&h);

	/* the server's side mid-stream: replies to calls never seen */
	struct bs s = { .n = 0 };
	bs_reply(&s, 0xf1);
	bs_reply(&s, 0xf2);
	start();
	sseg(&s, 5, s.n);
	const uint32_t y[] = { 0xf2 };
	expect_msgs("mid-stream replies", 1, y, 1, REPLY_LEN);
	CHECK(rec_nth(&h.r, RDMA_EV_RPC, 0) && rec_nth(&h.r, RDMA_EV_RPC, 0)->conn.side[1].udp_sport == 2049,
	      "the port-2049 side is the server (side 1) with no SYN seen");
	th_done(&h);
}

static void test_bad_mark(void)
{
	struct bs c = { .n = 0 };
	bs_call(&c, 0x71);
	put32(c.b, &c.n, 0x7fffffff);    /* 2^31 - 1, not the last fragment */
	for (int i = 0; i < 100; i++)
		put32(c.b, &c.n, 0xdead0000u + (uint32_t)i);
	bs_call(&c, 0x72);

	start();
	syn();
	cseg(&c, 0, c.n);
	const uint32_t x[] = { 0x71, 0x72 };
	expect_msgs("mark 2^31-1", 0, x, 2, CALL_LEN);
	CHECK_EQ_U64(st()->rpc_bad_marks, 1);
	CHECK_EQ_U64(st()->rpc_resyncs, 1);
	CHECK_EQ_U64(h.r.ndiag, 1);
	CHECK(h.r.ndiag == 1 && strstr(h.r.diag[0], "frame 3,") && strstr(h.r.diag[0], "0x7fffffff"),
	      "one line naming frame 3 and the mark: %s", h.r.diag[0]);
	th_done(&h);

	/* with the last-fragment bit, the stream's first bytes after its
	 * SYN, 1 MiB of zeros after it: refused (one line), nothing of the
	 * megabyte kept or taken for a record */
	c.n = 0;
	put32(c.b, &c.n, 0xffffffff);
	static uint8_t zeros[8000];
	for (int syn_seen = 1; syn_seen >= 0; syn_seen--) {
		start();
		if (syn_seen)
			syn();
		cseg(&c, 0, 4);
		for (uint32_t off = 4; off < (1u << 20); off += sizeof(zeros))
			tcp_seg(&cli, &srv, CISN + 1 + off, 0x18, zeros, sizeof(zeros));
		fin();
		CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 0);
		CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_NEW), 0);
		/* with no SYN the stream is never in step, so it has no mark:
		 * a stream on an RPC port with no record instead */
		CHECK_EQ_U64(st()->rpc_bad_marks, syn_seen ? 1 : 0);
		CHECK_EQ_U64(st()->rpc_no_record, syn_seen ? 0 : 1);
		CHECK_EQ_U64(h.r.ndiag, 1);
		th_done(&h);
	}
}

static void test_never_completed(void)
{
	struct bs c;
	five_calls(&c);
	/* call 2's record: 30 of its 56 bytes, then the capture ends */
	start();
	syn();
	cseg(&c, 0, 86);
	transport_flush(h.t);
	const uint32_t x[] = { 0xd1, 0xd2 };
	expect_msgs("never completed", 0, x, 2, 0);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 1);
	CHECK(e && e->ev.data_len == 26 && e->ev.msg_len == 26 && (e->ev.flags & RDMA_EVF_INCOMPLETE),
	      "call 2 cut: 26 bytes, incomplete");
	CHECK_EQ_U64(st()->rpc_msgs_cut, 1);
	CHECK_EQ_U64(h.r.ndiag, 1);
	th_done(&h);

	/* a stream that never closes: idle for more than 600 s when another
	 * flow's packet comes; its partial record is cut then */
	start();
	syn();
	cseg(&c, 0, 86);
	h.ts += 601ull * 1000000000ull;
	struct bs o = { .n = 0 };
	bs_call(&o, 0x99);
	static const struct rhost cli2 = { { 2, 0, 0, 0, 0, 3 }, 0x0a000003, 801 };
	tcp_seg(&cli2, &srv, 5, 0x18, o.b, o.n);
	CHECK_EQ_U64(st()->rpc_streams_idle, 1);
	CHECK_EQ_U64(st()->rpc_msgs_cut, 1);
	CHECK_EQ_U64(rec_count_proto(&h.r, RDMA_EV_CONN_CLOSE, 6), 1);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 3);
	th_done(&h);
}

/* Events are only counted here: the cap tests make more than the
 * recorder keeps. */
static uint64_t n_rpc, n_new, n_close, n_trunc, n_diag, n_head;

static void count_event(const struct rdma_event *e, void *ctx)
{
	(void)ctx;
	n_rpc += e->type == RDMA_EV_RPC;
	n_new += e->type == RDMA_EV_CONN_NEW;
	n_close += e->type == RDMA_EV_CONN_CLOSE;
	n_trunc += e->type == RDMA_EV_RPC && (e->flags & RDMA_EVF_TRUNC_DATA) && e->data_len < e->msg_len;
	n_head += e->type == RDMA_EV_RPC && e->data_len == 512 && rd32(e->data) == 0x66;
}

static void count_diag(const struct diag *d, void *ctx)
{
	(void)d;
	(void)ctx;
	n_diag++;
}

static void start_counting(void)
{
	n_rpc = n_new = n_close = n_trunc = n_diag = n_head = 0;
	h.t = transport_new(count_event, count_diag, NULL);
	transport_set_linktype(h.t, LINKTYPE_ETHERNET);
	h.ts = 1000000000ull;
	h.frame = 0;
}

static void test_stream_cap(void)
{
	/* 4097 connections from ports 10000.., one call each, never closed:
	 * the table keeps 4096, so the first is closed for the last */
	uint8_t rec[REC_CALL];
	struct bs c = { .n = 0 };
	bs_call(&c, 0x55);
	memcpy(rec, c.b, REC_CALL);
	start_counting();
	for (uint32_t i = 0; i < 4097; i++) {
		struct rhost a = cli;
		a.sport = (uint16_t)(10000 + i);
		tcp_seg(&a, &srv, 1, 0x18, rec, sizeof(rec));
	}
	CHECK_EQ_U64(n_new, 4097);
	CHECK_EQ_U64(n_rpc, 4097);
	CHECK_EQ_U64(st()->rpc_streams_evicted, 1);
	CHECK_EQ_U64(n_close, 1);
	transport_flush(h.t);
	CHECK_EQ_U64(n_close, 4097);
	transport_free(h.t);
}

static void test_buffer_caps(void)
{
	static uint8_t body[8000];
	memset(body, 0x5a, sizeof(body));
	uint8_t m[CALL_LEN];
	call_msg(m, 0x66);

	/* one record of 2 MiB (under the 16 MiB a mark may say): 1 MiB +
	 * 64 KiB of it kept, the message flagged */
	start_counting();
	struct bs c = { .n = 0 };
	bs_mark(&c, true, 2u << 20);
	memcpy(c.b + c.n, m, CALL_LEN);
	c.n += CALL_LEN;
	tcp_seg(&cli, &srv, 1, 0x18, c.b, c.n);
	uint32_t off = (uint32_t)c.n, end = 4 + (2u << 20);
	while (off < end) {
		uint32_t k = end - off < sizeof(body) ? end - off : (uint32_t)sizeof(body);
		tcp_seg(&cli, &srv, 1 + off, 0x18, body, k);
		off += k;
	}
	CHECK_EQ_U64(n_rpc, 1);
	CHECK_EQ_U64(n_trunc, 1);
	CHECK_EQ_U64(st()->rpc_buf_capped, 0);
	transport_free(h.t);

	/* 300 connections each 1 MiB + 64 KiB into a 2 MiB record: all
	 * buffers together are capped at 256 MiB, so some of the 300
	 * (300 x 1.0625 MiB = 319 MiB) cannot grow, and say so */
	start_counting();
	for (uint32_t i = 0; i < 300; i++) {
		struct rhost a = cli;
		a.sport = (uint16_t)(20000 + i);
		tcp_seg(&a, &srv, 1, 0x18, c.b, c.n);
		for (off = (uint32_t)c.n; off < TRANSPORT_DATA_CAP + 4; off += sizeof(body))
			tcp_seg(&a, &srv, 1 + off, 0x18, body, sizeof(body));
	}
	/* 240 x (1 MiB + 64 KiB) = 255 MiB; the 241st grows to 1 MiB and no
	 * further, the 59 after it keep only their first 512 bytes */
	CHECK_EQ_U64(st()->rpc_buf_capped, 60);
	transport_flush(h.t);
	CHECK_EQ_U64(st()->rpc_msgs_cut, 300);
	CHECK_EQ_U64(n_rpc, 300);
	CHECK_EQ_U64(n_trunc, 300);
	CHECK_EQ_U64(n_head, 59);
	transport_free(h.t);
}

/* -------------------------------------------------------------- UDP */

static void udp_frag(const struct rhost *s, const struct rhost *d, uint16_t id, uint32_t off, bool more,
		     const uint8_t *p, size_t n)
{
	struct fb f;
	fb_eth_ipv4(&f, s, d, 17, n, id, (uint16_t)((more ? 0x2000 : 0) | (off / 8)));
	fb_mem(&f, p, n);
	th_feed(&h, &f);
}

/* UDP header + payload as one IP payload. */
static size_t udp_payload(uint8_t *b, uint16_t sport, uint16_t dport, const uint8_t *p, size_t n)
{
	size_t k = 0;
	b[k++] = (uint8_t)(sport >> 8), b[k++] = (uint8_t)sport;
	b[k++] = (uint8_t)(dport >> 8), b[k++] = (uint8_t)dport;
	b[k++] = (uint8_t)((n + 8) >> 8), b[k++] = (uint8_t)(n + 8);
	b[k++] = 0, b[k++] = 0;
	memcpy(b + k, p, n);
	return k + n;
}

static void test_udp(void)
{
	uint8_t m[CALL_LEN], r[REPLY_LEN], dg[64];
	start();
	call_msg(m, 0x501);
	udp_frag(&cli, &srv, 1, 0, false, dg, udp_payload(dg, 800, 2049, m, CALL_LEN));
	reply_msg(r, 0x501);
	udp_frag(&srv, &cli, 2, 0, false, dg, udp_payload(dg, 2049, 800, r, REPLY_LEN));
	const struct rec_ev *c = rec_nth(&h.r, RDMA_EV_RPC, 0), *p = rec_nth(&h.r, RDMA_EV_RPC, 1);
	CHECK(c && c->conn.ip_proto == 17 && c->ev.dir == 0 && c->ev.data_len == CALL_LEN &&
	      !memcmp(c->copy, m, CALL_LEN), "UDP call: one datagram, one message");
	CHECK(p && p->conn.ip_proto == 17 && p->ev.dir == 1 && p->ev.data_len == REPLY_LEN &&
	      rd32(p->copy) == 0x501, "UDP reply, the other way");
	CHECK_EQ_U64(st()->rpc_msgs_udp, 2);
	CHECK_EQ_U64(st()->udp_datagrams, 2);
	/* not RPC on port 2049: counted, one line */
	static const uint8_t junk[40] = "not an RPC message at all, just text..";
	udp_frag(&cli, &srv, 3, 0, false, dg, udp_payload(dg, 800, 2049, junk, sizeof(junk)));
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 2);
	CHECK_EQ_U64(st()->rpc_udp_bad, 1);
	CHECK_EQ_U64(h.r.ndiag, 1);
	th_done(&h);
}

/* A WRITE-sized call of 3000 bytes: with the UDP header, 3008 bytes of
 * IP payload in fragments of 1480, 1480 and 48 bytes. */
static size_t big_call(uint8_t *dg, uint8_t *m)
{
	size_t n = call_msg(m, 0x601);
	for (; n < 3000; n++)
		m[n] = (uint8_t)(n * 7);
	return udp_payload(dg, 800, 2049, m, 3000);
}

static void test_ip_fragments(void)
{
	static uint8_t dg[3100], m[3000];
	size_t n = big_call(dg, m);
	CHECK_EQ_U64(n, 3008);
	const uint32_t offs[3] = { 0, 1480, 2960 }, lens[3] = { 1480, 1480, 48 };
	const int orders[3][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 2, 0 } };

	for (int o = 0; o < 3; o++) {
		start();
		for (int i = 0; i < 3; i++) {
			int f = orders[o][i];
			udp_frag(&cli, &srv, 77, offs[f], f < 2, dg + offs[f], lens[f]);
		}
		const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
		CHECK(rec_count(&h.r, RDMA_EV_RPC) == 1 && e && e->conn.ip_proto == 17 && e->ev.data_len == 3000 &&
		      e->ev.msg_len == 3000 && !memcmp(e->copy, m, 3000), "order %d: one 3000-byte message", o);
		CHECK_EQ_U64(st()->ip_frags, 3);
		CHECK_EQ_U64(st()->ip_reassembled, 1);
		CHECK_EQ_U64(st()->ip_frag_dropped, 0);
		th_done(&h);
	}

	/* the middle fragment twice, and one overlapping the first two */
	start();
	udp_frag(&cli, &srv, 78, 0, true, dg, 1480);
	udp_frag(&cli, &srv, 78, 1480, true, dg + 1480, 1480);
	udp_frag(&cli, &srv, 78, 1480, true, dg + 1480, 1480);
	udp_frag(&cli, &srv, 78, 1000, true, dg + 1000, 1000);
	udp_frag(&cli, &srv, 78, 2960, false, dg + 2960, 48);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(rec_count(&h.r, RDMA_EV_RPC) == 1 && e && e->ev.data_len == 3000 && !memcmp(e->copy, m, 3000),
	      "repeated and overlapping fragments: the message once");
	th_done(&h);

	/* the middle fragment lost: no message, and the datagram never
	 * completed is counted at the capture's end */
	start();
	udp_frag(&cli, &srv, 79, 0, true, dg, 1480);
	udp_frag(&cli, &srv, 79, 2960, false, dg + 2960, 48);
	transport_flush(h.t);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 0);
	CHECK_EQ_U64(st()->ip_reassembled, 0);
	CHECK_EQ_U64(st()->ip_frag_dropped, 1);
	CHECK_EQ_U64(h.r.ndiag, 1);
	th_done(&h);

	/* ... or when it is 30 s old and another fragment comes */
	start();
	udp_frag(&cli, &srv, 80, 0, true, dg, 1480);
	h.ts += 31ull * 1000000000ull;
	for (int f = 0; f < 3; f++)
		udp_frag(&cli, &srv, 81, offs[f], f < 2, dg + offs[f], lens[f]);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 1);
	CHECK_EQ_U64(st()->ip_frag_dropped, 1);
	CHECK_EQ_U64(h.r.ndiag, 1);
	th_done(&h);
}

int main(void)
{
	test_in_order();
	test_split_and_ooo();
	test_ooo_frames();
	test_retransmit_overlap();
	test_server_seq_wrap();
	test_lost();
	test_lost_hold_full();
	test_fragments();
	test_mid_stream();
	test_bad_mark();
	test_never_completed();
	test_stream_cap();
	test_buffer_caps();
	test_udp();
	test_ip_fragments();
	return check_summary("test_rpc_net");
}
