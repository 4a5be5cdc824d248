/* Message reassembly and PSN tracking on a CM-established RoCEv2
 * connection built from bytes: SEND First..Last, WRITE with RETH, READ
 * request + responses matched by PSN, immediate/invalidate, pad, gaps,
 * duplicates, retransmissions, NAK classes, snaplen and data caps, flush. */
#include "check.h"
#include "dissect/ib.h"
#include "test_transport_frames.h"

static const struct rhost C = { { 0x52, 0x54, 0, 0, 0, 2 }, 0x0a090002, 0xc002 };
static const struct rhost S = { { 0x52, 0x54, 0, 0, 0, 1 }, 0x0a090001, 0xc001 };
#define QC 0x100
#define QS 0x200
#define MTU 1024

static struct th h;
static struct fb b;
static uint8_t mad[256];
static uint8_t big[16384];
static uint32_t cpsn, spsn;   /* next request PSN of client / server */

static void xmit(const struct rhost *from, const struct rhost *to, const struct ibp *p)
{
	fb_rocev2(&b, from, to, p);
	th_feed(&h, &b);
}

static void cm(const struct rhost *from, const struct rhost *to, const struct cmspec *s)
{
	struct ibp p;
	ibp_cm(&p, mad, s, 1);
	xmit(from, to, &p);
}

static void connect(void)
{
	struct cmspec s;
	memset(&s, 0, sizeof(s));
	s.attr = 0x10;
	s.local_comm = 0x1111;
	s.service_id = 0x0000000001064e51ull;
	s.local_qpn = QC;
	s.start_psn = 1000;
	s.mtu = 3;
	s.cma_hdr = true;
	s.cma_src = C.ip;
	s.cma_dst = S.ip;
	s.rpcrdma = true;
	s.rr_version = 1;
	s.rr_flags = 1;
	s.rr_send = 3;
	s.rr_recv = 3;
	cm(&C, &S, &s);
	memset(&s, 0, sizeof(s));
	s.attr = 0x13;
	s.local_comm = 0x2222;
	s.remote_comm = 0x1111;
	s.local_qpn = QS;
	s.start_psn = 5000;
	s.rpcrdma = true;
	s.rr_version = 1;
	s.rr_send = 3;
	s.rr_recv = 7;
	cm(&S, &C, &s);
	s.attr = 0x14;
	s.local_comm = 0x1111;
	s.remote_comm = 0x2222;
	cm(&C, &S, &s);
	cpsn = 5000;   /* Linux: a side's requests start at the peer's CM PSN */
	spsn = 1000;
}

static void ack(const struct rhost *from, const struct rhost *to, uint32_t dqpn, uint32_t psn, uint8_t syn)
{
	struct ibp p;
	ibp_init(&p, 0x11, dqpn, psn);
	ibp_aeth(&p, syn, 0);
	xmit(from, to, &p);
}

/* A multi-packet SEND or WRITE of n bytes from `from`. */
static void message(const struct rhost *from, const struct rhost *to, uint32_t dqpn, uint32_t *psn,
		    bool write, size_t n, int skip_pkt, uint8_t last_op_override)
{
	size_t off = 0;
	int k = 0;
	while (off < n) {
		struct ibp p;
		size_t chunk = n - off > MTU ? MTU : n - off;
		bool first = off == 0, last = off + chunk == n;
		uint8_t op = write ? (first && last ? 0x0a : first ? 0x06 : last ? 0x08 : 0x07)
				   : (first && last ? 0x04 : first ? 0x00 : last ? 0x02 : 0x01);
		if (last && last_op_override)
			op = last_op_override;
		ibp_init(&p, op, dqpn, *psn);
		if (write && first)
			ibp_reth(&p, 0x7f0000001000ull, 0xabc, (uint32_t)n);
		if (op == 0x03 || op == 0x09 || op == 0x05 || op == 0x0b)
			ibp_ext_be32(&p, 0x11223344);
		if (op == 0x16 || op == 0x17)
			ibp_ext_be32(&p, 0x5555);
		p.payload = big + off;
		p.plen = chunk;
		if (k != skip_pkt)
			xmit(from, to, &p);
		*psn = psn_add(*psn, 1);
		off += chunk;
		k++;
	}
}

static void read_req(const struct rhost *from, const struct rhost *to, uint32_t dqpn, uint32_t psn,
		     uint32_t len, uint64_t va)
{
	struct ibp p;
	ibp_init(&p, 0x0c, dqpn, psn);
	ibp_reth(&p, va, 0x77, len);
	xmit(from, to, &p);
}

/* Responses for a READ at psn of len bytes from `from`. */
static void read_resp(const struct rhost *from, const struct rhost *to, uint32_t dqpn, uint32_t psn,
		      size_t n, size_t src_off, int skip_pkt)
{
	size_t off = 0;
	int k = 0;
	do {
		struct ibp p;
		size_t chunk = n - off > MTU ? MTU : n - off;
		bool first = off == 0, last = off + chunk == n;
		uint8_t op = first && last ? 0x10 : first ? 0x0d : last ? 0x0f : 0x0e;
		ibp_init(&p, op, dqpn, psn_add(psn, (uint32_t)k));
		if (op != 0x0e)
			ibp_aeth(&p, 0x1f, 0);
		p.payload = big + src_off + off;
		p.plen = chunk;
		if (k != skip_pkt)
			xmit(from, to, &p);
		off += chunk;
		k++;
	} while (off < n);
}

static void test_cm_and_messages(void)
{
	const struct transport_stats *st;
	const struct rec_ev *e;

	th_init(&h, LINKTYPE_ETHERNET);
	connect();
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_NEW), 1);
	e = rec_nth(&h.r, RDMA_EV_CONN_NEW, 0);
	CHECK(e && e->conn.pairing == PAIR_CM && e->conn.client_known, "CM pairing");
	CHECK(e && e->ev.frame_first == 1, "CONN_NEW at the REQ");

	/* 1. SEND Only, 101 bytes (pad 3) */
	message(&C, &S, QS, &cpsn, false, 101, -1, 0);
	e = rec_nth(&h.r, RDMA_EV_SEND, 0);
	CHECK(e != NULL, "SEND");
	if (e) {
		CHECK_EQ_U64(e->ev.dir, 0);
		CHECK_EQ_U64(e->ev.data_len, 101);
		CHECK_EQ_U64(e->ev.msg_len, 101);
		CHECK_EQ_U64(e->ev.npkts, 1);
		CHECK_EQ_U64(e->ev.psn_first, 5000);
		CHECK_EQ_U64(e->ev.flags, 0);
		CHECK(memcmp(e->copy, big, 101) == 0, "payload");
	}
	ack(&S, &C, QC, 5000, 0x1f);

	/* 2. SEND of 2500 bytes: First, Middle, Last */
	message(&C, &S, QS, &cpsn, false, 2500, -1, 0);
	e = rec_nth(&h.r, RDMA_EV_SEND, 1);
	CHECK(e != NULL, "3-packet SEND");
	if (e) {
		CHECK_EQ_U64(e->ev.npkts, 3);
		CHECK_EQ_U64(e->ev.data_len, 2500);
		CHECK_EQ_U64(e->ev.msg_len, 2500);
		CHECK_EQ_U64(e->ev.psn_first, 5001);
		CHECK_EQ_U64(e->ev.frame_last - e->ev.frame_first, 2);
		CHECK(e->ev.ts_last_ns > e->ev.ts_first_ns, "timestamps of first and last");
		CHECK(memcmp(e->copy, big, 2500) == 0, "reassembled payload");
	}

	/* 3. RDMA WRITE 3000 bytes server -> client (NFS READ data) */
	message(&S, &C, QC, &spsn, true, 3000, -1, 0);
	e = rec_nth(&h.r, RDMA_EV_WRITE, 0);
	CHECK(e != NULL, "WRITE");
	if (e) {
		CHECK_EQ_U64(e->ev.dir, 1);
		CHECK_EQ_U64(e->ev.rkey, 0xabc);
		CHECK_EQ_U64(e->ev.va, 0x7f0000001000ull);
		CHECK_EQ_U64(e->ev.dma_len, 3000);
		CHECK_EQ_U64(e->ev.data_len, 3000);
		CHECK_EQ_U64(e->ev.npkts, 3);
		CHECK(memcmp(e->copy, big, 3000) == 0, "written data");
	}

	/* 4. WRITE Only with Immediate; SEND Last with Immediate; SEND Only
	 * with Invalidate */
	message(&S, &C, QC, &spsn, true, 10, -1, 0x0b);
	e = rec_nth(&h.r, RDMA_EV_WRITE, 1);
	CHECK(e && (e->ev.flags & RDMA_EVF_HAS_IMM) && e->ev.imm == 0x11223344 && e->ev.dma_len == 10,
	      "WRITE Only with Immediate");
	message(&S, &C, QC, &spsn, false, 1500, -1, 0x03);
	e = rec_nth(&h.r, RDMA_EV_SEND, 2);
	CHECK(e && (e->ev.flags & RDMA_EVF_HAS_IMM) && e->ev.data_len == 1500, "SEND Last with Immediate");
	message(&S, &C, QC, &spsn, false, 200, -1, 0x17);
	e = rec_nth(&h.r, RDMA_EV_SEND, 3);
	CHECK(e && (e->ev.flags & RDMA_EVF_HAS_INV) && e->ev.inv_rkey == 0x5555 && e->ev.dir == 1,
	      "SEND Only with Invalidate");
	message(&S, &C, QC, &spsn, false, 1500, -1, 0x16);
	e = rec_nth(&h.r, RDMA_EV_SEND, 4);
	CHECK(e && (e->ev.flags & RDMA_EVF_HAS_INV) && e->ev.npkts == 2, "SEND Last with Invalidate");

	/* 5. RDMA READ of 3000 bytes by the server: 3 PSNs at MTU 1024 */
	uint32_t rpsn = spsn;
	read_req(&S, &C, QC, rpsn, 3000, 0x10000);
	spsn = psn_add(spsn, 3);
	read_resp(&C, &S, QS, rpsn, 3000, 100, -1);
	e = rec_nth(&h.r, RDMA_EV_READ, 0);
	CHECK(e != NULL, "READ");
	if (e) {
		CHECK_EQ_U64(e->ev.dir, 1);          /* the server asked */
		CHECK_EQ_U64(e->ev.psn_first, rpsn);
		CHECK_EQ_U64(e->ev.npkts, 4);        /* request + 3 responses */
		CHECK_EQ_U64(e->ev.data_len, 3000);
		CHECK_EQ_U64(e->ev.msg_len, 3000);
		CHECK_EQ_U64(e->ev.dma_len, 3000);
		CHECK_EQ_U64(e->ev.rkey, 0x77);
		CHECK_EQ_U64(e->ev.va, 0x10000);
		CHECK_EQ_U64(e->ev.frame_last - e->ev.frame_first, 3);
		CHECK_EQ_U64(e->ev.flags, 0);
		CHECK(memcmp(e->copy, big + 100, 3000) == 0, "read data");
	}
	/* The next server request follows the READ's 3 PSNs: no gap. */
	message(&S, &C, QC, &spsn, false, 50, -1, 0);
	st = transport_stats(h.t);
	CHECK_EQ_U64(st->psn_gaps, 0);

	/* 6. Two READs outstanding, small ones (READ Response Only) */
	uint32_t r1 = spsn, r2 = psn_add(spsn, 1);
	read_req(&S, &C, QC, r1, 100, 0x20000);
	read_req(&S, &C, QC, r2, 200, 0x30000);
	spsn = psn_add(spsn, 2);
	read_resp(&C, &S, QS, r1, 100, 0, -1);
	read_resp(&C, &S, QS, r2, 200, 0, -1);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_READ), 3);
	e = rec_nth(&h.r, RDMA_EV_READ, 2);
	CHECK(e && e->ev.va == 0x30000 && e->ev.data_len == 200 && e->ev.npkts == 2, "second READ");

	/* 7. A READ whose responses the capture lost: the next READ's
	 * responses arrive -> NO_RESPONSE for the first */
	r1 = spsn;
	r2 = psn_add(spsn, 1);
	read_req(&S, &C, QC, r1, 100, 0x40000);
	read_req(&S, &C, QC, r2, 100, 0x50000);
	spsn = psn_add(spsn, 2);
	read_resp(&C, &S, QS, r2, 100, 0, -1);
	e = rec_nth(&h.r, RDMA_EV_READ, 3);
	CHECK(e && e->ev.va == 0x40000 && (e->ev.flags & RDMA_EVF_NO_RESPONSE), "unanswered READ");
	e = rec_nth(&h.r, RDMA_EV_READ, 4);
	CHECK(e && e->ev.va == 0x50000 && !(e->ev.flags & RDMA_EVF_NO_RESPONSE), "answered READ");

	/* 8. A READ followed by an ACK for a later request: responses lost */
	r1 = spsn;
	read_req(&S, &C, QC, r1, 100, 0x60000);
	spsn = psn_add(spsn, 1);
	message(&S, &C, QC, &spsn, false, 10, -1, 0);
	ack(&C, &S, QS, psn_add(spsn, (uint32_t)-1), 0x1f);
	e = rec_nth(&h.r, RDMA_EV_READ, 5);
	CHECK(e && e->ev.va == 0x60000 && (e->ev.flags & RDMA_EVF_NO_RESPONSE), "READ overtaken by an ACK");

	/* 9. READ response with a missing middle packet */
	r1 = spsn;
	read_req(&S, &C, QC, r1, 3000, 0x70000);
	spsn = psn_add(spsn, 3);
	read_resp(&C, &S, QS, r1, 3000, 0, 1);
	e = rec_nth(&h.r, RDMA_EV_READ, 6);
	CHECK(e && (e->ev.flags & RDMA_EVF_INCOMPLETE) && e->ev.data_len == 1976 && e->ev.msg_len == 1976,
	      "READ missing a response packet");
	st = transport_stats(h.t);
	CHECK_EQ_U64(st->psn_gaps, 1);
	e = rec_nth(&h.r, RDMA_EV_GAP, 0);
	CHECK(e && e->ev.dir == 0 && e->ev.psn_first == psn_add(r1, 1) && e->ev.npkts == 1,
	      "GAP names the client's missing READ response");

	/* 10. SEND with its Middle lost: GAP + INCOMPLETE */
	uint32_t sfirst = cpsn;
	message(&C, &S, QS, &cpsn, false, 3000, 1, 0);
	e = rec_nth(&h.r, RDMA_EV_GAP, 1);
	CHECK(e && e->ev.dir == 0 && e->ev.psn_first == psn_add(sfirst, 1) && e->ev.npkts == 1, "GAP event");
	e = rec_nth(&h.r, RDMA_EV_SEND, rec_count(&h.r, RDMA_EV_SEND) - 1);
	CHECK(e && (e->ev.flags & RDMA_EVF_INCOMPLETE) && e->ev.msg_len == 1976 && e->ev.npkts == 2,
	      "SEND across a gap");

	/* 11. The lost Middle retransmitted later: counted, not reassembled */
	size_t nsend = rec_count(&h.r, RDMA_EV_SEND);
	{
		struct ibp p;
		ibp_init(&p, 0x01, QS, psn_add(sfirst, 1));
		p.payload = big;
		p.plen = MTU;
		xmit(&C, &S, &p);
	}
	st = transport_stats(h.t);
	CHECK_EQ_U64(st->retransmits, 1);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_SEND), nsend);

	/* 12. A duplicate of a delivered SEND Only */
	uint32_t dup = cpsn;
	message(&C, &S, QS, &cpsn, false, 60, -1, 0);
	{
		uint32_t again = dup;
		message(&C, &S, QS, &again, false, 60, -1, 0);
	}
	st = transport_stats(h.t);
	CHECK_EQ_U64(st->duplicates, 1);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_SEND), nsend + 1);

	/* 13. A retransmission inside a message in progress flags it */
	{
		uint32_t p0 = cpsn;
		struct ibp p;
		ibp_init(&p, 0x00, QS, p0);
		p.payload = big;
		p.plen = MTU;
		xmit(&C, &S, &p);
		xmit(&C, &S, &p);               /* same First again */
		ibp_init(&p, 0x02, QS, psn_add(p0, 1));
		p.payload = big;
		p.plen = 10;
		xmit(&C, &S, &p);
		cpsn = psn_add(p0, 2);
		e = rec_nth(&h.r, RDMA_EV_SEND, nsend + 1);
		CHECK(e && (e->ev.flags & RDMA_EVF_RETRANSMIT) && e->ev.msg_len == MTU + 10,
		      "SEND with a retransmitted packet");
	}

	/* 14. NAK classes */
	ack(&S, &C, QC, 1, 0x60);
	ack(&S, &C, QC, 1, 0x61);
	ack(&S, &C, QC, 1, 0x62);
	ack(&S, &C, QC, 1, 0x63);
	ack(&S, &C, QC, 1, 0x2e);
	st = transport_stats(h.t);
	CHECK_EQ_U64(st->naks, 5);
	CHECK_EQ_U64(st->nak_seq, 1);
	CHECK_EQ_U64(st->nak_inv_req, 1);
	CHECK_EQ_U64(st->nak_access, 1);
	CHECK_EQ_U64(st->nak_op, 1);
	CHECK_EQ_U64(st->rnr_naks, 1);

	/* 15. Snaplen: a SEND Only captured short */
	{
		struct ibp p;
		ibp_init(&p, 0x04, QS, cpsn);
		cpsn = psn_add(cpsn, 1);
		p.payload = big;
		p.plen = 500;
		fb_rocev2(&b, &C, &S, &p);
		th_feed_cut(&h, &b, 42 + 12 + 100);
		size_t n = rec_count(&h.r, RDMA_EV_SEND);
		e = rec_nth(&h.r, RDMA_EV_SEND, n - 1);
		CHECK(e && (e->ev.flags & RDMA_EVF_TRUNC_DATA) && e->ev.data_len == 100 && e->ev.msg_len == 500,
		      "snaplen-cut SEND");
		CHECK_EQ_U64(h.r.ndiag, 0);
	}

	/* 16. Data cap */
	transport_set_data_cap(h.t, 1000);
	message(&C, &S, QS, &cpsn, false, 2500, -1, 0);
	{
		size_t n = rec_count(&h.r, RDMA_EV_SEND);
		e = rec_nth(&h.r, RDMA_EV_SEND, n - 1);
		CHECK(e && (e->ev.flags & RDMA_EVF_TRUNC_DATA) && e->ev.data_len == 1000 && e->ev.msg_len == 2500,
		      "data cap");
	}
	transport_set_data_cap(h.t, TRANSPORT_DATA_CAP);

	/* 17. Flush: a SEND without its Last, a READ never answered */
	message(&C, &S, QS, &cpsn, false, 2500, 2, 0);
	read_req(&S, &C, QC, spsn, 64, 0x80000);
	size_t nread = rec_count(&h.r, RDMA_EV_READ);
	size_t nsend2 = rec_count(&h.r, RDMA_EV_SEND);
	transport_flush(h.t);
	e = rec_nth(&h.r, RDMA_EV_SEND, nsend2);
	CHECK(e && (e->ev.flags & RDMA_EVF_INCOMPLETE) && e->ev.msg_len == 2048, "partial SEND at flush");
	e = rec_nth(&h.r, RDMA_EV_READ, nread);
	CHECK(e && (e->ev.flags & RDMA_EVF_NO_RESPONSE) && e->ev.va == 0x80000, "unanswered READ at flush");
	CHECK(h.r.n && h.r.ev[h.r.n - 1].ev.type == RDMA_EV_CONN_CLOSE, "CONN_CLOSE last");
	CHECK_EQ_U64(h.r.ndiag, 0);

	const struct rdma_conn *c = transport_conn(h.t, 0);
	CHECK(c != NULL, "connection listed");
	if (c) {
		CHECK_EQ_U64(c->side[0].qpn, QC);
		CHECK_EQ_U64(c->side[1].qpn, QS);
		CHECK_EQ_U64(c->side[0].addr[3], 2);
		CHECK_EQ_U64(c->side[0].udp_sport, C.sport);
		CHECK(c->cm_params[0] && c->cm_params[1], "both sides sent parameters");
		CHECK_EQ_U64(c->inline_send[0], 4096);
		CHECK_EQ_U64(c->inline_recv[1], 8192);
		CHECK(c->remote_inv[0] && !c->remote_inv[1], "remote invalidation flags");
	}
	CHECK_EQ_U64(transport_conn_count(h.t), 1);
	th_done(&h);
}

/* DREQ/DREP close the connection; packets right after it are counted as
 * late, the same QPNs reconnected by CM make a new connection. */
static void test_disconnect(void)
{
	struct cmspec s;
	const struct rec_ev *e;

	th_init(&h, LINKTYPE_ETHERNET);
	connect();
	message(&C, &S, QS, &cpsn, false, 10, -1, 0);
	memset(&s, 0, sizeof(s));
	s.attr = 0x15;
	s.local_comm = 0x1111;
	s.remote_comm = 0x2222;
	s.remote_qpn = QS;
	cm(&C, &S, &s);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_CLOSE), 1);
	e = rec_nth(&h.r, RDMA_EV_CONN_CLOSE, 0);
	CHECK(e && e->ev.frame_first == h.frame, "closed at the DREQ");
	message(&C, &S, QS, &cpsn, false, 10, -1, 0);
	CHECK_EQ_U64(transport_stats(h.t)->late_packets, 1);
	s.attr = 0x16;
	s.local_comm = 0x2222;
	s.remote_comm = 0x1111;
	cm(&S, &C, &s);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_CLOSE), 1);
	connect();
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_NEW), 2);
	message(&C, &S, QS, &cpsn, false, 10, -1, 0);
	e = rec_nth(&h.r, RDMA_EV_SEND, 1);
	CHECK(e && e->conn_id == 2, "reconnected QPs are a new connection");
	transport_flush(h.t);
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_CONN_CLOSE), 2);
	CHECK_EQ_U64(transport_conn_count(h.t), 2);
	th_done(&h);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + (i >> 8));
	test_cm_and_messages();
	test_disconnect();
	return check_summary("test_transport_reassembly");
}
