/* Native histograms and the protobuf exposition (src/stats/hist_native.c,
 * src/daemon/metrics_pb.c):
 *  - the native bucket of a value, at bounds 2^(i/2^s) written out here;
 *  - a histogram's native buckets: every sample in, ascending, each bucket
 *    holding the value nfsrdma-top reports for its samples; Prometheus's
 *    histogram_quantile (linear inside the bucket where the rank falls,
 *    re-implemented here from its documentation) within 2^(1/32) - 1 of
 *    hist_pct at every percentile;
 *  - a hand-written text exposition re-encoded and decoded back with
 *    protoc-c's unpacker: names, help, types, labels (escapes), values,
 *    classic buckets, native spans and deltas as the text says them;
 *    a line the encoder cannot read is -EINVAL;
 *  - Accept: Prometheus 2.42's headers (with and without native
 *    histograms on, as it sends them), q-values, no Accept. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "gen/prom_metrics.pb-c.h"
#include "src/daemon/metrics_pb.h"
#include "src/stats/hist_native.h"

static void index_bounds(void)
{
	/* schema 0: bucket i is (2^(i-1), 2^i] */
	CHECK(hist_native_index(0, 1.0) == 0, "1 in (0.5, 1]");
	CHECK(hist_native_index(0, 1.0000001) == 1, "just over 1 in (1, 2]");
	CHECK(hist_native_index(0, 2.0) == 1, "2 in (1, 2]");
	CHECK(hist_native_index(0, 0.5) == -1, "0.5 in (0.25, 0.5]");
	CHECK(hist_native_index(0, 0.75) == 0, "0.75 in (0.5, 1]");
	/* schema 5: 32 per power of two; 2^(3/32) = 1.067140...  */
	CHECK(hist_native_index(5, 1.0671404006768237) == 3, "2^(3/32) in bucket 3");
	CHECK(hist_native_index(5, 1.0671405) == 4, "just over 2^(3/32) in bucket 4");
	CHECK(hist_native_index(5, 1e-3) == -318, "1 ms: log2(1e-3) * 32 = -318.9 -> bucket -318");
	/* schema -1: buckets of 4x: (1, 4] is 1 */
	CHECK(hist_native_index(-1, 3.0) == 1, "3 in (1, 4]");
}

/* Prometheus's histogram_quantile over native buckets: rank q * count, the
 * first bucket whose cumulative count reaches it, linear inside it. */
static double prom_quantile(const struct hist_native *nh, double q)
{
	double rank = q * (double)nh->count, cum = (double)nh->zero_count;

	if (rank <= cum)
		return 0;
	for (size_t i = 0; i < nh->n; i++) {
		double c = (double)nh->cnt[i];
		if (cum + c >= rank) {
			double lo = exp2((nh->idx[i] - 1) / 32.0), hi = exp2(nh->idx[i] / 32.0);
			return lo + (hi - lo) * (rank - cum) / c;
		}
		cum += c;
	}
	return NAN;
}

static void native_of(void)
{
	struct hist h;
	struct hist_native nh;

	hist_init(&h, HIST_RES);
	CHECK(hist_native_of(&h, 5, &nh) == 0 && nh.count == 0 && nh.n == 0, "empty: no buckets");
	hist_native_free(&nh);
	CHECK(hist_native_of(&h, 9, &nh) == -EINVAL, "schema 9 refused");
	/* 5000 durations from 10 us to ~1 s, log-uniform (an LCG: the same every run) */
	uint64_t x = 12345;
	for (int i = 0; i < 5000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		hist_add(&h, (uint64_t)(1e4 * exp2((double)(x >> 11) / (double)(1ull << 53) * 16.6)));
	}
	hist_add(&h, 0);
	CHECK(hist_native_of(&h, HIST_NATIVE_SCHEMA, &nh) == 0, "native_of");
	uint64_t sum = nh.zero_count;
	bool asc = true;
	for (size_t i = 0; i < nh.n; i++) {
		sum += nh.cnt[i];
		asc &= !i || nh.idx[i] > nh.idx[i - 1];
	}
	CHECK_EQ_U64(nh.count, 5001);
	CHECK_EQ_U64(sum, 5001);
	CHECK_EQ_U64(nh.zero_count, 1);
	CHECK(asc, "indices ascending");
	CHECK(fabs(nh.sum - (double)h.sum / 1e9) < 1e-9, "sum in seconds");
	/* the value top reports at each rank lies in the native bucket holding that rank */
	unsigned off = 0, far = 0;
	double worst = 0;
	for (unsigned k = 1; k <= 999; k++) {
		double q = k / 1000.0, top = (double)hist_pct(&h, q) / 1e9, prom = prom_quantile(&nh, q);
		double d = fabs(prom - top) / top;
		worst = d > worst ? d : worst;
		far += d > exp2(1 / 32.0) - 1;
		/* the bucket where the rank falls holds top's value */
		double rank = q * 5001, cum = (double)nh.zero_count;
		size_t i = 0;
		while (i < nh.n && cum + (double)nh.cnt[i] < rank)
			cum += (double)nh.cnt[i++];
		off += !(i < nh.n && exp2((nh.idx[i] - 1) / 32.0) < top && top <= exp2(nh.idx[i] / 32.0));
	}
	CHECK(off == 0, "%u of 999 percentiles: top's value outside the native bucket of the rank", off);
	CHECK(far == 0, "%u of 999 percentiles: histogram_quantile more than 2.2 %% from top (worst %.2f %%)", far,
	      100 * worst);
	hist_native_free(&nh);
	hist_free(&h);
}

static const char text[] =
	"# HELP c_total A counter.\n# TYPE c_total counter\n"
	"c_total{op=\"READ\",path=\"a\\\\b\\\"c\\nd\"} 42\n"
	"c_total{op=\"WRITE\",path=\"\"} 7\n"
	"# HELP g Help with \\\\ and \\n escaped.\n# TYPE g gauge\ng 3.5\n"
	"# a comment\n"
	"u_no_type{x=\"1\"} 9\n"
	"# HELP h_seconds A histogram.\n# TYPE h_seconds histogram\n"
	"h_seconds_bucket{op=\"READ\",le=\"0.001\"} 2\n"
	"h_seconds_bucket{op=\"READ\",le=\"0.01\"} 5\n"
	"h_seconds_bucket{op=\"READ\",le=\"+Inf\"} 8\n"
	"h_seconds_sum{op=\"READ\"} 0.25\n"
	"h_seconds_count{op=\"READ\"} 8\n"
	"# NATIVE 5 1 -300:2 -299:1 -250:4\n"
	"h_seconds_bucket{op=\"GETATTR\",le=\"0.001\"} 0\n"
	"h_seconds_bucket{op=\"GETATTR\",le=\"0.01\"} 0\n"
	"h_seconds_bucket{op=\"GETATTR\",le=\"+Inf\"} 0\n"
	"h_seconds_sum{op=\"GETATTR\"} 0\n"
	"h_seconds_count{op=\"GETATTR\"} 0\n"
	"# NATIVE 5 0\n";

typedef Io__Prometheus__Client__MetricFamily Family;

/* The delimited messages of buf: a varint length, then a MetricFamily. */
static size_t unpack_all(const uint8_t *buf, size_t len, Family **fam, size_t max)
{
	size_t n = 0;

	for (size_t at = 0; at < len && n < max;) {
		uint64_t sz = 0;
		for (unsigned sh = 0; at < len; sh += 7) {
			sz |= (uint64_t)(buf[at] & 0x7f) << sh;
			if (!(buf[at++] & 0x80))
				break;
		}
		if (sz > len - at || !(fam[n] = io__prometheus__client__metric_family__unpack(NULL, sz, buf + at)))
			return 0;
		n++;
		at += sz;
	}
	return n;
}

static void encode(void)
{
	char *out;
	size_t olen;
	Family *f[8];

	CHECK(metrics_pb_encode(text, sizeof(text) - 1, &out, &olen) == 0, "encode");
	size_t n = unpack_all((const uint8_t *)out, olen, f, 8);
	CHECK_EQ_U64(n, 4);
	if (n != 4) {
		free(out);
		return;
	}
	CHECK_EQ_STR(f[0]->name, "c_total");
	CHECK_EQ_STR(f[0]->help, "A counter.");
	CHECK(f[0]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER, "counter type");
	CHECK_EQ_U64(f[0]->n_metric, 2);
	CHECK(f[0]->metric[0]->counter && f[0]->metric[0]->counter->value == 42, "counter value 42");
	CHECK(f[0]->metric[0]->n_label == 2, "two labels");
	CHECK_EQ_STR(f[0]->metric[0]->label[1]->name, "path");
	CHECK_EQ_STR(f[0]->metric[0]->label[1]->value, "a\\b\"c\nd");
	CHECK_EQ_STR(f[0]->metric[1]->label[1]->value, "");
	CHECK_EQ_STR(f[1]->help, "Help with \\ and \n escaped.");
	CHECK(f[1]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE && f[1]->metric[0]->gauge &&
	      f[1]->metric[0]->gauge->value == 3.5 && f[1]->metric[0]->n_label == 0, "gauge 3.5, no labels");
	CHECK_EQ_STR(f[2]->name, "u_no_type");
	CHECK(f[2]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED && f[2]->metric[0]->untyped &&
	      f[2]->metric[0]->untyped->value == 9, "a sample of no TYPE: untyped 9");
	CHECK(f[3]->type == IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM && f[3]->n_metric == 2, "histogram, 2 series");
	const Io__Prometheus__Client__Histogram *h = f[3]->metric[0]->histogram;
	CHECK(h && f[3]->metric[0]->n_label == 1, "histogram series: op only (le is a bucket's)");
	if (h) {
		CHECK_EQ_U64(h->sample_count, 8);
		CHECK(h->sample_sum == 0.25, "sum 0.25");
		CHECK(h->n_bucket == 2 && h->bucket[0]->upper_bound == 0.001 && h->bucket[0]->cumulative_count == 2 &&
		      h->bucket[1]->upper_bound == 0.01 && h->bucket[1]->cumulative_count == 5,
		      "classic buckets 0.001:2 0.01:5 (+Inf is the count)");
		CHECK(h->has_schema && h->schema == 5 && h->zero_count == 1 && h->zero_threshold > 0, "schema 5, zero 1");
		/* -300:2 -299:1 -250:4: spans (-300, 2), then -298..-251 empty (48) and -250; deltas 2, -1, +3 */
		CHECK(h->n_positive_span == 2 && h->positive_span[0]->offset == -300 && h->positive_span[0]->length == 2 &&
		      h->positive_span[1]->offset == 48 && h->positive_span[1]->length == 1, "spans");
		CHECK(h->n_positive_delta == 3 && h->positive_delta[0] == 2 && h->positive_delta[1] == -1 &&
		      h->positive_delta[2] == 3, "deltas");
	}
	h = f[3]->metric[1]->histogram;
	CHECK(h && h->sample_count == 0 && h->has_schema && h->zero_threshold > 0 && h->n_positive_span == 0,
	      "an empty native histogram still says its schema and zero threshold");
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(f[i], NULL);
	free(out);

	static const char *const bad[] = {
		"x{a=\"1\" 3\n",            /* no closing brace */
		"x{a=1} 3\n",               /* unquoted value */
		"x{a=\"1\"}3\n",            /* no space before the value */
		"# NATIVE 5 0 1:2\n",       /* no histogram before it */
		"# TYPE h histogram\nh_bucket{le=\"x\"} 1\n",   /* a bound that is no number */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(metrics_pb_encode(bad[i], strlen(bad[i]), &out, &olen) == -EINVAL && !out, "bad line %zu refused", i);
	}
}

static bool wants(const char *req)
{
	return metrics_wants_pb(req, strlen(req));
}

static void accept(void)
{
	/* as Prometheus 2.42 sends them: with --enable-feature=native-histograms, and without */
	CHECK(wants("GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: Prometheus/2.42.0+ds\r\nAccept: "
		    "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,"
		    "application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,"
		    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\n\r\n"),
	      "Prometheus 2.42, native histograms on: protobuf");
	CHECK(!wants("GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		     "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n\r\n"),
	      "Prometheus 2.42 default: text");
	CHECK(!wants("GET /metrics HTTP/1.0\r\n\r\n"), "no Accept: text");
	CHECK(!wants("GET /metrics HTTP/1.0\r\nAccept: */*\r\n\r\n"), "*/*: text");
	CHECK(wants("GET /metrics HTTP/1.0\naccept: application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
		    "encoding=delimited\n\n"),
	      "header name in any case, spaces around parameters, bare LF");
	CHECK(!wants("GET /metrics HTTP/1.0\r\nAccept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily"
		     "\r\n\r\n"),
	      "protobuf without encoding=delimited: text");
	CHECK(!wants("GET /metrics HTTP/1.0\r\nAccept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		     "encoding=delimited;q=0.5,text/plain\r\n\r\n"),
	      "text preferred (q 1 over 0.5): text");
	CHECK(!wants("GET /metrics HTTP/1.0\r\nAccept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		     "encoding=delimited;q=0\r\n\r\n"),
	      "protobuf q=0: text");
	CHECK(!wants("GET /metrics HTTP/1.0\r\n\r\nAccept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
		     "encoding=delimited\r\n"),
	      "an Accept after the head's end is not a header");
}

int main(void)
{
	index_bounds();
	native_of();
	encode();
	accept();
	return check_summary("metrics-pb");
}
