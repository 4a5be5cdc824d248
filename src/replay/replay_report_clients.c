/* The report's per-client part: what became of each traced client's
 * calls, their latency next to the trace's, and the issue-time error (how
 * late each call left against the trace's schedule, at --speed > 0):
 * text rows, or a JSON "clients" array. */
#include "src/replay/replay_engine.h"

#include <inttypes.h>
#include <string.h>

#include "src/out/out.h"

void replay_report_issue(FILE *f, const struct lhist *h, uint64_t early, bool json)
{
	if (json) {
		if (!h->n)
			fputs("\"issue\":null", f);
		else
			fprintf(f, "\"issue\":{\"calls\":%" PRIu64 ",\"early\":%" PRIu64 ",\"p50_ns\":%" PRIu64
				",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}", h->n, early, lhist_pct(h, 50),
				lhist_pct(h, 99), h->max);
		return;
	}
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

static void report_holds(const struct engine *e, FILE *f, bool json)
{
	const struct lhist *all = &e->issue_all;
	if (json) {
		fputs("\"holds\":{", f);
		for (unsigned k = HOLD_DEP; k < HOLD_KINDS; k++) {
			const struct lhist *h = &e->hold[k];
			if (k > HOLD_DEP)
				fputc(',', f);
			lhist_json(f, hold_name[k], h, true);
		}
		fputs("},", f);
		if (all->n)
			lhist_json(f, "issue_with_holds", all, true);
		else
			fputs("\"issue_with_holds\":null", f);
		fputc(',', f);
		/* where the issue-time error is spent: until the scheduler took
		 * the call, and from then until it left */
		fputs("\"issue_parts\":{", f);
		lhist_json(f, "due_to_taken", &e->issue_pick, false);
		fputc(',', f);
		lhist_json(f, "taken_to_sent", &e->issue_build, false);
		if (e->cpu_wait_ns >= 0)
			fprintf(f, ",\"cpu_wait_ns\":%" PRId64 "},", (int64_t)e->cpu_wait_ns);
		else
			fputs(",\"cpu_wait_ns\":null},", f);
		late_report(&e->late, e->pace.spin_stops, f, true);
		return;
	}
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
	late_report(&e->late, e->pace.spin_stops, f, false);
}

void replay_report_clients(const struct engine *e, FILE *f, bool json)
{
	struct lhist all;
	uint64_t early = 0;

	memset(&all, 0, sizeof(all));
	if (json)
		fputs("\"clients\":[", f);
	else
		fprintf(f, "%-4s %-24s %6s %6s %6s %6s %6s %6s | %9s %9s | %9s %9s | %9s %9s %9s\n", "cli",
			"client", "trace", "sent", "same", "diff", "error", "unsup", "p50us", "p99us",
			"trace-p50", "trace-p99", "issue-p50", "issue-p99", "issue-max");
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct rclient *c = &e->cl[k];
		const struct tclient *tcl = &e->t.clients[k];
		lhist_merge(&all, &c->issue);
		early += c->early;
		if (json) {
			fprintf(f, "%s{\"client\":%u,\"label\":", k ? "," : "", k + 1);
			out_json_str(f, tcl->label);
			fprintf(f, ",\"vers\":%u,\"minor\":%u,\"trace\":%" PRIu64 ",\"replayed\":%" PRIu64
				",\"same_status\":%" PRIu64 ",\"mismatches\":%" PRIu64 ",\"errors\":%" PRIu64
				",\"unsupported\":%" PRIu64 ",\"connections\":%u,\"shared_connection\":%s",
				tcl->vers, tcl->minor, c->trace, c->replayed, c->ok, c->mismatch, c->errors,
				c->unsupported, c->nx, c->shared ? "true" : "false");
			fputc(',', f);
			lhist_json(f, "latency", &c->lat, false);
			fputc(',', f);
			lhist_json(f, "trace_latency", &c->tlat, false);
			if (c->v4)   /* --delegations: the callbacks it served */
				fprintf(f, ",\"callbacks\":{\"served\":%s,\"calls\":%" PRIu64
					",\"recalls\":%" PRIu64 "}", c->s.back_channel || c->cbsrv ? "true" : "false",
					c->cb.calls, c->cb.recalls);
			fputc(',', f);
			replay_report_issue(f, &c->issue, c->early, true);
			fputc('}', f);
		} else {
			fprintf(f, "c%-3u %-24s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
				" %6" PRIu64 " | %9.1f %9.1f | %9.1f %9.1f |", k + 1, tcl->label, c->trace, c->replayed,
				c->ok, c->mismatch, c->errors, c->unsupported, (double)lhist_pct(&c->lat, 50) / 1e3,
				(double)lhist_pct(&c->lat, 99) / 1e3, (double)lhist_pct(&c->tlat, 50) / 1e3,
				(double)lhist_pct(&c->tlat, 99) / 1e3);
			replay_report_issue(f, &c->issue, c->early, false);
			fputc('\n', f);
		}
	}
	if (json) {
		fprintf(f, "],\"cross_client\":{\"deps\":%" PRIu64 ",\"held\":%" PRIu64 "},", e->deps,
			e->deps_held);
		replay_report_issue(f, &all, early, true);
		fputc(',', f);
		report_holds(e, f, true);
		replay_report_blocking(e, f, true);
	} else {
		fprintf(f, "cross-client: %" PRIu64 " call(s) after another client's change or look, "
			"%" PRIu64 " held for its reply\n", e->deps, e->deps_held);
		if (all.n)
			fprintf(f, "issue-time error (how late calls left against the trace's schedule at "
				"--speed %g): p50 %.1f us, p99 %.1f us, max %.1f us over %" PRIu64 " calls "
				"(%" PRIu64 " early)\n", e->o->speed, (double)lhist_pct(&all, 50) / 1e3,
				(double)lhist_pct(&all, 99) / 1e3, (double)all.max / 1e3, all.n, early);
		report_holds(e, f, false);
		replay_report_blocking(e, f, false);
	}
}
