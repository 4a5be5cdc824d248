/* Conformance findings: each names the rule and the section it breaks
 * (RFC 8166, RFC 8267, the RPC-over-RDMA v1 implementation-experience
 * draft §3-§4).  Findings are stored in the per-XID record (bitmask +
 * details) and formatted only when printed. */
#ifndef NFSRDMA_DISSECT_CHECK_H
#define NFSRDMA_DISSECT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"

enum finding_id {
	FND_NOT_ELIGIBLE = 0,   /* chunk on a procedure / op that is not DDP-eligible */
	FND_WLIST_MISMATCH,     /* Write list entries vs READ/READLINK ops in a COMPOUND */
	FND_WRITE_ROUNDUP,      /* Write chunk provisioned / written with XDR roundup */
	FND_P0_IN_MSG,          /* position-zero Read chunk in RDMA_MSG */
	FND_INLINE_OVERSIZE,    /* inline message larger than the receiver's inline threshold */
	FND_CREDIT_OVERRUN,     /* more calls outstanding than credits granted */
	FND_READ_PAST_CHUNK,    /* RDMA READ beyond the segment the chunk advertised */
	FND_UNMATCHED_REPLY,    /* reply with no outstanding call */
	FND_READ_PLUS_WCHUNK,   /* NFSv4.2 READ_PLUS with a Write chunk */
	FND_RDMA_ERROR,         /* RDMA_ERROR seen */
	FND_WRITE_PAST_CHUNK,   /* RDMA WRITE beyond the segment */
	FND_WLIST_ECHO_LONGER,  /* reply's Write list returns more bytes than provided */
	FND_RDMA_UNMATCHED,     /* RDMA READ/WRITE tied to no advertised segment */
	FND_NOMSG_NO_CHUNK,     /* RDMA_NOMSG reply but the call offered no Reply chunk */
	FND_WRITE_PAD_SEGMENT,  /* Write chunk provisioned with room for the XDR pad (SHOULD NOT) */
	FND__COUNT
};

struct finding_info {
	const char *name;     /* short id, e.g. "p0-in-msg" */
	const char *section;  /* "RFC 8166 §3.5.3; impl-exp §3.4" */
	const char *text;     /* what is wrong, printf format taking (a, b) */
};

const struct finding_info *finding_info(unsigned id);
/* Adds a finding (the bitmask always; the detail while room remains). */
void rec_add_finding(struct nfsrdma_record *r, unsigned id, uint32_t a, uint64_t b);
/* The section one finding breaks: its table's, or the version 2 draft's
 * for an RDMA2_ERROR (b = the RPC-over-RDMA version, as stored). */
const char *finding_section(unsigned id, uint64_t b);
/* "name: text [section]" into buf. */
int finding_format(char *buf, size_t len, unsigned id, uint32_t a, uint64_t b);

struct xdr_ddp;
struct prog_info;
/* Whole-RPC rules that need both call and reply (run at completion). */
void check_record(struct nfsrdma_record *r, const struct prog_info *p,
		  const struct xdr_ddp *call_ddp, const struct xdr_ddp *reply_ddp,
		  const uint64_t *wchunk_len, unsigned nwchunks);

#endif
