/* Shared by the NFSv4 replay tests (test_replay_nfs40.c, test_replay_nfs41.c):
 * an encoded COMPOUND call, read back through the dissector's NFSv4 decoder.
 * *ok: the RPC header and every op decoded, and nothing left over. */
#ifndef NFSRDMA_TESTS_NFS4_DECODE_H
#define NFSRDMA_TESTS_NFS4_DECODE_H

#include <stdbool.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/programs.h"
#include "dissect/record.h"
#include "dissect/rpc.h"

static inline void decode(const uint8_t *msg, size_t len, struct nfsrdma_record *r, struct xdr_ddp *ddp,
			  bool *ok)
{
	struct rpc_msg rm;
	struct cursor cur = cur_make(msg, len);
	memset(r, 0, sizeof(*r));
	*ok = rpc_decode(&rm, &cur, NULL) == 0;
	struct pdec d = { .c = cur, .rec = r, .ddp = ddp, .vers = 4, .proc = 1, .layer = "nfs4" };
	prog_nfs4.decode_call(&d);
	*ok = *ok && !d.failed && cur_ok(&d.c) && d.c.off == len;
}

/* The lock-state op of a COMPOUND, read here by hand from RFC 7530's XDR
 * (independently of src/clnt/nfs41_clnt_rewrite.c's walker): the COMPOUNDs
 * the Linux NFSv4.0 client sends for locks are PUTFH + one of LOCK,
 * LOCKU, LOCKT, OPEN_DOWNGRADE, or RELEASE_LOCKOWNER alone.  Returns
 * false for any other COMPOUND or a short one. */
struct lockop {
	uint32_t op, idx;          /* the op and its index in the COMPOUND */
	uint32_t locktype;
	uint64_t offset, length;
	bool new_owner;            /* LOCK: open_to_lock_owner4 */
	uint32_t seqid;            /* LOCK: open_seqid (new) or lock_seqid; LOCKU, OPEN_DOWNGRADE: seqid */
	uint32_t lock_seqid;       /* LOCK with a new lock-owner */
	uint32_t sid_seqid;        /* the stateid4 the op carries */
	uint8_t sid_other[12];
	uint64_t clientid;         /* lock_owner4 (LOCK new, LOCKT, RELEASE_LOCKOWNER) */
	const uint8_t *owner;
	uint32_t owner_len;
	uint32_t share_access, share_deny;   /* OPEN_DOWNGRADE */
};

static inline void lockop_sid(struct cursor *c, struct lockop *l)
{
	l->sid_seqid = cur_be32(c, "stateid seqid");
	const uint8_t *p = cur_bytes(c, 12, "stateid other");
	if (p)
		memcpy(l->sid_other, p, 12);
}

static inline void lockop_owner(struct cursor *c, struct lockop *l)
{
	l->clientid = cur_be64(c, "clientid");
	l->owner = cur_xdr_opaque(c, 1024, &l->owner_len, "owner");
}

static inline bool lockop_read(const uint8_t *args, size_t len, struct lockop *l)
{
	struct cursor c = cur_make(args, len);
	memset(l, 0, sizeof(*l));
	cur_xdr_opaque(&c, 1024, NULL, "tag");
	uint32_t minor = cur_be32(&c, "minorversion"), n = cur_be32(&c, "count");
	if (!cur_ok(&c) || minor != 0 || n < 1 || n > 2)
		return false;
	uint32_t op = cur_be32(&c, "op");
	if (n == 2) {
		if (op != 22)                        /* PUTFH */
			return false;
		cur_xdr_opaque(&c, 128, NULL, "fh");
		op = cur_be32(&c, "op");
		l->idx = 1;
	}
	l->op = op;
	switch (op) {
	case 12:                                     /* LOCK */
		l->locktype = cur_be32(&c, "locktype");
		cur_skip(&c, 4, "reclaim");
		l->offset = cur_be64(&c, "offset");
		l->length = cur_be64(&c, "length");
		l->new_owner = cur_be32(&c, "new_lock_owner") != 0;
		if (l->new_owner) {
			l->seqid = cur_be32(&c, "open_seqid");
			lockop_sid(&c, l);
			l->lock_seqid = cur_be32(&c, "lock_seqid");
			lockop_owner(&c, l);
		} else {
			lockop_sid(&c, l);
			l->seqid = cur_be32(&c, "lock_seqid");
		}
		break;
	case 13:                                     /* LOCKT */
		l->locktype = cur_be32(&c, "locktype");
		l->offset = cur_be64(&c, "offset");
		l->length = cur_be64(&c, "length");
		lockop_owner(&c, l);
		break;
	case 14:                                     /* LOCKU */
		l->locktype = cur_be32(&c, "locktype");
		l->seqid = cur_be32(&c, "seqid");
		lockop_sid(&c, l);
		l->offset = cur_be64(&c, "offset");
		l->length = cur_be64(&c, "length");
		break;
	case 21:                                     /* OPEN_DOWNGRADE */
		lockop_sid(&c, l);
		l->seqid = cur_be32(&c, "seqid");
		l->share_access = cur_be32(&c, "share_access");
		l->share_deny = cur_be32(&c, "share_deny");
		break;
	case 39:                                     /* RELEASE_LOCKOWNER */
		if (n != 1)
			return false;
		lockop_owner(&c, l);
		break;
	default:
		return false;
	}
	return cur_ok(&c) && c.off == len;
}

/* Delegations, read by hand from RFC 7530 / RFC 8881 XDR (independently
 * of src/clnt/nfs4_reply.c's reply decoder and the rewrite walker). */

/* The OPEN of a COMPOUND reply (results after the RPC header) whose
 * earlier results are SEQUENCE (4.1) and PUTFH only, all OK: its index,
 * open stateid and open_delegation4 (type, and the stateid of a READ or
 * WRITE delegation).  False for any other reply. */
struct openres {
	uint32_t idx;
	uint32_t open_seqid, d_seqid, dtype;
	uint8_t open_other[12], d_other[12];
};

static inline bool openres_read(const uint8_t *res, size_t len, struct openres *o)
{
	struct cursor c = cur_make(res, len);
	memset(o, 0, sizeof(*o));
	cur_be32(&c, "status");
	cur_xdr_opaque(&c, 1024, NULL, "tag");
	uint32_t n = cur_be32(&c, "count");
	for (uint32_t i = 0; i < n && i < 8 && cur_ok(&c); i++) {
		uint32_t op = cur_be32(&c, "resop"), st = cur_be32(&c, "status");
		if (!cur_ok(&c) || st != 0)
			return false;
		if (op == 53) {                      /* SEQUENCE4resok */
			cur_skip(&c, 16 + 4 * 5, "sequence");
			continue;
		}
		if (op == 22)                        /* PUTFH: status only */
			continue;
		if (op != 18)
			return false;
		o->idx = i;
		o->open_seqid = cur_be32(&c, "stateid seqid");
		const uint8_t *p = cur_bytes(&c, 12, "stateid other");
		if (p)
			memcpy(o->open_other, p, 12);
		cur_skip(&c, 20 + 4, "cinfo rflags");
		uint32_t bn = cur_be32(&c, "attrset");
		if (bn > 8)
			return false;
		cur_skip(&c, 4 * (size_t)bn, "attrset");
		o->dtype = cur_be32(&c, "open_delegation_type4");
		if (o->dtype == 1 || o->dtype == 2) {
			o->d_seqid = cur_be32(&c, "deleg seqid");
			p = cur_bytes(&c, 12, "deleg other");
			if (p)
				memcpy(o->d_other, p, 12);
		}
		return cur_ok(&c);
	}
	return false;
}

/* Walks a COMPOUND call to op want, past earlier ops that are SEQUENCE,
 * PUTFH and GETATTR only (as the Linux client sends them); c is left at
 * want's arguments, *idx its index.  False for any other call. */
static inline bool ops_to(struct cursor *c, uint32_t want, uint32_t *idx)
{
	cur_xdr_opaque(c, 1024, NULL, "tag");
	cur_be32(c, "minorversion");
	uint32_t n = cur_be32(c, "count");
	for (uint32_t i = 0; i < n && i < 8 && cur_ok(c); i++) {
		uint32_t op = cur_be32(c, "op");
		if (op == want) {
			*idx = i;
			return cur_ok(c);
		}
		if (op == 53) {
			cur_skip(c, 16 + 4 * 4, "sequence");
		} else if (op == 22) {
			cur_xdr_opaque(c, 128, NULL, "fh");
		} else if (op == 9) {
			uint32_t bn = cur_be32(c, "bitmap");
			if (bn > 8)
				return false;
			cur_skip(c, 4 * (size_t)bn, "bitmap");
		} else {
			return false;
		}
	}
	return false;
}

/* The stateid of op want (one whose arguments start with a stateid4:
 * READ, WRITE, SETATTR, DELEGRETURN, FREE_STATEID) in such a call. */
static inline bool argsid_read(const uint8_t *args, size_t len, uint32_t want, uint32_t *idx,
			       uint32_t *seqid, uint8_t other[12])
{
	struct cursor c = cur_make(args, len);
	if (!ops_to(&c, want, idx))
		return false;
	*seqid = cur_be32(&c, "stateid seqid");
	const uint8_t *p = cur_bytes(&c, 12, "stateid other");
	if (!p)
		return false;
	memcpy(other, p, 12);
	return true;
}

/* The OPEN of such a call (the Linux client's OPEN by handle): its claim
 * type and, for CLAIM_DELEGATE_CUR (2) and CLAIM_DELEG_CUR_FH (5), the
 * delegation stateid (RFC 8881 18.16.1). */
static inline bool openclaim_read(const uint8_t *args, size_t len, uint32_t *idx, uint32_t *claim,
				  uint32_t *seqid, uint8_t other[12])
{
	struct cursor c = cur_make(args, len);
	if (!ops_to(&c, 18, idx))
		return false;
	cur_skip(&c, 4 + 8 + 8, "seqid share_access share_deny clientid");
	cur_xdr_opaque(&c, 1024, NULL, "owner");
	if (cur_be32(&c, "opentype4") != 0)
		return false;          /* OPEN4_CREATE: not needed here */
	*claim = cur_be32(&c, "open_claim_type4");
	*seqid = 0;
	memset(other, 0, 12);
	if (*claim == 2 || *claim == 5) {
		*seqid = cur_be32(&c, "stateid seqid");
		const uint8_t *p = cur_bytes(&c, 12, "stateid other");
		if (!p)
			return false;
		memcpy(other, p, 12);
	}
	return cur_ok(&c);
}

#endif
