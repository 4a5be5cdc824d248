/* Prometheus histograms of the collector's fused records: one per fused
 * phase (src/join/fuse.h; a merged span is one phase named by its parts,
 * "server_queue+pull+execute") and one of the fused total, per series
 * (protocol, operation, client, server, transport: the labels of
 * nfsrdma_rpc_duration_seconds), with its bounds (agg_prom_le) and, in
 * the protobuf exposition, native buckets (hist_native.h).  With
 * the same labels: the clock-free segments' sums and counts
 * (nfsrdma_rpc_segment_seconds_total, nfsrdma_rpc_segment_rpcs_total
 * {segment}), the places' time (nfsrdma_rpc_place_seconds_total{place})
 * and the RPCs' verdicts (nfsrdma_rpc_verdict_total{place}).  Counts
 * since start; at most COLL_HIST_MAX series, the rest in one "other". */
#ifndef NFSRDMA_COLL_HIST_H
#define NFSRDMA_COLL_HIST_H

#include <stdbool.h>
#include <stdio.h>

#include "dissect/record.h"

#define COLL_HIST_MAX 4096

struct coll_hist;
struct coll_hist *coll_hist_new(void);
void coll_hist_free(struct coll_hist *h);
/* A fused record (source joined); others are ignored. */
void coll_hist_add(struct coll_hist *h, const struct nfsrdma_record *r);
/* native: with each histogram series' native buckets (metrics_pb.h) */
void coll_hist_write(const struct coll_hist *h, FILE *f, bool native);

#endif
