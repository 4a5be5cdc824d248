#include <inttypes.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"
#include "src/base/json.h"
#include "src/out/out.h"
#include "src/stats/agg.h"
#include "src/out/recfmt.h"

void out_json_strn(FILE *f, const char *s, size_t max)
{
	struct jw jb;

	jw_init(&jb, f);
	jw_strn(&jb, s, max);
	jw_flush(&jb);
}

/* ,"k": for a literal key k; then a number or a string */
#define jkey(j, k)    JW_KEY(j, k)
#define ju(j, k, v)   (jkey(j, k), jw_u(j, v))
#define js(j, k, v)   (jkey(j, k), jw_str(j, v))
#define jm(j, k, v)   ju(j, k, v)

/* An operation as nfsrdma-dissect -z proc --json and nfsrdma-top --json
 * name it: the same keys, times in integer ns (nfsrdmad's summary). */
void out_agg_ops_json(struct jw *j, const struct agg_snap *s)
{
	for (size_t i = 0; i < s->nrows[AGG_OP]; i++) {
		const struct agg_row *r = &s->rows[AGG_OP][i];
		jw_lit(j, i ? ",{\"key\":" : "{\"key\":");
		jw_str(j, r->key);
		ju(j, "records", r->tot.records);
		ju(j, "calls", r->tot.calls);
		ju(j, "replies", r->tot.replies);
		ju(j, "errors", r->tot.errors);
		ju(j, "unanswered", r->tot.noreply);
		ju(j, "bytes_inline", r->tot.bytes_inline);
		ju(j, "bytes_ddp", r->tot.bytes_ddp);
		ju(j, "latencies", r->tot.lat_n);
		jkey(j, "rate");
		jw_fixed(j, r->rate, 3);
		ju(j, "p50_ns", r->p50);
		ju(j, "p90_ns", r->p90);
		ju(j, "p99_ns", r->p99);
		ju(j, "p999_ns", r->p999);
		ju(j, "max_ns", r->max);
		jkey(j, "chunks");
		for (int m = 0; m < MIX_N; m++) {
			jw_c(j, m ? ',' : '{');
			jw_str(j, agg_mix_name[m]);
			jw_c(j, ':');
			jw_u(j, r->tot.mix[m]);
		}
		jw_lit(j, "}}");
	}
}

/* k: ,"name":{"addr": */
static void jep(struct jw *j, const char *k, const struct rec_endpoint *e)
{
	char a[64];

	jw_lit(j, k);
	jw_str(j, dissect_addr_str(e, a, sizeof(a)));
	jm(j, "qpn", e->qpn);
	jm(j, "lid", e->lid);
	jm(j, "port", e->port);
	jw_c(j, '}');
}

/* every phase, null when it did not happen; those that did sum to total */
static void json_wire_ns(struct jw *j, const struct nfsrdma_record *r, const char *key)
{
	jw_c(j, ',');
	jw_str(j, key);
	jw_c(j, ':');
	for (unsigned ph = 0; ph < REC_PH_N; ph++) {
		jw_c(j, ph ? ',' : '{');
		jw_str(j, rec_phase_name(ph));
		jw_c(j, ':');
		if (rec_phase_seen(r, ph))
			jw_u(j, r->d_phase[ph]);
		else
			jw_lit(j, "null");
	}
	jkey(j, "total");
	if (rec_total_known(r))
		jw_u(j, r->d_total);
	else
		jw_lit(j, "null");
	jw_c(j, '}');
}

/* The fused phases: a merged span under its joined name
 * ("server_queue+pull+execute"), the phases inside it not repeated;
 * a phase no vantage bounded is null.  Those present sum to total. */
static void json_fused_ns(struct jw *j, const struct nfsrdma_record *r)
{
	char nb[160];
	bool first = true;

	jkey(j, "ns");
	for (unsigned ph = 0; ph < REC_FP_N; ph++) {
		if (rec_fphase_inside(r->f_merged, r->f_mask, ph))
			continue;
		jw_c(j, first ? '{' : ',');
		first = false;
		jw_str(j, rec_fphase_span_name(r->f_merged, ph, nb, sizeof(nb)));
		jw_c(j, ':');
		if (r->f_mask & (1u << ph))
			jw_u(j, r->f_phase[ph]);
		else
			jw_lit(j, "null");
	}
	jkey(j, "total");
	if (r->f_mask)
		jw_u(j, r->f_total);
	else
		jw_lit(j, "null");
	jw_c(j, '}');
}

static void json_places(struct jw *j, uint16_t places)
{
	jw_c(j, '[');
	for (unsigned pl = 0, n = 0; pl < REC_PL_N; pl++)
		if (places & (1u << pl)) {
			if (n++)
				jw_c(j, ',');
			jw_str(j, rec_place_name(pl));
		}
	jw_c(j, ']');
}

/* The clock-free segments, the share of each place and the verdict
 * (docs/record.md "Segments and the verdict") */
static void json_verdict(struct jw *j, const struct nfsrdma_record *r)
{
	char share[16];

	jkey(j, "seg");
	for (unsigned sg = 0; sg < REC_SEG_N; sg++) {
		jw_c(j, sg ? ',' : '{');
		jw_str(j, rec_seg_name(sg));
		jw_c(j, ':');
		jw_u_or_null(j, r->f_seg_mask & (1u << sg), r->f_seg[sg]);
	}
	jw_c(j, '}');
	jkey(j, "places");
	jw_c(j, '[');
	for (unsigned i = 0; i < r->f_nplace && i < REC_FP_N; i++) {
		jw_lit(j, i ? ",{\"place\":" : "{\"place\":");
		json_places(j, r->f_place[i].places);
		jw_lit(j, ",\"ns\":");
		jw_u(j, r->f_place[i].ns);
		jw_c(j, '}');
	}
	jw_c(j, ']');
	jkey(j, "verdict");
	if (!r->f_verdict) {
		jw_lit(j, "null");
		return;
	}
	jw_lit(j, "{\"place\":");
	json_places(j, r->f_verdict);
	snprintf(share, sizeof(share), "%u.%03u", r->f_verdict_pm / 1000, r->f_verdict_pm % 1000);
	jw_lit(j, ",\"share\":");
	jw_lit(j, share);
	jw_c(j, '}');
}

/* version 4: which vantages the record holds, and each one's times */
static void json_vantages(struct jw *j, const struct nfsrdma_record *r)
{
	static const char *const ck[RCT_N] = { "begin", "marshal", "send", "reply", "end" };
	static const char *const sk[RST_N] = { "recv", "read_post", "read_done", "dispatch", "exec_done",
					       "write_post", "write_done", "send_post", "send_done" };
	bool first = true;

	jkey(j, "vantages");
	jw_c(j, '[');
	for (unsigned b = REC_VT_CLIENT; b <= REC_VT_SERVER; b <<= 1)
		if (r->vantages & b) {
			if (!first)
				jw_c(j, ',');
			first = false;
			jw_str(j, rec_vantage_name(b));
		}
	jw_c(j, ']');
	if (rec_is_fused(r)) {
		js(j, "clock", rec_vantage_name(r->f_clock));
		ju(j, "fuse_flags", r->f_flags);
		ju(j, "uncertainty_ns", r->f_uncert_ns);
		jkey(j, "uncertainty_by");
		bool any = false;
		for (unsigned v = 0; v < 3; v++) {
			if (!(r->vantages & (1u << v)))
				continue;
			jw_c(j, any ? ',' : '{');
			any = true;
			jw_str(j, rec_vantage_name(1u << v));
			jw_c(j, ':');
			jw_u_or_null(j, r->f_unc_ns[v] != UINT64_MAX, r->f_unc_ns[v]);
		}
		jw_lit(j, any ? "}" : "{}");
		jkey(j, "dir_uncertainty_ns");
		jw_u_or_null(j, r->f_dir_unc_ns != UINT64_MAX, r->f_dir_unc_ns);
	}
	jkey(j, "vt");
	jw_c(j, '{');
	first = true;
	if (r->vantages & REC_VT_CLIENT) {
		jw_lit(j, "\"client\":");
		for (unsigned i = 0; i < RCT_N; i++) {
			jw_c(j, i ? ',' : '{');
			jw_str(j, ck[i]);
			jw_c(j, ':');
			jw_u(j, r->vt_client[i]);
		}
		jw_c(j, '}');
		first = false;
	}
	if (r->vantages & REC_VT_SERVER) {
		jw_lit(j, first ? "\"server\":" : ",\"server\":");
		for (unsigned i = 0; i < RST_N; i++) {
			jw_c(j, i ? ',' : '{');
			jw_str(j, sk[i]);
			jw_c(j, ':');
			jw_u(j, r->vt_server[i]);
		}
		jw_c(j, '}');
	}
	jw_c(j, '}');
}

/* How many bytes moved and how: inline, by chunks, RDMA operations */
static void json_transfer(struct jw *j, const struct nfsrdma_record *r)
{
	char b[256];

	jkey(j, "bytes");
	jw_lit(j, "{\"call_inline\":");
	jw_u(j, r->call_inline);
	jm(j, "reply_inline", r->reply_inline);
	jm(j, "call_hdr", r->call_hdr);
	jm(j, "reply_hdr", r->reply_hdr);
	jm(j, "read_chunk", r->read_chunk_bytes);
	jm(j, "read", r->read_bytes);
	jm(j, "write_chunk", r->write_chunk_bytes);
	jm(j, "write", r->write_bytes);
	jm(j, "reply_chunk", r->reply_chunk_bytes);
	jm(j, "reply", r->reply_bytes);
	jm(j, "write_list_echo", r->write_list_echo);
	jw_c(j, '}');
	jkey(j, "chunks");
	jw_lit(j, "{\"read_chunks\":");
	jw_u(j, r->n_read_chunks);
	jm(j, "read_segs", r->n_read_segs);
	jm(j, "write_chunks", r->n_write_chunks);
	jm(j, "write_segs", r->n_write_segs);
	jm(j, "reply_segs", r->n_reply_segs);
	jm(j, "rdma_reads", r->n_rdma_reads);
	jm(j, "rdma_writes", r->n_rdma_writes);
	js(j, "mix", rec_chunk_mix(r, b, sizeof(b)));
	jw_c(j, '}');
	jkey(j, "rdma_proc");
	jw_lit(j, "{\"call\":");
	jw_i(j, r->call_rdma_proc == 0xff ? -1 : r->call_rdma_proc);
	jkey(j, "reply");
	jw_i(j, r->reply_rdma_proc == 0xff ? -1 : r->reply_rdma_proc);
	jw_c(j, '}');
}

void out_json(FILE *f, const struct nfsrdma_record *r)
{
	static const char *const srcs[] = { "?", "wire", "client-probe", "server-probe", "xdp", "joined" };
	struct jw jb, *j = &jb;
	char b[256];

	jw_init(j, f);
	jw_lit(j, "{\"v\":");
	jw_u(j, r->rec_version);
	js(j, "source", srcs[r->source < 6 ? r->source : 0]);
	ju(j, "conn", r->conn_id);
	jkey(j, "xid");
	jw_c(j, '"');
	jw_hex8(j, r->xid);
	jw_c(j, '"');
	jep(j, ",\"caller\":{\"addr\":", &r->caller);
	jep(j, ",\"callee\":{\"addr\":", &r->callee);
	js(j, "transport", rec_transport_name(r->transport));
	ju(j, "rdma_vers", r->rdma_vers);
	ju(j, "flags", r->flags);
	ju(j, "prog", r->prog);
	ju(j, "vers", r->vers);
	ju(j, "proc", r->proc);
	if (r->prog == PROG_NFS && r->vers == 4)
		ju(j, "minorvers", r->minorvers);
	js(j, "program", rec_prog_str(r, b, sizeof(b)));
	js(j, "procedure", rec_proc_str(r, b, sizeof(b)));
	js(j, "status", rec_status_str(r, b, sizeof(b)));
	ju(j, "rpc_status", r->rpc_status);
	if (r->status != REC_STATUS_NONE)
		ju(j, "prog_status", r->status);
	ju(j, "auth", r->auth_flavor);
	if (r->auth_flavor == 1) {
		ju(j, "uid", r->auth_uid);
		ju(j, "gid", r->auth_gid);
	}
	if (r->fh_hash) {
		jkey(j, "fh");
		jw_c(j, '"');
		jw_hex8(j, (uint32_t)r->fh_hash);
		jw_c(j, '"');
	}
	if (r->offset || r->count) {
		ju(j, "offset", r->offset);
		ju(j, "count", r->count);
	}
	if (r->res_count)
		ju(j, "res_count", r->res_count);
	if (r->name[0])
		js(j, "name", r->name);
	if (r->flags & RECF_NAME_CUT)
		jw_lit(j, ",\"name_cut\":true");
	if (r->nops) {
		jkey(j, "ops");
		jw_c(j, '[');
		for (unsigned i = 0; i < r->nops && i < REC_MAX_OPS; i++) {
			const struct rec_op *o = &r->ops[i];
			jw_lit(j, i ? ",{\"op\":" : "{\"op\":");
			jw_str(j, r->prog == PROG_NFS_CB ? nfs4_cb_op_name(o->op) : nfs4_op_name(o->op));
			if (o->status != REC_STATUS_NONE)
				jm(j, "status", o->status);
			if (o->flags & REC_OPF_FH) {
				jkey(j, "fh");
				jw_c(j, '"');
				jw_hex8(j, (uint32_t)o->fh_hash);
				jw_c(j, '"');
			}
			if (o->flags & REC_OPF_OFFSET)
				jm(j, "offset", o->offset);
			if (o->flags & REC_OPF_COUNT)
				jm(j, "count", o->count);
			if (o->flags & REC_OPF_SEQID)
				jm(j, "seqid", o->seqid);
			jw_c(j, '}');
		}
		jw_c(j, ']');
		ju(j, "nops", r->nops);
	}
	jkey(j, "ts");
	jw_lit(j, "{\"call_first\":");
	jw_u(j, r->t_call_first);
	jm(j, "call_last", r->t_call_last);
	jm(j, "read_first", r->t_read_first);
	jm(j, "read_last", r->t_read_last);
	jm(j, "write_first", r->t_write_first);
	jm(j, "write_last", r->t_write_last);
	jm(j, "reply_first", r->t_reply_first);
	jm(j, "reply_last", r->t_reply_last);
	jw_c(j, '}');
	/* The kernel's own numbers exist only for probe records; the wire
	 * format stays as it was for the others. */
	if (r->source == REC_SRC_CLIENT_PROBE || r->source == REC_SRC_SERVER_PROBE || rec_is_fused(r)) {
		jkey(j, "kernel");
		jw_lit(j, "{\"marshal\":");
		jw_u(j, r->t_marshal);
		jm(j, "backlog_us", r->k_backlog_us);
		jm(j, "rtt_us", r->k_rtt_us);
		jm(j, "exec_us", r->k_exec_us);
		jm(j, "xprt_id", r->k_xprt_id);
		jw_c(j, '}');
	}
	if (r->vantages)
		json_vantages(j, r);
	if (rec_is_fused(r)) {
		json_fused_ns(j, r);
		json_verdict(j, r);
		if (r->vantages & REC_VT_WIRE)
			json_wire_ns(j, r, "wire_ns");
	} else {
		json_wire_ns(j, r, "ns");
	}
	ju(j, "frame_call", r->frame_call);
	ju(j, "frame_reply", r->frame_reply);
	json_transfer(j, r);
	ju(j, "credits_asked", r->credits_asked);
	ju(j, "credits_granted", r->credits_granted);
	/* version 4 on (a version 3 record read back is written as it was) */
	if (r->rec_version >= 4)
		ju(j, "rdma_retrans", r->rdma_retrans);
	if (r->nfindings) {
		jkey(j, "findings");
		jw_c(j, '[');
		for (unsigned i = 0; i < r->nfindings; i++) {
			const struct finding_info *fi = finding_info(r->finding[i].id);
			finding_format(b, sizeof(b), r->finding[i].id, r->finding[i].a, r->finding[i].b);
			jw_lit(j, i ? ",{\"id\":" : "{\"id\":");
			jw_str(j, fi ? fi->name : "?");
			js(j, "section", finding_section(r->finding[i].id, r->finding[i].b));
			js(j, "text", b);
			jw_c(j, '}');
		}
		jw_c(j, ']');
	}
	jw_lit(j, "}\n");
	jw_flush(j);
}
