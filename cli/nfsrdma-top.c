/* nfsrdma-top: top for NFS over RDMA.  Reads the daemon's socket, or runs
 * its own sources (-r FILE, --source kernel, --source xdp:IF); draws with
 * ncurses (src/top/top_screen.c), or prints batches (-b) as text or JSON. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/exit.h"
#include "src/base/log.h"
#include "src/base/outfile.h"
#include "src/base/opt.h"
#include "src/top/top_feed.h"
#include "src/top/top_screen.h"
#include "src/top/top_view.h"

#define MAX_SPECS 16

enum { K_SOCKET = 256, K_SPEED, K_JSON, K_VIEW, K_SORT, K_FILTER, K_CTIMEOUT, K_TRANSPORT, K_FUSED, K_END };

struct cli {
	const char *socket;
	const char *specs[MAX_SPECS];
	char *owned[MAX_SPECS];
	unsigned nspecs;
	double speed, delay, connect_timeout;
	bool batch, json;
	bool given[K_END];   /* by key: the options on the command line */
	uint64_t iterations;
	struct top_view v;
};

/* Typed entries are stored by the table (opt_store); the rest by handle. */
static const struct opt opts[] = {
	{ "socket", 0, "PATH", "the daemon's control socket (default /run/nfsrdmad.sock)", K_SOCKET, OPT_STR, OPT_AT(struct cli, socket), 0, 0 },
	{ "read", 'r', "FILE", "standalone: read this capture (same as --source pcap:FILE)", 'r', OPT_UNTYPED },
	{ "source", 0, "SPEC", "standalone: pcap:FILE | live:IFACE | kernel[:client|server] | xdp:IFACE | jsonl:FILE (repeatable)", 'S', OPT_UNTYPED },
	{ "speed", 0, "X", "capture files: 0 = flat out (default), 1 = recorded pace", K_SPEED, OPT_DOUBLE, OPT_AT(struct cli, speed), 0, 1e6 },
	{ "batch", 'b', NULL, "batch mode: print snapshots as text, no terminal needed", 'b', OPT_FLAG, OPT_AT(struct cli, batch), 0, 0 },
	{ "iterations", 'n', "N", "batch: stop after N snapshots (default 0: until capture files end, or forever)", 'n', OPT_UINT, OPT_AT(struct cli, iterations), 0, UINT32_MAX },
	{ "connect-timeout", 0, "S", "batch: exit 1 after S seconds without the daemon (default 10; 0 = keep trying)", K_CTIMEOUT, OPT_DOUBLE, OPT_AT(struct cli, connect_timeout), 0, 86400 },
	{ "delay", 'd', "S", "seconds between refreshes (default 1)", 'd', OPT_DOUBLE, OPT_AT(struct cli, delay), 0.05, 3600 },
	{ "json", 0, NULL, "batch mode with one JSON object per snapshot", K_JSON, OPT_UNTYPED },
	{ "view", 0, "op|client|server|conn", "the table's rows (default op)", K_VIEW, OPT_UNTYPED },
	{ "sort", 0, "KEY", "records, rate, errors, p50, p99, max, key (default records)", K_SORT, OPT_UNTYPED },
	{ "filter", 0, "TEXT", "only rows whose key contains TEXT", K_FILTER, OPT_UNTYPED },
	{ "transport", 0, "rdma|tcp|udp", "only operations, clients, servers (and slowest RPCs) over this transport", K_TRANSPORT, OPT_UNTYPED },
	{ "fused", 0, NULL, "start in the fused split of joined RPCs (key f): client, wire and server phases", K_FUSED, OPT_FLAG, OPT_AT(struct cli, v.fused), 0, 0 },
	OPT_END
};

static int add_spec(struct cli *c, const char *spec, bool file)
{
	if (c->nspecs == MAX_SPECS) {
		log_error("at most %d sources", MAX_SPECS);
		return -E2BIG;
	}
	/* one capture read twice counts each of its RPCs twice: said, as
	 * nfsrdmad says it (a capture given N times makes a burst) */
	for (unsigned i = 0; i < c->nspecs; i++)
		if (!strcmp(c->specs[i] + (file && !strncmp(c->specs[i], "pcap:", 5) ? 5 : 0), spec)) {
			log_warn("source '%s' given again: its records count once per time given", spec);
			break;
		}
	if (file) {
		size_t n = strlen(spec) + 6;
		char *s = malloc(n);
		if (!s)
			return -ENOMEM;
		snprintf(s, n, "pcap:%s", spec);
		c->owned[c->nspecs] = s;
		spec = s;
	}
	c->specs[c->nspecs++] = spec;
	return 0;
}

static void free_owned(struct cli *c)
{
	for (unsigned i = 0; i < c->nspecs; i++)
		free(c->owned[i]);
}

static int handle(int key, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	int d;

	if (key >= 0 && key < K_END)
		c->given[key] = true;
	const struct opt *o = opt_find(opts, key);
	if (o && o->type != OPT_CUSTOM)
		return opt_store(o, arg, c) < 0 ? -EINVAL : 0;
	switch (key) {
	case 'r': return add_spec(c, arg, true);
	case 'S': return add_spec(c, arg, false);
	case K_JSON: c->json = c->batch = true; break;
	case K_VIEW:
		if ((d = top_dim_parse(arg)) < 0 || d == AGG_SERIES) {
			log_error("--view: '%s' is not one of op, client, server, conn", arg);
			return -EINVAL;
		}
		c->v.dim = (enum agg_dim)d;
		break;
	case K_SORT:
		if ((d = top_sort_parse(arg)) < 0) {
			log_error("--sort: '%s' is not one of records, rate, errors, p50, p99, max, key", arg);
			return -EINVAL;
		}
		c->v.sort = (enum top_sort)d;
		break;
	case K_FILTER: snprintf(c->v.filter, sizeof(c->v.filter), "%s", arg); break;
	case K_TRANSPORT:
		if ((c->v.transport = top_transport_parse(arg)) < 0) {
			log_error("--transport: '%s' is not one of rdma, tcp, udp", arg);
			return -EINVAL;
		}
		break;
	default: return -EINVAL;
	}
	return 0;
}

/* Options that the mode chosen would ignore are refused, never dropped:
 * the daemon's options with a source of top's own, a source's without. */
static int conflicts(const struct cli *c)
{
	if (c->nspecs && c->given[K_SOCKET]) {
		log_error("--socket and -r/--source cannot be combined: with a source of its own "
			  "nfsrdma-top reads no daemon");
		return -EINVAL;
	}
	if (c->nspecs && c->given[K_CTIMEOUT]) {
		log_error("--connect-timeout and -r/--source cannot be combined: it is how long to "
			  "wait for the daemon");
		return -EINVAL;
	}
	if (!c->nspecs && c->given[K_SPEED]) {
		log_error("--speed needs -r or --source pcap:FILE (the daemon paces its own sources)");
		return -EINVAL;
	}
	if (!c->batch && c->given['n']) {
		log_error("-n needs -b or --json (the screen runs until q)");
		return -EINVAL;
	}
	/* on the screen key f goes back to the connections; a batch run
	 * would print the operations' split under a view it was not asked */
	if (c->batch && c->v.fused && !fsplit_dim_ok(c->v.dim)) {
		log_error("--fused and --view conn cannot be combined in batch mode: the fused split has "
			  "op, client and server rows");
		return -EINVAL;
	}
	return 0;
}

/* ---- batch ---- */

static volatile sig_atomic_t quit_flag;
static void on_signal(int sig) { quit_flag = 1; }

/* Prints snapshots every delay: N of them with -n, until the sources end
 * (capture files: the last one is the final state), or until a signal.
 * Without the daemon for connect_timeout seconds: one line, status 1. */
static int run_batch(struct cli *c, struct top_feed *f)
{
	char err[512];
	uint64_t ok = 0;

	/* SIGINT/SIGTERM only set quit_flag (the screen must be restored
	 * in the ncurses view): batch mode stops at the next snapshot */
	uint64_t timeout_ns = (uint64_t)(c->connect_timeout * 1e9);

	/* ferror: the reader of stdout is gone (| head) or it is full */
	while (!quit_flag && !ferror(stdout) && (!c->iterations || ok < c->iterations)) {
		uint64_t now = clock_mono_ns(), down = top_feed_down_ns(f);
		uint64_t deadline = now + (uint64_t)(c->delay * 1e9);
		if (timeout_ns && down && down < timeout_ns && now + (timeout_ns - down) < deadline)
			deadline = now + (timeout_ns - down);   /* give up on time even with a long -d */
		top_feed_run(f, deadline);
		bool ended = top_feed_ended(f);   /* before the snapshot: it then holds everything */
		struct agg_snap s;
		struct fsplit_snap fs;
		if (top_feed_snapshot(f, &s, &fs, err, sizeof(err)) < 0) {
			if (timeout_ns && top_feed_down_ns(f) >= timeout_ns) {
				char *cut = strstr(err, "; retrying");
				if (cut)
					*cut = 0;
				log_error("%s; gave up after %g s (is nfsrdmad running?)", err, c->connect_timeout);
				return EXIT_FAILED;
			}
			continue;
		}
		ok++;
		if (c->json)
			top_batch_json(stdout, &s, &fs, &c->v, top_feed_name(f));
		else
			top_batch_text(stdout, &s, &fs, &c->v, top_feed_name(f));
		bool found = s.t.tot.records > 0;
		agg_snap_free(&s);
		fsplit_snap_free(&fs);
		fflush(stdout);
		/* files that held nothing: a one-shot run that found nothing
		 * fails with 3, as nfsrdma-dissect does (main says so) */
		if (ended && !found)
			return EXIT_NOTHING_FOUND;
		if (ended)
			break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .socket = "/run/nfsrdmad.sock", .delay = 1.0, .connect_timeout = 10,
			 .v = { .transport = -1 } };
	struct opt_spec spec = {
		.prog = "nfsrdma-top",
		.synopsis = "[OPTIONS]   (no source: read nfsrdmad's socket)",
		.summary = "Live per-operation, per-client and per-connection view of NFS over RDMA, "
			   "with where the time goes.\n"
			   "Keys: o c s n views, f fused split, t transport, > < R sort, / filter, d detail, "
			   "p pause, h help, q quit (nfsrdma-top(1), KEYS).",
		.opts = opts, .handle = handle, .ctx = &c,
	};
	struct top_feed *f = NULL;
	int rc;

	log_init(argv[0], LOG_WARN);
	outfile_ignore_sigpipe();   /* `| head -1` is a reader that had enough: 0, not 141 */
	outfile_stdout_lines(false);   /* records reach a pipe as they happen */
	if ((rc = opt_parse(&spec, argc, argv)) < 0 || conflicts(&c) < 0) {
		free_owned(&c);
		return EXIT_USAGE;
	}
	if (rc < argc) {
		log_error("unexpected argument '%s' (capture files go after -r)", argv[rc]);
		free_owned(&c);
		return EXIT_USAGE;
	}
	/* the screen needs a terminal both ways: to a file or a pipe it
	 * wrote escape codes and ran until killed */
	if (!c.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		log_error("the screen needs a terminal (standard %s is not one): -b prints text snapshots, "
			  "--json JSON", !isatty(STDOUT_FILENO) ? "output" : "input");
		free_owned(&c);
		return EXIT_FAILED;
	}
	if (c.nspecs) {
		char err[512];
		struct source_opts so = { .speed = c.speed, .snaplen = 65535, .sample = 1 };
		if (top_feed_standalone(&f, c.specs, c.nspecs, &so, err, sizeof(err)) < 0) {
			log_error("%s", err);
			free_owned(&c);
			return EXIT_FAILED;
		}
	} else if (!(f = top_feed_daemon(c.socket))) {
		log_error("out of memory");
		return EXIT_FAILED;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = c.batch ? run_batch(&c, f) : top_screen_run(&c.v, f, c.delay, &quit_flag);
	/* a capture cut short: what it held was shown; now where it ends */
	if (top_feed_error(f)) {
		log_error("%s", top_feed_error(f));
		rc = EXIT_FAILED;
	}
	top_feed_free(f);   /* the end-of-input notes: what the files held instead */
	if (rc == EXIT_NOTHING_FOUND)
		log_warn("nothing found: the files held no record");
	free_owned(&c);
	if (outfile_close_stdout() < 0 && rc == 0)
		rc = EXIT_FAILED;
	return rc;
}
