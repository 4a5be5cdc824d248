/* nfsrdma-top's batch iteration as one JSON object on one line (--json;
 * nfsrdma-top(1), "JSON"), through the one JSON writer (src/base/json.h):
 * the totals, the probes' cost and RPCs in flight, the view's rows, the
 * slowest RPCs, the fused split (top_fused.c). */
#include "src/top/top_view.h"

#include <inttypes.h>
#include <stdlib.h>

#include "src/base/json.h"
#include "src/out/recfmt.h"
#include "src/stats/agg_key.h"
#include "src/top/top_fused.h"

/* "in_flight":{"client":{...}|null,"server":{...}|null}, or null */
static void inflight(struct jw *j, const struct agg_snap *s)
{
	if (!s->inflight_sides) {
		jw_lit(j, "\"in_flight\":null,");
		return;
	}
	jw_lit(j, "\"in_flight\":{");
	for (int i = 0; i < 2; i++) {
		const struct agg_inflight *a = &s->inflight[i];
		jw_lit(j, i ? ",\"server\":" : "\"client\":");
		if (!(s->inflight_sides & (1u << i))) {
			jw_null(j);
			continue;
		}
		jw_lit(j, "{\"rpcs\":");
		jw_u(j, a->in_flight);
		JW_KEY(j, "oldest_s");
		jw_fixed(j, (double)a->oldest_ns / 1e9, 6);
		JW_KEY(j, "stalled");
		jw_u(j, a->stalled);
		JW_KEY(j, "stall_after_s");
		jw_fixed(j, (double)a->stall_after_ns / 1e9, 3);
		JW_KEY(j, "abandoned");
		jw_u(j, a->abandoned);
		jw_c(j, '}');
	}
	jw_lit(j, "},");
}

/* "split_ns":{phase: mean or null (no RPC had it), ...} */
static void split(struct jw *j, unsigned mask, const uint64_t *ns)
{
	jw_lit(j, "\"split_ns\":{");
	for (int p = 0; p < PH_N; p++) {
		if (p)
			jw_c(j, ',');
		jw_str(j, rec_phase_name(p));
		jw_c(j, ':');
		if (mask & 1u << p)
			jw_u(j, ns[p]);
		else
			jw_null(j);
	}
	jw_c(j, '}');
}

static void row(struct jw *j, const struct agg_row *r)
{
	static const char *const cn[] = { "records", "calls", "replies", "errors", "unanswered", "bytes_inline",
					  "bytes_ddp", "latencies" };
	const uint64_t cv[] = { r->tot.records, r->tot.calls, r->tot.replies, r->tot.errors, r->tot.noreply,
				r->tot.bytes_inline, r->tot.bytes_ddp, r->tot.lat_n };
	static const char *const pn[] = { "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns" };
	const uint64_t pv[] = { r->p50, r->p90, r->p99, r->p999, r->max };

	jw_lit(j, "{\"key\":");
	jw_str(j, r->key);
	jw_c(j, ',');
	jw_counts(j, cn, cv, 8, false);
	JW_KEY(j, "rate");
	jw_fixed(j, r->rate, 3);
	JW_KEY(j, "inflight");
	jw_fixed(j, r->inflight, 3);
	jw_c(j, ',');
	jw_counts(j, pn, pv, 5, false);
	jw_c(j, ',');
	/* a phase no RPC of the row had is null, as in the slow list */
	split(j, r->phase_mask, r->phase_mean);
	jw_lit(j, ",\"chunks\":{");
	jw_counts(j, agg_mix_name, r->tot.mix, MIX_N, false);
	jw_lit(j, "},\"credits\":");
	jw_u(j, r->credits);
	if (r->diag_kind != AGG_DIAG_NONE) {
		jw_lit(j, ",\"diagnosis\":{\"phases\":");
		jw_str(j, r->diag_kind == AGG_DIAG_FUSED ? "fused" : "wire");
		JW_KEY(j, "rpcs");
		jw_u(j, r->diag.n);
		JW_KEY(j, "mean_ns");
		jw_u(j, r->diag.mean_ns);
		JW_KEY(j, "p99_ns");
		jw_u(j, r->diag.p99_ns);
		jw_lit(j, ",\"mean\":{\"phase\":");
		jw_str(j, agg_diag_phase(r->diag_kind, r->diag.mean_phase));
		JW_KEY(j, "pct");
		jw_u(j, r->diag.mean_pct);
		jw_lit(j, "},\"p99\":{\"phase\":");
		jw_str(j, agg_diag_phase(r->diag_kind, r->diag.p99_phase));
		JW_KEY(j, "pct");
		jw_u(j, r->diag.p99_pct);
		JW_KEY(j, "rpcs");
		jw_u(j, r->diag.tail_n);
		jw_lit(j, "}}");
	}
	jw_c(j, '}');
}

static void slow(struct jw *j, const struct agg_slow *w)
{
	jw_lit(j, "{\"xid\":\"");
	jw_hex8(j, w->xid);
	jw_lit(j, "\",\"conn\":");
	jw_u(j, w->conn);
	JW_KEY(j, "op");
	jw_str(j, w->op);
	JW_KEY(j, "client");
	jw_str(j, w->client);
	JW_KEY(j, "server");
	jw_str(j, w->server);
	JW_KEY(j, "total_ns");
	jw_u(j, w->total);
	jw_c(j, ',');
	/* absent phases null, as in nfsrdma-dissect --json */
	split(j, w->phase_mask, w->phase);
	jw_c(j, '}');
}

void top_batch_json(FILE *f, const struct agg_snap *s, const struct fsplit_snap *fs, const struct top_view *v,
		    const char *feed)
{
	const struct agg_row **rows;
	size_t n = top_view_rows(s, v, &rows);
	struct jw jb, *j = &jb;
	static const char *const tn[] = { "records" };

	jw_init(j, f);
	jw_lit(j, "{\"t\":");
	jw_time(j, s->now_ns);
	JW_KEY(j, "feed");
	jw_str(j, feed);
	JW_KEY(j, "window_s");
	jw_fixed(j, s->win_s, 3);
	jw_lit(j, ",\"totals\":{");
	jw_counts(j, tn, &s->t.tot.records, 1, false);
	JW_KEY(j, "rate");
	jw_fixed(j, s->rate, 3);
	static const char *const en[] = { "errors", "unanswered", "findings", "drops_queue", "drops_source" };
	const uint64_t ev[] = { s->t.tot.errors, s->t.tot.noreply, s->t.tot.findings, s->t.drops_queue,
				s->t.drops_source };
	jw_c(j, ',');
	jw_counts(j, en, ev, 5, false);
	jw_lit(j, "},");
	/* the kernel probes' cost (a daemon with a kernel source), else null */
	if (s->has_probe_cost) {
		static const char *const pn[] = { "run_ns", "runs", "records" };
		const uint64_t pv[] = { s->probe_run_ns, s->probe_runs, s->probe_records };
		jw_lit(j, "\"probe_cost\":{");
		jw_counts(j, pn, pv, 3, false);
		JW_KEY(j, "ns_per_record");
		jw_fixed(j, s->probe_records ? (double)s->probe_run_ns / (double)s->probe_records : 0.0, 1);
		jw_lit(j, "},");
	} else {
		jw_lit(j, "\"probe_cost\":null,");
	}
	inflight(j, s);
	jw_lit(j, "\"view\":");
	jw_str(j, agg_dim_name[v->dim]);
	JW_KEY(j, "sort");
	jw_str(j, top_sort_name[v->sort]);
	JW_KEY(j, "transport");
	if (v->transport >= 0)
		jw_str(j, rec_transport_name((unsigned)v->transport));
	else
		jw_null(j);
	jw_lit(j, ",\"rows\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			jw_c(j, ',');
		row(j, rows[i]);
	}
	/* slowest first, filtered like the rows, with the split (as in -b
	 * text); "slow_of": what the list covers (the run, read from files
	 * flat out) */
	const struct agg_slow *o[AGG_SLOW_MAX];
	size_t k = top_view_slow(s, v, o);
	jw_lit(j, "],\"slow_of\":");
	jw_str(j, s->slow_whole_run ? "run" : "recent");
	jw_lit(j, ",\"slow\":[");
	for (size_t i = 0; i < k; i++) {
		if (i)
			jw_c(j, ',');
		slow(j, o[i]);
	}
	jw_c(j, ']');
	top_fused_json(j, fs, v);
	jw_lit(j, "}\n");
	jw_flush(j);
	free(rows);
	fflush(f);
}
