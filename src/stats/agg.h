/* Aggregation engine: per-XID records in, live statistics out.  Keys per
 * dimension (operation, client, server, connection, and the Prometheus
 * series operation x client x server); for each key counters since start,
 * a sliding window of 1-second slots, log-linear latency histograms and
 * the latency split (call / RDMA READ / server / RDMA WRITE / reply).
 *
 * Memory is bounded: each dimension holds at most max_keys entries; a
 * record whose key does not fit is counted in that dimension's "(other)"
 * row and in overflow[dim], never lost from the totals.  Single-threaded:
 * the caller serialises agg_add and the readers. */
#ifndef NFSRDMA_AGG_H
#define NFSRDMA_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"
#include "src/stats/hist.h"
#include "src/stats/phase_diag.h"

enum agg_dim { AGG_OP = 0, AGG_CLIENT, AGG_SERVER, AGG_CONN, AGG_SERIES, AGG_NDIM };
#define PH_N REC_PH_N   /* the phases of dissect/record.h, named by rec_phase_name */
enum agg_mix { MIX_INLINE = 0, MIX_READ, MIX_WRITE, MIX_REPLY, MIX_P0, MIX_N };

#define AGG_KEY_MAX   200
#define AGG_LABEL_MAX 48
#define AGG_SLOTS_MAX 60
#define AGG_SLOW_MAX  64
#define AGG_FINDINGS  64
/* Prometheus histogram bounds (seconds), node_exporter-like spacing
 * from 10 us to 10 s. */
#define AGG_PROM_NLE  16
extern const double agg_prom_le[AGG_PROM_NLE];

struct agg_counts {
	uint64_t records, calls, replies, errors, noreply, findings;
	uint64_t bytes_inline, bytes_ddp;  /* inline = SEND payloads; ddp = RDMA READ/WRITE */
	uint64_t mix[MIX_N];
	uint64_t phase_sum[PH_N];          /* ns, over records with a reply */
	uint64_t lat_sum, lat_n;           /* d_total, over answered records */
};

struct agg_win {
	uint64_t slot;                     /* absolute slot number this holds */
	uint64_t records, errors, bytes, lat_sum, lat_n;
};

#define AGG_WRING 32
struct agg_wsample {
	uint64_t slot, total;              /* absolute slot number, d_total */
};
struct agg_ent {
	/* First, together, what every record of the entry writes (its
	 * counts, the pointers to its window and diagnosis, the time): a
	 * record touches a few entries scattered over the tables, so each
	 * one's share is kept to the fewest cache lines. */
	struct agg_counts tot;
	uint64_t last_ns;
	struct agg_win *win;               /* the window's slots (agg_config.slots), after the entry */
	/* AGG_OP only: the window's latency percentiles.  First the latest
	 * totals with their slots, AGG_WRING at most (a row's window usually
	 * holds a few, and writing one is a line where a histogram is three);
	 * once more than that are in the window, one histogram per slot. */
	struct agg_wsample *wring;         /* AGG_WRING; the next at wring_n % AGG_WRING */
	uint64_t wring_n;                  /* totals written to wring */
	struct hist *wlat;                 /* NULL until wring overflows */
	struct phase_diag *diag[2];        /* AGG_OP only: AGG_DIAG_WIRE, AGG_DIAG_FUSED (agg_diag.c) */
	uint16_t credits_granted, credits_asked;  /* last seen (connections) */
	bool series;                       /* AGG_SERIES: prom is counted */
	/* bit p: phase p happened in an answered record of this entry
	 * (rec_phase_seen): a phase none had is absent, not 0 */
	uint32_t phase_seen;
	uint64_t credits_seq;              /* the engine's record count when credits_granted was set */
	/* AGG_SERIES: its client and server entries.  A record whose series
	 * entry is its own is counted there only; the snapshot adds each
	 * client's and server's series to what the entry holds itself (the
	 * records of the series "(other)"). */
	struct agg_ent *fold[2];
	struct hist lat;                   /* d_total since start */
	/* AGG_SERIES only (the Prometheus histogram is by series): per-bound
	 * counts (not cumulative); last = +Inf */
	uint64_t prom[AGG_PROM_NLE + 1];
	/* the rest is read when a key is new or at a snapshot */
	char key[AGG_KEY_MAX];
	/* SERIES: protocol, operation, client, server; OP: protocol, operation;
	 * other dims: [0] = key */
	char label[4][AGG_LABEL_MAX];
	uint8_t transport;                 /* OP, SERIES, CONN: enum rec_transport */
	uint32_t hash;
	struct agg_ent *next;
	size_t ord;                        /* place in its dimension's insertion order */
	/* AGG_CONN: the connection's id and QPs; its addresses in label[2..3] */
	uint32_t conn_id, qpn_client, qpn_server;
};

struct agg_config {
	unsigned max_keys[AGG_NDIM];  /* 0: defaults (op 256, others 1024, series 4096) */
	unsigned slots;               /* window slots (default 10, max AGG_SLOTS_MAX) */
	uint64_t slot_ns;             /* slot width (default 1 s) */
	unsigned slow_n;              /* slowest recent XIDs kept (default 20) */
	/* the slowest of the whole run, none expiring with the window: a
	 * file read flat out, whose run is known and ends */
	bool slow_whole_run;
};

#define AGG_SLOW_ALL_PHASES ((1u << PH_N) - 1)
struct agg_slow {
	uint64_t t_ns, total;
	uint64_t phase[PH_N];
	/* bit p: phase p happened (rec_phase_seen); a phase that did not is
	 * absent, not 0.  AGG_SLOW_ALL_PHASES from a daemon before 2.2,
	 * which did not say. */
	uint32_t phase_mask;
	uint32_t xid, conn;
	char op[AGG_LABEL_MAX], client[AGG_LABEL_MAX], server[AGG_LABEL_MAX];
};

/* Everything a view needs, computed at one instant (top, ctl protocol). */
struct agg_row {
	char key[AGG_KEY_MAX];
	struct agg_counts tot;
	double rate, bw, inflight;      /* window: records/s, bytes/s, mean RPCs in flight */
	uint64_t p50, p90, p99, p999, max;  /* since start, ns */
	uint64_t wp50, wp99;            /* window (operation rows only), ns */
	uint64_t phase_mean[PH_N];      /* ns */
	/* bit p: phase p happened in an answered record of the row; a phase
	 * whose bit is clear is absent (its mean 0 means "not seen").
	 * AGG_SLOW_ALL_PHASES from a daemon before 2.3, which did not say. */
	uint32_t phase_mask;
	uint32_t credits;
	/* operation rows: which phase holds the mean and the p99; diag_kind
	 * says whose phases (the fused ones when the row has any) */
	uint8_t diag_kind;              /* AGG_DIAG_NONE, AGG_DIAG_WIRE (enum rec_phase), AGG_DIAG_FUSED (enum rec_fphase) */
	struct phase_diag_result diag;
};
enum { AGG_DIAG_NONE, AGG_DIAG_WIRE, AGG_DIAG_FUSED };
/* agg_diag.c: the operation rows' diagnosis (src/stats/phase_diag.h) */
/* hidx: hist_index(HIST_RES, r->d_total); before the total goes into e->lat */
void agg_diag_add(struct agg_ent *e, const struct nfsrdma_record *r, unsigned hidx);
void agg_diag_row(const struct agg_ent *e, struct agg_row *row);
void agg_diag_free(struct agg_ent *e);
const char *agg_diag_phase(unsigned kind, unsigned ph);

struct agg_totals {
	struct agg_counts tot;
	uint64_t overflow[AGG_NDIM];    /* records folded into "(other)" */
	uint64_t findings_by_id[AGG_FINDINGS];
	/* filled in by the owner (agg_set_external): */
	uint64_t drops_queue, drops_source, source_events, source_errors, source_records;
};

/* A forward link of the daemon (nfsrdmad --forward / --collect), as the
 * daemon fills it into a snapshot for nfsrdma-top: counts only, the
 * aggregation engine knows nothing of links. */
#define AGG_LINKS_MAX 16
struct agg_link {
	char kind;                /* 'F' this daemon forwards to peer; 'C' it collects from peer */
	char peer[64];            /* the other side's address */
	char host[65];            /* the forwarder's host name */
	uint64_t records;         /* F: sent; C: received */
	uint64_t dropped;         /* F: dropped here; C: dropped by the forwarder, as it reports */
	uint64_t lost, malformed, refused;   /* C only */
};

struct agg_snap {
	uint64_t now_ns, start_ns;
	double win_s;
	double rate, bw;
	struct agg_totals t;
	size_t nrows[AGG_NDIM];
	struct agg_row *rows[AGG_NDIM];
	size_t nslow;
	struct agg_slow slow[AGG_SLOW_MAX];
	bool slow_whole_run;              /* slow[] covers the run, not the recent window */
	unsigned nlinks;
	struct agg_link links[AGG_LINKS_MAX];
	/* the kernel probes' cost (nfsrdmad with a kernel source): their run
	 * time and runs by the kernel's accounting, and the records they gave */
	bool has_probe_cost;
	uint64_t probe_run_ns, probe_runs, probe_records;
	/* RPCs in flight in the kernel probes' maps at the snapshot (nfsrdmad
	 * with a kernel source; docs/probes.md "RPCs in flight"): [0] client,
	 * [1] server, for the sides in inflight_sides (bit 0, bit 1) */
	unsigned inflight_sides;
	struct agg_inflight {
		uint64_t in_flight, oldest_ns, stalled, abandoned, stall_after_ns;
	} inflight[2];
};

struct agg;

struct agg *agg_new(const struct agg_config *c);
void agg_free(struct agg *a);
/* agg_config.slow_whole_run, for an owner that learns it after agg_new
 * (before the first record). */
void agg_set_slow_whole_run(struct agg *a, bool on);
/* now_ns is the clock the windows run on (wall clock for live sources,
 * record time when replaying a file flat out). */
void agg_add(struct agg *a, const struct nfsrdma_record *r, uint64_t now_ns);
void agg_set_external(struct agg *a, uint64_t drops_queue, uint64_t drops_source,
		      uint64_t source_events, uint64_t source_errors, uint64_t source_records);
const struct agg_totals *agg_totals(const struct agg *a);
/* Entries of one dimension, in insertion order ("(other)" last, if any). */
size_t agg_count(const struct agg *a, enum agg_dim d);
const struct agg_ent *agg_entry(const struct agg *a, enum agg_dim d, size_t i);
/* Fills s (rows malloc'ed); returns 0 or -ENOMEM.  now_ns 0 means the
 * record clock (files read flat out): now is the latest record's time.
 * Window rates, bandwidth and in-flight (Little's law) divide by win_s:
 * - record clock: the time the window's records span, from the earliest
 *   call (t_call_first) to the latest record time, cut at the start of
 *   the oldest live slot;
 * - wall clock: the configured window, or the time since the first
 *   record when the run is younger than that;
 * never less than one slot, never more than the configured window. */
int agg_snapshot(const struct agg *a, uint64_t now_ns, struct agg_snap *s);
void agg_snap_free(struct agg_snap *s);
/* Memory held by the engine, bytes (for the robustness test and stats). */
size_t agg_memory(const struct agg *a);

extern const char *const agg_dim_name[AGG_NDIM];   /* "op", "client", ... */
extern const char *const agg_mix_name[MIX_N];

#endif
