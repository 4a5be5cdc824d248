/* The report's per-client part: what became of each traced client's
 * calls (text rows, or a JSON "clients" array). */
#include "src/replay/replay_engine.h"

#include <inttypes.h>

#include "src/out/out.h"

void replay_report_clients(const struct engine *e, FILE *f, bool json)
{
	if (json)
		fputs("\"clients\":[", f);
	else
		fprintf(f, "%-4s %-28s %6s %6s %6s %6s %6s %6s\n", "cli", "client", "trace", "sent", "same",
			"diff", "error", "unsup");
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct rclient *c = &e->cl[k];
		const struct tclient *tcl = &e->t.clients[k];
		if (json) {
			fprintf(f, "%s{\"client\":%u,\"label\":", k ? "," : "", k + 1);
			out_json_str(f, tcl->label);
			fprintf(f, ",\"vers\":%u,\"minor\":%u,\"trace\":%" PRIu64 ",\"replayed\":%" PRIu64
				",\"same_status\":%" PRIu64 ",\"mismatches\":%" PRIu64 ",\"errors\":%" PRIu64
				",\"unsupported\":%" PRIu64 "}", tcl->vers, tcl->minor, c->trace, c->replayed,
				c->ok, c->mismatch, c->errors, c->unsupported);
		} else {
			fprintf(f, "c%-3u %-28s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64
				" %6" PRIu64 "\n", k + 1, tcl->label, c->trace, c->replayed, c->ok, c->mismatch,
				c->errors, c->unsupported);
		}
	}
	if (json)
		fprintf(f, "],\"cross_client\":{\"deps\":%" PRIu64 ",\"held\":%" PRIu64 "},", e->deps,
			e->deps_held);
	else
		fprintf(f, "cross-client: %" PRIu64 " call(s) after another client's change or look, "
			"%" PRIu64 " held for its reply\n", e->deps, e->deps_held);
}
