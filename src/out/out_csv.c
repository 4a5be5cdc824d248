#include <inttypes.h>

#include "src/out/out.h"
#include "src/out/recfmt.h"

void out_csv_header(FILE *f)
{
	fputs("ts_call,conn,xid,caller,callee,program,operation,ops,status,fh,offset,count,res_count,"
	      "name,call_first,call_last,read_first,read_last,write_first,write_last,reply_first,"
	      "reply_last", f);
	for (unsigned ph = 0; ph < REC_PH_N; ph++)
		fprintf(f, ",ns_%s", rec_phase_name(ph));
	fputs(",ns_total,call_inline,"
	      "reply_inline,read_chunk_bytes,read_bytes,write_chunk_bytes,write_bytes,"
	      "reply_chunk_bytes,reply_bytes,read_chunks,write_chunks,reply_segs,chunk_mix,"
	      "credits_asked,credits_granted,flags,findings,transport,rdma_retrans\n", f);
}

/* Joined records: the vantages, the clock's uncertainty, the join's
 * flags, then one column per fused phase (a merged span's time in its
 * first phase's column, its name in fphases) and the fused total. */
void out_csv_header_fused(FILE *f)
{
	fputs("ts_call,conn,xid,caller,callee,program,operation,status,vantages,uncertainty_ns,fuse_flags,fphases", f);
	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		fprintf(f, ",ns_%s", rec_fphase_name(ph));
	fputs(",ns_total,transport,seg_client_net,seg_server_net,verdict,verdict_share,dir_uncertainty_ns\n", f);
}

void out_csv_fused(FILE *f, const struct nfsrdma_record *r)
{
	char ts[40], a[80], b[80], p[32], pr[48], st[48], nb[160];
	unsigned n = 0;

	fprintf(f, "%s,%u,0x%08x,%s,%s,%s,%s,%s,", fmt_ts(r->t_call_first ? r->t_call_first : r->vt_client[RCT_BEGIN], ts, sizeof(ts)),
		r->conn_id, r->xid, rec_ep_str(&r->caller, a, sizeof(a)), rec_ep_str(&r->callee, b, sizeof(b)),
		rec_prog_str(r, p, sizeof(p)), rec_proc_str(r, pr, sizeof(pr)), rec_status_str(r, st, sizeof(st)));
	for (unsigned v = REC_VT_CLIENT; v <= REC_VT_SERVER; v <<= 1)
		if (r->vantages & v)
			fprintf(f, "%s%s", n++ ? "+" : "", rec_vantage_name(v));
	fprintf(f, ",%" PRIu64 ",%u,", r->f_uncert_ns == UINT64_MAX ? 0 : r->f_uncert_ns, r->f_flags);
	n = 0;
	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		if (r->f_mask & (1u << ph))
			fprintf(f, "%s%s", n++ ? " " : "", rec_fphase_span_name(r->f_merged, ph, nb, sizeof(nb)));
	for (unsigned ph = 0; ph < REC_FP_N; ph++)
		if (r->f_mask & (1u << ph))
			fprintf(f, ",%" PRIu64, r->f_phase[ph]);
		else
			fputc(',', f);
	if (r->f_mask)
		fprintf(f, ",%" PRIu64, r->f_total);
	else
		fputc(',', f);
	/* the transport, then what came after it: readers by position keep
	 * their columns */
	fprintf(f, ",%s", rec_transport_name(r->transport));
	for (unsigned sg = REC_SEG_CLIENT_NET; sg <= REC_SEG_SERVER_NET; sg++)
		if (r->f_seg_mask & (1u << sg))
			fprintf(f, ",%" PRIu64, r->f_seg[sg]);
		else
			fputc(',', f);
	fputc(',', f);
	for (unsigned pl = 0, k = 0; pl < REC_PL_N; pl++)
		if (r->f_verdict & (1u << pl))
			fprintf(f, "%s%s", k++ ? "|" : "", rec_place_name(pl));
	if (r->f_verdict)
		fprintf(f, ",%u.%03u", r->f_verdict_pm / 1000, r->f_verdict_pm % 1000);
	else
		fputc(',', f);
	if (r->f_dir_unc_ns != UINT64_MAX && (r->f_mask & (1u << REC_FP_NET_OUT)))
		fprintf(f, ",%" PRIu64 "\n", r->f_dir_unc_ns);
	else
		fputs(",\n", f);
}

/* RFC 4180 quoting; the name is escaped first (out_csv_esc), so only
 * its '"' and ',' are left for the quoting to protect. */
static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void out_csv(FILE *f, const struct nfsrdma_record *r)
{
	char ts[40], a[80], b[80], p[32], pr[48], ops[512], st[48], mix[40], nm[6 * REC_NAME_MAX + 1];

	fprintf(f, "%s,%u,0x%08x,%s,%s,%s,%s,", fmt_ts(r->t_call_first ? r->t_call_first : r->t_reply_first, ts, sizeof(ts)),
		r->conn_id, r->xid, rec_ep_str(&r->caller, a, sizeof(a)), rec_ep_str(&r->callee, b, sizeof(b)),
		rec_prog_str(r, p, sizeof(p)), rec_proc_str(r, pr, sizeof(pr)));
	csv_str(f, rec_ops_str(r, ops, sizeof(ops)));
	fprintf(f, ",%s,", rec_status_str(r, st, sizeof(st)));
	if (r->fh_hash)
		fprintf(f, "0x%08" PRIx32, (uint32_t)r->fh_hash);
	fprintf(f, ",%" PRIu64 ",%u,%u,", r->offset, r->count, r->res_count);
	csv_str(f, out_csv_esc(r->name, sizeof(r->name), nm, sizeof(nm)));
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64, r->t_call_first, r->t_call_last, r->t_read_first, r->t_read_last,
		r->t_write_first, r->t_write_last, r->t_reply_first, r->t_reply_last);
	/* an empty cell: the phase did not happen (0 is a phase that took no time) */
	for (unsigned ph = 0; ph < REC_PH_N; ph++)
		if (rec_phase_seen(r, ph))
			fprintf(f, ",%" PRIu64, r->d_phase[ph]);
		else
			fputc(',', f);
	if (rec_total_known(r))
		fprintf(f, ",%" PRIu64, r->d_total);
	else
		fputc(',', f);
	fprintf(f, ",%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		r->call_inline, r->reply_inline, r->read_chunk_bytes, r->read_bytes,
		r->write_chunk_bytes, r->write_bytes, r->reply_chunk_bytes, r->reply_bytes);
	fprintf(f, ",%u,%u,%u,%s,", r->n_read_chunks, r->n_write_chunks, r->n_reply_segs,
		rec_chunk_mix(r, mix, sizeof(mix)));
	/* credits are RPC-over-RDMA's: none over TCP or UDP (empty, not 0) */
	if (r->transport == REC_TR_RDMA)
		fprintf(f, "%u,%u", r->credits_asked, r->credits_granted);
	else
		fputc(',', f);
	/* the transport last, after the columns of before it: readers by
	 * position keep theirs */
	fprintf(f, ",%u,%u,%s,", r->flags, r->nfindings, rec_transport_name(r->transport));
	/* resent RDMA packets (appended last, as the transport was) */
	if (r->transport == REC_TR_RDMA)
		fprintf(f, "%u", r->rdma_retrans);
	fputc('\n', f);
}
