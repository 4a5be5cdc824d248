/* RPCs in flight now, read from the probes' join maps at each metrics
 * scrape or nfsrdma-top snapshot (docs/probes.md, "RPCs in flight"). */
#ifndef NFSRDMA_PROBE_INFLIGHT_H
#define NFSRDMA_PROBE_INFLIGHT_H

#include "src/probe/inflight_age.h"

struct probe;

/* One pass over each in-flight map of p (bpf_map_lookup_batch, else
 * get_next_key + lookup), tallied into out[0] (client) and out[1]
 * (server), which it adds to.  Returns the slots read or a negative
 * errno (out then holds nothing of this call). */
int probe_inflight(struct probe *p, const struct inflight_limits *l, struct inflight_side out[2]);

#endif
