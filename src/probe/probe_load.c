#include "src/probe/probe_load.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/programs.h"
#include "src/base/log.h"
#include "src/probe/probe_format.h"
#include "rpc_client.skel.h"
#include "rpc_server.skel.h"

/* A field the program reads: which slot of probe_fld, its name in the
 * format file, and what shape it must have. */
enum fkind { FK_INT, FK_STR };
struct fspec {
	int         id;
	const char *name;
	enum fkind  kind;
	bool        optional;    /* the program copes with 0 */
};

#define MAXF 10
struct tpspec {
	const char *sys, *event;
	unsigned    side;        /* PROBE_WANT_CLIENT / _SERVER */
	const char *prog;        /* BPF program name */
	bool        essential;   /* the side cannot emit records without it */
	const char *without;     /* what is lost without it (for the message) */
	struct fspec f[MAXF];
};

static const struct tpspec tps[] = {
	{ "sunrpc", "rpc_task_begin", PROBE_WANT_CLIENT, "tp_rpc_task_begin", false,
	  "no queue time (task start)",
	  { { PFLD_TB_TASK, "task_id", FK_INT, false }, { PFLD_TB_CLIENT, "client_id", FK_INT, false } } },
	{ "rpcrdma", "xprtrdma_chunk_read", PROBE_WANT_CLIENT, "tp_chunk_read", false,
	  "no Read chunk sizes",
	  { { PFLD_CR_TASK, "task_id", FK_INT, false }, { PFLD_CR_CLIENT, "client_id", FK_INT, false },
	    { PFLD_CR_POS, "pos", FK_INT, true }, { PFLD_CR_LENGTH, "length", FK_INT, false } } },
	{ "rpcrdma", "xprtrdma_chunk_write", PROBE_WANT_CLIENT, "tp_chunk_write", false,
	  "no Write chunk sizes",
	  { { PFLD_CW_TASK, "task_id", FK_INT, false }, { PFLD_CW_CLIENT, "client_id", FK_INT, false },
	    { PFLD_CW_LENGTH, "length", FK_INT, false } } },
	{ "rpcrdma", "xprtrdma_chunk_wp", PROBE_WANT_CLIENT, "tp_chunk_wp", false,
	  "no Write chunk sizes for READ with padding",
	  { { PFLD_CW_TASK, "task_id", FK_INT, false }, { PFLD_CW_CLIENT, "client_id", FK_INT, false },
	    { PFLD_CW_LENGTH, "length", FK_INT, false } } },
	{ "rpcrdma", "xprtrdma_chunk_reply", PROBE_WANT_CLIENT, "tp_chunk_reply", false,
	  "no Reply chunk sizes",
	  { { PFLD_CW_TASK, "task_id", FK_INT, false }, { PFLD_CW_CLIENT, "client_id", FK_INT, false },
	    { PFLD_CW_LENGTH, "length", FK_INT, false } } },
	{ "rpcrdma", "xprtrdma_marshal", PROBE_WANT_CLIENT, "tp_marshal", false,
	  "no marshal time or header sizes",
	  { { PFLD_MA_TASK, "task_id", FK_INT, false }, { PFLD_MA_CLIENT, "client_id", FK_INT, false },
	    { PFLD_MA_XID, "xid", FK_INT, false }, { PFLD_MA_HDRLEN, "hdrlen", FK_INT, true },
	    { PFLD_MA_HEADLEN, "headlen", FK_INT, true }, { PFLD_MA_PAGELEN, "pagelen", FK_INT, true },
	    { PFLD_MA_TAILLEN, "taillen", FK_INT, true }, { PFLD_MA_RTYPE, "rtype", FK_INT, true },
	    { PFLD_MA_WTYPE, "wtype", FK_INT, true } } },
	{ "rpcrdma", "xprtrdma_post_send", PROBE_WANT_CLIENT, "tp_post_send", false,
	  "no send time",
	  { { PFLD_PS_TASK, "task_id", FK_INT, false }, { PFLD_PS_CLIENT, "client_id", FK_INT, false } } },
	{ "rpcrdma", "xprtrdma_reply", PROBE_WANT_CLIENT, "tp_reply", false,
	  "no reply arrival time",
	  { { PFLD_RP_TASK, "task_id", FK_INT, false }, { PFLD_RP_CLIENT, "client_id", FK_INT, false },
	    { PFLD_RP_XID, "xid", FK_INT, true }, { PFLD_RP_CREDITS, "credits", FK_INT, true } } },
	{ "sunrpc", "rpc_clnt_new", PROBE_WANT_CLIENT, "tp_rpc_clnt_new", false,
	  "no client address filter (every RPC is filtered out when one is set)",
	  { { PFLD_CN_CLIENT, "client_id", FK_INT, false }, { PFLD_CN_ADDR, "addr", FK_STR, false } } },
	{ "sunrpc", "rpc_stats_latency", PROBE_WANT_CLIENT, "tp_rpc_stats_latency", true,
	  "no client records at all",
	  { { PFLD_SL_TASK, "task_id", FK_INT, false }, { PFLD_SL_CLIENT, "client_id", FK_INT, false },
	    { PFLD_SL_XID, "xid", FK_INT, false }, { PFLD_SL_VERSION, "version", FK_INT, true },
	    { PFLD_SL_PROGNAME, "progname", FK_STR, true }, { PFLD_SL_PROCNAME, "procname", FK_STR, true },
	    { PFLD_SL_BACKLOG, "backlog", FK_INT, true }, { PFLD_SL_RTT, "rtt", FK_INT, true },
	    { PFLD_SL_EXECUTE, "execute", FK_INT, true } } },

	{ "rpcrdma", "svcrdma_decode_rqst", PROBE_WANT_SERVER, "tp_decode_rqst", false,
	  "no receive time, no RDMA header, no RDMA READ join",
	  { { PFLD_DR_XID, "xid", FK_INT, false }, { PFLD_DR_VERS, "vers", FK_INT, true },
	    { PFLD_DR_PROC, "proc", FK_INT, true }, { PFLD_DR_CREDITS, "credits", FK_INT, true },
	    { PFLD_DR_HDRLEN, "hdrlen", FK_INT, true } } },
	{ "rpcrdma", "svcrdma_post_read_chunk", PROBE_WANT_SERVER, "tp_post_read_chunk", false,
	  "RDMA READs cannot be tied to their RPC",
	  { { PFLD_PC_CQ, "cq_id", FK_INT, false }, { PFLD_PC_CID, "completion_id", FK_INT, false } } },
	{ "rpcrdma", "svcrdma_wc_read", PROBE_WANT_SERVER, "tp_wc_read", false,
	  "no RDMA READ bytes or time",
	  { { PFLD_WR_CQ, "cq_id", FK_INT, false }, { PFLD_WR_CID, "completion_id", FK_INT, false },
	    { PFLD_WR_LATENCY, "read_latency", FK_INT, true }, { PFLD_WR_BYTES, "totalbytes", FK_INT, false } } },
	{ "sunrpc", "svc_process", PROBE_WANT_SERVER, "tp_svc_process", false,
	  "no program/procedure numbers",
	  { { PFLD_SP_XID, "xid", FK_INT, false }, { PFLD_SP_VERS, "vers", FK_INT, true },
	    { PFLD_SP_PROC, "proc", FK_INT, true }, { PFLD_SP_SERVICE, "service", FK_STR, true },
	    { PFLD_SP_PROCEDURE, "procedure", FK_STR, true } } },
	{ "sunrpc", "svc_stats_latency", PROBE_WANT_SERVER, "tp_svc_stats_latency", true,
	  "no server records at all",
	  { { PFLD_SS2_CLIENT, "client", FK_STR, true }, { PFLD_SS2_XID, "xid", FK_INT, false },
	    { PFLD_SS2_EXECUTE, "execute", FK_INT, true }, { PFLD_SS2_PROCEDURE, "procedure", FK_STR, true } } },
	{ "rpcrdma", "svcrdma_post_write_chunk", PROBE_WANT_SERVER, "tp_post_write_chunk", false,
	  "no RDMA WRITE (Write chunk) start time",
	  { { PFLD_PC_CQ, "cq_id", FK_INT, true }, { PFLD_PC_CID, "completion_id", FK_INT, true } } },
	{ "rpcrdma", "svcrdma_post_reply_chunk", PROBE_WANT_SERVER, "tp_post_reply_chunk", false,
	  "no RDMA WRITE (Reply chunk) start time",
	  { { PFLD_PC_CQ, "cq_id", FK_INT, true }, { PFLD_PC_CID, "completion_id", FK_INT, true } } },
	{ "rpcrdma", "svcrdma_wc_write", PROBE_WANT_SERVER, "tp_svc_wc_write", false,
	  "no RDMA WRITE end time (the push ends at the reply Send's post)",
	  { { PFLD_WW_CQ, "cq_id", FK_INT, false }, { PFLD_WW_CID, "completion_id", FK_INT, false } } },
	{ "rpcrdma", "svcrdma_post_send", PROBE_WANT_SERVER, "tp_svc_post_send", false,
	  "records are sent at svc_stats_latency, without reply times",
	  { { PFLD_SS_CQ, "cq_id", FK_INT, false }, { PFLD_SS_CID, "completion_id", FK_INT, false } } },
	{ "rpcrdma", "svcrdma_wc_send", PROBE_WANT_SERVER, "tp_svc_wc_send", false,
	  "records are sent when the reply is posted, without its completion time",
	  { { PFLD_WS_CQ, "cq_id", FK_INT, false }, { PFLD_WS_CID, "completion_id", FK_INT, false } } },
};
#define NTPS (sizeof(tps) / sizeof(tps[0]))

struct probe {
	struct rpc_client_bpf *cl;
	struct rpc_server_bpf *sv;
	struct ring_buffer *rb;
	probe_event_fn cb, tap;
	void *ctx, *tapctx;
	unsigned sides, attached, unavailable;   /* bit i = tps[i] */
	struct bpf_link *links[NTPS];
	char unavail[1024];
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's own warnings (verifier logs on failure) are detail: show
	 * them with -v; our one-line messages say what failed. */
	if (level == LIBBPF_WARN && log_get_level() >= LOG_INFO)
		return vfprintf(stderr, fmt, ap);
	if (log_get_level() >= LOG_DEBUG)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static bool skipped(const char *skip, const struct tpspec *t)
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

static void note_unavail(struct probe *p, size_t i, const char *why)
{
	size_t n = strlen(p->unavail);

	p->unavailable |= 1u << i;
	snprintf(p->unavail + n, sizeof(p->unavail) - n, "%s%s:%s", n ? "," : "", tps[i].sys,
		 tps[i].event);
	log_warn("kernel probe: %s:%s unavailable (%s): %s", tps[i].sys, tps[i].event, why,
		 tps[i].without);
}

/* Fills fld[] for tracepoint i from the format file; returns 0 or a
 * negative errno after writing the reason into why. */
static int resolve(const char *root, size_t i, struct probe_fld *fld, char *why, size_t wlen)
{
	static char text[TP_FORMAT_MAX];
	const struct tpspec *t = &tps[i];
	int r = tp_format_load(root, t->sys, t->event, text, sizeof(text));

	if (r < 0) {
		if (r == -ENOENT)
			snprintf(why, wlen, "no such tracepoint%s",
				 strcmp(t->sys, "rpcrdma") == 0 ? "; is the rpcrdma module loaded?" :
				 "; is the sunrpc module loaded?");
		else
			snprintf(why, wlen, "format file: %s", strerror(-r));
		return r;
	}
	for (int k = 0; k < MAXF && t->f[k].name; k++) {
		const struct fspec *fs = &t->f[k];
		struct tp_field tf;

		r = tp_format_field(text, fs->name, &tf);
		if (r == 0) {
			bool ok = fs->kind == FK_STR ? (tf.data_loc && tf.size == 4) :
				  (!tf.data_loc && (tf.size == 1 || tf.size == 2 || tf.size == 4 || tf.size == 8));
			if (ok) {
				fld[fs->id].off = tf.off;
				fld[fs->id].size = (uint16_t)(tf.size | (tf.data_loc ? PROBE_FLD_DATALOC : 0));
				continue;
			}
			r = -EPROTO;
		}
		if (fs->optional) {
			log_info("kernel probe: %s:%s field %s %s; read as 0", t->sys, t->event, fs->name,
				 r == -ENOENT ? "absent" : "differently shaped");
			fld[fs->id].off = PROBE_FLD_NONE;
			continue;
		}
		snprintf(why, wlen, "field %s %s", fs->name,
			 r == -ENOENT ? "absent" : r == -EPROTO ? "has another type or size" : "malformed");
		return r;
	}
	return 0;
}

static struct bpf_program *find_prog(struct probe *p, size_t i)
{
	struct bpf_object *obj = tps[i].side == PROBE_WANT_CLIENT ? p->cl->obj : p->sv->obj;

	return bpf_object__find_program_by_name(obj, tps[i].prog);
}

static int handle_rb(void *ctx, void *data, size_t size)
{
	struct probe *p = ctx;

	if (size < sizeof(struct probe_event))
		return 0;  /* not ours: never trust a length */
	if (p->tap)
		p->tap(data, p->tapctx);
	p->cb(data, p->ctx);
	return 0;
}

static int set_filters(const struct probe_config *c, unsigned side, __u64 *minlat, char *fprog,
		       uint8_t *ffam, uint8_t *faddr, char *err, size_t errlen)
{
	*minlat = c->min_latency_ns;
	if (c->filter_prog) {
		/* The tracepoints name programs, not numbers: the client's
		 * rpc_program name / the server's svc_program name. */
		static const struct { uint32_t prog; const char *client, *server; } names[] = {
			{ PROG_NFS, "nfs", "nfsd" }, { PROG_NFSACL, "nfsacl", "nfsacl" },
			{ PROG_NLM, "lockd", "lockd" }, { PROG_NSM, "statd", "statd" },
			{ PROG_PORTMAP, "rpcbind", "rpcbind" }, { PROG_MOUNT, "mount", "mountd" },
		};
		const char *n = NULL;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (names[i].prog == c->filter_prog)
				n = side == PROBE_WANT_CLIENT ? names[i].client : names[i].server;
		if (!n) {
			snprintf(err, errlen, "kernel probe: program %u has no known kernel name to filter on",
				 c->filter_prog);
			return -EINVAL;
		}
		for (size_t i = 0; i < PROBE_PROG_MAX && (i == 0 || n[i - 1]); i++)
			fprog[i] = n[i];
	}
	if (c->filter_addr && *c->filter_addr) {
		uint8_t a[16];

		if (inet_pton(AF_INET, c->filter_addr, a) == 1) {
			*ffam = 2;
			for (int i = 0; i < 4; i++)
				faddr[i] = a[i];
		} else if (inet_pton(AF_INET6, c->filter_addr, a) == 1) {
			*ffam = 10;
			for (int i = 0; i < 16; i++)
				faddr[i] = a[i];
		} else {
			snprintf(err, errlen, "kernel probe: bad address '%.64s'", c->filter_addr);
			return -EINVAL;
		}
		if (side == PROBE_WANT_CLIENT) {
			/* client tracepoints carry no addresses */
			*ffam = 0;
		}
	}
	return 0;
}

int probe_open(struct probe **out, const struct probe_config *c, probe_event_fn cb, void *ctx,
	       char *err, size_t errlen)
{
	static struct probe_fld cfld[PFLD_MAX], sfld[PFLD_MAX];
	const char *root = c->tracefs ? c->tracefs : tp_tracefs_root();
	unsigned want = c->want ? c->want : PROBE_WANT_BOTH;
	unsigned ok_sides = 0;
	char why[160];
	struct probe *p;
	int r;

	*out = NULL;
	libbpf_set_print(libbpf_log);
	if (!root) {
		snprintf(err, errlen, "kernel probe: tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENOENT;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "kernel probe: out of memory");
		return -ENOMEM;
	}
	p->cb = cb;
	p->ctx = ctx;
	for (int k = 0; k < PFLD_MAX; k++) {
		cfld[k].off = sfld[k].off = PROBE_FLD_NONE;
		cfld[k].size = sfld[k].size = 0;
	}

	/* Which tracepoints exist and have the fields we read. */
	for (size_t i = 0; i < NTPS; i++) {
		if (!(want & tps[i].side))
			continue;
		if (skipped(c->skip, &tps[i])) {
			note_unavail(p, i, "skipped by configuration");
			continue;
		}
		r = resolve(root, i, tps[i].side == PROBE_WANT_CLIENT ? cfld : sfld, why, sizeof(why));
		if (r < 0)
			note_unavail(p, i, why);
	}
	for (unsigned side = PROBE_WANT_CLIENT; side <= PROBE_WANT_SERVER; side <<= 1) {
		if (!(want & side))
			continue;
		bool ess = true;
		for (size_t i = 0; i < NTPS; i++)
			if (tps[i].side == side && tps[i].essential && (p->unavailable & (1u << i)))
				ess = false;
		if (ess) {
			ok_sides |= side;
		} else if (c->want_explicit) {
			snprintf(err, errlen, "kernel probe: %s side unavailable: %s", side == PROBE_WANT_CLIENT ? "client" : "server",
				 p->unavail);
			probe_close(p);
			return -ENOENT;
		} else {
			log_warn("kernel probe: %s side off (its essential tracepoint is unavailable)",
				 side == PROBE_WANT_CLIENT ? "client" : "server");
		}
	}
	if (!ok_sides) {
		snprintf(err, errlen, "kernel probe: nothing to attach: unavailable: %s", p->unavail);
		probe_close(p);
		return -ENOENT;
	}

	if (ok_sides & PROBE_WANT_CLIENT) {
		p->cl = rpc_client_bpf__open();
		if (!p->cl) {
			r = -errno;
			snprintf(err, errlen, "kernel probe: open client object: %s", strerror(-r));
			goto fail;
		}
		memcpy(p->cl->rodata->probe_fld, cfld, sizeof(cfld));
		r = set_filters(c, PROBE_WANT_CLIENT, &p->cl->rodata->min_latency_ns,
				p->cl->rodata->filter_prog, &p->cl->rodata->filter_family,
				p->cl->rodata->filter_addr, err, errlen);
		if (r < 0)
			goto fail;
		if (c->filter_addr && *c->filter_addr) {
			/* the kernel prints an rpc_xprt's address with rpc_ntop:
			 * %pI4 / %pI6c, as inet_ntop writes them */
			uint8_t a[16];
			int fam = strchr(c->filter_addr, ':') ? AF_INET6 : AF_INET;

			if (inet_pton(fam, c->filter_addr, a) != 1 ||
			    !inet_ntop(fam, a, (char *)p->cl->rodata->filter_peer, PROBE_ADDR_STR)) {
				r = -EINVAL;
				snprintf(err, errlen, "kernel probe: bad address '%.64s'", c->filter_addr);
				goto fail;
			}
			log_warn("kernel probe: client side: only RPCs of rpc_clnts to %s created after attach "
				 "(rpc_clnt_new gives the address; earlier clients are filtered out)",
				 (const char *)p->cl->rodata->filter_peer);
		}
		bpf_map__set_max_entries(p->cl->maps.events, (c->ringbuf_kb ? c->ringbuf_kb : 256) * 1024);
	}
	if (ok_sides & PROBE_WANT_SERVER) {
		p->sv = rpc_server_bpf__open();
		if (!p->sv) {
			r = -errno;
			snprintf(err, errlen, "kernel probe: open server object: %s", strerror(-r));
			goto fail;
		}
		memcpy(p->sv->rodata->probe_fld, sfld, sizeof(sfld));
		r = set_filters(c, PROBE_WANT_SERVER, &p->sv->rodata->min_latency_ns,
				p->sv->rodata->filter_prog, &p->sv->rodata->filter_family,
				p->sv->rodata->filter_addr, err, errlen);
		if (r < 0)
			goto fail;
		for (size_t i = 0; i < NTPS; i++) {
			bool av = !(p->unavailable & (1u << i));
			if (strcmp(tps[i].event, "svcrdma_post_send") == 0)
				p->sv->rodata->have_post_send = av;
			if (strcmp(tps[i].event, "svcrdma_wc_send") == 0)
				p->sv->rodata->have_wc_send = av;
			if (strcmp(tps[i].event, "svcrdma_wc_write") == 0)
				p->sv->rodata->have_wc_write = av;
		}
		bpf_map__set_max_entries(p->sv->maps.events, (c->ringbuf_kb ? c->ringbuf_kb : 256) * 1024);
	}
	p->sides = ok_sides;
	/* Programs for missing events must not be loaded at all. */
	for (size_t i = 0; i < NTPS; i++) {
		if (!(ok_sides & tps[i].side))
			continue;
		struct bpf_program *prog = find_prog(p, i);
		if (prog && (p->unavailable & (1u << i)))
			bpf_program__set_autoload(prog, false);
	}
	if (p->cl && (r = rpc_client_bpf__load(p->cl)) < 0) {
		snprintf(err, errlen, "kernel probe: loading the client programs failed: %s (run with -v for the verifier log)",
			 strerror(-r));
		goto fail;
	}
	if (p->sv && (r = rpc_server_bpf__load(p->sv)) < 0) {
		snprintf(err, errlen, "kernel probe: loading the server programs failed: %s (run with -v for the verifier log)",
			 strerror(-r));
		goto fail;
	}
	for (size_t i = 0; i < NTPS; i++) {
		if (!(ok_sides & tps[i].side) || (p->unavailable & (1u << i)))
			continue;
		struct bpf_program *prog = find_prog(p, i);
		p->links[i] = prog ? bpf_program__attach(prog) : NULL;
		if (!p->links[i]) {
			r = -errno;
			note_unavail(p, i, "attach failed");
			if (tps[i].essential) {
				snprintf(err, errlen, "kernel probe: cannot attach %s:%s: %s", tps[i].sys,
					 tps[i].event, strerror(-r));
				goto fail;
			}
			continue;
		}
		p->attached |= 1u << i;
	}
	if (p->cl) {
		p->rb = ring_buffer__new(bpf_map__fd(p->cl->maps.events), handle_rb, p, NULL);
		if (!p->rb)
			goto rbfail;
	}
	if (p->sv) {
		if (!p->rb)
			p->rb = ring_buffer__new(bpf_map__fd(p->sv->maps.events), handle_rb, p, NULL);
		else if (ring_buffer__add(p->rb, bpf_map__fd(p->sv->maps.events), handle_rb, p) < 0)
			goto rbfail;
		if (!p->rb)
			goto rbfail;
	}
	log_info("kernel probe: %s%s%s attached (%u tracepoints)", ok_sides & 1 ? "client" : "",
		 ok_sides == 3 ? "+" : "", ok_sides & 2 ? "server" : "", (unsigned)__builtin_popcount(p->attached));
	*out = p;
	return 0;
rbfail:
	r = errno ? -errno : -ENOMEM;
	snprintf(err, errlen, "kernel probe: ring buffer: %s", strerror(-r));
fail:
	probe_close(p);
	return r < 0 ? r : -EINVAL;
}

void probe_set_tap(struct probe *p, probe_event_fn tap, void *ctx)
{
	p->tap = tap;
	p->tapctx = ctx;
}

int probe_fd(struct probe *p) { return p && p->rb ? ring_buffer__epoll_fd(p->rb) : -1; }

int probe_poll(struct probe *p, int timeout_ms)
{
	int r = ring_buffer__poll(p->rb, timeout_ms);

	return r < 0 ? (r == -EINTR ? -EINTR : r) : r;
}

static void add_stats(int fd, uint64_t out[PST_MAX])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	if (fd < 0 || ncpu <= 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	for (uint32_t k = 0; k < PST_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, v) == 0)
			for (int c = 0; c < ncpu; c++)
				out[k] += v[c];
	}
	free(v);
}

void probe_counters(const struct probe *p, uint64_t out[PST_MAX])
{
	memset(out, 0, sizeof(uint64_t) * PST_MAX);
	if (p && p->cl)
		add_stats(bpf_map__fd(p->cl->maps.stats), out);
	if (p && p->sv)
		add_stats(bpf_map__fd(p->sv->maps.stats), out);
}

unsigned probe_sides(const struct probe *p) { return p->sides; }
unsigned probe_attached(const struct probe *p) { return p->attached; }
unsigned probe_unavailable(const struct probe *p) { return p->unavailable; }
const char *probe_unavailable_str(const struct probe *p) { return p->unavail; }

static int hist_read_map(int fd, struct probe_hist_row **rows, int *n, int *cap)
{
	struct probe_hist_key k, next;
	void *prev = NULL;
	int guard = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0 && guard++ < 65536) {
		uint64_t v;
		int i;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v) != 0)
			continue;
		k.prog[PROBE_PROG_MAX - 1] = 0;
		k.proc[PROBE_STR_MAX - 1] = 0;
		for (i = 0; i < *n; i++) {
			struct probe_hist_row *r = &(*rows)[i];
			if (r->side == k.side && r->vers == k.vers && !strcmp(r->prog, k.prog) &&
			    !strcmp(r->proc, k.proc))
				break;
		}
		if (i == *n) {
			if (*n == *cap) {
				int nc = *cap ? *cap * 2 : 32;
				struct probe_hist_row *nr = realloc(*rows, (size_t)nc * sizeof(*nr));
				if (!nr)
					return -ENOMEM;
				*rows = nr;
				*cap = nc;
			}
			memset(&(*rows)[i], 0, sizeof(**rows));
			(*rows)[i].side = k.side;
			(*rows)[i].vers = k.vers;
			memcpy((*rows)[i].prog, k.prog, sizeof(k.prog));
			memcpy((*rows)[i].proc, k.proc, sizeof(k.proc));
			(*n)++;
		}
		if (k.slot < PROBE_HIST_SLOTS) {
			(*rows)[i].bucket[k.slot] += v;
			(*rows)[i].count += v;
		} else if (k.slot == PROBE_HIST_SUM) {
			(*rows)[i].sum_ns += v;
		}
	}
	return 0;
}

int probe_hist_read(struct probe *p, struct probe_hist_row **rows)
{
	int n = 0, cap = 0, r = 0;

	*rows = NULL;
	if (p->cl)
		r = hist_read_map(bpf_map__fd(p->cl->maps.hist), rows, &n, &cap);
	if (r == 0 && p->sv)
		r = hist_read_map(bpf_map__fd(p->sv->maps.hist), rows, &n, &cap);
	if (r < 0) {
		free(*rows);
		*rows = NULL;
		return r;
	}
	return n;
}

uint64_t probe_hist_quantile(const struct probe_hist_row *r, double q)
{
	uint64_t want, acc = 0;

	if (!r->count)
		return 0;
	want = (uint64_t)(q * (double)r->count + 0.5);
	if (want < 1)
		want = 1;
	for (int i = 0; i < PROBE_HIST_SLOTS; i++) {
		acc += r->bucket[i];
		if (acc >= want)
			return i >= 63 ? UINT64_MAX : (2ULL << i) - 1;  /* bucket i holds [2^i, 2^(i+1)) */
	}
	return UINT64_MAX;
}

void probe_detach(struct probe *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < NTPS; i++) {
		bpf_link__destroy(p->links[i]);
		p->links[i] = NULL;
	}
}

void probe_close(struct probe *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	for (size_t i = 0; i < NTPS; i++)
		bpf_link__destroy(p->links[i]);
	rpc_client_bpf__destroy(p->cl);
	rpc_server_bpf__destroy(p->sv);
	free(p);
}
