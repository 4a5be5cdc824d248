/* nfsrdma-top's data feeds (see top_feed.h). */
#include "src/top/top_feed.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/stats/ctl_proto.h"
#include "pcap/source_pcap.h"
#include "src/probe/source_table.h"

#define TOP_MAX_SOURCES 16

struct top_feed {
	bool daemon;
	char name[300];
	/* daemon */
	char path[108];
	int fd;
	char buf[CTL_LINE_MAX + 1];
	size_t blen;
	/* standalone */
	struct source *src[TOP_MAX_SOURCES];
	char spec[TOP_MAX_SOURCES][128];   /* for the end-of-input notes */
	bool ended[TOP_MAX_SOURCES];
	unsigned nsrc;
	bool record_clock;
	struct agg *agg;
};

uint64_t top_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct top_feed *top_feed_daemon(const char *socket_path)
{
	struct top_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->daemon = true;
	f->fd = -1;
	snprintf(f->path, sizeof(f->path), "%s", socket_path);
	snprintf(f->name, sizeof(f->name), "daemon %s", socket_path);
	return f;
}

static void on_record(const struct nfsrdma_record *r, void *ctx)
{
	struct top_feed *f = ctx;
	uint64_t t = wall_ns();

	if (f->record_clock)
		t = r->t_reply_last ? r->t_reply_last : r->t_call_last;
	agg_add(f->agg, r, t);
}

int top_feed_standalone(struct top_feed **out, const char *const *specs, unsigned n,
			const struct source_opts *o, char *err, size_t errlen)
{
	struct top_feed *f = calloc(1, sizeof(*f));
	int rc;

	*out = NULL;
	if (!f || !(f->agg = agg_new(NULL))) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->fd = -1;
	f->record_clock = true;
	for (unsigned i = 0; i < n && i < TOP_MAX_SOURCES; i++) {
		if ((rc = source_open(&f->src[i], specs[i], o, on_record, f, err, errlen)) < 0) {
			top_feed_free(f);
			return rc;
		}
		snprintf(f->spec[i], sizeof(f->spec[i]), "%s", specs[i]);
		f->nsrc++;
		f->record_clock = f->record_clock && source_pcap_flat_out(f->src[i]);
		size_t l = strlen(f->name);
		snprintf(f->name + l, sizeof(f->name) - l, "%s%s", i ? " " : "", specs[i]);
	}
	*out = f;
	return 0;
}

bool top_feed_ended(const struct top_feed *f)
{
	if (f->daemon)
		return false;
	for (unsigned i = 0; i < f->nsrc; i++)
		if (!f->ended[i])
			return false;
	return true;
}

void top_feed_run(struct top_feed *f, uint64_t deadline)
{
	if (f->daemon || top_feed_ended(f)) {
		uint64_t now = top_mono_ns();
		if (deadline > now) {
			struct timespec ts = { (time_t)((deadline - now) / 1000000000ull),
					       (long)((deadline - now) % 1000000000ull) };
			nanosleep(&ts, NULL);
		}
		return;
	}
	while (top_mono_ns() < deadline && !top_feed_ended(f)) {
		uint64_t left = (deadline - top_mono_ns()) / 1000000ull;
		int slice = (int)(left / (f->nsrc ? f->nsrc : 1));
		if (slice > 100)
			slice = 100;
		for (unsigned i = 0; i < f->nsrc; i++) {
			if (f->ended[i])
				continue;
			int rc = source_poll(f->src[i], slice);
			if (rc < 0 && rc != -EINTR && rc != -EAGAIN)
				f->ended[i] = true;
		}
	}
}

static void daemon_close(struct top_feed *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->blen = 0;
}

/* One line (without the newline) into line; 1 ok, negative errno. */
static int read_line(struct top_feed *f, char *line, size_t cap)
{
	for (;;) {
		char *nl = memchr(f->buf, '\n', f->blen);
		if (nl) {
			size_t n = (size_t)(nl - f->buf);
			if (n >= cap)
				return -EPROTO;
			memcpy(line, f->buf, n);
			line[n] = 0;
			memmove(f->buf, nl + 1, f->blen - n - 1);
			f->blen -= n + 1;
			return 1;
		}
		if (f->blen >= CTL_LINE_MAX)
			return -EPROTO;      /* a line longer than the protocol allows */
		struct pollfd p = { f->fd, POLLIN, 0 };
		int pr = poll(&p, 1, 3000);
		if (pr == 0)
			return -ETIMEDOUT;
		if (pr < 0)
			return -errno;
		ssize_t r = read(f->fd, f->buf + f->blen, CTL_LINE_MAX - f->blen);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		f->blen += (size_t)r;
	}
}

static int daemon_connect(struct top_feed *f, char *err, size_t errlen)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	char line[CTL_LINE_MAX + 1];

	snprintf(su.sun_path, sizeof(su.sun_path), "%s", f->path);
	f->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->fd < 0 || connect(f->fd, (struct sockaddr *)&su, sizeof(su)) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(e));
		daemon_close(f);
		return -e;
	}
	int rc = read_line(f, line, sizeof(line));
	int v = rc < 0 ? rc : ctl_parse_greeting(line);
	if (v < 0) {
		snprintf(err, errlen, "%s: no nfsrdmad greeting", f->path);
		daemon_close(f);
		return -EPROTO;
	}
	if (v != CTL_PROTO_VERSION) {
		snprintf(err, errlen, "%s: daemon speaks protocol %d, this nfsrdma-top speaks %d", f->path, v,
			 CTL_PROTO_VERSION);
		daemon_close(f);
		return -EPROTO;
	}
	return 0;
}

int top_feed_snapshot(struct top_feed *f, struct agg_snap *s, char *err, size_t errlen)
{
	char line[CTL_LINE_MAX + 1];
	int rc;

	if (!f->daemon)
		return agg_snapshot(f->agg, f->record_clock ? 0 : wall_ns(), s);
	memset(s, 0, sizeof(*s));
	if (f->fd < 0 && (rc = daemon_connect(f, err, errlen)) < 0)
		return rc;
	if (send(f->fd, "SNAPSHOT\n", 9, MSG_NOSIGNAL) != 9) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
		daemon_close(f);
		return rc;
	}
	struct ctl_reader rd = { { 0 } };
	for (;;) {
		if ((rc = read_line(f, line, sizeof(line))) < 0) {
			snprintf(err, errlen, "%s: %s", f->path, strerror(-rc));
			break;
		}
		if ((rc = ctl_read_line(&rd, s, line, err, errlen)) != 0)
			break;
	}
	if (rc == 1)
		return 0;
	agg_snap_free(s);
	daemon_close(f);
	return rc < 0 ? rc : -EPROTO;
}

const char *top_feed_name(const struct top_feed *f)
{
	return f->name;
}

void top_feed_free(struct top_feed *f)
{
	if (!f)
		return;
	daemon_close(f);
	for (unsigned i = 0; i < f->nsrc; i++) {
		char note[256];
		/* after the screen is gone: the terminal is the user's again */
		if (source_note(f->src[i], note, sizeof(note)))
			log_warn("%s: %s", f->spec[i], note);
		source_close(f->src[i]);
	}
	agg_free(f->agg);
	free(f);
}
