#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "src/base/hostclock.h"
#include "src/base/json.h"

#define TRIES 5
/* the kernel's dynamic POSIX clock id of an open PTP device */
#define FD_TO_CLOCKID(fd) ((clockid_t)((((unsigned)~(fd)) << 3) | 3))

static uint64_t ts_ns(const struct timespec *t) { return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec; }

static int read_clocks(struct host_clock *hc)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < TRIES; i++) {
		struct timespec m0, r, t, m1;
		if (clock_gettime(CLOCK_MONOTONIC, &m0) || clock_gettime(CLOCK_REALTIME, &r))
			return -errno;
		bool tai = clock_gettime(CLOCK_TAI, &t) == 0;
		if (clock_gettime(CLOCK_MONOTONIC, &m1))
			return -errno;
		uint64_t a = ts_ns(&m0), b = ts_ns(&m1);
		if (b - a >= best)
			continue;
		best = b - a;
		hc->mono_ns = a + (b - a) / 2;
		hc->spread_ns = b - a;
		hc->realtime_ns = ts_ns(&r);
		hc->tai_ns = tai ? ts_ns(&t) : 0;
	}
	return 0;
}

static void read_adjtimex(struct host_clock *hc)
{
	struct timex tx = { .modes = 0 };
	int st = adjtimex(&tx);

	hc->state = st < 0 ? -errno : st;
	if (st < 0)
		return;
	hc->status = tx.status;
	hc->synced = !(tx.status & STA_UNSYNC) && st != TIME_ERROR;
	/* offset in ns with STA_NANO, else in us */
	hc->offset_ns = (tx.status & STA_NANO) ? (int64_t)tx.offset : (int64_t)tx.offset * 1000;
	hc->freq_ppm = (double)tx.freq / 65536.0;
	hc->esterror_ns = tx.esterror > 0 ? (uint64_t)tx.esterror * 1000 : 0;
	hc->maxerror_ns = tx.maxerror > 0 ? (uint64_t)tx.maxerror * 1000 : 0;
	hc->tai_offset_s = tx.tai;
}

static void ptp_name(const char *sysdir, const char *dev, char *out, size_t cap)
{
	char path[512];
	FILE *f;

	out[0] = 0;
	if (!sysdir || (size_t)snprintf(path, sizeof(path), "%s/%s/clock_name", sysdir, dev) >= sizeof(path) ||
	    !(f = fopen(path, "r")))
		return;
	if (!fgets(out, (int)cap, f))
		out[0] = 0;
	fclose(f);
	/* one line of printable ASCII: it goes into JSON as it is */
	size_t n = 0;
	for (; out[n] && out[n] != '\n'; n++)
		if ((unsigned char)out[n] < 0x20 || (unsigned char)out[n] > 0x7e || out[n] == '"' || out[n] == '\\')
			out[n] = '?';
	out[n] = 0;
}

/* The PHC against CLOCK_REALTIME, read between two realtime reads. */
static void ptp_read(struct host_clock *hc, unsigned k, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct timespec r0, p, r1;

	if (fd < 0) {
		hc->ptp[k].err = -errno;
		return;
	}
	if (clock_gettime(CLOCK_REALTIME, &r0) || clock_gettime(FD_TO_CLOCKID(fd), &p) ||
	    clock_gettime(CLOCK_REALTIME, &r1))
		hc->ptp[k].err = -errno;
	else
		hc->ptp[k].phc_minus_realtime_ns = (int64_t)(ts_ns(&p) - (ts_ns(&r0) + (ts_ns(&r1) - ts_ns(&r0)) / 2));
	close(fd);
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static void read_ptp(struct host_clock *hc, const char *devdir, const char *sysdir)
{
	DIR *d = opendir(devdir);
	struct dirent *e;
	char names[HOSTCLOCK_PTP_MAX][32];
	unsigned n = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && n < HOSTCLOCK_PTP_MAX) {
		char *end;
		if (strncmp(e->d_name, "ptp", 3) || !e->d_name[3] || strlen(e->d_name) >= sizeof(names[0]))
			continue;
		strtoul(e->d_name + 3, &end, 10);
		if (*end)
			continue;   /* ptp0, ptp1 ..: not ptp_kvm's helpers or links by name */
		snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (unsigned i = 0; i < n; i++) {
		char path[512];
		struct stat st;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", devdir, names[i]) >= sizeof(path) ||
		    stat(path, &st) || !S_ISCHR(st.st_mode))
			continue;
		unsigned k = hc->nptp++;
		snprintf(hc->ptp[k].dev, sizeof(hc->ptp[k].dev), "%.47s", path);
		ptp_name(sysdir, names[i], hc->ptp[k].name, sizeof(hc->ptp[k].name));
		ptp_read(hc, k, path);
	}
}

int host_clock_read(struct host_clock *hc, const char *devdir, const char *sysdir)
{
	memset(hc, 0, sizeof(*hc));
	int rc = read_clocks(hc);
	if (rc < 0)
		return rc;
	read_adjtimex(hc);
	if (devdir)
		read_ptp(hc, devdir, sysdir);
	return 0;
}

void host_clock_json(FILE *f, const struct host_clock *hc, const char *host)
{
	struct jw jb, *j = &jb;

	jw_init(j, f);
	jw_lit(j, "{\"type\":\"clock\"");
	if (host) {
		/* a host name is no place for JSON syntax: what the join
		 * matches it against was made the same way */
		char h[256];
		size_t n = 0;
		for (const char *c = host; *c && n < sizeof(h) - 1; c++)
			h[n++] = (unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e || *c == '"' || *c == '\\' ? '?' : *c;
		h[n] = 0;
		JW_KEY(j, "host");
		jw_str(j, h);
	}
	JW_KEY(j, "mono_ns");
	jw_u(j, hc->mono_ns);
	JW_KEY(j, "realtime_ns");
	jw_u(j, hc->realtime_ns);
	JW_KEY(j, "tai_ns");
	jw_time(j, hc->tai_ns);
	JW_KEY(j, "spread_ns");
	jw_u(j, hc->spread_ns);
	JW_KEY(j, "synced");
	jw_bool(j, hc->synced);
	JW_KEY(j, "state");
	jw_i(j, hc->state);
	JW_KEY(j, "status");
	jw_i(j, hc->status);
	JW_KEY(j, "esterror_ns");
	jw_u(j, hc->esterror_ns);
	JW_KEY(j, "maxerror_ns");
	jw_u(j, hc->maxerror_ns);
	JW_KEY(j, "offset_ns");
	jw_i(j, hc->offset_ns);
	JW_KEY(j, "freq_ppm");
	jw_fixed(j, hc->freq_ppm, 3);
	JW_KEY(j, "tai_offset_s");
	jw_i(j, hc->tai_offset_s);
	JW_KEY(j, "ptp");
	jw_c(j, '[');
	for (unsigned k = 0; k < hc->nptp; k++) {
		jw_lit(j, k ? ",{\"dev\":" : "{\"dev\":");
		jw_str(j, hc->ptp[k].dev);
		JW_KEY(j, "name");
		jw_str(j, hc->ptp[k].name);
		JW_KEY(j, "phc_minus_realtime_ns");
		if (hc->ptp[k].err) {
			jw_null(j);
			JW_KEY(j, "error");
			jw_str(j, strerror(-hc->ptp[k].err));
		} else {
			jw_i(j, hc->ptp[k].phc_minus_realtime_ns);
			jw_lit(j, ",\"error\":null");
		}
		jw_c(j, '}');
	}
	jw_lit(j, "]}\n");
	jw_flush(j);
}
