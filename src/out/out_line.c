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

/* What a line prints of a record's split, rounded as one (dur_split):
 * each span's name and time ("-": it did not happen), the total. */
enum { SPLIT_N = (int)REC_FP_N > (int)REC_PH_N ? (int)REC_FP_N : (int)REC_PH_N };

struct split {
	unsigned n;
	bool known;                 /* the total: else "-" */
	uint64_t total;
	uint64_t ns[SPLIT_N];
	bool none[SPLIT_N];
	uint64_t unc[SPLIT_N];      /* a direction given with this +/- (0: none shown) */
	char name[SPLIT_N][160];
};

static void wire_split(const struct nfsrdma_record *r, struct split *sp)
{
	unsigned ph[REC_PH_N];

	sp->n = rec_phases_shown(r, ph);
	sp->known = rec_total_known(r);
	sp->total = rec_phases_printed(r, ph, sp->n, sp->ns);
	for (unsigned i = 0; i < sp->n; i++) {
		snprintf(sp->name[i], sizeof(sp->name[i]), "%s", rec_phase_name(ph[i]));
		sp->none[i] = !rec_phase_seen(r, ph[i]);
		sp->unc[i] = 0;
	}
}

static void fused_split(const struct nfsrdma_record *r, struct split *sp)
{
	uint64_t span[REC_FP_N];
	unsigned idx[REC_FP_N], n = 0;

	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		if (r->f_mask & (1u << ph)) {
			idx[n] = ph;
			span[n++] = r->f_phase[ph];
		}
	sp->n = n;
	sp->known = r->f_mask != 0;
	sp->total = dur_split(r->f_total, span, n, sp->ns);
	/* a direction the clocks give, but not to a few per cent: say how well */
	uint64_t pair = r->f_phase[REC_FP_NET_OUT] + r->f_phase[REC_FP_NET_BACK];
	bool show = !(r->f_merged & REC_FM_NET_PAIR) && r->f_dir_unc_ns != UINT64_MAX &&
		    (unsigned __int128)r->f_dir_unc_ns * 1000 > (unsigned __int128)pair * REC_DIR_SHOW_PM;
	for (unsigned i = 0; i < n; i++) {
		rec_fphase_span_name(r->f_merged, idx[i], sp->name[i], sizeof(sp->name[i]));
		sp->none[i] = fused_none(r, idx[i]);
		sp->unc[i] = show && (idx[i] == REC_FP_NET_OUT || idx[i] == REC_FP_NET_BACK) &&
				     !(r->f_merged & (1u << idx[i])) ? r->f_dir_unc_ns : 0;
	}
}

/* A joined record's verdict where the wire's line names its dominant
 * phase: the place holding most of the time, or the places the data
 * cannot tell apart ("client_net|server_net") */
static void verdict_word(FILE *f, const struct nfsrdma_record *r)
{
	if (!r->f_verdict)
		return;
	fputc(' ', f);
	for (unsigned pl = 0, n = 0; pl < REC_PL_N; pl++)
		if (r->f_verdict & (1u << pl))
			fprintf(f, "%s%s", n++ ? "|" : "", rec_place_name(pl));
	fprintf(f, " %u%%", (r->f_verdict_pm + 5) / 10);
}

/* the clock-free round trips on each side of the capture point */
static void seg_print(FILE *f, const struct nfsrdma_record *r)
{
	char d[24];

	for (unsigned sg = REC_SEG_CLIENT_NET; sg <= REC_SEG_SERVER_NET; sg++)
		if (r->f_seg_mask & (1u << sg))
			fprintf(f, " %s %s", rec_seg_name(sg), fmt_dur0(r->f_seg[sg], d, sizeof(d)));
}

/* The phase that took most of the printed total and its share: what the
 * eye wants after the total, before the whole split.  None when a single
 * phase took it all ("queue+server 100%" on every line over TCP says
 * nothing the split does not). */
static void dominant(FILE *f, const struct split *sp)
{
	unsigned b = 0, timed = 0;

	if (!sp->known || !sp->total || !sp->n)
		return;
	for (unsigned i = 0; i < sp->n; i++) {
		timed += sp->ns[i] != 0;
		if (sp->ns[i] > sp->ns[b])
			b = i;
	}
	if (timed < 2)
		return;
	fprintf(f, " %s %u%%", sp->name[b],
		(unsigned)((200 * (unsigned __int128)sp->ns[b] + sp->total) / (2 * (unsigned __int128)sp->total)));
}

static void split_print(FILE *f, const struct split *sp)
{
	char d[24];

	fputs(" [", f);
	for (unsigned i = 0; i < sp->n; i++) {
		fprintf(f, "%s%s %s", i ? " " : "", sp->name[i], sp->none[i] ? "-" : fmt_dur0(sp->ns[i], d, sizeof(d)));
		if (sp->unc[i])
			fprintf(f, "+/-%s", fmt_dur(sp->unc[i], d, sizeof(d)));
	}
	fputc(']', f);
}

/* A joined record, after its split: its vantages' uncertainty and what
 * the join flagged. */
static void fused_flags(FILE *f, const struct nfsrdma_record *r)
{
	char d[24];

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

/* After the split: who spoke to whom, the bytes, chunks and credits, and
 * what the record lacks. */
static void line_tail(FILE *f, const struct nfsrdma_record *r)
{
	char a[80], b[80], mix[40];

	fprintf(f, " %s > %s xid 0x%08x", rec_ep_str(&r->caller, a, sizeof(a)), rec_ep_str(&r->callee, b, sizeof(b)),
		r->xid);
	if (r->transport != REC_TR_RDMA) {
		/* the RPC messages' sizes; no chunks, no credits */
		fprintf(f, " %s %u/%u", rec_transport_name(r->transport), r->call_inline, r->reply_inline);
	} else {
		fprintf(f, " inline %u/%u %s", r->call_inline, r->reply_inline, rec_chunk_mix(r, mix, sizeof(mix)));
		if (r->read_bytes)
			fprintf(f, " rd %" PRIu64, r->read_bytes);
		if (r->write_bytes)
			fprintf(f, " wr %" PRIu64, r->write_bytes);
		if (r->reply_bytes)
			fprintf(f, " rc %" PRIu64, r->reply_bytes);
		fprintf(f, " cr %u/%u", r->credits_asked, r->credits_granted);
	}
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
}

/* What a storage engineer scans comes first, so it fits on 80 columns:
 * time of day, operation, status, total and the phase that dominated;
 * after " | " the arguments, the whole split, the endpoints and the
 * transport's details (docs/man/nfsrdma-dissect.1, OUTPUT). */
void out_line(FILE *f, const struct nfsrdma_record *r)
{
	char ts[40], name[96], st[48], tot[24];
	uint64_t t0 = r->t_call_first ? r->t_call_first : r->t_reply_first;
	struct split sp;

	if (rec_is_fused(r))
		fused_split(r, &sp);
	else
		wire_split(r, &sp);
	fprintf(f, "%s %s", fmt_tod(t0, ts, sizeof(ts)), rec_name_str(r, name, sizeof(name)));
	if (r->flags & RECF_BACKCHANNEL)
		fputs(" (backchannel)", f);
	fprintf(f, " %s total %s", rec_status_str(r, st, sizeof(st)), sp.known ? fmt_dur0(sp.total, tot, sizeof(tot)) : "-");
	if (rec_is_fused(r))
		verdict_word(f, r);
	else
		dominant(f, &sp);
	fputs(" |", f);
	if (r->fh_hash)
		fprintf(f, " fh 0x%08" PRIx32, (uint32_t)r->fh_hash);
	if (r->name[0]) {
		fputc(' ', f);
		out_text_name(f, r->name, sizeof(r->name), r->flags & RECF_NAME_CUT);
	}
	if (r->count || r->offset)
		fprintf(f, " off %" PRIu64 " len %u", r->offset, r->count);
	if (r->res_count)
		fprintf(f, " -> %u", r->res_count);
	if (rec_is_fused(r)) {
		unsigned n = 0;
		fputs(" [", f);
		for (unsigned v = REC_VT_CLIENT; v <= REC_VT_SERVER; v <<= 1)
			if (r->vantages & v)
				fprintf(f, "%s%s", n++ ? "+" : "", rec_vantage_name(v));
		fputc(']', f);
		split_print(f, &sp);
		seg_print(f, r);
		fused_flags(f, r);
	} else {
		split_print(f, &sp);
	}
	line_tail(f, r);
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
