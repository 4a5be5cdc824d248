/* See metrics_pb.h.  The text is the daemon's own, so its reader is
 * strict: a line it cannot read is a writer's bug, -EINVAL, not skipped. */
#include "dissect/grow.h"
#include "src/daemon/metrics_pb.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/prom_metrics.pb-c.h"
#include "src/stats/hist_native.h"

typedef Io__Prometheus__Client__MetricFamily Family;
typedef Io__Prometheus__Client__Metric Metric;
typedef Io__Prometheus__Client__LabelPair Label;
typedef Io__Prometheus__Client__Histogram Histogram;
typedef Io__Prometheus__Client__Bucket Bucket;
typedef Io__Prometheus__Client__BucketSpan Span;

/* Values at most this far from 0 are the zero bucket's; a native
 * histogram needs one (a histogram with none and no samples reads as a
 * classic one), and no duration of 1 ns or more falls in it. */
#define ZERO_THRESHOLD 0x1p-128

void metrics_native_line(FILE *f, const struct hist *h, bool native)
{
	struct hist_native nh;

	if (!native || hist_native_of(h, HIST_NATIVE_SCHEMA, &nh))
		return;
	fprintf(f, "# NATIVE %d %" PRIu64, nh.schema, nh.zero_count);
	for (size_t i = 0; i < nh.n; i++)
		fprintf(f, " %" PRId32 ":%" PRIu64, nh.idx[i], nh.cnt[i]);
	fputc('\n', f);
	hist_native_free(&nh);
}

/* One family at a time; everything it holds comes from the arena and
 * goes at its end. */
struct enc {
	FILE *out;
	void **mem;
	size_t nmem, capmem;
	Family fam;
	size_t capmet;
	char *key;    /* the current histogram series' labels, le left out */
	size_t capbucket;   /* its classic buckets' array */
};

static void *zal(struct enc *e, size_t n)
{
	if (ARR_RESERVE(e->mem, e->capmem, e->nmem + 1, 64) < 0)
		return NULL;
	void *p = calloc(1, n ? n : 1);
	if (p)
		e->mem[e->nmem++] = p;
	return p;
}

/* Grows the array *arr of *n elements of size sz (arena memory) by one. */
static void *push(struct enc *e, void *arr, size_t *n, size_t *cap, size_t sz)
{
	void **a = arr;
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 8;
		void *na = zal(e, nc * sz);
		if (!na)
			return NULL;
		if (*a)
			memcpy(na, *a, *n * sz);
		*a = na;
		*cap = nc;
	}
	return (char *)*a + (*n)++ * sz;
}

static int flush(struct enc *e)
{
	int ret = 0;

	if (e->fam.name && e->fam.n_metric) {
		size_t sz = io__prometheus__client__metric_family__get_packed_size(&e->fam);
		uint8_t *buf = malloc(sz + 10), *p = buf;
		if (!buf)
			return -ENOMEM;
		for (size_t v = sz; ; v >>= 7) {
			*p++ = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			if (v <= 0x7f)
				break;
		}
		size_t hl = (size_t)(p - buf);
		io__prometheus__client__metric_family__pack(&e->fam, p);
		if (fwrite(buf, 1, hl + sz, e->out) != hl + sz)
			ret = -ENOMEM;
		free(buf);
	}
	for (size_t i = 0; i < e->nmem; i++)
		free(e->mem[i]);
	e->nmem = 0;
	io__prometheus__client__metric_family__init(&e->fam);
	e->capmet = 0;
	e->key = NULL;
	return ret;
}

static char *dup_n(struct enc *e, const char *s, size_t n)
{
	char *d = zal(e, n + 1);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* A new family named name[0..n) (HELP, TYPE, or a sample of none). */
static int family(struct enc *e, const char *name, size_t n)
{
	if (e->fam.name && strlen(e->fam.name) == n && !memcmp(e->fam.name, name, n))
		return 0;
	int ret = flush(e);
	if (ret)
		return ret;
	e->fam.has_type = 1;
	e->fam.type = IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED;
	return (e->fam.name = dup_n(e, name, n)) ? 0 : -ENOMEM;
}

/* HELP text (\\ and \n escaped) or, with quotes, a label value (\" too). */
static char *unescape(struct enc *e, const char *s, size_t n, bool quotes)
{
	char *d = zal(e, n + 1), *o = d;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '\\' || s[i + 1] == 'n' || (quotes && s[i + 1] == '"'))) {
			i++;
			*o++ = s[i] == 'n' ? '\n' : s[i];
		} else {
			*o++ = s[i];
		}
	}
	return d;
}

static int comment(struct enc *e, const char *l, size_t n);
static int sample(struct enc *e, const char *l, size_t n);

int metrics_pb_encode(const char *text, size_t len, char **out, size_t *outlen)
{
	struct enc e = { 0 };
	int ret = 0;

	*out = NULL;
	*outlen = 0;
	if (!(e.out = open_memstream(out, outlen)))
		return -ENOMEM;
	io__prometheus__client__metric_family__init(&e.fam);
	for (size_t at = 0; at < len && !ret;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		if (n)
			ret = text[at] == '#' ? comment(&e, text + at, n) : sample(&e, text + at, n);
		at += n + 1;
	}
	if (!ret)
		ret = flush(&e);
	else
		flush(&e);
	free(e.mem);
	if (fclose(e.out) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(*out);
		*out = NULL;
		*outlen = 0;
	}
	return ret;
}

/* "# HELP name text", "# TYPE name type", "# NATIVE ..."; other comments
 * are comments. */
static int native(struct enc *e, const char *l, size_t n);
static int comment(struct enc *e, const char *l, size_t n)
{
	bool help = n > 7 && !memcmp(l, "# HELP ", 7), type = n > 7 && !memcmp(l, "# TYPE ", 7);

	if (n > 9 && !memcmp(l, "# NATIVE ", 9))
		return native(e, l + 9, n - 9);
	if (!help && !type)
		return 0;
	const char *name = l + 7, *sp = memchr(name, ' ', n - 7);
	size_t nl = sp ? (size_t)(sp - name) : n - 7, rest = sp ? n - 7 - nl - 1 : 0;
	int ret = family(e, name, nl);
	if (ret || !sp)
		return ret;
	if (help)
		return (e->fam.help = unescape(e, sp + 1, rest, false)) ? 0 : -ENOMEM;
	static const struct { const char *s; int t; } types[] = {
		{ "counter", IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER },
		{ "gauge", IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE },
		{ "histogram", IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM },
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].s) == rest && !memcmp(sp + 1, types[i].s, rest))
			e->fam.type = types[i].t;
	return 0;
}

static Metric *new_metric(struct enc *e)
{
	Metric **m = push(e, &e->fam.metric, &e->fam.n_metric, &e->capmet, sizeof(*m));
	if (!m || !(*m = zal(e, sizeof(**m))))
		return NULL;
	io__prometheus__client__metric__init(*m);
	return *m;
}

/* The labels of l[0..n) ("k=\"v\",..."), into m unless m is NULL; the
 * text of the pairs but le into key, le's value into *le. */
static int labels(struct enc *e, const char *l, size_t n, Metric *m, char *key, double *le)
{
	size_t capl = 0, kl = 0;

	for (size_t i = 0; i < n;) {
		const char *eq = memchr(l + i, '=', n - i);
		if (!eq || eq + 1 >= l + n || eq[1] != '"')
			return -EINVAL;
		size_t ks = i, kn = (size_t)(eq - (l + i)), vs = kn + i + 2, j = vs;
		while (j < n && l[j] != '"')
			j += l[j] == '\\' ? 2 : 1;
		if (j >= n)
			return -EINVAL;
		if (kn == 2 && !memcmp(l + ks, "le", 2)) {
			char buf[64];
			size_t vn = j - vs < sizeof(buf) - 1 ? j - vs : sizeof(buf) - 1;
			char *end;
			memcpy(buf, l + vs, vn);
			buf[vn] = 0;
			*le = strtod(buf, &end);
			if (end == buf || *end)
				return -EINVAL;
		} else {
			memcpy(key + kl, l + ks, j + 1 - ks);
			kl += j + 1 - ks;
			key[kl++] = ',';
			Label **lp = m ? push(e, &m->label, &m->n_label, &capl, sizeof(*lp)) : NULL;
			if (m && (!lp || !(*lp = zal(e, sizeof(**lp)))))
				return -ENOMEM;
			if (m) {
				io__prometheus__client__label_pair__init(*lp);
				if (!((*lp)->name = dup_n(e, l + ks, kn)) ||
				    !((*lp)->value = unescape(e, l + vs, j - vs, true)))
					return -ENOMEM;
			}
		}
		i = j + 1;
		if (i < n && l[i] == ',')
			i++;
	}
	key[kl] = 0;
	return 0;
}

static double number(const char *s, size_t n)
{
	char buf[64];

	n = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return strtod(buf, NULL);
}

static bool is(const char *s, size_t n, const char *base, const char *suffix)
{
	size_t bl = strlen(base), sl = strlen(suffix);
	return n == bl + sl && !memcmp(s, base, bl) && !memcmp(s + bl, suffix, sl);
}

/* "name{labels} value" or "name value". */
static int sample(struct enc *e, const char *l, size_t n)
{
	size_t nl = 0, ls = 0, le_ = 0;

	while (nl < n && l[nl] != '{' && l[nl] != ' ')
		nl++;
	size_t at = nl;
	if (at < n && l[at] == '{') {
		ls = ++at;
		while (at < n && l[at] != '}') {
			if (l[at] == '"')   /* a value: to its closing quote, over escapes */
				for (at++; at < n && l[at] != '"'; at++)
					at += l[at] == '\\';
			at++;
		}
		if (at >= n)
			return -EINVAL;
		le_ = at++;
	}
	if (!nl || at >= n || l[at] != ' ')
		return -EINVAL;
	double v = number(l + at + 1, n - at - 1), le = NAN;
	const char *fn = e->fam.name;
	bool hist = fn && e->fam.type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM;
	int part = !hist ? 0 : is(l, nl, fn, "_bucket") ? 1 : is(l, nl, fn, "_sum") ? 2 : is(l, nl, fn, "_count") ? 3 : 0;
	int ret;
	if (!part && (ret = family(e, l, nl)))
		return ret;
	char *key = zal(e, le_ - ls + 2);
	Metric *m = NULL;
	if (!key)
		return -ENOMEM;
	if (!part) {
		if (!(m = new_metric(e)) || (ret = labels(e, l + ls, le_ - ls, m, key, &le)))
			return m ? ret : -ENOMEM;
		double *val;
		if (e->fam.type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER) {
			if (!(m->counter = zal(e, sizeof(*m->counter))))
				return -ENOMEM;
			io__prometheus__client__counter__init(m->counter);
			m->counter->has_value = 1;
			val = &m->counter->value;
		} else if (e->fam.type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE) {
			if (!(m->gauge = zal(e, sizeof(*m->gauge))))
				return -ENOMEM;
			io__prometheus__client__gauge__init(m->gauge);
			m->gauge->has_value = 1;
			val = &m->gauge->value;
		} else {
			e->fam.type = IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED;
			if (!(m->untyped = zal(e, sizeof(*m->untyped))))
				return -ENOMEM;
			io__prometheus__client__untyped__init(m->untyped);
			m->untyped->has_value = 1;
			val = &m->untyped->value;
		}
		*val = v;
		return 0;
	}
	if ((ret = labels(e, l + ls, le_ - ls, NULL, key, &le)))
		return ret;
	if (e->key && !strcmp(e->key, key)) {
		m = e->fam.metric[e->fam.n_metric - 1];
	} else {
		if (!(m = new_metric(e)) || !(m->histogram = zal(e, sizeof(*m->histogram))))
			return -ENOMEM;
		io__prometheus__client__histogram__init(m->histogram);
		if ((ret = labels(e, l + ls, le_ - ls, m, key, &le)))
			return ret;
		e->key = key;
		e->capbucket = 0;
	}
	Histogram *h = m->histogram;
	if (part == 2) {
		h->has_sample_sum = 1;
		h->sample_sum = v;
	} else if (part == 3) {
		h->has_sample_count = 1;
		h->sample_count = (uint64_t)v;
	} else if (!isinf(le)) {   /* +Inf is the count's */
		Bucket **b = push(e, &h->bucket, &h->n_bucket, &e->capbucket, sizeof(*b));
		if (isnan(le) || !b || !(*b = zal(e, sizeof(**b))))
			return isnan(le) ? -EINVAL : -ENOMEM;
		io__prometheus__client__bucket__init(*b);
		(*b)->has_cumulative_count = (*b)->has_upper_bound = 1;
		(*b)->cumulative_count = (uint64_t)v;
		(*b)->upper_bound = le;
	}
	return 0;
}

/* "<schema> <zero_count> <index>:<count> ...": the native buckets of the
 * histogram series just written, as spans of consecutive indices and
 * each count's difference to the one before. */
static int native(struct enc *e, const char *l, size_t n)
{
	if (!e->fam.n_metric || !e->fam.metric[e->fam.n_metric - 1]->histogram)
		return -EINVAL;
	Histogram *h = e->fam.metric[e->fam.n_metric - 1]->histogram;
	char *s = dup_n(e, l, n), *p;
	size_t nb = 0;
	if (!s)
		return -ENOMEM;
	for (const char *c = s; (c = strchr(c, ':')); c++)
		nb++;
	long schema = strtol(s, &p, 10);
	uint64_t zero = strtoull(p, &p, 10);
	if (!(h->positive_delta = zal(e, nb * sizeof(*h->positive_delta))) ||
	    !(h->positive_span = zal(e, nb * sizeof(*h->positive_span))))
		return -ENOMEM;
	h->has_schema = h->has_zero_threshold = h->has_zero_count = 1;
	h->schema = (int32_t)schema;
	h->zero_threshold = ZERO_THRESHOLD;
	h->zero_count = zero;
	int64_t prev_i = 0;
	uint64_t prev_c = 0;
	for (size_t k = 0; k < nb; k++) {
		long i = strtol(p, &p, 10);
		if (*p++ != ':')
			return -EINVAL;
		uint64_t c = strtoull(p, &p, 10);
		if (!k || i != prev_i + 1) {
			Span *sp = zal(e, sizeof(*sp));
			if (!sp)
				return -ENOMEM;
			io__prometheus__client__bucket_span__init(sp);
			sp->has_offset = sp->has_length = 1;
			sp->offset = (int32_t)(k ? i - prev_i - 1 : i);
			h->positive_span[h->n_positive_span++] = sp;
		}
		h->positive_span[h->n_positive_span - 1]->length++;
		h->positive_delta[h->n_positive_delta++] = (int64_t)(c - prev_c);
		prev_i = i;
		prev_c = c;
	}
	return 0;
}

/* One media range of an Accept header: its q, and whether it is the
 * protobuf exposition or a text one. */
static void media(const char *s, size_t n, double *qpb, double *qtext)
{
	static const char pb[] = "application/vnd.google.protobuf", om[] = "application/openmetrics-text",
			  proto[] = "proto=io.prometheus.client.MetricFamily", delim[] = "encoding=delimited";
	const char *end = s + n, *semi = memchr(s, ';', n);
	size_t tl = semi ? (size_t)(semi - s) : n;
	bool is_proto = false, is_delim = false;
	double q = 1;

	while (tl && isspace((unsigned char)s[tl - 1]))
		tl--;
	for (const char *p = semi; p; ) {
		for (p++; p < end && isspace((unsigned char)*p); p++)
			;
		const char *pe = memchr(p, ';', (size_t)(end - p));
		size_t pl = (size_t)((pe ? pe : end) - p);
		while (pl && isspace((unsigned char)p[pl - 1]))
			pl--;
		if (pl > 2 && !strncasecmp(p, "q=", 2))
			q = number(p + 2, pl - 2);
		is_proto |= pl == sizeof(proto) - 1 && !memcmp(p, proto, pl);
		is_delim |= pl == sizeof(delim) - 1 && !memcmp(p, delim, pl);
		p = pe;
	}
	if (tl == sizeof(pb) - 1 && !strncasecmp(s, pb, tl)) {
		if (is_proto && is_delim && q > *qpb)
			*qpb = q;
	} else if (q > *qtext && ((tl >= 5 && !strncasecmp(s, "text/", 5)) || (tl == 3 && !memcmp(s, "*/*", 3)) ||
				  (tl == sizeof(om) - 1 && !strncasecmp(s, om, tl)))) {
		*qtext = q;
	}
}

bool metrics_wants_pb(const char *req, size_t len)
{
	double qpb = 0, qtext = 0;

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(req + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (req + at)) : len - at;
		if (n >= 7 && !strncasecmp(req + at, "Accept:", 7)) {
			const char *v = req + at + 7, *end = req + at + n;
			while (v < end) {
				while (v < end && (*v == ' ' || *v == '\t'))
					v++;
				const char *c = memchr(v, ',', (size_t)(end - v));
				size_t mn = c ? (size_t)(c - v) : (size_t)(end - v);
				while (mn && (v[mn - 1] == '\r' || v[mn - 1] == ' '))
					mn--;
				media(v, mn, &qpb, &qtext);
				v = c ? c + 1 : end;
			}
		}
		if (n == 0 || (n == 1 && req[at] == '\r'))
			break;   /* the end of the head */
		at += n + 1;
	}
	return qpb > 0 && qpb >= qtext;
}
