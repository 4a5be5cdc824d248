/* probe_dump: the lab's driver for the kernel probes.  Attaches them
 * through the "kernel" record source, writes every record as JSON Lines
 * (src/out/out_json.c) on stdout and, with --raw, every raw probe event (all
 * timestamps and the kernel's own backlog/RTT/execute) to a file; at the
 * end, and every --summary-every seconds, one summary line from the
 * kernel-side histograms and counters.  Built by tests/probe/lab.sh with
 * the project's flags. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/base/opt.h"
#include "src/out/out.h"
#include "src/probe/probe_load.h"
#include "src/probe/probe_record.h"
#include "src/probe/source_table.h"

enum { K_TRACEFS = 300, K_SIDE = 256, K_RAW, K_DURATION, K_EVERY, K_MINLAT, K_PROG, K_ADDR, K_SKIP, K_READY, K_RB };

static const struct opt opts[] = {
	{ "side", 0, "SIDE", "client, server or both (default: both, each if available)", K_SIDE, OPT_UNTYPED },
	{ "json", 0, NULL, "records as JSON Lines on stdout (the default; kept for symmetry)", 'j', OPT_UNTYPED },
	{ "raw", 0, "FILE", "also write the raw probe events as JSON Lines to FILE", K_RAW, OPT_UNTYPED },
	{ "duration", 0, "S", "stop after S seconds (default: at SIGINT/SIGTERM)", K_DURATION, OPT_UNTYPED },
	{ "summary-every", 0, "S", "print a summary line every S seconds (default: only at the end)", K_EVERY, OPT_UNTYPED },
	{ "min-latency", 0, "US", "only records slower than US microseconds (filtered in the kernel)", K_MINLAT, OPT_UNTYPED },
	{ "filter-prog", 0, "PROG", "only this RPC program number (filtered in the kernel)", K_PROG, OPT_UNTYPED },
	{ "filter-addr", 0, "ADDR", "server side: only calls from ADDR (filtered in the kernel)", K_ADDR, OPT_UNTYPED },
	{ "skip", 0, "SYS:EVENT", "treat a tracepoint as absent (repeatable)", K_SKIP, OPT_UNTYPED },
	{ "ringbuf", 0, "KB", "ring buffer size in KB", K_RB, OPT_UNTYPED },
	{ "tracefs", 0, "DIR", "read tracepoint formats from DIR/events (testing on a kernel without them)", K_TRACEFS, OPT_UNTYPED },
	{ "ready", 0, "FILE", "create FILE once the probes are attached", K_READY, OPT_UNTYPED },
	{ "quiet", 'q', NULL, "no records on stdout (counting only)", 'q', OPT_UNTYPED },
	{ "verbose", 'v', NULL, "log more (repeat for debug)", 'v', OPT_UNTYPED },
	OPT_END
};

struct cfg {
	char spec[768];
	const char *raw, *ready;
	struct source_opts so;
	uint64_t duration, every;
	int verbose;
	bool quiet;
};

static int handle(int key, const char *arg, void *ctx)
{
	struct cfg *c = ctx;
	uint64_t v;
	size_t n = strlen(c->spec);
	int r = 0;

	switch (key) {
	case K_SIDE:
		if (strcmp(arg, "client") && strcmp(arg, "server") && strcmp(arg, "both")) {
			log_error("--side: client, server or both");
			return -EINVAL;
		}
		snprintf(c->spec + n, sizeof(c->spec) - n, "%s%s", c->spec[7] ? "," : "", arg);
		break;
	case K_SKIP:
		snprintf(c->spec + n, sizeof(c->spec) - n, "%sskip=%s", c->spec[7] ? "," : "", arg);
		break;
	case K_RB:
		snprintf(c->spec + n, sizeof(c->spec) - n, "%sringbuf=%s", c->spec[7] ? "," : "", arg);
		break;
	case K_TRACEFS:
		snprintf(c->spec + n, sizeof(c->spec) - n, "%stracefs=%s", c->spec[7] ? "," : "", arg);
		break;
	case 'j': break;
	case K_RAW: c->raw = arg; break;
	case K_READY: c->ready = arg; break;
	case 'q': c->quiet = true; break;
	case K_DURATION: r = opt_u64("duration", arg, 1, 86400, &c->duration); break;
	case K_EVERY: r = opt_u64("summary-every", arg, 1, 86400, &c->every); break;
	case K_MINLAT:
		r = opt_u64("min-latency", arg, 0, 3600000000ULL, &v);
		c->so.min_latency_ns = v * 1000;
		break;
	case K_PROG:
		r = opt_u64("filter-prog", arg, 1, UINT32_MAX, &v);
		c->so.filter_prog = (uint32_t)v;
		break;
	case K_ADDR: c->so.filter_addr = arg; break;
	case 'v': c->verbose++; break;
	default:
		log_error("unhandled option %d", key);
		return -EINVAL;
	}
	return r;
}

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

static FILE *rawf;
static bool quiet;
static void on_record(const struct nfsrdma_record *r, void *ctx)
{
	(void)ctx;
	if (!quiet)
		out_json(stdout, r);
}

static void summary(struct probe *p)
{
	struct probe_hist_row *rows = NULL;
	uint64_t c[PST_MAX];
	int n = probe_hist_read(p, &rows);

	probe_counters(p, c);
	probe_summary_json(stdout, rows, n < 0 ? 0 : n, c, probe_unavailable_str(p));
	free(rows);
	fflush(stdout);
}

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

int main(int argc, char **argv)
{
	struct cfg c = { .spec = "kernel:" };
	struct opt_spec spec = {
		.prog = "probe_dump", .synopsis = "[OPTIONS]",
		.summary = "Attach the kernel NFS/RDMA probes and print per-RPC records as JSON Lines.",
		.opts = opts, .handle = handle, .ctx = &c,
	};
	struct source *src = NULL;
	struct probe *p;
	char err[512];
	uint64_t start, last;
	int r;

	log_init(argv[0], LOG_WARN);
	if (opt_parse(&spec, argc, argv) < 0)
		return 2;
	log_set_level(c.verbose >= 2 ? LOG_DEBUG : c.verbose ? LOG_INFO : LOG_WARN);
	quiet = c.quiet;
	if (c.raw) {
		rawf = fopen(c.raw, "w");
		if (!rawf) {
			log_error("%s: %s", c.raw, strerror(errno));
			return 1;
		}
	}
	r = source_open(&src, c.spec, &c.so, on_record, NULL, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		return 1;
	}
	p = source_kernel_probe(src);
	if (rawf)
		probe_set_tap(p, probe_event_json_cb, rawf);
	if (c.ready) {
		int fd = open(c.ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	start = last = now_s();
	while (!stop) {
		r = source_poll(src, 200);
		if (r < 0 && r != -EINTR) {
			log_error("poll: %s", strerror(-r));
			break;
		}
		fflush(stdout);
		if (c.duration && now_s() - start >= c.duration)
			break;
		if (c.every && now_s() - last >= c.every) {
			last = now_s();
			summary(p);
		}
	}
	/* Detach first, then drain until the ring stays empty for a while: a
	 * program already running when its link went away may still submit. */
	probe_detach(p);
	while (source_poll(src, 100) > 0)
		;
	summary(p);
	if (rawf)
		fclose(rawf);
	source_close(src);
	return 0;
}
