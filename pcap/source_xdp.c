/* xdp:IFACE -- the XDP fast path as a record source (pcap/source_xdp.h).
 *
 * Load bpf/xdp_roce.bpf.c with the snap length and sampling rate in its
 * rodata, attach it (native, else generic), read its per-CPU record rings
 * (pcap/xdp_ring.c: oldest frame first across CPUs), and feed
 * each record's frame bytes to the dissector through pcap/xdp_feed.c.  The
 * record's ktime stamp (CLOCK_MONOTONIC) becomes wall-clock time with an
 * offset taken at open. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcap/source_xdp.h"
#include "pcap/xdp_feed.h"
#include "pcap/xdp_ring.h"
#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/base/outfile.h"
#include "xdp_roce.skel.h"

#define XSRC_MAX_INFLIGHT 65536

struct xsrc {
	struct source base;
	char ifname[IF_NAMESIZE];
	unsigned ifindex;
	struct xdp_roce_bpf *skel;
	struct xdp_ring *ring;
	struct xdp_feed *feed;
	int prog_fd;
	int link_fd;         /* the XDP bpf_link: closing it detaches */
	const char *mode;
	source_record_fn cb;
	void *ctx;
	int delivered;
	struct source_stats st;
	uint64_t bad_records;
	int64_t mono_to_real;
	uint64_t last_mono;         /* time of the last timed record */
	FILE *cap;                  /* capf.f while the capture is written */
	struct outfile capf;        /* every tool's output-file rule (outfile.h) */
	char *cap_path;
	uint32_t snap;
};

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct xsrc *s = ctx;

	s->st.records++;
	s->delivered++;
	if (s->cb)
		s->cb(r, s->ctx);
}

/* Classic pcap, nanosecond timestamps, Ethernet. */
static int cap_open(struct xsrc *s, const char *path, char *err, size_t errlen)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t  zone;
		uint32_t sigfigs, snaplen, linktype;
	} h = { 0xa1b23c4d, 2, 4, 0, 0, 0, 1 };

	h.snaplen = s->snap;
	char why[512];
	int rc = outfile_open(&s->capf, path, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errlen, "xdp: capture %s", why);
		return rc;
	}
	s->cap = s->capf.f;
	if (fwrite(&h, sizeof(h), 1, s->cap) != 1) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "xdp: capture %s: %s", path, strerror(e));
		outfile_abort(&s->capf);
		s->cap = NULL;
		return -e;
	}
	return 0;
}

static void cap_write(struct xsrc *s, uint64_t ts, const uint8_t *data, uint32_t cap, uint32_t wire)
{
	uint32_t h[4] = { (uint32_t)(ts / 1000000000ull), (uint32_t)(ts % 1000000000ull), cap, wire };

	if (fwrite(h, sizeof(h), 1, s->cap) != 1 || (cap && fwrite(data, cap, 1, s->cap) != 1)) {
		log_error("xdp: capture %s: %s; capture stopped", s->cap_path, strerror(errno ? errno : EIO));
		outfile_abort(&s->capf);
		s->cap = NULL;
	}
}

/* Ring callback: the record is untrusted until xdp_rec_check. */
static int on_ring(void *ctx, const void *data, size_t len)
{
	struct xsrc *s = ctx;
	struct xdp_roce_rec r;
	const uint8_t *frame;

	if (xdp_rec_check(data, len, &r, &frame) < 0) {
		s->bad_records++;
		return 0;
	}
	s->st.events++;
	/* a middle packet of a message, or an ACK, comes untimed
	 * (bpf/xdp_roce.h): the time of the record before it, or, for the
	 * first record of a run, the reader's own clock (the program's is
	 * CLOCK_MONOTONIC too), later by the ring's latency only */
	if (r.ts_ns) {
		s->last_mono = r.ts_ns;
	} else if (!s->last_mono) {
		s->last_mono = clock_mono_ns();
	}
	uint64_t ts = s->last_mono + (uint64_t)s->mono_to_real;
	if (s->cap)
		cap_write(s, ts, frame, r.cap_len, r.wire_len);
	xdp_feed_record(s->feed, data, len, ts);
	return 0;
}

static uint64_t stat_sum(const struct xsrc *s, uint32_t slot)
{
	int ncpu = libbpf_num_possible_cpus();
	struct xdp_stats_val v[ncpu > 0 ? ncpu : 1];
	uint32_t zero = 0;
	uint64_t sum = 0;

	if (!s->skel || ncpu <= 0 || slot >= XS_MAX)
		return 0;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.xdp_stats), &zero, v))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += v[i].v[slot];
	return sum;
}

static void xsrc_close(struct source *src)
{
	struct xsrc *s = (struct xsrc *)src;

	if (!s)
		return;
	if (s->link_fd > 0)
		close(s->link_fd);
	xdp_ring_free(s->ring);
	if (s->skel)
		xdp_roce_bpf__destroy(s->skel);
	if (s->feed)
		xdp_feed_free(s->feed);
	char why[512];
	if (s->cap && outfile_close(&s->capf, why, sizeof(why)) < 0)
		log_error("xdp: capture %s", why);
	free(s->cap_path);
	free(s);
}

static int parse_u32(const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		n <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		n <<= 20, end++;
	if (*end || n < min || n > max)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

/* The port's own MAC address, for the mirror-port verdict. */
static int port_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		ret = -errno;
	else if (ifr.ifr_hwaddr.sa_family != 1 /* ARPHRD_ETHER */)
		ret = -EAFNOSUPPORT;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return ret;
}

/* The spec's interface and options (xdp:IFACE[,native|generic][,snap=N]
 * [,sample=N][,rb=BYTES][,mirror][,capture=FILE]) into s and the out
 * arguments.  0 or -EINVAL (err says which). */
static int xsrc_parse(struct xsrc *s, char *spec, int *force, int *mirror, uint32_t *rbsize, uint32_t *sample,
		      char *err, size_t errlen)
{
	char *save = NULL, *tok;

	tok = strtok_r(spec, ",", &save);
	if (!tok || !*tok) {
		snprintf(err, errlen, "xdp: no interface (use xdp:IFACE)");
		return -EINVAL;
	}
	if (strlen(tok) >= sizeof(s->ifname)) {
		snprintf(err, errlen, "xdp: interface name too long: %s", tok);
		return -EINVAL;
	}
	strcpy(s->ifname, tok);
	while ((tok = strtok_r(NULL, ",", &save))) {
		if (!strcmp(tok, "native") || !strcmp(tok, "mode=native")) {
			*force = 1;
		} else if (!strcmp(tok, "generic") || !strcmp(tok, "mode=generic")) {
			*force = 2;
		} else if (!strncmp(tok, "snap=", 5)) {
			if (parse_u32(tok + 5, 1, 1u << 20, &s->snap) < 0) {
				snprintf(err, errlen, "xdp: bad %s", tok);
				return -EINVAL;
			}
		} else if (!strncmp(tok, "sample=", 7)) {
			if (parse_u32(tok + 7, 1, 1u << 30, sample) < 0) {
				snprintf(err, errlen, "xdp: bad %s", tok);
				return -EINVAL;
			}
		} else if (!strncmp(tok, "rb=", 3)) {
			if (parse_u32(tok + 3, XDP_RING_MIN, XDP_RING_MAX, rbsize) < 0 || (*rbsize & (*rbsize - 1))) {
				snprintf(err, errlen, "xdp: bad %s (ring bytes per CPU: a power of 2, 64k..2M)", tok);
				return -EINVAL;
			}
		} else if (!strcmp(tok, "mirror")) {
			*mirror = 1;
		} else if (!strncmp(tok, "capture=", 8) && tok[8]) {
			s->cap_path = strdup(tok + 8);
		} else {
			snprintf(err, errlen, "xdp: unknown option '%s' (native, generic, snap=N, sample=N, rb=BYTES, mirror, capture=FILE)", tok);
			return -EINVAL;
		}
	}
	return 0;
}

/* The loaded program attached to the interface through a bpf_link
 * (native, else generic unless one was asked for): it detaches when
 * closed, also if the process dies, and never touches another program on
 * the device.  0 or a negative errno (err says why). */
static int xsrc_attach(struct xsrc *s, int force, char *err, size_t errlen)
{
	int ret, native_err = 0;

	if (force != 2) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
		s->link_fd = bpf_link_create(s->prog_fd, (int)s->ifindex, BPF_XDP, &lo);
		if (s->link_fd >= 0) {
			s->mode = "native";
		} else {
			native_err = -errno;
			s->link_fd = 0;
			if (force == 1) {
				ret = native_err;
				snprintf(err, errlen, "xdp: native attach to %s: %s%s", s->ifname, strerror(-ret),
					 ret == -EBUSY || ret == -EEXIST ? " (another XDP program is attached)" : "");
				return ret < 0 ? ret : -EIO;
			}
		}
	}
	if (!s->mode) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_SKB_MODE);
		s->link_fd = bpf_link_create(s->prog_fd, (int)s->ifindex, BPF_XDP, &lo);
		if (s->link_fd < 0) {
			ret = -errno;
			s->link_fd = 0;
			snprintf(err, errlen, "xdp: attaching to %s: %s%s", s->ifname, strerror(-ret),
				 ret == -EBUSY || ret == -EEXIST ? " (another XDP program is attached)" : "");
			return ret < 0 ? ret : -EIO;
		}
		s->mode = "generic";
	}
	if (native_err)
		log_warn("xdp: attached to %s in generic mode (native: %s): slower, and sees frames after GRO",
			 s->ifname, strerror(-native_err));
	else
		log_info("xdp: attached to %s in %s mode", s->ifname, s->mode);
	return 0;
}

static int xsrc_open(struct source **out, const char *arg, const struct source_opts *o,
		     source_record_fn cb, void *ctx, char *err, size_t errlen)
{
	struct xsrc *s = calloc(1, sizeof(*s));
	char *spec = strdup(arg ? arg : "");
	int force = 0;   /* 0 auto, 1 native, 2 generic */
	int mirror = 0;
	uint8_t mac[6];
	uint32_t rbsize = XDP_RING_DEFAULT, sample = o && o->sample ? o->sample : 1;
	int ret = -EINVAL;

	*out = NULL;
	if (!s || !spec) {
		snprintf(err, errlen, "xdp: out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	s->base.type = &source_type_xdp;
	s->cb = cb;
	s->ctx = ctx;
	s->snap = o && o->snaplen ? o->snaplen : XDP_ROCE_SNAP_DEFAULT;

	if ((ret = xsrc_parse(s, spec, &force, &mirror, &rbsize, &sample, err, errlen)) < 0)
		goto fail;
	/* The transport needs the headers and the RPC-over-RDMA header; a
	 * whole RoCE frame at most. */
	if (s->snap < 64)
		s->snap = 64;
	if (s->snap > XDP_ROCE_SNAP_MAX)
		s->snap = XDP_ROCE_SNAP_MAX;
	s->ifindex = if_nametoindex(s->ifname);
	if (!s->ifindex) {
		ret = -ENODEV;
		snprintf(err, errlen, "xdp: no interface %s", s->ifname);
		goto fail;
	}

	if (mirror && (ret = port_mac(s->ifname, mac)) < 0) {
		snprintf(err, errlen, "xdp: mirror: the Ethernet address of %s: %s", s->ifname, strerror(-ret));
		goto fail;
	}

	s->skel = xdp_roce_bpf__open();
	if (!s->skel) {
		ret = -errno;
		snprintf(err, errlen, "xdp: opening the BPF object: %s", strerror(errno));
		goto fail;
	}
	s->skel->rodata->snap_len = s->snap;
	s->skel->rodata->sample_every = sample;
	if (mirror) {
		s->skel->rodata->mirror_port = 1;
		memcpy((uint8_t *)s->skel->rodata->host_mac, mac, 6);
	}
	if ((ret = xdp_ring_configure(s->skel->maps.xdp_ring, rbsize, (uint32_t *)&s->skel->rodata->ring_mask)) < 0) {
		snprintf(err, errlen, "xdp: sizing the record rings: %s", strerror(-ret));
		goto fail;
	}
	if ((ret = xdp_roce_bpf__load(s->skel)) < 0) {
		snprintf(err, errlen, "xdp: loading the XDP program: %s%s", strerror(-ret),
			 ret == -EPERM ? " (needs root or CAP_BPF + CAP_NET_ADMIN)" : "");
		goto fail;
	}
	s->prog_fd = bpf_program__fd(s->skel->progs.xdp_roce);

	if ((ret = xsrc_attach(s, force, err, errlen)) < 0)
		goto fail;
	if (mirror)
		log_info("xdp: %s is a mirror port: unicast frames not for %02x:%02x:%02x:%02x:%02x:%02x are dropped "
			 "after they are recorded", s->ifname, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);

	struct dissect_opts dopts = { .max_inflight = XSRC_MAX_INFLIGHT };
	struct dissect_cbs cbs = { .record = on_record, .ctx = s };
	s->feed = xdp_feed_new(&dopts, &cbs);
	if (!s->feed) {
		ret = -ENOMEM;
		snprintf(err, errlen, "xdp: out of memory");
		goto fail;
	}
	if ((ret = xdp_ring_new(&s->ring, s->skel->maps.xdp_ring, s->skel->maps.xdp_wake, on_ring, s)) < 0) {
		snprintf(err, errlen, "xdp: mapping the record rings: %s", strerror(-ret));
		goto fail;
	}
	s->mono_to_real = (int64_t)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
	if (s->cap_path && (ret = cap_open(s, s->cap_path, err, errlen)) < 0)
		goto fail;
	free(spec);
	*out = &s->base;
	return 0;
fail:
	free(spec);
	xsrc_close(s ? &s->base : NULL);
	return ret < 0 ? ret : -EINVAL;
}

static int xsrc_fd(struct source *src)
{
	struct xsrc *s = (struct xsrc *)src;

	return xdp_ring_epoll_fd(s->ring);
}

static int xsrc_poll(struct source *src, int timeout_ms)
{
	struct xsrc *s = (struct xsrc *)src;

	s->delivered = 0;
	/* The program rings the doorbell only when a backlog builds up
	 * (bpf/xdp_roce.bpf.c): xdp_ring_poll reads what is there, waits,
	 * then reads again, so a poll timeout picks up records that came
	 * without a wakeup. */
	int n = xdp_ring_poll(s->ring, timeout_ms);
	if (n < 0 && n != -EINTR)
		return n;
	if (s->cap)
		fflush(s->cap);
	return s->delivered;
}

static void xsrc_stats(const struct source *src, struct source_stats *st)
{
	const struct xsrc *s = (const struct xsrc *)src;

	*st = s->st;
	st->drops = stat_sum(s, XS_RB_DROPS);
	st->errors = stat_sum(s, XS_MALFORMED) + s->bad_records +
		     (s->ring ? xdp_ring_stats(s->ring)->resyncs : 0);
}

/* True when s is an xdp: source. */
static int source_is_xdp(const struct source *s)
{
	return s && s->type == &source_type_xdp;
}

const char *source_xdp_mode(const struct source *src)
{
	return source_is_xdp(src) ? ((const struct xsrc *)src)->mode : NULL;
}

uint64_t source_xdp_frames_seen(const struct source *src)
{
	return source_is_xdp(src) ? stat_sum((const struct xsrc *)src, XS_FRAMES) : 0;
}

uint64_t source_xdp_counter(const struct source *src, unsigned slot)
{
	return source_is_xdp(src) && slot < XS_MAX ? stat_sum((const struct xsrc *)src, slot) : 0;
}

int source_xdp_flush(struct source *src)
{
	struct xsrc *s = (struct xsrc *)src;

	if (!source_is_xdp(src))
		return -EINVAL;
	s->delivered = 0;
	xdp_ring_consume(s->ring);
	xdp_feed_flush(s->feed);
	return s->delivered;
}

const struct source_type source_type_xdp = {
	.prefix = "xdp",
	.help = "xdp:IFACE[,native|generic][,snap=N][,sample=N][,mirror][,capture=FILE]  XDP fast path on a RoCE port",
	.open = xsrc_open, .fd = xsrc_fd, .poll = xsrc_poll, .stats = xsrc_stats, .close = xsrc_close,
};
