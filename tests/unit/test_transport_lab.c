/* The lab captures (the .pcap files in tests/captures: NFS over soft-RoCE between
 * server 10.9.0.1 and client 10.9.0.2, see tests/captures/README): checks
 * that hold however often the captures are regenerated -- no diagnostic,
 * no gap, every message whole, the client is side[0] (by CM, or inferred
 * in midconn.pcap), only the server initiates RDMA, RDMA lengths match
 * their RETH, RFC 8797 parameters as Linux sends them.  Skips, saying so,
 * when a capture is absent. */
#include <unistd.h>

#include "check.h"
#include "pcap/capfile.h"
#include "test_transport_frames.h"

static struct th h;

static bool run(const char *name)
{
	char rel[256], path[512], err[512];
	struct pcap_source *s;

	snprintf(rel, sizeof(rel), "tests/captures/%s", name);
	check_path(rel, path, sizeof(path));
	if (access(path, R_OK) != 0) {
		CHECK_SKIP("%s absent: lab capture checks skipped", path);
		return false;
	}
	CHECK_EQ_U64(pcap_source_open(&s, path, err, sizeof(err)), 0);
	th_init(&h, pcap_source_linktype(s));
	uint64_t ts, n = 0;
	const uint8_t *d;
	size_t cl, wl;
	int rc;
	while ((rc = pcap_source_next(s, &ts, &d, &cl, &wl, err, sizeof(err))) == 1)
		transport_packet(h.t, ts, ++n, d, cl, wl);
	CHECK(rc == 0, "%s: %s", name, err);
	transport_flush(h.t);
	pcap_source_close(s);
	return true;
}

/* Invariants of every NFS/RDMA lab capture. */
static void check_nfs(const char *name, bool cm)
{
	if (!run(name))
		return;
	const struct transport_stats *st = transport_stats(h.t);
	CHECK(h.r.ndiag == 0, "%s: %s", name, h.r.ndiag ? h.r.diag[0] : "");
	CHECK(st->truncated + st->invalid + st->psn_gaps + st->incomplete_msgs + st->reads_unanswered == 0,
	      "%s: %llu truncated, %llu invalid, %llu gaps, %llu incomplete, %llu unanswered", name,
	      (unsigned long long)st->truncated, (unsigned long long)st->invalid,
	      (unsigned long long)st->psn_gaps, (unsigned long long)st->incomplete_msgs,
	      (unsigned long long)st->reads_unanswered);
	CHECK(st->sends > 0 && st->roce_v2 > 0, "%s: RoCEv2 SENDs", name);
	CHECK(transport_conn_count(h.t) >= 1, "%s: a connection", name);
	for (size_t i = 0; i < transport_conn_count(h.t); i++) {
		const struct rdma_conn *c = transport_conn(h.t, i);
		CHECK(c->client_known && c->side[0].family == 4 && c->side[0].addr[3] == 2 &&
		      c->side[1].addr[3] == 1, "%s: conn %u: client 10.9.0.2 is side 0", name, c->id);
		CHECK(c->side[0].qpn_known && c->side[1].qpn_known, "%s: both QPNs", name);
		if (cm) {
			CHECK(c->pairing == PAIR_CM, "%s: conn %u paired by CM", name, c->id);
			CHECK(c->cm_params[0] && c->cm_params[1] && c->inline_send[0] == 4096 &&
			      c->inline_recv[0] == 4096 && c->inline_send[1] == 4096 && c->inline_recv[1] == 4096 &&
			      c->remote_inv[0] && !c->remote_inv[1], "%s: RFC 8797 parameters", name);
		} else {
			CHECK(c->pairing == PAIR_INFERRED && !c->cm_params[0], "%s: conn %u inferred", name, c->id);
		}
	}
	size_t bad = 0;
	for (size_t i = 0; i < h.r.n; i++) {
		const struct rdma_event *e = &h.r.ev[i].ev;
		if (e->type == RDMA_EV_WRITE || e->type == RDMA_EV_READ)
			bad += e->dir != 1 || e->msg_len != e->dma_len || e->data_len != e->msg_len;
		if (e->type == RDMA_EV_SEND)
			bad += e->data_len != e->msg_len || e->msg_len > 4096;
	}
	CHECK(bad == 0, "%s: %zu RDMA/SEND events break the NFS/RDMA rules", name, bad);
	CHECK_EQ_U64(h.r.dropped, 0);
	CHECK_EQ_U64(rec_count_proto(&h.r, RDMA_EV_CONN_NEW, 0), transport_conn_count(h.t));
	CHECK_EQ_U64(rec_count_proto(&h.r, RDMA_EV_CONN_CLOSE, 0), transport_conn_count(h.t));
	/* rpcbind, MOUNT, v4.0 callbacks over TCP: every TCP connection carrying RPC opens and closes */
	CHECK(rec_count_proto(&h.r, RDMA_EV_CONN_NEW, 6) == rec_count_proto(&h.r, RDMA_EV_CONN_CLOSE, 6),
	      "%s: %zu TCP RPC connections opened, %zu closed", name, rec_count_proto(&h.r, RDMA_EV_CONN_NEW, 6),
	      rec_count_proto(&h.r, RDMA_EV_CONN_CLOSE, 6));
	th_done(&h);
}

int main(void)
{
	static const char *const cm[] = {
		"smoke.pcap", "nfs3-metadata.pcap", "nfs3-read-write.pcap", "nfs3-readdirplus.pcap",
		"nfs3-symlink.pcap", "nfs40.pcap", "nfs41.pcap", "nfs42.pcap", "parallel.pcap",
		"server-restart.pcap",
	};
	for (size_t i = 0; i < sizeof(cm) / sizeof(cm[0]); i++)
		check_nfs(cm[i], true);
	check_nfs("midconn.pcap", false);

	/* READ and WRITE both use RDMA in nfs3-read-write */
	if (run("nfs3-read-write.pcap")) {
		const struct transport_stats *st = transport_stats(h.t);
		CHECK(st->reads > 0 && st->writes > 0 && transport_conn_count(h.t) == 1, "Read and Write chunks");
		th_done(&h);
	}
	/* knfsd restart: the client reconnects through CM */
	if (run("server-restart.pcap")) {
		CHECK(transport_conn_count(h.t) >= 2, "reconnection is a new connection");
		th_done(&h);
	}
	/* perftest: rdma_cm without RPC-over-RDMA parameters */
	if (run("perftest.pcap")) {
		CHECK(h.r.ndiag == 0 && transport_conn_count(h.t) >= 2, "perftest connections");
		for (size_t i = 0; i < transport_conn_count(h.t); i++)
			CHECK(transport_conn(h.t, i)->pairing == PAIR_CM && !transport_conn(h.t, i)->cm_params[0],
			      "perftest conn %zu", i);
		th_done(&h);
	}
	/* NFS over TCP: nothing for the RDMA transport */
	if (run("nfs3-tcp.pcap")) {
		const struct transport_stats *st = transport_stats(h.t);
		CHECK(st->frames > 0 && st->non_rdma == st->frames && transport_conn_count(h.t) == 0, "TCP only");
		th_done(&h);
	}
	return check_summary("test_transport_lab");
}
