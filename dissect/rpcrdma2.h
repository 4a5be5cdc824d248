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

enum rpcrdma2_layout { RPCRDMA2_UNKNOWN = 0, RPCRDMA2_DRAFT00 = 1, RPCRDMA2_DRAFT07 = 7 };

enum rpcrdma2_htype {
	R2_ERROR = 4, R2_GRANT = 5, R2_CONNPROP_MIDDLE = 6, R2_CONNPROP_FINAL = 7,
	R2_CALL_EXTERNAL = 8, R2_CALL_MIDDLE = 9, R2_CALL_INLINE = 10,
	R2_REPLY_EXTERNAL = 11, R2_REPLY_MIDDLE = 12, R2_REPLY_INLINE = 13,
};
/* -00..-02 (GRANT from -02 on) */
enum rpcrdma2_old_type { R2OLD_MSG = 0, R2OLD_NOMSG = 1, R2OLD_ERROR = 4, R2OLD_CONNPROP = 5,
			 R2OLD_GRANT = 6 };
enum rpcrdma2_old_flags { R2OLD_F_RESPONSE = 1, R2OLD_F_MORE = 2, R2OLD_F_TPMORE = 4 };
/* rdma_err (both layouts; VERS_MISMATCH from -04 on) */
enum rpcrdma2_err {
	R2ERR_VERS = 1, R2ERR_BAD_XDR = 2, R2ERR_BAD_PROPVAL = 3, R2ERR_INVAL_HTYPE = 4,
	R2ERR_INVAL_CONT = 5, R2ERR_READ_CHUNKS = 6, R2ERR_WRITE_CHUNKS = 7, R2ERR_SEGMENTS = 8,
	R2ERR_WRITE_RESOURCE = 9, R2ERR_REPLY_RESOURCE = 10, R2ERR_VERS_MISMATCH = 11,
	R2ERR_SYSTEM = 100,
};
/* Transport property ids (-07 section 5.2) */
enum rpcrdma2_propid { R2PROP_SBSIZ = 1, R2PROP_RBSIZ = 2, R2PROP_RSSIZ = 3, R2PROP_RCSIZ = 4,
		       R2PROP_BRS = 5, R2PROP_HOSTAUTH = 6 };

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
 * layout from the header type (0/1 only in -00..-02, 7..13 only in -07);
 * for the types both layouts define (4, 5, 6) the connection's layout
 * `hint` decides when known (RPCRDMA2_UNKNOWN otherwise), else the
 * message's shape. */
int rpcrdma2_decode(struct rpcrdma2_hdr *h, struct cursor *c, enum rpcrdma2_layout hint);
/* The message goes Responder -> Requester (reply, error). */
bool rpcrdma2_is_reply(const struct rpcrdma2_hdr *h);
/* A continued message: more of the same RPC follows in the next SEND
 * (CALL_MIDDLE / REPLY_MIDDLE; RDMA2_MSG with F_MORE in -00..-02). */
bool rpcrdma2_is_middle(const struct rpcrdma2_hdr *h);
const char *rpcrdma2_htype_name(const struct rpcrdma2_hdr *h);
const char *rpcrdma2_err_name(uint32_t err);
const char *rpcrdma2_prop_name(uint32_t id);

#endif
