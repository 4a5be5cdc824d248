/* --compare: the transport's facts of each side, as text rows and JSON
 * (compare.h, struct cmp_xprt).  A count is shown as both sides' values
 * without a ratio: two servers given one workload answer the same RPCs,
 * so the counts say which side chose what, and their quotient would say
 * nothing a reader cannot see.  Sizes (means, maxima, bytes) do get B/A. */
#include <inttypes.h>
#include <string.h>

#include "src/base/json.h"
#include "src/out/compare.h"

/* One text cell: its characters, or "-" when the side has nothing. */
struct tcell {
	char s[32];
};

static struct tcell t_none(void)
{
	struct tcell c;

	snprintf(c.s, sizeof(c.s), "-");
	return c;
}

static struct tcell t_u64(const struct cmp_xprt *x, uint64_t v)
{
	struct tcell c;

	if (!x->rdma)
		return t_none();
	snprintf(c.s, sizeof(c.s), "%" PRIu64, v);
	return c;
}

static struct tcell t_mean(const struct cmp_inline *in)
{
	struct tcell c;

	if (!in->n)
		return t_none();
	snprintf(c.s, sizeof(c.s), "%.1f", (double)in->sum / (double)in->n);
	return c;
}

static struct tcell t_max(const struct cmp_inline *in)
{
	struct tcell c;

	if (!in->n)
		return t_none();
	snprintf(c.s, sizeof(c.s), "%" PRIu64, in->max);
	return c;
}

/* "min..max", one number when they are equal */
static struct tcell t_range(const struct cmp_range *g)
{
	struct tcell c;

	if (!g->n)
		return t_none();
	if (g->min == g->max)
		snprintf(c.s, sizeof(c.s), "%" PRIu64, g->min);
	else
		snprintf(c.s, sizeof(c.s), "%" PRIu64 "..%" PRIu64, g->min, g->max);
	return c;
}

/* the versions seen, "1" or "1,2" ("?" for a value past 2) */
static struct tcell t_vers(const struct cmp_xprt *x)
{
	struct tcell c;
	size_t n = 0;

	if (!x->rdma)
		return t_none();
	c.s[0] = 0;
	for (int v = 0; v < CMP_VERS_SLOTS; v++)
		if (x->vers[v] && n + 3 < sizeof(c.s)) {
			int k = snprintf(c.s + n, sizeof(c.s) - n, "%s%c", n ? "," : "",
					 v < CMP_VERS_SLOTS - 1 ? '0' + v : '?');
			n += (size_t)k;
		}
	return c;
}

/* B/A of two sizes, set when both sides have one and A's is not 0 */
struct q {
	bool set;
	double v;
};

static struct q q_of(bool a_set, double a, bool b_set, double b)
{
	struct q r = { a_set && b_set && a > 0, 0 };

	if (r.set)
		r.v = b / a;
	return r;
}

static struct q q_mean(const struct cmp_inline *a, const struct cmp_inline *b)
{
	return q_of(a->n, a->n ? (double)a->sum / (double)a->n : 0, b->n,
		    b->n ? (double)b->sum / (double)b->n : 0);
}

static struct q q_max(const struct cmp_inline *a, const struct cmp_inline *b)
{
	return q_of(a->n, (double)a->max, b->n, (double)b->max);
}

static void row(FILE *f, int kw, const char **key, const char *metric, struct tcell a, struct tcell b,
		struct q r)
{
	fprintf(f, "%-*s %-*s %14s %14s", kw, *key, CMP_METRIC_W, metric, a.s, b.s);
	if (r.set)
		fprintf(f, " %8.2f\n", r.v);
	else
		fprintf(f, " %8s\n", "-");
	*key = "";   /* the key on its first row only */
}

static const struct q no_q = { false, 0 };

/* A count row; left out of an operation when 0 on both sides. */
static void count_row(FILE *f, int kw, const char **key, const char *metric, const struct cmp_xprt *a,
		      uint64_t va, const struct cmp_xprt *b, uint64_t vb, bool always)
{
	if (always || va || vb)
		row(f, kw, key, metric, t_u64(a, va), t_u64(b, vb), no_q);
}

void compare_print_xprt(FILE *f, int kw, const char *key, const struct cmp_xprt *a,
			const struct cmp_xprt *b, bool capture)
{
	char name[40];

	if (!a->rdma && !b->rdma)
		return;
	count_row(f, kw, &key, "rdma_rpcs", a, a->rdma, b, b->rdma, true);
	for (int m = 0; m < CMP_MIX_N; m++) {
		snprintf(name, sizeof(name), "chunk_%s", cmp_mix_name[m]);
		count_row(f, kw, &key, name, a, a->mix[m], b, b->mix[m], capture && m != CMP_MIX_P0);
	}
	for (int p = 0; p < CMP_PROC_SLOTS; p++) {
		/* the capture always shows the three RFC 8166 has most use of */
		bool core = capture && (p == 0 || p == 1 || p == 4);
		snprintf(name, sizeof(name), "call_rdma_%s", cmp_proc_name[p]);
		count_row(f, kw, &key, name, a, a->call_proc[p], b, b->call_proc[p], core);
		snprintf(name, sizeof(name), "reply_rdma_%s", cmp_proc_name[p]);
		count_row(f, kw, &key, name, a, a->reply_proc[p], b, b->reply_proc[p], core);
	}
	row(f, kw, &key, "call_inline_mean", t_mean(&a->call_inline), t_mean(&b->call_inline),
	    q_mean(&a->call_inline, &b->call_inline));
	row(f, kw, &key, "call_inline_max", t_max(&a->call_inline), t_max(&b->call_inline),
	    q_max(&a->call_inline, &b->call_inline));
	row(f, kw, &key, "reply_inline_mean", t_mean(&a->reply_inline), t_mean(&b->reply_inline),
	    q_mean(&a->reply_inline, &b->reply_inline));
	row(f, kw, &key, "reply_inline_max", t_max(&a->reply_inline), t_max(&b->reply_inline),
	    q_max(&a->reply_inline, &b->reply_inline));
	row(f, kw, &key, "credits_asked", t_range(&a->credits_asked), t_range(&b->credits_asked), no_q);
	row(f, kw, &key, "credits_granted", t_range(&a->credits_granted), t_range(&b->credits_granted), no_q);
	count_row(f, kw, &key, "reply_chunk_rpcs", a, a->reply_chunk_used, b, b->reply_chunk_used, capture);
	if (capture || a->reply_chunk_used || b->reply_chunk_used)
		row(f, kw, &key, "reply_chunk_bytes", t_u64(a, a->reply_chunk_bytes), t_u64(b, b->reply_chunk_bytes),
		    q_of(a->rdma, (double)a->reply_chunk_bytes, b->rdma, (double)b->reply_chunk_bytes));
	if (!capture)
		return;
	row(f, kw, &key, "inline_max_to_srv", t_u64(a, a->max_to_server), t_u64(b, b->max_to_server),
	    q_of(a->rdma, (double)a->max_to_server, b->rdma, (double)b->max_to_server));
	row(f, kw, &key, "inline_max_to_cli", t_u64(a, a->max_to_client), t_u64(b, b->max_to_client),
	    q_of(a->rdma, (double)a->max_to_client, b->rdma, (double)b->max_to_client));
	row(f, kw, &key, "rdma_versions", t_vers(a), t_vers(b), no_q);
}

static void j_key(struct jw *j, const char *name)
{
	jw_c(j, ',');
	jw_str(j, name);
	jw_c(j, ':');
}

static void j_inline(struct jw *j, const char *name, const struct cmp_inline *in)
{
	j_key(j, name);
	jw_lit(j, "{\"n\":");
	jw_u(j, in->n);
	JW_KEY(j, "sum");
	jw_u(j, in->sum);
	JW_KEY(j, "mean");
	if (in->n) {
		jw_fixed(j, (double)in->sum / (double)in->n, 1);
		JW_KEY(j, "max");
		jw_u(j, in->max);
		jw_c(j, '}');
	} else {
		jw_lit(j, "null,\"max\":null}");
	}
}

static void j_range(struct jw *j, const char *name, const struct cmp_range *g)
{
	j_key(j, name);
	if (!g->n) {
		jw_null(j);
		return;
	}
	jw_lit(j, "{\"min\":");
	jw_u(j, g->min);
	JW_KEY(j, "max");
	jw_u(j, g->max);
	jw_c(j, '}');
}

/* {"name":n,...} of the counts in order */
static void j_counts(struct jw *j, const char *const *name, const uint64_t *v, unsigned n)
{
	jw_c(j, '{');
	jw_counts(j, name, v, n, false);
	jw_c(j, '}');
}

void compare_json_xprt(struct jw *j, const struct cmp_xprt *x, bool capture)
{
	if (!x->rdma) {
		jw_null(j);
		return;
	}
	jw_lit(j, "{\"rdma_rpcs\":");
	jw_u(j, x->rdma);
	JW_KEY(j, "chunks");
	j_counts(j, cmp_mix_name, x->mix, CMP_MIX_N);
	jw_lit(j, ",\"rdma_proc\":{\"call\":");
	j_counts(j, cmp_proc_name, x->call_proc, CMP_PROC_SLOTS);
	JW_KEY(j, "reply");
	j_counts(j, cmp_proc_name, x->reply_proc, CMP_PROC_SLOTS);
	jw_c(j, '}');
	j_inline(j, "call_inline", &x->call_inline);
	j_inline(j, "reply_inline", &x->reply_inline);
	j_range(j, "credits_asked", &x->credits_asked);
	j_range(j, "credits_granted", &x->credits_granted);
	jw_lit(j, ",\"reply_chunk\":{\"rpcs\":");
	jw_u(j, x->reply_chunk_used);
	JW_KEY(j, "bytes");
	jw_u(j, x->reply_chunk_bytes);
	jw_c(j, '}');
	if (capture) {
		jw_lit(j, ",\"inline_max\":{\"to_server\":");
		jw_u(j, x->max_to_server);
		JW_KEY(j, "to_client");
		jw_u(j, x->max_to_client);
		jw_lit(j, "},\"rdma_versions\":{");
		bool first = true;
		for (int v = 0; v < CMP_VERS_SLOTS; v++)
			if (x->vers[v]) {
				if (!first)
					jw_c(j, ',');
				first = false;
				jw_c(j, '"');
				if (v < CMP_VERS_SLOTS - 1)
					jw_u(j, (uint64_t)v);
				else
					jw_lit(j, "other");
				jw_lit(j, "\":");
				jw_u(j, x->vers[v]);
			}
		jw_c(j, '}');
	}
	jw_c(j, '}');
}

static void j_q(struct jw *j, const char *name, struct q r)
{
	j_key(j, name);
	if (r.set)
		jw_fixed(j, r.v, 4);
	else
		jw_null(j);
}

void compare_json_xprt_ratio(struct jw *j, const struct cmp_xprt *a, const struct cmp_xprt *b, bool capture)
{
	j_q(j, "call_inline_mean", q_mean(&a->call_inline, &b->call_inline));
	j_q(j, "call_inline_max", q_max(&a->call_inline, &b->call_inline));
	j_q(j, "reply_inline_mean", q_mean(&a->reply_inline, &b->reply_inline));
	j_q(j, "reply_inline_max", q_max(&a->reply_inline, &b->reply_inline));
	j_q(j, "reply_chunk_bytes",
	    q_of(a->rdma, (double)a->reply_chunk_bytes, b->rdma, (double)b->reply_chunk_bytes));
	if (!capture)
		return;
	j_q(j, "inline_max_to_server", q_of(a->rdma, (double)a->max_to_server, b->rdma, (double)b->max_to_server));
	j_q(j, "inline_max_to_client", q_of(a->rdma, (double)a->max_to_client, b->rdma, (double)b->max_to_client));
}
