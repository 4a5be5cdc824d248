/* pNFS RDMA layout (draft pnfs-rdma-layout-00, layout type
 * LAYOUT4_RDMA = 0x80000006): the opaque bodies of LAYOUTGET's layout,
 * GETDEVICEINFO's device address and LAYOUTCOMMIT's layoutupdate. */
#ifndef NFSRDMA_PNFS_RDMA_H
#define NFSRDMA_PNFS_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/xdr.h"

#define LAYOUT4_RDMA 0x80000006u

enum pnfs_rdma_extent_state { PNFS_RDMA_RW = 0, PNFS_RDMA_READ = 1, PNFS_RDMA_INVALID = 2,
			      PNFS_RDMA_NONE = 3 };

struct pnfs_rdma_extent {
	uint8_t  device_id[16];
	uint64_t file_offset;
	uint32_t handle;
	uint64_t length;
	uint64_t storage_offset;
	uint32_t state;
};

/* Decoders for the opaque bodies; problems mark d->c failed (the caller
 * reports them).  Results go to d->tree, and the first extent's handle
 * and offset to the record's current op. */
void pnfs_rdma_layout(struct pdec *d, const uint8_t *body, size_t len);
void pnfs_rdma_device_addr(struct pdec *d, const uint8_t *body, size_t len);
void pnfs_rdma_layoutupdate(struct pdec *d, const uint8_t *body, size_t len);

/* Standalone: decode one pnfs_rdma_extent4 list (for tests). Returns the
 * number of extents (stored up to max), or -1 on bad XDR. */
int pnfs_rdma_extents(const uint8_t *body, size_t len, struct pnfs_rdma_extent *out, size_t max);

const char *pnfs_rdma_state_name(uint32_t s);

#endif
