#include "dissect/check.h"

#include <stdio.h>

#include "dissect/programs.h"
#include "dissect/rpcrdma.h"
#include "dissect/rpcrdma2.h"
#include "dissect/xdr.h"

/* Section numbers: RFC 8166 (RPC-over-RDMA v1), RFC 8267 (NFS ULB),
 * "impl-exp" = draft-cel-nfsv4-rfc5666-implementation-experience-02. */
static const struct finding_info infos[FND__COUNT] = {
	[FND_NOT_ELIGIBLE] = { "not-ddp-eligible", "RFC 8267 §4, §5, §6.1; RFC 8166 §3.4.2",
		"chunk on a procedure that is not DDP-eligible (%u chunk(s), %llu bytes)" },
	[FND_WLIST_MISMATCH] = { "write-list-mismatch", "RFC 8267 §6.4.1; impl-exp §3.7, §5.1",
		"Write list has %u chunk(s) but the COMPOUND has %llu READ/READLINK op(s)" },
	[FND_WRITE_ROUNDUP] = { "write-roundup", "RFC 8166 §3.4.6; impl-exp §3.6",
		"Write chunk XDR roundup: chunk %u carries %llu byte(s) of padding" },
	[FND_P0_IN_MSG] = { "p0-in-msg", "RFC 8166 §3.5.3; impl-exp §3.4",
		"position-zero Read chunk in an RDMA_MSG (%u segment(s), %llu bytes)" },
	[FND_INLINE_OVERSIZE] = { "inline-oversize", "RFC 8166 §3.3.2; impl-exp §4.1, §4.2",
		"inline message of %u bytes exceeds the %llu-byte inline threshold" },
	[FND_CREDIT_OVERRUN] = { "credit-overrun", "RFC 8166 §3.3.1; impl-exp §4.4",
		"%u calls outstanding but only %llu credits granted" },
	[FND_READ_PAST_CHUNK] = { "read-past-chunk", "RFC 8166 §3.4.5",
		"RDMA READ ends %u byte(s) past the segment (handle 0x%llx)" },
	[FND_UNMATCHED_REPLY] = { "unmatched-reply", "RFC 8166 §4.2.1; RFC 5531 §9",
		"reply with no outstanding call (xid 0x%08x)%.0llu" },
	[FND_READ_PLUS_WCHUNK] = { "read-plus-write-chunk", "RFC 8267 §6.1; nfs-ulb-v2 §5.1.1",
		"READ_PLUS call provided %u Write chunk(s)%.0llu" },
	[FND_RDMA_ERROR] = { "rdma-error", "RFC 8166 §4.5",
		"RDMA_ERROR %u (1 ERR_VERS, 2 ERR_CHUNK)%.0llu" },   /* see finding_format for v2 */
	[FND_WRITE_PAST_CHUNK] = { "write-past-chunk", "RFC 8166 §3.4.6",
		"RDMA WRITE ends %u byte(s) past the segment (handle 0x%llx)" },
	[FND_WLIST_ECHO_LONGER] = { "write-list-overrun", "RFC 8166 §4.3.2; impl-exp §3.7",
		"reply's Write list returns %u bytes but chunk provided %llu" },
	[FND_RDMA_UNMATCHED] = { "rdma-unmatched", "RFC 8166 §3.4.3",
		"RDMA operation on handle 0x%08x offset 0x%llx matches no advertised segment" },
	[FND_NOMSG_NO_CHUNK] = { "nomsg-without-reply-chunk", "RFC 8166 §3.5.3, §4.3.3",
		"RDMA_NOMSG reply to a call that offered no Reply chunk%.0u%.0llu" },
	[FND_WRITE_PAD_SEGMENT] = { "write-pad-segment", "RFC 8166 §3.4.6 (SHOULD NOT); impl-exp §3.6",
		"Write chunk %u ends in a %llu-byte segment for the XDR pad of an unaligned result" },
};

const struct finding_info *finding_info(unsigned id)
{
	return id < FND__COUNT ? &infos[id] : NULL;
}

void rec_add_finding(struct nfsrdma_record *r, unsigned id, uint32_t a, uint64_t b)
{
	if (id >= FND__COUNT)
		return;
	r->findings |= 1ull << id;
	if (r->nfindings < REC_MAX_FINDINGS) {
		struct rec_finding *f = &r->finding[r->nfindings++];
		f->id = (uint16_t)id;
		f->pad = 0;
		f->a = a;
		f->b = b;
	}
}

const char *finding_section(unsigned id, uint64_t b)
{
	const struct finding_info *fi = finding_info(id);

	if (id == FND_RDMA_ERROR && b == 2)   /* b: the RPC-over-RDMA version */
		return "draft-ietf-nfsv4-rpcrdma-version-two-07 §7";
	return fi ? fi->section : "";
}

int finding_format(char *buf, size_t len, unsigned id, uint32_t a, uint64_t b)
{
	const struct finding_info *fi = finding_info(id);
	char text[256];

	if (!fi)
		return snprintf(buf, len, "finding-%u", id);
	if (id == FND_RDMA_ERROR && b == 2)   /* b: the RPC-over-RDMA version */
		return snprintf(buf, len, "%s: RDMA2_ERROR ERR_%s (%u) [%s]",
				fi->name, rpcrdma2_err_name(a), a, finding_section(id, b));
	if (id == FND_RDMA_ERROR)
		return snprintf(buf, len, "%s: RDMA_ERROR %s (%u) [%s]", fi->name, rpcrdma_err_name(a), a,
				fi->section);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(text, sizeof(text), fi->text, a, (unsigned long long)b);
#pragma GCC diagnostic pop
	return snprintf(buf, len, "%s: %s [%s]", fi->name, text, fi->section);
}

void check_record(struct nfsrdma_record *r, const struct prog_info *p,
		  const struct xdr_ddp *call_ddp, const struct xdr_ddp *reply_ddp,
		  const uint64_t *wchunk_len, unsigned nwchunks)
{
	if (!(r->flags & RECF_CALL))
		return;
	/* DDP eligibility of single-procedure programs: the procedure alone
	 * decides it, so arguments left undecoded (a LOOKUP name moved by a
	 * Read chunk is exactly what leaves them so) do not hide it.  NFSv4
	 * is judged per op by nfs4.c (it knows which ops consumed chunks). */
	if (p && p->ddp_eligible && !(r->prog == PROG_NFS && r->vers == 4)) {
		unsigned args_chunks = r->n_read_chunks - ((r->flags & RECF_ARGS_DDP) ? 1 : 0);
		if (args_chunks && !p->ddp_eligible(r->vers, r->proc, false))
			rec_add_finding(r, FND_NOT_ELIGIBLE, args_chunks, r->read_chunk_bytes);
		if (r->n_write_chunks && !p->ddp_eligible(r->vers, r->proc, true))
			rec_add_finding(r, FND_NOT_ELIGIBLE, r->n_write_chunks, r->write_chunk_bytes);
	}
	/* Write list echo: never more than the chunk offered; and a result
	 * whose length was rounded up to XDR alignment means the responder
	 * counted (or wrote) the pad. */
	if (reply_ddp && r->flags & RECF_REPLY) {
		for (unsigned i = 0; i < reply_ddp->nwrite && i < nwchunks; i++) {
			uint64_t got = reply_ddp->write_len[i], have = wchunk_len[i];
			if (got > have)
				rec_add_finding(r, FND_WLIST_ECHO_LONGER, (uint32_t)got, have);
		}
		if (reply_ddp->nwrite == 1 && r->res_count && (r->res_count & 3) &&
		    reply_ddp->write_len[0] == ((uint64_t)r->res_count + 3) / 4 * 4)
			rec_add_finding(r, FND_WRITE_ROUNDUP, 0, reply_ddp->write_len[0] - r->res_count);
	}
	(void)call_ddp;
}
