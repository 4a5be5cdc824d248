/* One RPC's records from several vantages, made one fused record: every
 * time on one clock, the end-to-end phases (docs/record.md "Fused
 * phases").  No state: the join hands it the records and the offsets. */
#ifndef NFSRDMA_JOIN_FUSE_H
#define NFSRDMA_JOIN_FUSE_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/record.h"

enum { JV_CLIENT, JV_WIRE, JV_SERVER, JV_N };   /* vantage index; bit = 1 << index */

/* How to bring a vantage's times onto the fused record's clock:
 * t_ref = t + add_ns.  known false: no estimate (its boundaries are left
 * out, the phases around them merged). */
struct fuse_clock {
	int64_t  add_ns;
	uint64_t uncertainty_ns;
	bool     known, bounded;
	uint32_t steps;
};

/* The vantage's own times of a record of any version (older records
 * carry them in t_* and the kernel fields): 0 = not seen. */
void fuse_client_times(const struct nfsrdma_record *r, uint64_t t[RCT_N]);
void fuse_server_times(const struct nfsrdma_record *r, uint64_t t[RST_N]);

/* in[v]: the record of vantage v or NULL (at least one); clk[v] for those
 * present (the reference vantage's add_ns is 0).  Fills out. */
void fuse_records(const struct nfsrdma_record *const in[JV_N], const struct fuse_clock clk[JV_N],
		  struct nfsrdma_record *out);
/* The fused phases from out's vt_* and wire t_* (already on one clock). */
void fuse_derive(struct nfsrdma_record *r);

#endif
