/* nfsrdmad's {"type":"clock"} lines: a file's records ran on other clocks,
 * so the caller turns them on for live sources only. */
#include <stdio.h>
#include <unistd.h>

#include "src/base/hostclock.h"
#include "src/base/log.h"
#include "src/daemon/coll_join.h"
#include "src/daemon/daemon.h"
#include "src/daemon/fwd_link.h"

uint64_t daemon_clock_line(bool on, bool json, struct forwarder *fw, struct coll_join *cj, pthread_mutex_t *mu,
			   uint64_t mono_now)
{
	struct host_clock hc;
	char host[256] = "", line[FWD_CLOCK_MAX + 2];
	int rc;

	if (!on || (!json && !fw && !cj))
		return 0;
	if ((rc = host_clock_read(&hc, "/dev", "/sys/class/ptp")) < 0) {
		log_warn("the host's clocks cannot be read (%d): no clock line", rc);
		return mono_now + DAEMON_CLOCK_LINE_NS;
	}
	gethostname(host, sizeof(host) - 1);
	FILE *f = fmemopen(line, sizeof(line), "w");
	if (!f)
		return mono_now + DAEMON_CLOCK_LINE_NS;
	host_clock_json(f, &hc, host);
	long n = ftell(f);
	fclose(f);
	if (n <= 1 || line[n - 1] != '\n')
		return mono_now + DAEMON_CLOCK_LINE_NS;   /* did not fit: PTP devices' names, say */
	if (json) {
		pthread_mutex_lock(mu);
		fwrite(line, 1, (size_t)n, stdout);
		fflush(stdout);
		pthread_mutex_unlock(mu);
	}
	if (fw)
		fwd_clock(fw, line, (size_t)n - 1);
	if (cj)
		coll_join_clock(cj, "", line, (size_t)n - 1);
	return mono_now + DAEMON_CLOCK_LINE_NS;
}
