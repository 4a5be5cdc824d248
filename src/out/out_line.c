#include <inttypes.h>

#include "src/out/out.h"
#include "src/out/recfmt.h"

void out_line(FILE *f, const struct nfsrdma_record *r)
{
	char ts[40], a[80], b[80], name[96], st[48], tot[24], d[24], mix[40];
	uint64_t t0 = r->t_call_first ? r->t_call_first : r->t_reply_first;

	fprintf(f, "%s %s > %s xid 0x%08x %s", fmt_ts(t0, ts, sizeof(ts)),
		rec_ep_str(&r->caller, a, sizeof(a)), rec_ep_str(&r->callee, b, sizeof(b)), r->xid,
		rec_name_str(r, name, sizeof(name)));
	if (r->flags & RECF_BACKCHANNEL)
		fputs(" (backchannel)", f);
	if (r->fh_hash)
		fprintf(f, " fh 0x%08" PRIx32, (uint32_t)r->fh_hash);
	if (r->name[0])
		fprintf(f, " \"%s\"", r->name);
	if (r->count || r->offset)
		fprintf(f, " off %" PRIu64 " len %u", r->offset, r->count);
	fprintf(f, " -> %s", rec_status_str(r, st, sizeof(st)));
	if (r->res_count)
		fprintf(f, " %u", r->res_count);
	unsigned ph[REC_PH_N], nph = rec_phases_shown(r, ph);
	fprintf(f, " total %s [", rec_total_str(r, tot, sizeof(tot)));
	for (unsigned i = 0; i < nph; i++)
		fprintf(f, "%s%s %s", i ? " " : "", rec_phase_name(ph[i]), rec_phase_str(r, ph[i], d, sizeof(d)));
	fputc(']', f);
	if (r->transport != REC_TR_RDMA) {
		/* the RPC messages' sizes; no chunks, no credits */
		fprintf(f, " %s %u/%u", rec_transport_name(r->transport), r->call_inline, r->reply_inline);
		goto flags;
	}
	fprintf(f, " inline %u/%u %s", r->call_inline, r->reply_inline,
		rec_chunk_mix(r, mix, sizeof(mix)));
	if (r->read_bytes)
		fprintf(f, " rd %" PRIu64, r->read_bytes);
	if (r->write_bytes)
		fprintf(f, " wr %" PRIu64, r->write_bytes);
	if (r->reply_bytes)
		fprintf(f, " rc %" PRIu64, r->reply_bytes);
	fprintf(f, " cr %u/%u", r->credits_asked, r->credits_granted);
flags:
	if (r->flags & RECF_TIMEOUT)
		fputs(" (no reply)", f);
	if (r->flags & RECF_NO_CALL)
		fputs(" (no call)", f);
	if (r->flags & (RECF_CALL_PARTIAL | RECF_REPLY_PARTIAL))
		fputs(" (partial)", f);
	if (r->flags & RECF_GAP)
		fputs(" (gap)", f);
	if (r->nfindings)
		fprintf(f, " findings %u", r->nfindings);
	fputc('\n', f);
}

void out_tree(FILE *f, const struct nfsrdma_record *r, const struct dtree *t)
{
	out_line(f, r);
	if (!t || !t->len)
		return;
	const char *p = t->buf, *end = t->buf + t->len;
	while (p < end) {
		const char *nl = p;
		while (nl < end && *nl != '\n')
			nl++;
		fprintf(f, "    %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}
