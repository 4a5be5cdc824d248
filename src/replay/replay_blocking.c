/* What the run loop did synchronously while the schedule ran, holding
 * back every client's calls (not only its own): a session or client ID
 * set up inline, the wait for an NFSv4.0 callback probe, the DELEGRETURN
 * of a recalled delegation, a path resolved on the target, an NFSv4.0
 * OPEN_CONFIRM.  Counted and timed, said with -v, reported
 * (JSON "blocking", a text note): the replay's own timing, so that a
 * check can tell that no client waited on another's work.  Before the
 * schedule's clock starts (t0) such work delays no call: it is reported
 * apart ("before_start").  The waits a client does alone (its calls held,
 * no other's: the NFSv4.0 callback probe) are reported beside them. */
#include "src/replay/replay_engine.h"

#include <inttypes.h>

#include "src/base/json.h"

static const char *const block_name[BLOCK_KINDS] = {
	"setup", "cb_probe", "delegreturn", "path", "open_confirm",
};

void replay_blocked(struct engine *e, unsigned kind, uint64_t since)
{
	uint64_t d = xprt_now_ns() - since;
	if (kind >= BLOCK_KINDS)
		return;
	if (!e->t0) {
		/* a path resolved before the start (a group's directory)
		 * delays no call either; "before_start" is the set-ups */
		if (kind != BLOCK_SETUP)
			return;
		e->before_start_n++;
		e->before_start_ns += d;
		return;
	}
	e->blocked_n[kind]++;
	e->blocked_ns[kind] += d;
	if (d > e->blocked_max_ns[kind])
		e->blocked_max_ns[kind] = d;
	if (e->o->per_call)
		fprintf(e->out, "  c%u: %s done synchronously: every client held %.1f us\n",
			e->cur ? (unsigned)(e->cur - e->cl) + 1 : 0, block_name[kind], (double)d / 1e3);
}

void replay_blocking_json(const struct engine *e, struct jw *j)
{
	jw_lit(j, "\"blocking\":{");
	for (unsigned k = 0; k < BLOCK_KINDS; k++) {
		jw_lit(j, k ? ",\"" : "\"");
		jw_lit(j, block_name[k]);
		jw_lit(j, "\":{\"n\":");
		jw_u(j, e->blocked_n[k]);
		JW_KEY(j, "ns");
		jw_u(j, (uint64_t)e->blocked_ns[k]);
		JW_KEY(j, "max_ns");
		jw_u(j, (uint64_t)e->blocked_max_ns[k]);
		jw_c(j, '}');
	}
	jw_lit(j, ",\"before_start\":{\"n\":");
	jw_u(j, e->before_start_n);
	JW_KEY(j, "ns");
	jw_u(j, (uint64_t)e->before_start_ns);
	jw_lit(j, "},\"own_cb_probe_waits\":{\"n\":");
	jw_u(j, e->cb_waits);
	JW_KEY(j, "ns");
	jw_u(j, (uint64_t)e->cb_wait_ns);
	JW_KEY(j, "max_ns");
	jw_u(j, (uint64_t)e->cb_wait_max_ns);
	jw_lit(j, "}},");
}

void replay_report_blocking(const struct engine *e, FILE *f)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < BLOCK_KINDS; k++)
		n += e->blocked_n[k];
	if (!n)
		return;
	fprintf(f, "note: the run loop blocked every client");
	for (unsigned k = 0; k < BLOCK_KINDS; k++)
		if (e->blocked_n[k])
			fprintf(f, "; %s %" PRIu64 " time(s), %.1f ms (max %.1f ms)", block_name[k],
				e->blocked_n[k], (double)e->blocked_ns[k] / 1e6, (double)e->blocked_max_ns[k] / 1e6);
	fputc('\n', f);
}
