/* Re-issuing a captured NFSv4 COMPOUND with the target's client ID,
 * session, slots, seqids, file handles and stateids (nfs41_clnt_rewrite.c),
 * and the replay's NFSv4.0 open- and lock-owners (nfs40_clnt.c). */
#ifndef NFSRDMA_CLNT_NFS4_REWRITE_H
#define NFSRDMA_CLNT_NFS4_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"

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
	/* PUTROOTFH becomes PUTFH of this handle (NULL: PUTROOTFH stays) */
	const struct nfs_fh *root;
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

#endif
