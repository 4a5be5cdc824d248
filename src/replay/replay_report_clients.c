/* The text report's per-client part: what became of each traced client's
 * calls, their latency next to the trace's, and the issue-time error (how
 * late each call left against the trace's schedule, at --speed > 0).
 * JSON: replay_report_json.c. */
#include "src/replay/replay_engine.h"

#include <inttypes.h>
#include <string.h>

#include "src/out/out.h"

/* An issue-time error histogram: three text columns p50 p99 max (us;
 * dashes when not measured: --asap). */
static void replay_report_issue(FILE *f, const struct lhist *h)
{
	if (!h->n)
		fprintf(f, " %9s %9s %9s", "-", "-", "-");
	else
		fprintf(f, " %9.1f %9.1f %9.1f", (double)lhist_pct(h, 50) / 1e3, (double)lhist_pct(h, 99) / 1e3,
			(double)h->max / 1e3);
}

/* The holds (intended waits, apart from the issue-time error) by kind,
 * and the issue-time error with them in. */
static const char *const hold_name[HOLD_KINDS] = { "", "dep", "order", "inflight" };

const char *replay_hold_name(unsigned kind)
{
	return kind < HOLD_KINDS ? hold_name[kind] : "?";
}

static void report_holds(const struct engine *e, FILE *f)
{
	const struct lhist *all = &e->issue_all;
	if (!all->n)
		return;
	fprintf(f, "held back as intended (not in the issue-time error):");
	for (unsigned k = HOLD_DEP; k < HOLD_KINDS; k++) {
		const struct lhist *h = &e->hold[k];
		fprintf(f, "%s %s %" PRIu64 " call(s)", k > HOLD_DEP ? ";" : "",
			k == HOLD_DEP ? "for another client's reply" : k == HOLD_ORDER ?
			"for their own client's order" : "for the traced in-flight count", h->n);
		if (h->n)
			fprintf(f, " (p50 %.1f us, p99 %.1f us, max %.1f us)", (double)lhist_pct(h, 50) / 1e3,
				(double)lhist_pct(h, 99) / 1e3, (double)h->max / 1e3);
	}
	fprintf(f, "; with the holds, the calls left p50 %.1f us, p99 %.1f us, max %.1f us late\n",
		(double)lhist_pct(all, 50) / 1e3, (double)lhist_pct(all, 99) / 1e3, (double)all->max / 1e3);
	fprintf(f, "issue-time error in parts: until taken p99 %.1f us, max %.1f us; taken to sent p99 %.1f us, "
		"max %.1f us", (double)lhist_pct(&e->issue_pick, 99) / 1e3, (double)e->issue_pick.max / 1e3,
		(double)lhist_pct(&e->issue_build, 99) / 1e3, (double)e->issue_build.max / 1e3);
	if (e->cpu_wait_ns >= 0)
		fprintf(f, "; the replay waited %.1f ms for a CPU while it ran", (double)e->cpu_wait_ns / 1e6);
	fputc('\n', f);
	late_report(&e->late, e->pace.spin_stops, f);
}

void replay_report_clients(const struct engine *e, FILE *f)
{
	struct lhist all;
	uint64_t early = 0;

	memset(&all, 0, sizeof(all));
	fprintf(f, "%-4s %-24s %6s %6s %6s %6s %6s %6s | %9s %9s | %9s %9s | %9s %9s %9s\n", "cli",
		"client", "trace", "sent", "same", "diff", "error", "unsup", "p50us", "p99us",
		"trace-p50", "trace-p99", "issue-p50", "issue-p99", "issue-max");
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct rclient *c = &e->cl[k];
		const struct tclient *tcl = &e->t.clients[k];
		lhist_merge(&all, &c->issue);
		early += c->early;
		fprintf(f, "c%-3u %-24s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
			" %6" PRIu64 " | %9.1f %9.1f | %9.1f %9.1f |", k + 1, tcl->label, c->trace, c->replayed,
			c->ok, c->mismatch, c->errors, c->unsupported, (double)lhist_pct(&c->lat, 50) / 1e3,
			(double)lhist_pct(&c->lat, 99) / 1e3, (double)lhist_pct(&c->tlat, 50) / 1e3,
			(double)lhist_pct(&c->tlat, 99) / 1e3);
		replay_report_issue(f, &c->issue);
		fputc('\n', f);
	}
	fprintf(f, "cross-client: %" PRIu64 " call(s) after another client's change or look, "
		"%" PRIu64 " held for its reply\n", e->deps, e->deps_held);
	if (all.n)
		fprintf(f, "issue-time error (how late calls left against the trace's schedule at "
			"--speed %g): p50 %.1f us, p99 %.1f us, max %.1f us over %" PRIu64 " calls "
			"(%" PRIu64 " early)\n", e->o->speed, (double)lhist_pct(&all, 50) / 1e3,
			(double)lhist_pct(&all, 99) / 1e3, (double)all.max / 1e3, all.n, early);
	report_holds(e, f);
	replay_report_blocking(e, f);
}
