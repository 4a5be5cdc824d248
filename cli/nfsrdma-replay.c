/* nfsrdma-replay: replay captured NFS calls against a live NFS/RDMA (or
 * NFS/TCP) server, or generate load.  Thin main: options -> replay_run()
 * (src/replay/replay_run.c) or loadgen_run() (src/replay/loadgen.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"
#include "src/base/outfile.h"
#include "src/base/opt.h"
#include "src/replay/replay.h"
#include "src/xprt/xprt.h"

enum {
	/* opt_parse passes the short letter as the key when there is one */
	K_TARGET = 't', K_SPEED = 's', K_GENERATE = 'g', K_QD = 'q', K_DURATION = 'd',
	K_COUNT = 'n', K_WARMUP = 'w', K_FILE = 'f', K_VERBOSE = 'v',
	K_JSON = 256, K_ALLOW, K_SAMETREE, K_MAXINF, K_PROTO, K_PORT, K_EXPORT, K_SIZE,
	K_FILESIZE, K_SWEEP, K_PLOT, K_ASAP, K_BUSY, K_MODERATE, K_RECONNECT, K_DRYRUN, K_VERS, K_DELEG, K_DISCONNECT, K_CLIENTS, K_REALTIME,
	K_MAXIDLE, K_PER_CALL,
	K_END,
};

struct cli {
	struct replay_opts r;
	struct loadgen_opts g;
	bool generate;
	bool given[K_END];     /* by key: the options on the command line */
	double speed;          /* --speed's value (--asap sets the replay's to 0) */
	double max_idle;       /* --max-idle, seconds */
	bool verbose;          /* -v: until the next release also --per-call's lines */
};

static const struct opt opts[] = {
	{ "target", 't', "HOST", "the NFS server to send calls to (the only address contacted)", K_TARGET, OPT_UNTYPED },
	{ "proto", 0, "rdma|tcp", "RPC-over-RDMA v1 (default, port 20049) or RPC over TCP (2049), as mount's proto=", K_PROTO, OPT_UNTYPED },
	{ "port", 0, "PORT", "server port (default 20049 for rdma, 2049 for tcp)", K_PORT, OPT_UNTYPED },
	{ "export", 0, "PATH", "NFSv3: export to MOUNT for the root handle (default: from the trace, else /export); NFSv4: path below the pseudo-root (default: the pseudo-root)", K_EXPORT, OPT_UNTYPED },
	{ "speed", 0, "N", "replay timing: 1 as recorded (default), 2 twice as fast, 0 as fast as credits allow", K_SPEED, OPT_UNTYPED },
	{ "asap", 0, NULL, "same as --speed 0", K_ASAP, OPT_UNTYPED },
	{ "realtime", 0, NULL, "replay at real-time priority (SCHED_FIFO, memory locked) so calls leave on time on a busy machine; needs CAP_SYS_NICE (else one line and the replay goes on); meant for --speed, not --asap", K_REALTIME, OPT_FLAG, OPT_AT(struct cli, r.realtime), 0, 0 },
	{ "max-idle", 0, "SECS", "an idle stretch of the trace (no call in flight) longer than SECS is replayed as SECS; the busy ones keep their timing (default: every one as recorded)", K_MAXIDLE, OPT_DOUBLE, OPT_AT(struct cli, max_idle), 0.001, 86400 },
	{ "max-inflight", 0, "N", "at most N calls in flight on each connection (default: as recorded on the traced one)", K_MAXINF, OPT_UINT, OPT_AT(struct cli, r.max_inflight), 1, 256 },
	{ "clients", 0, "N", "replay the whole capture N times at once, as N independent client groups (load); group G works in the export's directory replay-gG (made with --allow-mutations when missing)", K_CLIENTS, OPT_UINT, OPT_AT(struct cli, r.clients), 1, 64 },
	{ "allow-mutations", 0, NULL, "send calls that change state (WRITE, CREATE, REMOVE, ...); refused otherwise", K_ALLOW, OPT_UNTYPED },
	{ "delegations", 0, NULL, "NFSv4: serve the target's callbacks, every NFSv4 client its own (4.1+: its session's back channel; 4.0: a callback server), so it may grant delegations as it did to the traced clients; recalls are answered and given back", K_DELEG, OPT_FLAG, OPT_AT(struct cli, r.delegations), 0, 0 },
	{ "same-tree", 0, NULL, "the target holds the captured tree: send handles that cannot be resolved by path unchanged", K_SAMETREE, OPT_FLAG, OPT_AT(struct cli, r.same_tree), 0, 0 },
	{ "json", 0, NULL, "print the report as one JSON object", K_JSON, OPT_UNTYPED },
	{ "generate", 'g', "OP", "generate load: null, getattr, read, write, mix[:READPCT], readdirplus", K_GENERATE, OPT_UNTYPED },
	{ "vers", 0, "3|4.1|4.2", "--generate: NFS version (default 3; 4.1/4.2 open a session of --qd slots)", K_VERS, OPT_UNTYPED },
	{ "size", 0, "BYTES", "READ/WRITE transfer size (default 4k)", K_SIZE, OPT_UNTYPED },
	{ "sweep", 0, "S1,S2,..", "run once per transfer size (e.g. 4k,16k,64k,256k)", K_SWEEP, OPT_UNTYPED },
	{ "qd", 0, "N", "calls kept in flight (default 1)", K_QD, OPT_UINT, OPT_AT(struct cli, g.qd), 1, 256 },
	{ "duration", 0, "SECS", "measured time per run (default 5)", K_DURATION, OPT_DOUBLE, OPT_AT(struct cli, g.duration), 0.01, 86400 },
	{ "count", 'n', "N", "measured calls per run (instead of --duration)", K_COUNT, OPT_UINT, OPT_AT(struct cli, g.count), 1, 4.6e18 },
	{ "warmup", 0, "SECS", "unmeasured warm-up before each run (default 0)", K_WARMUP, OPT_DOUBLE, OPT_AT(struct cli, g.warmup), 0, 3600 },
	{ "file", 'f', "PATH", "file (or directory for readdirplus) in the export; default nfsrdma-replay.load", K_FILE, OPT_UNTYPED },
	{ "file-size", 0, "BYTES", "span of offsets used in the file (default 16M)", K_FILESIZE, OPT_SIZE, OPT_AT(struct cli, g.file_size), 0, 0 },
	{ "plot", 0, "FILE", "with --sweep: write an SVG plot of MB/s vs transfer size", K_PLOT, OPT_STR, OPT_AT(struct cli, g.svg), 0, 0 },
	{ "busy-poll", 0, NULL, "spin on the completion queue instead of sleeping", K_BUSY, OPT_UNTYPED },
	{ "moderate-us", 0, "US", "with half the credits in flight, nap US microseconds before reaping completions (0: off; default 1000)", K_MODERATE, OPT_UNTYPED },
	{ "disconnect-after", 0, "XID", "fault injection: drop the connection once the reply to the trace's call XID is in, and go on over a new one (4.1+: bound to the session with BIND_CONN_TO_SESSION)", K_DISCONNECT, OPT_UNTYPED },
	{ "reconnect-timeout", 0, "MS", "give up reconnecting after MS milliseconds (default 30000)", K_RECONNECT, OPT_UINT, OPT_AT(struct cli, r.reconnect_ms), 1, 3600000 },
	{ "dry-run", 0, NULL, "print the calls that would be replayed, with the trace's paths; send nothing", K_DRYRUN, OPT_FLAG, OPT_AT(struct cli, r.dry_run), 0, 0 },
	{ "per-call", 0, NULL, "one line per replayed call (on stderr under --json)", K_PER_CALL, OPT_FLAG, OPT_AT(struct cli, r.per_call), 0, 0 },
	{ "verbose", 'v', NULL, "log more (repeat for debug)", K_VERBOSE, OPT_UNTYPED },
	OPT_END,
};

/* renamed for one meaning per flag across the four tools */
static const struct opt_alias aliases[] = {
	{ NULL, 'q', K_QD, "-q is --quiet in nfsrdma-dissect" },
	{ NULL, 'w', K_WARMUP, "-w is --write in nfsrdma-dissect" },
	{ NULL, 's', K_SPEED, "-s is --source in nfsrdmad" },
	{ NULL, 'd', K_DURATION, "-d is --delay in nfsrdma-top" },
	{ "transport", 0, K_PROTO, "--transport is a filter in nfsrdma-dissect and nfsrdma-top" },
	{ "svg", 0, K_PLOT, "the SVG is --plot in nfsrdma-dissect too" },
	OPT_ALIAS_END,
};

static int parse_sizes(const char *arg, struct loadgen_opts *g)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", arg);
	g->nsizes = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (g->nsizes >= 16) {
			log_error("--sweep: at most 16 sizes");
			return -EINVAL;
		}
		if (opt_size("sweep", t, &v) < 0)
			return -EINVAL;
		if (v < 1 || v > (1u << 20)) {
			log_error("--sweep: %s: sizes are 1 .. 1M", t);
			return -ERANGE;
		}
		g->sizes[g->nsizes++] = (uint32_t)v;
	}
	return g->nsizes ? 0 : -EINVAL;
}

static int handle(int key, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	uint64_t v;
	double d;

	if (key >= 0 && key < K_END)
		c->given[key] = true;
	const struct opt *o = opt_find(opts, key);
	if (o && o->type != OPT_CUSTOM)
		return opt_store(o, arg, c) < 0 ? -EINVAL : 0;
	switch (key) {
	case K_TARGET:
		if (!*arg || strlen(arg) > 255) {
			log_error("--target: bad host");
			return -EINVAL;
		}
		c->r.target = c->g.target = arg;
		return 0;
	case K_PROTO:
		if (strcmp(arg, "rdma") && strcmp(arg, "tcp")) {
			log_error("--proto: rdma or tcp, not \"%s\"", arg);
			return -EINVAL;
		}
		c->r.transport = c->g.transport = arg;
		return 0;
	case K_PORT:
		if (opt_u64("port", arg, 1, 65535, &v) < 0)
			return -EINVAL;
		c->r.port = c->g.port = (uint16_t)v;
		return 0;
	case K_EXPORT:
		if (arg[0] != '/' || strlen(arg) > 1000) {
			log_error("--export: an absolute path");
			return -EINVAL;
		}
		c->r.export_path = c->g.export_path = arg;
		return 0;
	case K_SPEED:
		if (opt_double("speed", arg, 0, 1e6, &d) < 0)
			return -EINVAL;
		c->r.speed = c->speed = d;
		return 0;
	case K_ASAP:
		c->r.speed = 0;
		return 0;
	case K_ALLOW:
		c->r.allow_mutations = c->g.allow_mutations = true;
		return 0;
	case K_JSON:
		c->r.json = c->g.json = true;
		return 0;
	case K_GENERATE: {
		c->generate = true;
		if (!strcmp(arg, "null")) c->g.op = LG_NULL;
		else if (!strcmp(arg, "getattr")) c->g.op = LG_GETATTR;
		else if (!strcmp(arg, "read")) c->g.op = LG_READ;
		else if (!strcmp(arg, "write")) c->g.op = LG_WRITE;
		else if (!strcmp(arg, "readdirplus")) c->g.op = LG_READDIRPLUS;
		else if (!strncmp(arg, "mix", 3) && (arg[3] == 0 || arg[3] == ':')) {
			c->g.op = LG_MIX;
			c->g.read_pct = 70;
			if (arg[3] == ':') {
				if (opt_u64("generate mix", arg + 4, 0, 100, &v) < 0)
					return -EINVAL;
				c->g.read_pct = (uint32_t)v;
			}
		} else {
			log_error("--generate: null, getattr, read, write, mix[:PCT] or readdirplus, not \"%s\"", arg);
			return -EINVAL;
		}
		return 0;
	}
	case K_VERS:
		if (!strcmp(arg, "3")) {
			c->g.vers = 3;
		} else if (!strcmp(arg, "4.1") || !strcmp(arg, "4.2")) {
			c->g.vers = 4;
			c->g.minor = arg[2] - '0';
		} else {
			log_error("--vers: 3, 4.1 or 4.2, not \"%s\"", arg);
			return -EINVAL;
		}
		return 0;
	case K_SIZE:
		if (opt_size("size", arg, &v) < 0)
			return -EINVAL;
		if (v < 1 || v > (1u << 20)) {
			log_error("--size: 1 .. 1M");
			return -ERANGE;
		}
		c->g.size = (uint32_t)v;
		return 0;
	case K_SWEEP:
		return parse_sizes(arg, &c->g);
	case K_FILE:
		if (strlen(arg) > 1000) {
			log_error("--file: too long");
			return -EINVAL;
		}
		c->g.file = arg;
		return 0;
	case K_BUSY:
		c->r.busy_poll = c->g.busy_poll = true;
		return 0;
	case K_MODERATE:
		if (opt_u64("moderate-us", arg, 0, 100000, &v) < 0)
			return -EINVAL;
		c->r.moderate_us = c->g.moderate_us = v ? (uint32_t)v : UINT32_MAX;
		return 0;
	case K_DISCONNECT:
		if (opt_u64("disconnect-after", arg, 0, UINT32_MAX, &v) < 0)
			return -EINVAL;
		c->r.disconnect = true;
		c->r.disconnect_xid = (uint32_t)v;
		return 0;
	case K_VERBOSE:
		c->verbose = true;
		log_set_level(log_get_level() >= LOG_INFO ? LOG_DEBUG : LOG_INFO);
		return 0;
	}
	log_error("internal: unhandled option key %d", key);
	return -EINVAL;
}

/* Options that belong to one mode only, or contradict each other, are
 * refused (never "last one wins", never silently ignored). */
static int conflicts(const struct cli *c)
{
	static const struct { int key; const char *name; } replay_only[] = {
		{ K_SPEED, "--speed" }, { K_ASAP, "--asap" }, { K_MAXINF, "--max-inflight" },
		{ K_CLIENTS, "--clients" }, { K_SAMETREE, "--same-tree" }, { K_DELEG, "--delegations" },
		{ K_DISCONNECT, "--disconnect-after" }, { K_RECONNECT, "--reconnect-timeout" },
		{ K_DRYRUN, "--dry-run" }, { K_MAXIDLE, "--max-idle" },
	}, load_only[] = {
		{ K_VERS, "--vers" }, { K_SIZE, "--size" }, { K_SWEEP, "--sweep" }, { K_QD, "--qd" },
		{ K_DURATION, "--duration" }, { K_COUNT, "--count" }, { K_WARMUP, "--warmup" },
		{ K_FILE, "--file" }, { K_FILESIZE, "--file-size" }, { K_PLOT, "--plot" },
	};
	/* what shapes only what is sent, and when: --dry-run sends nothing */
	static const struct { int key; const char *name; } sending_only[] = {
		{ K_PROTO, "--proto" }, { K_PORT, "--port" }, { K_SPEED, "--speed" }, { K_ASAP, "--asap" },
		{ K_REALTIME, "--realtime" }, { K_MAXINF, "--max-inflight" }, { K_CLIENTS, "--clients" },
		{ K_DELEG, "--delegations" }, { K_BUSY, "--busy-poll" }, { K_MODERATE, "--moderate-us" },
		{ K_DISCONNECT, "--disconnect-after" }, { K_RECONNECT, "--reconnect-timeout" },
		{ K_MAXIDLE, "--max-idle" },
	};
	static const struct { int a, b; const char *na, *nb; } pairs[] = {
		{ K_DURATION, K_COUNT, "--duration", "--count" }, { K_SIZE, K_SWEEP, "--size", "--sweep" },
	};

	for (size_t i = 0; i < sizeof(replay_only) / sizeof(replay_only[0]); i++)
		if (c->generate && c->given[replay_only[i].key]) {
			log_error("--generate and %s cannot be combined: %s is for replaying a trace",
				  replay_only[i].name, replay_only[i].name);
			return -EINVAL;
		}
	for (size_t i = 0; i < sizeof(load_only) / sizeof(load_only[0]); i++)
		if (!c->generate && c->given[load_only[i].key]) {
			log_error("%s needs --generate (it shapes generated load, not a replay)", load_only[i].name);
			return -EINVAL;
		}
	for (size_t i = 0; i < sizeof(sending_only) / sizeof(sending_only[0]); i++)
		if (c->given[K_DRYRUN] && c->given[sending_only[i].key]) {
			log_error("--dry-run and %s cannot be combined: a dry run sends nothing", sending_only[i].name);
			return -EINVAL;
		}
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (c->given[pairs[i].a] && c->given[pairs[i].b]) {
			log_error("%s and %s cannot be combined", pairs[i].na, pairs[i].nb);
			return -EINVAL;
		}
	if (c->given[K_ASAP] && c->given[K_SPEED] && c->speed != 0) {
		log_error("--asap and --speed cannot be combined (--asap is --speed 0)");
		return -EINVAL;
	}
	if (c->given[K_MAXIDLE] && (c->given[K_ASAP] || (c->given[K_SPEED] && c->speed == 0))) {
		log_error("--max-idle and --asap cannot be combined: as fast as credits allow leaves no idle time to cut");
		return -EINVAL;
	}
	if (c->given[K_PLOT] && !c->given[K_SWEEP]) {
		log_error("--plot needs --sweep (it plots MB/s against the sweep's transfer sizes)");
		return -EINVAL;
	}
	return 0;
}

/* A run's own failure keeps its exit status; a failed write of its output
 * makes a successful run fail (1). */
static int close_stdout(int rc)
{
	rc = replay_exit_status(rc);
	return outfile_close_stdout() < 0 && rc == 0 ? 1 : rc;
}

/* A --target name that does not resolve is one line, said before the
 * trace is read (the transports would guess "No route to host" after it). */
static bool target_resolves(const struct cli *c)
{
	char err[600];

	if (!c->r.target || c->r.dry_run || xprt_host_check(c->r.target, err, sizeof(err)) == 0)
		return true;
	log_error("--target %s", err);
	return false;
}

int main(int argc, char **argv)
{
	struct cli c = { .r = { .speed = 1 }, .g = { .qd = 1, .vers = 3 } };
	struct opt_spec spec = {
		.prog = "nfsrdma-replay",
		.synopsis = "[OPTIONS] --target HOST TRACE.pcap | --generate OP --target HOST",
		.summary = "Replay captured NFS calls against a live NFS/RDMA server, or generate load.",
		.opts = opts, .aliases = aliases, .handle = handle, .ctx = &c,
	};

	log_init("nfsrdma-replay", LOG_WARN);
	outfile_ignore_sigpipe();   /* `| head -1` is a reader that had enough: 0, not 141 */
	outfile_stdout_lines(false);   /* records reach a pipe as they happen */
	int first = opt_parse(&spec, argc, argv);
	if (first < 0 || conflicts(&c) < 0)
		return REPLAY_EXIT_USAGE;
	if (c.verbose && !c.r.per_call) {
		log_warn("-v: its line per replayed call is --per-call now; -v alone only logs more from the next release");
		c.r.per_call = true;
	}
	if (!c.r.target && !(c.r.dry_run && !c.generate)) {
		log_error("--target HOST is required: nothing is sent anywhere else");
		return REPLAY_EXIT_USAGE;
	}
	if (c.generate) {
		if (first < argc) {
			log_error("--generate takes no trace file");
			return REPLAY_EXIT_USAGE;
		}
		if (!target_resolves(&c))
			return REPLAY_EXIT_FAILED;
		char err[512];
		if (c.g.svg && outfile_check("--plot", c.g.svg, NULL, 0, err, sizeof(err)) < 0) {
			log_error("%s", err);   /* a set-up failure found now, not after the sweep */
			return REPLAY_EXIT_FAILED;
		}
		return close_stdout(loadgen_run(&c.g, stdout));
	}
	if (first != argc - 1) {
		log_error("one trace file expected (see --help)");
		return REPLAY_EXIT_USAGE;
	}
	c.r.trace = argv[first];
	if (c.given[K_MAXIDLE])
		c.r.max_idle_ns = (uint64_t)(c.max_idle * 1e9);
	if (!target_resolves(&c))
		return REPLAY_EXIT_FAILED;
	if (c.r.clients && !c.r.dry_run)
		return close_stdout(replay_groups_run(&c.r, stdout));
	return close_stdout(replay_run(&c.r, stdout));
}
