#include <inttypes.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/name_text.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"
#include "src/out/out.h"
#include "src/stats/agg.h"
#include "src/out/recfmt.h"

/* A record's line is built in one buffer and written with one fwrite:
 * printing it field by field with fprintf was ~60 % of the time of
 * `nfsrdma-dissect --json` (format parsing and a stream lock per call). */
struct jb {
	FILE *f;
	char *p;
	char buf[8192];
};

static void jb_flush(struct jb *j)
{
	fwrite(j->buf, 1, (size_t)(j->p - j->buf), j->f);
	j->p = j->buf;
}

static void jb_put_slow(struct jb *j, const char *s, size_t n)
{
	jb_flush(j);
	if (n > sizeof(j->buf)) {
		fwrite(s, 1, n, j->f);
		return;
	}
	memcpy(j->p, s, n);
	j->p += n;
}

/* Inline, so the copy of a literal key is a few moves. */
static inline void jb_put(struct jb *j, const char *s, size_t n)
{
	if (__builtin_expect(n > sizeof(j->buf) - (size_t)(j->p - j->buf), 0)) {
		jb_put_slow(j, s, n);
		return;
	}
	memcpy(j->p, s, n);
	j->p += n;
}

static void jb_c(struct jb *j, char c)
{
	if (j->p == j->buf + sizeof(j->buf))
		jb_flush(j);
	*j->p++ = c;
}

static void jb_lit(struct jb *j, const char *s) { jb_put(j, s, strlen(s)); }

static void jb_u(struct jb *j, uint64_t v)
{
	static const char two[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[20], *e = t + sizeof(t), *q = e;

	if (v < 10) {
		jb_c(j, (char)('0' + v));
		return;
	}
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		memcpy(q, two + 2 * d, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, two + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	jb_put(j, q, (size_t)(e - q));
}

static void jb_i(struct jb *j, int v)
{
	if (v < 0) {
		jb_c(j, '-');
		jb_u(j, (uint64_t)-(int64_t)v);
	} else {
		jb_u(j, (uint64_t)v);
	}
}

/* "0x%08x" */
static void jb_hex8(struct jb *j, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	char t[10] = { '0', 'x' };

	for (int i = 0; i < 8; i++)
		t[9 - i] = hex[(v >> (4 * i)) & 15];
	jb_put(j, t, sizeof(t));
}

/* The JSON convention (docs/record.md, "Names"), the one every tool's JSON
 * goes through: valid UTF-8 is copied as it is but for the controls (C0,
 * DEL, C1: \u00XX).  A byte that is not part of a valid
 * sequence (wire data is not text) becomes the lone low surrogate U+DC00 +
 * byte, as Python's "surrogateescape" does: the line stays valid JSON and
 * the original bytes come back with json.loads(...).encode("utf-8",
 * "surrogateescape").  At most max bytes, up to a NUL. */
static void jb_strn(struct jb *j, const char *str, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (n < max && s[n])
		n++;
	jb_c(j, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			jb_c(j, '\\');
			jb_c(j, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			jb_put(j, u, sizeof(u));
			i++;
		} else if (c < 0x80) {
			jb_c(j, (char)c);
			i++;
		} else if ((len = utf8_seq_len(s + i, n - i)) && utf8_is_c1(s + i, len)) {
			/* a C1 control: the same code point, escaped (\u009b is
			 * CSI, which a terminal showing the line would obey) */
			char u[6] = { '\\', 'u', '0', '0', hex[s[i + 1] >> 4], hex[s[i + 1] & 15] };
			jb_put(j, u, sizeof(u));
			i += len;
		} else if (len) {
			jb_put(j, (const char *)s + i, len);
			i += len;
		} else {
			char u[6] = { '\\', 'u', 'd', 'c', hex[c >> 4], hex[c & 15] };
			jb_put(j, u, sizeof(u));
			i++;
		}
	}
	jb_c(j, '"');
}

static void jb_str(struct jb *j, const char *s) { jb_strn(j, s, (size_t)-1); }

/* An operation as nfsrdma-dissect -z proc --json and nfsrdma-top --json
 * name it: the same keys, times in integer ns (nfsrdmad's summary). */
void out_agg_ops_json(FILE *f, const struct agg_snap *s)
{
	for (size_t i = 0; i < s->nrows[AGG_OP]; i++) {
		const struct agg_row *r = &s->rows[AGG_OP][i];
		fputs(i ? ",{\"key\":" : "{\"key\":", f);
		out_json_str(f, r->key);
		fprintf(f, ",\"records\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"replies\":%" PRIu64 ",\"errors\":%" PRIu64
			   ",\"unanswered\":%" PRIu64 ",\"bytes_inline\":%" PRIu64 ",\"bytes_ddp\":%" PRIu64
			   ",\"latencies\":%" PRIu64 ",\"rate\":%.3f,\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64
			   ",\"p99_ns\":%" PRIu64 ",\"p999_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ",\"chunks\":{",
			   r->tot.records, r->tot.calls, r->tot.replies, r->tot.errors, r->tot.noreply,
			   r->tot.bytes_inline, r->tot.bytes_ddp, r->tot.lat_n, r->rate, r->p50, r->p90, r->p99,
			   r->p999, r->max);
		for (int m = 0; m < MIX_N; m++)
			fprintf(f, "%s\"%s\":%" PRIu64, m ? "," : "", agg_mix_name[m], r->tot.mix[m]);
		fputs("}}", f);
	}
}

void out_json_time(FILE *f, uint64_t ns)
{
	if (ns)
		fprintf(f, "%" PRIu64, ns);
	else
		fputs("null", f);
}

void out_json_strn(FILE *f, const char *s, size_t max)
{
	struct jb jb = { .f = f, .p = jb.buf };

	jb_strn(&jb, s, max);
	jb_flush(&jb);
}

/* ,"k": for a literal key k; then a number or a string */
#define jkey(j, k)    jb_put(j, ",\"" k "\":", sizeof(",\"" k "\":") - 1)
#define ju(j, k, v)   (jkey(j, k), jb_u(j, v))
#define js(j, k, v)   (jkey(j, k), jb_str(j, v))
#define jm(j, k, v)   ju(j, k, v)

/* k: ,"name":{"addr": */
static void jep(struct jb *j, const char *k, const struct rec_endpoint *e)
{
	char a[64];

	jb_lit(j, k);
	jb_str(j, dissect_addr_str(e, a, sizeof(a)));
	jm(j, "qpn", e->qpn);
	jm(j, "lid", e->lid);
	jm(j, "port", e->port);
	jb_c(j, '}');
}

/* every phase, null when it did not happen; those that did sum to total */
static void json_wire_ns(struct jb *j, const struct nfsrdma_record *r, const char *key)
{
	jb_c(j, ',');
	jb_str(j, key);
	jb_c(j, ':');
	for (unsigned ph = 0; ph < REC_PH_N; ph++) {
		jb_c(j, ph ? ',' : '{');
		jb_str(j, rec_phase_name(ph));
		jb_c(j, ':');
		if (rec_phase_seen(r, ph))
			jb_u(j, r->d_phase[ph]);
		else
			jb_lit(j, "null");
	}
	jkey(j, "total");
	if (rec_total_known(r))
		jb_u(j, r->d_total);
	else
		jb_lit(j, "null");
	jb_c(j, '}');
}

/* The fused phases: a merged span under its joined name
 * ("server_queue+pull+execute"), the phases inside it not repeated;
 * a phase no vantage bounded is null.  Those present sum to total. */
static void json_fused_ns(struct jb *j, const struct nfsrdma_record *r)
{
	char nb[160];
	bool first = true;

	jkey(j, "ns");
	for (unsigned ph = 0; ph < REC_FP_N; ph++) {
		if (rec_fphase_inside(r->f_merged, r->f_mask, ph))
			continue;
		jb_c(j, first ? '{' : ',');
		first = false;
		jb_str(j, rec_fphase_span_name(r->f_merged, ph, nb, sizeof(nb)));
		jb_c(j, ':');
		if (r->f_mask & (1u << ph))
			jb_u(j, r->f_phase[ph]);
		else
			jb_lit(j, "null");
	}
	jkey(j, "total");
	if (r->f_mask)
		jb_u(j, r->f_total);
	else
		jb_lit(j, "null");
	jb_c(j, '}');
}

static void json_places(struct jb *j, uint16_t places)
{
	jb_c(j, '[');
	for (unsigned pl = 0, n = 0; pl < REC_PL_N; pl++)
		if (places & (1u << pl)) {
			if (n++)
				jb_c(j, ',');
			jb_str(j, rec_place_name(pl));
		}
	jb_c(j, ']');
}

static void json_u_or_null(struct jb *j, bool known, uint64_t v)
{
	if (known)
		jb_u(j, v);
	else
		jb_lit(j, "null");
}

/* The clock-free segments, the share of each place and the verdict
 * (docs/record.md "Segments and the verdict") */
static void json_verdict(struct jb *j, const struct nfsrdma_record *r)
{
	char share[16];

	jkey(j, "seg");
	for (unsigned sg = 0; sg < REC_SEG_N; sg++) {
		jb_c(j, sg ? ',' : '{');
		jb_str(j, rec_seg_name(sg));
		jb_c(j, ':');
		json_u_or_null(j, r->f_seg_mask & (1u << sg), r->f_seg[sg]);
	}
	jb_c(j, '}');
	jkey(j, "places");
	jb_c(j, '[');
	for (unsigned i = 0; i < r->f_nplace && i < REC_FP_N; i++) {
		jb_lit(j, i ? ",{\"place\":" : "{\"place\":");
		json_places(j, r->f_place[i].places);
		jb_lit(j, ",\"ns\":");
		jb_u(j, r->f_place[i].ns);
		jb_c(j, '}');
	}
	jb_c(j, ']');
	jkey(j, "verdict");
	if (!r->f_verdict) {
		jb_lit(j, "null");
		return;
	}
	jb_lit(j, "{\"place\":");
	json_places(j, r->f_verdict);
	snprintf(share, sizeof(share), "%u.%03u", r->f_verdict_pm / 1000, r->f_verdict_pm % 1000);
	jb_lit(j, ",\"share\":");
	jb_lit(j, share);
	jb_c(j, '}');
}

/* version 4: which vantages the record holds, and each one's times */
static void json_vantages(struct jb *j, const struct nfsrdma_record *r)
{
	static const char *const ck[RCT_N] = { "begin", "marshal", "send", "reply", "end" };
	static const char *const sk[RST_N] = { "recv", "read_post", "read_done", "dispatch", "exec_done",
					       "write_post", "write_done", "send_post", "send_done" };
	bool first = true;

	jkey(j, "vantages");
	jb_c(j, '[');
	for (unsigned b = REC_VT_CLIENT; b <= REC_VT_SERVER; b <<= 1)
		if (r->vantages & b) {
			if (!first)
				jb_c(j, ',');
			first = false;
			jb_str(j, rec_vantage_name(b));
		}
	jb_c(j, ']');
	if (rec_is_fused(r)) {
		js(j, "clock", rec_vantage_name(r->f_clock));
		ju(j, "fuse_flags", r->f_flags);
		ju(j, "uncertainty_ns", r->f_uncert_ns);
		jkey(j, "uncertainty_by");
		bool any = false;
		for (unsigned v = 0; v < 3; v++) {
			if (!(r->vantages & (1u << v)))
				continue;
			jb_c(j, any ? ',' : '{');
			any = true;
			jb_str(j, rec_vantage_name(1u << v));
			jb_c(j, ':');
			json_u_or_null(j, r->f_unc_ns[v] != UINT64_MAX, r->f_unc_ns[v]);
		}
		jb_lit(j, any ? "}" : "{}");
		jkey(j, "dir_uncertainty_ns");
		json_u_or_null(j, r->f_dir_unc_ns != UINT64_MAX, r->f_dir_unc_ns);
	}
	jkey(j, "vt");
	jb_c(j, '{');
	first = true;
	if (r->vantages & REC_VT_CLIENT) {
		jb_lit(j, "\"client\":");
		for (unsigned i = 0; i < RCT_N; i++) {
			jb_c(j, i ? ',' : '{');
			jb_str(j, ck[i]);
			jb_c(j, ':');
			jb_u(j, r->vt_client[i]);
		}
		jb_c(j, '}');
		first = false;
	}
	if (r->vantages & REC_VT_SERVER) {
		jb_lit(j, first ? "\"server\":" : ",\"server\":");
		for (unsigned i = 0; i < RST_N; i++) {
			jb_c(j, i ? ',' : '{');
			jb_str(j, sk[i]);
			jb_c(j, ':');
			jb_u(j, r->vt_server[i]);
		}
		jb_c(j, '}');
	}
	jb_c(j, '}');
}

/* How many bytes moved and how: inline, by chunks, RDMA operations */
static void json_transfer(struct jb *j, const struct nfsrdma_record *r)
{
	char b[256];

	jkey(j, "bytes");
	jb_lit(j, "{\"call_inline\":");
	jb_u(j, r->call_inline);
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
	jb_c(j, '}');
	jkey(j, "chunks");
	jb_lit(j, "{\"read_chunks\":");
	jb_u(j, r->n_read_chunks);
	jm(j, "read_segs", r->n_read_segs);
	jm(j, "write_chunks", r->n_write_chunks);
	jm(j, "write_segs", r->n_write_segs);
	jm(j, "reply_segs", r->n_reply_segs);
	jm(j, "rdma_reads", r->n_rdma_reads);
	jm(j, "rdma_writes", r->n_rdma_writes);
	js(j, "mix", rec_chunk_mix(r, b, sizeof(b)));
	jb_c(j, '}');
	jkey(j, "rdma_proc");
	jb_lit(j, "{\"call\":");
	jb_i(j, r->call_rdma_proc == 0xff ? -1 : r->call_rdma_proc);
	jkey(j, "reply");
	jb_i(j, r->reply_rdma_proc == 0xff ? -1 : r->reply_rdma_proc);
	jb_c(j, '}');
}

void out_json(FILE *f, const struct nfsrdma_record *r)
{
	static const char *const srcs[] = { "?", "wire", "client-probe", "server-probe", "xdp", "joined" };
	struct jb jb = { .f = f, .p = jb.buf }, *j = &jb;
	char b[256];

	jb_lit(j, "{\"v\":");
	jb_u(j, r->rec_version);
	js(j, "source", srcs[r->source < 6 ? r->source : 0]);
	ju(j, "conn", r->conn_id);
	jkey(j, "xid");
	jb_c(j, '"');
	jb_hex8(j, r->xid);
	jb_c(j, '"');
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
		jb_c(j, '"');
		jb_hex8(j, (uint32_t)r->fh_hash);
		jb_c(j, '"');
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
		jb_lit(j, ",\"name_cut\":true");
	if (r->nops) {
		jkey(j, "ops");
		jb_c(j, '[');
		for (unsigned i = 0; i < r->nops && i < REC_MAX_OPS; i++) {
			const struct rec_op *o = &r->ops[i];
			jb_lit(j, i ? ",{\"op\":" : "{\"op\":");
			jb_str(j, r->prog == PROG_NFS_CB ? nfs4_cb_op_name(o->op) : nfs4_op_name(o->op));
			if (o->status != REC_STATUS_NONE)
				jm(j, "status", o->status);
			if (o->flags & REC_OPF_FH) {
				jkey(j, "fh");
				jb_c(j, '"');
				jb_hex8(j, (uint32_t)o->fh_hash);
				jb_c(j, '"');
			}
			if (o->flags & REC_OPF_OFFSET)
				jm(j, "offset", o->offset);
			if (o->flags & REC_OPF_COUNT)
				jm(j, "count", o->count);
			if (o->flags & REC_OPF_SEQID)
				jm(j, "seqid", o->seqid);
			jb_c(j, '}');
		}
		jb_c(j, ']');
		ju(j, "nops", r->nops);
	}
	jkey(j, "ts");
	jb_lit(j, "{\"call_first\":");
	jb_u(j, r->t_call_first);
	jm(j, "call_last", r->t_call_last);
	jm(j, "read_first", r->t_read_first);
	jm(j, "read_last", r->t_read_last);
	jm(j, "write_first", r->t_write_first);
	jm(j, "write_last", r->t_write_last);
	jm(j, "reply_first", r->t_reply_first);
	jm(j, "reply_last", r->t_reply_last);
	jb_c(j, '}');
	/* The kernel's own numbers exist only for probe records; the wire
	 * format stays as it was for the others. */
	if (r->source == REC_SRC_CLIENT_PROBE || r->source == REC_SRC_SERVER_PROBE || rec_is_fused(r)) {
		jkey(j, "kernel");
		jb_lit(j, "{\"marshal\":");
		jb_u(j, r->t_marshal);
		jm(j, "backlog_us", r->k_backlog_us);
		jm(j, "rtt_us", r->k_rtt_us);
		jm(j, "exec_us", r->k_exec_us);
		jm(j, "xprt_id", r->k_xprt_id);
		jb_c(j, '}');
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
		jb_c(j, '[');
		for (unsigned i = 0; i < r->nfindings; i++) {
			const struct finding_info *fi = finding_info(r->finding[i].id);
			finding_format(b, sizeof(b), r->finding[i].id, r->finding[i].a, r->finding[i].b);
			jb_lit(j, i ? ",{\"id\":" : "{\"id\":");
			jb_str(j, fi ? fi->name : "?");
			js(j, "section", finding_section(r->finding[i].id, r->finding[i].b));
			js(j, "text", b);
			jb_c(j, '}');
		}
		jb_c(j, ']');
	}
	jb_lit(j, "}\n");
	jb_flush(j);
}
