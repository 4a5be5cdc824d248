/* --max-idle: the trace's idle stretches cut short (see trace.h).  A
 * call's time in flight and every overlap of calls are kept, so the
 * order the target sees, the calls in flight at each send and the trace's
 * latencies are the capture's; only time when nothing was in flight goes.
 * Calls are in capture order (their first frame); a reply may come after
 * later calls. */
#include "src/replay/trace.h"

void trace_cut_idle(struct trace *t, uint64_t max_ns, struct trace_idle_cut *cut)
{
	uint64_t busy_end = 0, shift = 0;   /* in the trace's own time */

	cut->stretches = cut->removed_ns = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct tcall *c = &t->calls[i];
		uint64_t at = c->t_call;
		if (i && at > busy_end && at - busy_end > max_ns) {
			shift += at - busy_end - max_ns;
			cut->stretches++;
		}
		/* what this call keeps busy: until its reply, else its send */
		uint64_t end = c->replied && c->t_reply > at ? c->t_reply : at;
		if (end > busy_end)
			busy_end = end;
		c->t_call = at - shift;
		if (c->replied && c->t_reply >= shift)
			c->t_reply -= shift;
	}
	cut->removed_ns = shift;
}
