/* RPC-over-RDMA version 2: draft-ietf-nfsv4-rpcrdma-version-two-07
 * header types, and the older -00..-02 layout (RDMA2_MSG/NOMSG/ERROR/
 * CONNPROP/GRANT with a flags word), told apart and named.  No public
 * implementation speaks version 2: this decoder is tested only with
 * messages built from the drafts' XDR. */
#ifndef NFSRDMA_RPCRDMA2_H
#define NFSRDMA_RPCRDMA2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/diag.h"
#include "dissect/extract.h"
#include "dissect/rdma_event.h"
#include "dissect/rpcrdma.h"

enum rpcrdma2_layout { RPCRDMA2_DRAFT07 = 7, RPCRDMA2_DRAFT00 = 0 };

enum rpcrdma2_htype {
	R2_ERROR = 4, R2_GRANT = 5, R2_CONNPROP_MIDDLE = 6, R2_CONNPROP_FINAL = 7,
	R2_CALL_EXTERNAL = 8, R2_CALL_MIDDLE = 9, R2_CALL_INLINE = 10,
	R2_REPLY_EXTERNAL = 11, R2_REPLY_MIDDLE = 12, R2_REPLY_INLINE = 13,
};
/* -00..-02 */
enum rpcrdma2_old_type { R2OLD_MSG = 0, R2OLD_NOMSG = 1, R2OLD_ERROR = 4, R2OLD_CONNPROP = 5,
			 R2OLD_GRANT = 6 };

#define RPCRDMA2_MAX_PROPS 16

struct rpcrdma2_hdr {
	uint32_t xid, vers, credits, htype;
	enum rpcrdma2_layout layout;
	uint32_t inv_handle;            /* CALL_*: rdma_inv_handle */
	uint32_t remaining;             /* *_MIDDLE: rdma_remaining */
	uint32_t flags;                 /* -00..-02: the flags word */
	uint32_t err;                   /* ERROR */
	uint32_t err_a, err_b;          /* ERROR details (vers low/high, ...) */
	bool     has_call_chunk;        /* CALL_EXTERNAL: rdma_call (position-zero Read chunk) */
	uint16_t nprops;
	uint32_t prop_id[RPCRDMA2_MAX_PROPS];
	uint32_t prop_val[RPCRDMA2_MAX_PROPS]; /* first word of the value, if any */
	/* chunk lists, in the v1 representation */
	struct rpcrdma_hdr lists;
	bool     has_rpc;               /* an RPC message (or its first part) follows inline */
	size_t   hdr_len;
};

/* Returns 0 or -EBADMSG (the cursor names the field).  Chooses the
 * layout from the header type: values 8..13 exist only in -07; a header
 * whose type is 0/1 carries the old flags word. */
int rpcrdma2_decode(struct rpcrdma2_hdr *h, struct cursor *c);
const char *rpcrdma2_htype_name(const struct rpcrdma2_hdr *h);
const char *rpcrdma2_err_name(uint32_t err);
const char *rpcrdma2_prop_name(uint32_t id);

#endif
