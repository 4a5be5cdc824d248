/* nfsrdmad's {"type":"clock"} lines: a file's records ran on other clocks,
 * so the caller turns them on for live sources only. */
#include <stdio.h>
#include <unistd.h>

#include "src/base/hostclock.h"
#include "src/base/log.h"
#include "src/daemon/daemon.h"

uint64_t daemon_clock_line(bool on, pthread_mutex_t *mu, uint64_t mono_now)
{
	struct host_clock hc;
	char host[256] = "";
	int rc;

	if (!on)
		return 0;
	if ((rc = host_clock_read(&hc, "/dev", "/sys/class/ptp")) < 0) {
		log_warn("the host's clocks cannot be read (%d): no clock line", rc);
		return mono_now + DAEMON_CLOCK_LINE_NS;
	}
	gethostname(host, sizeof(host) - 1);
	pthread_mutex_lock(mu);
	host_clock_json(stdout, &hc, host);
	fflush(stdout);
	pthread_mutex_unlock(mu);
	return mono_now + DAEMON_CLOCK_LINE_NS;
}
