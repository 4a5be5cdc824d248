/* Field export (--fields): one CSV or TSV row per RPC, columns named with
 * Wireshark's display-filter field names where one exists with the same
 * meaning (rpcordma.xid, rpc.procedure, nfs.opcode...), and
 * nfsrdma.* names for what Wireshark has no field for (the latency split,
 * chunk mix, DDP bytes).  Values print as `tshark -T fields` prints them
 * (hex XIDs, epoch seconds, comma-joined repeated fields), so the two
 * outputs can be joined on frame.number. */
#ifndef NFSRDMA_EXPORT_FIELDS_H
#define NFSRDMA_EXPORT_FIELDS_H

#include <stdbool.h>
#include <stdio.h>

#include "dissect/record.h"

struct fields_writer;

/* list: comma-separated names, "default" or "all".  joined: the rows are
 * joined records (--join), which have the fields of their identity, the
 * clock-free segments and the verdict, not the wire's own (frames,
 * RPC-over-RDMA header, the wire's phases).  Returns NULL with the reason
 * in err for an unknown name, or one the records do not have. */
struct fields_writer *fields_open(FILE *out, const char *list, bool tsv, bool joined, char *err, size_t errlen);
/* The header is written before the first row. */
void fields_record(struct fields_writer *w, const struct nfsrdma_record *r);
void fields_close(struct fields_writer *w);
/* One line per known field: name and meaning. */
void fields_help(FILE *f);

#endif
