/* NFSv3 client pieces on top of struct xprt (src/xprt/xprt.h): the RPC
 * program numbers, NFSv3 call encoders and bounded reply decoders
 * (nfs3_clnt.c).  MOUNT and the portmapper are in mount.h. */
#ifndef NFSRDMA_CLNT_NFS3_H
#define NFSRDMA_CLNT_NFS3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/xprt/xprt.h"
#include "src/xprt/xdr_enc.h"

#define PROG_NFS_ 100003u
#define PROG_MOUNT_ 100005u
#define PROG_NFSACL_ 100227u

enum nfs3_proc {
	NFS3P_NULL, NFS3P_GETATTR, NFS3P_SETATTR, NFS3P_LOOKUP, NFS3P_ACCESS, NFS3P_READLINK,
	NFS3P_READ, NFS3P_WRITE, NFS3P_CREATE, NFS3P_MKDIR, NFS3P_SYMLINK, NFS3P_MKNOD,
	NFS3P_REMOVE, NFS3P_RMDIR, NFS3P_RENAME, NFS3P_LINK, NFS3P_READDIR, NFS3P_READDIRPLUS,
	NFS3P_FSSTAT, NFS3P_FSINFO, NFS3P_PATHCONF, NFS3P_COMMIT, NFS3P_NPROCS
};

const char *nfs3_clnt_proc_name(uint32_t proc);
/* Does this NFSv3 procedure change state on the server? */
bool nfs3_is_mutation(uint32_t proc);
/* Reply size bound (without DDP data) used to decide on a Reply chunk. */
uint32_t nfs3_reply_max(uint32_t proc, uint32_t count);

/* ---- NFSv3 (nfs3_clnt.c) ---- */
/* One call's buffer: RPC header + arguments. */
struct nfs_msg {
	uint8_t buf[1024 + 2 * NFS4_FHSIZE_MAX];
	struct xprt_req req;
};

/* Each encoder fills m->buf and m->req (msg, len, ddp, wchunk, reply_max).
 * Returns 0 or -EMSGSIZE. */
int nfs3_enc_null(struct nfs_msg *m);
int nfs3_enc_getattr(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh);
int nfs3_enc_lookup(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
		    const char *name);
int nfs3_enc_read(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh,
		  uint64_t off, uint32_t count);
/* data may be NULL (the transport's bulk buffer is sent) */
int nfs3_enc_write(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh,
		   uint64_t off, uint32_t count, uint32_t stable, const uint8_t *data);
int nfs3_enc_readdirplus(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
			 uint64_t cookie, const uint8_t verf[8], uint32_t dircount, uint32_t maxcount);
int nfs3_enc_fsinfo(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *fh);
int nfs3_enc_create(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
		    const char *name, uint32_t mode);
/* Generic: header for (prog, vers, proc) then raw argument bytes. */
int rpc_enc_raw(struct nfs_msg *m, const struct rpc_cred *c, uint32_t prog, uint32_t vers,
		uint32_t proc, const uint8_t *args, size_t len);

/* A decoded reply (bounded; hostile input). */
struct rpc_res {
	bool     ok;          /* RPC header decoded */
	uint32_t rpc_status;  /* accept_stat, 100 + reject_stat, 200 + RDMA error, 0xffff none */
	uint32_t status;      /* program status (nfsstat3); 0 for NULL */
	bool     has_status;
	bool     has_fh;      /* LOOKUP / CREATE / MKDIR / SYMLINK / MKNOD result */
	struct nfs_fh fh;
	uint32_t count;       /* READ / WRITE */
	bool     eof;
	uint32_t nentries;    /* READDIRPLUS */
	uint32_t rtmax, wtmax; /* FSINFO */
};

typedef void (*nfs3_entry_fn)(void *ctx, const char *name, const struct nfs_fh *fh);

/* Decodes an RPC reply message (msg, len) to a NFSv3 procedure.  bulk_moved:
 * the READ/READLINK data is not in msg.  entry (may be NULL) gets the
 * READDIRPLUS entries that carry a handle.  Returns 0 or -EBADMSG. */
int nfs3_decode_reply(uint32_t proc, const uint8_t *msg, size_t len, bool bulk_moved,
		      struct rpc_res *res, nfs3_entry_fn entry, void *ctx);
/* Body only (msg positioned after the RPC reply header). */
int nfs3_decode_body(uint32_t proc, const uint8_t *p, size_t len, bool bulk_moved,
		     struct rpc_res *res, nfs3_entry_fn entry, void *ctx);
/* RPC reply header only: fills ok/rpc_status; *body_off where results start. */
int rpc_decode_reply_hdr(const uint8_t *msg, size_t len, struct rpc_res *res, size_t *body_off);

#endif
