/* The forwarding and collecting counters in the daemon's outputs: the
 * Prometheus series, the JSON summary's "forward" / "collect" / "join"
 * members and the text summary's lines.  Labels are the same everywhere:
 * peer (the other side's address), host (the name a forwarder sends). */
#ifndef NFSRDMA_FWD_REPORT_H
#define NFSRDMA_FWD_REPORT_H

#include <stdio.h>

#include "src/daemon/coll_join.h"
#include "src/daemon/fwd_link.h"
#include "src/stats/agg.h"

void fwd_report_metrics(FILE *f, const struct forwarder *fw, struct collector *col);
/* ,"forward":{...},"collect":{...},"join":{...} for what is on (nothing if neither) */
struct jw;
void fwd_report_json(struct jw *j, const struct forwarder *fw, struct collector *col, const struct coll_join *cj);
void fwd_report_text(FILE *f, const struct forwarder *fw, struct collector *col);
/* The links into a snapshot for nfsrdma-top (the L lines of the protocol). */
void fwd_report_links(struct agg_snap *snap, const struct forwarder *fw, struct collector *col);

#endif
