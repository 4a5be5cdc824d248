/* The replay's statistics: a label for each operation, and the report
 * (text or JSON) of what was sent and how the target answered. */
#include "src/replay/replay_engine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/name_text.h"
#include "dissect/nfs_status.h"
#include "src/base/log.h"
#include "src/clnt/nfs3.h"
#include "src/out/out.h"

void replay_rows(struct engine *e)
{
	for (size_t i = 0; i < e->t.n; i++) {
		struct tcall *tc = &e->t.calls[i];
		unsigned r = 0;
		/* a handful of names in a trace: a linear search is enough */
		while (r < e->nrows && strcmp(e->rowname[r], tc->name))
			r++;
		if (r == e->nrows && r < REPLAY_ROWS)
			snprintf(e->rowname[e->nrows++], sizeof(e->rowname[0]), "%s", tc->name);
		tc->row = (uint16_t)(r < e->nrows ? r : REPLAY_OTHER);
	}
}

/* The row's name ("NFSv4.1 LOOKUP_ROOT", "other"). */
static const char *replay_row_name(const struct engine *e, unsigned row)
{
	return row < e->nrows ? e->rowname[row] : "other";
}

void replay_report_no_calls(const struct engine *e)
{
	const struct trace *t = &e->t;
	char held[512];

	/* what the capture held instead, so "nothing" is never unexplained */
	if (!t->frames)
		snprintf(held, sizeof(held), "in 0 packets (the capture is empty)");
	else
		snprintf(held, sizeof(held),
			 "in %" PRIu64 " packets: %" PRIu64 " RPC-over-RDMA version 1 messages, %" PRIu64
			 " RPC messages over TCP/UDP, %" PRIu64 " calls of other RPC programs, %" PRIu64
			 " undecodable", t->frames, t->rdma_msgs, t->net_msgs, t->other_calls, t->undecodable);
	if (t->not_rpcrdma) {
		size_t n = strlen(held);
		snprintf(held + n, sizeof(held) - n, ", %" PRIu64 " of them RDMA SENDs not RPC-over-RDMA (another RDMA "
			 "application?)", t->not_rpcrdma);
	}
	if (t->rpcrdma_v2) {
		size_t n = strlen(held);
		snprintf(held + n, sizeof(held) - n, ", %" PRIu64 " of them RPC-over-RDMA version 2 (the replay speaks "
			 "version 1)", t->rpcrdma_v2);
	}
	if (t->long_calls) {
		size_t n = strlen(held);
		snprintf(held + n, sizeof(held) - n, ", %" PRIu64 " calls wholly in a position-zero Read chunk (not replayed)",
			 t->long_calls);
	}
	log_error("%s: no NFS calls found (over RDMA, TCP or UDP) %s", e->o->trace, held);
	if (e->o->json)
		replay_report_no_calls_json(e);
}

static const struct engine *sort_e;

static int by_name(const void *a, const void *b)
{
	return strcmp(replay_row_name(sort_e, *(const unsigned *)a), replay_row_name(sort_e, *(const unsigned *)b));
}

/* The rows with calls, sorted by name, "other" last; returns how many. */
static unsigned report_rows(const struct engine *e, unsigned *rows)
{
	unsigned n = 0;

	for (unsigned i = 0; i < e->nrows; i++)
		if (e->op[i].trace)
			rows[n++] = i;
	sort_e = e;
	qsort(rows, n, sizeof(*rows), by_name);
	if (e->op[REPLAY_OTHER].trace)
		rows[n++] = REPLAY_OTHER;
	return n;
}

int replay_exit_status(int run_rc)
{
	return run_rc == 2 ? REPLAY_EXIT_LOST : run_rc;
}

void replay_report(struct engine *e, double secs, int rc)
{
	FILE *f = e->out;
	struct xprt_stats sum;
	const struct xprt_stats *st = &sum;
	uint64_t tot[11] = { 0 };
	unsigned rows[REPLAY_ROWS + 1], nrows = report_rows(e, rows);

	replay_xprt_stats(e, &sum);
	uint64_t cb_calls, cb_recalls;
	bool cb_served, cb_srv;
	replay_cb_counts(e, &cb_calls, &cb_recalls, &e->cb_refused, &cb_served, &cb_srv);

	for (unsigned i = 0; i <= REPLAY_ROWS; i++) {
		const struct opstat *s = &e->op[i];
		tot[0] += s->trace; tot[1] += s->replayed; tot[2] += s->ok; tot[3] += s->mismatch;
		tot[4] += s->errors; tot[5] += s->lost; tot[6] += s->refused; tot[7] += s->skipped;
		tot[8] += s->unsupported; tot[9] += s->dep_refused; tot[10] += s->no_deleg;
	}
	double mbs = secs > 0 ? (double)(e->bytes_read + e->bytes_written) / secs / 1e6 : 0;
	if (e->o->json) {
		const char *name[REPLAY_ROWS + 1];
		for (unsigned k = 0; k < nrows; k++)
			name[k] = replay_row_name(e, rows[k]);
		replay_report_json(e, secs, replay_exit_status(rc), tot, rows, name, nrows);
		return;
	}
	char q[4 * sizeof(e->t.export_path)];
	fprintf(f, "replay of %s against %s over %s (export %s): %" PRIu64 " calls in the trace\n",
		e->o->trace, e->o->target, e->xs[0]->ops->name,
		e->t.export_path[0] ? name_text(e->t.export_path, (size_t)-1, q, sizeof(q)) : "?", tot[0]);
	fprintf(f, "%-28s %6s %6s %6s %6s %6s %5s %7s %7s %6s %7s | %9s %9s %9s | %9s %9s\n", "op",
		"trace", "sent", "same", "diff", "error", "lost", "refused", "skipped", "unsup", "nodeleg",
		"p50us",
		"p99us", "maxus", "trace-p50", "trace-p99");
	for (unsigned k = 0; k < nrows; k++) {
		const struct opstat *s = &e->op[rows[k]];
		fprintf(f, "%-28s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5"
			PRIu64 " %7" PRIu64 " %7" PRIu64 " %6" PRIu64 " %7" PRIu64
			" | %9.1f %9.1f %9.1f | %9.1f %9.1f\n",
			replay_row_name(e, rows[k]), s->trace, s->replayed, s->ok, s->mismatch, s->errors, s->lost,
			s->refused, s->skipped, s->unsupported, s->no_deleg, (double)lhist_pct(&s->lat, 50) / 1e3,
			(double)lhist_pct(&s->lat, 99) / 1e3, (double)s->lat.max / 1e3,
			(double)lhist_pct(&s->tlat, 50) / 1e3, (double)lhist_pct(&s->tlat, 99) / 1e3);
	}
	fprintf(f, "total: %" PRIu64 " sent, %" PRIu64 " same status, %" PRIu64 " mismatches, %" PRIu64
		" errors, %" PRIu64 " lost in flight, %" PRIu64 " refused (mutations), %" PRIu64
		" skipped, %" PRIu64 " not sent\n", tot[1], tot[2], tot[3], tot[4], tot[5], tot[6],
		tot[7], e->not_sent);
	replay_report_clients(e, f);
	fprintf(f, "time %.3f s, %.1f calls/s, %.3f MB/s (read %" PRIu64 " B, written %" PRIu64
		" B); chunks: %" PRIu64 " read, %" PRIu64 " write, %" PRIu64 " reply; %u connection%s, %" PRIu64
		" reconnects, %" PRIu64 " path lookups\n", secs, secs > 0 ? (double)e->sent / secs : 0,
		mbs, e->bytes_read, e->bytes_written, st->read_chunks, st->write_chunks, st->reply_chunks,
		e->nxs, e->nxs == 1 ? "" : "s", st->reconnects, e->extra_lookups);
	for (unsigned i = 0; i < e->nmm; i++) {
		const struct mismatch *m = &e->mm[i];
		if (m->err)
			fprintf(f, "error: xid 0x%08x (frame %" PRIu64 ") %s: %s\n", m->xid, m->frame,
				m->name, strerror(-m->err));
		else
			fprintf(f, "mismatch: xid 0x%08x (frame %" PRIu64 ") %s: trace rpc %u status %s, "
				"replay rpc %u status %s\n", m->xid, m->frame, m->name, m->trpc,
				nfs_stat_name(m->tstat), m->rpc, nfs_stat_name(m->stat));
	}
	if (e->o->max_idle_ns)
		fprintf(f, "note: --max-idle %.3f s: %" PRIu64 " idle stretch(es) of the trace cut to it, %.3f s of "
			"the schedule left out (the calls' timing in between as recorded)\n",
			(double)e->o->max_idle_ns / 1e9, e->idle.stretches, (double)e->idle.removed_ns / 1e9);
	if (tot[10])
		fprintf(f, "note: %" PRIu64 " call(s) give back a delegation the target never granted "
			"(or recalled and got back) and were not sent (nodeleg); "
			"%" PRIu64 " trace delegation(s) stood for by their OPEN's open stateid\n", tot[10],
			e->delegs_absent);
	if (cb_served)
		fprintf(f, "note: callbacks served (--delegations): the target granted %" PRIu64
			" delegation(s) the trace's client also got; %" PRIu64 " callback(s), %" PRIu64
			" recall(s), %" PRIu64 " delegation(s) given back by the replay itself (DELEGRETURN "
			"not in the trace; %" PRIu64 " of them granted where the trace's OPEN got none)%s\n",
			e->delegs_granted, cb_calls, cb_recalls, e->deleg_returned, e->delegs_unasked,
			e->deleg_return_failed + e->recalls_dropped ? ", some of them FAILED" : "");
	if (e->conn_bound || e->conn_bind_failed || e->cb_path_down)
		fprintf(f, "note: %" PRIu64 " new connection(s) bound to the session's back channel "
			"(BIND_CONN_TO_SESSION), %" PRIu64 " refused; %" PRIu64 " SEQUENCE repl%s said "
			"the callback path was down\n", e->conn_bound, e->conn_bind_failed, e->cb_path_down,
			e->cb_path_down == 1 ? "y" : "ies");
	if (e->deleg_claims || e->deleg_anon)
		fprintf(f, "note: %" PRIu64 " OPEN(s) claiming such a delegation sent as plain opens "
			"(CLAIM_NULL / CLAIM_FH); %" PRIu64 " stateid(s) of I/O under one after its "
			"open was closed sent as the anonymous stateid\n", e->deleg_claims, e->deleg_anon);
	if (tot[6])
		fprintf(f, "note: %" PRIu64 " call(s) change state on the server and were not sent; "
			"%" PRIu64 " more were skipped or answered differently only because of that; "
			"use --allow-mutations to send them\n", tot[6], tot[9]);
}
