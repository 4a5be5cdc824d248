/* NFSv3 client pieces on top of struct xprt (src/xprt/xprt.h): NFSv3 call
 * encoders and bounded reply decoders (nfs3_clnt.c).  The program and
 * procedure numbers are in dissect/nfs_vocab.h, MOUNT and the portmapper
 * in mount.h. */
#ifndef NFSRDMA_CLNT_NFS3_H
#define NFSRDMA_CLNT_NFS3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/nfs_vocab.h"
#include "src/xprt/xprt.h"
#include "src/xprt/xdr_enc.h"

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
int nfs3_enc_mkdir(struct nfs_msg *m, const struct rpc_cred *c, const struct nfs_fh *dir,
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
