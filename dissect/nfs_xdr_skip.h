/* Bounded walks over NFS XDR that the decoders and the replay's clients
 * both need: sattr3 (RFC 1813), bitmap4 / fattr4, OPEN's openflag4 and
 * the whole OPEN4args (RFC 8881 section 18.16).  Each reads through the
 * cursor of extract.h only; on a bad value the cursor fails at the
 * offending word (CUR_INVALID), on short input it is truncated, and the
 * walk returns cur_ok(c).  Nothing is printed or allocated. */
#ifndef NFSRDMA_NFS_XDR_SKIP_H
#define NFSRDMA_NFS_XDR_SKIP_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/extract.h"

#define NFS4_BITMAP4_MAX    64          /* words; a longer bitmap4 is invalid */
#define NFS4_ATTRLIST4_MAX  (1u << 20)  /* bytes of a fattr4's attr_vals */
#define NFS4_OWNER4_MAX     1024        /* open_owner4 / lock_owner4 owner bytes */
#define NFS4_COMPONENT4_MAX 4096

/* sattr3: the four set_* unions of mode, uid, gid, size and the two
 * set_*time unions. */
bool nfs3_skip_sattr3(struct cursor *c);

/* bitmap4; w0, w1 (may be NULL): its first two words, untouched when absent. */
bool nfs4_skip_bitmap4(struct cursor *c, uint32_t *w0, uint32_t *w1);
/* fattr4: bitmap4 + attr_vals opaque. */
bool nfs4_skip_fattr4(struct cursor *c);

/* OPEN's openflag4: opentype4 and, for OPEN4_CREATE, createhow4.
 * *create (may be NULL): OPEN4_CREATE. */
bool nfs4_skip_openflag4(struct cursor *c, bool *create);

/* open_claim4 types (RFC 8881 section 18.16.1) */
enum nfs4_open_claim_type {
	NFS4_CLAIM_NULL = 0, NFS4_CLAIM_PREVIOUS = 1, NFS4_CLAIM_DELEGATE_CUR = 2,
	NFS4_CLAIM_DELEGATE_PREV = 3, NFS4_CLAIM_FH = 4, NFS4_CLAIM_DELEG_CUR_FH = 5,
	NFS4_CLAIM_DELEG_PREV_FH = 6,
};

/* OPEN4args as walked: pointers into the cursor's buffer. */
struct nfs4_open_args {
	uint32_t seqid;                 /* 4.0 open-owner seqid */
	uint32_t share_access, share_deny;
	uint64_t clientid;
	const uint8_t *owner;
	uint32_t owner_len;
	bool create;
	uint32_t claim;                 /* enum nfs4_open_claim_type */
	uint32_t delegate_type;         /* CLAIM_PREVIOUS */
	const uint8_t *deleg_stateid;   /* 16 bytes: CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH; else NULL */
	const uint8_t *name;            /* component4: CLAIM_NULL, DELEGATE_CUR, DELEGATE_PREV; else NULL */
	uint32_t name_len;
};
/* The whole OPEN4args (after the opnum). */
bool nfs4_walk_open_args(struct cursor *c, struct nfs4_open_args *a);

#endif
