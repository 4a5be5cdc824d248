/* Ties RDMA READ / RDMA WRITE operations to the call and segment they
 * serve.  Every segment a call advertises (Read list, Write list, Reply
 * chunk) is registered under (connection, owning side, handle); an RDMA
 * operation matches the segment whose [offset, offset+length) holds its
 * remote address.  The Linux client's habit of putting the XID in the top
 * 32 bits of the offset is only a fallback hint.  Data arriving for a
 * position-zero Read chunk or for the Reply chunk is copied into the
 * entry's reassembly buffer so the RPC inside can be decoded. */
#ifndef NFSRDMA_CHUNKS_H
#define NFSRDMA_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/rdma_event.h"
#include "dissect/rpcrdma.h"
#include "dissect/xid.h"

enum cseg_kind { CSEG_READ = 0, CSEG_WRITE = 1, CSEG_REPLY = 2 };

struct cseg {
	struct cseg *hnext;     /* hash chain */
	struct cseg *xnext;     /* the entry's list */
	struct xentry *x;
	uint64_t key;           /* conn, owner side, handle */
	uint64_t va;
	uint32_t len;
	uint8_t  kind;          /* enum cseg_kind */
	uint8_t  chunk;         /* chunk index in its list */
	uint32_t position;      /* Read: XDR position */
	uint32_t chunk_off;     /* offset of this segment inside its chunk */
};

struct seg_table {
	struct cseg **buckets;
	size_t nbuckets, count;
	struct cseg *free;
};

int seg_table_init(struct seg_table *t);
void seg_table_free(struct seg_table *t);

/* Maximum bytes kept for one reassembled chunk (position-zero Read chunk
 * or Reply chunk): enough for any RPC header and NFS result we decode. */
#define CHUNK_REASM_MAX (4u << 20)

/* Registers the call's segments and sets up the reassembly buffers and
 * counters in x->rec.  owner = transport dir of the call's sender (whose
 * memory the segments describe).  Returns 0 or -ENOMEM. */
int chunks_register_call(struct seg_table *t, struct xentry *x, uint32_t conn_id, int owner,
			 const struct rpcrdma_hdr *h);
/* Forgets the entry's segments. */
void chunks_release(struct seg_table *t, struct xentry *x);

struct chunk_match {
	struct xentry *x;
	struct cseg *seg;      /* NULL when matched by the XID hint */
	uint32_t past_end;     /* bytes the operation ran past the segment */
	bool p0_complete;      /* the position-zero chunk is now whole */
};

/* Applies an RDMA_EV_READ / RDMA_EV_WRITE: finds the segment (or, failing
 * that, the entry named by the XID hint via xt), updates timestamps,
 * counters and reassembly.  Returns false when nothing matched. */
bool chunks_apply(struct seg_table *t, struct xid_table *xt, uint32_t conn_id,
		  const struct rdma_event *ev, struct chunk_match *m);

/* Does an RDMA operation into (owner's memory, rkey, va) carry bytes the
 * upper layers decode (a position-zero Read chunk or the Reply chunk)?
 * Write chunk data and Read chunks at a position > 0 are only counted.
 * True when no advertised segment matches. */
bool chunks_wants_data(const struct seg_table *t, uint32_t conn_id, int owner, uint32_t rkey, uint64_t va);

#endif
