#include <inttypes.h>

#include "src/out/out.h"
#include "src/out/recfmt.h"

/* A pull with no RDMA READ, a push with no RDMA WRITE, seen by any
 * vantage: "-" as on the wire's line, not the 0 ns the fused split
 * gives it (docs/record.md, "Fused phases"). */
static bool fused_none(const struct nfsrdma_record *r, unsigned ph)
{
	if (r->f_merged & (1u << ph) || r->f_phase[ph])
		return false;
	if (ph == REC_FP_PULL)
		return !r->t_read_first && !r->vt_server[RST_READ_POST] && !r->vt_server[RST_READ_DONE];
	if (ph == REC_FP_PUSH)
		return !r->t_write_first && !r->vt_server[RST_WRITE_POST] && !r->vt_server[RST_WRITE_DONE];
	return false;
}

/* A joined record: its vantages, the fused total and phases (a merged
 * span under its joined name), what the join flagged. */
static void fused_phases(FILE *f, const struct nfsrdma_record *r)
{
	char d[24], nb[160];
	unsigned n = 0;

	fputs(" [", f);
	for (unsigned b = REC_VT_CLIENT; b <= REC_VT_SERVER; b <<= 1)
		if (r->vantages & b)
			fprintf(f, "%s%s", n++ ? "+" : "", rec_vantage_name(b));
	/* the spans in time order, rounded as one split (dur_split) */
	uint64_t span[REC_FP_N], pr[REC_FP_N];
	unsigned idx[REC_FP_N], nk = 0;
	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		if (r->f_mask & (1u << ph)) {
			idx[nk] = ph;
			span[nk++] = r->f_phase[ph];
		}
	uint64_t tot = dur_split(r->f_total, span, nk, pr);
	fprintf(f, "] total %s [", r->f_mask ? fmt_dur0(tot, d, sizeof(d)) : "-");
	for (unsigned i = 0; i < nk; i++)
		fprintf(f, "%s%s %s", i ? " " : "", rec_fphase_span_name(r->f_merged, idx[i], nb, sizeof(nb)),
			fused_none(r, idx[i]) ? "-" : fmt_dur0(pr[i], d, sizeof(d)));
	fputc(']', f);
	if (r->f_uncert_ns && r->f_uncert_ns != UINT64_MAX)
		fprintf(f, " +/-%s", fmt_dur(r->f_uncert_ns, d, sizeof(d)));
	if (r->f_flags & RECFF_NEGATIVE) {
		/* who contradicted whom (docs/record.md): one vantage's own
		 * times, or two vantages' beyond the alignment */
		static const char *const why[4] = { "client", "wire", "server", "clock" };
		fputs(" (negative phase", f);
		for (unsigned k = 0, said = 0; k < 4; k++)
			if (r->f_flags & (RECFF_NEG_CLIENT << k))
				fprintf(f, "%s%s", said++ ? "+" : ": ", why[k]);
		fputc(')', f);
	}
	if (r->f_flags & (RECFF_UNBOUNDED | RECFF_NO_CLOCK))
		fputs(" (clock unbounded)", f);
	if (r->f_flags & RECFF_EVICTED)
		fputs(" (partial)", f);
	if (r->f_flags & RECFF_DUP_XID)
		fputs(" (dup xid)", f);
	if (r->f_flags & RECFF_RETRANSMIT)
		fputs(" (retransmitted)", f);
}

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
	if (rec_is_fused(r)) {
		fused_phases(f, r);
	} else {
		unsigned ph[REC_PH_N], nph = rec_phases_shown(r, ph);
		uint64_t pr[REC_PH_N], t = rec_phases_printed(r, ph, nph, pr);
		fprintf(f, " total %s [", rec_total_known(r) ? fmt_dur0(t, tot, sizeof(tot)) : "-");
		for (unsigned i = 0; i < nph; i++)
			fprintf(f, "%s%s %s", i ? " " : "", rec_phase_name(ph[i]),
				rec_phase_seen(r, ph[i]) ? fmt_dur0(pr[i], d, sizeof(d)) : "-");
		fputc(']', f);
	}
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
