#include <inttypes.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"
#include "src/out/out.h"
#include "src/out/recfmt.h"

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Valid UTF-8 is copied as it is.  A byte that is not part of a valid
 * sequence (wire data is not text) becomes the lone low surrogate U+DC00 +
 * byte, as Python's "surrogateescape" does: the line stays valid JSON and
 * the original bytes come back with json.loads(...).encode("utf-8",
 * "surrogateescape"). */
void out_json_strn(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (n < max && s[n])
		n++;
	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else if ((len = utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, len, f);
			i += len;
		} else {
			fprintf(f, "\\udc%02x", c);
			i++;
		}
	}
	fputc('"', f);
}

static void jstr(FILE *f, const char *s) { out_json_str(f, s); }

static void jkey(FILE *f, const char *k) { fprintf(f, ",\"%s\":", k); }
static void ju(FILE *f, const char *k, uint64_t v) { jkey(f, k); fprintf(f, "%" PRIu64, v); }
static void js(FILE *f, const char *k, const char *v) { jkey(f, k); jstr(f, v); }

static void jep(FILE *f, const char *k, const struct rec_endpoint *e)
{
	char a[64];

	jkey(f, k);
	fputs("{\"addr\":", f);
	jstr(f, dissect_addr_str(e, a, sizeof(a)));
	fprintf(f, ",\"qpn\":%u,\"lid\":%u,\"port\":%u}", e->qpn, e->lid, e->port);
}

void out_json(FILE *f, const struct nfsrdma_record *r)
{
	static const char *const srcs[] = { "?", "wire", "client-probe", "server-probe", "xdp" };
	char b[256];

	fprintf(f, "{\"v\":%u", r->rec_version);
	js(f, "source", srcs[r->source < 5 ? r->source : 0]);
	ju(f, "conn", r->conn_id);
	jkey(f, "xid");
	fprintf(f, "\"0x%08x\"", r->xid);
	jep(f, "caller", &r->caller);
	jep(f, "callee", &r->callee);
	ju(f, "rdma_vers", r->rdma_vers);
	ju(f, "flags", r->flags);
	ju(f, "prog", r->prog);
	ju(f, "vers", r->vers);
	ju(f, "proc", r->proc);
	if (r->prog == PROG_NFS && r->vers == 4)
		ju(f, "minorvers", r->minorvers);
	js(f, "program", rec_prog_str(r, b, sizeof(b)));
	js(f, "procedure", rec_proc_str(r, b, sizeof(b)));
	js(f, "status", rec_status_str(r, b, sizeof(b)));
	ju(f, "rpc_status", r->rpc_status);
	if (r->status != REC_STATUS_NONE)
		ju(f, "prog_status", r->status);
	ju(f, "auth", r->auth_flavor);
	if (r->auth_flavor == 1) {
		ju(f, "uid", r->auth_uid);
		ju(f, "gid", r->auth_gid);
	}
	if (r->fh_hash) {
		jkey(f, "fh");
		fprintf(f, "\"0x%08" PRIx32 "\"", (uint32_t)r->fh_hash);
	}
	if (r->offset || r->count) {
		ju(f, "offset", r->offset);
		ju(f, "count", r->count);
	}
	if (r->res_count)
		ju(f, "res_count", r->res_count);
	if (r->name[0])
		js(f, "name", r->name);
	if (r->nops) {
		jkey(f, "ops");
		fputc('[', f);
		for (unsigned i = 0; i < r->nops && i < REC_MAX_OPS; i++) {
			const struct rec_op *o = &r->ops[i];
			fprintf(f, "%s{\"op\":", i ? "," : "");
			jstr(f, r->prog == PROG_NFS_CB ? nfs4_cb_op_name(o->op) : nfs4_op_name(o->op));
			if (o->status != REC_STATUS_NONE)
				fprintf(f, ",\"status\":%u", o->status);
			if (o->flags & REC_OPF_FH)
				fprintf(f, ",\"fh\":\"0x%08" PRIx32 "\"", (uint32_t)o->fh_hash);
			if (o->flags & REC_OPF_OFFSET)
				fprintf(f, ",\"offset\":%" PRIu64, o->offset);
			if (o->flags & REC_OPF_COUNT)
				fprintf(f, ",\"count\":%u", o->count);
			if (o->flags & REC_OPF_SEQID)
				fprintf(f, ",\"seqid\":%u", o->seqid);
			fputc('}', f);
		}
		fputc(']', f);
		ju(f, "nops", r->nops);
	}
	jkey(f, "ts");
	fprintf(f, "{\"call_first\":%" PRIu64 ",\"call_last\":%" PRIu64 ",\"read_first\":%" PRIu64
		",\"read_last\":%" PRIu64 ",\"write_first\":%" PRIu64 ",\"write_last\":%" PRIu64
		",\"reply_first\":%" PRIu64 ",\"reply_last\":%" PRIu64 "}",
		r->t_call_first, r->t_call_last, r->t_read_first, r->t_read_last,
		r->t_write_first, r->t_write_last, r->t_reply_first, r->t_reply_last);
	/* The kernel's own numbers exist only for probe records; the wire
	 * format stays as it was for the others. */
	if (r->source == REC_SRC_CLIENT_PROBE || r->source == REC_SRC_SERVER_PROBE) {
		jkey(f, "kernel");
		fprintf(f, "{\"marshal\":%" PRIu64 ",\"backlog_us\":%u,\"rtt_us\":%u,\"exec_us\":%u}",
			r->t_marshal, r->k_backlog_us, r->k_rtt_us, r->k_exec_us);
	}
	/* every phase, null when it did not happen; those that did sum to total */
	jkey(f, "ns");
	for (unsigned ph = 0; ph < REC_PH_N; ph++) {
		fprintf(f, "%c\"%s\":", ph ? ',' : '{', rec_phase_name(ph));
		if (rec_phase_seen(r, ph))
			fprintf(f, "%" PRIu64, r->d_phase[ph]);
		else
			fputs("null", f);
	}
	if (rec_total_known(r))
		fprintf(f, ",\"total\":%" PRIu64 "}", r->d_total);
	else
		fputs(",\"total\":null}", f);
	ju(f, "frame_call", r->frame_call);
	ju(f, "frame_reply", r->frame_reply);
	jkey(f, "bytes");
	fprintf(f, "{\"call_inline\":%u,\"reply_inline\":%u,\"call_hdr\":%u,\"reply_hdr\":%u,"
		"\"read_chunk\":%" PRIu64 ",\"read\":%" PRIu64 ",\"write_chunk\":%" PRIu64
		",\"write\":%" PRIu64 ",\"reply_chunk\":%" PRIu64 ",\"reply\":%" PRIu64
		",\"write_list_echo\":%" PRIu64 "}",
		r->call_inline, r->reply_inline, r->call_hdr, r->reply_hdr, r->read_chunk_bytes,
		r->read_bytes, r->write_chunk_bytes, r->write_bytes, r->reply_chunk_bytes,
		r->reply_bytes, r->write_list_echo);
	jkey(f, "chunks");
	fprintf(f, "{\"read_chunks\":%u,\"read_segs\":%u,\"write_chunks\":%u,\"write_segs\":%u,"
		"\"reply_segs\":%u,\"rdma_reads\":%u,\"rdma_writes\":%u,\"mix\":",
		r->n_read_chunks, r->n_read_segs, r->n_write_chunks, r->n_write_segs,
		r->n_reply_segs, r->n_rdma_reads, r->n_rdma_writes);
	jstr(f, rec_chunk_mix(r, b, sizeof(b)));
	fputc('}', f);
	jkey(f, "rdma_proc");
	fprintf(f, "{\"call\":%d,\"reply\":%d}", r->call_rdma_proc == 0xff ? -1 : r->call_rdma_proc,
		r->reply_rdma_proc == 0xff ? -1 : r->reply_rdma_proc);
	ju(f, "credits_asked", r->credits_asked);
	ju(f, "credits_granted", r->credits_granted);
	if (r->nfindings) {
		jkey(f, "findings");
		fputc('[', f);
		for (unsigned i = 0; i < r->nfindings; i++) {
			const struct finding_info *fi = finding_info(r->finding[i].id);
			finding_format(b, sizeof(b), r->finding[i].id, r->finding[i].a, r->finding[i].b);
			fprintf(f, "%s{\"id\":", i ? "," : "");
			jstr(f, fi ? fi->name : "?");
			fputs(",\"section\":", f);
			jstr(f, fi ? fi->section : "");
			fputs(",\"text\":", f);
			jstr(f, b);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputs("}\n", f);
}
