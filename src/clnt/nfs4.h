/* NFSv4 COMPOUND pieces for the replay tool and the load generator (the
 * operation numbers and names are in dissect/nfs_vocab.h): the statuses
 * and flags the clients use, COMPOUND encoders (RFC 8881, RFC 7530;
 * nfs4_enc.c, nfs40_clnt.c) and a bounded decoder of COMPOUND replies
 * (nfs4_reply.c).  The session and the
 * NFSv4.0 client are in nfs4_session.h, the callback service in
 * nfs4_cb.h, the rewriter of captured COMPOUNDs in nfs4_rewrite.h. */
#ifndef NFSRDMA_CLNT_NFS4_H
#define NFSRDMA_CLNT_NFS4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/nfs_vocab.h"
#include "src/xprt/xdr_enc.h"

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

/* ---- encoders (nfs4_enc.c): append to a COMPOUND being built ---- */
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
/* CREATE of a directory (NF4DIR) with this mode. */
void nfs4_enc_create_dir(struct xenc *e, const char *name, uint32_t mode);
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

/* ---- reply decoding (nfs4_reply.c) ---- */
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

/* ---- NFSv4.0 encoders (nfs40_clnt.c) ---- */
/* netid, addr: the callback address (NULL or "": none) */
void nfs4_enc_setclientid(struct xenc *e, const uint8_t verf[8], const void *id, uint32_t id_len,
			  uint32_t cb_program, const char *netid, const char *addr, uint32_t cb_ident);
void nfs4_enc_setclientid_confirm(struct xenc *e, uint64_t clientid, const uint8_t confirm[8]);

#endif
