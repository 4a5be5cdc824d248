/* Prometheus text exposition (format 0.0.4) of the aggregation engine,
 * or the protobuf one (metrics_pb.h) with native histograms,
 * named and labelled in node_exporter's style, and the few lines of HTTP
 * needed to serve it (GET /metrics; anything else gets 404/405). */
#ifndef NFSRDMA_METRICS_HTTP_H
#define NFSRDMA_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "src/stats/agg.h"

#define HTTP_REQ_MAX 8192   /* longest request head accepted */

/* a label value escaped per the exposition format: \\ " and newline */
void metrics_label_value(FILE *f, const char *s);
/* True once buf holds a whole request head. */
bool http_request_complete(const char *buf, size_t len);
/* Builds the whole response for the request head in req (malloc'ed into
 * *out): the text exposition, or the protobuf one when the Accept header
 * prefers it (metrics_wants_pb).  Returns 0 or -ENOMEM. */
/* extra (may be NULL) appends more series to /metrics: the daemon's
 * forwarding and collecting counters, its histograms with their native
 * lines when native is set. */
typedef void (*metrics_extra_fn)(FILE *f, void *ctx, bool native);
int http_respond(const char *req, size_t len, const struct agg *a, metrics_extra_fn extra, void *ctx,
		 char **out, size_t *outlen);

#endif
