/* Snapshot serialisation for the daemon socket (see ctl_proto.h and
 * docs/daemon-protocol.md).  Text so that `socat - UNIX:/run/nfsrdmad.sock`
 * is a debugging tool; tabs as separators because keys contain spaces. */
#include "src/stats/ctl_proto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/grow.h"

/* Keys and labels never carry a tab or newline on the wire. */
static void put_key(FILE *f, const char *k)
{
	for (; *k; k++)
		fputc(*k == '\t' || *k == '\n' || *k == '\r' || *k == '\x1f' ? ' ' : *k, f);
}

static void put_counts(FILE *f, const struct agg_counts *c)
{
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		"\t%" PRIu64 "\t%" PRIu64, c->records, c->calls, c->replies, c->errors, c->noreply,
		c->findings, c->bytes_inline, c->bytes_ddp);
	for (int i = 0; i < MIX_N; i++)
		fprintf(f, "\t%" PRIu64, c->mix[i]);
	for (int i = 0; i < PH_N; i++)
		fprintf(f, "\t%" PRIu64, c->phase_sum[i]);
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64, c->lat_sum, c->lat_n);
}
#define COUNTS_FIELDS (8 + MIX_N + PH_N + 2)
/* rows of one kind a snapshot may hold (a peer's claim beyond it is refused) */
#define CTL_ROWS_MAX 1000000

/* FV after its F line (since 2.4): whether net_out holds net_back, the
 * row's places and segments summed (verdict_sum.h) */
static void put_verdict(FILE *f, const struct fsplit_row *r)
{
	const struct verdict_sum *v = &r->vs;

	fprintf(f, "FV\t%s\t", agg_dim_name[r->dim]);
	put_key(f, r->key);
	fprintf(f, "\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, !!(r->merged & REC_FM_NET_PAIR), v->n, v->overflow,
		v->overflow_ns);
	for (unsigned sg = 0; sg < REC_SEG_N; sg++)
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64, v->seg_sum[sg], v->seg_n[sg]);
	for (unsigned i = 0; i < v->nset; i++)
		fprintf(f, "\t%u:%" PRIu64, v->set[i], v->set_ns[i]);
	fputc('\n', f);
}
#define FV_FIELDS (7 + 2 * REC_SEG_N)

/* FT, then one F line per row of the fused split (docs/daemon-protocol.md) */
static void put_fused(FILE *f, const struct fsplit_snap *fs)
{
	fprintf(f, "FT\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", fs->rpcs, fs->unsplit, fs->overflow);
	for (size_t i = 0; i < fs->n; i++) {
		const struct fsplit_row *r = &fs->rows[i];
		fprintf(f, "F\t%s\t", agg_dim_name[r->dim]);
		put_key(f, r->key);
		/* the pair's bit rides in FV: F's fields are as 2.1 had them */
		fprintf(f, "\t%s\t%u\t%" PRIu32 "\t%" PRIu32, rec_transport_name(r->transport), r->vantages,
			r->merged & ~REC_FM_NET_PAIR, r->mask);
		const uint64_t v[] = { r->n, r->sum, r->p50, r->p99, r->max, r->tail_n, r->tail_sum, r->negative, r->partial };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			fprintf(f, "\t%" PRIu64, v[k]);
		for (int p = 0; p < REC_FP_N; p++)
			fprintf(f, "\t%" PRIu64, r->phase[p]);
		for (int p = 0; p < REC_FP_N; p++)
			fprintf(f, "\t%" PRIu64, r->tail[p]);
		fputc('\n', f);
		put_verdict(f, r);
	}
}
#define F_FIELDS (7 + 9 + 2 * REC_FP_N)

void ctl_write_snap(FILE *f, const struct agg_snap *s)
{
	ctl_write_snap_fused(f, s, NULL);
}

void ctl_write_snap_fused(FILE *f, const struct agg_snap *s, const struct fsplit_snap *fs)
{
	uint64_t ovf = 0;

	for (int d = 0; d < AGG_NDIM; d++)
		ovf += s->t.overflow[d];
	fprintf(f, "T\t%" PRIu64 "\t%" PRIu64 "\t%.3f\t%.3f\t%.3f", s->now_ns, s->start_ns, s->win_s,
		s->rate, s->bw);
	put_counts(f, &s->t.tot);
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		s->t.drops_queue, s->t.drops_source, s->t.source_events, s->t.source_errors, ovf);
	for (int d = 0; d < AGG_NDIM; d++) {
		for (size_t i = 0; i < s->nrows[d]; i++) {
			const struct agg_row *r = &s->rows[d][i];
			fprintf(f, "R\t%s\t", agg_dim_name[d]);
			put_key(f, r->key);
			put_counts(f, &r->tot);
			fprintf(f, "\t%.3f\t%.3f\t%.4f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				"\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, r->rate, r->bw, r->inflight, r->p50,
				r->p90, r->p99, r->p999, r->max, r->wp50, r->wp99);
			for (int p = 0; p < PH_N; p++)
				fprintf(f, "\t%" PRIu64, r->phase_mean[p]);
			fprintf(f, "\t%u\n", r->credits);
			/* which phases the row's RPCs had: the R line's fields stay
			 * as they were (older readers skip the RP line) */
			fprintf(f, "RP\t%s\t", agg_dim_name[d]);
			put_key(f, r->key);
			fprintf(f, "\t%" PRIu32 "\n", r->phase_mask);
			if (r->diag_kind != AGG_DIAG_NONE) {
				/* the operation row's diagnosis; older readers skip the line */
				const struct phase_diag_result *g = &r->diag;
				fputs("D\t", f);
				put_key(f, r->key);
				fprintf(f, "\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%u\t%u\t%u\t%u\t%" PRIu64 "\n",
					r->diag_kind, g->n, g->mean_ns, g->p99_ns, g->mean_phase, g->mean_pct,
					g->p99_phase, g->p99_pct, g->tail_n);
			}
		}
	}
	for (size_t i = 0; i < s->nslow; i++) {
		const struct agg_slow *w = &s->slow[i];
		fprintf(f, "S\t0x%08x\t%u\t", w->xid, w->conn);
		put_key(f, w->op);
		fputc('\t', f);
		put_key(f, w->client);
		fputc('\t', f);
		put_key(f, w->server);
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64, w->t_ns, w->total);
		for (int p = 0; p < PH_N; p++)
			fprintf(f, "\t%" PRIu64, w->phase[p]);
		/* which of those phases happened: the S line's fields stay as
		 * they were (older readers skip the SP line) */
		fprintf(f, "\nSP\t0x%08x\t%" PRIu32 "\n", w->xid, w->phase_mask);
	}
	if (fs)
		put_fused(f, fs);
	for (unsigned i = 0; i < s->nlinks && i < AGG_LINKS_MAX; i++) {
		const struct agg_link *l = &s->links[i];
		fprintf(f, "L\t%s\t", l->kind == 'F' ? "forward" : "collect");
		put_key(f, l->peer);
		fputc('\t', f);
		put_key(f, l->host[0] ? l->host : "-");
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", l->records, l->dropped,
			l->lost, l->malformed, l->refused);
	}
	if (s->has_probe_cost)
		fprintf(f, "PC\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", s->probe_run_ns, s->probe_runs,
			s->probe_records);
	for (int i = 0; i < 2; i++) {
		const struct agg_inflight *a = &s->inflight[i];
		if (s->inflight_sides & (1u << i))
			fprintf(f, "IF\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
				i ? "server" : "client", a->in_flight, a->oldest_ns, a->stalled, a->abandoned,
				a->stall_after_ns);
	}
	fputs("END\n", f);
}

int ctl_next_line(const char *buf, size_t len, size_t *n)
{
	const char *nl = memchr(buf, '\n', len < CTL_LINE_MAX ? len : CTL_LINE_MAX);

	if (nl) {
		*n = (size_t)(nl - buf);
		return 1;
	}
	return len >= CTL_LINE_MAX ? -EMSGSIZE : 0;
}

int ctl_parse_greeting(const char *line)
{
	char word[32];
	int v;

	if (sscanf(line, "%31s %d", word, &v) != 2 || strcmp(word, CTL_GREETING) || v < 1)
		return -EPROTO;
	return v;
}

int ctl_greeting_minor(const char *line)
{
	char word[32];
	int v, minor = 0;

	/* "NFSRDMA-CTL 2" has none: 0 */
	if (sscanf(line, "%31s %d.%d", word, &v, &minor) < 2 || minor < 0)
		return 0;
	return minor;
}

#define MAXF 64

static int split(char *line, char **f)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < MAXF; p++)
		if (*p == '\t') {
			*p = 0;
			f[n++] = p + 1;
		}
	return n;
}

static bool num(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && !*end;
}

static bool dbl(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end;
}

static bool get_counts(char **f, struct agg_counts *c)
{
	uint64_t *dst[COUNTS_FIELDS] = { &c->records, &c->calls, &c->replies, &c->errors, &c->noreply,
					 &c->findings, &c->bytes_inline, &c->bytes_ddp };
	int k = 8;
	for (int i = 0; i < MIX_N; i++)
		dst[k++] = &c->mix[i];
	for (int i = 0; i < PH_N; i++)
		dst[k++] = &c->phase_sum[i];
	dst[k++] = &c->lat_sum;
	dst[k++] = &c->lat_n;
	for (int i = 0; i < COUNTS_FIELDS; i++)
		if (!num(f[i], dst[i]))
			return false;
	return true;
}

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "bad %s line from the daemon", what);
	return -EPROTO;
}

/* FV: onto the F row just read, the same dimension and key */
static int read_verdict(struct fsplit_snap *fs, char **f, int n, char *err, size_t errlen)
{
	struct fsplit_row *r = fs->n ? &fs->rows[fs->n - 1] : NULL;
	uint64_t pair, u, ns;
	char *end;

	if (n < FV_FIELDS || n > FV_FIELDS + VSUM_SETS || !r || strcmp(f[1], agg_dim_name[r->dim]) ||
	    strcmp(f[2], r->key) || r->vs.nset || r->vs.n || !num(f[3], &pair) || pair > 1)
		return bad(err, errlen, "fused verdict");
	struct verdict_sum *v = &r->vs;
	if (!num(f[4], &v->n) || !num(f[5], &v->overflow) || !num(f[6], &v->overflow_ns))
		return bad(err, errlen, "fused verdict");
	for (unsigned sg = 0; sg < REC_SEG_N; sg++)
		if (!num(f[7 + 2 * sg], &v->seg_sum[sg]) || !num(f[8 + 2 * sg], &v->seg_n[sg]) || v->seg_n[sg] > r->n)
			return bad(err, errlen, "fused verdict");
	for (int i = FV_FIELDS; i < n; i++) {
		errno = 0;
		u = strtoull(f[i], &end, 10);
		if (errno || end == f[i] || *end != ':' || !u || u >> REC_PL_N || !num(end + 1, &ns) || !ns)
			return bad(err, errlen, "fused verdict");
		verdict_sum_add_set(v, (uint16_t)u, ns);
	}
	if (v->n > r->n || (unsigned)(n - FV_FIELDS) != v->nset)   /* a set twice */
		return bad(err, errlen, "fused verdict");
	v->ns += v->overflow_ns;
	if (pair)
		r->merged |= REC_FM_NET_PAIR;
	return 0;
}

static int read_fused(struct fsplit_snap *fs, char **f, int n, char *err, size_t errlen)
{
	if (!fs)
		return 0;
	if (!strcmp(f[0], "FV"))
		return read_verdict(fs, f, n, err, errlen);
	if (!strcmp(f[0], "FT")) {
		if (n != 4 || !num(f[1], &fs->rpcs) || !num(f[2], &fs->unsplit) || !num(f[3], &fs->overflow))
			return bad(err, errlen, "fused totals");
		fs->have = true;
		return 0;
	}
	int d, t;
	uint64_t vt, merged, mask;
	if (n != F_FIELDS || !fs->have)
		return bad(err, errlen, "fused split");
	for (d = 0; d < AGG_NDIM && strcmp(f[1], agg_dim_name[d]); d++)
		;
	for (t = 0; t < REC_TR_N && strcmp(f[3], rec_transport_name((unsigned)t)); t++)
		;
	if (d == AGG_NDIM || !fsplit_dim_ok((unsigned)d) || t == REC_TR_N || !num(f[4], &vt) || !vt ||
	    vt > REC_VT_ALL || !num(f[5], &merged) || merged >> (REC_FP_N - 1) || !num(f[6], &mask) ||
	    mask >> REC_FP_N)
		return bad(err, errlen, "fused split");
	if (fs->n >= CTL_ROWS_MAX)
		return bad(err, errlen, "fused split (too many rows)");
	if (ARR_RESERVE(fs->rows, fs->cap, fs->n + 1, 32) < 0)
		return -ENOMEM;
	struct fsplit_row *r = &fs->rows[fs->n];
	memset(r, 0, sizeof(*r));
	uint64_t *v[] = { &r->n, &r->sum, &r->p50, &r->p99, &r->max, &r->tail_n, &r->tail_sum, &r->negative,
			  &r->partial };
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
		if (!num(f[7 + k], v[k]))
			return bad(err, errlen, "fused split");
	for (int p = 0; p < REC_FP_N; p++)
		if (!num(f[16 + p], &r->phase[p]) || !num(f[16 + REC_FP_N + p], &r->tail[p]))
			return bad(err, errlen, "fused split");
	if (!r->n || r->tail_n > r->n)
		return bad(err, errlen, "fused split");
	snprintf(r->key, sizeof(r->key), "%s", f[2]);
	r->dim = (uint8_t)d;
	r->transport = (uint8_t)t;
	r->vantages = (uint8_t)vt;
	r->merged = (uint32_t)merged;
	r->mask = (uint32_t)mask;
	fs->n++;
	return 0;
}

int ctl_read_line(struct ctl_reader *rd, struct agg_snap *s, char *line, char *err, size_t errlen)
{
	return ctl_read_line_fused(rd, s, NULL, line, err, errlen);
}

/* PC run_ns runs records: the kernel probes' cost (2.5) */
static int read_probe_cost(char **f, int n, struct agg_snap *s, char *err, size_t errlen)
{
	if (n != 4 || !num(f[1], &s->probe_run_ns) || !num(f[2], &s->probe_runs) || !num(f[3], &s->probe_records))
		return bad(err, errlen, "probe cost");
	s->has_probe_cost = true;
	return 0;
}

/* IF side in_flight oldest_ns stalled abandoned stall_after_ns: the RPCs
 * in flight in the kernel probes' maps (2.6), one line a side */
static int read_inflight(char **f, int n, struct agg_snap *s, char *err, size_t errlen)
{
	struct agg_inflight a;
	int i;

	if (n != 7 || (strcmp(f[1], "client") && strcmp(f[1], "server")))
		return bad(err, errlen, "in flight");
	i = f[1][0] == 's';
	if (!num(f[2], &a.in_flight) || !num(f[3], &a.oldest_ns) || !num(f[4], &a.stalled) ||
	    !num(f[5], &a.abandoned) || !num(f[6], &a.stall_after_ns) || a.stalled > a.in_flight)
		return bad(err, errlen, "in flight");
	s->inflight[i] = a;
	s->inflight_sides |= 1u << i;
	return 0;
}

int ctl_read_line_fused(struct ctl_reader *rd, struct agg_snap *s, struct fsplit_snap *fs, char *line, char *err,
			size_t errlen)
{
	char *f[MAXF];
	int n = split(line, f);

	if (!strcmp(f[0], "END"))
		return 1;
	if (!strcmp(f[0], "T")) {
		uint64_t ovf;
		if (n != 6 + COUNTS_FIELDS + 5 || !num(f[1], &s->now_ns) || !num(f[2], &s->start_ns) ||
		    !dbl(f[3], &s->win_s) || !dbl(f[4], &s->rate) || !dbl(f[5], &s->bw) ||
		    !get_counts(f + 6, &s->t.tot))
			return bad(err, errlen, "totals");
		char **g = f + 6 + COUNTS_FIELDS;
		if (!num(g[0], &s->t.drops_queue) || !num(g[1], &s->t.drops_source) ||
		    !num(g[2], &s->t.source_events) || !num(g[3], &s->t.source_errors) || !num(g[4], &ovf))
			return bad(err, errlen, "totals");
		s->t.overflow[0] = ovf;
		return 0;
	}
	if (!strcmp(f[0], "R")) {
		int d;
		/* the field count first: f[1] is unset on a bare "R" line */
		if (n != 3 + COUNTS_FIELDS + 10 + PH_N + 1)
			return bad(err, errlen, "row");
		for (d = 0; d < AGG_NDIM && strcmp(f[1], agg_dim_name[d]); d++)
			;
		if (d == AGG_NDIM)
			return bad(err, errlen, "row");
		if (s->nrows[d] >= CTL_ROWS_MAX)
			return bad(err, errlen, "row (too many)");
		if (ARR_RESERVE(s->rows[d], rd->cap[d], s->nrows[d] + 1, 32) < 0)
			return -ENOMEM;
		struct agg_row *r = &s->rows[d][s->nrows[d]];
		memset(r, 0, sizeof(*r));
		snprintf(r->key, sizeof(r->key), "%s", f[2]);
		char **g = f + 3 + COUNTS_FIELDS;
		uint64_t cr;
		if (!get_counts(f + 3, &r->tot) || !dbl(g[0], &r->rate) || !dbl(g[1], &r->bw) ||
		    !dbl(g[2], &r->inflight) || !num(g[3], &r->p50) || !num(g[4], &r->p90) ||
		    !num(g[5], &r->p99) || !num(g[6], &r->p999) || !num(g[7], &r->max) ||
		    !num(g[8], &r->wp50) || !num(g[9], &r->wp99))
			return bad(err, errlen, "row");
		for (int p = 0; p < PH_N; p++)
			if (!num(g[10 + p], &r->phase_mean[p]))
				return bad(err, errlen, "row");
		if (!num(g[10 + PH_N], &cr))
			return bad(err, errlen, "row");
		r->credits = (uint32_t)cr;
		r->phase_mask = AGG_SLOW_ALL_PHASES;   /* until its RP line says */
		s->nrows[d]++;
		return 0;
	}
	if (!strcmp(f[0], "RP")) {
		/* the phases that happened in the row of dim just read */
		int d;
		uint64_t mask;
		if (n != 4)
			return bad(err, errlen, "row phases");
		for (d = 0; d < AGG_NDIM && strcmp(f[1], agg_dim_name[d]); d++)
			;
		struct agg_row *r = d < AGG_NDIM && s->nrows[d] ? &s->rows[d][s->nrows[d] - 1] : NULL;
		if (!r || strcmp(r->key, f[2]) || !num(f[3], &mask) || mask > AGG_SLOW_ALL_PHASES)
			return bad(err, errlen, "row phases");
		r->phase_mask = (uint32_t)mask;
		return 0;
	}
	if (!strcmp(f[0], "S")) {
		uint64_t xid, conn;
		if (n != 8 + PH_N || s->nslow >= AGG_SLOW_MAX)
			return bad(err, errlen, "slow-XID");
		struct agg_slow *w = &s->slow[s->nslow];
		memset(w, 0, sizeof(*w));
		if (!num(f[1], &xid) || !num(f[2], &conn) || !num(f[6], &w->t_ns) || !num(f[7], &w->total))
			return bad(err, errlen, "slow-XID");
		for (int p = 0; p < PH_N; p++)
			if (!num(f[8 + p], &w->phase[p]))
				return bad(err, errlen, "slow-XID");
		w->xid = (uint32_t)xid;
		w->conn = (uint32_t)conn;
		w->phase_mask = AGG_SLOW_ALL_PHASES;   /* until its SP line says */
		snprintf(w->op, sizeof(w->op), "%s", f[3]);
		snprintf(w->client, sizeof(w->client), "%s", f[4]);
		snprintf(w->server, sizeof(w->server), "%s", f[5]);
		s->nslow++;
		return 0;
	}
	if (!strcmp(f[0], "SP")) {
		/* the phases that happened of the slow RPC just read */
		uint64_t xid, mask;
		struct agg_slow *w = s->nslow ? &s->slow[s->nslow - 1] : NULL;
		if (n != 3 || !w || !num(f[1], &xid) || xid != w->xid || !num(f[2], &mask) ||
		    mask > AGG_SLOW_ALL_PHASES)
			return bad(err, errlen, "slow-XID phases");
		w->phase_mask = (uint32_t)mask;
		return 0;
	}
	if (!strcmp(f[0], "PC"))
		return read_probe_cost(f, n, s, err, errlen);
	if (!strcmp(f[0], "IF"))
		return read_inflight(f, n, s, err, errlen);
	if (!strcmp(f[0], "L")) {
		if (n != 9 || (strcmp(f[1], "forward") && strcmp(f[1], "collect")))
			return bad(err, errlen, "link");
		if (s->nlinks >= AGG_LINKS_MAX)
			return 0;   /* more than a screen shows: the rest are not kept */
		struct agg_link *l = &s->links[s->nlinks];
		memset(l, 0, sizeof(*l));
		if (!num(f[4], &l->records) || !num(f[5], &l->dropped) || !num(f[6], &l->lost) ||
		    !num(f[7], &l->malformed) || !num(f[8], &l->refused))
			return bad(err, errlen, "link");
		l->kind = f[1][0] == 'f' ? 'F' : 'C';
		snprintf(l->peer, sizeof(l->peer), "%s", f[2]);
		snprintf(l->host, sizeof(l->host), "%s", f[3]);
		s->nlinks++;
		return 0;
	}
	if (!strcmp(f[0], "D")) {
		/* the diagnosis of the operation row just read */
		uint64_t v[9];
		struct agg_row *r = s->nrows[AGG_OP] ? &s->rows[AGG_OP][s->nrows[AGG_OP] - 1] : NULL;
		if (n != 11 || !r || strcmp(r->key, f[1]))
			return bad(err, errlen, "diagnosis");
		for (int i = 0; i < 9; i++)
			if (!num(f[2 + i], &v[i]))
				return bad(err, errlen, "diagnosis");
		unsigned nph = v[0] == AGG_DIAG_FUSED ? REC_FP_N : PH_N;
		if ((v[0] != AGG_DIAG_WIRE && v[0] != AGG_DIAG_FUSED) || v[4] >= nph || v[6] >= nph ||
		    v[5] > 100 || v[7] > 100)
			return bad(err, errlen, "diagnosis");
		r->diag_kind = (uint8_t)v[0];
		r->diag = (struct phase_diag_result){ .n = v[1], .mean_ns = v[2], .p99_ns = v[3],
						      .mean_phase = (unsigned)v[4], .mean_pct = (unsigned)v[5],
						      .p99_phase = (unsigned)v[6], .p99_pct = (unsigned)v[7],
						      .tail_n = v[8] };
		return 0;
	}
	if (!strcmp(f[0], "FT") || !strcmp(f[0], "F") || !strcmp(f[0], "FV"))
		return read_fused(fs, f, n, err, errlen);
	/* Unknown line types are ignored: a newer daemon may add some
	 * within the same protocol version. */
	return 0;
}
