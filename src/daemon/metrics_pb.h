/* Prometheus's protobuf exposition (delimited io.prometheus.client.
 * MetricFamily messages), the only one through which a Prometheus 2.x
 * takes native histograms.  The series are written once, as the text
 * exposition (metrics_http.c and the daemon's extras); this re-encodes
 * that text, so the two formats cannot disagree on a name, label or
 * value.  A histogram written with native = true follows each series'
 * _count with one line the text format never carries,
 *   # NATIVE <schema> <zero_count> <index>:<count> ...
 * (hist_native.h's buckets, ascending), which becomes the series' native
 * buckets beside its classic ones. */
#ifndef NFSRDMA_METRICS_PB_H
#define NFSRDMA_METRICS_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "src/stats/hist.h"

#define METRICS_PB_CTYPE "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"

/* The # NATIVE line of h (nothing when native is false). */
void metrics_native_line(FILE *f, const struct hist *h, bool native);
/* The text exposition text[0..len) as protobuf, malloc'ed into *out;
 * 0, -EINVAL (a line it cannot read: a writer's bug) or -ENOMEM. */
int metrics_pb_encode(const char *text, size_t len, char **out, size_t *outlen);
/* True when the request head's Accept prefers the protobuf exposition
 * (proto=io.prometheus.client.MetricFamily, encoding=delimited) to every
 * text type it lists; no Accept, or any other client: text. */
bool metrics_wants_pb(const char *req, size_t len);

#endif
