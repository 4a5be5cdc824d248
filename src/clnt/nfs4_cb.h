/* Serving the server's NFSv4 callbacks: the NFSv4.1+ back channel
 * (nfs41_cb.c) and the NFSv4.0 callback server (nfs40_cb_server.c). */
#ifndef NFSRDMA_CLNT_NFS4_CB_H
#define NFSRDMA_CLNT_NFS4_CB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/clnt/nfs4.h"

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

#endif
