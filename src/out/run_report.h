/* What a decode run saw, for the user: the --stats counters, and when it
 * found no RPC at all, one line saying what the input held instead, so an
 * empty output is never silent. */
#ifndef NFSRDMA_RUN_REPORT_H
#define NFSRDMA_RUN_REPORT_H

#include <stdio.h>

#include "dissect/dissect.h"
#include "dissect/transport.h"

/* EXIT_NOTHING_FOUND: a run that read its input but found nothing to
 * show (no RPC, or none that the filters kept). */
#include "src/base/exit.h"

void run_report_stats(FILE *f, const struct dissect_stats *s, const struct transport_stats *t);
/* Into buf, one line without newline: "FILE: no RPC found (RDMA, TCP or
 * UDP) in N frames: ..." naming what was there instead. */
void run_report_nothing(char *buf, size_t len, const char *file, const struct dissect_stats *s,
			const struct transport_stats *t);

#endif
