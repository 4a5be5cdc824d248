#include <inttypes.h>

#include "src/out/out.h"
#include "src/out/recfmt.h"

void out_line(FILE *f, const struct nfsrdma_record *r)
{
	char ts[40], a[80], b[80], name[96], st[48], tot[24], c1[24], c2[24], c3[24], c4[24],
		c5[24], mix[40];
	uint64_t t0 = r->t_call_first ? r->t_call_first : r->t_reply_first;

	fprintf(f, "%s %s > %s xid 0x%08x %s", fmt_ts(t0, ts, sizeof(ts)),
		fmt_ep(&r->caller, a, sizeof(a)), fmt_ep(&r->callee, b, sizeof(b)), r->xid,
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
	fprintf(f, " total %s [call %s pull %s srv %s push %s reply %s]",
		fmt_dur(r->d_total, tot, sizeof(tot)), fmt_dur(r->d_call, c1, sizeof(c1)),
		fmt_dur(r->d_pull, c2, sizeof(c2)), fmt_dur(r->d_server, c3, sizeof(c3)),
		fmt_dur(r->d_push, c4, sizeof(c4)), fmt_dur(r->d_reply, c5, sizeof(c5)));
	fprintf(f, " inline %u/%u %s", r->call_inline, r->reply_inline,
		rec_chunk_mix(r, mix, sizeof(mix)));
	if (r->read_bytes)
		fprintf(f, " rd %" PRIu64, r->read_bytes);
	if (r->write_bytes)
		fprintf(f, " wr %" PRIu64, r->write_bytes);
	if (r->reply_bytes)
		fprintf(f, " rc %" PRIu64, r->reply_bytes);
	fprintf(f, " cr %u/%u", r->credits_asked, r->credits_granted);
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
