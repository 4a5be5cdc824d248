/* Prometheus exposition of the aggregation engine (see metrics_http.h).
 * Counters are since start (Prometheus computes rates itself); the
 * duration histogram's classic buckets have fixed bounds (agg_prom_le)
 * counted exactly per record; its native buckets (protobuf only) are the
 * log-linear histogram every tool takes its percentiles from
 * (hist_native.h). */
#include "src/daemon/metrics_http.h"
#include "src/daemon/metrics_pb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Label value escaping per the exposition format: \ " and newline. */
void metrics_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* transport: rdma, tcp or udp (record.h's names, as the records' JSON
 * and the -z transport summary say them), so the same operation over
 * RDMA and over TCP are two series, never one. */
static void transport_label(FILE *f, const struct agg_ent *e, bool known)
{
	fputs(",transport=\"", f);
	metrics_label_value(f, known ? rec_transport_name(e->transport) : "other");
	fputc('"', f);
}

static void series_labels(FILE *f, const struct agg_ent *e)
{
	fputs("protocol=\"", f);
	metrics_label_value(f, e->label[1][0] ? e->label[0] : "other");
	fputs("\",operation=\"", f);
	metrics_label_value(f, e->label[1][0] ? e->label[1] : "other");
	fputs("\",client=\"", f);
	metrics_label_value(f, e->label[1][0] ? e->label[2] : "other");
	fputs("\",server=\"", f);
	metrics_label_value(f, e->label[1][0] ? e->label[3] : "other");
	fputc('"', f);
	transport_label(f, e, e->label[1][0]);
}

static void op_labels(FILE *f, const struct agg_ent *e)
{
	fputs("protocol=\"", f);
	metrics_label_value(f, e->label[1][0] ? e->label[0] : "other");
	fputs("\",operation=\"", f);
	metrics_label_value(f, e->label[1][0] ? e->label[1] : "other");
	fputc('"', f);
	transport_label(f, e, e->label[1][0]);
}

/* A connection: its id, the client's and server's addresses (the same
 * client/server labels as the RPC series) and QP numbers; "other" for the
 * row that collects connections past --max-keys. */
static void conn_labels(FILE *f, const struct agg_ent *e)
{
	if (!e->label[2][0]) {
		fputs("conn=\"other\",client=\"other\",client_qp=\"other\",server=\"other\",server_qp=\"other\"", f);
		transport_label(f, e, false);
		return;
	}
	fprintf(f, "conn=\"%u\",client=\"", e->conn_id);
	metrics_label_value(f, e->label[2]);
	fprintf(f, "\",client_qp=\"%u\",server=\"", e->qpn_client);
	metrics_label_value(f, e->label[3]);
	fprintf(f, "\",server_qp=\"%u\"", e->qpn_server);
	transport_label(f, e, true);
}

static void help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

typedef uint64_t (*count_fn)(const struct agg_ent *e);
static uint64_t c_records(const struct agg_ent *e) { return e->tot.records; }
static uint64_t c_errors(const struct agg_ent *e) { return e->tot.errors; }
static uint64_t c_noreply(const struct agg_ent *e) { return e->tot.noreply; }
static uint64_t c_findings(const struct agg_ent *e) { return e->tot.findings; }
static uint64_t c_inline(const struct agg_ent *e) { return e->tot.bytes_inline; }
static uint64_t c_ddp(const struct agg_ent *e) { return e->tot.bytes_ddp; }

static void per_series(FILE *f, const struct agg *a, const char *name, const char *text, count_fn fn)
{
	help(f, name, "counter", text);
	for (size_t i = 0; i < agg_count(a, AGG_SERIES); i++) {
		const struct agg_ent *e = agg_entry(a, AGG_SERIES, i);
		fprintf(f, "%s{", name);
		series_labels(f, e);
		fprintf(f, "} %" PRIu64 "\n", fn(e));
	}
}

/* native: each histogram series followed by its native buckets' line
 * (metrics_pb.h), for the protobuf exposition only. */
static void metrics_write(FILE *f, const struct agg *a, bool native)
{
	const struct agg_totals *t = agg_totals(a);

	per_series(f, a, "nfsrdma_rpc_requests_total", "RPCs completed (call and reply, or flushed unanswered).", c_records);
	per_series(f, a, "nfsrdma_rpc_errors_total", "RPCs answered with an RPC or program error status.", c_errors);
	per_series(f, a, "nfsrdma_rpc_unanswered_total", "RPCs whose reply was never seen.", c_noreply);
	per_series(f, a, "nfsrdma_rpc_findings_total", "RPCs with at least one conformance finding.", c_findings);
	per_series(f, a, "nfsrdma_rpc_inline_bytes_total", "Bytes sent inline (RDMA SEND payloads, call and reply).", c_inline);
	per_series(f, a, "nfsrdma_rpc_rdma_bytes_total", "Bytes moved by RDMA READ and WRITE (chunks).", c_ddp);

	help(f, "nfsrdma_rpc_duration_seconds", "histogram", "RPC latency, first call packet to last reply packet.");
	for (size_t i = 0; i < agg_count(a, AGG_SERIES); i++) {
		const struct agg_ent *e = agg_entry(a, AGG_SERIES, i);
		uint64_t cum = 0;
		for (int b = 0; b <= AGG_PROM_NLE; b++) {
			cum += e->prom[b];
			fputs("nfsrdma_rpc_duration_seconds_bucket{", f);
			series_labels(f, e);
			if (b < AGG_PROM_NLE)
				fprintf(f, ",le=\"%g\"} %" PRIu64 "\n", agg_prom_le[b], cum);
			else
				fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", cum);
		}
		fputs("nfsrdma_rpc_duration_seconds_sum{", f);
		series_labels(f, e);
		fprintf(f, "} %.9f\n", (double)e->tot.lat_sum / 1e9);
		fputs("nfsrdma_rpc_duration_seconds_count{", f);
		series_labels(f, e);
		fprintf(f, "} %" PRIu64 "\n", e->tot.lat_n);
		metrics_native_line(f, &e->lat, native);
	}

	help(f, "nfsrdma_rpc_phase_seconds_total", "counter",
	     "Time spent per latency phase of answered RPCs (docs/record.md): call, queue, pull, server, queue+server (no pull), push, wait, reply; they sum to nfsrdma_rpc_duration_seconds_sum.");
	for (size_t i = 0; i < agg_count(a, AGG_OP); i++) {
		const struct agg_ent *e = agg_entry(a, AGG_OP, i);
		for (int p = 0; p < PH_N; p++) {
			/* a phase none of the operation's RPCs had is no series,
			 * not one of 0 s (over TCP: pull, push, wait) */
			if (!(e->phase_seen & 1u << p))
				continue;
			fputs("nfsrdma_rpc_phase_seconds_total{", f);
			op_labels(f, e);
			fprintf(f, ",phase=\"%s\"} %.9f\n", rec_phase_name(p), (double)e->tot.phase_sum[p] / 1e9);
		}
	}
	help(f, "nfsrdma_rpc_chunks_total", "counter", "RPCs by chunk mix: inline, read, write, reply, p0 (position-zero Read).");
	for (size_t i = 0; i < agg_count(a, AGG_OP); i++) {
		const struct agg_ent *e = agg_entry(a, AGG_OP, i);
		for (int m = 0; m < MIX_N; m++) {
			fputs("nfsrdma_rpc_chunks_total{", f);
			op_labels(f, e);
			fprintf(f, ",chunk=\"%s\"} %" PRIu64 "\n", agg_mix_name[m], e->tot.mix[m]);
		}
	}
	help(f, "nfsrdma_connection_credits", "gauge", "Credits the server last granted on the connection.");
	for (size_t i = 0; i < agg_count(a, AGG_CONN); i++) {
		const struct agg_ent *e = agg_entry(a, AGG_CONN, i);
		fputs("nfsrdma_connection_credits{", f);
		conn_labels(f, e);
		fprintf(f, "} %u\n", e->credits_granted);
	}
	help(f, "nfsrdma_connection_requests_total", "counter", "RPCs completed per connection.");
	for (size_t i = 0; i < agg_count(a, AGG_CONN); i++) {
		const struct agg_ent *e = agg_entry(a, AGG_CONN, i);
		fputs("nfsrdma_connection_requests_total{", f);
		conn_labels(f, e);
		fprintf(f, "} %" PRIu64 "\n", e->tot.records);
	}
	help(f, "nfsrdma_findings_total", "counter", "Conformance findings by rule (dissect/check.h).");
	for (unsigned id = 0; id < AGG_FINDINGS; id++) {
		if (!t->findings_by_id[id])
			continue;
		fprintf(f, "nfsrdma_findings_total{finding=\"%u\"} %" PRIu64 "\n", id, t->findings_by_id[id]);
	}
	help(f, "nfsrdma_records_total", "counter", "Records aggregated.");
	fprintf(f, "nfsrdma_records_total %" PRIu64 "\n", t->tot.records);
	help(f, "nfsrdma_dropped_records_total", "counter",
	     "Records lost: queue = daemon queue full, source = lost before user space or evicted unanswered.");
	fprintf(f, "nfsrdma_dropped_records_total{reason=\"queue\"} %" PRIu64 "\n", t->drops_queue);
	fprintf(f, "nfsrdma_dropped_records_total{reason=\"source\"} %" PRIu64 "\n", t->drops_source);
	help(f, "nfsrdma_overflow_records_total", "counter", "Records folded into an \"other\" row because a dimension was full.");
	for (int d = 0; d < AGG_NDIM; d++)
		fprintf(f, "nfsrdma_overflow_records_total{dimension=\"%s\"} %" PRIu64 "\n", agg_dim_name[d],
			t->overflow[d]);
	help(f, "nfsrdma_source_events_total", "counter", "Raw events (packets, probe events) the sources consumed.");
	fprintf(f, "nfsrdma_source_events_total %" PRIu64 "\n", t->source_events);
	help(f, "nfsrdma_source_records_total", "counter", "Records the sources produced (aggregated + dropped in the queue).");
	fprintf(f, "nfsrdma_source_records_total %" PRIu64 "\n", t->source_records);
	help(f, "nfsrdma_source_errors_total", "counter", "Bad input the sources reported and skipped.");
	fprintf(f, "nfsrdma_source_errors_total %" PRIu64 "\n", t->source_errors);
	help(f, "nfsrdma_aggregation_memory_bytes", "gauge", "Memory held by the aggregation engine.");
	fprintf(f, "nfsrdma_aggregation_memory_bytes %zu\n", agg_memory(a));
}

bool http_request_complete(const char *buf, size_t len)
{
	return memmem(buf, len, "\r\n\r\n", 4) || memmem(buf, len, "\n\n", 2);
}

static int reply(char **out, size_t *outlen, const char *status, const char *ctype, const char *body,
		 size_t blen, bool head_only)
{
	FILE *f = open_memstream(out, outlen);

	if (!f)
		return -ENOMEM;
	fprintf(f, "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		status, ctype, blen);
	if (!head_only)
		fwrite(body, 1, blen, f);
	return fclose(f) ? -ENOMEM : 0;
}

int http_respond(const char *req, size_t len, const struct agg *a, metrics_extra_fn extra, void *ctx,
		 char **out, size_t *outlen)
{
	char method[16] = "", path[256] = "";
	const char *eol = memchr(req, '\n', len);
	char line[300];
	size_t ll = eol ? (size_t)(eol - req) : len;

	if (ll >= sizeof(line))
		ll = sizeof(line) - 1;
	memcpy(line, req, ll);
	line[ll] = 0;
	if (sscanf(line, "%15s %255s", method, path) != 2)
		return reply(out, outlen, "400 Bad Request", "text/plain", "bad request\n", 12, false);
	bool head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head)
		return reply(out, outlen, "405 Method Not Allowed", "text/plain", "GET only\n", 9, false);
	char *q = strchr(path, '?');
	if (q)
		*q = 0;
	if (!strcmp(path, "/")) {
		static const char idx[] = "<html><head><title>nfsrdmad</title></head><body>"
					  "<a href=\"/metrics\">Metrics</a></body></html>\n";
		return reply(out, outlen, "200 OK", "text/html", idx, sizeof(idx) - 1, head);
	}
	if (strcmp(path, "/metrics"))
		return reply(out, outlen, "404 Not Found", "text/plain", "not found\n", 10, head);
	char *body = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&body, &blen);
	if (!f)
		return -ENOMEM;
	/* the protobuf exposition is the text one re-encoded (metrics_pb.h) */
	bool pb = metrics_wants_pb(req, len);
	metrics_write(f, a, pb);
	if (extra)
		extra(f, ctx, pb);
	if (fclose(f)) {
		free(body);
		return -ENOMEM;
	}
	if (pb) {
		char *text = body;
		size_t tlen = blen;
		int rc = metrics_pb_encode(text, tlen, &body, &blen);
		free(text);
		if (rc == -EINVAL)
			return reply(out, outlen, "500 Internal Server Error", "text/plain", "bad exposition\n", 15, head);
		if (rc)
			return rc;
	}
	int ret = reply(out, outlen, "200 OK", pb ? METRICS_PB_CTYPE : "text/plain; version=0.0.4; charset=utf-8", body,
			blen, head);
	free(body);
	return ret;
}
