/* What a joined record can say for certain about where its time went:
 * the clock-free network segments on each side of the capture point,
 * whether the clocks resolve the direction of its one-way phases, and
 * the place (or the places the data cannot tell apart) that holds most
 * of its time.  docs/record.md "Segments and the verdict". */
#ifndef NFSRDMA_JOIN_VERDICT_H
#define NFSRDMA_JOIN_VERDICT_H

#include <stdint.h>

#include "dissect/record.h"

/* After fuse_derive's phases: vs[b] is the vantage (JV_*) that gave
 * fused boundary b (b = 0 .. REC_FP_N), for the boundaries it kept.
 * Sets f_seg*, f_dir_unc_ns (and merges net_out with net_back when the
 * clocks cannot split them), f_place and the verdict. */
void verdict_derive(struct nfsrdma_record *r, const uint8_t vs[REC_FP_N + 1]);


#endif
