/* NFSv4.x COMPOUND / CB_COMPOUND names shared with the output code (the
 * operation names themselves are in nfs_vocab.h). */
#ifndef NFSRDMA_NFS4_H
#define NFSRDMA_NFS4_H

#include <stdint.h>

#include "dissect/nfs_vocab.h"
#include "dissect/record.h"

/* The COMPOUND's main operation: the first op that is not SEQUENCE,
 * PUTFH/PUTROOTFH/PUTPUBFH, or a trailing GETATTR/GETFH; "COMPOUND" if
 * none (e.g. an empty one), "NULL" for procedure 0. */
const char *nfs4_compound_name(const struct nfsrdma_record *r);
extern const char *const nfs4_compound_names[];

#endif
