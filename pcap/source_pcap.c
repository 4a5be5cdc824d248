/* Capture sources: pcap:FILE (a pcap/pcapng file played flat out, at its
 * recorded pace, or N times faster) and live:IFACE (libpcap live capture,
 * e.g. the rxe netdev, or mlx5_0 through libpcap's RDMA sniffer).
 *
 * Both hand the dissector one packet at a time through the packet feed
 * (dissect/feed.h, the same chain dissect_file() runs), so records come
 * out as soon as each RPC completes rather than at the end of the file. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#include "dissect/dissect.h"
#include "dissect/feed.h"
#include "pcap/capfile.h"
#include "pcap/capfile_lt.h"
#include "src/base/clock.h"
#include "pcap/source_pcap.h"

/* Calls kept waiting for their reply: bounded so a reply-less flood cannot
 * grow memory; evictions are counted as drops. */
#define PSRC_MAX_INFLIGHT 65536
/* Packets handled per poll() when flat out, so the caller gets control back. */
#define PSRC_BATCH 4096

struct psrc {
	struct source base;
	bool live;
	char *name;
	struct pcap_source *file;
	pcap_t *pc;
	int linktype;
	struct capfile_lt lt;       /* file: the packet's link type (pcapng interfaces differ) */
	bool nano;                 /* live: timestamps in ns (else us) */
	struct dissect *d;
	struct dissect_feed *feed;
	source_record_fn cb;
	void *ctx;
	struct pcap_tap tap;
	source_pcap_note_fn note;  /* dissect_cbs.frame_note goes here (NULL: no tracking) */
	void *note_ctx;
	double speed;
	uint64_t frame;
	/* a packet read but not yet due (paced replay) */
	bool pending;
	uint64_t p_ts;
	const uint8_t *p_data;
	size_t p_cap, p_wire;
	uint64_t base_wall, base_ts;
	bool eof, flushed;
	int delivered;
	int fail;                  /* the read error that ended a file (message in err) */
	struct source_stats st;
	uint64_t pcap_drops;
	char err[256];
};

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct psrc *s = ctx;

	s->st.records++;
	s->delivered++;
	s->cb(r, s->ctx);
}

static void on_diag(const struct diag *g, void *ctx)
{
	struct psrc *s = ctx;

	s->st.errors++;
}

static void on_note(const struct dissect_frame_note *n, void *ctx)
{
	struct psrc *s = ctx;

	if (s->note)
		s->note(s->note_ctx, n);
}

static void on_event(const struct rdma_event *ev, void *ctx)
{
	struct psrc *s = ctx;

	if (s->tap.event)
		s->tap.event(s->tap.ctx, ev);
}

static void free_dissect(struct psrc *s)
{
	dissect_feed_free(s->feed);   /* before the dissector it feeds */
	dissect_free(s->d);
	s->feed = NULL;
	s->d = NULL;
}

/* The dissector and its feed, with frame notes only when someone wants
 * them (frame tracking costs a frame list per message).  They replace the
 * current pair only once both are ready. */
static int new_dissect(struct psrc *s, char *err, size_t errlen)
{
	struct dissect_opts dopts = { .tree = false, .max_inflight = PSRC_MAX_INFLIGHT };
	struct dissect_cbs cbs = { .record = on_record, .diag = on_diag, .ctx = s,
				   .frame_note = s->note ? on_note : NULL };
	struct dissect *d = dissect_new(&dopts, &cbs);
	struct dissect_feed *f = d ? dissect_feed_new(d, NULL) : NULL;
	int rc;

	if (!f) {
		dissect_free(d);
		snprintf(err, errlen, "%s: out of memory", s->name);
		return -ENOMEM;
	}
	if ((rc = dissect_feed_set_linktype(f, s->linktype, s->name, err, errlen)) < 0) {
		dissect_feed_free(f);
		dissect_free(d);
		return rc;
	}
	free_dissect(s);
	s->d = d;
	s->feed = f;
	s->lt = (struct capfile_lt){ s->linktype, true, -1 };
	if (s->tap.event)
		dissect_feed_set_tap(f, on_event, s);
	return 0;
}

/* every packet of a file passes here: inlined into the loops, where a call
 * of its own cost as much again as the loop (bench/daemon.sh part 6) */
static inline __attribute__((always_inline)) void feed(struct psrc *s, uint64_t ts, const uint8_t *data,
							  size_t cap, size_t wire)
{
	s->frame++;
	s->st.events++;
	if (s->tap.packet)
		s->tap.packet(s->tap.ctx, s->frame, ts, data, cap, wire);
	dissect_feed_packet(s->feed, s->frame, ts, data, cap, wire);
}

/* A file's packet: fed when the feed reads its link type. */
static inline __attribute__((always_inline)) void feed_file(struct psrc *s, uint64_t ts, const uint8_t *data,
							       size_t cap, size_t wire)
{
	if (capfile_lt_follow(&s->lt, s->file, s->feed, s->frame + 1))
		feed(s, ts, data, cap, wire);
	else
		s->frame++;
}

static void finish(struct psrc *s)
{
	if (s->flushed)
		return;
	dissect_feed_finish(s->feed);
	s->flushed = true;
}

static int common_init(struct psrc *s, const char *name, const struct source_opts *o,
		       source_record_fn cb, void *ctx, char *err, size_t errlen)
{
	s->name = strdup(name);
	s->cb = cb;
	s->ctx = ctx;
	s->speed = o->speed;
	if (!s->name) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	return new_dissect(s, err, errlen);
}

static int psrc_note(const struct source *src, char *buf, size_t len)
{
	const struct psrc *s = (const struct psrc *)src;

	if (!s->d)
		return 0;
	if (dissect_snap_note(dissect_stats(s->d), buf, len))
		return 1;
	/* a capture file read to its end without an RPC says what it held,
	 * as nfsrdma-dissect does, instead of an empty view */
	if (!s->live && s->flushed && !s->fail && !s->st.records) {
		dissect_nothing_note(buf, len, dissect_stats(s->d), dissect_feed_transport_stats(s->feed));
		return 1;
	}
	return 0;
}

static void psrc_close(struct source *src)
{
	struct psrc *s = (struct psrc *)src;

	if (!s)
		return;
	free_dissect(s);
	if (s->file)
		pcap_source_close(s->file);
	if (s->pc)
		pcap_close(s->pc);
	free(s->name);
	free(s);
}

/* ---- capture files ---- */

static int file_open(struct source **out, const char *arg, const struct source_opts *o,
		     source_record_fn cb, void *ctx, char *err, size_t errlen);
static int file_poll(struct source *src, int timeout_ms);
static void psrc_stats(const struct source *src, struct source_stats *st);
static int file_fd(struct source *src) { return -1; }

const struct source_type source_type_pcap = {
	.prefix = "pcap",
	.help = "pcap:FILE   capture file (pcap/pcapng; a bare FILE works too), --speed paces it",
	.open = file_open, .fd = file_fd, .poll = file_poll, .stats = psrc_stats, .close = psrc_close,
	.note = psrc_note,
};

static int file_open(struct source **out, const char *arg, const struct source_opts *o,
		     source_record_fn cb, void *ctx, char *err, size_t errlen)
{
	return source_pcap_open_as(out, arg, arg, o, cb, ctx, err, errlen);
}

int source_pcap_open_as(struct source **out, const char *path, const char *name,
			const struct source_opts *o, source_record_fn cb, void *ctx, char *err,
			size_t errlen)
{
	struct psrc *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->base.type = &source_type_pcap;
	if ((ret = pcap_source_open(&s->file, path, err, errlen)) < 0) {
		free(s);
		return ret;
	}
	s->linktype = pcap_source_linktype(s->file);
	if ((ret = common_init(s, name, o, cb, ctx, err, errlen)) < 0) {
		psrc_close(&s->base);
		return ret;
	}
	*out = &s->base;
	return 0;
}

/* The end of the file (rc 0) or a read error (rc < 0): what is still
 * open is flushed.  A truncated file's records so far go out, the error
 * comes with the next poll. */
static int file_end(struct psrc *s, int rc)
{
	if (rc < 0) {
		s->st.errors++;
		s->fail = rc;
	}
	s->eof = true;
	finish(s);
	return s->delivered ? s->delivered : (rc < 0 ? rc : -ENODATA);
}

/* No --speed: every packet as soon as it is read, in batches, the
 * reader's fields kept in locals (nothing is ever pending). */
static int file_poll_flat(struct psrc *s)
{
	uint64_t ts;
	const uint8_t *data;
	size_t cap, wire;

	for (unsigned n = 0; n < PSRC_BATCH; n++) {
		int rc = pcap_source_next(s->file, &ts, &data, &cap, &wire, s->err, sizeof(s->err));
		if (rc <= 0)
			return file_end(s, rc);
		feed_file(s, ts, data, cap, wire);
	}
	return s->delivered;
}

static int file_poll(struct source *src, int timeout_ms)
{
	struct psrc *s = (struct psrc *)src;
	unsigned n = 0;

	s->delivered = 0;
	if (s->eof) {
		if (!s->flushed)
			finish(s);
		return s->delivered ? s->delivered : s->fail ? s->fail : -ENODATA;
	}
	if (s->speed <= 0)
		return file_poll_flat(s);
	uint64_t deadline = clock_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
	for (;;) {
		if (!s->pending) {
			int rc = pcap_source_next(s->file, &s->p_ts, &s->p_data, &s->p_cap, &s->p_wire,
						  s->err, sizeof(s->err));
			if (rc <= 0)
				return file_end(s, rc);
			s->pending = true;
		}
		uint64_t now = clock_mono_ns();
		if (!s->base_wall) {
			s->base_wall = now;
			s->base_ts = s->p_ts;
		}
		uint64_t off = s->p_ts > s->base_ts ? s->p_ts - s->base_ts : 0;
		uint64_t due = s->base_wall + (uint64_t)((double)off / s->speed);
		if (due > now) {
			if (now >= deadline || n >= PSRC_BATCH * 16)
				return s->delivered;
			uint64_t until = due < deadline ? due : deadline;
			struct timespec ts = { (time_t)((until - now) / 1000000000ull),
					       (long)((until - now) % 1000000000ull) };
			nanosleep(&ts, NULL);
			continue;
		}
		feed_file(s, s->p_ts, s->p_data, s->p_cap, s->p_wire);
		s->pending = false;
		if (++n >= PSRC_BATCH && clock_mono_ns() >= deadline)
			return s->delivered;
	}
}

static void psrc_stats(const struct source *src, struct source_stats *st)
{
	const struct psrc *s = (const struct psrc *)src;
	const struct dissect_stats *ds = dissect_stats(s->d);

	*st = s->st;
	st->drops = s->pcap_drops + (ds ? ds->evicted : 0);
	/* messages the snap length cut are bad input too, said once (psrc_note) */
	if (ds)
		st->errors += ds->snap_cut_calls + ds->snap_cut_replies;
}

/* ---- live capture ---- */

static int live_open(struct source **out, const char *arg, const struct source_opts *o,
		     source_record_fn cb, void *ctx, char *err, size_t errlen);
static int live_poll(struct source *src, int timeout_ms);
static int live_fd(struct source *src)
{
	return pcap_get_selectable_fd(((struct psrc *)src)->pc);
}

const struct source_type source_type_live = {
	.prefix = "live",
	.help = "live:IFACE  libpcap live capture (RoCE netdev, or mlx5_0 via libpcap's RDMA sniffer)",
	.open = live_open, .fd = live_fd, .poll = live_poll, .stats = psrc_stats, .close = psrc_close,
	.note = psrc_note,
};

static void one_line(char *err, size_t errlen, const char *name, const char *why)
{
	snprintf(err, errlen, "%s: %s", name, why);
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static int live_open(struct source **out, const char *arg, const struct source_opts *o,
		     source_record_fn cb, void *ctx, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct psrc *s;
	int ret;

	*out = NULL;
	if (!*arg) {
		snprintf(err, errlen, "live: needs an interface (live:IFACE)");
		return -EINVAL;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->base.type = &source_type_live;
	s->live = true;
	if (!(s->pc = pcap_create(arg, perr))) {
		one_line(err, errlen, arg, perr);
		free(s);
		return -ENODEV;
	}
	pcap_set_snaplen(s->pc, o->snaplen ? (int)o->snaplen : 65535);
	pcap_set_promisc(s->pc, 1);
	pcap_set_immediate_mode(s->pc, 1);
	pcap_set_buffer_size(s->pc, 16 << 20);
	pcap_set_tstamp_precision(s->pc, PCAP_TSTAMP_PRECISION_NANO);
	ret = pcap_activate(s->pc);
	if (ret < 0) {
		one_line(err, errlen, arg, ret == PCAP_ERROR ? pcap_geterr(s->pc) : pcap_statustostr(ret));
		psrc_close(&s->base);
		return ret == PCAP_ERROR_PERM_DENIED ? -EPERM : -ENODEV;
	}
	s->nano = pcap_get_tstamp_precision(s->pc) == PCAP_TSTAMP_PRECISION_NANO;
	s->linktype = pcap_datalink(s->pc);
	if (s->linktype == DLT_EN10MB) {
		/* Only what may carry RPC reaches user space: RoCEv2 and
		 * RoCEv1, and TCP and UDP (ONC RPC, on any port: NFSv4.0
		 * callbacks go to the client's own), IPv6 fragments too. */
		struct bpf_program prog;
		if (pcap_compile(s->pc, &prog, "udp port 4791 or ether proto 0x8915 or vlan or tcp or udp or "
				 "ip6 proto 44", 1, PCAP_NETMASK_UNKNOWN) == 0) {
			pcap_setfilter(s->pc, &prog);
			pcap_freecode(&prog);
		}
	}
	if (pcap_setnonblock(s->pc, 1, perr) < 0) {
		one_line(err, errlen, arg, perr);
		psrc_close(&s->base);
		return -EIO;
	}
	if ((ret = common_init(s, arg, o, cb, ctx, err, errlen)) < 0) {
		psrc_close(&s->base);
		return ret;
	}
	*out = &s->base;
	return 0;
}

static void live_pkt(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct psrc *s = (struct psrc *)user;
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull +
		      (uint64_t)h->ts.tv_usec * (s->nano ? 1u : 1000u);

	feed(s, ts, data, h->caplen, h->len < h->caplen ? h->caplen : h->len);
}

static int live_poll(struct source *src, int timeout_ms)
{
	struct psrc *s = (struct psrc *)src;
	struct pollfd p = { .fd = pcap_get_selectable_fd(s->pc), .events = POLLIN };
	struct pcap_stat ps;

	s->delivered = 0;
	if (p.fd >= 0 && poll(&p, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	int rc = pcap_dispatch(s->pc, PSRC_BATCH, live_pkt, (u_char *)s);
	if (rc == PCAP_ERROR) {
		one_line(s->err, sizeof(s->err), s->name, pcap_geterr(s->pc));
		s->st.errors++;
		return -EIO;
	}
	if (pcap_stats(s->pc, &ps) == 0)
		s->pcap_drops = (uint64_t)ps.ps_drop + ps.ps_ifdrop;
	return s->delivered;
}

/* ---- extras (pcap/source_pcap.h) ---- */

bool source_is_pcap(const struct source *s)
{
	return s && (s->type == &source_type_pcap || s->type == &source_type_live);
}

int source_pcap_set_tap(struct source *src, const struct pcap_tap *tap)
{
	struct psrc *s = (struct psrc *)src;

	if (!source_is_pcap(src))
		return -EINVAL;
	if (tap)
		s->tap = *tap;
	else
		memset(&s->tap, 0, sizeof(s->tap));
	dissect_feed_set_tap(s->feed, s->tap.event ? on_event : NULL, s);
	return 0;
}

/* Turning notes on replaces the dissector, so it can only happen before
 * the first packet (-EBUSY after).  Turning them off just stops the calls. */
int source_pcap_set_frame_note(struct source *src, source_pcap_note_fn fn, void *ctx)
{
	struct psrc *s = (struct psrc *)src;
	int rc;

	if (!source_is_pcap(src))
		return -EINVAL;
	if (!fn) {
		s->note = NULL;
		s->note_ctx = NULL;
		return 0;
	}
	if (s->frame)
		return -EBUSY;
	s->note = fn;
	s->note_ctx = ctx;
	if ((rc = new_dissect(s, s->err, sizeof(s->err))) < 0) {
		s->note = NULL;
		return rc;
	}
	return 0;
}

int source_pcap_linktype(const struct source *src)
{
	return source_is_pcap(src) ? ((const struct psrc *)src)->linktype : -1;
}

const char *source_pcap_name(const struct source *src)
{
	return source_is_pcap(src) ? ((const struct psrc *)src)->name : "";
}

const char *source_pcap_error(const struct source *src)
{
	const struct psrc *s = (const struct psrc *)src;

	return source_is_pcap(src) && s->fail && s->err[0] ? s->err : NULL;
}

bool source_pcap_flat_out(const struct source *src)
{
	return src && src->type == &source_type_pcap && ((const struct psrc *)src)->speed <= 0;
}
