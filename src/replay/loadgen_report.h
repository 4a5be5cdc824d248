/* The load generator's results and their report (loadgen_report.c): a
 * text row or a JSON object per transfer size, and the sweep's SVG plot. */
#ifndef NFSRDMA_REPLAY_LOADGEN_REPORT_H
#define NFSRDMA_REPLAY_LOADGEN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/replay/loadgen_hist.h"
#include "src/xprt/xprt.h"

/* One measured run (a transfer size of a sweep). */
struct lg_result {
	uint32_t size;
	uint64_t ops, bytes, errors, lost, short_io;
	double secs, cpu_secs;
	struct lhist h;
	uint64_t read_chunks, write_chunks, reply_chunks, inline_calls;
	/* the transport's fast-path work during the run (RDMA) */
	uint64_t doorbells, signaled, inline_sends, recv_posts, sleeps, cq_events, naps;
};

/* What names the runs: "3", "4.1" or "4.2"; the operation; the
 * transport; the queue depth. */
struct lg_label {
	const char *vers, *op, *xprt;
	unsigned qd;
};

/* The text table: its header before the first row. */
void lg_print_row(const struct lg_label *l, const struct lg_result *r, FILE *out, bool first);
/* --json: one object on one line: the target, the version, a result per
 * run with a size (res[0..n)), the server's rtmax/wtmax and the
 * transport's counters (x). */
void lg_print_json(FILE *out, const char *target, const struct lg_label *l, const struct lg_result *res,
		   unsigned n, uint32_t rtmax, uint32_t wtmax, const struct xprt *x);
/* --svg: MB/s against the transfer size of the n runs.  0, or -EIO with
 * one line said. */
int lg_write_svg(const char *path, const struct lg_label *l, const struct lg_result *res, unsigned n);

#endif
