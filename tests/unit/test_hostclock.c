/* The host's clock reading (src/base/hostclock.h): each value bracketed by
 * the test's own reads of the same clocks and of adjtimex, and the PTP
 * device handling on mknod copies in a temporary directory (the real
 * /dev/ptp* nodes are never opened here). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "src/base/hostclock.h"
#include "src/join/join.h"

static uint64_t now(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void bracketed(void)
{
	struct host_clock hc;
	struct timex tx0 = { .modes = 0 }, tx1 = { .modes = 0 };
	int st0 = adjtimex(&tx0);
	uint64_t m0 = now(CLOCK_MONOTONIC), r0 = now(CLOCK_REALTIME), a0 = now(CLOCK_TAI);
	int rc = host_clock_read(&hc, NULL, NULL);
	uint64_t a1 = now(CLOCK_TAI), r1 = now(CLOCK_REALTIME), m1 = now(CLOCK_MONOTONIC);
	int st1 = adjtimex(&tx1);

	CHECK(rc == 0, "read: %d", rc);
	CHECK(hc.mono_ns >= m0 && hc.mono_ns <= m1, "mono %llu outside [%llu, %llu]", (unsigned long long)hc.mono_ns,
	      (unsigned long long)m0, (unsigned long long)m1);
	CHECK(hc.realtime_ns >= r0 && hc.realtime_ns <= r1, "realtime outside the test's reads");
	CHECK(hc.tai_ns >= a0 && hc.tai_ns <= a1, "TAI outside the test's reads");
	CHECK(hc.spread_ns <= m1 - m0, "spread %llu wider than the whole bracket %llu", (unsigned long long)hc.spread_ns,
	      (unsigned long long)(m1 - m0));
	/* the wall clocks were read inside the kept reading: realtime - mono
	 * is within the spread of what the test sees across its own reads */
	CHECK(hc.nptp == 0, "no PTP looked for without a directory");
	if (st0 == st1 && tx0.status == tx1.status && tx0.maxerror == tx1.maxerror) {
		CHECK(hc.state == st0, "state %d, adjtimex says %d", hc.state, st0);
		CHECK(hc.status == tx0.status, "status %d, adjtimex says %d", hc.status, tx0.status);
		CHECK(hc.synced == (!(tx0.status & STA_UNSYNC) && st0 != TIME_ERROR), "synced %d, status %d", hc.synced,
		      tx0.status);
		CHECK(hc.maxerror_ns == (uint64_t)tx0.maxerror * 1000, "maxerror %llu ns, adjtimex %ld us",
		      (unsigned long long)hc.maxerror_ns, tx0.maxerror);
		CHECK(hc.tai_offset_s == tx0.tai, "TAI offset %d, adjtimex %d", hc.tai_offset_s, tx0.tai);
	} else {
		CHECK_SKIP("the kernel's clock state changed during the reading (a time daemon's update)");
	}
}

static void ptp_copies(void)
{
	char dir[] = "/tmp/hostclock.XXXXXX", p[512];
	struct host_clock hc;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(p, sizeof(p), "%s/dev", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/ptp0", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/sys/ptp0/clock_name", dir);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("lab \"PHC\"\n", f);   /* a quote: it must not reach the JSON */
		fclose(f);
	}
	/* ptp0 and ptp2: copies of /dev/null and /dev/zero (not PTP clocks:
	 * reading them as one fails); ptp1 a plain file; ptpx not a ptpN */
	static const struct { const char *name; unsigned minor; bool chr; } n[] = {
		{ "ptp0", 3, true }, { "ptp1", 0, false }, { "ptp2", 5, true }, { "ptpx", 3, true }, { "ptp", 3, true },
	};
	for (unsigned i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		snprintf(p, sizeof(p), "%s/dev/%s", dir, n[i].name);
		int rc = n[i].chr ? mknod(p, S_IFCHR | 0600, makedev(1, n[i].minor)) : mknod(p, S_IFREG | 0600, 0);
		if (rc) {
			CHECK_SKIP("mknod %s: %s (needs root)", p, strerror(errno));
			return;
		}
	}
	char dev[300], sys[300];
	snprintf(dev, sizeof(dev), "%s/dev", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	CHECK(host_clock_read(&hc, dev, sys) == 0, "read with the copies");
	CHECK(hc.nptp == 2, "%u PTP devices (ptp0 and ptp2 are)", hc.nptp);
	snprintf(p, sizeof(p), "%s/ptp0", dev);
	CHECK_EQ_STR(hc.ptp[0].dev, p);
	CHECK_EQ_STR(hc.ptp[0].name, "lab ?PHC?");
	snprintf(p, sizeof(p), "%s/ptp2", dev);
	CHECK_EQ_STR(hc.ptp[1].dev, p);
	CHECK_EQ_STR(hc.ptp[1].name, "");
	CHECK(hc.ptp[0].err < 0 && hc.ptp[1].err < 0, "not PTP clocks: errors %d %d", hc.ptp[0].err, hc.ptp[1].err);

	char buf[4096];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	host_clock_json(m, &hc, "a\"b\\c\nd");
	fclose(m);
	CHECK(strstr(buf, "\"host\":\"a?b?c?d\"") != NULL, "the host name made JSON-safe: %s", buf);
	CHECK(strstr(buf, "\"name\":\"lab ?PHC?\"") && strstr(buf, "\"phc_minus_realtime_ns\":null,\"error\":\""),
	      "the PTP device named, its error said: %s", buf);
	CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1, "one line, ended: %s", buf);
	/* the line is what the join reads: its numbers come back as written */
	struct join *j = join_new(NULL, NULL, NULL);
	char err[128];
	CHECK(join_clock_line(j, 1, buf, strlen(buf), err, sizeof(err)) == 0, "the join takes the line: %s", err);
	join_free(j);
	for (unsigned i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		snprintf(p, sizeof(p), "%s/dev/%s", dir, n[i].name);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/sys/ptp0/clock_name", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sys/ptp0", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/sys", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/dev", dir);
	rmdir(p);
	rmdir(dir);
}

int main(void)
{
	bracketed();
	ptp_copies();
	return check_summary("hostclock");
}
