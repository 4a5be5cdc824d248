/* The replay's report as one JSON object on one line (--json; members in
 * docs/replay.md), written through the one JSON writer (src/base/json.h):
 * what was sent and how the target answered, per traced client and per
 * operation.  The text report is replay_report.c's. */
#include "src/replay/replay_engine.h"

#include <string.h>

#include "src/base/json.h"
#include "src/replay/replay_late.h"

/* "issue":{...} or null: how late calls left against the trace's schedule */
static void issue_obj(struct jw *j, const struct lhist *h, uint64_t early)
{
	JW_KEY1(j, "issue");
	if (!h->n) {
		jw_null(j);
		return;
	}
	jw_lit(j, "{\"calls\":");
	jw_u(j, h->n);
	JW_KEY(j, "early");
	jw_u(j, early);
	JW_KEY(j, "p50_ns");
	jw_u(j, lhist_pct(h, 50));
	JW_KEY(j, "p99_ns");
	jw_u(j, lhist_pct(h, 99));
	JW_KEY(j, "max_ns");
	jw_u(j, h->max);
	jw_c(j, '}');
}

/* The intended waits by kind, the issue-time error with them in, and
 * where that error is spent (until the scheduler took a call, then until
 * it left). */
static void holds(const struct engine *e, struct jw *j)
{
	jw_lit(j, "\"holds\":{");
	for (unsigned k = HOLD_DEP; k < HOLD_KINDS; k++) {
		if (k > HOLD_DEP)
			jw_c(j, ',');
		lhist_jw(j, replay_hold_name(k), &e->hold[k], true);
	}
	jw_lit(j, "},");
	if (e->issue_all.n)
		lhist_jw(j, "issue_with_holds", &e->issue_all, true);
	else
		jw_lit(j, "\"issue_with_holds\":null");
	jw_lit(j, ",\"issue_parts\":{");
	lhist_jw(j, "due_to_taken", &e->issue_pick, false);
	jw_c(j, ',');
	lhist_jw(j, "taken_to_sent", &e->issue_build, false);
	JW_KEY(j, "cpu_wait_ns");
	if (e->cpu_wait_ns >= 0)
		jw_i(j, e->cpu_wait_ns);
	else
		jw_null(j);
	jw_lit(j, "},");
	late_json(&e->late, e->pace.spin_stops, j);
}

static void clients(const struct engine *e, struct jw *j)
{
	struct lhist all;
	uint64_t early = 0;

	memset(&all, 0, sizeof(all));
	jw_lit(j, "\"clients\":[");
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct rclient *c = &e->cl[k];
		const struct tclient *tcl = &e->t.clients[k];
		lhist_merge(&all, &c->issue);
		early += c->early;
		jw_lit(j, k ? ",{\"client\":" : "{\"client\":");
		jw_u(j, k + 1);
		JW_KEY(j, "label");
		jw_str(j, tcl->label);
		JW_KEY(j, "vers");
		jw_u(j, tcl->vers);
		JW_KEY(j, "minor");
		jw_u(j, tcl->minor);
		JW_KEY(j, "trace");
		jw_u(j, c->trace);
		JW_KEY(j, "replayed");
		jw_u(j, c->replayed);
		JW_KEY(j, "same_status");
		jw_u(j, c->ok);
		JW_KEY(j, "mismatches");
		jw_u(j, c->mismatch);
		JW_KEY(j, "errors");
		jw_u(j, c->errors);
		JW_KEY(j, "unsupported");
		jw_u(j, c->unsupported);
		JW_KEY(j, "connections");
		jw_u(j, c->nx);
		JW_KEY(j, "shared_connection");
		jw_bool(j, c->shared);
		jw_c(j, ',');
		lhist_jw(j, "latency", &c->lat, false);
		jw_c(j, ',');
		lhist_jw(j, "trace_latency", &c->tlat, false);
		if (c->v4) {   /* --delegations: the callbacks it served */
			jw_lit(j, ",\"callbacks\":{\"served\":");
			jw_bool(j, c->s.back_channel || c->cbsrv);
			JW_KEY(j, "calls");
			jw_u(j, c->cb.calls);
			JW_KEY(j, "recalls");
			jw_u(j, c->cb.recalls);
			jw_c(j, '}');
		}
		jw_c(j, ',');
		issue_obj(j, &c->issue, c->early);
		jw_c(j, '}');
	}
	jw_lit(j, "],\"cross_client\":{\"deps\":");
	jw_u(j, e->deps);
	JW_KEY(j, "held");
	jw_u(j, e->deps_held);
	jw_lit(j, "},");
	issue_obj(j, &all, early);
	jw_c(j, ',');
	holds(e, j);
	replay_blocking_json(e, j);
}

static void totals(const struct engine *e, struct jw *j, const uint64_t tot[11])
{
	static const char *const name[] = { "trace", "replayed", "same_status", "mismatches", "errors",
					    "lost", "refused", "skipped", "unsupported" };
	jw_lit(j, "\"totals\":{");
	jw_counts(j, name, tot, 9, false);
	JW_KEY(j, "not_sent");
	jw_u(j, e->not_sent);
	JW_KEY(j, "resolve_lookups");
	jw_u(j, e->extra_lookups);
	JW_KEY(j, "trace_retransmits");
	jw_u(j, e->t.retransmits);
	JW_KEY(j, "after_refused");
	jw_u(j, tot[9]);
	JW_KEY(j, "no_delegation");
	jw_u(j, tot[10]);
	jw_lit(j, "},");
}

static void transport_stats(const struct engine *e, struct jw *j)
{
	static const char *const name[] = { "calls", "replies", "lost", "reconnects", "dropped_on_request",
					    "read_chunks", "write_chunks", "reply_chunks", "rdma_errors",
					    "inline_send", "inline_recv", "credits_granted", "connections",
					    "connections_wanted", "clients_sharing" };
	struct xprt_stats st;
	replay_xprt_stats(e, &st);
	const uint64_t v[] = { st.calls, st.replies, st.lost, st.reconnects, e->drops, st.read_chunks,
			       st.write_chunks, st.reply_chunks, st.rdma_errors, st.inline_send, st.inline_recv,
			       st.credits_granted, e->nxs, e->conns_wanted, e->clients_sharing };
	jw_lit(j, "\"transport_stats\":{");
	jw_counts(j, name, v, sizeof(v) / sizeof(v[0]), false);
	jw_lit(j, "},");
}

/* The delegations, the same members for both minor versions */
static void delegations(const struct engine *e, struct jw *j)
{
	JW_KEY(j, "stateids_mapped");
	jw_u(j, e->sidmap.n);
	JW_KEY(j, "handles_mapped");
	jw_u(j, e->tmap.n);
	JW_KEY(j, "delegations_granted");
	jw_u(j, e->delegs_granted);
	JW_KEY(j, "delegations_absent");
	jw_u(j, e->delegs_absent);
	JW_KEY(j, "delegation_claims_made_plain");
	jw_u(j, e->deleg_claims);
	JW_KEY(j, "delegation_io_anonymous");
	jw_u(j, e->deleg_anon);
}

/* What the target called back, given back and refused */
static void callbacks(const struct engine *e, struct jw *j, uint64_t calls, uint64_t recalls)
{
	JW_KEY(j, "callbacks");
	jw_u(j, calls);
	JW_KEY(j, "delegations_recalled");
	jw_u(j, recalls);
	JW_KEY(j, "delegations_returned");
	jw_u(j, e->deleg_returned);
	JW_KEY(j, "delegations_unasked");
	jw_u(j, e->delegs_unasked);
	JW_KEY(j, "delegation_returns_failed");
	jw_u(j, e->deleg_return_failed + e->recalls_dropped);
}

static void nfs4(const struct engine *e, struct jw *j)
{
	uint64_t calls, recalls, refused;
	bool served, cbsrv;
	replay_cb_counts(e, &calls, &recalls, &refused, &served, &cbsrv);
	if (e->v4s->minor == 0) {
		jw_lit(j, "\"nfs4\":{\"minor\":0,\"own_clients\":");
		jw_u(j, e->v4_sessions);
		JW_KEY(j, "owners");
		jw_u(j, e->owners.n);
		JW_KEY(j, "seqid_errors");
		jw_u(j, e->v40_seqid_errors);
		JW_KEY(j, "confirms_added");
		jw_u(j, e->v40_confirms_added);
		JW_KEY(j, "confirms_dropped");
		jw_u(j, e->v40_confirms_dropped);
		JW_KEY(j, "renews");
		jw_u(j, e->v40_renews);
		JW_KEY(j, "lease_s");
		jw_u(j, e->v4s->lease_s);
		delegations(e, j);
		JW_KEY(j, "callback_server");
		jw_bool(j, cbsrv);
		callbacks(e, j, calls, recalls);
		JW_KEY(j, "callback_connections_refused");
		jw_u(j, refused);
		jw_lit(j, "},");
		return;
	}
	jw_lit(j, "\"nfs4\":{\"minor\":");
	jw_u(j, e->v4s->minor);
	JW_KEY(j, "own_sessions");
	jw_u(j, e->v4_sessions);
	JW_KEY(j, "slots");
	jw_u(j, e->v4s->nslots);
	JW_KEY(j, "sequence_errors");
	jw_u(j, e->v4s->seq_errors);
	delegations(e, j);
	JW_KEY(j, "back_channel");
	jw_bool(j, served);
	callbacks(e, j, calls, recalls);
	JW_KEY(j, "cb_path_down_replies");
	jw_u(j, e->cb_path_down);
	JW_KEY(j, "connections_bound");
	jw_u(j, e->conn_bound);
	JW_KEY(j, "connection_binds_failed");
	jw_u(j, e->conn_bind_failed);
	JW_KEY(j, "bound_dir");
	jw_str(j, !e->conn_bound ? "" : e->bind_dir == NFS4_CDFS4_BOTH ? "both" :
		  e->bind_dir == NFS4_CDFS4_BACK ? "back" : e->bind_dir == NFS4_CDFS4_FORE ? "fore" : "other");
	jw_lit(j, "},");
}

static void op_row(const struct engine *e, struct jw *j, unsigned row, const char *name_of_row)
{
	const struct opstat *s = &e->op[row];
	const uint64_t v[] = { s->trace, s->replayed, s->ok, s->mismatch, s->errors, s->lost, s->refused,
			       s->skipped, s->unsupported, s->dep_refused, s->no_deleg, s->bytes };
	static const char *const name[] = { "trace", "replayed", "same_status", "mismatches", "errors", "lost",
					    "refused", "skipped", "unsupported", "after_refused", "no_delegation",
					    "bytes" };
	jw_lit(j, "{\"op\":");
	jw_str(j, name_of_row);
	jw_counts(j, name, v, sizeof(v) / sizeof(v[0]), true);
	jw_lit(j, ",\"chunks\":{\"read\":");
	jw_u(j, s->read_chunks);
	JW_KEY(j, "write");
	jw_u(j, s->write_chunks);
	JW_KEY(j, "reply");
	jw_u(j, s->reply_chunks);
	jw_lit(j, "},");
	lhist_jw(j, "latency", &s->lat, false);
	jw_c(j, ',');
	lhist_jw(j, "trace_latency", &s->tlat, false);
	jw_c(j, ',');
	issue_obj(j, &s->issue, s->early);
	jw_c(j, '}');
}

static void mismatches(const struct engine *e, struct jw *j)
{
	jw_lit(j, "\"mismatches\":[");
	for (unsigned i = 0; i < e->nmm; i++) {
		const struct mismatch *m = &e->mm[i];
		jw_lit(j, i ? ",{\"xid\":\"" : "{\"xid\":\"");
		jw_hex8(j, m->xid);
		jw_lit(j, "\",\"frame\":");
		jw_u(j, m->frame);
		JW_KEY(j, "op");
		jw_str(j, m->name);
		JW_KEY(j, "trace_rpc");
		jw_u(j, m->trpc);
		JW_KEY(j, "trace_status");
		jw_u(j, m->tstat);
		JW_KEY(j, "replay_rpc");
		jw_u(j, m->rpc);
		JW_KEY(j, "replay_status");
		jw_u(j, m->stat);
		JW_KEY(j, "error");
		jw_i(j, m->err);
		jw_c(j, '}');
	}
	jw_c(j, ']');
}

void replay_report_json(const struct engine *e, double secs, int status, const uint64_t tot[11],
			const unsigned *rows, const char *const *name, unsigned nrows)
{
	struct jw jb, *j = &jb;
	jw_init(j, e->out);
	jw_lit(j, "{\"trace\":");
	jw_str(j, e->o->trace);
	JW_KEY(j, "target");
	jw_str(j, e->o->target);
	JW_KEY(j, "transport");
	jw_str(j, e->xs[0]->ops->name);
	JW_KEY(j, "export");
	jw_str(j, e->t.export_path);
	JW_KEY(j, "exit");
	jw_i(j, status);
	JW_KEY(j, "seconds");
	jw_fixed(j, secs, 3);
	JW_KEY(j, "calls_per_s");
	jw_fixed(j, secs > 0 ? (double)e->sent / secs : 0, 1);
	JW_KEY(j, "mb_per_s");
	jw_fixed(j, secs > 0 ? (double)(e->bytes_read + e->bytes_written) / secs / 1e6 : 0, 3);
	JW_KEY(j, "bytes_read");
	jw_u(j, e->bytes_read);
	JW_KEY(j, "bytes_written");
	jw_u(j, e->bytes_written);
	/* --max-idle: the idle time the schedule left out (null: none asked) */
	JW_KEY(j, "idle_cut");
	if (e->o->max_idle_ns) {
		jw_lit(j, "{\"max_idle_ns\":");
		jw_u(j, e->o->max_idle_ns);
		JW_KEY(j, "stretches");
		jw_u(j, e->idle.stretches);
		JW_KEY(j, "removed_ns");
		jw_u(j, e->idle.removed_ns);
		jw_c(j, '}');
	} else {
		jw_null(j);
	}
	jw_c(j, ',');
	totals(e, j, tot);
	clients(e, j);
	transport_stats(e, j);
	if (e->v4)
		nfs4(e, j);
	jw_lit(j, "\"ops\":[");
	for (unsigned k = 0; k < nrows; k++) {
		if (k)
			jw_c(j, ',');
		op_row(e, j, rows[k], name[k]);
	}
	jw_lit(j, "],");
	mismatches(e, j);
	jw_lit(j, "}\n");
	jw_flush(j);
}

void replay_report_no_calls_json(const struct engine *e)
{
	const struct trace *t = &e->t;
	const uint64_t v[] = { t->frames, t->rdma_msgs, t->net_msgs, t->other_calls, t->long_calls,
			       t->undecodable, t->not_rpcrdma, t->rpcrdma_v2 };
	static const char *const name[] = { "packets", "rpcrdma_v1", "rpc_tcp_udp", "other_program_calls",
					    "long_calls", "undecodable", "not_rpcrdma", "rpcrdma_v2" };
	struct jw jb, *j = &jb;
	jw_init(j, e->out);
	jw_lit(j, "{\"type\":\"no_calls\",\"trace\":");
	jw_str(j, e->o->trace);
	jw_counts(j, name, v, sizeof(v) / sizeof(v[0]), true);
	jw_lit(j, "}\n");
	jw_flush(j);
}
