/* nfsrdmad's internals shared by daemon.c (sources, the queue's drain,
 * the run loop) and daemon_conn.c (the control socket and /metrics). */
#ifndef NFSRDMA_DAEMON_INT_H
#define NFSRDMA_DAEMON_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pcap/source.h"
#include "src/daemon/daemon.h"
#include "src/daemon/daemon_queue.h"
#include "src/daemon/kstat.h"
#include "src/daemon/metrics_http.h"

#define MAX_CONNS   32
#define HTTP_IDLE_NS (10ull * 1000000000ull)
#define OUT_MAX     (64u << 20)   /* a client that does not read is cut off */

struct src_thread {
	struct daemon *d;
	unsigned idx;
	const char *spec;
	struct source *s;
	struct pcapng_export *exp;
	pthread_t th;
	bool started, lossless;
	atomic_bool done;
	pthread_mutex_t mu;          /* guards st */
	struct source_stats st;
	int last_err;
	/* the slots of the queue this thread is filling (daemon_queue.c):
	 * the records of one source_poll are committed together */
	struct rec_resv resv;
	size_t used, batch;
	bool agg_held;               /* aggregating inline: this poll holds agg_mu */
};

enum conn_kind { C_CTL = 1, C_HTTP };

struct conn {
	int fd;
	enum conn_kind kind;
	char in[HTTP_REQ_MAX];
	size_t inlen;
	char *out;
	size_t outlen, outpos;
	bool close_after;
	uint64_t t_open;
};

struct daemon {
	const struct daemon_cfg *c;
	struct rec_queue *q;
	struct agg *agg;
	struct src_thread src[DAEMON_MAX_SOURCES];
	unsigned nsrc;
	bool record_clock;           /* all sources are files read flat out */
	int ctl_fd, http_fd;
	struct conn conns[MAX_CONNS];
	uint64_t refused;
	struct forwarder *fw;        /* --forward: every local record goes there too */
	struct collector *col;       /* --collect: peers' records come in here */
	struct coll_join *cj;        /* collecting: local and peers' records meet here */
	struct coll_hist *ch;        /* collecting: the fused phases' histograms */
	struct fsplit *fs;           /* the fused split of joined records, for nfsrdma-top */
	bool agg_inline;             /* the one source thread aggregates (above) */
	pthread_mutex_t agg_mu;      /* the aggregation and stdout, taken by the main
				      * thread always and by an inline source per poll */
	struct ks_skips kstat_skips; /* the kernel counters' lines not taken, since start */
};

/* daemon_conn.c: a connection accepted on lfd (the control socket or
 * /metrics), its input handled (commands, requests) and its output sent */
void daemon_accept(struct daemon *d, int lfd, enum conn_kind kind);
void daemon_conn_input(struct daemon *d, struct conn *k);
void daemon_conn_output(struct conn *k);
void daemon_conn_close(struct conn *k);

/* daemon_inflight.c: the RPCs in flight in the kernel sources' probes,
 * into s (its inflight fields); returns the sides read (bit 0 client,
 * bit 1 server).  The metrics write the same as gauges. */
struct agg_snap;
unsigned daemon_inflight(struct daemon *d, struct agg_snap *s);
void daemon_inflight_metrics(FILE *f, struct daemon *d);

#endif
