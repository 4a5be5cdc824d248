/* Live test of the xdp: source on a real veth pair.
 *
 * Creates two network namespaces with unique names and a veth pair
 * between them (MTU 9000, IPv6 off so the kernel sends nothing of its
 * own), opens the xdp: source on one end (inside its namespace), and
 * replays every frame of each capture into the other end through a raw
 * AF_PACKET socket.  The per-XID records the source delivers must equal
 * the dissector's records for the same capture in every key field
 * (connection, endpoints, XID, program, procedure, statuses, chunk and
 * inline bytes, credits) and in frame numbers; their timestamps must be
 * wall-clock times inside the replay window, in order.  Traffic stays in
 * the namespaces, which are always deleted (exit and signals).  Needs root
 * and iproute2. */
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <time.h>

#include "../xdp/xdp_test.h"
#include "pcap/source_xdp.h"
#include "../xdp/veth_ns.h"

static int setup(void)
{
	return veth_pair_create("xdp", 'x');
}

static uint64_t now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct live {
	struct trecords got;
};

static void on_rec(const struct nfsrdma_record *r, void *ctx)
{
	struct live *l = ctx;

	trecords_cb(r, NULL, &l->got);
}

static unsigned compared, live_frames;

static void run_capture(int sock, int ifindex_b, const struct tcap *c)
{
	struct live l = { { 0 } };
	struct trecords want = { 0 };
	struct source *src = NULL;
	struct source_opts o = { .snaplen = XDP_ROCE_SNAP_MAX, .sample = 1 };
	char err[256] = "";
	char spec[64];

	snprintf(spec, sizeof(spec), "%s", veth_a);
	int self = enter_ns(ns_a);
	int ret = self < 0 ? -1 : source_type_xdp.open(&src, spec, &o, on_rec, &l, err, sizeof(err));
	leave_ns(self);
	CHECK(ret == 0, "open xdp:%s in %s: %s", veth_a, ns_a, err);
	if (ret)
		return;
	CHECK(source_xdp_mode(src) != NULL, "attach mode reported");

	uint64_t t0 = now_real();
	size_t sent = 0, send_err = 0;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = ifindex_b, .sll_halen = 6 };
	for (size_t i = 0; i < c->n; i++) {
		const struct tframe *t = &c->f[i];
		memcpy(to.sll_addr, t->data, 6);
		if (sendto(sock, t->data, t->cap, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)t->cap) {
			send_err++;
			continue;
		}
		sent++;
		/* keep at most 64 frames in flight: the veth NAPI ring holds 256 */
		for (int spin = 0; sent - source_xdp_frames_seen(src) > 64 && spin < 20000; spin++)
			source_poll(src, 0);
	}
	for (int spin = 0; source_xdp_frames_seen(src) < sent && spin < 5000; spin++)
		source_poll(src, 1);
	uint64_t seen = source_xdp_frames_seen(src);
	while (source_poll(src, 0) > 0)
		;
	source_xdp_flush(src);
	uint64_t t1 = now_real();
	struct source_stats st;
	source_get_stats(src, &st);
	source_close(src);

	CHECK(send_err == 0, "%s: %zu frames could not be sent", c->path, send_err);
	CHECK(seen == c->n, "%s: the program saw %" PRIu64 " of %zu frames", c->path, seen, c->n);
	CHECK_EQ_U64(st.drops, 0);
	live_frames += (unsigned)seen;

	CHECK(trecords_dissect_file(&want, c->path) == 0, "dissect %s", c->path);
	CHECK(l.got.n == want.n, "%s: %zu per-XID records live, dissector %zu", c->path, l.got.n, want.n);
	unsigned bad = 0, badt = 0;
	for (size_t i = 0; i < l.got.n && i < want.n; i++) {
		const struct nfsrdma_record *g = &l.got.r[i], *w = &want.r[i];
		const char *k = trecord_key_diff(g, w, 0);
		if (!k && (g->frame_call != w->frame_call || g->frame_reply != w->frame_reply))
			k = "frame numbers";
		if (!k && g->source != REC_SRC_XDP)
			k = "source";
		if (k && bad++ < 10)
			fprintf(stderr, "%s: record %zu xid 0x%08x: %s differs\n", c->path, i, w->xid, k);
		/* live times: wall clock, inside the replay, ordered */
		const uint64_t ts[] = { g->t_call_first, g->t_call_last, g->t_reply_first, g->t_reply_last };
		const uint64_t wts[] = { w->t_call_first, w->t_call_last, w->t_reply_first, w->t_reply_last };
		int okt = 1;
		for (int j = 0; j < 4; j++)
			if ((ts[j] != 0) != (wts[j] != 0) || (ts[j] && (ts[j] < t0 || ts[j] > t1)))
				okt = 0;
		if (g->t_call_first && g->t_reply_last && g->t_reply_last < g->t_call_first)
			okt = 0;
		if (!okt && badt++ < 5)
			fprintf(stderr, "%s: record %zu xid 0x%08x: live timestamps wrong\n", c->path, i, w->xid);
	}
	CHECK(bad == 0, "%s: %u live per-XID records differ from the dissector's", c->path, bad);
	CHECK(badt == 0, "%s: %u live per-XID records have bad timestamps", c->path, badt);
	compared += (unsigned)l.got.n;
	printf("%s: %zu frames replayed on %s, %" PRIu64 " seen by XDP, %zu per-XID records live, %zu from the dissector: %s\n",
	       c->path, sent, veth_b, seen, l.got.n, want.n, bad || badt ? "DIFFER" : "equal");
	free(l.got.r);
	free(want.r);
}

int main(int argc, char **argv)
{
	if (geteuid() != 0) {
		printf("bpf-xdp-live: needs root (network namespaces, XDP)\n");
		return 1;
	}
	if (system("ip -V >/dev/null 2>&1") != 0) {
		printf("bpf-xdp-live: cannot run: iproute2 (ip) missing\n");
		return 1;
	}
	int ok = setup() == 0;
	CHECK(ok, "create namespaces %s/%s and veth %s/%s", ns_a, ns_b, veth_a, veth_b);
	if (!ok)
		return check_summary("bpf-xdp-live");

	int self = enter_ns(ns_b);
	int sock = self < 0 ? -1 : socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	int ifb = self < 0 ? 0 : (int)if_nametoindex(veth_b);
	leave_ns(self);
	CHECK(sock >= 0 && ifb > 0, "raw socket on %s: %s", veth_b, strerror(errno));
	if (sock < 0 || ifb <= 0)
		return check_summary("bpf-xdp-live");
	int sndbuf = 8 << 20;
	setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));

	for (int i = 1; i < argc; i++) {
		struct tcap c;
		if (access(argv[i], R_OK) != 0) {
			CHECK_SKIP("%s absent", argv[i]);
			continue;
		}
		if (tcap_load(&c, argv[i]) < 0)
			continue;
		if (c.linktype != LINKTYPE_ETHERNET) {
			CHECK_SKIP("%s: link type %d is not Ethernet", argv[i], c.linktype);
			tcap_free(&c);
			continue;
		}
		run_capture(sock, ifb, &c);
		tcap_free(&c);
	}
	close(sock);
	veth_cleanup();
	/* the namespaces are gone */
	char path[128];
	snprintf(path, sizeof(path), "/var/run/netns/%s", ns_a);
	CHECK(access(path, F_OK) != 0, "namespace %s removed", ns_a);
	CHECK(argc < 2 || compared > 0, "no per-XID record compared live");
	printf("bpf-xdp-live: %u frames through XDP on a veth pair, %u per-XID records compared\n",
	       live_frames, compared);
	return check_summary("bpf-xdp-live");
}
