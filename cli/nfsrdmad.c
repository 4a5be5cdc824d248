/* nfsrdmad: NFS over RDMA observation daemon.  Sources in, live view
 * (nfsrdma-top), Prometheus metrics, JSON Lines and pcapng exports out.
 * This file maps options and the config file onto struct daemon_cfg;
 * src/daemon/daemon.c does the work. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "src/daemon/daemon.h"
#include "src/daemon/daemon_conf.h"
#include "src/base/exit.h"
#include "src/base/log.h"
#include "src/base/outfile.h"
#include "src/base/opt.h"

enum {
	K_SOURCE = 256, K_SPEED, K_JSON, K_SUMMARY, K_METRICS, K_SOCKET, K_SOCKMODE, K_SOCKGROUP,
	K_EXPORT, K_ROTATE, K_ROTATE_SIZE, K_KEEP, K_USER, K_QUEUE, K_MAXKEYS, K_EXIT, K_CONFIG,
	K_SNAPLEN, K_WINDOW, K_FORWARD, K_COLLECT, K_COLLECT_ANY, K_COLLECT_ALLOW, K_CURVE_KEY,
	K_CURVE_SERVER_KEY, K_CURVE_ALLOW, K_FORWARD_QUEUE, K_HOST_NAME, K_KEYGEN, K_JOIN_WAIT, K_NO_HINTS,
	K_KSTATS, K_STALL, K_ABANDON,
	K_END
};

struct cli {
	struct daemon_cfg cfg;
	bool cli_sources;       /* the command line named sources: config ones are dropped */
	bool in_config;
	bool given[K_END];      /* on the command line (not from the config file) */
	int verbose;
	const char *keygen;
	bool kstat_given;
};

/* Typed entries are stored by the table (opt_store); the rest by handle. */
static const struct opt opts[] = {
	{ "source", 's', "SPEC", "pcap:FILE | FILE | live:IFACE | kernel[:client|server] | xdp:IFACE | jsonl:FILE (repeatable; nfsrdmad(8), SOURCES)", K_SOURCE, OPT_UNTYPED },
	{ "speed", 0, "X", "capture files: 0 = flat out (default), 1 = recorded pace, 10 = ten times faster", K_SPEED, OPT_DOUBLE, OPT_AT(struct cli, cfg.sopts.speed), 0, 1e6 },
	{ "json", 0, NULL, "JSON Lines on stdout: every record, then the periodic summaries", K_JSON, OPT_FLAG, OPT_AT(struct cli, cfg.json), 0, 0 },
	{ "summary-interval", 0, "S", "print a per-operation summary every S seconds (default 0: off)", K_SUMMARY, OPT_DOUBLE, OPT_AT(struct cli, cfg.summary_interval), 0, 86400 },
	{ "metrics", 0, "ADDR:PORT", "Prometheus endpoint (default 127.0.0.1:9464; none = off)", K_METRICS, OPT_UNTYPED },
	{ "kernel-stats", 0, "DIR", "export the kernel's NFS and RPC/RDMA counters from procfs at DIR (default /proc with a kernel source; none = off)", K_KSTATS, OPT_UNTYPED },
	{ "stall-after", 0, "S", "kernel source: an RPC in flight longer than S seconds is stalled (default 5; nfsrdmad(8), IN FLIGHT)", K_STALL, OPT_DOUBLE, OPT_AT(struct cli, cfg.stall_after), 0, 86400 },
	{ "abandon-after", 0, "S", "kernel source: an in-flight slot older than S seconds is abandoned, not in flight (default 600; 0 = never)", K_ABANDON, OPT_DOUBLE, OPT_AT(struct cli, cfg.abandon_after), 0, 31536000 },
	{ "socket", 0, "PATH", "control socket for nfsrdma-top (default /run/nfsrdmad.sock; none = off)", K_SOCKET, OPT_UNTYPED },
	{ "socket-mode", 0, "MODE", "control socket permissions, octal (default 0660)", K_SOCKMODE, OPT_UNTYPED },
	{ "socket-group", 0, "GROUP", "group owning the control socket (default: --user's group)", K_SOCKGROUP, OPT_UNTYPED },
	{ "export-dir", 0, "DIR", "write rotating annotated pcapng files of capture sources into DIR", K_EXPORT, OPT_STR, OPT_AT(struct cli, cfg.export_dir), 0, 0 },
	{ "rotate", 0, "SECONDS", "start a new export file every SECONDS (default 300)", K_ROTATE, OPT_UNTYPED },
	{ "rotate-size", 0, "SIZE", "start a new export file past SIZE bytes (k/M/G; default 100M)", K_ROTATE_SIZE, OPT_SIZE, OPT_AT(struct cli, cfg.rotate_bytes), 0, 0 },
	{ "export-keep", 0, "N", "keep the newest N export files (default 10; 0 = all)", K_KEEP, OPT_UINT, OPT_AT(struct cli, cfg.export_keep), 0, 4096 },
	{ "user", 'u', "USER", "drop privileges to USER once the sources are attached", K_USER, OPT_UNTYPED },
	{ "queue", 0, "N", "records buffered between sources and aggregation (default 8192; 1024 when every source is a file read flat out)", K_QUEUE, OPT_UINT, OPT_AT(struct cli, cfg.queue), 1, 1u << 22 },
	{ "max-keys", 0, "N", "rows per dimension (client, server, connection; default 1024)", K_MAXKEYS, OPT_UNTYPED },
	{ "window", 0, "S", "sliding window in seconds for rates (default 10, max 60)", K_WINDOW, OPT_UINT, OPT_AT(struct cli, cfg.agg.slots), 1, AGG_SLOTS_MAX },
	{ "snaplen", 0, "BYTES", "live/xdp: bytes kept of each packet (default 65535)", K_SNAPLEN, OPT_UINT, OPT_AT(struct cli, cfg.sopts.snaplen), 64, 262144 },
	{ "exit-at-end", 0, NULL, "exit when every source has ended (capture files), after a last summary", K_EXIT, OPT_FLAG, OPT_AT(struct cli, cfg.exit_at_end), 0, 0 },
	{ "forward", 0, "HOST:PORT", "send every record of this daemon's sources to the collector at HOST:PORT", K_FORWARD, OPT_UNTYPED },
	{ "collect", 0, "ADDR:PORT", "receive forwarded records on ADDR:PORT (a numeric address; see --collect-allow)", K_COLLECT, OPT_UNTYPED },
	{ "collect-allow", 0, "ADDR", "accept forwarders from this address (repeatable)", K_COLLECT_ALLOW, OPT_UNTYPED },
	{ "collect-any", 0, NULL, "allow --collect on a wildcard address (0.0.0.0, ::, *)", K_COLLECT_ANY, OPT_FLAG, OPT_AT(struct cli, cfg.fwd.collect_any), 0, 0 },
	{ "curve-key", 0, "FILE", "CURVE: this host's secret key (made by --curve-keygen)", K_CURVE_KEY, OPT_STR, OPT_AT(struct cli, cfg.fwd.curve_key), 0, 0 },
	{ "curve-server-key", 0, "FILE", "CURVE, forwarder: the collector's public key", K_CURVE_SERVER_KEY, OPT_STR, OPT_AT(struct cli, cfg.fwd.curve_server_key), 0, 0 },
	{ "curve-allow", 0, "FILE", "CURVE, collector: the forwarders' public keys it accepts, one per line", K_CURVE_ALLOW, OPT_STR, OPT_AT(struct cli, cfg.fwd.curve_allow), 0, 0 },
	{ "curve-keygen", 0, "FILE", "write a new CURVE key pair to FILE (secret) and FILE.pub, then exit", K_KEYGEN, OPT_STR, OPT_AT(struct cli, keygen), 0, 0 },
	{ "forward-queue", 0, "N", "records queued per direction of a forward link (default 10000)", K_FORWARD_QUEUE, OPT_UINT, OPT_AT(struct cli, cfg.fwd.hwm), 1, 1u << 22 },
	{ "join-wait", 0, "S", "collector: seconds an RPC waits for its other vantages, on the records' clocks (default 5)", K_JOIN_WAIT, OPT_UNTYPED },
	{ "no-clock-hints", 0, NULL, "collector: align clocks from the records alone, not the forwarders' clocks (replayed files)", K_NO_HINTS, OPT_FLAG, OPT_AT(struct cli, cfg.fwd.no_clock_hints), 0, 0 },
	{ "host-name", 0, "NAME", "the name this host's forwarded records carry (default: the host name)", K_HOST_NAME, OPT_UNTYPED },
	{ "config", 'c', "FILE", "read settings from FILE first (see nfsrdmad.conf(5))", K_CONFIG, OPT_UNTYPED },
	{ "verbose", 'v', NULL, "log more (repeat for debug)", 'v', OPT_UNTYPED },
	OPT_END
};

/* --source: the command line's replace the config file's */
static int add_source(struct cli *c, const char *arg)
{
	struct daemon_cfg *d = &c->cfg;

	if (!c->in_config && !c->cli_sources) {
		c->cli_sources = true;
		d->nsources = 0;
	}
	if (d->nsources == DAEMON_MAX_SOURCES) {
		log_error("--source: at most %d sources", DAEMON_MAX_SOURCES);
		return -E2BIG;
	}
	/* one source attached twice counts each record twice (FILE is
	 * pcap:FILE): said, not refused, since a capture given N times is
	 * how a burst is made (tests/daemon/burst.sh) */
	for (unsigned i = 0; i < d->nsources; i++)
		if (!strcmp(d->sources[i] + (strncmp(d->sources[i], "pcap:", 5) ? 0 : 5),
			    arg + (strncmp(arg, "pcap:", 5) ? 0 : 5))) {
			log_warn("--source '%s' given again: its records count once per time given", arg);
			break;
		}
	d->sources[d->nsources++] = arg;
	return 0;
}

static int handle(int key, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	struct daemon_cfg *d = &c->cfg;
	uint64_t v;

	/* options with a short letter arrive as that letter */
	if (key == 's')
		key = K_SOURCE;
	else if (key == 'u')
		key = K_USER;
	else if (key == 'c')
		key = K_CONFIG;
	if (!c->in_config && key >= K_SOURCE && key < K_END)
		c->given[key] = true;
	const struct opt *o = opt_find(opts, key);
	if (o && o->type != OPT_CUSTOM)
		return opt_store(o, arg, c) < 0 ? -EINVAL : 0;
	switch (key) {
	case K_SOURCE:
		return add_source(c, arg);
	case K_METRICS: {
		char err[300];
		if (strcmp(arg, "none") && daemon_check_tcp(arg, err, sizeof(err)) < 0) {
			log_error("--metrics %s", err);
			return -EINVAL;
		}
		d->metrics = arg;
		break;
	}
	case K_KSTATS:
		if (strcmp(arg, "none") && arg[0] != '/') {
			log_error("--kernel-stats %s: an absolute directory (procfs, or a copy of its files), or none", arg);
			return -EINVAL;
		}
		d->kstat_root = strcmp(arg, "none") ? arg : NULL;
		c->kstat_given = true;
		break;
	case K_SOCKET:
		if (strlen(arg) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			log_error("--socket %s: path too long for a socket (at most %zu bytes)", arg,
				  sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
			return -EINVAL;
		}
		d->socket_path = arg;
		break;
	case K_SOCKMODE: {
		char *end;
		unsigned long m = strtoul(arg, &end, 8);
		if (!*arg || *end || m > 0777) {
			log_error("--socket-mode: '%s' is not an octal mode", arg);
			return -EINVAL;
		}
		d->socket_mode = (unsigned)m;
		break;
	}
	case K_SOCKGROUP:
		if (!getgrnam(arg)) {
			log_error("--socket-group %s: no such group", arg);
			return -EINVAL;
		}
		d->socket_group = arg;
		break;
	case K_ROTATE:
		if (opt_u64("rotate", arg, 1, 86400 * 365, &v))
			return -EINVAL;
		d->rotate_ns = v * 1000000000ull;
		break;
	case K_USER:
		if (!getpwnam(arg)) {
			log_error("--user %s: no such user", arg);
			return -EINVAL;
		}
		d->user = arg;
		break;
	case K_MAXKEYS:
		if (opt_u64("max-keys", arg, 1, 1u << 20, &v))
			return -EINVAL;
		d->agg.max_keys[AGG_CLIENT] = d->agg.max_keys[AGG_SERVER] = d->agg.max_keys[AGG_CONN] = (unsigned)v;
		d->agg.max_keys[AGG_SERIES] = (unsigned)(v * 4 > (1u << 20) ? (1u << 20) : v * 4);
		break;
	case K_FORWARD: {
		char err[600];
		if (fwd_check_forward(arg, err, sizeof(err)) < 0) {
			log_error("--forward %s", err);
			return -EINVAL;
		}
		d->fwd.forward = arg;
		break;
	}
	case K_COLLECT: {
		char err[600];
		/* the wildcard check waits for --collect-any (main) */
		if (fwd_check_collect(arg, true, err, sizeof(err)) < 0) {
			log_error("--collect %s", err);
			return -EINVAL;
		}
		d->fwd.collect = arg;
		break;
	}
	case K_COLLECT_ALLOW: {
		char err[600];
		if (fwd_check_addr(arg, err, sizeof(err)) < 0) {
			log_error("--collect-allow %s", err);
			return -EINVAL;
		}
		if (d->fwd.nallow == FWD_ALLOW_MAX) {
			log_error("--collect-allow: at most %d addresses", FWD_ALLOW_MAX);
			return -E2BIG;
		}
		d->fwd.allow[d->fwd.nallow++] = arg;
		break;
	}
	case K_JOIN_WAIT: {
		char *end;
		double w = strtod(arg, &end);
		if (end == arg || *end || !(w > 0 && w <= 86400)) {
			log_error("--join-wait '%s': seconds, more than 0 and at most 86400", arg);
			return -EINVAL;
		}
		d->fwd.join_wait = w;
		break;
	}
	case K_HOST_NAME:
		if (!*arg || strlen(arg) > FWD_HOST_MAX || strpbrk(arg, " \t\"\\")) {
			log_error("--host-name '%s': 1 to %d characters, no spaces or quotes", arg, FWD_HOST_MAX);
			return -EINVAL;
		}
		d->fwd.host = arg;
		break;
	case K_CONFIG: break;   /* read before the command line, see main */
	case 'v': c->verbose++; break;
	default: return -EINVAL;
	}
	return 0;
}

/* An option given on the command line that the rest of the settings make
 * do nothing is refused, never dropped (a config file's are left alone:
 * one file may serve hosts of both kinds). */
static int needs(const struct cli *c)
{
	const struct daemon_cfg *d = &c->cfg;
	const bool socket = strcmp(d->socket_path, "none") != 0;
	bool kernel = false;

	for (unsigned i = 0; i < d->nsources; i++)
		kernel |= !strncmp(d->sources[i], "kernel", 6) && (!d->sources[i][6] || d->sources[i][6] == ':');
	const struct { int key; const char *opt; bool ok; const char *why; } rules[] = {
		{ K_ROTATE, "--rotate", d->export_dir, "needs --export-dir (it rotates the export files)" },
		{ K_ROTATE_SIZE, "--rotate-size", d->export_dir, "needs --export-dir (it rotates the export files)" },
		{ K_KEEP, "--export-keep", d->export_dir, "needs --export-dir (it prunes the export files)" },
		{ K_SOCKMODE, "--socket-mode", socket, "does nothing with --socket none" },
		{ K_SOCKGROUP, "--socket-group", socket, "does nothing with --socket none" },
		{ K_COLLECT_ALLOW, "--collect-allow", d->fwd.collect, "needs --collect (whom a collector accepts)" },
		{ K_COLLECT_ANY, "--collect-any", d->fwd.collect, "needs --collect" },
		{ K_JOIN_WAIT, "--join-wait", d->fwd.collect, "needs --collect (the collector's join)" },
		{ K_NO_HINTS, "--no-clock-hints", d->fwd.collect, "needs --collect (the collector's join)" },
		{ K_HOST_NAME, "--host-name", d->fwd.forward, "needs --forward (the name forwarded records carry)" },
		{ K_STALL, "--stall-after", kernel, "needs a kernel source (it reads the probes' RPCs in flight)" },
		{ K_ABANDON, "--abandon-after", kernel, "needs a kernel source (it reads the probes' RPCs in flight)" },
		{ K_FORWARD_QUEUE, "--forward-queue", d->fwd.forward || d->fwd.collect,
		  "needs --forward or --collect (a forward link's queue)" },
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (c->given[rules[i].key] && !rules[i].ok) {
			log_error("%s %s", rules[i].opt, rules[i].why);
			return -EINVAL;
		}
	return 0;
}

/* The export files are made as the run goes: a directory that is not
 * there cost the whole run, one warning at its first file and nothing
 * exported.  Said before the start; whether --user may write there is
 * known only after the privilege drop (the export's own warning). */
static int export_dir_ok(const struct daemon_cfg *d)
{
	struct stat st;

	if (!d->export_dir)
		return 0;
	if (stat(d->export_dir, &st) < 0) {
		int e = errno;
		log_error("--export-dir %s: %s", d->export_dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_error("--export-dir %s: not a directory", d->export_dir);
		return -ENOTDIR;
	}
	if (!d->user && access(d->export_dir, W_OK | X_OK) < 0) {
		int e = errno;
		log_error("--export-dir %s: cannot be written: %s", d->export_dir, strerror(e));
		return -e;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	struct daemon_cfg *d = &c.cfg;
	struct opt_spec spec = {
		.prog = "nfsrdmad",
		.synopsis = "[OPTIONS] --source SPEC [--source SPEC...]",
		.summary = "Watch NFS over RDMA: aggregate per-RPC records from captures, live interfaces, "
			   "kernel probes or XDP; serve nfsrdma-top, Prometheus metrics and pcapng exports.",
		.opts = opts, .handle = handle, .ctx = &c,
	};

	log_init(argv[0], LOG_WARN);
	outfile_ignore_sigpipe();   /* `| head -1` is a reader that had enough: 0, not 141 */
	outfile_stdout_lines(false);   /* records reach a pipe as they happen */
	d->metrics = "127.0.0.1:9464";
	d->socket_path = "/run/nfsrdmad.sock";
	d->socket_mode = 0660;
	d->rotate_ns = 300ull * 1000000000ull;
	d->rotate_bytes = 100ull << 20;
	d->export_keep = 10;
	d->stall_after = 5;
	d->abandon_after = 600;
	d->queue = 0;   /* the daemon picks: see daemon_run */
	d->sopts.snaplen = 65535;
	d->sopts.sample = 1;

	/* The config file first, so the command line overrides it. */
	for (int i = 1; i < argc; i++) {
		const char *cf = NULL;
		if ((!strcmp(argv[i], "--config") || !strcmp(argv[i], "-c")) && i + 1 < argc)
			cf = argv[i + 1];
		else if (!strncmp(argv[i], "--config=", 9))
			cf = argv[i] + 9;
		if (!cf)
			continue;
		c.in_config = true;
		int bad = conf_load(cf, &spec);
		c.in_config = false;
		if (bad != 0)
			return EXIT_USAGE;
	}
	int first = opt_parse(&spec, argc, argv);
	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		log_error("unexpected argument '%s' (sources go after --source)", argv[first]);
		return EXIT_USAGE;
	}
	log_set_level(c.verbose >= 2 ? LOG_DEBUG : c.verbose ? LOG_INFO : LOG_WARN);
	if (c.keygen) {
		char err[600];
		if (fwd_keygen(c.keygen, err, sizeof(err)) < 0) {
			log_error("--curve-keygen %s", err);
			return EXIT_FAILED;
		}
		return 0;
	}
	if (!d->nsources && !d->fwd.collect) {
		log_error("no source (--source SPEC, or --collect ADDR:PORT; see --help)");
		return EXIT_USAGE;
	}
	if (needs(&c) < 0 || export_dir_ok(d) < 0)
		return EXIT_USAGE;
	/* the host's own counters beside its probes' records */
	for (unsigned i = 0; i < d->nsources && !c.kstat_given; i++)
		if (!strncmp(d->sources[i], "kernel", 6) && (!d->sources[i][6] || d->sources[i][6] == ':'))
			d->kstat_root = "/proc";
	char ferr[600];
	if ((d->fwd.collect && fwd_check_collect(d->fwd.collect, d->fwd.collect_any, ferr, sizeof(ferr)) < 0) ||
	    fwd_check_cfg(&d->fwd, ferr, sizeof(ferr)) < 0) {
		log_error("%s%s", d->fwd.collect && strstr(ferr, d->fwd.collect) == ferr ? "--collect " : "", ferr);
		return EXIT_USAGE;
	}
	int rc = daemon_run(d);
	if (outfile_close_stdout() < 0 && rc == 0)
		rc = 1;
	return rc;
}
