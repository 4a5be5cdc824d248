/* CM MADs: REQ/REP/RTU/DREQ/DREP/REJ fields, the rdma_cm IP header in
 * front of a REQ's private data, RFC 8797 connection parameters, bad
 * MADs, and the REQ/REP of a real RoCE capture. */
#include <errno.h>
#include <unistd.h>

#include "check.h"
#include "dissect/ib_cm.h"
#include "dissect/roce.h"
#include "pcap/capfile.h"
#include "test_transport_frames.h"

static int parse_mad(const uint8_t *mad, size_t n, struct cm_msg *m)
{
	struct cursor c = cur_make(mad, n);
	return ib_cm_parse(&c, m);
}

static void test_synthetic(void)
{
	uint8_t mad[256];
	struct cm_msg m;
	struct cmspec s;

	/* REQ for NFS/RDMA port 20049 through rdma_cm: cma header, then the
	 * RFC 8797 parameters (send 4096, receive 4096, remote invalidate). */
	memset(&s, 0, sizeof(s));
	s.attr = CM_ATTR_REQ;
	s.local_comm = 0xac6608b9;
	s.service_id = 0x0000000001064e51ull;
	s.local_qpn = 0x17;
	s.start_psn = 0x89bb0e;
	s.mtu = 5;
	s.cma_hdr = true;
	s.cma_src = 0x0a090002;
	s.cma_dst = 0x0a090001;
	s.rpcrdma = true;
	s.rr_version = 1;
	s.rr_flags = 1;
	s.rr_send = 3;
	s.rr_recv = 3;
	cm_mad(mad, &s);
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 1);
	CHECK_EQ_U64(m.attr, CM_ATTR_REQ);
	CHECK_EQ_STR(ib_cm_attr_name(m.attr), "REQ");
	CHECK_EQ_U64(m.local_comm_id, 0xac6608b9);
	CHECK_EQ_U64(m.service_id, 0x0000000001064e51ull);
	CHECK_EQ_U64(m.local_qpn, 0x17);
	CHECK_EQ_U64(m.start_psn, 0x89bb0e);
	CHECK_EQ_U64(m.path_mtu, 5);
	CHECK(m.has_cma_hdr, "cma header");
	CHECK_EQ_U64(m.cma_ipver, 4);
	CHECK_EQ_U64(m.cma_src[3], 2);
	CHECK_EQ_U64(m.cma_dst[3], 1);
	CHECK_EQ_U64(m.priv_len, 92 - 36);
	CHECK_EQ_U64(m.priv_off, 24 + 140 + 36);
	CHECK(m.has_rpcrdma, "RFC 8797 parameters");
	CHECK_EQ_U64(m.rr_version, 1);
	CHECK_EQ_U64(m.rr_flags, 1);
	CHECK_EQ_U64(m.rr_send_size, 4096);
	CHECK_EQ_U64(m.rr_recv_size, 4096);

	/* REQ with a non-IP service ID: no cma header, ULP data at 0 */
	s.service_id = 0x1000000000000001ull;
	s.cma_hdr = false;
	s.rr_send = 0;
	s.rr_recv = 255;
	cm_mad(mad, &s);
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 1);
	CHECK(!m.has_cma_hdr, "no cma header");
	CHECK(m.has_rpcrdma, "parameters at offset 0");
	CHECK_EQ_U64(m.rr_send_size, 1024);
	CHECK_EQ_U64(m.rr_recv_size, 256 * 1024);

	/* IP service ID, but no parameters */
	s.service_id = 0x0000000001061d2full;
	s.cma_hdr = true;
	s.rpcrdma = false;
	cm_mad(mad, &s);
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 1);
	CHECK(m.has_cma_hdr && !m.has_rpcrdma, "cma header only");

	/* REP: parameters at the start of its private data */
	memset(&s, 0, sizeof(s));
	s.attr = CM_ATTR_REP;
	s.local_comm = 0xc8577fdb;
	s.remote_comm = 0xac6608b9;
	s.local_qpn = 0x11;
	s.start_psn = 0xc23298;
	s.rpcrdma = true;
	s.rr_version = 1;
	s.rr_send = 3;
	s.rr_recv = 3;
	cm_mad(mad, &s);
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 1);
	CHECK_EQ_U64(m.remote_comm_id, 0xac6608b9);
	CHECK_EQ_U64(m.local_qpn, 0x11);
	CHECK_EQ_U64(m.start_psn, 0xc23298);
	CHECK_EQ_U64(m.priv_len, 196);
	CHECK(m.has_rpcrdma && m.rr_flags == 0, "REP parameters");

	/* DREQ names the receiver's QPN */
	memset(&s, 0, sizeof(s));
	s.attr = CM_ATTR_DREQ;
	s.local_comm = 1;
	s.remote_comm = 2;
	s.remote_qpn = 0xabcdef;
	cm_mad(mad, &s);
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 1);
	CHECK_EQ_U64(m.remote_qpn, 0xabcdef);
	CHECK_EQ_U64(m.remote_comm_id, 2);

	/* REJ reason */
	s.attr = CM_ATTR_REJ;
	cm_mad(mad, &s);
	mad[24 + 10] = 0;
	mad[24 + 11] = 28;          /* consumer reject */
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 1);
	CHECK_EQ_U64(m.rej_reason, 28);

	/* Not CM: a subnet administration MAD */
	mad[1] = 0x03;
	CHECK_EQ_U64(parse_mad(mad, 256, &m), 0);
	CHECK_EQ_U64(m.mgmt_class, 0x03);

	/* Truncated: REP cut before the local QPN; MAD header cut */
	s.attr = CM_ATTR_REP;
	cm_mad(mad, &s);
	CHECK_EQ_U64(parse_mad(mad, 24 + 10, &m), (uint64_t)-EBADMSG);
	CHECK_EQ_U64(parse_mad(mad, 12, &m), (uint64_t)-EBADMSG);
	/* A REP cut inside its private data still decodes, with less data */
	CHECK_EQ_U64(parse_mad(mad, 24 + 40, &m), 1);
	CHECK_EQ_U64(m.priv_len, 4);
	CHECK(!m.has_rpcrdma, "parameters cut off");

	/* Parameters helper */
	uint8_t pd[8] = { 0xf6, 0xab, 0x0e, 0x18, 2, 0, 0, 0 };
	memset(&m, 0, sizeof(m));
	CHECK(ib_cm_rpcrdma_params(pd, 8, &m), "magic");
	CHECK_EQ_U64(m.rr_version, 2);
	CHECK(!ib_cm_rpcrdma_params(pd, 7, &m), "short");
	pd[0] = 0;
	CHECK(!ib_cm_rpcrdma_params(pd, 8, &m), "bad magic");
}

/* Frame 1 of roce-cm-write-read-twoqp.pcap is the REQ: tshark shows local
 * QPN 0x17, starting PSN 0x89bb0e, MTU 1024 (3), IP CM header 192.168.2.25
 * -> 192.168.2.24, no RPC-over-RDMA parameters; frame 2 the REP (QPN
 * 0x11, PSN 0xc23298). */
static void test_capture(void)
{
	char path[512], err[512];
	struct pcap_source *src;

	check_path("../shared/captures/public/roce-cm-write-read-twoqp.pcap", path, sizeof(path));
	if (access(path, R_OK) != 0) {
		CHECK_SKIP("%s absent: real CM capture not checked", path);
		return;
	}
	CHECK_EQ_U64(pcap_source_open(&src, path, err, sizeof(err)), 0);
	uint64_t ts;
	const uint8_t *d;
	size_t cl, wl;
	for (int i = 0; i < 2; i++) {
		CHECK_EQ_U64(pcap_source_next(src, &ts, &d, &cl, &wl, err, sizeof(err)), 1);
		struct cursor c = cur_make(d, cl);
		struct ib_frame f;
		struct ib_pkt p;
		struct cm_msg m;
		CHECK_EQ_U64(roce_parse_eth(&c, wl, &f), 1);
		CHECK_EQ_U64(ib_parse_bth(&f, &p), 0);
		CHECK_EQ_U64(p.opcode, 0x64);
		CHECK_EQ_U64(p.dqpn, 1);
		struct cursor mc = cur_make(p.payload, p.payload_cap);
		CHECK_EQ_U64(ib_cm_parse(&mc, &m), 1);
		if (i == 0) {
			CHECK_EQ_U64(m.attr, CM_ATTR_REQ);
			CHECK_EQ_U64(m.local_comm_id, 0xac6608b9);
			CHECK_EQ_U64(m.local_qpn, 0x17);
			CHECK_EQ_U64(m.start_psn, 0x89bb0e);
			CHECK_EQ_U64(m.path_mtu, 3);
			CHECK_EQ_U64(m.service_id, 0x0000000001061d2full);
			CHECK(m.has_cma_hdr, "rdma_cm header");
			CHECK_EQ_U64(m.cma_ipver, 4);
			CHECK_EQ_U64(m.cma_src[0], 192);
			CHECK_EQ_U64(m.cma_src[3], 25);
			CHECK_EQ_U64(m.cma_dst[3], 24);
			CHECK(!m.has_rpcrdma, "not RPC-over-RDMA");
		} else {
			CHECK_EQ_U64(m.attr, CM_ATTR_REP);
			CHECK_EQ_U64(m.remote_comm_id, 0xac6608b9);
			CHECK_EQ_U64(m.local_comm_id, 0xc8577fdb);
			CHECK_EQ_U64(m.local_qpn, 0x11);
			CHECK_EQ_U64(m.start_psn, 0xc23298);
		}
	}
	pcap_source_close(src);
}

int main(void)
{
	test_synthetic();
	test_capture();
	return check_summary("test_ib_cm");
}
