/* The one naming of a record, used by every output, the aggregation, the
 * metrics and the replay, so the same RPC has the same name everywhere:
 * its program ("NFSv4.1"), its procedure or COMPOUND name ("LOOKUP_ROOT",
 * as the Linux client names it) and its endpoints ("10.9.0.2.qp17"). */
#ifndef NFSRDMA_RECORD_NAMES_H
#define NFSRDMA_RECORD_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "dissect/record.h"

/* "NFSv3" / "NFSv4.1" / "MOUNTv3" / "prog 1234 v1" */
const char *rec_prog_str(const struct nfsrdma_record *r, char *buf, size_t len);
/* "READ" / main op of a COMPOUND / "proc 99" / "?" if the call was not seen */
const char *rec_proc_str(const struct nfsrdma_record *r, char *buf, size_t len);
/* "NFSv3 READ" */
const char *rec_name_str(const struct nfsrdma_record *r, char *buf, size_t len);
/* "10.9.0.2.qp17" (the address alone when the QP is unknown); TCP/UDP:
 * "10.9.0.2.871", "[fd00::2].871" */
const char *rec_ep_str(const struct rec_endpoint *e, char *buf, size_t len);
/* Does any op / the procedure name match (case-insensitive)? */
bool rec_has_op(const struct nfsrdma_record *r, const char *name);

#endif
