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

#endif
