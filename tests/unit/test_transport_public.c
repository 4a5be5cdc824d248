/* Golden checks on the public real captures in ../shared/captures/public
 * (skipped, saying so, when that folder is absent).  Expected values come
 * from tshark 4.0 on the same files (see docs/transport.md):
 *   roce-cm-write-read-sameqp.pcap  CM REQ/REP/RTU, WRITE Only 18 bytes,
 *       ACK, READ request 4096 + responses First/Middle/Middle/Last,
 *       DREQ/DREP; both QPs 0x11.
 *   roce-cm-write-read-twoqp.pcap   the same on QPs 0x17 (REQ sender) and
 *       0x11, plus 4 ARP frames.
 *   ib-erf-sm-ipoib-cm-send.pcap    ERF type 21: 3 CM connections (9 MADs),
 *       10 RC SEND Only, 9 ACKs, SM/SA MADs and IPoIB UD. */
#include <unistd.h>

#include "check.h"
#include "pcap/capfile.h"
#include "test_transport_frames.h"

static struct th h;

/* Feeds frames [from, to] (1-based, 0 = to the end); returns false when
 * the capture is absent. */
static bool run(const char *name, uint64_t from, uint64_t to)
{
	char rel[256], path[512], err[512];
	struct pcap_source *s;

	snprintf(rel, sizeof(rel), "../shared/captures/public/%s", name);
	check_path(rel, path, sizeof(path));
	if (access(path, R_OK) != 0) {
		CHECK_SKIP("%s absent: public capture checks skipped", path);
		return false;
	}
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	th_init(&h, pcap_source_linktype(s));
	uint64_t ts, n = 0;
	const uint8_t *d;
	size_t cl, wl;
	while (pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err)) == 1) {
		n++;
		if (n < from || (to && n > to))
			continue;
		/* keep the capture's frame numbers */
		transport_packet(h.t, ts, n, d, cl, wl);
	}
	transport_flush(h.t);
	pcap_source_close(s);
	return true;
}

static void test_sameqp(void)
{
	if (!run("roce-cm-write-read-sameqp.pcap", 1, 0))
		return;
	const struct transport_stats *st = transport_stats(h.t);
	CHECK_EQ_U64(st->frames, 12);
	CHECK_EQ_U64(st->roce_v2, 12);
	CHECK_EQ_U64(st->cm_mads, 5);
	CHECK_EQ_U64(st->rc_packets, 7);
	CHECK_EQ_U64(st->writes, 1);
	CHECK_EQ_U64(st->reads, 1);
	CHECK_EQ_U64(st->sends, 0);
	CHECK_EQ_U64(st->acks, 1);
	CHECK_EQ_U64(st->psn_gaps + st->duplicates + st->truncated + st->invalid, 0);
	CHECK_EQ_U64(h.r.ndiag, 0);
	CHECK_EQ_U64(transport_conn_count(h.t), 1);
	const struct rdma_conn *c = transport_conn(h.t, 0);
	CHECK(c && c->pairing == PAIR_CM && c->side[0].qpn == 0x11 && c->side[1].qpn == 0x11, "CM pair");
	CHECK(c && c->side[0].addr[3] == 5 && c->side[1].addr[3] == 4, "REQ sender 192.168.65.5 is side 0");
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_WRITE, 0);
	CHECK(e && e->ev.frame_first == 4 && e->ev.data_len == 18 && e->ev.rkey == 0x2d5 &&
	      e->ev.va == 0xaaab09dd5000ull && e->ev.dma_len == 18 && e->ev.dir == 0 && e->ev.psn_first == 9209053,
	      "WRITE Only (pad 2 excluded)");
	e = rec_nth(&h.r, RDMA_EV_READ, 0);
	CHECK(e && e->ev.frame_first == 6 && e->ev.frame_last == 10 && e->ev.npkts == 5 &&
	      e->ev.data_len == 4096 && e->ev.dma_len == 4096 && e->ev.dir == 0 && e->ev.flags == 0,
	      "READ: request frame 6, responses 7-10");
	e = rec_nth(&h.r, RDMA_EV_CONN_CLOSE, 0);
	CHECK(e && e->ev.frame_first == 11, "closed by the DREQ (frame 11)");
	th_done(&h);

	/* Without the CM frames: inferred pairing, the READ responder and
	 * WRITE receiver (192.168.65.4) is the client. */
	if (!run("roce-cm-write-read-sameqp.pcap", 4, 10))
		return;
	c = transport_conn(h.t, 0);
	CHECK_EQ_U64(transport_conn_count(h.t), 1);
	CHECK(c && c->pairing == PAIR_INFERRED && c->client_known && c->side[0].addr[3] == 4 &&
	      c->side[0].qpn == 0x11 && c->side[1].qpn == 0x11, "inferred pair");
	e = rec_nth(&h.r, RDMA_EV_READ, 0);
	CHECK(e && e->ev.data_len == 4096 && e->ev.dir == 1 && e->ev.flags == 0, "READ, inferred");
	CHECK_EQ_U64(rec_count(&h.r, RDMA_EV_WRITE), 1);
	th_done(&h);
}

static void test_twoqp(void)
{
	if (!run("roce-cm-write-read-twoqp.pcap", 1, 0))
		return;
	const struct transport_stats *st = transport_stats(h.t);
	CHECK_EQ_U64(st->frames, 16);
	CHECK_EQ_U64(st->non_rdma, 4);
	CHECK_EQ_U64(st->writes, 1);
	CHECK_EQ_U64(st->reads, 1);
	CHECK_EQ_U64(h.r.ndiag, 0);
	const struct rdma_conn *c = transport_conn(h.t, 0);
	CHECK(c && c->side[0].qpn == 0x17 && c->side[1].qpn == 0x11 && c->side[0].udp_sport == 62017 &&
	      c->side[1].udp_sport == 57236, "QPs and their UDP ports");
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_READ, 0);
	CHECK(e && e->ev.rkey == 0x220 && e->ev.va == 0xaaab26b58000ull && e->ev.data_len == 4096, "READ");
	th_done(&h);

	/* From the ACK on (no CM, no WRITE): paired by the ACK's PSN,
	 * roles from the READ. */
	if (!run("roce-cm-write-read-twoqp.pcap", 5, 10))
		return;
	c = transport_conn(h.t, 0);
	CHECK_EQ_U64(transport_conn_count(h.t), 1);
	CHECK(c && c->pairing == PAIR_INFERRED && c->client_known && c->side[0].qpn == 0x11 &&
	      c->side[1].qpn == 0x17, "inferred from ACK + READ");
	th_done(&h);
}

static void test_erf_ib(void)
{
	if (!run("ib-erf-sm-ipoib-cm-send.pcap", 1, 0))
		return;
	const struct transport_stats *st = transport_stats(h.t);
	CHECK_EQ_U64(st->frames, 43);
	CHECK_EQ_U64(st->ib_native, 43);
	CHECK_EQ_U64(st->cm_mads, 9);
	CHECK_EQ_U64(st->ud_packets, 24);
	CHECK_EQ_U64(st->rc_packets, 19);
	CHECK_EQ_U64(st->sends, 10);
	CHECK_EQ_U64(st->acks, 9);
	CHECK_EQ_U64(st->psn_gaps + st->duplicates + st->truncated + st->invalid, 0);
	CHECK_EQ_U64(h.r.ndiag, 0);
	CHECK_EQ_U64(transport_conn_count(h.t), 3);
	const struct rdma_conn *c = transport_conn(h.t, 0);
	CHECK(c && c->pairing == PAIR_CM && c->side[0].lid == 4 && c->side[0].qpn == 0x870408 &&
	      c->side[1].lid == 1 && c->side[1].qpn == 0xfc0407, "first IPoIB-CM connection");
	const struct rec_ev *e = rec_nth(&h.r, RDMA_EV_SEND, 0);
	/* frame 10: IPoIB-CM header 08 00 00 00, then IPv4 (ICMP echo) */
	CHECK(e && e->ev.frame_first == 10 && e->ev.data_len == 88 && e->copy[0] == 0x08 &&
	      e->copy[4] == 0x45 && e->ev.psn_first == 13896277, "RC SEND of an ICMP echo");
	/* frames 36, 43 on the third connection (LID 4 -> LID 2) */
	size_t on3 = 0;
	for (size_t i = 0; i < h.r.n; i++)
		on3 += h.r.ev[i].ev.type == RDMA_EV_SEND && h.r.ev[i].conn_id == 3;
	CHECK_EQ_U64(on3, 2);
	th_done(&h);
}

int main(void)
{
	test_sameqp();
	test_twoqp();
	test_erf_ib();
	return check_summary("test_transport_public");
}
