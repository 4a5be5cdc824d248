/* --realtime: the paced replay's thread ahead of every ordinary task of
 * its machine (SCHED_FIFO at the lowest real-time priority) and its
 * memory locked, so it leaves on time while soft-RoCE's kernel threads
 * (ksoftirqd, kworkers) and the rest have work.  Not permitted (no
 * CAP_SYS_NICE / RLIMIT_RTPRIO, or a container without real-time
 * bandwidth): one line, and the replay goes on as it would without. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "src/base/log.h"

void replay_timing_setup(const struct replay_opts *o)
{
	/* the kernel may round a sleep up by the thread's timer slack
	 * (50 us by default): nothing here wants that */
	if (o->speed > 0)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (!o->realtime)
		return;
	/* what the replay has now (the trace, the connections' buffers);
	 * not MCL_FUTURE: under an RLIMIT_MEMLOCK it would make later
	 * allocations fail */
	if (mlockall(MCL_CURRENT) < 0)
		log_warn("--realtime: cannot lock the replay's memory (%s): going on with it unlocked",
			 strerror(errno));
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		log_warn("--realtime: SCHED_FIFO not permitted (%s): going on at normal priority",
			 strerror(errno));
	else
		log_info("--realtime: SCHED_FIFO priority %d", sp.sched_priority);
}
