/* nfsrdma-top views and batch output (see top_view.h). */
#include "src/out/out.h"
#include "src/out/recfmt.h"
#include "src/stats/agg_key.h"
#include "src/top/top_view.h"
#include "src/top/top_fused.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *const top_sort_name[SORT_N] = { "records", "rate", "errors", "p50", "p99", "max", "key" };
const char *const top_dim_title[AGG_NDIM] = { "OPERATION", "CLIENT", "SERVER", "CONNECTION", "SERIES" };

int top_dim_parse(const char *s)
{
	for (int d = 0; d < AGG_NDIM; d++)
		if (!strcasecmp(s, agg_dim_name[d]))
			return d;
	if (!strcasecmp(s, "connection"))
		return AGG_CONN;
	return -1;
}

int top_sort_parse(const char *s)
{
	for (int i = 0; i < SORT_N; i++)
		if (!strcasecmp(s, top_sort_name[i]))
			return i;
	return -1;
}

static enum top_sort g_sort;   /* qsort has no context argument */
static bool g_rev;

static int cmp_u(uint64_t a, uint64_t b) { return a < b ? 1 : a > b ? -1 : 0; }   /* descending */

static int cmp_row(const void *pa, const void *pb)
{
	const struct agg_row *a = *(const struct agg_row *const *)pa, *b = *(const struct agg_row *const *)pb;
	int c = 0;

	switch (g_sort) {
	case SORT_RECORDS: c = cmp_u(a->tot.records, b->tot.records); break;
	case SORT_RATE: c = a->rate < b->rate ? 1 : a->rate > b->rate ? -1 : 0; break;
	case SORT_ERRORS: c = cmp_u(a->tot.errors, b->tot.errors); break;
	case SORT_P50: c = cmp_u(a->p50, b->p50); break;
	case SORT_P99: c = cmp_u(a->p99, b->p99); break;
	case SORT_MAX: c = cmp_u(a->max, b->max); break;
	case SORT_KEY: case SORT_N: break;
	}
	if (!c)
		c = strcmp(a->key, b->key);   /* stable, readable tie-break */
	return g_rev ? -c : c;
}

int top_transport_parse(const char *s)
{
	for (int t = 0; t < REC_TR_N; t++)
		if (!strcmp(s, rec_transport_name(t)))
			return t;
	return -1;
}

/* An operation's (a client's, a server's) transport, from its name: the
 * aggregation writes it after the operation or the address as the
 * dissector's summaries do (agg_op_suffix: " tcp", " udp", nothing for
 * RDMA). */
static bool op_over(const char *op, int transport)
{
	if (transport < 0)
		return true;
	size_t n = strlen(op);
	for (int t = REC_TR_TCP; t < REC_TR_N; t++) {
		const char *sfx = agg_op_suffix(t);
		size_t k = strlen(sfx);
		if (n >= k && !strcmp(op + n - k, sfx))
			return t == transport;
	}
	return transport == REC_TR_RDMA;
}

size_t top_view_rows(const struct agg_snap *s, const struct top_view *v, const struct agg_row ***out)
{
	size_t n = 0, total = s->nrows[v->dim];
	const struct agg_row **rows = malloc((total ? total : 1) * sizeof(*rows));

	*out = rows;
	if (!rows)
		return 0;
	for (size_t i = 0; i < total; i++) {
		const struct agg_row *r = &s->rows[v->dim][i];
		if (v->filter[0] && !strcasestr(r->key, v->filter))
			continue;
		if (v->dim != AGG_SERIES && !op_over(r->key, v->transport))
			continue;
		rows[n++] = r;
	}
	g_sort = v->sort;
	g_rev = v->reverse;
	qsort(rows, n, sizeof(*rows), cmp_row);
	return n;
}

/* One letter per phase of rec_phase_name, for the split bar (legend in the
 * view's help and the man page). */
const char top_phase_sym[PH_N] = { 'c', 'q', 'p', 's', 'S', 'P', 'w', 'r' };

/* "call/queue/pull/server/queue+server/push/wait/reply" */
static void phase_names(FILE *f)
{
	for (int p = 0; p < PH_N; p++)
		fprintf(f, "%s%s", p ? "/" : "", rec_phase_name(p));
}

size_t top_view_slow(const struct agg_snap *s, const struct top_view *v, const struct agg_slow *o[AGG_SLOW_MAX])
{
	size_t k = 0;

	for (size_t i = 0; i < s->nslow && k < AGG_SLOW_MAX; i++)
		if ((!v->filter[0] || strcasestr(s->slow[i].op, v->filter) ||
		     strcasestr(s->slow[i].client, v->filter) || strcasestr(s->slow[i].server, v->filter)) &&
		    op_over(s->slow[i].op, v->transport))
			o[k++] = &s->slow[i];
	/* slowest first (at most AGG_SLOW_MAX: insertion sort) */
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && o[j]->total > o[j - 1]->total; j--) {
			const struct agg_slow *t = o[j];
			o[j] = o[j - 1];
			o[j - 1] = t;
		}
	return k;
}

void top_split_bar(const struct agg_row *r, char *buf, size_t width)
{
	uint64_t sum = 0;
	size_t pos = 0;

	for (int p = 0; p < PH_N; p++)
		sum += r->phase_mean[p];
	if (!width)
		return;
	if (sum) {
		/* largest-remainder rounding so the bar is always exactly full */
		size_t cells[PH_N], used = 0;
		double rem[PH_N];
		for (int p = 0; p < PH_N; p++) {
			double x = (double)r->phase_mean[p] * (double)width / (double)sum;
			cells[p] = (size_t)x;
			rem[p] = x - (double)cells[p];
			used += cells[p];
		}
		while (used < width) {
			int best = 0;
			for (int p = 1; p < PH_N; p++)
				if (rem[p] > rem[best])
					best = p;
			cells[best]++;
			rem[best] = -1;
			used++;
		}
		for (int p = 0; p < PH_N; p++)
			for (size_t i = 0; i < cells[p] && pos < width; i++)
				buf[pos++] = top_phase_sym[p];
	}
	while (pos < width)
		buf[pos++] = sum ? ' ' : '.';
	buf[pos] = 0;
}

uint64_t top_lat_unit(uint64_t ns)
{
	return ns < 1000000 ? 1000 : ns < 1000000000 ? 100000 : 10000000;
}

const char *top_fmt_lat(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 1000000)
		snprintf(buf, len, "%" PRIu64 "us", (ns + 500) / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", (double)ns / 1e9);
	return buf;
}

static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static void ms(char *b, size_t len, uint64_t ns)
{
	snprintf(b, len, "%.*f ms", ns < 10000000 ? 3 : 1, (double)ns / 1e6);
}

bool top_diag_line(const struct agg_row *r, char *buf, size_t len)
{
	char p99[32], mean[32];

	unsigned timed = 0;

	if (r->diag_kind == AGG_DIAG_NONE)
		return false;
	/* one wire phase with all the time: nothing to diagnose, as -z
	 * leaves it out (src/out/summary.c, diag_splits) */
	for (int p = 0; p < PH_N; p++)
		timed += r->tot.phase_sum[p] || r->phase_mean[p];
	if (r->diag_kind == AGG_DIAG_WIRE && timed < 2)
		return false;
	ms(p99, sizeof(p99), r->diag.p99_ns);
	ms(mean, sizeof(mean), r->diag.mean_ns);
	snprintf(buf, len, "p99 %s: %s %u %% (mean %s: %s %u %%)%s", p99,
		 agg_diag_phase(r->diag_kind, r->diag.p99_phase), r->diag.p99_pct, mean,
		 agg_diag_phase(r->diag_kind, r->diag.mean_phase), r->diag.mean_pct,
		 r->diag_kind == AGG_DIAG_FUSED ? " fused" : "");
	return true;
}

static double pct(uint64_t part, uint64_t sum)
{
	return sum ? 100.0 * (double)part / (double)sum : 0;
}

void top_view_line(const struct top_view *v, char *buf, size_t len)
{
	snprintf(buf, len, "view %s%s  sort %s%s%s%s%s%s", v->fused ? "fused " : "",
		 agg_dim_name[v->fused ? top_fused_dim(v) : v->dim], top_sort_name[v->sort],
		 v->reverse ? " (reversed)" : "", v->transport >= 0 ? "  transport " : "",
		 v->transport >= 0 ? rec_transport_name((unsigned)v->transport) : "", v->filter[0] ? "  filter " : "",
		 v->filter);
}

void top_inflight_text(const struct agg_snap *s, char *buf, size_t len, uint64_t *stalled)
{
	uint64_t n = 0, oldest = 0;

	*stalled = 0;
	buf[0] = 0;
	if (!s->inflight_sides)
		return;
	for (int i = 0; i < 2; i++) {
		if (!(s->inflight_sides & (1u << i)))
			continue;
		n += s->inflight[i].in_flight;
		*stalled += s->inflight[i].stalled;
		if (s->inflight[i].oldest_ns > oldest)
			oldest = s->inflight[i].oldest_ns;
	}
	snprintf(buf, len, "in flight %" PRIu64 ", oldest %.1f s", n, (double)oldest / 1e9);
}

/* batch text: one line a side the daemon probes */
static void inflight_batch_text(FILE *f, const struct agg_snap *s)
{
	if (!s->inflight_sides)
		return;
	fputs("in flight:", f);
	for (int i = 0; i < 2; i++) {
		const struct agg_inflight *a = &s->inflight[i];
		if (s->inflight_sides & (1u << i))
			fprintf(f, "  %s %" PRIu64 " (oldest %.3f s, stalled %" PRIu64 " past %.1f s, abandoned %"
				PRIu64 ")%s", i ? "server" : "client", a->in_flight, (double)a->oldest_ns / 1e9,
				a->stalled, (double)a->stall_after_ns / 1e9, a->abandoned, a->stalled ? "  STALLED" : "");
	}
	fputc('\n', f);
}

void top_batch_text(FILE *f, const struct agg_snap *s, const struct fsplit_snap *fs, const struct top_view *v,
		    const char *feed)
{
	const struct agg_row **rows;
	size_t n = top_view_rows(s, v, &rows);
	char ts[32];
	uint64_t ovf = 0;
	size_t w = strlen(top_dim_title[v->dim]);

	for (int d = 0; d < AGG_NDIM; d++)
		ovf += s->t.overflow[d];
	/* files read flat out are timed by their records: with none there
	 * is no time to show (not 1970-01-01) */
	if (s->now_ns)
		fmt_time(s->now_ns, ts, sizeof(ts));
	fprintf(f, "nfsrdma-top  %s%s  feed: %s  window %.0fs\n", s->now_ns ? ts : "(no record: no time)",
		s->now_ns ? " UTC" : "", feed, s->win_s);
	fprintf(f, "records %" PRIu64 "  rate %.1f/s  errors %" PRIu64 "  unanswered %" PRIu64
		"  findings %" PRIu64 "  drops %" PRIu64 " (queue %" PRIu64 ", source %" PRIu64 ")  overflow %" PRIu64
		"\n", s->t.tot.records, s->rate, s->t.tot.errors, s->t.tot.noreply, s->t.tot.findings,
		s->t.drops_queue + s->t.drops_source, s->t.drops_queue, s->t.drops_source, ovf);
	if (s->has_probe_cost)
		fprintf(f, "probes: %.1f us a record (%" PRIu64 " runs, %.3f s in the kernel's programs, %" PRIu64
			" records)\n", s->probe_records ? (double)s->probe_run_ns / 1e3 / (double)s->probe_records : 0.0,
			s->probe_runs, (double)s->probe_run_ns / 1e9, s->probe_records);
	inflight_batch_text(f, s);
	for (unsigned i = 0; i < s->nlinks; i++) {
		const struct agg_link *l = &s->links[i];
		if (l->kind == 'F')
			fprintf(f, "forward to %s: sent %" PRIu64 "  dropped %" PRIu64 "\n", l->peer, l->records, l->dropped);
		else
			fprintf(f, "forwarder %s (%s): received %" PRIu64 "  dropped there %" PRIu64 "  lost %" PRIu64
				"  malformed %" PRIu64 "  refused %" PRIu64 "\n",
				l->host, l->peer, l->records, l->dropped, l->lost, l->malformed, l->refused);
	}
	char vl[160];
	top_view_line(v, vl, sizeof(vl));
	fprintf(f, "%s\n\n", vl);
	if (v->fused) {
		top_fused_text(f, fs, v);
		free(rows);
		fflush(f);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (strlen(rows[i]->key) > w)
			w = strlen(rows[i]->key);
	fprintf(f, "%-*s %8s %8s %8s %6s %10s %12s %12s %9s %10s %10s %10s %10s %10s  split%% ", (int)w,
		top_dim_title[v->dim], "records", "calls", "replies", "errors", "unanswered", "bytes_inl",
		"bytes_ddp", "rate/s", "p50_us", "p90_us", "p99_us", "p99.9_us", "max_us");
	phase_names(f);
	fputs("  chunks inline/read/write/reply/p0\n", f);
	/* an empty table says why, as a run that found nothing does */
	if (!n && s->nrows[v->dim])
		fprintf(f, "(no row: %zu %s row(s), none matches --filter/--transport)\n", s->nrows[v->dim],
			agg_dim_name[v->dim]);
	else if (!n)
		fputs("(no row: no record yet)\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct agg_row *r = rows[i];
		uint64_t sum = 0;
		for (int p = 0; p < PH_N; p++)
			sum += r->phase_mean[p];
		fprintf(f, "%-*s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %10" PRIu64 " %12" PRIu64
			" %12" PRIu64 " %9.1f %10.1f %10.1f %10.1f %10.1f %10.1f ",
			(int)w, r->key, r->tot.records, r->tot.calls, r->tot.replies, r->tot.errors, r->tot.noreply,
			r->tot.bytes_inline, r->tot.bytes_ddp, r->rate, r->p50 / 1e3, r->p90 / 1e3, r->p99 / 1e3,
			r->p999 / 1e3, r->max / 1e3);
		/* a phase no RPC of the row had is '-', not 0 % */
		for (int p = 0; p < PH_N; p++)
			if (r->phase_mask & 1u << p)
				fprintf(f, "%c%.0f", p ? '/' : ' ', pct(r->phase_mean[p], sum));
			else
				fprintf(f, "%c-", p ? '/' : ' ');
		fprintf(f, "  %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
			r->tot.mix[MIX_INLINE], r->tot.mix[MIX_READ], r->tot.mix[MIX_WRITE], r->tot.mix[MIX_REPLY],
			r->tot.mix[MIX_P0]);
	}
	bool head = false;
	for (size_t i = 0; i < n; i++) {
		char b[160];
		if (!top_diag_line(rows[i], b, sizeof(b)))
			continue;
		if (!head)
			fputs("\ndiagnosis (the phase holding most of the mean and of the p99):\n", f);
		head = true;
		fprintf(f, "%s %s\n", rows[i]->key, b);
	}
	if (s->nslow) {
		fprintf(f, "\n%s:\n%-10s %5s %-24s %-16s %10s  ",
			s->slow_whole_run ? "slowest RPCs of the whole run" : "slowest recent RPCs", "xid", "conn",
			"operation", "client", "total_us");
		phase_names(f);
		fputs(" us\n", f);
		const struct agg_slow *o[AGG_SLOW_MAX];
		size_t k = top_view_slow(s, v, o);
		for (size_t i = 0; i < k; i++)
		{
			/* to 0.1 us, boundaries rounded so the phases add up to
			 * the total printed (dur_split) */
			uint64_t span[PH_N], pr[PH_N];
			for (int p = 0; p < PH_N; p++)
				span[p] = o[i]->phase_mask & 1u << p ? o[i]->phase[p] : 0;
			uint64_t tot = dur_split_unit(100, o[i]->total, span, PH_N, pr);
			fprintf(f, "0x%08x %5u %-24s %-16s %10.1f ", o[i]->xid, o[i]->conn, o[i]->op, o[i]->client,
				(double)tot / 1e3);
			/* a phase the RPC did not have is '-', not 0.0 */
			for (int p = 0; p < PH_N; p++)
				if (o[i]->phase_mask & 1u << p)
					fprintf(f, "%c%.1f", p ? '/' : ' ', (double)pr[p] / 1e3);
				else
					fprintf(f, "%c-", p ? '/' : ' ');
			fputc('\n', f);
		}
	}
	fputc('\n', f);
	free(rows);
	fflush(f);
}
