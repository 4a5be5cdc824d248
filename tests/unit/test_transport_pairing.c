/* QP pairing without CM (capture started mid-connection): pairing from
 * the reverse direction, PSN and UDP-port evidence with several
 * connections between the same hosts, the client/server decision (side[0]
 * = client) with events held until it is made, the hold bound, a REP
 * without its REQ, messages cut by the capture start, READs with the path
 * MTU unknown and learned. */
#include "check.h"
#include "dissect/ib.h"
#include "test_transport_frames.h"

static struct rhost C = { { 0x52, 0x54, 0, 0, 0, 2 }, 0x0a090002, 0 };
static struct rhost S = { { 0x52, 0x54, 0, 0, 0, 1 }, 0x0a090001, 0 };

static struct th h;
static struct fb b;
static uint8_t pl[4096];
static uint8_t mad[256];

/* One packet from host `from` (UDP source port sport) to QP dqpn. */
static void pkt(const struct rhost *from, uint16_t sport, const struct rhost *to, uint8_t op,
		uint32_t dqpn, uint32_t psn, size_t plen, uint32_t reth_len)
{
	struct rhost f = *from;
	struct ibp p;
	f.sport = sport;
	ibp_init(&p, op, dqpn, psn);
	const struct ib_opinfo *o = ib_opinfo(op);
	if (o->hdrs & IBH_RETH)
		ibp_reth(&p, 0x1000, 0x42, reth_len);
	if (o->hdrs & IBH_AETH)
		ibp_aeth(&p, 0x1f, 0);
	if (o->hdrs & IBH_IETH)
		ibp_ext_be32(&p, 0x99);
	p.payload = pl;
	p.plen = plen;
	fb_rocev2(&b, &f, to, &p);
	th_feed(&h, &b);
}

/* Server's reply first, then the rest; the WRITE decides the roles. */
static void test_infer_roles(void)
{
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&S, 0xc001, &C, 0x04, 0x100, 7000, 300, 0);   /* reply SEND */
	CHECK_EQ_U64(h.r.n, 0);                             /* held: roles unknown */
	pkt(&C, 0xc002, &S, 0x11, 0x200, 7000, 0, 0);      /* ACK of it */
	pkt(&C, 0xc002, &S, 0x04, 0x200, 3000, 200, 0);    /* call SEND */
	pkt(&S, 0xc001, &C, 0x11, 0x100, 3000, 0, 0);      /* ACK of it */
	CHECK_EQ_U64(h.r.n, 0);
	pkt(&S, 0xc001, &C, 0x0a, 0x100, 7001, 64, 64);    /* server WRITEs */
	CHECK_EQ_U64(h.r.n, 4);
	CHECK(h.r.n >= 4 && h.r.ev[0].ev.type == RDMA_EV_CONN_NEW, "CONN_NEW first");
	if (h.r.n >= 4) {
		const struct rdma_conn *c = &h.r.ev[0].conn;
		CHECK_EQ_U64(c->pairing, PAIR_INFERRED);
		CHECK(c->client_known, "roles decided");
		CHECK_EQ_U64(c->side[0].addr[3], 2);          /* client 10.9.0.2 */
		CHECK_EQ_U64(c->side[0].qpn, 0x100);
		CHECK_EQ_U64(c->side[1].qpn, 0x200);
		CHECK(c->side[0].qpn_known && c->side[1].qpn_known, "both QPNs");
		CHECK_EQ_U64(h.r.ev[1].ev.type, RDMA_EV_SEND);
		CHECK_EQ_U64(h.r.ev[1].ev.dir, 1);            /* server -> client */
		CHECK_EQ_U64(h.r.ev[1].ev.frame_first, 1);
		CHECK_EQ_U64(h.r.ev[1].ev.data_len, 300);
		CHECK_EQ_U64(h.r.ev[2].ev.dir, 0);
		CHECK_EQ_U64(h.r.ev[2].ev.data_len, 200);
		CHECK(memcmp(h.r.ev[2].copy, pl, 200) == 0, "held data kept");
		CHECK_EQ_U64(h.r.ev[3].ev.type, RDMA_EV_WRITE);
		CHECK_EQ_U64(h.r.ev[3].ev.dir, 1);
	}
	const struct rdma_conn *c = transport_conn(h.t, 0);
	CHECK(c && c->side[0].udp_sport == 0xc002 && c->side[1].udp_sport == 0xc001, "UDP ports per side");
	CHECK_EQ_U64(transport_stats(h.t)->conns_inferred, 1);
	transport_flush(h.t);
	CHECK_EQ_U64(transport_conn_count(h.t), 1);
	th_done(&h);
}

/* A READ response from the client decides the roles as well. */
static void test_infer_roles_read(void)
{
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&S, 0xc001, &C, 0x0c, 0x100, 500, 0, 3000);   /* server READ request */
	CHECK_EQ_U64(h.r.n, 1);                            /* decided at once */
	CHECK_EQ_U64(h.r.ev[0].conn.side[0].addr[3], 2);
	/* Next server request before the responses: within the READ's
	 * possible PSN span (MTU unknown), no gap. */
	pkt(&S, 0xc001, &C, 0x04, 0x100, 503, 10, 0);
	pkt(&C, 0xc002, &S, 0x0d, 0x200, 500, 1024, 0);
	pkt(&C, 0xc002, &S, 0x0e, 0x200, 501, 1024, 0);
	pkt(&C, 0xc002, &S, 0x0f, 0x200, 502, 952, 0);
	pkt(&S, 0xc001, &C, 0x04, 0x100, 504, 10, 0);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_READ, 0);
	CHECK(e && e->ev.data_len == 3000 && e->ev.npkts == 4 && e->ev.dir == 1 && !e->ev.flags,
	      "READ on an inferred connection");
	CHECK_EQ_U64(transport_stats(h.t)->psn_gaps, 0);
	CHECK_EQ_U64(e ? e->conn.pairing : 0, PAIR_INFERRED);
	transport_flush(h.t);
	th_done(&h);
}

/* The path MTU learned from a full First packet, at both ends of the
 * range RoCE allows (256 and 4096 bytes): the server's reply of mtu + 100
 * bytes (First at PSN 498, Last 499), then its READ of 2 * mtu bytes at
 * 500, which uses PSNs 500 and 501 exactly; its next request at 503,
 * before the READ's responses (which would tell the span), is one PSN
 * (502) past that: a gap of one. */
static void test_read_mtu_learned(void)
{
	static const uint32_t mtus[] = { 256, 4096 };
	for (size_t i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++) {
		uint32_t mtu = mtus[i];
		th_init(&h, LINKTYPE_ETHERNET);
		pkt(&S, 0xc001, &C, 0x00, 0x100, 498, mtu, 0);       /* SEND First */
		pkt(&S, 0xc001, &C, 0x02, 0x100, 499, 100, 0);       /* SEND Last */
		pkt(&S, 0xc001, &C, 0x0c, 0x100, 500, 0, 2 * mtu);   /* READ request */
		pkt(&S, 0xc001, &C, 0x04, 0x100, 503, 10, 0);
		pkt(&C, 0xc002, &S, 0x0d, 0x200, 500, mtu, 0);
		pkt(&C, 0xc002, &S, 0x0f, 0x200, 501, mtu, 0);
		transport_flush(h.t);
		const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_SEND, 0);
		CHECK(e && e->ev.data_len == mtu + 100 && e->ev.npkts == 2 && !e->ev.flags,
		      "MTU %u: the reply whole", mtu);
		e = rec_nth(&h.r, RDMA_EV_READ, 0);
		CHECK(e && e->ev.data_len == 2 * mtu && e->ev.dir == 1 && !(e->ev.flags & RDMA_EVF_INCOMPLETE),
		      "MTU %u: the READ whole", mtu);
		CHECK_EQ_U64(transport_stats(h.t)->psn_gaps, 1);
		e = rec_nth(&h.r, RDMA_EV_GAP, 0);
		CHECK(e && e->ev.psn_first == 502 && e->ev.npkts == 1 && e->ev.dir == 1,
		      "MTU %u: PSN 502 missing, one packet", mtu);
		th_done(&h);
	}
}

/* No RDMA at all: first sender stays side[0], client_known false, the
 * held events come out at the end, in order. */
static void test_undecided(void)
{
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&C, 0xc002, &S, 0x04, 0x200, 10, 100, 0);
	pkt(&S, 0xc001, &C, 0x04, 0x100, 20, 100, 0);
	CHECK_EQ_U64(h.r.n, 0);
	transport_flush(h.t);
	CHECK_EQ_U64(h.r.n, 4);
	if (h.r.n == 4) {
		CHECK_EQ_U64(h.r.ev[0].ev.type, RDMA_EV_CONN_NEW);
		CHECK(!h.r.ev[0].conn.client_known, "client not known");
		CHECK_EQ_U64(h.r.ev[0].conn.side[0].addr[3], 2);   /* first sender */
		CHECK_EQ_U64(h.r.ev[1].ev.dir, 0);
		CHECK_EQ_U64(h.r.ev[2].ev.dir, 1);
		CHECK_EQ_U64(h.r.ev[3].ev.type, RDMA_EV_CONN_CLOSE);
	}
	th_done(&h);

	/* The hold is bounded: 300 messages without evidence are delivered
	 * once 256 are held, the rest as they come. */
	th_init(&h, LINKTYPE_ETHERNET);
	for (uint32_t i = 0; i < 300; i++)
		pkt(i & 1 ? &S : &C, 0xc000, i & 1 ? &C : &S, 0x04, i & 1 ? 0x100 : 0x200, 1000 + i / 2, 8, 0);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_SEND), 300);
	CHECK_EQ_U64(h.r.ev[0].ev.type, RDMA_EV_CONN_NEW);
	bool ordered = true;
	for (size_t i = 2; i < h.r.n; i++)
		if (h.r.ev[i].ev.frame_first <= h.r.ev[i - 1].ev.frame_first)
			ordered = false;
	CHECK(ordered, "events in frame order across the release");
	transport_flush(h.t);
	th_done(&h);
}

/* Two connections between the same hosts (nconnect=2). */
static void test_two_conns(void)
{
	/* rxe-style ports: each QP sends from 0xC000 + hash(its QPN) */
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&C, roce_rxe_sport(0x101), &S, 0x04, 0x201, 100, 40, 0);
	pkt(&C, roce_rxe_sport(0x102), &S, 0x04, 0x202, 500, 40, 0);
	pkt(&S, roce_rxe_sport(0x202), &C, 0x04, 0x102, 900, 40, 0);
	pkt(&S, roce_rxe_sport(0x201), &C, 0x04, 0x101, 300, 40, 0);
	transport_flush(h.t);
	CHECK_EQ_U64(transport_conn_count(h.t), 2);
	for (size_t i = 0; i < transport_conn_count(h.t); i++) {
		const struct rdma_conn *c = transport_conn(h.t, i);
		CHECK_EQ_U64(c->pairing, PAIR_INFERRED);
		CHECK_EQ_U64(c->side[0].qpn + 0x100, c->side[1].qpn);
	}
	th_done(&h);

	/* Ports that follow no rule: the ACK PSNs pair them. */
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&C, 50000, &S, 0x04, 0x201, 100, 40, 0);
	pkt(&C, 50000, &S, 0x04, 0x202, 500, 40, 0);
	pkt(&S, 50001, &C, 0x11, 0x102, 500, 0, 0);
	pkt(&S, 50001, &C, 0x11, 0x101, 100, 0, 0);
	transport_flush(h.t);
	CHECK_EQ_U64(transport_conn_count(h.t), 2);
	for (size_t i = 0; i < transport_conn_count(h.t); i++) {
		const struct rdma_conn *c = transport_conn(h.t, i);
		CHECK_EQ_U64(c->pairing, PAIR_INFERRED);
		CHECK_EQ_U64(c->side[0].qpn + 0x100, c->side[1].qpn);
	}
	th_done(&h);

	/* No evidence either way: a new one-sided connection, not a guess. */
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&C, 50000, &S, 0x04, 0x201, 100, 40, 0);
	pkt(&C, 50000, &S, 0x04, 0x202, 500, 40, 0);
	pkt(&S, 50001, &C, 0x04, 0x102, 900, 40, 0);
	transport_flush(h.t);
	CHECK_EQ_U64(transport_conn_count(h.t), 3);
	for (size_t i = 0; i < transport_conn_count(h.t); i++)
		CHECK_EQ_U64(transport_conn(h.t, i)->pairing, PAIR_ONE_SIDED);
	th_done(&h);
}

/* CM REP seen but its REQ not: side[0] is the REP's receiver, its QPN
 * learned from the traffic. */
static void test_rep_only(void)
{
	struct cmspec s;
	struct ibp p;
	memset(&s, 0, sizeof(s));
	s.attr = 0x13;
	s.local_comm = 0x2222;
	s.remote_comm = 0x1111;
	s.local_qpn = 0x200;
	s.start_psn = 5000;
	th_init(&h, LINKTYPE_ETHERNET);
	ibp_cm(&p, mad, &s, 1);
	fb_rocev2(&b, &S, &C, &p);
	th_feed(&h, &b);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_NEW), 1);
	pkt(&C, 0xc002, &S, 0x04, 0x200, 5000, 40, 0);
	pkt(&S, 0xc001, &C, 0x11, 0x100, 5000, 0, 0);
	CHECK_EQ_U64(transport_conn_count(h.t), 1);
	const struct rdma_conn *c = transport_conn(h.t, 0);
	CHECK(c && c->pairing == PAIR_CM && c->client_known && c->side[0].qpn_known &&
	      c->side[0].qpn == 0x100 && c->side[1].qpn == 0x200, "REP-only connection completed");
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_SEND), 1);
	transport_flush(h.t);
	th_done(&h);
}

/* The capture starts inside messages. */
static void test_capture_starts_mid_message(void)
{
	th_init(&h, LINKTYPE_ETHERNET);
	pkt(&C, 0xc002, &S, 0x01, 0x200, 10, 1024, 0);      /* SEND Middle */
	pkt(&C, 0xc002, &S, 0x02, 0x200, 11, 100, 0);       /* SEND Last */
	/* Responses to a READ that C sent at PSN 7 (7..9), before the capture */
	pkt(&S, 0xc001, &C, 0x0e, 0x100, 8, 1024, 0);       /* READ resp Middle */
	pkt(&S, 0xc001, &C, 0x0f, 0x100, 9, 10, 0);         /* READ resp Last */
	transport_flush(h.t);
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_SEND, 0);
	CHECK(e && (e->ev.flags & RDMA_EVF_INCOMPLETE) && e->ev.msg_len == 1124 && e->ev.npkts == 2,
	      "SEND without its First");
	e = rec_nth(&h.r, RDMA_EV_READ, 0);
	CHECK(e && (e->ev.flags & RDMA_EVF_INCOMPLETE) && e->ev.msg_len == 1034, "READ response without request");
	/* the READ response came from S: S is the client */
	CHECK(e && e->conn.client_known && e->conn.side[0].addr[3] == 1, "roles from the READ response");
	CHECK(e && e->ev.dir == 1, "READ issued by the server side");
	CHECK_EQ_U64(transport_stats(h.t)->psn_gaps, 0);
	CHECK_EQ_U64(transport_conn_count(h.t), 1);   /* paired by the PSNs */
	th_done(&h);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i ^ 0x5a);
	test_infer_roles();
	test_infer_roles_read();
	test_read_mtu_learned();
	test_undecided();
	test_two_conns();
	test_rep_only();
	test_capture_starts_mid_message();
	return check_summary("test_transport_pairing");
}
