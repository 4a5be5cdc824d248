/* The load generator's report: a text row or a JSON result per transfer
 * size (through the one JSON writer), and the sweep's SVG plot of MB/s
 * against the transfer size.  See loadgen_report.h. */
#include "src/replay/loadgen_report.h"

#include <errno.h>
#include <inttypes.h>

#include "src/base/json.h"
#include "src/base/log.h"
#include "src/base/outfile.h"

static double per_s(uint64_t v, double secs)
{
	return secs > 0 ? (double)v / secs : 0;
}

void lg_print_row(const struct lg_label *l, const struct lg_result *r, FILE *out, bool first)
{
	double cpu_mb = r->bytes ? r->cpu_secs * 1e3 / ((double)r->bytes / 1e6) : 0;
	if (first)
		fprintf(out, "%-11s %-4s %8s %3s %9s %9s %9s %9s %9s %9s %9s %7s %8s\n", "op", "xprt",
			"size", "qd", "ops", "IOPS", "MB/s", "p50us", "p99us", "p99.9us", "maxus",
			"errors", "cpu-ms/MB");
	fprintf(out, "%-11s %-4s %8u %3u %9" PRIu64 " %9.0f %9.2f %9.1f %9.1f %9.1f %9.1f %7" PRIu64
		" %8.2f\n", l->op, l->xprt, r->size, l->qd, r->ops, per_s(r->ops, r->secs),
		per_s(r->bytes, r->secs) / 1e6, (double)lhist_pct(&r->h, 50) / 1e3,
		(double)lhist_pct(&r->h, 99) / 1e3, (double)lhist_pct(&r->h, 99.9) / 1e3,
		(double)r->h.max / 1e3, r->errors, cpu_mb);
}

static void result(struct jw *j, const struct lg_label *l, const struct lg_result *r)
{
	static const char *const lat[] = { "min_ns", "p50_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns" };
	static const char *const chunks[] = { "read", "write", "reply", "inline_calls" };
	static const char *const xp[] = { "doorbells", "signaled", "inline_sends", "recv_posts", "sleeps",
					  "cq_events", "naps" };
	jw_lit(j, "{\"op\":");
	jw_str(j, l->op);
	JW_KEY(j, "transport");
	jw_str(j, l->xprt);
	JW_KEY(j, "size");
	jw_u(j, r->size);
	JW_KEY(j, "qd");
	jw_u(j, l->qd);
	JW_KEY(j, "ops");
	jw_u(j, r->ops);
	JW_KEY(j, "bytes");
	jw_u(j, r->bytes);
	JW_KEY(j, "errors");
	jw_u(j, r->errors);
	JW_KEY(j, "lost");
	jw_u(j, r->lost);
	JW_KEY(j, "seconds");
	jw_fixed(j, r->secs, 3);
	JW_KEY(j, "iops");
	jw_fixed(j, per_s(r->ops, r->secs), 1);
	JW_KEY(j, "mb_per_s");
	jw_fixed(j, per_s(r->bytes, r->secs) / 1e6, 3);
	const uint64_t lv[] = { r->h.min, lhist_pct(&r->h, 50), lhist_pct(&r->h, 99), lhist_pct(&r->h, 99.9),
				r->h.max, r->h.n ? r->h.sum / r->h.n : 0 };
	jw_lit(j, ",\"latency\":{");
	jw_counts(j, lat, lv, 6, false);
	jw_lit(j, "},\"cpu_ms_per_mb\":");
	jw_fixed(j, r->bytes ? r->cpu_secs * 1e3 / ((double)r->bytes / 1e6) : 0, 3);
	JW_KEY(j, "cpu_us_per_op");
	jw_fixed(j, r->ops ? r->cpu_secs * 1e6 / (double)r->ops : 0, 2);
	const uint64_t cv[] = { r->read_chunks, r->write_chunks, r->reply_chunks, r->inline_calls };
	jw_lit(j, ",\"chunks\":{");
	jw_counts(j, chunks, cv, 4, false);
	const uint64_t xv[] = { r->doorbells, r->signaled, r->inline_sends, r->recv_posts, r->sleeps,
				r->cq_events, r->naps };
	jw_lit(j, "},\"xprt\":{");
	jw_counts(j, xp, xv, 7, false);
	jw_lit(j, "}}");
}

void lg_print_json(FILE *out, const char *target, const struct lg_label *l, const struct lg_result *res,
		   unsigned n, uint32_t rtmax, uint32_t wtmax, const struct xprt *x)
{
	struct jw jb, *j = &jb;
	jw_init(j, out);
	jw_lit(j, "{\"target\":");
	jw_str(j, target);
	JW_KEY(j, "vers");
	jw_str(j, l->vers);
	jw_lit(j, ",\"results\":[");
	bool first = true;
	for (unsigned i = 0; i < n; i++) {
		if (!res[i].size)
			continue;
		if (!first)
			jw_c(j, ',');
		first = false;
		result(j, l, &res[i]);
	}
	jw_lit(j, "],\"server\":{\"rtmax\":");
	jw_u(j, rtmax);
	JW_KEY(j, "wtmax");
	jw_u(j, wtmax);
	jw_lit(j, "},\"transport\":{\"name\":");
	jw_str(j, x->ops->name);
	JW_KEY(j, "inline_send");
	jw_u(j, x->st.inline_send);
	JW_KEY(j, "inline_recv");
	jw_u(j, x->st.inline_recv);
	JW_KEY(j, "credits_asked");
	jw_u(j, x->st.credits_asked);
	JW_KEY(j, "credits_granted");
	jw_u(j, x->st.credits_granted);
	JW_KEY(j, "reconnects");
	jw_u(j, x->st.reconnects);
	JW_KEY(j, "rdma_errors");
	jw_u(j, x->st.rdma_errors);
	JW_KEY(j, "lost");
	jw_u(j, x->st.lost);
	jw_lit(j, "}}\n");
	jw_flush(j);
}

int lg_write_svg(const char *path, const struct lg_label *l, const struct lg_result *res, unsigned n)
{
	struct outfile of;
	char err[512];
	if (outfile_open(&of, path, err, sizeof(err)) < 0) {
		log_error("--svg %s", err);
		return -EIO;
	}
	FILE *f = of.f;
	double maxy = 0;
	for (unsigned i = 0; i < n; i++) {
		double mbs = res[i].secs > 0 ? (double)res[i].bytes / res[i].secs / 1e6 : 0;
		if (mbs > maxy)
			maxy = mbs;
	}
	if (maxy <= 0)
		maxy = 1;
	const int W = 640, H = 400, L = 70, R = 20, T = 40, B = 60;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">NFSv%s %s over %s, "
		"QD %u: throughput vs transfer size</text>\n", W / 2,
		l->vers, l->op, l->xprt, l->qd);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T, L, H - B);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">transfer size (bytes)</text>\n",
		(L + W - R) / 2, H - 15);
	fprintf(f, "<text x=\"15\" y=\"%d\" transform=\"rotate(-90 15 %d)\" text-anchor=\"middle\">"
		"MB/s</text>\n", (T + H - B) / 2, (T + H - B) / 2);
	for (int t = 0; t <= 4; t++) {
		double v = maxy * t / 4;
		int y = H - B - (int)((H - B - T) * t / 4);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f</text>\n", L - 5, y + 4, v);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", L, y, W - R, y);
	}
	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"");
	for (unsigned i = 0; i < n; i++) {
		double mbs = res[i].secs > 0 ? (double)res[i].bytes / res[i].secs / 1e6 : 0;
		int x = L + (n > 1 ? (int)((W - L - R) * i / (n - 1)) : (W - L - R) / 2);
		int y = H - B - (int)((H - B - T) * mbs / maxy);
		fprintf(f, "%d,%d ", x, y);
	}
	fprintf(f, "\"/>\n");
	for (unsigned i = 0; i < n; i++) {
		double mbs = res[i].secs > 0 ? (double)res[i].bytes / res[i].secs / 1e6 : 0;
		int x = L + (n > 1 ? (int)((W - L - R) * i / (n - 1)) : (W - L - R) / 2);
		int y = H - B - (int)((H - B - T) * mbs / maxy);
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#1f77b4\"/>\n", x, y);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%u</text>\n", x, H - B + 16,
			res[i].size);
	}
	fprintf(f, "</svg>\n");
	int rc = outfile_close(&of, err, sizeof(err));
	if (rc < 0)
		log_error("--svg %s", err);
	return rc;
}
