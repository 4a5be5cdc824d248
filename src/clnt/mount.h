/* MOUNT v3 over TCP for the NFSv3 root handle, and the portmapper
 * GETPORT that finds mountd (mount_clnt.c). */
#ifndef NFSRDMA_CLNT_MOUNT_H
#define NFSRDMA_CLNT_MOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "src/xprt/xdr_enc.h"

/* ---- MOUNT (mount_clnt.c) ---- */
/* Asks the portmapper on host for mountd's TCP port, then MNT v3 path.
 * Returns 0 and the root handle, or a negative errno (err says why). */
int mount3_mnt(const char *host, const char *path, const struct rpc_cred *cred,
	       struct nfs_fh *root, char *err, size_t errlen);
/* Their reply decoders, apart from the sockets (hostile input:
 * tests/fuzz/fuzz_nfs3_clnt.c).  GETPORT: the port, -EPROTO (an RPC
 * error) or -ENOENT.  MNT: 0 and the root handle, or -errno (err says why). */
int pmap_decode_getport(const uint8_t *msg, size_t len);
int mount3_decode_mnt(const uint8_t *msg, size_t len, const char *host, const char *path,
		      struct nfs_fh *root, char *err, size_t errlen);

#endif
