#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/nfs_vocab.h"
#include "src/join/fuse.h"
#include "src/join/rec_json.h"

#define DEPTH_MAX 6
#define KEY_MAX   24
#define STR_MAX   256

struct jp {
	const char *s, *p, *end;
	char key[DEPTH_MAX][KEY_MAX];
	unsigned idx[DEPTH_MAX];   /* element of the array at this depth */
	int depth;
	struct nfsrdma_record *r;
	bool has_v, not_record, has_unc_by;
	const char *err;
};

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static int fail(struct jp *j, const char *why)
{
	if (!j->err)
		j->err = why;
	return -EINVAL;
}

/* A string into out, escapes decoded: \udcXX (docs/record.md, "Names")
 * back to the byte XX it stands for, any other \u as its UTF-8 (a lone
 * surrogate of another kind, which no writer of ours makes, as '?'). */
static int str(struct jp *j, char *out, size_t cap)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return fail(j, "a string expected");
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if (c == '\n' || c == '\r')   /* the line's own end, reached inside the string */
			return fail(j, "an unterminated string");
		if ((unsigned char)c < 0x20)
			return fail(j, "a control character in a string");
		if (c == '\\') {
			if (j->p >= j->end)
				break;
			char e = *j->p++;
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				if (j->end - j->p < 4)
					return fail(j, "a short \\u escape");
				char h[5] = { j->p[0], j->p[1], j->p[2], j->p[3], 0 };
				char *e2;
				unsigned long u = strtoul(h, &e2, 16);
				if (*e2)
					return fail(j, "a bad \\u escape");
				j->p += 4;
				if (u >= 0xdc80 && u <= 0xdcff) {
					c = (char)(u & 0xff);
				} else if (u >= 0x80 && (u < 0xd800 || u > 0xdfff)) {
					char m[3];
					size_t k = 0;
					if (u < 0x800) {
						m[k++] = (char)(0xc0 | u >> 6);
					} else {
						m[k++] = (char)(0xe0 | u >> 12);
						m[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
					}
					for (size_t i = 0; i < k && n + 1 < cap; i++)
						out[n++] = m[i];
					c = (char)(0x80 | (u & 0x3f));
				} else {
					c = u < 0x80 ? (char)u : '?';
				}
				break;
			}
			default: c = e; break;
			}
		}
		if (n + 1 < cap)
			out[n++] = c;
	}
	if (j->p >= j->end)
		return fail(j, "an unterminated string");
	j->p++;
	out[n] = 0;
	return 0;
}

static bool at(const struct jp *j, int d, const char *k) { return j->depth > d && !strcmp(j->key[d], k); }

static int hexval(const char *s, uint64_t *v)
{
	char *e;
	errno = 0;
	*v = strtoull(s, &e, 16);
	return (*s && !*e && !errno) ? 0 : -1;
}

static int endpoint(struct rec_endpoint *ep, const char *k, uint64_t u, const char *s)
{
	if (!strcmp(k, "qpn")) ep->qpn = (uint32_t)u;
	else if (!strcmp(k, "lid")) ep->lid = (uint16_t)u;
	else if (!strcmp(k, "port")) ep->port = (uint16_t)u;
	else if (!strcmp(k, "addr") && s) {
		if (inet_pton(AF_INET, s, ep->addr) == 1)
			ep->family = 4;
		else if (inet_pton(AF_INET6, s, ep->addr) == 1)
			ep->family = 6;
		else if (!strncmp(s, "gid ", 4) && inet_pton(AF_INET6, s + 4, ep->addr) == 1)
			ep->family = 'G';
		else if (!strncmp(s, "lid ", 4))
			ep->family = 'L';
		else if (strcmp(s, "?"))
			return -1;
	}
	return 0;
}

static const char *const client_keys[RCT_N] = { "begin", "marshal", "send", "reply", "end" };
static const char *const server_keys[RST_N] = { "recv", "read_post", "read_done", "dispatch", "exec_done",
						"write_post", "write_done", "send_post", "send_done" };

/* One scalar at the current path: s for strings (NULL otherwise). */
static int assign(struct jp *j, uint64_t u, const char *s)
{
	struct nfsrdma_record *r = j->r;
	const char *k = j->key[j->depth - 1];
	uint64_t h;

	if (j->depth == 1) {
		static const struct { const char *k; size_t off, size; } num[] = {
#define F(name, field) { name, offsetof(struct nfsrdma_record, field), sizeof(((struct nfsrdma_record *)0)->field) }
			F("v", rec_version), F("conn", conn_id), F("rdma_vers", rdma_vers), F("flags", flags),
			F("prog", prog), F("vers", vers), F("proc", proc), F("minorvers", minorvers),
			F("rpc_status", rpc_status), F("prog_status", status), F("auth", auth_flavor),
			F("uid", auth_uid), F("gid", auth_gid), F("offset", offset), F("count", count),
			F("res_count", res_count), F("frame_call", frame_call), F("frame_reply", frame_reply),
			F("credits_asked", credits_asked), F("credits_granted", credits_granted), F("nops", nops),
			F("rdma_retrans", rdma_retrans),
			F("fuse_flags", f_flags), F("uncertainty_ns", f_uncert_ns),
#undef F
		};
		if (!strcmp(k, "v")) {
			if (s || u < 1 || u > NFSRDMA_RECORD_VERSION)
				return fail(j, "a record version this reader does not know (newer writer?)");
			j->has_v = true;
		}
		if (!strcmp(k, "type") || !strcmp(k, "probe") || !strcmp(k, "summary"))
			j->not_record = true;
		for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
			if (strcmp(k, num[i].k))
				continue;
			if (s)
				return fail(j, "a number expected");
			switch (num[i].size) {
			case 1: *(uint8_t *)((char *)r + num[i].off) = (uint8_t)u; break;
			case 2: *(uint16_t *)((char *)r + num[i].off) = (uint16_t)u; break;
			case 4: *(uint32_t *)((char *)r + num[i].off) = (uint32_t)u; break;
			default: *(uint64_t *)((char *)r + num[i].off) = u; break;
			}
			return 0;
		}
		if (!s)
			return 0;
		if (!strcmp(k, "source")) {
			static const char *const srcs[] = { "?", "wire", "client-probe", "server-probe", "xdp", "joined" };
			for (unsigned i = 1; i < sizeof(srcs) / sizeof(srcs[0]); i++)
				if (!strcmp(s, srcs[i]))
					r->source = (uint8_t)i;
			if (!r->source)
				return fail(j, "an unknown source");
		} else if (!strcmp(k, "xid")) {
			if (hexval(s + (s[0] == '0' && s[1] == 'x' ? 2 : 0), &h) < 0 || h > UINT32_MAX)
				return fail(j, "a bad xid");
			r->xid = (uint32_t)h;
		} else if (!strcmp(k, "fh")) {
			if (hexval(s + (s[0] == '0' && s[1] == 'x' ? 2 : 0), &h) < 0)
				return fail(j, "a bad fh");
			r->fh_hash = h;
		} else if (!strcmp(k, "transport")) {
			for (unsigned t = 0; t < REC_TR_N; t++)
				if (!strcmp(s, rec_transport_name(t)))
					r->transport = (uint8_t)t;
		} else if (!strcmp(k, "name")) {
			snprintf(r->name, sizeof(r->name), "%s", s);
		} else if (!strcmp(k, "clock")) {
			for (unsigned b = 1; b <= REC_VT_SERVER; b <<= 1)
				if (!strcmp(s, rec_vantage_name(b)))
					r->f_clock = (uint8_t)b;
		}
		return 0;
	}
	const char *top = j->key[0];
	if (!strcmp(top, "caller") || !strcmp(top, "callee")) {
		if (endpoint(top[4] == 'e' && top[5] == 'r' ? &r->caller : &r->callee, k, u, s) < 0)
			return fail(j, "a bad address");
		return 0;
	}
	if (s && !strcmp(top, "vantages")) {
		for (unsigned b = 1; b <= REC_VT_SERVER; b <<= 1)
			if (!strcmp(s, rec_vantage_name(b)))
				r->vantages |= (uint8_t)b;
		return 0;
	}
	if (s)
		return 0;
	if (!strcmp(top, "uncertainty_by") && j->depth == 2) {
		for (unsigned v = 0; v < 3; v++)
			if (!strcmp(k, rec_vantage_name(1u << v)))
				r->f_unc_ns[v] = u;
		j->has_unc_by = true;
	} else if (!strcmp(top, "ts")) {
		static const char *const tk[] = { "call_first", "call_last", "read_first", "read_last",
						  "write_first", "write_last", "reply_first", "reply_last" };
		uint64_t *tf[] = { &r->t_call_first, &r->t_call_last, &r->t_read_first, &r->t_read_last,
				   &r->t_write_first, &r->t_write_last, &r->t_reply_first, &r->t_reply_last };
		for (unsigned i = 0; i < 8; i++)
			if (!strcmp(k, tk[i]))
				*tf[i] = u;
	} else if (!strcmp(top, "kernel")) {
		if (!strcmp(k, "marshal")) r->t_marshal = u;
		else if (!strcmp(k, "backlog_us")) r->k_backlog_us = (uint32_t)u;
		else if (!strcmp(k, "rtt_us")) r->k_rtt_us = (uint32_t)u;
		else if (!strcmp(k, "exec_us")) r->k_exec_us = (uint32_t)u;
	} else if (!strcmp(top, "vt") && j->depth == 3) {
		bool c = !strcmp(j->key[1], "client");
		for (unsigned i = 0; c && i < RCT_N; i++)
			if (!strcmp(k, client_keys[i]))
				r->vt_client[i] = u;
		for (unsigned i = 0; !c && i < RST_N; i++)
			if (!strcmp(k, server_keys[i]))
				r->vt_server[i] = u;
	} else if (!strcmp(top, "bytes")) {
		static const char *const bk[] = { "call_inline", "reply_inline", "call_hdr", "reply_hdr" };
		uint32_t *b32[] = { &r->call_inline, &r->reply_inline, &r->call_hdr, &r->reply_hdr };
		static const char *const bk64[] = { "read_chunk", "read", "write_chunk", "write", "reply_chunk",
						    "reply", "write_list_echo" };
		uint64_t *b64[] = { &r->read_chunk_bytes, &r->read_bytes, &r->write_chunk_bytes, &r->write_bytes,
				    &r->reply_chunk_bytes, &r->reply_bytes, &r->write_list_echo };
		for (unsigned i = 0; i < 4; i++)
			if (!strcmp(k, bk[i]))
				*b32[i] = (uint32_t)u;
		for (unsigned i = 0; i < 7; i++)
			if (!strcmp(k, bk64[i]))
				*b64[i] = u;
	} else if (!strcmp(top, "chunks")) {
		static const char *const ck[] = { "read_chunks", "read_segs", "write_chunks", "write_segs",
						  "reply_segs", "rdma_reads", "rdma_writes" };
		uint16_t *cf[] = { &r->n_read_chunks, &r->n_read_segs, &r->n_write_chunks, &r->n_write_segs,
				   &r->n_reply_segs, &r->n_rdma_reads, &r->n_rdma_writes };
		for (unsigned i = 0; i < 7; i++)
			if (!strcmp(k, ck[i]))
				*cf[i] = (uint16_t)u;
	} else if (!strcmp(top, "rdma_proc")) {
		uint8_t v = (int64_t)u < 0 ? 0xff : (uint8_t)u;
		if (!strcmp(k, "call")) r->call_rdma_proc = v;
		else if (!strcmp(k, "reply")) r->reply_rdma_proc = v;
	} else if (!strcmp(top, "ops") && j->depth == 3 && j->idx[1] < REC_MAX_OPS) {
		struct rec_op *o = &r->ops[j->idx[1]];
		if (!strcmp(k, "status")) o->status = (uint32_t)u;
		else if (!strcmp(k, "offset")) o->offset = u, o->flags |= REC_OPF_OFFSET;
		else if (!strcmp(k, "count")) o->count = (uint32_t)u, o->flags |= REC_OPF_COUNT;
		else if (!strcmp(k, "seqid")) o->seqid = (uint32_t)u, o->flags |= REC_OPF_SEQID;
	}
	return 0;
}

/* An op's name back to its number (strings inside "ops" objects) */
static void op_name(struct jp *j, const char *s)
{
	if (!at(j, 0, "ops") || j->depth != 3 || j->idx[1] >= REC_MAX_OPS)
		return;
	struct rec_op *o = &j->r->ops[j->idx[1]];
	if (!strcmp(j->key[2], "op")) {
		for (uint32_t op = 0; op < 128; op++)
			if (!strcmp(nfs4_op_name(op), s)) {
				o->op = (uint16_t)op;
				return;
			}
	} else if (!strcmp(j->key[2], "fh")) {
		uint64_t h;
		if (hexval(s + (s[0] == '0' && s[1] == 'x' ? 2 : 0), &h) == 0)
			o->fh_hash = h, o->flags |= REC_OPF_FH;
	}
}

static int value(struct jp *j);

static int container(struct jp *j, char close)
{
	bool obj = close == '}';

	if (j->depth >= DEPTH_MAX)
		return fail(j, "nested too deep");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (unsigned n = 0;; n++) {
		ws(j);
		if (obj) {
			if (str(j, j->key[j->depth], KEY_MAX) < 0)
				return -EINVAL;
			ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return fail(j, "':' expected");
		} else {
			/* an array element keeps its parent's key, and its index */
			snprintf(j->key[j->depth], KEY_MAX, "%s", j->depth ? j->key[j->depth - 1] : "");
		}
		j->idx[j->depth] = n;
		j->depth++;
		int rc = value(j);
		j->depth--;
		if (rc < 0)
			return rc;
		ws(j);
		if (j->p >= j->end)
			return fail(j, "the line ends inside an object or array");
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ == close)
			return 0;
		return fail(j, "',' or a closing bracket expected");
	}
}

static int value(struct jp *j)
{
	char s[STR_MAX];

	ws(j);
	if (j->p >= j->end)
		return fail(j, "a value expected");
	switch (*j->p) {
	case '{': return container(j, '}');
	case '[': return container(j, ']');
	case '"':
		if (str(j, s, sizeof(s)) < 0)
			return -EINVAL;
		op_name(j, s);
		return j->depth ? assign(j, 0, s) : fail(j, "not an object");
	case 't': case 'f': case 'n': {
		const char *w = *j->p == 't' ? "true" : *j->p == 'f' ? "false" : "null";
		size_t n = strlen(w);
		if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
			return fail(j, "a bad literal");
		j->p += n;
		/* null: not seen (0 already); an uncertainty: unbounded */
		if (*w == 'n' && j->depth == 2 && !strcmp(j->key[0], "uncertainty_by"))
			return assign(j, UINT64_MAX, NULL);
		return 0;
	}
	default: {
		char num[32];
		size_t n = 0;
		while (j->p + n < j->end && n + 1 < sizeof(num) && strchr("-+.eE0123456789", j->p[n]))
			num[n] = j->p[n], n++;
		num[n] = 0;
		if (!n)
			return fail(j, "a value expected");
		j->p += n;
		char *e;
		errno = 0;
		uint64_t u = num[0] == '-' ? (uint64_t)strtoll(num, &e, 10) : strtoull(num, &e, 10);
		if (*e == '.' || *e == 'e' || *e == 'E')
			u = (uint64_t)strtod(num, &e);
		if (*e || errno)
			return fail(j, "a bad number");
		return j->depth ? assign(j, u, NULL) : fail(j, "not an object");
	}
	}
}

int rec_json_parse(const char *line, size_t len, struct nfsrdma_record *r, char *err, size_t errlen)
{
	struct jp j = { .s = line, .p = line, .end = line + len, .r = r };

	memset(r, 0, sizeof(*r));
	r->status = REC_STATUS_NONE;
	r->call_rdma_proc = r->reply_rdma_proc = 0xff;
	for (unsigned i = 0; i < REC_MAX_OPS; i++)
		r->ops[i].status = REC_STATUS_NONE;
	ws(&j);
	if (j.p >= j.end || *j.p != '{') {
		snprintf(err, errlen, "byte %zu: not a JSON object", (size_t)(j.p - line) + 1);
		return -EINVAL;
	}
	int rc = value(&j);
	ws(&j);
	if (rc == 0 && j.p != j.end)
		rc = fail(&j, "trailing bytes after the object");
	if (rc == 0 && j.not_record)
		return 1;
	if (rc == 0 && (!j.has_v || !r->source))
		rc = fail(&j, "not a record (no \"v\" or \"source\")");
	if (rc < 0) {
		snprintf(err, errlen, "byte %zu: %s", (size_t)(j.p - line) + 1, j.err ? j.err : "bad JSON");
		return -EINVAL;
	}
	if (r->transport == REC_TR_TCP || r->transport == REC_TR_UDP)
		r->caller.ip_proto = r->callee.ip_proto = r->transport == REC_TR_TCP ? 6 : 17;
	rec_derive(r);
	if (rec_is_fused(r)) {
		/* written before the per-vantage uncertainty: the largest for each */
		for (unsigned v = 0; v < 3 && !j.has_unc_by; v++)
			if ((r->vantages & (1u << v)) && (1u << v) != r->f_clock)
				r->f_unc_ns[v] = (r->f_flags & RECFF_UNBOUNDED) ? UINT64_MAX : r->f_uncert_ns;
		fuse_derive(r);
	}
	return 0;
}
