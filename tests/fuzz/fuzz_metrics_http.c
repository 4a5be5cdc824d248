/* libFuzzer harness for nfsrdmad's HTTP request handling (src/daemon/metrics_http.c):
 * anything that can reach the metrics port sends hostile bytes.
 *
 * Input: the bytes a client sends, as the daemon's conn_input collects
 * them: at most HTTP_REQ_MAX - 1 bytes; once http_request_complete says the
 * head is there, http_respond builds the answer.  The request is an
 * exactly-sized heap copy (no NUL after it), so ASan sees a read past len.
 *
 * The aggregation behind /metrics is filled once from a real lab capture
 * (tests/captures/nfs3-read-write.pcap, or $FUZZ_METRICS_PCAP) through the
 * project's pcap record source, so a GET /metrics walks real series.
 *
 * Invariants (trap): the response is "HTTP/1.0 NNN ..." with a
 * Content-Length equal to the body that follows (0 body bytes for HEAD);
 * a 200 only answers a GET or HEAD; a complete request always gets a
 * response; never a 500 (the protobuf encoder reads every line the text
 * writers write); a protobuf body (an Accept preferring it) is delimited
 * MetricFamily messages protoc-c's unpacker reads to the last byte. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/prom_metrics.pb-c.h"
#include "src/stats/agg.h"
#include "src/daemon/metrics_http.h"
#include "src/probe/source_table.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct agg *agg;
static uint64_t nrecords;

static void on_record(const struct nfsrdma_record *r, void *ctx)
{
	(void)ctx;
	agg_add(agg, r, r->t_reply_last ? r->t_reply_last : r->t_call_last);
	nrecords++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *cap = getenv("FUZZ_METRICS_PCAP");
	struct agg_config cfg;
	struct source_opts so = { .snaplen = 65535, .sample = 1 };
	struct source *s = NULL;
	char spec[512], err[256];

	(void)argc;
	(void)argv;
	memset(&cfg, 0, sizeof(cfg));   /* defaults, as nfsrdmad without --max-keys */
	agg = agg_new(&cfg);
	if (!agg)
		abort();
	snprintf(spec, sizeof(spec), "pcap:%s", cap ? cap : "tests/captures/nfs3-read-write.pcap");
	if (source_open(&s, spec, &so, on_record, NULL, err, sizeof(err)) < 0) {
		/* run.sh runs from the repository root; elsewhere say so loudly */
		fprintf(stderr, "fuzz_metrics_http: %s: %s (set FUZZ_METRICS_PCAP)\n", spec, err);
		abort();
	}
	int rc;
	while ((rc = source_poll(s, 0)) >= 0)
		;
	source_close(s);
	if (rc != -ENODATA || !nrecords) {
		fprintf(stderr, "fuzz_metrics_http: %s: %d, %llu records\n", spec, rc,
			(unsigned long long)nrecords);
		abort();
	}
	agg_set_external(agg, 0, 0, nrecords, 0, nrecords);
	return 0;
}

/* The method as the client sent it: the first word of the first line
 * (sscanf's %s skips leading white space and stops at white space or a
 * NUL).  0 other, 1 GET, 2 HEAD. */
static int method_of(const char *req, size_t len)
{
	size_t i = 0, j;

	if (len > 299)
		len = 299;   /* http_respond reads the first 299 bytes of the line */
	while (i < len && req[i] != '\n' && isspace((unsigned char)req[i]))
		i++;
	for (j = i; j < len && req[j] && !isspace((unsigned char)req[j]); j++)
		;
	size_t k = j;
	while (k < len && req[k] != '\n' && isspace((unsigned char)req[k]))
		k++;
	if (k == len || req[k] == '\n' || !req[k])
		return 0;   /* no second word on the line: not a request */
	if (j - i == 3 && !memcmp(req + i, "GET", 3))
		return 1;
	return j - i == 4 && !memcmp(req + i, "HEAD", 4) ? 2 : 0;
}

/* Delimited MetricFamily messages, every byte of them. */
static void check_pb(const uint8_t *b, size_t len)
{
	size_t at = 0, families = 0;

	while (at < len) {
		uint64_t sz = 0;
		unsigned sh = 0;
		do {
			if (at == len || sh > 63)
				__builtin_trap();
			sz |= (uint64_t)(b[at] & 0x7f) << sh;
			sh += 7;
		} while (b[at++] & 0x80);
		Io__Prometheus__Client__MetricFamily *f =
			sz <= len - at ? io__prometheus__client__metric_family__unpack(NULL, sz, b + at) : NULL;
		if (!f || !f->name || !f->n_metric)
			__builtin_trap();
		io__prometheus__client__metric_family__free_unpacked(f, NULL);
		at += sz;
		families++;
	}
	if (!families)
		__builtin_trap();
}

static void check_response(const char *req, size_t rlen, const char *out, size_t olen)
{
	static const char pfx[] = "HTTP/1.0 ";
	const char *eoh, *cl;
	char *end;

	if (olen < sizeof(pfx) + 3 || memcmp(out, pfx, sizeof(pfx) - 1))
		__builtin_trap();
	int status = 0;
	for (int i = 0; i < 3; i++) {
		char c = out[sizeof(pfx) - 1 + i];
		if (c < '0' || c > '9')
			__builtin_trap();
		status = status * 10 + (c - '0');
	}
	eoh = memmem(out, olen, "\r\n\r\n", 4);
	cl = memmem(out, olen, "\r\nContent-Length: ", 18);
	if (!eoh || !cl || cl > eoh)
		__builtin_trap();
	unsigned long long n = strtoull(cl + 18, &end, 10);
	if (end == cl + 18 || *end != '\r')
		__builtin_trap();
	size_t body = olen - (size_t)(eoh + 4 - out);
	int m = method_of(req, rlen);
	if (m == 2 ? body != 0 : body != n)
		__builtin_trap();   /* Content-Length must match what follows; HEAD: no body */
	if (status == 200 && !m)
		__builtin_trap();   /* only GET / HEAD succeed */
	if (status == 200 && n == 0)
		__builtin_trap();   /* "/" and "/metrics" are never empty */
	if (status == 500)
		__builtin_trap();   /* the text writers wrote a line the protobuf encoder cannot read */
	const char *ct = memmem(out, (size_t)(eoh - out), "Content-Type: application/vnd.google.protobuf", 45);
	if (status == 200 && m == 1 && ct)
		check_pb((const uint8_t *)eoh + 4, body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > HTTP_REQ_MAX - 1)
		size = HTTP_REQ_MAX - 1;   /* conn_input never holds more */
	/* exactly size bytes on the heap: a read past len is an ASan error */
	char *req = malloc(size ? size : 1);
	if (!req)
		return 0;
	memcpy(req, data, size);
	if (http_request_complete(req, size)) {
		char *out = NULL;
		size_t olen = 0;
		int rc = http_respond(req, size, agg, NULL, NULL, &out, &olen);
		if (rc == 0) {
			if (!out)
				__builtin_trap();
			check_response(req, size, out, olen);
		} else if (rc != -ENOMEM) {
			__builtin_trap();
		}
		free(out);
	}
	free(req);
	return 0;
}
