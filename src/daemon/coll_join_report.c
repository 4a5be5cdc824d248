/* The collector join's counters and clock estimates, as JSON stats (the
 * one JSON writer) and Prometheus lines.  A join host is labelled as the forward link labels
 * its peers (host = the sender's name, "local" for this daemon) plus the
 * vantage whose clock it is. */
#include "src/daemon/coll_join.h"

#include <inttypes.h>

#include "src/base/json.h"
#include "src/out/out.h"

struct pair_ctx {
	FILE *f;
	struct jw *w;   /* JSON (what 0) */
	const struct coll_join *j;
	int what;   /* 0: JSON, 1: offset lines, 2: uncertainty lines (a family's lines stay together) */
	unsigned n;
};

static void each_pair(unsigned a, unsigned b, const struct clock_est *e, void *ctx)
{
	struct pair_ctx *p = ctx;
	const char *an, *av, *bn, *bv;

	coll_join_host(p->j, a, &an, &av);
	coll_join_host(p->j, b, &bn, &bv);
	if (p->what == 0) {
		struct jw *w = p->w;
		jw_lit(w, p->n ? ",{\"host_a\":" : "{\"host_a\":");
		jw_str(w, an);
		JW_KEY(w, "vantage_a");
		jw_str(w, av);
		JW_KEY(w, "host_b");
		jw_str(w, bn);
		JW_KEY(w, "vantage_b");
		jw_str(w, bv);
		JW_KEY(w, "offset_ns");
		jw_i(w, e->offset_ns);
		JW_KEY(w, "uncertainty_ns");
		jw_u(w, e->uncertainty_ns);
		JW_KEY(w, "drift_ppm");
		jw_fixed(w, e->drift_ppm, 3);
		JW_KEY(w, "samples");
		jw_u(w, e->samples);
		JW_KEY(w, "steps");
		jw_u(w, e->steps);
		JW_KEY(w, "bounded");
		jw_bool(w, e->bounded);
		JW_KEY(w, "source");
		jw_str(w, e->from_hosts ? "hosts" : "causal");
		jw_c(w, '}');
	} else {
		fprintf(p->f, "nfsrdma_join_clock_%s_seconds{host_a=\"%s\",vantage_a=\"%s\",host_b=\"%s\","
			"vantage_b=\"%s\"} %.9f\n", p->what == 1 ? "offset" : "uncertainty", an, av, bn, bv,
			(double)(p->what == 1 ? e->offset_ns : (int64_t)e->uncertainty_ns) / 1e9);
	}
	p->n++;
}

void coll_join_report_json(const struct coll_join *j, struct jw *w)
{
	struct coll_join_stats s;
	const struct join_stats *js = join_stats(coll_join_join(j));

	coll_join_get_stats(j, &s);
	static const char *const nk[] = { "local", "remote", "emitted", "complete", "partial", "evicted", "dup",
					  "negative" };
	const uint64_t nv[] = { s.local, s.remote, s.emitted, js->complete, js->partial, js->evicted,
				js->dup_xids, js->negative };
	jw_lit(w, ",\"join\":{");
	jw_counts(w, nk, nv, 8, false);
	jw_lit(w, ",\"negative_by\":{");
	jw_counts(w, rec_neg_reason, js->negative_by, REC_NEG_N, false);
	jw_lit(w, "},\"rejected\":");
	jw_u(w, js->rejected);
	JW_KEY(w, "hosts_overflow");
	jw_u(w, s.hosts_overflow);
	JW_KEY(w, "pending");
	jw_u(w, js->pending);
	JW_KEY(w, "clock_lines");
	jw_u(w, s.clock_lines);
	jw_lit(w, ",\"clocks\":[");
	struct pair_ctx p = { .w = w, .j = j, .what = 0 };
	join_clock_each(coll_join_join(j), each_pair, &p);
	jw_lit(w, "],\"clock_claims\":[");   /* hosts numbered as the join numbers them */
	join_report_claims_json(coll_join_join(j), w);
	jw_c(w, ']');
	out_jw_verdict_sum(w, coll_join_verdict(j));
	jw_c(w, '}');
}

static void counter(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

void coll_join_report_metrics(const struct coll_join *j, FILE *f)
{
	struct coll_join_stats s;
	const struct join_stats *js = join_stats(coll_join_join(j));

	coll_join_get_stats(j, &s);
	counter(f, "nfsrdma_join_records_total",
		"Records into the collector's join: local = this daemon's sources, remote = forwarded; "
		"rejected = no single vantage; hosts_overflow = past the join's host limit, not joined.");
	fprintf(f, "nfsrdma_join_records_total{result=\"local\"} %" PRIu64 "\n", s.local);
	fprintf(f, "nfsrdma_join_records_total{result=\"remote\"} %" PRIu64 "\n", s.remote);
	fprintf(f, "nfsrdma_join_records_total{result=\"rejected\"} %" PRIu64 "\n", js->rejected);
	fprintf(f, "nfsrdma_join_records_total{result=\"hosts_overflow\"} %" PRIu64 "\n", s.hosts_overflow);
	counter(f, "nfsrdma_join_rpcs_total",
		"Fused RPCs out of the join: complete = every vantage, partial = one or more missing, evicted = "
		"partial ones the window pushed out, dup = an XID a vantage had twice, negative = a phase negative "
		"after alignment (flagged).");
	static const char *const res[] = { "complete", "partial", "evicted", "dup", "negative" };
	const uint64_t v[] = { js->complete, js->partial, js->evicted, js->dup_xids, js->negative };
	for (unsigned i = 0; i < 5; i++)
		fprintf(f, "nfsrdma_join_rpcs_total{result=\"%s\"} %" PRIu64 "\n", res[i], v[i]);
	counter(f, "nfsrdma_join_negative_total",
		"Fused RPCs with a negative phase, by reason: client, wire, server = that vantage's own times "
		"out of order; clock = two vantages apart beyond the alignment's uncertainty (docs/record.md).");
	for (unsigned i = 0; i < REC_NEG_N; i++)
		fprintf(f, "nfsrdma_join_negative_total{reason=\"%s\"} %" PRIu64 "\n", rec_neg_reason[i],
			js->negative_by[i]);
	fprintf(f, "# HELP nfsrdma_join_clock_offset_seconds Offset of clock b against clock a (b - a), "
		   "from causality and the forward link's hints.\n# TYPE nfsrdma_join_clock_offset_seconds gauge\n");
	struct pair_ctx p = { .f = f, .j = j, .what = 1 };
	join_clock_each(coll_join_join(j), each_pair, &p);
	fprintf(f, "# HELP nfsrdma_join_clock_uncertainty_seconds Half-width of the offset's interval.\n"
		   "# TYPE nfsrdma_join_clock_uncertainty_seconds gauge\n");
	p.what = 2;
	join_clock_each(coll_join_join(j), each_pair, &p);
}
