/* The NFSv4 client state of the replay tool and the load generator: the
 * NFSv4.1 session (EXCHANGE_ID, CREATE_SESSION, SEQUENCE slots;
 * nfs41_session.c) and the NFSv4.0 client (SETCLIENTID, RENEW, open- and
 * lock-owner seqids; nfs40_clnt.c). */
#ifndef NFSRDMA_CLNT_NFS4_SESSION_H
#define NFSRDMA_CLNT_NFS4_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/clnt/nfs4.h"
#include "src/xprt/xprt.h"

/* ---- the session (nfs41_session.c) ---- */
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
/* A CREATE_SESSION reply becomes s's session: its ID, as many slots as
 * both sides allow (asked, the server's, NFS41_MAX_SLOTS; at least 1), all
 * fresh, the request sizes; the create-session sequence moves on. */
void nfs41_session_adopt(struct nfs41_session *s, const struct nfs4_res *r, uint32_t asked);
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
/* The same in two halves, for a caller that does not wait: the COMPOUND's
 * one op (an nfs41_build_fn, ctx the session), and what its reply says
 * (the return values of nfs41_bind_conn). */
unsigned nfs41_build_bind_conn(struct xenc *e, void *session);
int nfs41_bind_conn_result(const struct nfs41_session *s, const struct nfs4_res *r, uint32_t *dir);
/* PUTROOTFH, then LOOKUP of each component of path; out: the handle.
 * Returns 0, -ENOENT (*st: the failing status) or another errno. */
int nfs41_lookup_path(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		      const char *path, struct nfs_fh *out, uint32_t *st);

/* ---- NFSv4.0 client (nfs40_clnt.c) ---- */
/* Does an open- or lock-owner's seqid advance after an op that ran and
 * returned status?  (RFC 7530 section 9.1.7: on success and on most
 * errors, not on the few that say the request was not understood.) */
bool nfs40_seqid_advances(uint32_t status);
/* SETCLIENTID (the session's owner and verifier, an empty callback) and
 * SETCLIENTID_CONFIRM, synchronously, on a session of minor version 0.
 * Returns 0 or a negative errno (err says why). */
int nfs40_client_open(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		      char *err, size_t errlen);
/* RENEW's one op, for a caller that does not wait (ctx: the session). */
unsigned nfs40_build_renew(struct xenc *e, void *session);
/* PUTFH fh, OPEN_CONFIRM sid seqid, synchronously; res: the reply. */
int nfs40_open_confirm(struct xprt *x, struct nfs41_session *s, const struct rpc_cred *c,
		       const struct nfs_fh *fh, const struct nfs4_stateid *sid, uint32_t seqid,
		       struct nfs4_res *res);

#endif
