/* The join's report: what came in, what went out, what was odd, and the
 * clock of every host pair with its uncertainty. */
#include <inttypes.h>
#include <stdint.h>

#include "src/base/json.h"
#include "src/join/join_int.h"

static const char *const vname[JV_N] = { "client", "wire", "server" };

static const char *host_name(const char *const *names, unsigned h, char *buf, size_t len)
{
	if (names && names[h])
		return names[h];
	snprintf(buf, len, "host %u", h);
	return buf;
}

struct clk_ctx {
	const struct join *j;
	FILE *f;
	const char *const *names;
	bool json, first;
	struct jw *jw;   /* json: the line being built */
};

static void clk_line(unsigned a, unsigned b, const struct clock_est *e, void *p)
{
	struct clk_ctx *c = p;
	char ba[32], bb[32];
	struct clock_est ce;
	uint64_t causal = e->uncertainty_ns;

	if (e->from_hosts)
		causal = join_clock_causal(c->j, a, b, c->j->host_now[a], &ce) == 0 ? ce.uncertainty_ns : UINT64_MAX;
	const char *na = host_name(c->names, a, ba, sizeof(ba)), *nb = host_name(c->names, b, bb, sizeof(bb));

	if (c->json) {
		struct jw *j = c->jw;

		if (!c->first)
			jw_c(j, ',');
		jw_lit(j, "{\"a\":");
		jw_u(j, a);
		JW_KEY(j, "b");
		jw_u(j, b);
		JW_KEY(j, "offset_ns");
		jw_i(j, e->offset_ns);
		JW_KEY(j, "drift_ppm");
		jw_fixed(j, e->drift_ppm, 3);
		JW_KEY(j, "uncertainty_ns");
		jw_u_or_null(j, e->uncertainty_ns != UINT64_MAX, e->uncertainty_ns);
		JW_KEY(j, "samples");
		jw_u(j, e->samples);
		JW_KEY(j, "steps");
		jw_u(j, e->steps);
		JW_KEY(j, "bounded");
		jw_bool(j, e->bounded);
		JW_KEY(j, "source");
		jw_str(j, e->from_hosts ? "hosts" : "causal");
		JW_KEY(j, "causal_uncertainty_ns");
		jw_u_or_null(j, causal != UINT64_MAX, causal);
		jw_c(j, '}');
		c->first = false;
		return;
	}
	fprintf(c->f, "join: clock %s - %s: %+.6f s", nb, na, (double)e->offset_ns / 1e9);
	if (e->uncertainty_ns == UINT64_MAX)
		fputs(" (one direction only: an upper or lower bound, not an interval)", c->f);
	else
		fprintf(c->f, " +/- %.1f us", (double)e->uncertainty_ns / 1e3);
	fprintf(c->f, ", drift %.3f ppm, %" PRIu64 " samples", e->drift_ppm, e->samples);
	if (e->steps)
		fprintf(c->f, ", %u clock steps", e->steps);
	if (e->from_hosts)
		fprintf(c->f, ", from the hosts' disciplined clocks (the causal bounds: +/- %.1f us)",
			(double)causal / 1e3);
	fputc('\n', c->f);
}

void join_report(const struct join *j, FILE *f, const char *const *names)
{
	const struct join_stats *s = &j->st;

	fprintf(f, "join: in client %" PRIu64 " wire %" PRIu64 " server %" PRIu64 ", rejected %" PRIu64
		"; out %" PRIu64 ": complete %" PRIu64 ", partial %" PRIu64 " (evicted by the window %" PRIu64 ")\n",
		s->in[0], s->in[1], s->in[2], s->rejected, s->emitted, s->complete, s->partial, s->evicted);
	fputs("join: by vantages:", f);
	for (unsigned m = 1; m < 8; m++) {
		if (!s->by_vantages[m])
			continue;
		fputc(' ', f);
		for (unsigned v = 0, n = 0; v < JV_N; v++)
			if (m & (1u << v))
				fprintf(f, "%s%s", n++ ? "+" : "", vname[v]);
		fprintf(f, " %" PRIu64, s->by_vantages[m]);
	}
	if (!s->emitted)
		fputs(" none (no RPC joined)", f);   /* not a header left empty */
	fputc('\n', f);
	fprintf(f, "join: retransmissions %" PRIu64 ", duplicate XIDs %" PRIu64 ", negative phases %" PRIu64
		", unaligned %" PRIu64 "\n", s->retransmits, s->dup_xids, s->negative, s->unaligned);
	if (s->negative)
		fprintf(f, "join: negative phases by reason: client kernel's own order %" PRIu64 ", wire's %" PRIu64
			", server kernel's %" PRIu64 ", across vantages (clock) %" PRIu64 "\n", s->negative_by[0],
			s->negative_by[1], s->negative_by[2], s->negative_by[3]);
	for (unsigned v = 0; v < JV_N; v++) {
		if (s->missing[v])
			fprintf(f, "join: %" PRIu64 " RPCs without the %s vantage\n", s->missing[v], vname[v]);
		/* a source that went quiet while the others went on */
		if (s->stopped_after[v] >= 16 && s->stopped_after[v] * 10 >= s->emitted)
			fprintf(f, "join: the %s vantage stopped: the last %" PRIu64 " RPCs lack it\n", vname[v],
				s->stopped_after[v]);
	}
	struct clk_ctx c = { j, f, names, false, true, NULL };
	join_clock_each(j, clk_line, &c);
	if (j->claims)
		claims_report(j->claims, f, names);
}

/* the counters of one vantage each: {"client":N,"wire":N,"server":N} */
static void json_by_vantage(struct jw *j, const uint64_t v[JV_N])
{
	for (unsigned i = 0; i < JV_N; i++) {
		jw_c(j, i ? ',' : '{');
		jw_str(j, vname[i]);
		jw_c(j, ':');
		jw_u(j, v[i]);
	}
	jw_c(j, '}');
}

void join_report_json(const struct join *j, FILE *f, const char *const *names)
{
	const struct join_stats *s = &j->st;
	struct jw jb, *w = &jb;

	jw_init(w, f);
	jw_lit(w, "{\"type\":\"join\"");
	JW_KEY(w, "in");
	json_by_vantage(w, s->in);
	JW_KEY(w, "rejected");
	jw_u(w, s->rejected);
	JW_KEY(w, "emitted");
	jw_u(w, s->emitted);
	JW_KEY(w, "complete");
	jw_u(w, s->complete);
	JW_KEY(w, "partial");
	jw_u(w, s->partial);
	JW_KEY(w, "evicted");
	jw_u(w, s->evicted);
	JW_KEY(w, "retransmits");
	jw_u(w, s->retransmits);
	JW_KEY(w, "dup_xids");
	jw_u(w, s->dup_xids);
	JW_KEY(w, "negative");
	jw_u(w, s->negative);
	JW_KEY(w, "negative_by");
	jw_c(w, '{');
	jw_counts(w, rec_neg_reason, s->negative_by, REC_NEG_N, false);
	jw_c(w, '}');
	JW_KEY(w, "unaligned");
	jw_u(w, s->unaligned);
	JW_KEY(w, "missing");
	json_by_vantage(w, s->missing);
	JW_KEY(w, "stopped_after");
	json_by_vantage(w, s->stopped_after);
	JW_KEY(w, "clocks");
	jw_c(w, '[');
	struct clk_ctx c = { j, f, names, true, true, w };
	join_clock_each(j, clk_line, &c);
	jw_lit(w, "],\"clock_claims\":[");
	if (j->claims)
		claims_json(j->claims, w);
	jw_lit(w, "]}\n");
	jw_flush(w);
}

void join_report_claims_json(const struct join *j, struct jw *w)
{
	if (j->claims)
		claims_json(j->claims, w);
}
