/* Program clients on top of struct xprt (rdma_ep.h): MOUNT v3 over TCP
 * for the NFSv3 root handle, NFSv3 call encoders and bounded reply
 * decoders, and the entry points of the replay engine and the load
 * generator (src/replay*.c, src/loadgen*.c). */
#ifndef NFSRDMA_RDMA_EP_CLNT_H
#define NFSRDMA_RDMA_EP_CLNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* ---- MOUNT (mount_clnt.c) ---- */
/* Asks the portmapper on host for mountd's TCP port, then MNT v3 path.
 * Returns 0 and the root handle, or a negative errno (err says why). */
int mount3_mnt(const char *host, const char *path, const struct rpc_cred *cred,
	       struct nfs_fh *root, char *err, size_t errlen);
/* Portmapper GETPORT over TCP (port 111).  Returns the port or -errno. */
int pmap_getport(const char *host, uint32_t prog, uint32_t vers, uint32_t proto);
/* Their reply decoders, apart from the sockets (hostile input:
 * tests/fuzz/fuzz_nfs3_clnt.c).  GETPORT: the port, -EPROTO (an RPC
 * error) or -ENOENT.  MNT: 0 and the root handle, or -errno (err says why). */
int pmap_decode_getport(const uint8_t *msg, size_t len);
int mount3_decode_mnt(const uint8_t *msg, size_t len, const char *host, const char *path,
		      struct nfs_fh *root, char *err, size_t errlen);

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

/* ---- latency histogram (loadgen_hist.c) ---- */
/* HDR-style log-linear histogram: 64 linear sub-buckets per power of two
 * of nanoseconds (relative error < 1.6 %), 1 ns .. ~2^40 ns. */
#define HIST_SUB 64
#define HIST_POW 41
struct lhist {
	uint64_t n, min, max, sum;
	uint64_t b[HIST_POW][HIST_SUB];
};
void lhist_add(struct lhist *h, uint64_t ns);
uint64_t lhist_pct(const struct lhist *h, double pct);
void lhist_merge(struct lhist *dst, const struct lhist *src);

/* ---- replay (replay.c) ---- */
struct replay_opts {
	const char *trace;
	const char *target;
	const char *export_path;  /* MOUNT path on the target (default: from the trace, else /export) */
	const char *transport;    /* "rdma" (default) or "tcp" */
	uint16_t port;
	double speed;             /* 1 recorded, 2 twice as fast, 0 as fast as credits allow */
	uint32_t max_inflight;    /* 0: as recorded */
	bool allow_mutations;
	bool same_tree;           /* handles not resolvable by path are sent unchanged */
	bool json;
	bool verbose;
	uint32_t slots;
	unsigned reconnect_ms;
	bool busy_poll;
	uint32_t moderate_us;     /* as xprt_opts.moderate_us */
	bool dry_run;             /* print what would be sent; no network */
	bool delegations;         /* NFSv4.1+: serve the back channel, take delegations */
	/* Fault injection: once the reply to the trace call with this XID is
	 * in, drop the connection and go on over a new one. */
	bool disconnect;
	uint32_t disconnect_xid;
};
/* Returns the exit status: 0 all replayed calls answered with the
 * recorded status; 1 mismatches or errors; 2 calls lost in flight; 3 setup
 * failure; 4 refused (mutations without --allow-mutations). */
int replay_run(const struct replay_opts *o, FILE *out);

/* ---- load generation (loadgen.c) ---- */
enum lg_op { LG_NULL, LG_GETATTR, LG_READ, LG_WRITE, LG_MIX, LG_READDIRPLUS };
struct loadgen_opts {
	const char *target;
	const char *export_path;
	const char *transport;
	uint16_t port;
	enum lg_op op;
	uint32_t read_pct;        /* LG_MIX: share of READs (rest WRITE) */
	uint32_t size;            /* READ/WRITE transfer size */
	uint32_t sizes[16];       /* sweep */
	unsigned nsizes;
	uint32_t qd;
	double duration;          /* seconds (0: use count) */
	uint64_t count;
	double warmup;            /* seconds */
	const char *file;         /* name in the export (READ/WRITE) */
	uint64_t file_size;
	bool allow_mutations;
	bool json;
	const char *svg;
	bool busy_poll;
	uint32_t moderate_us;     /* as xprt_opts.moderate_us */
	uint32_t vers;            /* 3 (default) or 4 */
	uint32_t minor;           /* NFSv4 minor version (1 or 2) */
};
int loadgen_run(const struct loadgen_opts *o, FILE *out);

#endif
