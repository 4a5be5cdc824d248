/* Inside the NFSv4 decoder (nfs4.c, nfs4_xdr.c, nfs4_res.c, nfs4_cb.c):
 * its bounds and the XDR pieces the four files
 * share.  Not for use outside them. */
#ifndef NFSRDMA_NFS4_INT_H
#define NFSRDMA_NFS4_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/nfs4.h"
#include "dissect/nfs_vocab.h"
#include "dissect/nfs_status.h"
#include "dissect/programs.h"
#include "dissect/xdr.h"

#define NFS4_FHSIZE   128
#define NFS4_OPAQUE   1024
#define NFS4_MAXOPS   4096  /* sanity bound on argarray/resarray */
#define BIG           (1u << 20)

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
bool nfs4_component(struct pdec *d, char *out, size_t len);
void nfs4_component_dt(struct pdec *d, const char *label, bool keep);
extern const char *const nfs4_ftype_names[10];  /* nfs_ftype4 */
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
