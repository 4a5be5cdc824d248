#include "src/probe/probe_record.h"

#include <inttypes.h>
#include <string.h>

#include "dissect/nfs4.h"
#include "src/base/json.h"
#include "dissect/programs.h"

static const struct { const char *name; uint32_t prog; unsigned side; } prog_names[] = {
	/* client: struct rpc_program .name; server: struct svc_program .pg_name */
	{ "nfs", PROG_NFS, PROBE_SIDE_CLIENT },       { "nfsd", PROG_NFS, PROBE_SIDE_SERVER },
	{ "nfsacl", PROG_NFSACL, 0 },                 { "lockd", PROG_NLM, 0 },
	{ "statd", PROG_NSM, 0 },                     { "rpcbind", PROG_PORTMAP, 0 },
	{ "mount", PROG_MOUNT, 0 },                   { "NFSv4 callback", PROG_NFS_CB, 0 },
};

uint32_t probe_prog_number(const char *name, unsigned side)
{
	for (size_t i = 0; i < sizeof(prog_names) / sizeof(prog_names[0]); i++)
		if ((!prog_names[i].side || prog_names[i].side == side) && !strcmp(prog_names[i].name, name))
			return prog_names[i].prog;
	return 0;
}

static void copy_str(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = strnlen(src, slen);

	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

/* The kernel's clients name a few procedures (struct rpc_procinfo
 * .p_name) unlike the RFCs and our tables: fs/nfs/mount_clnt.c calls
 * MNT "MOUNT" and UMNT "UMOUNT" (rpc_stats_latency prints "mountv3
 * MOUNT"), fs/lockd/mon.c calls SM_MON "MONITOR" and SM_UNMON
 * "UNMONITOR".  Without these the record was procedure UINT32_MAX. */
static const struct { uint32_t prog; const char *kernel; uint32_t proc; } kernel_proc_names[] = {
	{ PROG_MOUNT, "MOUNT", MOUNT3P_MNT }, { PROG_MOUNT, "UMOUNT", MOUNT3P_UMNT },
	{ PROG_NSM, "MONITOR", 2 },           { PROG_NSM, "UNMONITOR", 3 },  /* SM_MON, SM_UNMON */
};

/* Procedure number from the kernel's procedure name, through the
 * project's own program tables. */
static int proc_by_name(uint32_t prog, uint32_t vers, const char *name, uint32_t *proc)
{
	for (size_t i = 0; i < sizeof(kernel_proc_names) / sizeof(kernel_proc_names[0]); i++) {
		if (kernel_proc_names[i].prog == prog && !strcmp(kernel_proc_names[i].kernel, name)) {
			*proc = kernel_proc_names[i].proc;
			return 0;
		}
	}
	for (uint32_t p = 0; p < 128; p++) {
		const char *n = prog_proc_name(prog, vers, p);

		if (n && !strcmp(n, name)) {
			*proc = p;
			return 0;
		}
	}
	return -1;
}

static void client_what(const struct probe_event *e, struct nfsrdma_record *r, const char *prog,
			const char *procname)
{
	r->prog = probe_prog_number(prog, PROBE_SIDE_CLIENT);
	r->vers = e->vers;
	if (r->prog == PROG_NFS && r->vers == 4) {
		/* The client names its NFSv4 "procedures" after the main
		 * operation of the COMPOUND; keep it as the one op we know. */
		r->proc = strcmp(procname, "NULL") ? 1 : 0;
		for (uint32_t op = 3; op < 96 && r->proc; op++) {
			if (!strcmp(nfs4_op_name(op), procname)) {
				r->nops = 1;
				r->ops[0].op = (uint16_t)op;
				r->ops[0].status = REC_STATUS_NONE;
				break;
			}
		}
	} else if (r->prog && proc_by_name(r->prog, r->vers, procname, &r->proc) < 0) {
		r->proc = UINT32_MAX;  /* named, but not in our tables */
	}
}

void probe_to_record(const struct probe_event *e, struct nfsrdma_record *r)
{
	char procname[PROBE_STR_MAX + 1], prog[PROBE_PROG_MAX + 1];
	bool client = e->side == PROBE_SIDE_CLIENT;

	memset(r, 0, sizeof(*r));
	/* names come NUL-terminated from the kernel; do not rely on it */
	copy_str(procname, sizeof(procname), e->procname, sizeof(e->procname));
	copy_str(prog, sizeof(prog), e->prog, sizeof(e->prog));
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = client ? REC_SRC_CLIENT_PROBE : REC_SRC_SERVER_PROBE;
	r->rdma_vers = (uint8_t)e->rdma_vers;
	r->xid = e->xid;
	r->status = REC_STATUS_NONE;   /* program status is not in these tracepoints */
	r->call_rdma_proc = r->reply_rdma_proc = 0xff;
	r->flags = RECF_CALL;
	copy_str(r->name, sizeof(r->name), procname, sizeof(procname));
	if (e->seen & PS_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;

	if (client) {
		r->conn_id = e->client_id;
		client_what(e, r, prog, procname);
		if ((e->seen & PS_REPLY) || e->k_rtt_us)
			r->flags |= RECF_REPLY;
		if (e->seen & PS_MARSHAL) {
			/* rtype 4 = "*read list": the whole call in a position-zero Read chunk */
			r->call_rdma_proc = e->rtype == 4 ? 1 : 0;
			if (e->rtype == 4)
				r->flags |= RECF_ARGS_DDP;
			r->call_hdr = e->hdrlen;
			r->call_inline = e->hdrlen + (e->rtype == 4 ? 0 :
				e->rtype == 3 ? e->headlen + e->taillen : e->headlen + e->pagelen + e->taillen);
		}
		r->read_chunk_bytes = e->read_chunk_bytes;
		r->write_chunk_bytes = e->write_chunk_bytes;
		r->reply_chunk_bytes = e->reply_chunk_bytes;
		r->n_read_segs = e->n_read_segs;
		r->n_write_segs = e->n_write_segs;
		r->n_reply_segs = e->n_reply_segs;
		r->n_read_chunks = e->n_read_segs ? 1 : 0;   /* Linux: one chunk per list */
		r->n_write_chunks = e->n_write_segs ? 1 : 0;
		r->credits_granted = (uint16_t)e->credits;
		r->t_call_first = e->t[PT_BEGIN] ? e->t[PT_BEGIN] : e->t[PT_MARSHAL];
		r->t_call_last = e->t[PT_SEND_LAST] ? e->t[PT_SEND_LAST] : e->t[PT_MARSHAL];
		r->t_reply_first = e->t[PT_REPLY];
		r->t_reply_last = e->t[PT_DONE];
		r->t_marshal = e->t[PT_MARSHAL];
		r->k_backlog_us = (uint32_t)e->k_backlog_us;
		r->k_rtt_us = (uint32_t)e->k_rtt_us;
		r->k_exec_us = (uint32_t)e->k_exec_us;
		r->k_xprt_id = e->xprt_id;
		r->vantages = REC_VT_CLIENT;
		r->vt_client[RCT_BEGIN] = e->t[PT_BEGIN];
		r->vt_client[RCT_MARSHAL] = e->t[PT_MARSHAL];
		r->vt_client[RCT_SEND] = e->t[PT_SEND] ? e->t[PT_SEND] : e->t[PT_SEND_LAST];
		r->vt_client[RCT_REPLY] = e->t[PT_REPLY];
		r->vt_client[RCT_END] = e->t[PT_DONE];
	} else {
		r->prog = probe_prog_number(prog, PROBE_SIDE_SERVER);
		r->vers = e->vers;
		r->proc = e->proc;
		if (e->seen & PS_STATS)  /* the reply was built and goes out */
			r->flags |= RECF_REPLY;
		if (e->addr_family == 2 || e->addr_family == 10) {
			r->caller.family = e->addr_family == 2 ? 4 : 6;
			memcpy(r->caller.addr, e->caller_addr, e->addr_family == 2 ? 4 : 16);
			r->caller.port = 0;  /* rec_endpoint.port is the RoCE UDP port: unknown here */
		}
		if (e->seen & PS_DECODE) {
			r->call_rdma_proc = (uint8_t)e->rdma_proc;
			if (e->rdma_proc == 1)
				r->flags |= RECF_ARGS_DDP;
			r->call_hdr = e->hdrlen;
			r->credits_asked = (uint16_t)e->credits;
		}
		r->read_bytes = e->read_bytes;
		/* the server pulls each Read chunk whole: what it read is what
		 * was advertised (Linux sends at most one chunk per list) */
		r->read_chunk_bytes = e->read_bytes;
		r->n_read_chunks = e->n_reads ? 1 : 0;
		r->n_rdma_reads = e->n_reads;
		r->n_rdma_writes = e->n_writes;
		r->t_call_first = r->t_call_last = e->t[PT_DECODE] ? e->t[PT_DECODE] : e->t[PT_PROCESS];
		r->k_exec_us = (uint32_t)e->k_exec_us;
		r->t_read_first = e->t[PT_READ_FIRST];
		r->t_read_last = e->t[PT_READ_DONE];
		/* The push spans the first Write/Reply chunk post to the last
		 * RDMA WRITE completion (svcrdma_wc_write, and from 6.12
		 * svcrdma_wc_reply for a Reply chunk).  Without one, to the
		 * reply Send's completion: the WRITEs are posted ahead of the
		 * Send (6.12: in its chain) on the same queue pair, so they
		 * complete before it; without that, to the Send's post. */
		r->t_write_first = e->t[PT_WRITE_POST];
		r->t_write_last = !e->t[PT_WRITE_POST] ? 0 :
				  e->t[PT_WRITE_DONE] > e->t[PT_WRITE_POST] ? e->t[PT_WRITE_DONE] :
				  e->t[PT_SEND_DONE] ? e->t[PT_SEND_DONE] : e->t[PT_SEND_POST];
		r->t_reply_first = e->t[PT_SEND_POST] ? e->t[PT_SEND_POST] : e->t[PT_STATS];
		r->t_reply_last = e->t[PT_SEND_DONE] ? e->t[PT_SEND_DONE] : r->t_reply_first;
		r->vantages = REC_VT_SERVER;
		r->vt_server[RST_RECV] = r->t_call_first;
		r->vt_server[RST_READ_POST] = e->t[PT_READ_POST] ? e->t[PT_READ_POST] : e->t[PT_READ_FIRST];
		r->vt_server[RST_READ_DONE] = e->t[PT_READ_DONE];
		/* the kernel's execute starts at rq_stime: svc_stats_latency - execute */
		r->vt_server[RST_EXEC_DONE] = e->t[PT_STATS];
		r->vt_server[RST_DISPATCH] = e->t[PT_STATS] && e->k_exec_us * 1000 <= e->t[PT_STATS] ?
					     e->t[PT_STATS] - e->k_exec_us * 1000 : e->t[PT_PROCESS];
		r->vt_server[RST_WRITE_POST] = e->t[PT_WRITE_POST];
		r->vt_server[RST_WRITE_DONE] = e->t[PT_WRITE_DONE];
		r->vt_server[RST_SEND_POST] = e->t[PT_SEND_POST];
		r->vt_server[RST_SEND_DONE] = e->t[PT_SEND_DONE];
	}
	r->rpc_status = (r->flags & RECF_REPLY) ? REC_RPC_SUCCESS : REC_RPC_NONE;
	rec_derive(r);
}

void probe_event_json(FILE *f, const struct probe_event *e)
{
	static const char *const tn[PT_MAX] = {
		"begin", "marshal", "send", "send_last", "reply", "done", "decode", "read_post",
		"read_first", "read_done", "process", "stats", "write_post", "send_post", "send_done",
		"marshal_last", "write_done",
	};
	static const char *const kn[] = { "backlog_us", "rtt_us", "exec_us" };
	static const char *const bn[] = { "hdr", "head", "page", "tail", "read_chunk", "write_chunk",
					  "reply_chunk", "rdma_read" };
	static const char *const rn[] = { "reads", "read_lat_ns", "writes", "rtype", "wtype", "credits" };
	const uint64_t kv[] = { e->k_backlog_us, e->k_rtt_us, e->k_exec_us };
	const uint64_t bv[] = { e->hdrlen, e->headlen, e->pagelen, e->taillen, e->read_chunk_bytes,
				e->write_chunk_bytes, e->reply_chunk_bytes, e->read_bytes };
	const uint64_t rv[] = { e->n_reads, e->read_lat_ns, e->n_writes, e->rtype, e->wtype, e->credits };
	struct jw jb, *j = &jb;
	bool first = true;

	jw_init(j, f);
	jw_lit(j, "{\"probe\":");
	jw_str(j, e->side == PROBE_SIDE_CLIENT ? "client" : "server");
	jw_lit(j, ",\"xid\":\"");
	jw_hex8(j, e->xid);
	jw_lit(j, "\",\"client_id\":");
	jw_u(j, e->client_id);
	JW_KEY(j, "task_id");
	jw_u(j, e->task_id);
	JW_KEY(j, "xprt_id");
	jw_u(j, e->xprt_id);
	JW_KEY(j, "prog");
	jw_strn(j, e->prog, sizeof(e->prog));
	JW_KEY(j, "vers");
	jw_u(j, e->vers);
	JW_KEY(j, "proc");
	jw_u(j, e->proc);
	JW_KEY(j, "procname");
	jw_strn(j, e->procname, sizeof(e->procname));
	JW_KEY(j, "seen");
	jw_u(j, e->seen);
	JW_KEY(j, "transmits");
	jw_u(j, e->n_transmits);
	jw_lit(j, ",\"k\":{");
	jw_counts(j, kn, kv, 3, false);
	jw_lit(j, "},\"t\":{");
	for (int i = 0; i < PT_MAX; i++) {
		if (!e->t[i])
			continue;
		jw_lit(j, first ? "\"" : ",\"");
		jw_lit(j, tn[i]);
		jw_lit(j, "\":");
		jw_u(j, e->t[i]);
		first = false;
	}
	jw_lit(j, "},\"bytes\":{");
	jw_counts(j, bn, bv, 8, false);
	jw_lit(j, "},");
	jw_counts(j, rn, rv, 6, false);
	jw_lit(j, "}\n");
	jw_flush(j);
}

void probe_event_json_cb(const struct probe_event *e, void *file)
{
	probe_event_json(file, e);
}

void probe_summary_json(FILE *f, const struct probe_hist_row *rows, int n,
			const uint64_t c[PST_MAX], const char *unavailable)
{
	static const char *const cn[] = { "events", "records", "ringbuf_drops", "no_state", "map_full", "filtered" };
	const uint64_t cv[] = { c[PST_EVENTS], c[PST_RECORDS], c[PST_RB_DROPS], c[PST_NO_STATE], c[PST_MAP_FULL],
				c[PST_FILTERED] };
	struct jw jb, *j = &jb;

	jw_init(j, f);
	jw_lit(j, "{\"summary\":{");
	jw_counts(j, cn, cv, 6, false);
	JW_KEY(j, "unavailable");
	jw_strn(j, unavailable ? unavailable : "", 1024);
	jw_lit(j, ",\"ops\":[");
	for (int i = 0; i < n; i++) {
		const struct probe_hist_row *r = &rows[i];
		bool first = true;

		jw_lit(j, i ? ",{\"side\":" : "{\"side\":");
		jw_str(j, r->side == PROBE_SIDE_CLIENT ? "client" : "server");
		JW_KEY(j, "prog");
		jw_strn(j, r->prog, sizeof(r->prog));
		JW_KEY(j, "vers");
		jw_u(j, r->vers);
		JW_KEY(j, "proc");
		jw_strn(j, r->proc, sizeof(r->proc));
		JW_KEY(j, "count");
		jw_u(j, r->count);
		JW_KEY(j, "mean_ns");
		jw_u(j, r->count ? r->sum_ns / r->count : 0);
		JW_KEY(j, "p50_ns");
		jw_u(j, probe_hist_quantile(r, 0.5));
		JW_KEY(j, "p99_ns");
		jw_u(j, probe_hist_quantile(r, 0.99));
		jw_lit(j, ",\"log2_ns\":{");
		for (int b = 0; b < PROBE_HIST_SLOTS; b++) {
			if (!r->bucket[b])
				continue;
			if (!first)
				jw_c(j, ',');
			first = false;
			jw_c(j, '"');
			jw_u(j, (uint64_t)b);
			jw_lit(j, "\":");
			jw_u(j, r->bucket[b]);
		}
		jw_lit(j, "}}");
	}
	jw_lit(j, "]}}\n");
	jw_flush(j);
}
