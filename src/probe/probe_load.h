/* Loader of the kernel-view probes (bpf/rpc_client.bpf.c,
 * bpf/rpc_server.bpf.c): finds each tracepoint's layout in tracefs,
 * disables what the running kernel lacks (saying what and why), loads,
 * attaches, and delivers the per-RPC probe_events from the ring buffer. */
#ifndef NFSRDMA_PROBE_LOAD_H
#define NFSRDMA_PROBE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/probe.h"

enum probe_want { PROBE_WANT_CLIENT = 1, PROBE_WANT_SERVER = 2, PROBE_WANT_BOTH = 3 };

struct probe_config {
	unsigned    want;            /* enum probe_want */
	bool        want_explicit;   /* the user named the side: missing essentials are errors */
	uint64_t    min_latency_ns;  /* records faster than this are not sent (histograms count them) */
	uint32_t    filter_prog;     /* RPC program number, 0 = any */
	const char *filter_addr;     /* server side: only calls from this IPv4/IPv6 address */
	uint32_t    ringbuf_kb;      /* 0 = 256; rounded up to a power of two */
	const char *tracefs;         /* NULL = /sys/kernel/tracing or the debugfs one */
	const char *skip;            /* "sys:event,..." treated as unavailable */
};

typedef void (*probe_event_fn)(const struct probe_event *e, void *ctx);

struct probe;

/* Returns 0 or a negative errno with a one-line reason in err: -ENODEV
 * when tracefs is not mounted or the tracepoints a side needs are absent
 * (the module not loaded yet: a restart may cure it, unlike a bad spec's
 * -EINVAL/-ENOENT).  Events that are missing or differently shaped are
 * logged (warning) and skipped. */
int probe_open(struct probe **out, const struct probe_config *c, probe_event_fn cb, void *ctx,
	       char *err, size_t errlen);
/* An extra consumer of every raw event, called before the main callback
 * (e.g. to log the raw view next to the records). NULL removes it. */
void probe_set_tap(struct probe *p, probe_event_fn tap, void *ctx);
/* epoll fd of the ring buffer(s), for poll(). */
int probe_fd(struct probe *p);
/* Delivers ready events, waiting up to timeout_ms.  Returns how many, or
 * a negative errno (-EINTR is passed through). */
int probe_poll(struct probe *p, int timeout_ms);
/* Kernel counters, summed over CPUs and both sides (enum probe_stat). */
void probe_counters(const struct probe *p, uint64_t out[PST_MAX]);
/* Which sides are running. */
unsigned probe_sides(const struct probe *p);
/* Comma-separated "sys:event" list of what is unavailable ("" if none). */
const char *probe_unavailable_str(const struct probe *p);

/* One histogram row: a procedure and its log2(ns) buckets. */
struct probe_hist_row {
	uint8_t  side;
	uint8_t  vers;
	char     prog[PROBE_PROG_MAX];
	char     proc[PROBE_STR_MAX];
	uint64_t bucket[PROBE_HIST_SLOTS];
	uint64_t count;
	uint64_t sum_ns;
};
/* Reads the kernel-side histograms.  *rows is malloc'd (caller frees).
 * Returns the number of rows or a negative errno. */
int probe_hist_read(struct probe *p, struct probe_hist_row **rows);
/* Approximate quantile (0..1) of a row from its buckets (upper bound). */
uint64_t probe_hist_quantile(const struct probe_hist_row *r, double q);

/* What each attached program costs, by the kernel's own run-time
 * accounting (held on by the probe: BPF_ENABLE_STATS): its runs and the
 * nanoseconds they took since load.  Returns how many filled (0 when the
 * kernel does not count: a warning said so at open). */
struct probe_prog_cost {
	const char *prog, *event;    /* program (tp_*), tracepoint */
	unsigned side;               /* enum probe_want */
	uint32_t id;                 /* the kernel's program id (bpftool prog show) */
	uint64_t run_ns, runs;
};
int probe_costs(const struct probe *p, struct probe_prog_cost *out, int max);

/* The maps holding the RPCs in flight (src/probe/probe_inflight.c reads
 * them): each an fd, -1 when its side is not running.  peer_filter: the
 * client's probe keeps only the clients of one server (cpeer verdicts). */
struct probe_inflight_maps {
	int ctasks, cpeer;           /* client: task slots (array), client id -> verdict */
	int sreqs, sparked, ssends;  /* server: by thread, parked for READs, awaiting the Send */
	bool peer_filter;
};
void probe_inflight_maps(const struct probe *p, struct probe_inflight_maps *m);

/* Stops new events (the ring buffers and counters stay readable), so a
 * final drain and counter read agree: without it an RPC finishing between
 * the two is counted but never delivered. */
void probe_detach(struct probe *p);
void probe_close(struct probe *p);

/* The probe behind a "kernel" record source (src/probe/source_kernel.c), for
 * its histograms and counters; NULL for other sources. */
struct source;
struct probe *source_kernel_probe(struct source *s);

#endif
