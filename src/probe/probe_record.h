/* From a kernel probe_event (bpf/probe.h) to the project's per-XID record
 * (dissect/record.h), and the probe-specific JSON views: the raw event with
 * every timestamp and the kernel's own numbers, and the per-op histogram
 * summary.  docs/probes.md says which record field comes from which event. */
#ifndef NFSRDMA_PROBE_RECORD_H
#define NFSRDMA_PROBE_RECORD_H

#include <stdio.h>

#include "bpf/probe.h"
#include "dissect/record.h"
#include "src/probe/probe_load.h"

void probe_to_record(const struct probe_event *e, struct nfsrdma_record *r);
/* RPC program number for the name a tracepoint gives (client progname
 * "nfs", server service "nfsd"); 0 if unknown. */
uint32_t probe_prog_number(const char *name, unsigned side);
/* One JSON line: the raw event (absolute ns timestamps, kernel us values). */
void probe_event_json(FILE *f, const struct probe_event *e);
/* probe_event_fn adapter: writes probe_event_json to the FILE * in ctx. */
void probe_event_json_cb(const struct probe_event *e, void *file);
/* One JSON line: {"summary":...} per-op histograms + counters. */
void probe_summary_json(FILE *f, const struct probe_hist_row *rows, int n,
			const uint64_t counters[PST_MAX], const char *unavailable);

#endif
