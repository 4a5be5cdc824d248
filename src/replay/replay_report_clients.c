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
			fputs("\"issue_us\":null", f);
		else
			fprintf(f, "\"issue_us\":{\"calls\":%" PRIu64 ",\"early\":%" PRIu64
				",\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f}", h->n, early,
				(double)lhist_pct(h, 50) / 1e3, (double)lhist_pct(h, 99) / 1e3, (double)h->max / 1e3);
		return;
	}
	if (!h->n)
		fprintf(f, " %9s %9s %9s", "-", "-", "-");
	else
		fprintf(f, " %9.1f %9.1f %9.1f", (double)lhist_pct(h, 50) / 1e3, (double)lhist_pct(h, 99) / 1e3,
			(double)h->max / 1e3);
}

static void lat_json(FILE *f, const char *key, const struct lhist *h)
{
	fprintf(f, ",\"%s\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f}", key, (double)lhist_pct(h, 50) / 1e3,
		(double)lhist_pct(h, 99) / 1e3, (double)h->max / 1e3);
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
				",\"unsupported\":%" PRIu64, tcl->vers, tcl->minor, c->trace, c->replayed,
				c->ok, c->mismatch, c->errors, c->unsupported);
			lat_json(f, "lat_us", &c->lat);
			lat_json(f, "trace_lat_us", &c->tlat);
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
	} else {
		fprintf(f, "cross-client: %" PRIu64 " call(s) after another client's change or look, "
			"%" PRIu64 " held for its reply\n", e->deps, e->deps_held);
		if (all.n)
			fprintf(f, "issue-time error (how late calls left against the trace's schedule at "
				"--speed %g): p50 %.1f us, p99 %.1f us, max %.1f us over %" PRIu64 " calls "
				"(%" PRIu64 " early)\n", e->o->speed, (double)lhist_pct(&all, 50) / 1e3,
				(double)lhist_pct(&all, 99) / 1e3, (double)all.max / 1e3, all.n, early);
	}
}
