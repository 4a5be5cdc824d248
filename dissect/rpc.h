/* ONC RPC version 2 message header (RFC 5531): call and reply, with the
 * AUTH_NONE / AUTH_SYS / RPCSEC_GSS credential fields we report. */
#ifndef NFSRDMA_RPC_H
#define NFSRDMA_RPC_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/dtree.h"
#include "dissect/extract.h"

enum { RPC_CALL = 0, RPC_REPLY = 1 };
enum { RPC_MSG_ACCEPTED = 0, RPC_MSG_DENIED = 1 };
enum { AUTH_NONE = 0, AUTH_SYS = 1, AUTH_SHORT = 2, AUTH_DH = 3, RPCSEC_GSS = 6, AUTH_TLS = 7 };
enum { RPC_GSS_SVC_NONE = 1, RPC_GSS_SVC_INTEGRITY = 2, RPC_GSS_SVC_PRIVACY = 3 };

#define RPC_MAX_AUTH 400  /* RFC 5531: opaque_auth body is at most 400 bytes */

struct rpc_msg {
	uint32_t xid, mtype;
	/* call */
	uint32_t rpcvers, prog, vers, proc;
	uint32_t cred_flavor, cred_len;
	uint32_t sys_stamp, sys_uid, sys_gid, sys_ngids;
	char     sys_machine[64];
	uint32_t gss_vers, gss_proc, gss_seq, gss_svc;
	uint32_t verf_flavor;
	/* reply */
	uint32_t reply_stat, accept_stat, reject_stat, auth_stat;
	uint32_t mis_low, mis_high;
	size_t   body_off;   /* offset of args/results in the cursor */
};

/* Decodes the header at c->off.  Returns 0 (c->off then at args/results),
 * or -EBADMSG with the cursor's error set.  When tree is non-NULL the
 * header's fields are appended to it. */
int rpc_decode(struct rpc_msg *m, struct cursor *c, struct dtree *tree);

/* Quick look: is this plausibly an RPC message?  Returns RPC_CALL,
 * RPC_REPLY or -1, from the msg_type word at p+4. */
int rpc_peek_type(const uint8_t *p, size_t len);

const char *rpc_accept_name(uint32_t s);
const char *rpc_auth_stat_name(uint32_t s);

#endif
