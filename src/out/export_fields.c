/* Field export (see export_fields.h).  A field is a name, a one-line
 * meaning, and a function printing its value into a buffer. */
#include "src/out/export_fields.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/programs.h"
#include "src/out/out.h"
#include "src/out/recfmt.h"

typedef void (*field_fn)(const struct nfsrdma_record *r, char *b, size_t n);

struct field {
	const char *name, *help;
	field_fn fn;
	bool def;            /* in the default list */
	uint8_t join;        /* with --join: 0 no (the wire's own record), 1 yes, 2 yes and in its default, 3 only then */
};

#define U(x) snprintf(b, n, "%" PRIu64, (uint64_t)(x))
/* seconds as tshark prints a time: a phase that took no time is
 * 0.000000000, not empty like one that did not happen */
static void sec(char *b, size_t n, uint64_t ns)
{
	snprintf(b, n, "%" PRIu64 ".%09" PRIu64, (uint64_t)(ns / 1000000000u), (uint64_t)(ns % 1000000000u));
}
static bool is_v4(const struct nfsrdma_record *r) { return (r->prog == PROG_NFS && r->vers == 4) || r->prog == PROG_NFS_CB; }

static void f_frame(const struct nfsrdma_record *r, char *b, size_t n) { U(r->frame_call ? r->frame_call : r->frame_reply); }
static void f_frame_reply(const struct nfsrdma_record *r, char *b, size_t n) { if (r->frame_reply) U(r->frame_reply); else b[0] = 0; }
static void f_time(const struct nfsrdma_record *r, char *b, size_t n)
{
	uint64_t t = r->t_call_first ? r->t_call_first : r->t_reply_first;

	if (t)
		sec(b, n, t);
	else
		b[0] = 0;
}
static void addr(const struct rec_endpoint *e, int fam, char *b, size_t n)
{
	if (e->family == fam)
		dissect_addr_str(e, b, n);
	else
		b[0] = 0;
}
static void f_ipsrc(const struct nfsrdma_record *r, char *b, size_t n) { addr(&r->caller, 4, b, n); }
static void f_ipdst(const struct nfsrdma_record *r, char *b, size_t n) { addr(&r->callee, 4, b, n); }
static void f_ip6src(const struct nfsrdma_record *r, char *b, size_t n) { addr(&r->caller, 6, b, n); }
static void f_ip6dst(const struct nfsrdma_record *r, char *b, size_t n) { addr(&r->callee, 6, b, n); }
static void f_xid(const struct nfsrdma_record *r, char *b, size_t n) { snprintf(b, n, "0x%08x", r->xid); }
/* rpcordma.*: an RPC over TCP or UDP has no RPC-over-RDMA header, so
 * none of its fields (empty, as tshark leaves a field the frame lacks) */
static bool rdma(const struct nfsrdma_record *r, char *b)
{
	b[0] = 0;
	return r->transport == REC_TR_RDMA;
}
static void f_rxid(const struct nfsrdma_record *r, char *b, size_t n) { if (rdma(r, b)) f_xid(r, b, n); }
static void f_vers(const struct nfsrdma_record *r, char *b, size_t n) { if (rdma(r, b)) U(r->rdma_vers); }
static void f_credits(const struct nfsrdma_record *r, char *b, size_t n) { if (rdma(r, b)) U(r->credits_asked); }
static void f_msgtype(const struct nfsrdma_record *r, char *b, size_t n) { if (rdma(r, b) && r->call_rdma_proc != 0xff) U(r->call_rdma_proc); }
static void f_transport(const struct nfsrdma_record *r, char *b, size_t n) { snprintf(b, n, "%s", rec_transport_name(r->transport)); }
static void f_prog(const struct nfsrdma_record *r, char *b, size_t n) { if (r->flags & RECF_CALL) U(r->prog); else b[0] = 0; }
static void f_pvers(const struct nfsrdma_record *r, char *b, size_t n) { if (r->flags & RECF_CALL) U(r->vers); else b[0] = 0; }
static void f_proc(const struct nfsrdma_record *r, char *b, size_t n) { if (r->flags & RECF_CALL) U(r->proc); else b[0] = 0; }
static void f_flavor(const struct nfsrdma_record *r, char *b, size_t n) { U(r->auth_flavor); }
static void f_uid(const struct nfsrdma_record *r, char *b, size_t n) { if (r->auth_flavor == 1) U(r->auth_uid); else b[0] = 0; }
static void f_gid(const struct nfsrdma_record *r, char *b, size_t n) { if (r->auth_flavor == 1) U(r->auth_gid); else b[0] = 0; }
static void f_rpctime(const struct nfsrdma_record *r, char *b, size_t n)
{
	if (rec_total_known(r))
		sec(b, n, r->d_total);
	else
		b[0] = 0;
}
static void f_accept(const struct nfsrdma_record *r, char *b, size_t n) { if (r->rpc_status < 100) U(r->rpc_status); else b[0] = 0; }
static void f_opcode(const struct nfsrdma_record *r, char *b, size_t n)
{
	size_t o = 0;
	b[0] = 0;
	if (!is_v4(r) || r->proc != 1)
		return;
	for (unsigned i = 0; i < r->nops && i < REC_MAX_OPS && o + 12 < n; i++)
		o += (size_t)snprintf(b + o, n - o, "%s%u", i ? "," : "", r->ops[i].op);
}
static void f_status(const struct nfsrdma_record *r, char *b, size_t n)
{
	if ((r->prog == PROG_NFS || r->prog == PROG_NFS_CB) && r->status != REC_STATUS_NONE)
		U(r->status);
	else
		b[0] = 0;
}
static void f_minor(const struct nfsrdma_record *r, char *b, size_t n) { if (is_v4(r)) U(r->minorvers); else b[0] = 0; }
static void f_offset3(const struct nfsrdma_record *r, char *b, size_t n) { if (r->prog == PROG_NFS && r->vers == 3 && (r->offset || r->count)) U(r->offset); else b[0] = 0; }
static void f_count3(const struct nfsrdma_record *r, char *b, size_t n) { if (r->prog == PROG_NFS && r->vers == 3 && r->count) U(r->count); else b[0] = 0; }
static void f_conn(const struct nfsrdma_record *r, char *b, size_t n) { U(r->conn_id); }
static void f_program(const struct nfsrdma_record *r, char *b, size_t n) { rec_prog_str(r, b, n); }
static void f_op(const struct nfsrdma_record *r, char *b, size_t n) { rec_proc_str(r, b, n); }
static void f_ops(const struct nfsrdma_record *r, char *b, size_t n) { rec_ops_str(r, b, n); }
static void f_stat(const struct nfsrdma_record *r, char *b, size_t n) { rec_status_str(r, b, n); }
/* a phase: empty when it did not happen, as in --csv */
static void phase(const struct nfsrdma_record *r, unsigned ph, char *b, size_t n)
{
	if (rec_phase_seen(r, ph))
		sec(b, n, r->d_phase[ph]);
	else
		b[0] = 0;
}
static void f_l_call(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_CALL, b, n); }
static void f_l_queue(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_QUEUE, b, n); }
static void f_l_pull(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_PULL, b, n); }
static void f_l_server(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_SERVER, b, n); }
static void f_l_qserver(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_QUEUE_SERVER, b, n); }
static void f_l_push(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_PUSH, b, n); }
static void f_l_wait(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_WAIT, b, n); }
static void f_l_reply(const struct nfsrdma_record *r, char *b, size_t n) { phase(r, REC_PH_REPLY, b, n); }
static void f_chunks(const struct nfsrdma_record *r, char *b, size_t n) { rec_chunk_mix(r, b, n); }
static void f_binl(const struct nfsrdma_record *r, char *b, size_t n) { U(rec_bytes_inline(r)); }
static void f_bddp(const struct nfsrdma_record *r, char *b, size_t n) { U(rec_bytes_ddp(r)); }
static void f_granted(const struct nfsrdma_record *r, char *b, size_t n) { if (rdma(r, b)) U(r->credits_granted); }
static void f_retrans(const struct nfsrdma_record *r, char *b, size_t n) { if (rdma(r, b)) U(r->rdma_retrans); }
static void f_findings(const struct nfsrdma_record *r, char *b, size_t n) { U(r->nfindings); }
static void f_flags(const struct nfsrdma_record *r, char *b, size_t n) { U(r->flags); }
static void f_name(const struct nfsrdma_record *r, char *b, size_t n) { out_csv_esc(r->name, sizeof(r->name), b, n); }

/* a joined record's clock-free segment, empty when not known */
static void seg(const struct nfsrdma_record *r, unsigned sg, char *b, size_t n)
{
	if (rec_is_fused(r) && (r->f_seg_mask & (1u << sg)))
		sec(b, n, r->f_seg[sg]);
	else
		b[0] = 0;
}
static void f_seg_client(const struct nfsrdma_record *r, char *b, size_t n) { seg(r, REC_SEG_CLIENT_NET, b, n); }
static void f_seg_server(const struct nfsrdma_record *r, char *b, size_t n) { seg(r, REC_SEG_SERVER_NET, b, n); }
/* place names joined by '|', as --csv's verdict column */
static void f_verdict(const struct nfsrdma_record *r, char *b, size_t n)
{
	size_t o = 0;

	b[0] = 0;
	for (unsigned pl = 0; rec_is_fused(r) && pl < REC_PL_N && o + 16 < n; pl++)
		if (r->f_verdict & (1u << pl))
			o += (size_t)snprintf(b + o, n - o, "%s%s", o ? "|" : "", rec_place_name(pl));
}
static void f_verdict_share(const struct nfsrdma_record *r, char *b, size_t n)
{
	if (rec_is_fused(r) && r->f_verdict)
		snprintf(b, n, "%u.%03u", r->f_verdict_pm / 1000, r->f_verdict_pm % 1000);
	else
		b[0] = 0;
}

static const struct field fields[] = {
	{ "frame.number", "first frame of the call (of the reply if no call was seen)", f_frame, true, 0 },
	{ "frame.time_epoch", "time of that frame, seconds since the epoch", f_time, true, 0 },
	{ "ip.src", "caller (RPC client) IPv4 address", f_ipsrc, true, 2 },
	{ "ip.dst", "callee (RPC server) IPv4 address", f_ipdst, true, 2 },
	{ "ipv6.src", "caller IPv6 address", f_ip6src, false, 1 },
	{ "ipv6.dst", "callee IPv6 address", f_ip6dst, false, 1 },
	{ "rpcordma.xid", "RPC-over-RDMA XID (= rpc.xid; empty over TCP and UDP)", f_rxid, true, 0 },
	{ "rpcordma.vers", "RPC-over-RDMA version (empty over TCP and UDP)", f_vers, false, 0 },
	{ "rpcordma.flow_control", "credits the call asked for (empty over TCP and UDP)", f_credits, false, 0 },
	{ "rpcordma.msg_type", "call's RPC-over-RDMA procedure (0 RDMA_MSG, 1 RDMA_NOMSG...; empty over TCP and UDP)", f_msgtype, false, 0 },
	{ "rpc.xid", "RPC XID (every transport)", f_xid, true, 2 },
	{ "rpc.program", "RPC program number", f_prog, true, 1 },
	{ "rpc.programversion", "RPC program version", f_pvers, true, 1 },
	{ "rpc.procedure", "RPC procedure number", f_proc, true, 1 },
	{ "rpc.auth.flavor", "credential flavor", f_flavor, false, 0 },
	{ "rpc.auth.uid", "AUTH_SYS uid", f_uid, false, 0 },
	{ "rpc.auth.gid", "AUTH_SYS gid", f_gid, false, 0 },
	{ "rpc.state_accept", "accept_stat of the reply", f_accept, false, 0 },
	/* not Wireshark's rpc.time: that one starts where the call is complete
	 * (after the RDMA READ of its arguments), this one at its first packet */
	{ "nfsrdma.latency.total", "first call packet to last reply packet (the sum of the phases), seconds", f_rpctime, true, 0 },
	{ "nfs.opcode", "NFSv4 COMPOUND operation numbers, comma-joined", f_opcode, true, 0 },
	{ "nfs.status", "NFS status of the reply", f_status, true, 1 },
	{ "nfs.minorversion", "NFSv4 minor version", f_minor, false, 0 },
	{ "nfs.offset3", "NFSv3 READ/WRITE/COMMIT offset", f_offset3, false, 0 },
	{ "nfs.count3", "NFSv3 READ/WRITE/COMMIT count", f_count3, false, 0 },
	{ "nfsrdma.frame_reply", "first frame of the reply", f_frame_reply, false, 0 },
	{ "nfsrdma.conn", "connection number", f_conn, false, 0 },
	{ "nfsrdma.program", "program name (NFSv3, NFSv4.1...)", f_program, true, 2 },
	{ "nfsrdma.op", "procedure or main COMPOUND operation name", f_op, true, 2 },
	{ "nfsrdma.ops", "NFSv4 COMPOUND operation names", f_ops, false, 1 },
	{ "nfsrdma.status", "outcome as text", f_stat, true, 2 },
	{ "nfsrdma.latency.call", "the call's SEND, first to last packet, seconds", f_l_call, true, 0 },
	{ "nfsrdma.latency.queue", "call received to the first RDMA READ of its arguments, seconds", f_l_queue, true, 0 },
	{ "nfsrdma.latency.pull", "RDMA READ of the arguments, seconds", f_l_pull, true, 0 },
	{ "nfsrdma.latency.server", "arguments pulled to the first result byte, seconds", f_l_server, true, 0 },
	{ "nfsrdma.latency.queue+server", "no pull: call received to the first result byte (queueing and execution), seconds", f_l_qserver, true, 0 },
	{ "nfsrdma.latency.push", "RDMA WRITE of the results, seconds", f_l_push, true, 0 },
	{ "nfsrdma.latency.wait", "last result WRITE to the reply's SEND, seconds", f_l_wait, true, 0 },
	{ "nfsrdma.latency.reply", "the reply's SEND, first to last packet, seconds", f_l_reply, true, 0 },
	{ "nfsrdma.chunks", "chunk mix (inline, read, write, reply, p0)", f_chunks, true, 0 },
	{ "nfsrdma.bytes.inline", "bytes sent inline, call + reply", f_binl, true, 0 },
	{ "nfsrdma.bytes.ddp", "bytes moved by RDMA READ/WRITE", f_bddp, true, 0 },
	{ "nfsrdma.credits_granted", "credits the reply granted (empty over TCP and UDP)", f_granted, false, 0 },
	{ "nfsrdma.rdma_retrans", "RDMA packets of this RPC the wire showed again or late (empty over TCP and UDP)", f_retrans, false, 0 },
	{ "nfsrdma.findings", "conformance findings on this RPC", f_findings, false, 0 },
	{ "nfsrdma.flags", "record flags (docs/record.md)", f_flags, false, 0 },
	{ "nfs.name", "LOOKUP/CREATE/OPEN/... name, MOUNT path (CSV convention; flag 16384: cut)", f_name, false, 0 },
	/* joined records (--join) alone: docs/record.md "Segments and the verdict" */
	{ "nfsrdma.seg_client_net", "clock-free client-side network round trip, seconds (with the wire)", f_seg_client, false, 3 },
	{ "nfsrdma.seg_server_net", "clock-free server-side network round trip, seconds (with the wire)", f_seg_server, false, 3 },
	{ "nfsrdma.verdict", "the place holding most of the RPC's time; a|b: the data cannot tell them apart", f_verdict, false, 3 },
	{ "nfsrdma.verdict_share", "the verdict's share of the RPC's time, 0..1", f_verdict_share, false, 3 },
	/* last in the default list: the columns before it keep their places */
	{ "nfsrdma.transport", "what carried the RPC: rdma, tcp or udp (as -z transport)", f_transport, true, 2 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct fields_writer {
	FILE *out;
	bool tsv, header_done;
	size_t n;
	const struct field *sel[NFIELDS * 2];
};

struct fields_writer *fields_open(FILE *out, const char *list, bool tsv, bool joined, char *err, size_t errlen)
{
	struct fields_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->out = out;
	w->tsv = tsv;
	if (!list || !strcmp(list, "default") || !strcmp(list, "all")) {
		bool all = list && !strcmp(list, "all");
		for (size_t i = 0; i < NFIELDS; i++)
			if (joined ? fields[i].join >= (all ? 1 : 2) : fields[i].join < 3 && (all || fields[i].def))
				w->sel[w->n++] = &fields[i];
		return w;
	}
	const char *p = list;
	while (*p) {
		size_t l = strcspn(p, ",");
		size_t i;
		for (i = 0; i < NFIELDS; i++)
			if (strlen(fields[i].name) == l && !strncmp(fields[i].name, p, l))
				break;
		if (i == NFIELDS || w->n == NFIELDS * 2) {
			snprintf(err, errlen, "--fields: unknown field '%.*s' (see --fields help)", (int)(l > 64 ? 64 : l), p);
			free(w);
			return NULL;
		}
		if (joined ? !fields[i].join : fields[i].join == 3) {
			snprintf(err, errlen, joined ? "--fields: %s needs the wire's own records (not with --join)" :
				 "--fields: %s is a joined record's (needs --join)", fields[i].name);
			free(w);
			return NULL;
		}
		w->sel[w->n++] = &fields[i];
		p += l;
		if (*p == ',')
			p++;
	}
	if (!w->n) {
		snprintf(err, errlen, "--fields: no field named");
		free(w);
		return NULL;
	}
	return w;
}

/* CSV per RFC 4180: quote when needed; TSV: tabs/newlines become spaces. */
static void cell(const struct fields_writer *w, const char *v)
{
	if (w->tsv) {
		for (; *v; v++)
			fputc(*v == '\t' || *v == '\n' || *v == '\r' ? ' ' : *v, w->out);
		return;
	}
	if (!strpbrk(v, ",\"\r\n")) {
		fputs(v, w->out);
		return;
	}
	fputc('"', w->out);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', w->out);
		fputc(*v, w->out);
	}
	fputc('"', w->out);
}

void fields_record(struct fields_writer *w, const struct nfsrdma_record *r)
{
	char b[6 * REC_NAME_MAX + 64];

	if (!w->header_done) {
		for (size_t i = 0; i < w->n; i++) {
			if (i)
				fputc(w->tsv ? '\t' : ',', w->out);
			fputs(w->sel[i]->name, w->out);
		}
		fputc('\n', w->out);
		w->header_done = true;
	}
	for (size_t i = 0; i < w->n; i++) {
		if (i)
			fputc(w->tsv ? '\t' : ',', w->out);
		b[0] = 0;
		w->sel[i]->fn(r, b, sizeof(b));
		cell(w, b);
	}
	fputc('\n', w->out);
}

void fields_close(struct fields_writer *w)
{
	free(w);
}

void fields_help(FILE *f)
{
	for (size_t i = 0; i < NFIELDS; i++)
		fprintf(f, "%-26s %s%s%s\n", fields[i].name, fields[i].help, fields[i].def ? " (default)" : "",
			fields[i].join == 3 ? " (--join only; its default)" : fields[i].join == 2 ? " (--join default)" :
			fields[i].join ? " (also --join)" : "");
}
