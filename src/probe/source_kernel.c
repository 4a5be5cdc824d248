/* Record source "kernel[:ARGS]": the BPF probes on sunrpc/rpcrdma
 * tracepoints (src/probe/probe_load.c), one nfsrdma_record per completed RPC.
 *
 *   ARGS, comma-separated:  client | server   one side only (default: both,
 *                                             each if its tracepoints exist)
 *                           skip=SYS:EVENT    treat a tracepoint as absent
 *                           ringbuf=KB        ring buffer size (default 256)
 *                           tracefs=DIR       where events/SYS/EVENT/format live
 *                                             (default: the mounted tracefs)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"
#include "src/probe/probe_load.h"
#include "src/probe/probe_record.h"
#include "pcap/source.h"
#include "src/probe/source_kernel.h"

struct source_kernel {
	struct source base;
	struct probe *probe;
	source_record_fn cb;
	void *ctx;
	uint64_t records;
};

static void on_event(const struct probe_event *e, void *ctx)
{
	struct source_kernel *s = ctx;
	struct nfsrdma_record r;

	probe_to_record(e, &r);
	s->records++;
	s->cb(&r, s->ctx);
}

/* Parses ARGS into c; skip names are copied into skipbuf. */
static int parse_args(const char *arg, struct probe_config *c, char *skipbuf, size_t skiplen,
		      char *tracefs, size_t tlen, char *err, size_t errlen)
{
	char tok[256];
	size_t sl = 0;

	skipbuf[0] = 0;
	while (arg && *arg) {
		const char *comma = strchr(arg, ',');
		size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

		if (n >= sizeof(tok)) {
			snprintf(err, errlen, "kernel source: argument too long");
			return -EINVAL;
		}
		memcpy(tok, arg, n);
		tok[n] = 0;
		if (!strcmp(tok, "client") || !strcmp(tok, "server") || !strcmp(tok, "both")) {
			c->want = tok[0] == 'c' ? PROBE_WANT_CLIENT : tok[0] == 's' ? PROBE_WANT_SERVER : PROBE_WANT_BOTH;
			c->want_explicit = true;
		} else if (!strncmp(tok, "skip=", 5) && tok[5]) {
			int w = snprintf(skipbuf + sl, skiplen - sl, "%s%s", sl ? "," : "", tok + 5);
			if (w < 0 || (size_t)w >= skiplen - sl) {
				snprintf(err, errlen, "kernel source: too many skip= names");
				return -EINVAL;
			}
			sl += (size_t)w;
		} else if (!strncmp(tok, "tracefs=", 8) && tok[8]) {
			snprintf(tracefs, tlen, "%s", tok + 8);
			c->tracefs = tracefs;
		} else if (!strncmp(tok, "ringbuf=", 8)) {
			char *end;
			unsigned long kb = strtoul(tok + 8, &end, 10);
			if (*end || kb < 4 || kb > 1024 * 1024) {
				snprintf(err, errlen, "kernel source: ringbuf=KB wants 4..1048576");
				return -EINVAL;
			}
			/* the kernel wants a power-of-two number of pages */
			uint32_t p = 4;
			while (p < kb)
				p <<= 1;
			c->ringbuf_kb = p;
		} else {
			snprintf(err, errlen, "kernel source: unknown argument '%.40s' (client, server, skip=SYS:EVENT, ringbuf=KB, tracefs=DIR)", tok);
			return -EINVAL;
		}
		arg = comma ? comma + 1 : NULL;
	}
	c->skip = skipbuf;
	return 0;
}

static int kernel_open(struct source **out, const char *arg, const struct source_opts *o,
		       source_record_fn cb, void *ctx, char *err, size_t errlen)
{
	struct probe_config c = { .want = PROBE_WANT_BOTH };
	struct source_kernel *s;
	static char tracefs[256];
	char skip[512];
	int r;

	*out = NULL;
	r = parse_args(arg, &c, skip, sizeof(skip), tracefs, sizeof(tracefs), err, errlen);
	if (r < 0)
		return r;
	if (o) {
		c.min_latency_ns = o->min_latency_ns;
		c.filter_addr = o->filter_addr;
		c.filter_prog = o->filter_prog;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "kernel source: out of memory");
		return -ENOMEM;
	}
	s->base.type = &source_type_kernel;
	s->cb = cb;
	s->ctx = ctx;
	r = probe_open(&s->probe, &c, on_event, s, err, errlen);
	if (r < 0) {
		free(s);
		return r;
	}
	*out = &s->base;
	return 0;
}

static int kernel_fd(struct source *base) { return probe_fd(((struct source_kernel *)base)->probe); }

static int kernel_poll(struct source *base, int timeout_ms)
{
	struct source_kernel *s = (struct source_kernel *)base;
	uint64_t before = s->records;
	int r = probe_poll(s->probe, timeout_ms);

	if (r < 0 && r != -EINTR)
		return r;
	return (int)(s->records - before);
}

static void kernel_stats(const struct source *base, struct source_stats *st)
{
	const struct source_kernel *s = (const struct source_kernel *)base;
	uint64_t c[PST_MAX];

	probe_counters(s->probe, c);
	memset(st, 0, sizeof(*st));
	st->records = s->records;
	st->events = c[PST_EVENTS];
	/* records lost before user space: ring buffer full, or no room to
	 * track the RPC in flight */
	st->drops = c[PST_RB_DROPS] + c[PST_MAP_FULL];
	st->errors = 0;
}

static void kernel_close(struct source *base)
{
	struct source_kernel *s = (struct source_kernel *)base;

	if (!s)
		return;
	probe_close(s->probe);
	free(s);
}

struct probe *source_kernel_probe(struct source *s)
{
	return s && s->type == &source_type_kernel ? ((struct source_kernel *)s)->probe : NULL;
}

const struct source_type source_type_kernel = {
	.prefix = "kernel",
	.help = "kernel[:client|server][,skip=SYS:EVENT][,ringbuf=KB][,tracefs=DIR]  BPF probes on sunrpc/rpcrdma tracepoints",
	.open = kernel_open,
	.fd = kernel_fd,
	.poll = kernel_poll,
	.stats = kernel_stats,
	.close = kernel_close,
};
