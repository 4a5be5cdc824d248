/* NFSv4 client pieces for the replay tool and the load generator
 * (src/nfs41_clnt*.c, src/clnt/nfs40_clnt.c): COMPOUND encoders (RFC 8881,
 * RFC 7530), a bounded decoder of COMPOUND replies, the NFSv4.1 session
 * (EXCHANGE_ID, CREATE_SESSION, SEQUENCE slots), the NFSv4.0 client
 * (SETCLIENTID, open- and lock-owner seqids), and the rewriter that
 * re-issues a captured COMPOUND with the target's client ID, session,
 * slots, seqids, file handles and stateids.
 * Declared here (under rdma_ep*) for file ownership reasons. */
#ifndef NFSRDMA_RDMA_EP_NFS41_H
#define NFSRDMA_RDMA_EP_NFS41_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/clnt/nfs3.h"

enum nfs4_op {
	NFS4_OP_ACCESS = 3, NFS4_OP_CLOSE = 4, NFS4_OP_COMMIT = 5, NFS4_OP_CREATE = 6,
	NFS4_OP_DELEGPURGE = 7, NFS4_OP_DELEGRETURN = 8, NFS4_OP_GETATTR = 9, NFS4_OP_GETFH = 10,
	NFS4_OP_LINK = 11, NFS4_OP_LOCK = 12, NFS4_OP_LOCKT = 13, NFS4_OP_LOCKU = 14,
	NFS4_OP_LOOKUP = 15, NFS4_OP_LOOKUPP = 16, NFS4_OP_NVERIFY = 17, NFS4_OP_OPEN = 18,
	NFS4_OP_OPENATTR = 19, NFS4_OP_OPEN_CONFIRM = 20, NFS4_OP_OPEN_DOWNGRADE = 21,
	NFS4_OP_PUTFH = 22, NFS4_OP_PUTPUBFH = 23, NFS4_OP_PUTROOTFH = 24, NFS4_OP_READ = 25,
	NFS4_OP_READDIR = 26, NFS4_OP_READLINK = 27, NFS4_OP_REMOVE = 28, NFS4_OP_RENAME = 29,
	NFS4_OP_RENEW = 30, NFS4_OP_RESTOREFH = 31, NFS4_OP_SAVEFH = 32, NFS4_OP_SECINFO = 33,
	NFS4_OP_SETATTR = 34, NFS4_OP_SETCLIENTID = 35, NFS4_OP_SETCLIENTID_CONFIRM = 36,
	NFS4_OP_VERIFY = 37, NFS4_OP_WRITE = 38, NFS4_OP_RELEASE_LOCKOWNER = 39,
	NFS4_OP_BACKCHANNEL_CTL = 40, NFS4_OP_BIND_CONN_TO_SESSION = 41, NFS4_OP_EXCHANGE_ID = 42,
	NFS4_OP_CREATE_SESSION = 43, NFS4_OP_DESTROY_SESSION = 44, NFS4_OP_FREE_STATEID = 45,
	NFS4_OP_GET_DIR_DELEGATION = 46, NFS4_OP_GETDEVICEINFO = 47, NFS4_OP_GETDEVICELIST = 48,
	NFS4_OP_LAYOUTCOMMIT = 49, NFS4_OP_LAYOUTGET = 50, NFS4_OP_LAYOUTRETURN = 51,
	NFS4_OP_SECINFO_NO_NAME = 52, NFS4_OP_SEQUENCE = 53, NFS4_OP_SET_SSV = 54,
	NFS4_OP_TEST_STATEID = 55, NFS4_OP_WANT_DELEGATION = 56, NFS4_OP_DESTROY_CLIENTID = 57,
	NFS4_OP_RECLAIM_COMPLETE = 58, NFS4_OP_ALLOCATE = 59, NFS4_OP_COPY = 60,
	NFS4_OP_COPY_NOTIFY = 61, NFS4_OP_DEALLOCATE = 62, NFS4_OP_IO_ADVISE = 63,
	NFS4_OP_LAYOUTERROR = 64, NFS4_OP_LAYOUTSTATS = 65, NFS4_OP_OFFLOAD_CANCEL = 66,
	NFS4_OP_OFFLOAD_STATUS = 67, NFS4_OP_READ_PLUS = 68, NFS4_OP_SEEK = 69,
	NFS4_OP_WRITE_SAME = 70, NFS4_OP_CLONE = 71, NFS4_OP_GETXATTR = 72, NFS4_OP_SETXATTR = 73,
	NFS4_OP_LISTXATTRS = 74, NFS4_OP_REMOVEXATTR = 75, NFS4_OP_ILLEGAL = 10044,
};

#define NFS4_SESSIONID_SIZE 16
#define NFS41_MAX_SLOTS 256
#define NFS4_RES_MAXOPS 32   /* per-op statuses kept from a reply */
#define NFS4_RES_MAXFH 8     /* GETFH results kept */
#define NFS4_RES_MAXSID 8    /* stateids kept from results */

/* Status codes used here (RFC 8881 section 15). */
#define NFS4ERR_NOENT 2
#define NFS4ERR_BADSESSION 10052
#define NFS4ERR_SEQ_MISORDERED 10063
#define NFS4ERR_OP_ILLEGAL 10044
/* NFSv4.0 (RFC 7530 section 13): the errors after which an open- or
 * lock-owner's seqid does not advance (section 9.1.7) */
#define NFS4ERR_RESOURCE 10018
#define NFS4ERR_MOVED 10019
#define NFS4ERR_NOFILEHANDLE 10020
#define NFS4ERR_STALE_CLIENTID 10022
#define NFS4ERR_STALE_STATEID 10023
#define NFS4ERR_BAD_STATEID 10025
#define NFS4ERR_BAD_SEQID 10026
#define NFS4ERR_BADXDR 10036
#define NFS4_OPEN_RESULT_CONFIRM 2u   /* OPEN rflags: OPEN_CONFIRM needed (4.0) */
#define FATTR4_W0_LEASE_TIME (1u << 10)

struct nfs4_stateid {
	uint32_t seqid;
	uint8_t other[12];
};

/* ---- encoders (nfs41_clnt.c): append to a COMPOUND being built ---- */
/* RPC header (NFS program, version 4, COMPOUND) + tag "" + minorversion;
 * returns the offset of the argarray count, patched by nfs4_compound_end. */
size_t nfs4_compound_begin(struct xenc *e, const struct rpc_cred *c, uint32_t minor);
void nfs4_compound_end(struct xenc *e, size_t count_off, uint32_t nops);

void nfs4_enc_sequence(struct xenc *e, const uint8_t sid[16], uint32_t seq, uint32_t slot,
		       uint32_t highest, bool cachethis);
void nfs4_enc_putrootfh(struct xenc *e);
void nfs4_enc_putfh(struct xenc *e, const struct nfs_fh *fh);
void nfs4_enc_getfh(struct xenc *e);
void nfs4_enc_lookup(struct xenc *e, const char *name);
/* GETATTR of the attributes in the two bitmap words */
void nfs4_enc_getattr(struct xenc *e, uint32_t w0, uint32_t w1);
void nfs4_enc_access(struct xenc *e, uint32_t mask);
/* OPEN by name (CLAIM_NULL) for share_access (1 READ, 2 WRITE, 3 BOTH),
 * deny NONE, with UNCHECKED4 create (mode) when create. */
void nfs4_enc_open(struct xenc *e, uint32_t share_access, uint64_t clientid, const void *owner,
		   uint32_t owner_len, bool create, uint32_t mode, const char *name);
void nfs4_enc_close(struct xenc *e, const struct nfs4_stateid *sid);
void nfs4_enc_read(struct xenc *e, const struct nfs4_stateid *sid, uint64_t off, uint32_t count);
/* WRITE up to and including the data's length word: the data itself is
 * DDP-eligible (the caller puts it in xprt_req.ddp / ddp_at). */
void nfs4_enc_write(struct xenc *e, const struct nfs4_stateid *sid, uint64_t off, uint32_t stable,
		    uint32_t count);
void nfs4_enc_readdir(struct xenc *e, uint64_t cookie, const uint8_t verf[8], uint32_t dircount,
		      uint32_t maxcount, uint32_t w0, uint32_t w1);
/* EXCHANGE_ID with SP4_NONE and no implementation id */
void nfs4_enc_exchange_id(struct xenc *e, const uint8_t verf[8], const void *owner,
			  uint32_t owner_len, uint32_t flags);
/* CREATE_SESSION: fore channel of slots requests of at most maxreq bytes
 * (replies maxresp), a minimal back channel, AUTH_NONE callbacks. */
void nfs4_enc_create_session(struct xenc *e, uint64_t clientid, uint32_t seq, uint32_t flags,
			     uint32_t maxreq, uint32_t maxresp, uint32_t slots);
void nfs4_enc_reclaim_complete(struct xenc *e, bool one_fs);
void nfs4_enc_destroy_session(struct xenc *e, const uint8_t sid[16]);
void nfs4_enc_destroy_clientid(struct xenc *e, uint64_t clientid);
void nfs4_enc_bind_conn_to_session(struct xenc *e, const uint8_t sid[16], uint32_t dir,
				   bool rdma_mode);

/* CREATE_SESSION csa_flags: the connection also carries the back channel */
#define NFS4_CS_CONN_BACK_CHAN 0x2u
/* BIND_CONN_TO_SESSION bctsa_dir (channel_dir_from_client4) and
 * bctsr_dir (channel_dir_from_server4), RFC 8881 18.34 */
#define NFS4_CDFC4_FORE 1u
#define NFS4_CDFC4_BACK 2u
#define NFS4_CDFC4_FORE_OR_BOTH 3u
#define NFS4_CDFC4_BACK_OR_BOTH 7u
#define NFS4_CDFS4_FORE 1u
#define NFS4_CDFS4_BACK 2u
#define NFS4_CDFS4_BOTH 3u
/* SEQUENCE sr_status_flags saying the back channel does not work */
#define NFS4_SEQ4_STATUS_CB_PATH_DOWN 0x1u
#define NFS4_SEQ4_STATUS_CB_PATH_DOWN_SESSION 0x200u
#define NFS4_SEQ4_STATUS_BACKCHANNEL_FAULT 0x400u

/* Attribute bits (word 0 / word 1) */
#define FATTR4_W0_TYPE (1u << 1)
#define FATTR4_W0_CHANGE (1u << 3)
#define FATTR4_W0_SIZE (1u << 4)
#define FATTR4_W0_FSID (1u << 8)
#define FATTR4_W0_FILEHANDLE (1u << 19)
#define FATTR4_W0_FILEID (1u << 20)
#define FATTR4_W1_MODE (1u << 1)
#define FATTR4_W1_NUMLINKS (1u << 3)
#define FATTR4_W1_TIME_MODIFY (1u << 21)

/* ---- reply decoding (nfs41_clnt.c) ---- */
struct nfs4_res {
	bool ok;                  /* RPC header decoded */
	uint32_t rpc_status;      /* as struct rpc_res */
	uint32_t status;          /* the COMPOUND's nfsstat4 */
	bool has_status;
	bool complete;            /* every result walked */
	uint32_t nres;            /* results in the reply */
	uint32_t op[NFS4_RES_MAXOPS], opst[NFS4_RES_MAXOPS];
	/* GETFH results, with the index of the op that returned each */
	unsigned nfh;
	struct nfs_fh fh[NFS4_RES_MAXFH];
	uint32_t fh_at[NFS4_RES_MAXFH];
	/* stateids returned (OPEN, CLOSE, LOCK, LOCKU, OPEN_DOWNGRADE) */
	unsigned nsid;
	struct nfs4_stateid sid[NFS4_RES_MAXSID];
	uint32_t sid_at[NFS4_RES_MAXSID];
	/* EXCHANGE_ID */
	bool has_clientid;
	uint64_t clientid;
	uint32_t eir_seq, eir_flags;
	/* CREATE_SESSION */
	bool has_session;
	uint8_t sessionid[16];
	uint32_t cs_seq, cs_flags, fore_maxreq, fore_maxresp, fore_maxreqs;
	/* SEQUENCE */
	bool has_seq;
	uint32_t seq_status, seq_seqid, seq_slot, seq_highest, seq_target_highest, seq_flags;
	bool has_bcts;            /* BIND_CONN_TO_SESSION result */
	uint32_t bcts_dir;        /* NFS4_CDFS4_* */
	bool bcts_rdma_mode;
	/* READ / WRITE */
	uint32_t read_count, write_count;
	bool eof;
	uint32_t nentries;        /* READDIR */
	/* SETCLIENTID (4.0): the client ID and the confirm verifier */
	bool has_setclientid;
	uint64_t sc_clientid;
	uint8_t sc_confirm[8];
	/* delegations OPEN granted (open_delegation4 READ or WRITE), with
	 * the index of the OPEN that granted each */
	unsigned ndeleg;
	struct nfs4_stateid deleg[NFS4_RES_MAXSID];
	uint32_t deleg_at[NFS4_RES_MAXSID];
	uint8_t deleg_type[NFS4_RES_MAXSID];   /* 1 READ, 2 WRITE */
	/* the first OPEN's result flags and op index */
	bool has_open;
	uint32_t open_rflags, open_at;
	/* lease_time, from a GETATTR that asked for no attribute before it */
	bool has_lease;
	uint32_t lease_time;
};

/* Decodes an RPC reply to an NFSv4 COMPOUND (proc 1) or NULL (proc 0).
 * bulk_moved: READ data came in a Write chunk (not in msg).  Returns 0
 * (res filled as far as it decodes) or -EBADMSG (no RPC reply header). */
int nfs4_decode_reply(uint32_t proc, const uint8_t *msg, size_t len, bool bulk_moved,
		      struct nfs4_res *res);
/* The COMPOUND results only (after the RPC reply header). */
int nfs4_decode_body(uint32_t proc, const uint8_t *p, size_t len, bool bulk_moved,
		     struct nfs4_res *res);

/* A delegation the trace's OPEN got, and what the same OPEN got on the
 * target: its delegation (granted), or else its open stateid (the
 * target answered OPEN_DELEGATE_NONE: the replay serves no callbacks). */
struct nfs4_deleg_pair {
	struct nfs4_stateid tdeleg;   /* the trace's delegation stateid */
	struct nfs4_stateid topen;    /* the trace's open stateid of that OPEN */
	bool granted;
	struct nfs4_stateid g;        /* the target's delegation, or its open stateid */
};
/* Pairs the delegations of a trace reply (tr) with the target's reply
 * (rr) to the same COMPOUND, by the index of the OPEN: an OPEN the
 * target did not answer OK pairs with nothing.  Returns how many pairs
 * were written to out (at most max). */
unsigned nfs4_deleg_pairs(const struct nfs4_res *tr, const struct nfs4_res *rr,
			  struct nfs4_deleg_pair *out, unsigned max);

/* ---- the session (nfs41_clnt.c) ---- */
struct nfs41_session {
	uint32_t minor;
	bool have_client, have_session;
	bool back_channel;        /* our CREATE_SESSION asks for one (we serve callbacks) */
	char cb_netid[8], cb_addr[64];  /* 4.0: our SETCLIENTID's callback ("": none) */
	uint64_t clientid;
	uint32_t cs_seq;          /* csa_sequence for the next CREATE_SESSION */
	uint8_t sessionid[16];
	uint32_t nslots;          /* min(server's ca_maxrequests, asked) */
	uint32_t maxreq, maxresp;
	uint32_t slot_seq[NFS41_MAX_SLOTS];
	bool slot_busy[NFS41_MAX_SLOTS];
	bool slot_dead[NFS41_MAX_SLOTS];  /* a call on it was lost: its seqid is unknown */
	uint8_t verifier[8];
	char owner[128];
	uint64_t seq_errors;      /* SEQUENCE failures seen */
	/* NFSv4.0: no session; have_client once SETCLIENTID_CONFIRM succeeded */
	uint8_t confirm[8];       /* the last SETCLIENTID's confirm verifier */
	uint32_t lease_s;         /* the server's lease_time (0: not learned) */
	uint64_t last_renew_ns;   /* last RENEW or SETCLIENTID_CONFIRM */
};

/* A free slot (busy from now on) and the seqid to send on it; -1: none. */
int nfs41_slot_get(struct nfs41_session *s, uint32_t *seq);
/* A call on slot came back: seq_ok says the server executed its SEQUENCE
 * (the slot's seqid advances); lost: no reply (the slot is retired). */
void nfs41_slot_put(struct nfs41_session *s, int slot, uint32_t seq, bool seq_ok, bool lost);
/* Highest slot the client may use (SEQUENCE sa_highest_slotid). */
uint32_t nfs41_highest(const struct nfs41_session *s);

/* Sets the owner string ("nfsrdma-replay/HOST/PID/TAG") and verifier. */
void nfs41_session_init(struct nfs41_session *s, uint32_t minor, const char *tag);
/* EXCHANGE_ID + CREATE_SESSION (asking for slots) + RECLAIM_COMPLETE,
 * synchronously.  Returns 0 or a negative errno (err says why). */
int nfs41_session_open(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		       uint32_t slots, char *err, size_t errlen);
/* DESTROY_SESSION + DESTROY_CLIENTID (best effort). */
void nfs41_session_close(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c);
/* A synchronous COMPOUND: SEQUENCE + the ops the build callback appends
 * (it returns how many); decodes the reply into res.  Returns 0 (res
 * filled, whatever the NFS status) or a negative errno. */
typedef unsigned (*nfs41_build_fn)(struct xenc *e, void *ctx);
int nfs41_call_sync(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		    nfs41_build_fn build, void *ctx, uint32_t reply_max, struct nfs4_res *res);
/* BIND_CONN_TO_SESSION, alone in its COMPOUND as RFC 8881 18.34 wants:
 * binds the connection x now runs on to the session, both channels when
 * the session has a back channel (the fore channel only otherwise).
 * Returns 0 (*dir: NFS4_CDFS4_* the server bound), a positive NFS4
 * status the server refused with, or a negative errno. */
int nfs41_bind_conn(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		    uint32_t *dir);
/* PUTROOTFH, then LOOKUP of each component of path; out: the handle.
 * Returns 0, -ENOENT (*st: the failing status) or another errno. */
int nfs41_lookup_path(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		      const char *path, struct nfs_fh *out, uint32_t *st);

/* ---- the back channel: serving the server's callbacks (nfs41_cb.c) ---- */
/* Where callbacks are served: 4.1+ on the session's connection, 4.0 at
 * a callback address (netid "tcp"/"tcp6", universal address). */
struct nfs4_cb_location {
	bool back_channel;
	const char *netid, *addr;
};
/* A client that asks for a back channel must answer what comes on it
 * (RFC 8881 20): CB_NULL, and CB_COMPOUND with CB_SEQUENCE first.  This
 * service answers CB_SEQUENCE (echoing the server's slot and sequence),
 * CB_RECALL (OK; the recall goes to the owner's callback, which must give
 * the delegation back with DELEGRETURN) and CB_RECALL_ANY (OK; nothing is
 * kept beyond what the owner returns on recalls); any other operation
 * gets NFS4ERR_NOTSUPP, as RFC 8881 allows for the ones a client without
 * layouts, directory delegations or notifications never asked for. */
struct nfs41_cb_recall {
	struct nfs4_stateid sid;
	struct nfs_fh fh;
	bool truncate;
};
typedef void (*nfs41_recall_fn)(void *ctx, const struct nfs41_cb_recall *r);
struct nfs41_cb {
	nfs41_recall_fn recall;   /* may be NULL */
	void *ctx;
	uint64_t calls, nulls, compounds, recalls, recall_any, unsupported, bad;
};
/* An xprt_bc_fn (src/xprt/xprt.h): bc_ctx is a struct nfs41_cb.  A call it
 * cannot decode gets GARBAGE_ARGS; one for another RPC version or
 * procedure PROG_MISMATCH / PROC_UNAVAIL. */
size_t nfs41_cb_serve(void *cb, const uint8_t *msg, size_t len, uint8_t *out, size_t cap);

/* ---- NFSv4.0 callbacks: a TCP server of our own (nfs40_cb_server.c) ----
 * NFSv4.0 has no back channel: the server connects to the address the
 * client gave in SETCLIENTID.  This listens on the local address that
 * routes to the target (only the target's connections are served), in a
 * thread of its own, with nfs41_cb_serve; recalls queue up for the
 * caller's thread. */
struct nfs40_cbsrv;
/* Listens; netid/addr: the callback location for SETCLIENTID ("tcp" or
 * "tcp6", the universal address).  Returns 0 or a negative errno. */
int nfs40_cbsrv_start(struct nfs40_cbsrv **out, const char *target, char *netid, size_t netid_len,
		      char *addr, size_t addr_len);
/* Moves up to max queued recalls into out; returns how many. */
unsigned nfs40_cbsrv_take(struct nfs40_cbsrv *s, struct nfs41_cb_recall *out, unsigned max);
/* Calls served, recalls among them, connections refused (not the target). */
void nfs40_cbsrv_counts(struct nfs40_cbsrv *s, uint64_t *calls, uint64_t *recalls, uint64_t *refused);
void nfs40_cbsrv_stop(struct nfs40_cbsrv *s);

/* ---- replay: re-issuing a captured COMPOUND (nfs41_clnt_rewrite.c) ---- */
/* What the replay engine supplies while a captured COMPOUND is rewritten.
 * Each map function returns 0, or a negative errno that stops the call
 * (e.g. -ENOENT: a handle with no known counterpart on the target). */
struct nfs4_rewrite_ops {
	void *ctx;
	/* SEQUENCE: writes the whole op (args after the opnum) for trace session tsid */
	int (*sequence)(void *ctx, struct xenc *e, const uint8_t tsid[16], bool cachethis);
	int (*map_fh)(void *ctx, const struct nfs_fh *tfh, struct nfs_fh *out);
	int (*map_stateid)(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out);
	int (*map_clientid)(void *ctx, uint64_t t, uint64_t *out);
	int (*map_sessionid)(void *ctx, const uint8_t t[16], uint8_t out[16]);
	/* EXCHANGE_ID: our verifier and owner replace the trace's */
	void (*exchange_id)(void *ctx, uint8_t verf[8], const uint8_t **owner, uint32_t *owner_len);
	/* CREATE_SESSION: csa_sequence for the target's client id */
	uint32_t (*cs_sequence)(void *ctx, uint64_t target_clientid);
	/* The stateid DELEGRETURN or FREE_STATEID gives back (NULL: as
	 * map_stateid).  -ENODATA: a delegation the target never granted
	 * (map_stateid may map it to the open stateid it stands for, for
	 * I/O; giving that back would be wrong). */
	int (*map_returned)(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out);
	/* The delegation stateid an OPEN claims (CLAIM_DELEGATE_CUR,
	 * CLAIM_DELEG_CUR_FH: the trace's client turning opens it made
	 * locally under a delegation into real ones).  -ENODATA: the target
	 * never granted it; the claim becomes the plain open it stands for
	 * (CLAIM_NULL with the same name, CLAIM_FH).  NULL: as map_stateid. */
	int (*map_claimed)(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out);
	/* Where the replay serves callbacks (NULL: nowhere): 4.1+
	 * CREATE_SESSION keeps the trace's back-channel flag, else it is
	 * cleared; 4.0 SETCLIENTID gets this callback address, else an
	 * empty one. */
	const struct nfs4_cb_location *cb;
};
#define NFS4_DELEGRET_MAX 4

/* What a captured COMPOUND does (from its arguments). */
struct nfs4_call_info {
	uint32_t minor, nops;
	uint32_t op[NFS4_RES_MAXOPS];
	uint32_t op_off[NFS4_RES_MAXOPS];  /* where each op's arguments start in args */
	bool known;               /* every op's arguments walked */
	bool mutates;             /* changes data, the namespace, or takes a lock on the server */
	bool ns_change;           /* CREATE, REMOVE, RENAME, LINK, OPEN(create) */
	bool state_change;        /* session/client/open/lock state */
	bool has_sequence;
	uint8_t tsid[16];         /* the trace's session (SEQUENCE) */
	bool cachethis;
	/* DDP-eligible argument (WRITE data, CREATE symlink data) */
	bool has_ddp;
	uint32_t ddp_op;          /* index of that op */
	uint32_t ddp_at;          /* trace args offset just after the length word */
	uint32_t ddp_len;
	bool ddp_inline;          /* the bytes are in the trace's args */
	uint32_t read_count;      /* READ counts summed (Write chunk size) */
	uint32_t readdir_max;     /* READDIR maxcount */
	const char *main_op;      /* the first op that is not SEQUENCE/PUT*FH/GETFH/GETATTR */
	uint32_t main_opnum;
	/* stateids given back by DELEGRETURN and FREE_STATEID (the first
	 * NFS4_DELEGRET_MAX), and whether the COMPOUND does anything else
	 * than give them back in its context (SEQUENCE, PUT*FH, GETFH,
	 * GETATTR, SAVEFH, RESTOREFH) */
	unsigned nreturned;
	struct nfs4_stateid returned[NFS4_DELEGRET_MAX];
	bool other_work;
	/* open stateids CLOSE names (the first NFS4_DELEGRET_MAX), with
	 * the index of each CLOSE */
	unsigned nclosed;
	struct nfs4_stateid closed[NFS4_DELEGRET_MAX];
	uint32_t closed_at[NFS4_DELEGRET_MAX];
};

/* Walks a captured COMPOUND's arguments (after the RPC header).  rpos: the
 * trace's Read chunk XDR position relative to args (0: none).  Returns 0
 * or -EBADMSG (an op it cannot walk: info->known false). */
int nfs4_call_parse(const uint8_t *args, size_t len, uint32_t rpos, struct nfs4_call_info *info);
/* Rewrites it into out (after an RPC header the caller wrote), with the
 * target's identities from ops.  *ddp_out: offset in out just after the
 * DDP opaque's length word (0: none); the data bytes themselves are not
 * written (the caller supplies them).  Returns 0 or a map function's
 * error, or -EBADMSG. */
int nfs4_call_rewrite(const uint8_t *args, size_t len, uint32_t rpos, const struct nfs4_rewrite_ops *ops,
		      struct xenc *out, size_t *ddp_out);
/* NFSv4.0 extras for the rewrite (ops->ctx is passed to them). */
/* Which owner a seqid belongs to (RFC 7530 section 9.1.7): named by the
 * owner itself (OPEN's open_owner4, LOCK's new lock_owner4) or by a trace
 * stateid of that owner's state (OPEN_CONFIRM, CLOSE, OPEN_DOWNGRADE,
 * LOCK on an existing lock owner or its open stateid, LOCKU). */
struct nfs4_seqid_ref {
	uint32_t idx, op;         /* the op carrying the seqid, its index */
	bool lock;                /* a lock-owner's seqid (else an open-owner's) */
	bool names_owner;         /* the op's result stateid is this owner's */
	const struct nfs4_stateid *sid;   /* trace stateid, or NULL: by owner */
	uint64_t clientid;        /* trace client ID of the owner (sid NULL) */
	const uint8_t *owner;
	uint32_t owner_len;
};
struct nfs40_rewrite_ops {
	/* SETCLIENTID_CONFIRM: the confirm verifier the target returned */
	int (*sc_confirm)(void *ctx, uint8_t verf[8]);
	/* the seqid to send instead of the trace's tseqid */
	int (*map_seqid)(void *ctx, const struct nfs4_seqid_ref *ref, uint32_t tseqid, uint32_t *out);
};
/* nfs4_call_rewrite with NFSv4.0 seqids and SETCLIENTID_CONFIRM verifier
 * replaced through v40 (NULL: copied as they are, as for 4.1).  Every
 * COMPOUND: SETCLIENTID's verifier and id come from ops->exchange_id, and
 * its callback netid and address are sent empty (the replay serves no
 * callbacks). */
int nfs4_call_rewrite_v40(const uint8_t *args, size_t len, uint32_t rpos,
			  const struct nfs4_rewrite_ops *ops, const struct nfs40_rewrite_ops *v40,
			  struct xenc *out, size_t *ddp_out);

/* ---- NFSv4.0 client (nfs40_clnt.c) ---- */
/* netid, addr: the callback address (NULL or "": none) */
void nfs4_enc_setclientid(struct xenc *e, const uint8_t verf[8], const void *id, uint32_t id_len,
			  uint32_t cb_program, const char *netid, const char *addr, uint32_t cb_ident);
void nfs4_enc_setclientid_confirm(struct xenc *e, uint64_t clientid, const uint8_t confirm[8]);
void nfs4_enc_renew(struct xenc *e, uint64_t clientid);
void nfs4_enc_open_confirm(struct xenc *e, const struct nfs4_stateid *sid, uint32_t seqid);
/* Does an open- or lock-owner's seqid advance after an op that ran and
 * returned status?  (RFC 7530 section 9.1.7: on success and on most
 * errors, not on the few that say the request was not understood.) */
bool nfs40_seqid_advances(uint32_t status);
/* SETCLIENTID (the session's owner and verifier, an empty callback) and
 * SETCLIENTID_CONFIRM, synchronously, on a session of minor version 0.
 * Returns 0 or a negative errno (err says why). */
int nfs40_client_open(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		      char *err, size_t errlen);
/* RENEW of the session's client ID.  Returns 0, -EPROTO (an NFS error,
 * *st) or another negative errno. */
int nfs40_renew(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c, uint32_t *st);
/* PUTFH fh, OPEN_CONFIRM sid seqid, synchronously; res: the reply. */
int nfs40_open_confirm(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		       const struct nfs_fh *fh, const struct nfs4_stateid *sid, uint32_t seqid,
		       struct nfs4_res *res);

/* The replay's open- and lock-owners, keyed by the trace's (client ID,
 * owner bytes), with the next seqid to send; and which owner a trace
 * stateid's `other` belongs to. */
struct nfs40_owner {
	struct nfs40_owner *next;
	uint64_t h, tclientid;
	bool lock;
	bool used;                /* a seqid was sent for it */
	uint32_t seqid;           /* the next one to send */
	uint32_t len;
	uint8_t *bytes;
};
struct nfs40_sidowner {
	struct nfs40_sidowner *next;
	uint8_t other[12];
	struct nfs40_owner *o;
};
struct nfs40_owners {
	struct nfs40_owner *b[256];
	struct nfs40_sidowner *s[256];
	size_t n;
};
/* The owner (created on first sight; NULL when out of memory). */
struct nfs40_owner *nfs40_owner_get(struct nfs40_owners *t, bool lock, uint64_t tclientid,
				    const uint8_t *owner, uint32_t len);
/* The owner of a trace stateid (NULL: not known). */
struct nfs40_owner *nfs40_owner_of(const struct nfs40_owners *t, const uint8_t other[12]);
void nfs40_owner_bind(struct nfs40_owners *t, const uint8_t other[12], struct nfs40_owner *o);
void nfs40_owners_free(struct nfs40_owners *t);

/* A name for a NFSv4 operation number. */
const char *nfs4_clnt_op_name(uint32_t op);

#endif
