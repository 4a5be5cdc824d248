/* In-flight RPCs: one entry per outstanding call, keyed by (connection,
 * direction of the call, XID).  Only calls waiting for their reply live
 * here; a completed record is handed to the caller and its entry is
 * recycled, so memory follows the number of calls in flight, not the
 * size of the capture.  Entries come from a free list (no per-packet
 * malloc once warm) and sit on an age-ordered list for eviction. */
#ifndef NFSRDMA_XID_H
#define NFSRDMA_XID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/dtree.h"
#include "dissect/record.h"
#include "dissect/xdr.h"

struct cseg;
struct early_reply;

struct xentry {
	struct xentry *hnext;            /* hash chain */
	struct xentry *older, *newer;    /* age list */
	uint64_t key;
	int      call_dir;               /* transport dir of the CALL sender */
	uint32_t gap_epoch;              /* connection's gap count at call time */

	struct nfsrdma_record rec;
	struct xdr_ddp call_ddp;         /* Read chunks at position > 0 */
	struct xdr_ddp reply_ddp;        /* Write list echoed by the reply */
	uint16_t nwchunks;               /* Write chunks the call provided */
	uint64_t wchunk_len[XDR_DDP_MAX];

	struct cseg *segs;               /* segments registered for this call */
	uint8_t *p0buf;                  /* position-zero Read chunk (RDMA_NOMSG call) */
	uint32_t p0len, p0got;
	uint8_t *rcbuf;                  /* Reply chunk (RDMA_NOMSG reply) */
	uint32_t rclen, rcgot;
	bool     call_decoded;
	struct early_reply *early;       /* TCP/UDP: its reply, come before the call */
	struct dtree tree;               /* -V only */
	/* frame notes (dissect_cbs.frame_note only): the frames of this RPC,
	 * delivered with the record; the buffer is kept across reuse */
	struct xnote { uint64_t frame; uint8_t role; } *notes;
	uint32_t nnotes, cap_notes;
};

struct xid_table {
	struct xentry **buckets;
	size_t nbuckets, count;
	struct xentry *oldest, *newest;
	struct xentry *free;
};

static inline uint64_t xid_key(uint32_t conn_id, int dir, uint32_t xid)
{
	return ((uint64_t)conn_id << 33) | ((uint64_t)(dir & 1) << 32) | xid;
}

int xid_table_init(struct xid_table *t);
void xid_table_free(struct xid_table *t);
struct xentry *xid_find(const struct xid_table *t, uint32_t conn_id, int dir, uint32_t xid);
/* A zeroed entry, inserted (newest).  NULL on allocation failure. */
struct xentry *xid_add(struct xid_table *t, uint32_t conn_id, int dir, uint32_t xid);
/* Unlinks and recycles (the caller has released buffers and segments). */
void xid_remove(struct xid_table *t, struct xentry *x);
static inline struct xentry *xid_oldest(const struct xid_table *t) { return t->oldest; }

#endif
