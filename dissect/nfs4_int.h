/* Inside the NFSv4 decoder (nfs4.c, nfs4_xdr.c, nfs4_res.c, nfs4_cb.c):
 * its bounds, the operation numbers and the XDR pieces the four files
 * share.  Not for use outside them. */
#ifndef NFSRDMA_NFS4_INT_H
#define NFSRDMA_NFS4_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/nfs4.h"
#include "dissect/nfs_status.h"
#include "dissect/programs.h"
#include "dissect/xdr.h"

#define NFS4_FHSIZE   128
#define NFS4_OPAQUE   1024
#define NFS4_MAXOPS   4096  /* sanity bound on argarray/resarray */
#define BIG           (1u << 20)

enum {
	OP_ACCESS = 3, OP_CLOSE, OP_COMMIT, OP_CREATE, OP_DELEGPURGE, OP_DELEGRETURN, OP_GETATTR,
	OP_GETFH, OP_LINK, OP_LOCK, OP_LOCKT, OP_LOCKU, OP_LOOKUP, OP_LOOKUPP, OP_NVERIFY, OP_OPEN,
	OP_OPENATTR, OP_OPEN_CONFIRM, OP_OPEN_DOWNGRADE, OP_PUTFH, OP_PUTPUBFH, OP_PUTROOTFH,
	OP_READ, OP_READDIR, OP_READLINK, OP_REMOVE, OP_RENAME, OP_RENEW, OP_RESTOREFH, OP_SAVEFH,
	OP_SECINFO, OP_SETATTR, OP_SETCLIENTID, OP_SETCLIENTID_CONFIRM, OP_VERIFY, OP_WRITE,
	OP_RELEASE_LOCKOWNER, OP_BACKCHANNEL_CTL, OP_BIND_CONN_TO_SESSION, OP_EXCHANGE_ID,
	OP_CREATE_SESSION, OP_DESTROY_SESSION, OP_FREE_STATEID, OP_GET_DIR_DELEGATION,
	OP_GETDEVICEINFO, OP_GETDEVICELIST, OP_LAYOUTCOMMIT, OP_LAYOUTGET, OP_LAYOUTRETURN,
	OP_SECINFO_NO_NAME, OP_SEQUENCE, OP_SET_SSV, OP_TEST_STATEID, OP_WANT_DELEGATION,
	OP_DESTROY_CLIENTID, OP_RECLAIM_COMPLETE, OP_ALLOCATE, OP_COPY, OP_COPY_NOTIFY,
	OP_DEALLOCATE, OP_IO_ADVISE, OP_LAYOUTERROR, OP_LAYOUTSTATS, OP_OFFLOAD_CANCEL,
	OP_OFFLOAD_STATUS, OP_READ_PLUS, OP_SEEK, OP_WRITE_SAME, OP_CLONE, OP_GETXATTR,
	OP_SETXATTR, OP_LISTXATTRS, OP_REMOVEXATTR, OP_LAST = OP_REMOVEXATTR,
	OP_ILLEGAL = 10044,
};

enum {
	CB_GETATTR = 3, CB_RECALL, CB_LAYOUTRECALL, CB_NOTIFY, CB_PUSH_DELEG, CB_RECALL_ANY,
	CB_RECALLABLE_OBJ_AVAIL, CB_RECALL_SLOT, CB_SEQUENCE, CB_WANTS_CANCELLED,
	CB_NOTIFY_LOCK, CB_NOTIFY_DEVICEID, CB_OFFLOAD,
};

extern const char *const nfs4_share_names[4];
extern const char *const nfs4_claim_names[7];
extern const char *const nfs4_deleg_names[4];

/* nfs4_xdr.c: shared XDR types */
void nfs4_bitmap4(struct pdec *d, uint32_t *w0, uint32_t *w1);
void nfs4_fattr4(struct pdec *d);
const char *nfs4_cdfc4_name(uint32_t dir);
void nfs4_seq4_status_flags(struct pdec *d, uint32_t f);
uint32_t nfs4_stateid4(struct pdec *d);
uint32_t nfs4_stateid4_dt(struct pdec *d, const char *label);
void nfs4_component(struct pdec *d, char *out, size_t len);
void nfs4_change_info4(struct pdec *d);
void nfs4_nfstime4(struct pdec *d);
void nfs4_lock_owner4(struct pdec *d);
void nfs4_netaddr4(struct pdec *d);
void nfs4_netloc4(struct pdec *d);
uint32_t nfs4_array_count(struct pdec *d, uint32_t max, const char *what);
void nfs4_sec_parms(struct pdec *d);
void nfs4_channel_attrs4(struct pdec *d);
void nfs4_state_protect_ops4(struct pdec *d);
void nfs4_skip_oid_array(struct pdec *d);
void nfs4_impl_id(struct pdec *d);
void nfs4_open_delegation4(struct pdec *d);
void nfs4_write_response4(struct pdec *d);
void nfs4_layoutupdate4(struct pdec *d);

/* nfs4.c: COMPOUND, shared with CB_COMPOUND */
bool nfs4_too_many_ops(struct pdec *d, uint32_t n, const char *what);
bool nfs4_argarray_count(struct pdec *d, uint32_t *n);
struct rec_op *nfs4_call_op_slot(struct nfsrdma_record *r, uint32_t i, struct rec_op *scratch, uint16_t op);

/* nfs4_res.c: results */
bool nfs4_op_res(struct pdec *d, uint32_t op, uint32_t st, struct rec_op *o);

#endif
