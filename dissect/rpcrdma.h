/* RPC-over-RDMA version 1 (RFC 8166) transport header: fixed fields,
 * procedure, Read list, Write list and Reply chunk. */
#ifndef NFSRDMA_RPCRDMA_H
#define NFSRDMA_RPCRDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/extract.h"

enum rpcrdma_proc {
	RDMA_MSG = 0, RDMA_NOMSG = 1, RDMA_MSGP = 2, RDMA_DONE = 3, RDMA_ERROR = 4,
};
enum rpcrdma_errcode { ERR_VERS = 1, ERR_CHUNK = 2 };

/* Bounds on what one header may carry.  The Linux client sends at most
 * one chunk per list; these leave wide room for other implementations
 * while keeping the decoded header a fixed-size object.  Entries past a
 * bound are counted (and reported) but not stored. */
#define RPCRDMA_MAX_RSEGS    32
#define RPCRDMA_MAX_WCHUNKS  8
#define RPCRDMA_MAX_WSEGS    64  /* over all Write chunks */
#define RPCRDMA_MAX_RPSEGS   32
/* Sanity bound on list lengths, so a hostile count cannot spin us. */
#define RPCRDMA_LIST_LIMIT   4096

struct rpcrdma_seg {
	uint32_t handle;   /* R_key */
	uint32_t length;
	uint64_t offset;   /* VA */
};

struct rpcrdma_rseg {
	uint32_t position; /* XDR position in the RPC message */
	struct rpcrdma_seg seg;
};

struct rpcrdma_wchunk {
	uint16_t first;    /* index into wsegs */
	uint16_t nsegs;    /* stored */
	uint32_t nsegs_wire;
	uint64_t length;   /* sum of segment lengths (all, stored or not) */
};

struct rpcrdma_hdr {
	uint32_t xid, vers, credits, proc;
	uint32_t align, thresh;              /* RDMA_MSGP */
	uint32_t err, vers_low, vers_high;   /* RDMA_ERROR */

	uint16_t nrsegs;                     /* stored */
	uint32_t nrsegs_wire;
	struct rpcrdma_rseg rsegs[RPCRDMA_MAX_RSEGS];

	uint16_t nwchunks;
	uint32_t nwchunks_wire;
	struct rpcrdma_wchunk wchunks[RPCRDMA_MAX_WCHUNKS];
	uint16_t nwsegs;
	struct rpcrdma_seg wsegs[RPCRDMA_MAX_WSEGS];

	bool     has_reply;
	uint16_t nrpsegs;
	uint32_t nrpsegs_wire;
	uint64_t reply_len;                  /* sum of Reply chunk segment lengths */
	struct rpcrdma_seg rpsegs[RPCRDMA_MAX_RPSEGS];

	bool     overflow;                   /* some entries not stored */
	size_t   hdr_len;                    /* bytes of transport header */
	size_t   body_off;                   /* where the RPC message starts (MSG, MSGP) */
};

/* Decodes a version 1 header from c (positioned at the start of the
 * message).  Returns 0, or -EBADMSG when the header is truncated or
 * invalid (details in the cursor: err, err_off, err_what).  Version
 * numbers other than 1 are not decoded here: check rpcrdma_peek_vers(). */
int rpcrdma_decode(struct rpcrdma_hdr *h, struct cursor *c);

/* The vers field of any RPC-over-RDMA header, or 0 if too short. */
uint32_t rpcrdma_peek_vers(const uint8_t *p, size_t len);

const char *rpcrdma_proc_name(uint32_t proc);
const char *rpcrdma_err_name(uint32_t err);

/* Sum of lengths of Read segments at one position. */
uint64_t rpcrdma_read_chunk_len(const struct rpcrdma_hdr *h, uint32_t position);
/* Number of distinct positions in the Read list (= Read chunks). */
unsigned rpcrdma_read_chunk_count(const struct rpcrdma_hdr *h);
bool rpcrdma_has_p0(const struct rpcrdma_hdr *h);

#endif
