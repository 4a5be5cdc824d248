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
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
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

/* The Ethernet address of veth_a, from the kernel. */
static int mac_a(uint8_t mac[6])
{
	struct ifreq ifr;
	int self = enter_ns(ns_a);
	int fd = self < 0 ? -1 : socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ok = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", veth_a);
	if (fd >= 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
		ok = 1;
	}
	if (fd >= 0)
		close(fd);
	leave_ns(self);
	return ok ? 0 : -1;
}

/* veth_a's XDP drop counter, from the driver (ethtool -S). */
static uint64_t veth_a_xdp_drops(void)
{
	char cmd[256];
	unsigned long long n = 0, v;

	snprintf(cmd, sizeof(cmd), "ip netns exec %s ethtool -S %s 2>/dev/null", ns_a, veth_a);
	FILE *p = popen(cmd, "r");
	char line[256];
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, " rx_queue_%*u_xdp_drops: %llu", &v) == 1)
			n += v;
	if (p)
		pclose(p);
	return n;
}

/* Traffic for the host still gets there on a mirror port: a UDP datagram
 * from ns_b to an address of veth_a (ARP broadcast, then unicast to
 * veth_a's own MAC) arrives. */
static int host_traffic_passes(void)
{
	if (veth_sh("ip -n %s addr add 10.77.0.1/24 dev %s", ns_a, veth_a) ||
	    veth_sh("ip -n %s addr add 10.77.0.2/24 dev %s", ns_b, veth_b))
		return 0;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(5599) };
	inet_pton(AF_INET, "10.77.0.1", &a.sin_addr);
	int self = enter_ns(ns_a);
	int rs = self < 0 ? -1 : socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	leave_ns(self);
	self = enter_ns(ns_b);
	int ss = self < 0 ? -1 : socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	leave_ns(self);
	int got = 0;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	if (rs >= 0 && ss >= 0 && bind(rs, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    setsockopt(rs, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0) {
		for (int i = 0; i < 10 && !got; i++) {
			char buf[16];
			sendto(ss, "mirror", 6, 0, (struct sockaddr *)&a, sizeof(a));
			got = recv(rs, buf, sizeof(buf), 0) == 6 && !memcmp(buf, "mirror", 6);
		}
	}
	if (rs >= 0)
		close(rs);
	if (ss >= 0)
		close(ss);
	return got;
}

static void run_capture(int sock, int ifindex_b, const struct tcap *c, int mirror)
{
	struct live l = { { 0 } };
	struct trecords want = { 0 };
	struct source *src = NULL;
	struct source_opts o = { .snaplen = XDP_ROCE_SNAP_MAX, .sample = 1 };
	char err[256] = "";
	char spec[64];

	snprintf(spec, sizeof(spec), "%s%s", veth_a, mirror ? ",mirror" : "");
	uint8_t mac[6] = { 0 };
	uint64_t xdp_drops0 = veth_a_xdp_drops();
	if (mirror)
		CHECK(mac_a(mac) == 0, "the address of %s", veth_a);
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
		/* and read the records out as they come: a burst of full 4 KB
		 * frames (a 64 KB READ's) outgrows the record ring otherwise */
		while (source_poll(src, 0) > 0)
			;
	}
	for (int spin = 0; source_xdp_frames_seen(src) < sent && spin < 5000; spin++)
		source_poll(src, 1);
	uint64_t seen = source_xdp_frames_seen(src);
	uint64_t mirror_drops = source_xdp_counter(src, XS_MIRROR_DROPS);
	int passes = mirror ? host_traffic_passes() : 1;
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
	/* Mirror port: every unicast frame of the capture not addressed to
	 * veth_a is dropped at XDP (the driver counts it too); without the
	 * option nothing is. */
	size_t other = 0;
	for (size_t i = 0; i < c->n; i++)
		other += c->f[i].cap >= 6 && !(c->f[i].data[0] & 1) && memcmp(c->f[i].data, mac, 6) != 0;
	CHECK_EQ_U64(mirror_drops, mirror ? other : 0);
	CHECK_EQ_U64(veth_a_xdp_drops() - xdp_drops0, mirror ? other : 0);
	CHECK(passes, "%s: with the mirror option, traffic for the host still reaches it", c->path);

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
	printf("%s%s: %zu frames replayed on %s, %" PRIu64 " seen by XDP (%" PRIu64 " dropped as another host's), "
	       "%zu per-XID records live, %zu from the dissector: %s\n", c->path, mirror ? " (mirror)" : "", sent, veth_b,
	       seen, mirror_drops, l.got.n, want.n, bad || badt ? "DIFFER" : "equal");
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
		run_capture(sock, ifb, &c, 0);
		if (i == 1)   /* the mirror port, on the first capture */
			run_capture(sock, ifb, &c, 1);
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
