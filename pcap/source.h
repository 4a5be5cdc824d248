/* Record sources: everything that produces per-XID records (struct
 * nfsrdma_record, dissect/record.h) behind one interface, so nfsrdmad,
 * nfsrdma-top and the exports consume any of them.
 *
 *   spec               source                         implemented in
 *   pcap:FILE | FILE   capture file (recorded speed   pcap/source_pcap.c
 *                      with --speed, or flat out)
 *   live:IFACE         libpcap live capture           pcap/source_pcap.c
 *   kernel[:client|server]  BPF probes on sunrpc/rpcrdma  src/probe/source_kernel.c
 *   xdp:IFACE          XDP fast path on a RoCE port   pcap/source_xdp.c
 *   jsonl:FILE         records from JSON Lines        src/join/source_jsonl.c
 *
 * Each implementation provides one `const struct source_type` and is
 * listed in the table in src/probe/source_table.c (source_open), the only
 * place that names them all: it sits above every implementation. */
#ifndef NFSRDMA_SOURCE_H
#define NFSRDMA_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/record.h"

struct source;

typedef void (*source_record_fn)(const struct nfsrdma_record *r, void *ctx);

struct source_opts {
	double   speed;        /* capture files: 0 = as fast as possible, 1 = recorded, 2 = twice */
	bool     follow;       /* keep running when a finite source ends (daemon) */
	uint32_t snaplen;      /* xdp/live: bytes of each packet kept */
	uint32_t sample;       /* xdp: 1 in N packets (1 = all) */
	uint64_t min_latency_ns; /* kernel: filter in the kernel */
	const char *filter_addr; /* kernel: only this client address */
	uint32_t filter_prog;  /* kernel: only this RPC program (0 = any) */
};

/* Counters every source reports, so drops are never silent. */
struct source_stats {
	uint64_t records;      /* delivered to the callback */
	uint64_t events;       /* raw events / packets consumed */
	uint64_t drops;        /* lost before user space (ring buffer full, pcap drops) */
	uint64_t errors;       /* bad input reported and skipped */
};

struct source_type {
	const char *prefix;    /* "pcap", "live", "kernel", "xdp" */
	const char *help;      /* one line for --help */
	/* Opens the source; arg is the part after "prefix:" (may be "").
	 * Returns 0 or a negative errno with a one-line reason in err. */
	int  (*open)(struct source **out, const char *arg, const struct source_opts *o,
		     source_record_fn cb, void *ctx, char *err, size_t errlen);
	/* A file descriptor to poll for readiness, or -1 (call poll on a timer). */
	int  (*fd)(struct source *s);
	/* Delivers what is ready, waiting up to timeout_ms.  Returns the number
	 * of records delivered (>= 0), -ENODATA at the end of a finite source,
	 * or another negative errno. */
	int  (*poll)(struct source *s, int timeout_ms);
	void (*stats)(const struct source *s, struct source_stats *st);
	void (*close)(struct source *s);
	/* Optional: one line about the input the user must hear once, at the
	 * end (e.g. a snap length that hid RPCs); 1 with the line in buf, 0. */
	int  (*note)(const struct source *s, char *buf, size_t len);
};

/* Every source starts with this header so the generic calls below work. */
struct source {
	const struct source_type *type;
};

static inline int source_fd(struct source *s) { return s->type->fd ? s->type->fd(s) : -1; }
static inline int source_poll(struct source *s, int timeout_ms) { return s->type->poll(s, timeout_ms); }
static inline void source_get_stats(const struct source *s, struct source_stats *st) { s->type->stats(s, st); }
static inline void source_close(struct source *s) { if (s) s->type->close(s); }
static inline int source_note(const struct source *s, char *buf, size_t len)
{
	return s && s->type->note ? s->type->note(s, buf, len) : 0;
}

#endif
