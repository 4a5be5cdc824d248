#include "src/probe/probe_plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "src/base/log.h"
#include "src/probe/probe_format.h"
#include "src/probe/probe_load.h"

#define C PROBE_WANT_CLIENT
#define S PROBE_WANT_SERVER

/* Kernel versions: read from include/trace/events/{sunrpc,rpcrdma}.h of
 * 5.4, 5.10, 5.15, 6.1, 6.6 and 6.12 (docs/probes.md has the table). */
const struct probe_tp probe_tps[] = {
	{ "sunrpc", "rpc_task_begin", C, "tp_rpc_task_begin", false, NULL,
	  "no queue time (task start)", NULL,
	  { { PFLD_TB_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_TB_CLIENT, "client_id", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_chunk_read", C, "tp_chunk_read", false, NULL,
	  "no Read chunk sizes", NULL,
	  { { PFLD_CR_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CR_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CR_POS, "pos", PFK_INT, true, NULL, "position-zero Read chunks are not told apart" },
	    { PFLD_CR_LENGTH, "length", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_chunk_write", C, "tp_chunk_write", false, NULL,
	  "no Write chunk sizes", NULL,
	  { { PFLD_CW_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CW_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CW_LENGTH, "length", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_chunk_wp", C, "tp_chunk_wp", false, "6.1",
	  "no Write chunk sizes for READ with padding",
	  "those kernels add no padding segment to a Write chunk: nothing lost",
	  { { PFLD_CW_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CW_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CW_LENGTH, "length", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_chunk_reply", C, "tp_chunk_reply", false, NULL,
	  "no Reply chunk sizes", NULL,
	  { { PFLD_CW_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CW_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CW_LENGTH, "length", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_marshal", C, "tp_marshal", false, NULL,
	  "no marshal time or header sizes", NULL,
	  { { PFLD_MA_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_MA_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_MA_XID, "xid", PFK_INT, false, NULL, NULL },
	    { PFLD_MA_HDRLEN, "hdrlen", PFK_INT, true, NULL, "no RPC-over-RDMA header size of the call" },
	    { PFLD_MA_HEADLEN, "headlen", PFK_INT, true, NULL, "no inline size of the call" },
	    { PFLD_MA_PAGELEN, "pagelen", PFK_INT, true, NULL, "no inline size of the call" },
	    { PFLD_MA_TAILLEN, "taillen", PFK_INT, true, NULL, "no inline size of the call" },
	    { PFLD_MA_RTYPE, "rtype", PFK_INT, true, NULL, "calls sent as a Read chunk are not told apart" },
	    { PFLD_MA_WTYPE, "wtype", PFK_INT, true, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_post_send", C, "tp_post_send", false, NULL,
	  "no send time", NULL,
	  { { PFLD_PS_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_PS_CLIENT, "client_id", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "xprtrdma_reply", C, "tp_reply", false, NULL,
	  "no reply arrival time", NULL,
	  { { PFLD_RP_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_RP_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_RP_XID, "xid", PFK_INT, true, NULL, "a reply to another XID is not flagged" },
	    { PFLD_RP_CREDITS, "credits", PFK_INT, true, NULL, "no credits granted" } } },
	{ "sunrpc", "rpc_clnt_new", C, "tp_rpc_clnt_new", false, "5.10",
	  "no client address filter (every RPC is filtered out when one is set)", NULL,
	  { { PFLD_CN_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_CN_ADDR, "addr", PFK_STR, false, NULL, NULL } } },
	{ "sunrpc", "rpc_stats_latency", C, "tp_rpc_stats_latency", true, NULL,
	  "no client records at all", NULL,
	  { { PFLD_SL_TASK, "task_id", PFK_INT, false, NULL, NULL },
	    { PFLD_SL_CLIENT, "client_id", PFK_INT, false, NULL, NULL },
	    { PFLD_SL_XID, "xid", PFK_INT, false, NULL, NULL },
	    { PFLD_SL_VERSION, "version", PFK_INT, true, NULL, "no RPC version" },
	    { PFLD_SL_PROGNAME, "progname", PFK_STR, true, NULL, "no program names (the program filter matches nothing)" },
	    { PFLD_SL_PROCNAME, "procname", PFK_STR, true, NULL, "no procedure names" },
	    { PFLD_SL_BACKLOG, "backlog", PFK_INT, true, NULL, "no kernel backlog" },
	    { PFLD_SL_RTT, "rtt", PFK_INT, true, NULL, "no kernel RTT" },
	    { PFLD_SL_EXECUTE, "execute", PFK_INT, true, NULL,
	      "no kernel execute time (the latency filter uses the probe's own duration)" },
	    { PFLD_SL_XPRT_ID, "xprt_id", PFK_INT, true, "6.12",
	      "client records do not name their transport (xprt_id 0; only the client id ties them to rpc_clnt_new)" } } },

	{ "rpcrdma", "svcrdma_wc_recv", S, "tp_wc_recv", false, "6.1",
	  "a request is timed as received when an nfsd thread decodes it: the wait for a thread counts "
	  "as network, not as the server's queue", NULL,
	  { { PFLD_RC_CQ, "cq_id", PFK_INT, false, NULL, NULL },
	    { PFLD_RC_CID, "completion_id", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_decode_rqst", S, "tp_decode_rqst", false, NULL,
	  "no receive time, no RDMA header, no RDMA READ join", NULL,
	  { { PFLD_DR_XID, "xid", PFK_INT, false, NULL, NULL },
	    { PFLD_DR_VERS, "vers", PFK_INT, true, NULL, "no RPC-over-RDMA version" },
	    { PFLD_DR_PROC, "proc", PFK_INT, true, NULL, "no RPC-over-RDMA procedure" },
	    { PFLD_DR_CREDITS, "credits", PFK_INT, true, NULL, "no credits asked" },
	    { PFLD_DR_HDRLEN, "hdrlen", PFK_INT, true, NULL, "no RPC-over-RDMA header size" },
	    { PFLD_DR_CQ, "cq_id", PFK_INT, true, "5.10", NULL },
	    { PFLD_DR_CID, "completion_id", PFK_INT, true, "5.10", NULL } } },
	{ "rpcrdma", "svcrdma_post_read_chunk", S, "tp_post_read_chunk", false, "5.15",
	  "RDMA READs cannot be tied to their RPC (no pull phase, no READ bytes)", NULL,
	  { { PFLD_PC_CQ, "cq_id", PFK_INT, false, NULL, NULL },
	    { PFLD_PC_CID, "completion_id", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_wc_read", S, "tp_wc_read", false, NULL,
	  "no RDMA READ bytes or time", NULL,
	  { { PFLD_WR_CQ, "cq_id", PFK_INT, false, "5.10", NULL },
	    { PFLD_WR_CID, "completion_id", PFK_INT, false, "5.10", NULL },
	    { PFLD_WR_LATENCY, "read_latency", PFK_INT, true, "6.1",
	      "an RDMA READ starts at its post, not at its completion minus its latency" },
	    { PFLD_WR_BYTES, "totalbytes", PFK_INT, true, "6.1", "no RDMA READ byte counts" } } },
	{ "rpcrdma", "svcrdma_read_finished", S, "tp_read_finished", false, "6.12",
	  "a request with Read chunks resumes on another nfsd thread unseen: its record loses the receive, "
	  "READ and reply times and goes out at svc_stats_latency",
	  "5.15 to 6.11 finish a request's RDMA READs on the thread that posted them: nothing lost "
	  "(5.4 and 5.10 do not, and have no event for it)",
	  { { PFLD_RF_CQ, "cq_id", PFK_INT, false, NULL, NULL },
	    { PFLD_RF_CID, "completion_id", PFK_INT, false, NULL, NULL } } },
	{ "sunrpc", "svc_process", S, "tp_svc_process", false, NULL,
	  "no program/procedure numbers", NULL,
	  { { PFLD_SP_XID, "xid", PFK_INT, false, NULL, NULL },
	    { PFLD_SP_VERS, "vers", PFK_INT, true, NULL, "no RPC version" },
	    { PFLD_SP_PROC, "proc", PFK_INT, true, NULL, "no procedure numbers" },
	    { PFLD_SP_SERVICE, "service", PFK_STR, true, NULL, "no program names (the program filter matches nothing)" },
	    { PFLD_SP_PROCEDURE, "procedure", PFK_STR, true, "5.15", "server records carry no procedure name" } } },
	{ "sunrpc", "svc_stats_latency", S, "tp_svc_stats_latency", true, NULL,
	  "no server records at all", NULL,
	  { { PFLD_SS2_CLIENT, "client", PFK_STR, true, "6.1",
	      "the caller address is read from the 'addr' text instead (IPv4 only)" },
	    { PFLD_SS2_XID, "xid", PFK_INT, false, NULL, NULL },
	    { PFLD_SS2_EXECUTE, "execute", PFK_INT, true, NULL,
	      "no kernel execute time (the latency filter uses the probe's own duration)" },
	    { PFLD_SS2_PROCEDURE, "procedure", PFK_STR, true, "5.15", NULL },
	    { PFLD_SS2_ADDR, "addr", PFK_STR, true, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_post_write_chunk", S, "tp_post_write_chunk", false, "5.15",
	  "no RDMA WRITE (Write chunk) push phase", NULL,
	  { { PFLD_PC_CQ, "cq_id", PFK_INT, true, NULL, NULL },
	    { PFLD_PC_CID, "completion_id", PFK_INT, true, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_post_reply_chunk", S, "tp_post_reply_chunk", false, "5.15",
	  "no RDMA WRITE (Reply chunk) push phase", NULL,
	  { { PFLD_PC_CQ, "cq_id", PFK_INT, true, NULL, NULL },
	    { PFLD_PC_CID, "completion_id", PFK_INT, true, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_wc_write", S, "tp_svc_wc_write", false, NULL,
	  "a push ends at the reply Send's completion instead of its last RDMA WRITE completion", NULL,
	  { { PFLD_WW_CQ, "cq_id", PFK_INT, false, "5.10", NULL },
	    { PFLD_WW_CID, "completion_id", PFK_INT, false, "5.10", NULL } } },
	{ "rpcrdma", "svcrdma_wc_reply", S, "tp_svc_wc_reply", false, "6.12",
	  "a Reply chunk's push ends at the reply Send's completion instead",
	  "Reply chunks complete as svcrdma_wc_write there: nothing lost",
	  { { PFLD_WP_CQ, "cq_id", PFK_INT, false, NULL, NULL },
	    { PFLD_WP_CID, "completion_id", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_post_send", S, "tp_svc_post_send", false, NULL,
	  "records are sent at svc_stats_latency, without reply times", NULL,
	  { { PFLD_SS_CQ, "cq_id", PFK_INT, false, "5.10", NULL },
	    { PFLD_SS_CID, "completion_id", PFK_INT, false, "5.10", NULL } } },
	{ "rpcrdma", "svcrdma_wc_send", S, "tp_svc_wc_send", false, NULL,
	  "records are sent when the reply is posted, without its completion time", NULL,
	  { { PFLD_WS_CQ, "cq_id", PFK_INT, false, "5.10", NULL },
	    { PFLD_WS_CID, "completion_id", PFK_INT, false, "5.10", NULL } } },
	{ "rpcrdma", "svcrdma_wc_send_flush", S, "tp_svc_wc_send_flush", false, "6.1",
	  "a reply whose Send is flushed (its connection lost) never has its record sent, and stays "
	  "in flight",
	  "svcrdma_wc_send reports flushed Sends too: nothing lost",
	  { { PFLD_WF_CQ, "cq_id", PFK_INT, false, NULL, NULL },
	    { PFLD_WF_CID, "completion_id", PFK_INT, false, NULL, NULL } } },
	{ "rpcrdma", "svcrdma_wc_send_err", S, "tp_svc_wc_send_err", false, "6.1",
	  "a reply whose Send fails never has its record sent, and stays in flight",
	  "svcrdma_wc_send reports failed Sends too: nothing lost",
	  { { PFLD_WF_CQ, "cq_id", PFK_INT, false, NULL, NULL },
	    { PFLD_WF_CID, "completion_id", PFK_INT, false, NULL, NULL } } },
};
const size_t probe_ntps = sizeof(probe_tps) / sizeof(probe_tps[0]);

_Static_assert(sizeof(probe_tps) / sizeof(probe_tps[0]) <= 32, "unavailable is a 32-bit mask");

static void build(struct probe_plan *pl, const char *root, unsigned want, const char *skip, bool hold);

/* Logs a warning (or holds it: probe_plan_build_held) and keeps its text
 * for tests. */
static void note(struct probe_plan *pl, enum log_level level, const char *fmt, ...)
{
	size_t n = strlen(pl->notes);
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (pl->hold) {
		size_t h = strlen(pl->held);
		snprintf(pl->held + h, sizeof(pl->held) - h, "%d%s\n", (int)level, line);
	} else {
		log_msg(level, "%s", line);
	}
	snprintf(pl->notes + n, sizeof(pl->notes) - n, "%s\n", line);
}

void probe_plan_say(struct probe_plan *pl, bool fatal)
{
	for (char *l = pl->held, *nl; *l && (nl = strchr(l, '\n')); l = nl + 1) {
		int level = l[0] - '0';
		/* fatal: the error says it; each line is then detail (-v) */
		if (fatal)
			level = level <= LOG_WARN ? LOG_INFO : LOG_DEBUG;
		log_msg((enum log_level)level, "%.*s", (int)(nl - l - 1), l + 1);
	}
	pl->held[0] = 0;
	pl->hold = false;
}

static void mark(struct probe_plan *pl, size_t i)
{
	size_t n = strlen(pl->unavail);

	pl->unavailable |= 1u << i;
	snprintf(pl->unavail + n, sizeof(pl->unavail) - n, "%s%s:%s", n ? "," : "", probe_tps[i].sys,
		 probe_tps[i].event);
}

void probe_plan_drop(struct probe_plan *pl, size_t i, const char *why)
{
	mark(pl, i);
	note(pl, LOG_WARN, "kernel probe: %s:%s unavailable (%s): %s", probe_tps[i].sys, probe_tps[i].event,
	     why, probe_tps[i].without);
}

static bool skipped(const char *skip, const struct probe_tp *t)
{
	char want[96];
	size_t n;

	if (!skip || !*skip)
		return false;
	n = (size_t)snprintf(want, sizeof(want), "%s:%s", t->sys, t->event);
	for (const char *p = skip; *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);

		if (l == n && memcmp(p, want, n) == 0)
			return true;
		/* a bare event name also matches */
		if (l == strlen(t->event) && memcmp(p, t->event, l) == 0)
			return true;
		if (!c)
			break;
		p = c + 1;
	}
	return false;
}

static bool system_present(const char *root, const char *sys)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events/%s", root, sys);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The event is not in this kernel: say which kernels lack it and what
 * that costs. */
static void event_absent(struct probe_plan *pl, const char *root, size_t i)
{
	const struct probe_tp *t = &probe_tps[i];

	mark(pl, i);
	if (!system_present(root, t->sys))
		note(pl, LOG_WARN, "kernel probe: %s:%s unavailable (no such tracepoint; is the %s module loaded?): %s",
		     t->sys, t->event, t->sys, t->without);
	else if (t->since)
		note(pl, LOG_WARN, "kernel probe: %s:%s missing (kernel < %s): %s", t->sys, t->event, t->since,
		     t->older ? t->older : t->without);
	else
		note(pl, LOG_WARN, "kernel probe: %s:%s unavailable (no such tracepoint in this kernel): %s",
		     t->sys, t->event, t->without);
}

static bool shape_ok(const struct probe_tp_field *fs, const struct tp_field *tf)
{
	if (fs->kind == PFK_STR)
		return tf->data_loc && tf->size == 4;
	return !tf->data_loc && (tf->size == 1 || tf->size == 2 || tf->size == 4 || tf->size == 8);
}

/* Fills the field table of event i from its format text; returns false
 * (after its line) when a required field is absent or misshapen. */
static bool resolve(struct probe_plan *pl, size_t i, const char *text)
{
	const struct probe_tp *t = &probe_tps[i];
	struct probe_fld *fld = t->side == PROBE_WANT_CLIENT ? pl->cfld : pl->sfld;

	for (int k = 0; k < PROBE_TP_FIELDS && t->f[k].name; k++) {
		const struct probe_tp_field *fs = &t->f[k];
		struct tp_field tf;
		int r = tp_format_field(text, fs->name, &tf);
		const char *what;

		if (r == 0 && shape_ok(fs, &tf)) {
			fld[fs->id].off = tf.off;
			fld[fs->id].size = (uint16_t)(tf.size | (tf.data_loc ? PROBE_FLD_DATALOC : 0));
			continue;
		}
		what = r == -ENOENT ? "absent" : r == 0 ? "has another type or size" : "malformed";
		if (!fs->optional) {
			char why[160];

			if (r == -ENOENT && fs->since)
				snprintf(why, sizeof(why), "field %s absent: kernel < %s", fs->name, fs->since);
			else
				snprintf(why, sizeof(why), "field %s %s", fs->name, what);
			probe_plan_drop(pl, i, why);
			return false;
		}
		fld[fs->id].off = PROBE_FLD_NONE;
		fld[fs->id].size = 0;
		if (!fs->lost)
			note(pl, LOG_INFO, "kernel probe: %s:%s field %s %s; read as 0", t->sys, t->event, fs->name, what);
		else if (r == -ENOENT && fs->since)
			note(pl, LOG_WARN, "kernel probe: %s:%s field %s missing (kernel < %s): %s", t->sys, t->event,
			     fs->name, fs->since, fs->lost);
		else
			note(pl, LOG_WARN, "kernel probe: %s:%s field %s %s: %s", t->sys, t->event, fs->name, what,
			     fs->lost);
	}
	return true;
}

void probe_plan_build(struct probe_plan *pl, const char *root, unsigned want, const char *skip)
{
	build(pl, root, want, skip, false);
}

void probe_plan_build_held(struct probe_plan *pl, const char *root, unsigned want, const char *skip)
{
	build(pl, root, want, skip, true);
}

static void build(struct probe_plan *pl, const char *root, unsigned want, const char *skip, bool hold)
{
	static char text[TP_FORMAT_MAX];

	memset(pl, 0, sizeof(*pl));
	pl->hold = hold;
	for (int k = 0; k < PFLD_MAX; k++)
		pl->cfld[k].off = pl->sfld[k].off = PROBE_FLD_NONE;
	for (size_t i = 0; i < probe_ntps; i++) {
		const struct probe_tp *t = &probe_tps[i];
		int r;

		if (!(want & t->side))
			continue;
		r = tp_format_load(root, t->sys, t->event, text, sizeof(text));
		if (r == -ENOENT) {
			event_absent(pl, root, i);
		} else if (skipped(skip, t)) {
			probe_plan_drop(pl, i, "skipped by configuration");
		} else if (r < 0) {
			char why[96];

			snprintf(why, sizeof(why), "format file: %s", strerror(-r));
			probe_plan_drop(pl, i, why);
		} else {
			resolve(pl, i, text);
		}
	}
}

/* Index of an event in probe_tps, or -1. */
static int probe_tp_index(const char *event)
{
	for (size_t i = 0; i < probe_ntps; i++)
		if (!strcmp(probe_tps[i].event, event))
			return (int)i;
	return -1;
}

bool probe_plan_has(const struct probe_plan *pl, const char *event)
{
	int i = probe_tp_index(event);

	return i >= 0 && !(pl->unavailable & (1u << i));
}
