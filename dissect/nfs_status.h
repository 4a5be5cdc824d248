/* nfsstat3 / nfsstat4 names (the v4 space extends the v3 one). */
#ifndef NFSRDMA_NFS_STATUS_H
#define NFSRDMA_NFS_STATUS_H

#include <stdint.h>

const char *nfs_stat_name(uint32_t s);

#endif
