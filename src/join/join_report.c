/* The join's report: what came in, what went out, what was odd, and the
 * clock of every host pair with its uncertainty. */
#include <inttypes.h>
#include <stdint.h>

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
		/* names are file names: the caller passes JSON-safe ones or NULL */
		fprintf(c->f, "%s{\"a\":%u,\"b\":%u,\"offset_ns\":%" PRId64 ",\"drift_ppm\":%.3f,"
			"\"uncertainty_ns\":", c->first ? "" : ",", a, b, e->offset_ns, e->drift_ppm);
		if (e->uncertainty_ns == UINT64_MAX)
			fputs("null", c->f);
		else
			fprintf(c->f, "%" PRIu64, e->uncertainty_ns);
		fprintf(c->f, ",\"samples\":%" PRIu64 ",\"steps\":%u,\"bounded\":%s,\"source\":\"%s\","
			"\"causal_uncertainty_ns\":", e->samples, e->steps, e->bounded ? "true" : "false",
			e->from_hosts ? "hosts" : "causal");
		if (causal == UINT64_MAX)
			fputs("null}", c->f);
		else
			fprintf(c->f, "%" PRIu64 "}", causal);
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
	struct clk_ctx c = { j, f, names, false, true };
	join_clock_each(j, clk_line, &c);
	if (j->claims)
		claims_report(j->claims, f, names, false);
}

void join_report_json(const struct join *j, FILE *f, const char *const *names)
{
	const struct join_stats *s = &j->st;

	fprintf(f, "{\"type\":\"join\",\"in\":{\"client\":%" PRIu64 ",\"wire\":%" PRIu64 ",\"server\":%" PRIu64
		"},\"rejected\":%" PRIu64 ",\"emitted\":%" PRIu64 ",\"complete\":%" PRIu64 ",\"partial\":%" PRIu64
		",\"evicted\":%" PRIu64 ",\"retransmits\":%" PRIu64 ",\"dup_xids\":%" PRIu64 ",\"negative\":%" PRIu64
		",\"negative_by\":{\"client\":%" PRIu64 ",\"wire\":%" PRIu64 ",\"server\":%" PRIu64
		",\"clock\":%" PRIu64 "},\"unaligned\":%" PRIu64 ",\"missing\":{\"client\":%" PRIu64 ",\"wire\":%" PRIu64 ",\"server\":%" PRIu64
		"},\"stopped_after\":{\"client\":%" PRIu64 ",\"wire\":%" PRIu64 ",\"server\":%" PRIu64 "},\"clocks\":[",
		s->in[0], s->in[1], s->in[2], s->rejected, s->emitted, s->complete, s->partial, s->evicted,
		s->retransmits, s->dup_xids, s->negative, s->negative_by[0], s->negative_by[1], s->negative_by[2],
		s->negative_by[3], s->unaligned, s->missing[0], s->missing[1], s->missing[2],
		s->stopped_after[0], s->stopped_after[1], s->stopped_after[2]);
	struct clk_ctx c = { j, f, names, true, true };
	join_clock_each(j, clk_line, &c);
	fputs("],\"clock_claims\":[", f);
	if (j->claims)
		claims_report(j->claims, f, names, true);
	fputs("]}\n", f);
}

void join_report_claims_json(const struct join *j, FILE *f)
{
	if (j->claims)
		claims_report(j->claims, f, NULL, true);
}
