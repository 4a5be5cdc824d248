/* ONC RPC over TCP and UDP, the transport's caps (streams, message
 * buffers, the global budget) and UDP (datagrams, IP fragments), through
 * its public entry points with hand-built frames (test_rpc_net.h).
 * Every expected value is worked out from the bytes the test sends. */
#include "test_rpc_net.h"

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

/* 64 datagrams in reassembly at once is the most: the 65th's first
 * fragment gives up the oldest.  All 65 first fragments carry one
 * timestamp (a clock coarser than the burst), so the oldest is the one
 * that came first, IP id 100; id 163, the last before the 65th, is
 * still held and completes. */
static void test_ip_fragments_full(void)
{
	static uint8_t dg[3100], m[3000];
	big_call(dg, m);
	const uint64_t t = 5ull * 1000000000ull;

	start();
	for (uint16_t id = 100; id <= 164; id++) {
		h.ts = t - 1000;   /* th_feed adds 1000: every one at t */
		udp_frag(&cli, &srv, id, 0, true, dg, 1480);
	}
	CHECK_EQ_U64(st()->ip_frag_dropped, 1);
	CHECK(h.r.ndiag == 1 && strstr(h.r.diag[0], "(IP id 100) given up for a newer one"),
	      "the first to come given up: %s", h.r.ndiag ? h.r.diag[0] : "(no line)");
	udp_frag(&cli, &srv, 163, 1480, true, dg + 1480, 1480);
	udp_frag(&cli, &srv, 163, 2960, false, dg + 2960, 48);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_RPC, 0);
	CHECK(rec_count(&h.r, RDMA_EV_RPC) == 1 && e && e->ev.data_len == 3000 && !memcmp(e->copy, m, 3000),
	      "IP id 163, held, completes: the message");
	th_done(&h);
}

int main(void)
{
	test_stream_cap();
	test_buffer_caps();
	test_udp();
	test_ip_fragments();
	test_ip_fragments_full();
	return check_summary("test_rpc_net_caps");
}
