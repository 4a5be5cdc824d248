/* ONC RPC over TCP and UDP through the transport's public entry points
 * (transport_packet / transport_flush / transport_stats and the events):
 * hand-built Ethernet/IPv4/TCP segments (test_rpc_net.h); the caps and
 * UDP are in test_rpc_net_caps.c, a reply decoded before its call in
 * test_rpc_net_pair.c.  Every expected value is worked out below from the
 * bytes the test sends (record marks of RFC 5531 section 11, TCP sequence
 * numbers), not taken from an earlier run. */
#include "test_rpc_net.h"

#include "dissect/dissect.h"

/* --------------------------------------------------------- checking */

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

	/* the search at its edge: the first segment [5, 48) ends 16 bytes
	 * into reply 0xf2's record at 32 (its mark and the 12 bytes of xid,
	 * REPLY, MSG_ACCEPTED a reply needs to be taken), the second holds
	 * the rest: found at the segment's byte 27, the last place a record
	 * can be; the second segment alone (16 zero bytes) holds none */
	const size_t rec_len = 4 + REPLY_LEN, cut = rec_len + 16;
	CHECK_EQ_U64(s.n, 2 * rec_len);
	start();
	sseg(&s, 5, cut);
	sseg(&s, cut, s.n);
	expect_msgs("mid-stream reply found 16 bytes before its segment's end", 1, y, 1, REPLY_LEN);
	CHECK_EQ_U64(st()->rpc_resyncs, 1);
	th_done(&h);

	/* a rejected reply is a reply too (RFC 5531 rejected_reply):
	 * MSG_DENIED with RPC_MISMATCH (0, then the versions low and high)
	 * or AUTH_ERROR (1, then an auth_stat: 5, AUTH_TOOWEAK); found
	 * mid-stream after reply 0xf1's tail like 0xf2 above */
	for (uint32_t rej = 0; rej <= 1; rej++) {
		struct bs sd = { .n = 0 };
		bs_reply(&sd, 0xf1);
		bs_mark(&sd, true, rej ? 20 : 24);
		put32(sd.b, &sd.n, 0xf5);
		put32(sd.b, &sd.n, 1);          /* REPLY */
		put32(sd.b, &sd.n, 1);          /* MSG_DENIED */
		put32(sd.b, &sd.n, rej);
		put32(sd.b, &sd.n, rej ? 5 : 2);
		if (!rej)
			put32(sd.b, &sd.n, 2);
		start();
		sseg(&sd, 5, sd.n);
		const uint32_t z[] = { 0xf5 };
		expect_msgs(rej ? "mid-stream AUTH_ERROR reply" : "mid-stream RPC_MISMATCH reply", 1, z, 1,
			    rej ? 20 : 24);
		th_done(&h);
	}
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


/* Retransmissions that overlap a held segment, every byte of them held
 * already: dropped as Linux's out-of-order queue drops them, so 300 of
 * them (more than the 256 segments the hold keeps) leave room, declare
 * nothing lost, and the hole's bytes still come in order. */
static void test_overlap_held(void)
{
	struct bs c;
	three_calls(&c);
	start();
	syn();
	cseg(&c, 60, c.n);                  /* held: [0, 60) missing */
	for (unsigned i = 0; i < 300; i++) {
		size_t a = 61 + i % 100, b = a + 1 + i / 100;   /* 300 different spans in [61, 163) */
		cseg(&c, a, b);
	}
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_RPC), 0);
	cseg(&c, 0, 60);
	expect_msgs("overlaps inside a held segment", 0, xb, 3, CALL_LEN);
	CHECK_EQ_U64(st()->tcp_out_of_order, 1);
	CHECK_EQ_U64(st()->tcp_retransmits, 300);
	CHECK_EQ_U64(st()->tcp_gaps, 0);
	th_done(&h);

	/* a held segment that a later one covers whole is replaced: its
	 * bytes (here different ones) are not taken */
	struct bs bad = c;
	memset(bad.b + 80, 0xee, 20);        /* inside call 2 (its procedure on) */
	start();
	syn();
	cseg(&bad, 80, 100);
	cseg(&c, 70, c.n);
	cseg(&c, 0, 70);
	expect_msgs("a held segment covered whole", 0, xb, 3, CALL_LEN);
	const struct rec_ev *m2 = rec_nth(&h.r, RDMA_EV_RPC, 1);
	CHECK(m2 && m2->ev.data_len == CALL_LEN && !memcmp(m2->copy, c.b + 60, CALL_LEN),
	      "call 2 has the covering segment's bytes");
	CHECK_EQ_U64(st()->tcp_retransmits, 1);
	th_done(&h);
}

/* ------------------------------------------- records: either order */

#define PAIR_MAX 8
static struct nfsrdma_record pairs[PAIR_MAX];
static size_t npairs;

static void keep_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	(void)t;
	(void)ctx;
	if (npairs < PAIR_MAX)
		pairs[npairs] = *r;
	npairs++;
}

static const struct nfsrdma_record *pair_of(uint32_t xid)
{
	for (size_t i = 0; i < npairs && i < PAIR_MAX; i++)
		if (pairs[i].xid == xid)
			return &pairs[i];
	return NULL;
}

static struct dissect *pair_start(void)
{
	struct dissect_cbs cbs = { .record = keep_record };
	struct dissect *d = dissect_new(NULL, &cbs);
	char err[128];
	h_feed = dissect_feed_new(d, NULL);
	CHECK(d && h_feed && dissect_feed_set_linktype(h_feed, LINKTYPE_ETHERNET, "test", err, sizeof(err)) == 0,
	      "a dissector and its feed");
	npairs = 0;
	h.ts = 1000000000ull;
	h.frame = 0;
	return d;
}

static void pair_done(struct dissect *d)
{
	dissect_feed_free(h_feed);
	h_feed = NULL;
	dissect_free(d);
}

/* The client's direction stalls on a hole inside call 0xc2's fragment;
 * the replies to 0xc2 and 0xc3 are decoded while it waits, then an
 * overlapping retransmission fills the hole and the calls come out.
 * Each call still pairs with its reply, with its own packets' times:
 * 0xc3 was sent whole at t3 (held), both replies came at t4. */
static void test_reply_before_call(void)
{
	struct bs c = { .n = 0 }, s = { .n = 0 };
	const uint32_t x[3] = { 0xc1, 0xc2, 0xc3 };
	for (int i = 0; i < 3; i++) {
		bs_call(&c, x[i]);
		bs_reply(&s, x[i]);
	}
	struct dissect *d = pair_start();
	syn();
	cseg(&c, 0, REC_CALL);                          /* call 0xc1 */
	sseg(&s, 0, 4 + REPLY_LEN);                     /* its reply */
	cseg(&c, REC_CALL + 20, c.n);                   /* held: [56, 76) missing */
	const uint64_t t3 = h.ts;
	sseg(&s, 4 + REPLY_LEN, s.n);                   /* replies 0xc2, 0xc3 */
	const uint64_t t4 = h.ts;
	CHECK_EQ_U64(npairs, 1);                        /* they wait for their calls */
	cseg(&c, REC_CALL - 10, REC_CALL + 30);         /* the retransmission, overlapping both sides */
	fin();
	dissect_feed_finish(h_feed);
	const struct dissect_stats *ds = dissect_stats(d);
	CHECK_EQ_U64(npairs, 3);
	CHECK_EQ_U64(ds->unmatched_replies, 0);
	CHECK_EQ_U64(ds->timeouts, 0);
	CHECK_EQ_U64(ds->early_held, 2);
	CHECK_EQ_U64(ds->early_paired, 2);
	for (int i = 1; i < 3; i++) {
		const struct nfsrdma_record *r = pair_of(x[i]);
		CHECK(r != NULL, "a record for xid 0x%x", x[i]);
		if (!r)
			continue;
		CHECK((r->flags & (RECF_CALL | RECF_REPLY | RECF_NO_CALL | RECF_TIMEOUT)) == (RECF_CALL | RECF_REPLY),
		      "xid 0x%x: call and reply (flags 0x%x)", x[i], r->flags);
		CHECK(r->prog == 100003 && r->vers == 3 && r->proc == 1 && r->rpc_status == REC_RPC_SUCCESS,
		      "xid 0x%x: NFSv3 GETATTR, SUCCESS", x[i]);
		CHECK_EQ_U64(r->t_call_first, t3);
		CHECK_EQ_U64(r->t_call_last, t3);
		CHECK_EQ_U64(r->t_reply_first, t4);
		CHECK_EQ_U64(r->d_phase[REC_PH_CALL], 0);
		CHECK_EQ_U64(r->d_phase[REC_PH_QUEUE_SERVER], t4 - t3);
		CHECK_EQ_U64(r->d_phase[REC_PH_REPLY], 0);
		CHECK_EQ_U64(r->d_total, t4 - t3);
	}
	pair_done(d);
}

/* The hold's bounds: a reply whose call never comes goes out with no
 * call once 120 s of capture time have passed, or when its connection
 * closes; past 4096 held replies the next goes out at once. */
static void test_reply_hold_bounds(void)
{
	struct bs c = { .n = 0 }, s = { .n = 0 };
	bs_reply(&s, 0xd1);
	bs_call(&c, 0xd2);
	bs_reply(&s, 0xd3);
	struct dissect *d = pair_start();
	const struct dissect_stats *ds = dissect_stats(d);
	sseg(&s, 0, 32);                     /* mid-stream: a reply, no call before it */
	CHECK_EQ_U64(npairs, 0);
	h.ts += 121ull * 1000000000ull;
	cseg(&c, 0, c.n);                    /* 121 s on: the call of another xid */
	CHECK_EQ_U64(npairs, 1);
	CHECK(npairs >= 1 && pairs[0].xid == 0xd1 && (pairs[0].flags & RECF_NO_CALL), "0xd1 out with no call");
	CHECK_EQ_U64(ds->early_expired, 1);
	sseg(&s, 32, 64);                    /* 0xd3: no call either */
	CHECK_EQ_U64(npairs, 1);
	fin();                               /* its connection closes */
	CHECK_EQ_U64(npairs, 2);
	CHECK(npairs >= 2 && pairs[1].xid == 0xd3 && (pairs[1].flags & RECF_NO_CALL), "0xd3 out at the close");
	CHECK_EQ_U64(ds->early_expired, 1);
	CHECK_EQ_U64(ds->early_held, 2);
	CHECK_EQ_U64(ds->early_paired, 0);
	dissect_feed_finish(h_feed);
	CHECK_EQ_U64(ds->unmatched_replies, 2);
	pair_done(d);

	/* 4097 replies with no call, 256 to a segment: 4096 held, the
	 * last out at once; all 4097 out by the capture's end */
	d = pair_start();
	ds = dissect_stats(d);
	uint32_t seq = SISN + 1;
	for (uint32_t i = 0; i < 4097;) {
		struct bs r = { .n = 0 };
		for (unsigned k = 0; k < 256 && i < 4097; k++, i++)
			bs_reply(&r, 0x10000 + i);
		tcp_seg(&srv, &cli, seq, 0x18, r.b, r.n);
		seq += (uint32_t)r.n;
	}
	CHECK_EQ_U64(ds->early_held, 4096);
	CHECK_EQ_U64(ds->early_full, 1);
	CHECK_EQ_U64(npairs, 1);
	dissect_feed_finish(h_feed);
	CHECK_EQ_U64(npairs, 4097);
	CHECK_EQ_U64(ds->unmatched_replies, 4097);
	pair_done(d);
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
	test_overlap_held();
	test_reply_before_call();
	test_reply_hold_bounds();
	return check_summary("test_rpc_net");
}
