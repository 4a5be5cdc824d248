/* nfsrdma-top's data feeds (see top_feed.h). */
#include "src/top/top_feed.h"
#include "src/base/clock.h"

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
#define TOP_BACKOFF_MAX_S 30

struct top_feed {
	bool daemon;
	char name[300];
	/* daemon */
	char path[108];
	int fd;
	char buf[CTL_LINE_MAX + 1];
	size_t blen;
	int minor;   /* the protocol's minor version the daemon greeted with */
	/* unreachable daemon: why, since when, and the next try (backoff) */
	char why[300];
	uint64_t down_since, retry_at;
	unsigned backoff_s;
	/* standalone */
	struct source *src[TOP_MAX_SOURCES];
	char spec[TOP_MAX_SOURCES][128];   /* for the end-of-input notes */
	bool ended[TOP_MAX_SOURCES];
	unsigned nsrc;
	bool record_clock;
	struct agg *agg;
	struct fsplit *fsplit;   /* standalone: joined records' fused split */
};

struct top_feed *top_feed_daemon(const char *socket_path)
{
	struct top_feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->daemon = true;
	f->fd = -1;
	f->down_since = clock_mono_ns();   /* not reached yet */
	snprintf(f->path, sizeof(f->path), "%s", socket_path);
	snprintf(f->name, sizeof(f->name), "daemon %s", socket_path);
	return f;
}

static void on_record(const struct nfsrdma_record *r, void *ctx)
{
	struct top_feed *f = ctx;
	uint64_t t = clock_wall_ns();

	if (f->record_clock)
		t = r->t_reply_last ? r->t_reply_last : r->t_call_last;
	agg_add(f->agg, r, t);
	if (rec_is_fused(r))
		fsplit_add(f->fsplit, r);
}

int top_feed_standalone(struct top_feed **out, const char *const *specs, unsigned n,
			const struct source_opts *o, char *err, size_t errlen)
{
	struct top_feed *f = calloc(1, sizeof(*f));
	int rc;

	*out = NULL;
	if (!f || !(f->agg = agg_new(NULL)) || !(f->fsplit = fsplit_new(0))) {
		if (f)
			agg_free(f->agg);
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
		f->record_clock = f->record_clock && source_flat_out(f->src[i]);
		size_t l = strlen(f->name);
		snprintf(f->name + l, sizeof(f->name) - l, "%s%s", i ? " " : "", specs[i]);
	}
	/* files read flat out end: their slowest RPCs are the run's, not
	 * the last window's (which held none of an early slow one) */
	agg_set_slow_whole_run(f->agg, f->record_clock);
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

const char *top_feed_error(const struct top_feed *f)
{
	for (unsigned i = 0; !f->daemon && i < f->nsrc; i++)
		if (source_pcap_error(f->src[i]))
			return source_pcap_error(f->src[i]);
	return NULL;
}

void top_feed_run(struct top_feed *f, uint64_t deadline)
{
	if (f->daemon || top_feed_ended(f)) {
		uint64_t now = clock_mono_ns();
		if (deadline > now) {
			struct timespec ts = { (time_t)((deadline - now) / 1000000000ull),
					       (long)((deadline - now) % 1000000000ull) };
			nanosleep(&ts, NULL);
		}
		return;
	}
	while (clock_mono_ns() < deadline && !top_feed_ended(f)) {
		uint64_t left = (deadline - clock_mono_ns()) / 1000000ull;
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
	f->minor = ctl_greeting_minor(line);
	return 0;
}

/* A failed exchange with the daemon: the next try waits 1 s, doubling to
 * TOP_BACKOFF_MAX_S, so a missing daemon costs nothing and a restarted one
 * is found within that. */
static int daemon_down(struct top_feed *f, int rc, char *err, size_t errlen)
{
	uint64_t now = clock_mono_ns();

	snprintf(f->why, sizeof(f->why), "%s", err);
	f->backoff_s = f->backoff_s ? f->backoff_s * 2 : 1;
	if (f->backoff_s > TOP_BACKOFF_MAX_S)
		f->backoff_s = TOP_BACKOFF_MAX_S;
	f->retry_at = now + f->backoff_s * 1000000000ull;
	if (!f->down_since)
		f->down_since = now;
	snprintf(err, errlen, "cannot reach nfsrdmad at %s; retrying in %u s", f->why, f->backoff_s);
	return rc;
}

int top_feed_snapshot(struct top_feed *f, struct agg_snap *s, struct fsplit_snap *fs, char *err, size_t errlen)
{
	char line[CTL_LINE_MAX + 1];
	int rc;

	if (fs)
		memset(fs, 0, sizeof(*fs));
	if (!f->daemon) {
		if ((rc = agg_snapshot(f->agg, f->record_clock ? 0 : clock_wall_ns(), s)) < 0)
			return rc;
		if (fs && (rc = fsplit_snapshot(f->fsplit, fs)) < 0)
			agg_snap_free(s);
		return rc;
	}
	memset(s, 0, sizeof(*s));
	uint64_t now = clock_mono_ns();
	if (f->fd < 0 && now < f->retry_at) {
		unsigned left = (unsigned)((f->retry_at - now + 999999999ull) / 1000000000ull);
		snprintf(err, errlen, "cannot reach nfsrdmad at %s; retrying in %u s", f->why, left);
		return -EAGAIN;
	}
	if (f->fd < 0 && (rc = daemon_connect(f, err, errlen)) < 0)
		return daemon_down(f, rc, err, errlen);
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
		if ((rc = ctl_read_line_fused(&rd, s, fs, line, err, errlen)) != 0)
			break;
	}
	if (rc == 1) {
		if (fs && f->minor < 1)
			fs->have = false;   /* a daemon before 2.1: no fused split, not an empty one */
		f->backoff_s = 0;
		f->down_since = 0;
		return 0;
	}
	agg_snap_free(s);
	if (fs)
		fsplit_snap_free(fs);
	daemon_close(f);
	return daemon_down(f, rc < 0 ? rc : -EPROTO, err, errlen);
}

uint64_t top_feed_down_ns(const struct top_feed *f)
{
	return f->daemon && f->down_since ? clock_mono_ns() - f->down_since : 0;
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
	fsplit_free(f->fsplit);
	free(f);
}
