/* nfsrdma-dissect: per-RPC breakdown of NFS over RDMA captures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "dissect/dissect.h"
#include "dissect/programs.h"
#include "dissect/transport.h"
#include "pcap/dissect_run.h"
#include "src/out/addr_filter.h"
#include "src/out/compare.h"
#include "src/out/export_fields.h"
#include "src/out/export_pcapng.h"
#include "pcap/capspool.h"
#include "src/base/log.h"
#include "src/base/opt.h"
#include "src/base/outfile.h"
#include "src/out/out.h"
#include "src/out/plot_fused.h"
#include "src/out/plot_svg.h"
#include "src/out/recfmt.h"
#include "src/out/run_report.h"
#include "src/join/join.h"
#include "src/join/join_files.h"

enum { K_JSON = 256, K_CSV, K_OP, K_XID, K_ADDR, K_MINLAT, K_CHECK, K_STATS, K_FIELDS, K_TSV, K_PLOT, K_COMPARE,
       K_TRANSPORT, K_RPC_PORT, K_JOIN, K_PLOT_SLOWEST, K_NO_SUMMARY };

#define JOIN_FILES_MAX 8

struct cli {
	const char *file;
	int format;            /* 0 line, 'V', K_JSON, K_CSV */
	const char *format_flag;
	bool quiet, check, stats, line_buffered;
	bool verbose;             /* -v: until the next release also --stats */
	const char *stats_flag;   /* --stats or -v, whichever asked for the counters */
	struct summary *sum[SUM_KINDS];
	struct summary *tty_sum;   /* -z proc unasked: stdout is a terminal */
	bool no_summary;
	unsigned transports;   /* --transport: bit per enum rec_transport; 0 = all */
	uint16_t rpc_ports[16];
	unsigned n_rpc_ports;
	const char *op;
	bool has_xid;
	uint32_t xid;
	const char *addr;
	struct addr_filter addr_f;
	uint64_t min_lat_ns;
	uint64_t printed;
	uint64_t seen, kept, findings;   /* records read, kept by the filters, findings printed */
	const char *pcapng_out, *fields, *plot_path;
	bool tsv;
	struct fields_writer *fw;
	struct plot *plot;
	unsigned plot_slowest;   /* 0: the default */
	bool compare;
	const char *join_file[JOIN_FILES_MAX];
	unsigned n_join;
	struct join *join;
};

/* Typed entries are stored by the table (opt_store); the rest by handle. */
static const struct opt opts[] = {
	/* -V is the tree, as tshark's -V (goldens and scripts rely on it), so
	 * this tool's version has no short form; -v logs more, as in every tool */
	{ "tree", 'V', NULL, "print the full decode tree under each RPC (-V as in tshark; the version is --version alone)", 'V', OPT_UNTYPED },
	{ "verbose", 'v', NULL, "log more (repeat for debug)", 'v', OPT_UNTYPED },
	{ "json", 0, NULL, "one JSON object per RPC (JSON Lines)", K_JSON, OPT_UNTYPED },
	{ "csv", 0, NULL, "one CSV row per RPC, with a header", K_CSV, OPT_UNTYPED },
	{ "summary", 'z', "proc|conn|client|transport", "print a summary at the end (repeatable; RPCs over TCP/UDP in rows of their own)", 'z', OPT_UNTYPED },
	{ "no-summary", 0, NULL, "no -z proc table at the end of the lines on a terminal (given unasked there)", K_NO_SUMMARY, OPT_FLAG, OPT_AT(struct cli, no_summary), 0, 0 },
	{ "quiet", 'q', NULL, "no per-RPC output (summaries and findings only)", 'q', OPT_FLAG, OPT_AT(struct cli, quiet), 0, 0 },
	{ "line-buffered", 'l', NULL, "flush after every line (the default when stdout is a pipe or terminal)", 'l', OPT_FLAG, OPT_AT(struct cli, line_buffered), 0, 0 },
	{ "read", 'r', "FILE", "read this capture (same as the operand; - for stdin)", 'r', OPT_STR, OPT_AT(struct cli, file), 0, 0 },
	{ "op", 0, "NAME", "only RPCs whose procedure or any NFSv4 op is NAME", K_OP, OPT_UNTYPED },
	{ "xid", 0, "XID", "only the RPC with this XID (0x... or decimal)", K_XID, OPT_UNTYPED },
	{ "addr", 0, "ADDR", "only RPCs with ADDR as caller or callee (10.9.0.2, 10.9.0.2.qp17, 10.9.0.0/24, fe80::/64, lid 0x3)", K_ADDR, OPT_UNTYPED },
	{ "transport", 0, "rdma|tcp|udp", "only RPCs carried by this transport (repeatable)", K_TRANSPORT, OPT_UNTYPED },
	{ "rpc-port", 0, "PORT", "read TCP/UDP port PORT as ONC RPC from its first byte, besides 2049, 111, 20048 and the ports found by their RPC headers (repeatable)", K_RPC_PORT, OPT_UNTYPED },
	{ "min-latency", 0, "US", "only RPCs whose total time is at least US microseconds", K_MINLAT, OPT_UNTYPED },
	{ "check", 0, NULL, "print conformance findings with the section they break", K_CHECK, OPT_FLAG, OPT_AT(struct cli, check), 0, 0 },
	{ "stats", 0, NULL, "print transport and dissector counters to stderr at the end", K_STATS, OPT_UNTYPED },
	{ "write", 'w', "FILE", "also write the packets as pcapng, commented per frame (xid, op, role, latency)", 'w', OPT_STR, OPT_AT(struct cli, pcapng_out), 0, 0 },
	{ "fields", 0, "LIST", "one CSV row per RPC, Wireshark field names (default, all, help, or a,b,c)", K_FIELDS, OPT_UNTYPED },
	{ "tsv", 0, NULL, "--fields separated by tabs instead of commas", K_TSV, OPT_FLAG, OPT_AT(struct cli, tsv), 0, 0 },
	{ "plot", 0, "FILE", "write an SVG of the latency distribution and split per operation", K_PLOT, OPT_STR, OPT_AT(struct cli, plot_path), 0, 0 },
	{ "plot-slowest", 0, "N", "with --join, --plot draws the fused phases per operation and a waterfall of the N slowest RPCs (client, wire and server lanes; default 20, at most 1000)", K_PLOT_SLOWEST, OPT_UINT, OPT_AT(struct cli, plot_slowest), 1, PLOT_SLOWEST_MAX },
	{ "compare", 0, NULL, "compare two captures A B per operation: RPCs, p50/p99, bytes, phases, chunk mix, inline sizes, credits, and B/A", K_COMPARE, OPT_FLAG, OPT_AT(struct cli, compare), 0, 0 },
	{ "join", 0, "FILE", "join the capture's RPCs with the records of FILE (JSON Lines from nfsrdmad or --json; repeatable: client and server probes): one fused record per RPC, its clocks aligned", K_JOIN, OPT_UNTYPED },
	OPT_END
};

/* One output format per run: a second one is refused, never "last wins". */
static int set_format(struct cli *c, int format, const char *flag)
{
	if (c->format && c->format != format) {
		log_error("%s and %s cannot be combined: pick one output format", c->format_flag, flag);
		return -EINVAL;
	}
	c->format = format;
	c->format_flag = flag;
	return 0;
}

static int handle(int key, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	uint64_t v;

	const struct opt *o = opt_find(opts, key);
	if (o && o->type != OPT_CUSTOM)
		return opt_store(o, arg, c) < 0 ? -EINVAL : 0;
	switch (key) {
	case 'V': return set_format(c, 'V', "-V");
	case K_JSON: return set_format(c, K_JSON, "--json");
	case K_CSV: return set_format(c, K_CSV, "--csv");
	case K_STATS: c->stats = true; c->stats_flag = "--stats"; break;
	case 'v':
		c->verbose = true;
		log_set_level(log_get_level() >= LOG_INFO ? LOG_DEBUG : LOG_INFO);
		break;
	case K_FIELDS:
		if (!strcmp(arg, "help")) {
			fields_help(stdout);
			outfile_exit_printed();
		}
		c->fields = arg;
		break;
	case K_JOIN:
		if (c->n_join == JOIN_FILES_MAX) {
			log_error("--join: at most %d files", JOIN_FILES_MAX);
			return -EINVAL;
		}
		c->join_file[c->n_join++] = arg;
		break;
	case K_OP:
		if (!prog_name_known(arg)) {
			log_error("--op '%s': no procedure or NFSv4 operation has that name (e.g. READ, "
				  "WRITE, GETATTR, OPEN, LOOKUP_ROOT, CB_RECALL)", arg);
			return -EINVAL;
		}
		c->op = arg;
		break;
	case K_ADDR: {
		char err[256];
		if (addr_filter_parse(&c->addr_f, arg, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return -EINVAL;
		}
		c->addr = arg;
		break;
	}
	case K_TRANSPORT: {
		unsigned t;
		for (t = 0; t < REC_TR_N && strcmp(arg, rec_transport_name(t)); t++)
			;
		if (t == REC_TR_N) {
			log_error("--transport: '%s' is not one of rdma, tcp, udp", arg);
			return -EINVAL;
		}
		c->transports |= 1u << t;
		break;
	}
	case K_RPC_PORT:
		if (opt_u64("rpc-port", arg, 1, 65535, &v))
			return -EINVAL;
		if (c->n_rpc_ports == 16) {
			log_error("--rpc-port: at most 16 ports");
			return -EINVAL;
		}
		c->rpc_ports[c->n_rpc_ports++] = (uint16_t)v;
		break;
	case K_XID:
		if (opt_u64("xid", arg, 0, UINT32_MAX, &v))
			return -EINVAL;
		c->has_xid = true;
		c->xid = (uint32_t)v;
		break;
	case K_MINLAT:
		if (opt_u64("min-latency", arg, 0, UINT64_MAX / 1000, &v))
			return -EINVAL;
		c->min_lat_ns = v * 1000;
		break;
	case 'z': {
		enum summary_kind k;
		if (!strcmp(arg, "proc")) k = SUM_PROC;
		else if (!strcmp(arg, "conn")) k = SUM_CONN;
		else if (!strcmp(arg, "client")) k = SUM_CLIENT;
		else if (!strcmp(arg, "transport")) k = SUM_TRANSPORT;
		else {
			log_error("-z: '%s' is not one of proc, conn, client, transport", arg);
			return -EINVAL;
		}
		if (!c->sum[k - 1] && !(c->sum[k - 1] = summary_new(k)))
			return -ENOMEM;
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static bool wanted(const struct cli *c, const struct nfsrdma_record *r)
{
	if (c->has_xid && r->xid != c->xid)
		return false;
	if (c->transports && !(c->transports & (1u << r->transport)))
		return false;
	if (c->op && !rec_has_op(r, c->op))
		return false;
	if (c->addr && !addr_filter_match(&c->addr_f, &r->caller) && !addr_filter_match(&c->addr_f, &r->callee))
		return false;
	if (c->min_lat_ns && (rec_is_fused(r) ? r->f_total : r->d_total) < c->min_lat_ns)
		return false;
	return true;
}

/* With --json stdout holds JSON alone: a finding is a {"type":"finding"}
 * line there, a "check:" line otherwise. */
static void print_finding(struct cli *c, const struct dissect_finding *f)
{
	if (c->format == K_JSON)
		out_finding_json(stdout, f);
	else
		out_finding(stdout, f);
	c->findings++;
}

/* -V of a joined record: each vantage's times on the record's clock */
static void fused_tree(FILE *f, const struct nfsrdma_record *r)
{
	static const char *const ck[RCT_N] = { "begin", "marshal", "send", "reply", "end" };
	static const char *const sk[RST_N] = { "recv", "read_post", "read_done", "dispatch", "exec_done",
					       "write_post", "write_done", "send_post", "send_done" };
	char d[24];

	out_line(f, r);
	fprintf(f, "    clock: %s's", rec_vantage_name(r->f_clock));
	if (r->f_uncert_ns == UINT64_MAX)
		fputs(", another aligned from one direction only", f);
	else if (r->f_uncert_ns)
		fprintf(f, ", others aligned +/- %s", fmt_dur(r->f_uncert_ns, d, sizeof(d)));
	fprintf(f, "; join flags 0x%x\n", r->f_flags);
	uint64_t t0 = r->vt_client[RCT_BEGIN] ? r->vt_client[RCT_BEGIN] : r->t_call_first ? r->t_call_first :
		      r->vt_server[RST_RECV];
	if (r->vantages & REC_VT_CLIENT) {
		fputs("    client:", f);
		for (unsigned i = 0; i < RCT_N; i++)
			if (r->vt_client[i])
				fprintf(f, " %s %+.3fus", ck[i], (double)(int64_t)(r->vt_client[i] - t0) / 1e3);
		fputc('\n', f);
	}
	if (r->vantages & REC_VT_WIRE)
		fprintf(f, "    wire: call %+.3fus..%+.3fus reply %+.3fus..%+.3fus\n",
			(double)(int64_t)(r->t_call_first - t0) / 1e3, (double)(int64_t)(r->t_call_last - t0) / 1e3,
			r->t_reply_first ? (double)(int64_t)(r->t_reply_first - t0) / 1e3 : 0.0,
			r->t_reply_last ? (double)(int64_t)(r->t_reply_last - t0) / 1e3 : 0.0);
	if (r->vantages & REC_VT_SERVER) {
		fputs("    server:", f);
		for (unsigned i = 0; i < RST_N; i++)
			if (r->vt_server[i])
				fprintf(f, " %s %+.3fus", sk[i], (double)(int64_t)(r->vt_server[i] - t0) / 1e3);
		fputc('\n', f);
	}
}

/* Counts a record and, when the filters want it, feeds the summaries and
 * the plot; false when it is filtered out. */
static bool take(struct cli *c, const struct nfsrdma_record *r)
{
	c->seen++;
	if (!wanted(c, r))
		return false;
	c->kept++;
	for (int i = 0; i < SUM_KINDS; i++)
		if (c->sum[i])
			summary_add(c->sum[i], r);
	if (c->tty_sum)
		summary_add(c->tty_sum, r);
	if (c->plot)
		plot_add(c->plot, r);
	return true;
}

static void on_fused(const struct nfsrdma_record *r, void *ctx)
{
	struct cli *c = ctx;

	if (!take(c, r))
		return;
	if (c->quiet)
		return;
	switch (c->fw ? 'F' : c->format) {
	case 'F': fields_record(c->fw, r); break;
	case 'V': fused_tree(stdout, r); break;
	case K_JSON: out_json(stdout, r); break;
	case K_CSV:
		if (!c->printed)
			out_csv_header_fused(stdout);
		out_csv_fused(stdout, r);
		break;
	default: out_line(stdout, r); break;
	}
	c->printed++;
}

static void on_record(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct cli *c = ctx;

	if (c->join) {
		/* the wire's record waits in the join for the others */
		join_add(c->join, r, 0);
		return;
	}
	if (!take(c, r))
		return;
	if (c->fw) {
		fields_record(c->fw, r);   /* replaces the per-RPC lines */
	} else if (!c->quiet) {
		switch (c->format) {
		case 'V': out_tree(stdout, r, t); break;
		case K_JSON: out_json(stdout, r); break;
		case K_CSV:
			if (!c->printed)
				out_csv_header(stdout);
			out_csv(stdout, r);
			break;
		default: out_line(stdout, r); break;
		}
		c->printed++;
	}
	if (c->check) {
		for (unsigned i = 0; i < r->nfindings; i++) {
			struct dissect_finding f = { r->conn_id, r->xid,
						     r->flags & RECF_REPLY ? r->frame_reply : r->frame_call,
						     r->t_call_first, r->finding[i].id, r->finding[i].a,
						     r->finding[i].b };
			print_finding(c, &f);
		}
	}
}

/* Findings tied to no record: no XID or operation filter selects one. */
static void on_finding(const struct dissect_finding *f, void *ctx)
{
	struct cli *c = ctx;

	if (c->check && !c->has_xid && !c->op)
		print_finding(c, f);
}

static void on_diag(const struct diag *g, void *ctx)
{
	struct cli *c = ctx;

	fflush(stdout);
	log_error("%s: frame %llu, offset %zu: %s: %s", c->file, (unsigned long long)g->frame,
		  g->offset, g->layer, g->msg);
}

static void verbose_counters(struct cli *c)
{
	if (c->verbose && !c->stats) {
		log_warn("-v: the counters at the end are --stats now; -v alone only logs more from the next release");
		c->stats = true;
		c->stats_flag = "-v";
	}
}

/* What --compare cannot take: it reads two captures and prints one table
 * (or its JSON, or a plot), so per-RPC outputs, their options and a
 * single capture's exports have no meaning there.  The filters apply to
 * both captures. */
static int compare_conflicts(const struct cli *c)
{
	const struct { const char *flag; bool set; } conflicts[] = {
		{ "-V", c->format == 'V' }, { "--csv", c->format == K_CSV },
		{ "--fields", c->fields != NULL }, { "--tsv", c->tsv }, { "-q", c->quiet },
		{ "-z", c->sum[0] || c->sum[1] || c->sum[2] || c->sum[SUM_KINDS - 1] }, { "--check", c->check },
		{ c->stats_flag, c->stats }, { "-w", c->pcapng_out != NULL }, { "-r", c->file != NULL },
		{ "--join", c->n_join > 0 }, { "--plot-slowest", c->plot_slowest != 0 },
	};
	for (size_t i = 0; i < sizeof(conflicts) / sizeof(conflicts[0]); i++)
		if (conflicts[i].set) {
			log_error("--compare and %s cannot be combined: --compare prints one table of two "
				  "captures (--json, --plot and the filters --op, --xid, --addr, --min-latency "
				  "go with it)", conflicts[i].flag);
			return -EINVAL;
		}
	return 0;
}

/* --compare's filter: the same as a lone capture's. */
static bool keep_record(const struct nfsrdma_record *r, void *ctx)
{
	return wanted(ctx, r);
}

/* --compare A B: both captures, then the table; a capture with nothing
 * to compare keeps its empty column and makes the exit status 3. */
static int main_compare(struct cli *c, char **files, int nfiles)
{
	char err[512];
	bool nothing = false;
	int rc = 0;

	if (compare_conflicts(c) < 0)
		return 2;
	if (nfiles != 2) {
		log_error("--compare takes two capture files, A and B (%d given; see --help)", nfiles);
		return 2;
	}
	if (!strcmp(files[0], "-") && !strcmp(files[1], "-")) {
		log_error("--compare: stdin can be one of the captures, not both");
		return 2;
	}
	const char *ins[] = { files[0], files[1] };
	int orc;
	if (c->plot_path && (orc = outfile_check("--plot", c->plot_path, ins, 2, err, sizeof(err))) < 0) {
		log_error("%s", err);
		return orc == -EEXIST ? 2 : 1;   /* as for one capture (main) */
	}
	struct compare *cmp = compare_new(files[0], files[1]);
	if (!cmp) {
		log_error("out of memory");
		return 1;
	}
	struct compare_how how = { keep_record, on_diag, c };
	for (int s = 0; s < CMP_SIDES && rc == 0; s++) {
		c->file = files[s];   /* the diagnostics name it */
		rc = compare_read(cmp, s, files[s], &how, &nothing);
	}
	if (rc == 0) {
		compare_sort(cmp);
		if (c->format == K_JSON)
			compare_print_json(cmp, stdout);
		else
			compare_print(cmp, stdout);
	}
	if (rc == 0 && c->plot_path && compare_plot(cmp, c->plot_path, err, sizeof(err)) < 0) {
		log_error("--plot %s", err);
		rc = 1;
	}
	compare_free(cmp);
	if (outfile_close_stdout() < 0)
		return 1;
	return rc == 0 && nothing ? EXIT_NOTHING_FOUND : rc;
}

/* --join makes fused records: the outputs tied to the wire's own record
 * (its packets, its findings, its Wireshark fields) have none; --plot
 * draws the fused phases. */
static int join_refused(const struct cli *c)
{
	const char *no = c->pcapng_out ? "-w" : c->check ? "--check" : NULL;

	if (no) {
		log_error("--join and %s cannot be combined: %s needs the wire's own records", no, no);
		return -EINVAL;
	}
	if (!c->file && c->n_join < 2) {
		log_error("--join with no capture needs two record files at least (e.g. the client's and the server's)");
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->n_join; i++) {
		if (c->file && (!strcmp(c->file, c->join_file[i]) || outfile_same(c->file, c->join_file[i]))) {
			log_error("--join %s: that is the capture", c->join_file[i]);
			return -EINVAL;
		}
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(c->join_file[k], c->join_file[i]) || outfile_same(c->join_file[k], c->join_file[i])) {
				log_error("--join %s given twice", c->join_file[i]);
				return -EINVAL;
			}
	}
	return 0;
}

/* The join files into the join, after the capture: hosts 1.. (0 is the
 * capture's).  Returns the bad lines, or -1 if a file could not be read. */
static long long join_inputs(struct cli *c)
{
	long long bad = 0;

	for (unsigned i = 0; i < c->n_join; i++) {
		struct join_file_stats st = { 0 };
		int rc = join_read_file(c->join, c->join_file[i], i + 1, &st);
		if (rc < 0) {
			log_error("--join %s: %s", c->join_file[i], strerror(-rc));
			return -1;
		}
		if (!st.records)
			log_warn("--join %s: no records in its %llu lines", c->join_file[i],
				 (unsigned long long)st.lines);
		bad += (long long)st.bad;
	}
	return bad;
}

static struct join *join_open(struct cli *c)
{
	unsigned expect = c->file ? REC_VT_WIRE : 0;

	for (unsigned i = 0; i < c->n_join; i++) {
		int v = join_file_vantage(c->join_file[i]);
		if (v < 0) {
			log_error("--join %s: %s", c->join_file[i], strerror(-v));
			return NULL;
		}
		/* the join keys an RPC by its vantages: a second wire record of
		 * it is a duplicate, not a view from elsewhere */
		if (c->file && v == REC_VT_WIRE)
			log_warn("--join %s: wire records, like the capture's: each RPC in both is a "
				 "duplicate (dup xid); join the capture with client or server probe records, "
				 "or this file with them and no capture", c->join_file[i]);
		expect |= (unsigned)v;
	}
	/* offline: every RPC is held until the end, so each is aligned
	 * with every causal pair of the run; at most 65536 at once (~5 KB
	 * each), the oldest going out first when more come */
	struct join_opts o = { .expect = expect ? expect : REC_VT_ALL, .hold_complete = true,
			       .max_pending = 1u << 16 };
	struct join *j = join_new(&o, on_fused, c);
	if (!j)
		log_error("out of memory");
	return j;
}

/* Bad usage found once the options are read: the -z summaries they made
 * go too (the sanitizer tier fails a run that leaks them). */
static int usage_fail(struct cli *c, int rc)
{
	for (int i = 0; i < SUM_KINDS; i++)
		summary_free(c->sum[i]);
	fields_close(c->fw);
	return rc;
}

/* The records' reader is gone (or stdout failed): the rest of the
 * capture would be decoded for no one. */
static bool stdout_done(void *ctx)
{
	(void)ctx;
	return outfile_stdout_done();
}

/* Options that cannot go together, outputs that cannot be made: refused
 * before the read.  0, or the exit status (2 usage, 1 an unwritable output). */
static int refuse_before_run(struct cli *c, char *err, size_t errlen)
{
	if (c->tsv && !c->fields) {
		log_error("--tsv needs --fields (it sets their separator)");
		return 2;
	}
	if (c->fields && c->format) {
		log_error("--fields and %s cannot be combined: pick one output format", c->format_flag);
		return 2;
	}
	/* -q drops the per-RPC output these shape (--fields rows came out
	 * regardless, -V and --csv were dropped without a word); --json
	 * also shapes the summaries and findings, so it stays */
	if (c->quiet && (c->fields || (c->format && c->format != K_JSON))) {
		log_error("-q and %s cannot be combined: %s shapes the per-RPC output, which -q leaves out",
			  c->fields ? "--fields" : c->format_flag, c->fields ? "--fields" : c->format_flag);
		return 2;
	}
	/* an output must never be the capture it is made from */
	const char *ins[] = { c->file };
	int orc = 0;
	if ((c->pcapng_out && (orc = outfile_check("-w", c->pcapng_out, ins, 1, err, errlen)) < 0) ||
	    (c->plot_path && (orc = outfile_check("--plot", c->plot_path, ins, 1, err, errlen)) < 0)) {
		/* an input named as the output is bad usage; an output that
		 * cannot be written there fails as a write would, before the read */
		log_error("%s", err);
		return orc == -EEXIST ? 2 : 1;
	}
	if (c->pcapng_out && c->plot_path &&
	    (!strcmp(c->pcapng_out, c->plot_path) || outfile_same(c->pcapng_out, c->plot_path))) {
		log_error("-w and --plot name the same file %s", c->plot_path);
		return 2;
	}
	if (c->fields && !(c->fw = fields_open(stdout, c->fields, c->tsv, c->n_join > 0, err, errlen))) {
		log_error("%s", err);
		return 2;
	}
	if (c->plot_slowest && !c->plot_path) {
		log_error("--plot-slowest needs --plot");
		return 2;
	}
	/* only the plot of joined records has a waterfall to size */
	if (c->plot_slowest && !c->n_join) {
		log_error("--plot-slowest needs --join (it sizes the waterfall of joined RPCs)");
		return 2;
	}
	return 0;
}

/* The -z tables (and, on a terminal, the closing per-operation one). */
static void print_summaries(struct cli *c)
{
	bool first_sum = true;
	for (int i = 0; i < SUM_KINDS; i++) {
		if (!c->sum[i])
			continue;
		if (c->format == K_JSON) {
			summary_print_json(c->sum[i], stdout);
			continue;
		}
		if (!first_sum || (!c->quiet && c->printed))
			putchar('\n');
		summary_print(c->sum[i], stdout);
		first_sum = false;
	}
	if (c->tty_sum && c->kept) {
		if (!first_sum || (!c->quiet && c->printed))
			putchar('\n');
		summary_print(c->tty_sum, stdout);
	}
}

/* A run that found nothing says so, and what the input held instead. */
static bool say_nothing(const struct cli *c, struct dissect *d)
{
	if (!c->seen && c->file && !c->join) {
		fflush(stdout);
		char what[512];
		run_report_nothing(what, sizeof(what), c->file, dissect_stats(d), dissect_transport_stats(d));
		log_warn("%s", what);
		return true;
	}
	if (!c->seen && c->join) {
		fflush(stdout);
		log_warn("--join: no records to join in %s%s", c->file ? "the capture or " : "", "the --join files");
		return true;
	}
	if (!c->kept) {
		fflush(stdout);
		log_warn("%s: none of its %llu RPCs matched the filters", c->file ? c->file : "--join",
			 (unsigned long long)c->seen);
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	struct opt_spec spec = {
		.prog = "nfsrdma-dissect",
		.synopsis = "[OPTIONS] FILE|- [--join RECORDS]...\n       nfsrdma-dissect [OPTIONS] --join RECORDS --join RECORDS...\n"
			    "       nfsrdma-dissect --compare [OPTIONS] A B",
		.summary = "Decode NFS over RDMA (RoCE, InfiniBand) captures, and the ONC RPC over "
			   "TCP and UDP beside it: one line per RPC with where the time went.",
		.opts = opts, .handle = handle, .ctx = &c,
	};

	log_init(argv[0], LOG_WARN);
	outfile_ignore_sigpipe();   /* `| head -1` is a reader that had enough: 0, not 141 */
	int first = opt_parse(&spec, argc, argv);
	if (first < 0)
		return 2;
	verbose_counters(&c);
	if (c.compare) {
		outfile_stdout_lines(c.line_buffered);
		int crc = main_compare(&c, argv + first, argc - first);
		for (int i = 0; i < SUM_KINDS; i++)   /* -z given with it: refused, not leaked */
			summary_free(c.sum[i]);
		return crc;
	}
	if (first < argc) {
		if (c.file || first + 1 < argc) {
			log_error("one capture file at a time (see --help)");
			return usage_fail(&c, 2);
		}
		c.file = argv[first];
	}
	if (!c.file && !c.n_join) {
		log_error("no capture file given (see --help)");
		return usage_fail(&c, 2);
	}
	if (c.n_join && join_refused(&c) < 0)
		return usage_fail(&c, 2);
	outfile_stdout_lines(c.line_buffered);
	char err[512];
	/* The export is a second pass over the capture once the records are
	 * out, so on stdout it would neither stream (as tcpdump -w - does)
	 * nor have stdout to itself: a file name, always. */
	if (c.pcapng_out && !strcmp(c.pcapng_out, "-")) {
		log_error("-w -: the pcapng cannot go to stdout (it is written after the records, "
			  "from a second read of the capture); name a file (./- for one called \"-\")");
		return usage_fail(&c, 2);
	}
	/* a capture read once (stdin, a pipe) is kept on disk for that pass */
	struct capspool spool = { .fd = -1 };
	if (c.pcapng_out && c.file && capspool_needed(c.file) && capspool_open(&spool, err, sizeof(err)) < 0) {
		log_error("-w %s: %s", c.pcapng_out, err);
		return usage_fail(&c, 1);
	}
	int urc = refuse_before_run(&c, err, sizeof(err));
	if (urc)
		return usage_fail(&c, urc);
	if (c.plot_path && !(c.plot = plot_new())) {
		log_error("out of memory");
		return 1;
	}
	if (c.plot && c.plot_slowest)
		plot_slowest(c.plot, c.plot_slowest);
	/* on a terminal the lines end with what they add up to, per
	 * operation; a pipe or file gets the lines alone, as it always did */
	if (!c.no_summary && !c.sum[SUM_PROC - 1] && (!c.format || c.format == 'V') && !c.fields &&
	    isatty(STDOUT_FILENO) && !(c.tty_sum = summary_new(SUM_PROC))) {
		log_error("out of memory");
		return 1;
	}
	struct dissect_opts dopts = { .tree = c.format == 'V' && !c.quiet };
	memcpy(dopts.rpc_ports, c.rpc_ports, sizeof(dopts.rpc_ports));
	dopts.n_rpc_ports = c.n_rpc_ports;
	struct dissect_cbs cbs = { on_record, on_finding, on_diag, &c, NULL };
	if (c.n_join && !(c.join = join_open(&c)))
		return 1;
	struct dissect *d = dissect_new(&dopts, &cbs);
	if (!d) {
		log_error("out of memory");
		return 1;
	}
	bool opened = true;
	int spool_err = 0;
	const struct dissect_run_opts ro = { .stop = stdout_done, .opened = &opened, .tee_fd = spool.fd,
					     .tee_err = &spool_err };
	int ret = c.file ? dissect_file_opts(d, c.file, &ro, err, sizeof(err)) : 0;
	fflush(stdout);
	int rc = 0;
	if (c.join && ret >= 0) {
		long long bad = join_inputs(&c);
		if (bad < 0) {
			rc = 1;
		} else {
			join_flush(c.join);
			fflush(stdout);
			const char *names[JOIN_FILES_MAX + 1] = { c.file ? c.file : "(no capture)" };
			for (unsigned i = 0; i < c.n_join; i++)
				names[i + 1] = c.join_file[i];
			if (c.format == K_JSON)
				join_report_json(c.join, stdout, names);
			join_report(c.join, stderr, names);
			if (bad)
				log_warn("--join: %lld bad lines skipped (named above, the first 20 of each file)", bad);
		}
	}
	if (ret == -EPROTONOSUPPORT) {
		log_error("%s", err);
		rc = 2;
	} else if (ret < 0) {
		log_error("%s", err);
		rc = 1;
	}
	if (rc == 0 && c.check && c.format == K_JSON)
		out_check_json(stdout, c.findings, c.kept);
	else if (rc == 0 && c.check && !c.findings && c.kept)
		printf("check: no findings in %llu RPCs\n", (unsigned long long)c.kept);
	/* a capture never opened has no table to show, not an empty one */
	if (rc != 2 && opened)
		print_summaries(&c);
	bool nothing = rc == 0 && say_nothing(&c, d);
	if (rc == 0 && c.pcapng_out && spool_err < 0) {
		log_error("-w %s: the input could not be kept for the export: %s", c.pcapng_out, strerror(-spool_err));
		rc = 1;
	} else if (rc == 0 && c.pcapng_out &&
		   pcapng_export_file(c.file, spool.fd >= 0 ? spool.path : NULL, c.pcapng_out, err, sizeof(err)) < 0) {
		log_error("-w %s", err);
		rc = 1;
	}
	capspool_close(&spool);
	if (rc == 0 && c.plot && plot_write(c.plot, c.plot_path, c.file, err, sizeof(err)) < 0) {
		log_error("--plot %s", err);
		rc = 1;
	}
	fields_close(c.fw);
	plot_free(c.plot);
	char snap[256];
	if (c.file && dissect_snap_note(dissect_stats(d), snap, sizeof(snap)))
		log_warn("%s: %s", c.file, snap);
	if (c.stats && c.file)
		run_report_stats(stderr, dissect_stats(d), dissect_transport_stats(d));
	join_free(c.join);
	for (int i = 0; i < SUM_KINDS; i++)
		summary_free(c.sum[i]);
	summary_free(c.tty_sum);
	dissect_free(d);
	if (outfile_close_stdout() < 0)
		return 1;
	return rc == 0 && nothing ? EXIT_NOTHING_FOUND : rc;
}
