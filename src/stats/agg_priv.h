/* The aggregation engine's state, shared by its add path (agg.c) and
 * its readers (agg_snap.c); nothing outside src/stats/agg*.c includes it. */
#ifndef NFSRDMA_AGG_PRIV_H
#define NFSRDMA_AGG_PRIV_H

#include "src/stats/agg.h"
#include "src/stats/agg_key.h"

#define NBUCKETS 1024   /* hash chains per dimension */
#define OTHER_KEY "(other)"

struct table {
	struct agg_ent *bucket[NBUCKETS];   /* by key string */
	struct agg_ent **order;   /* insertion order */
	size_t n, cap, max;
	struct agg_ent *other;
	/* numeric key -> entry: the hot path.  Several numeric keys may name
	 * one entry (two NFSv4 minor versions of NULL are both "NFSv4 NULL");
	 * keys folded into "(other)" map to it too. */
	struct agg_map *fast;
};

/* A slow RPC as kept on the hot path: numbers, formatted at snapshot. */
struct slow_rec {
	uint64_t t_ns, total;
	uint64_t phase[PH_N];
	uint32_t phase_mask;     /* the record's: which phases happened */
	uint32_t xid, conn;
	struct agg_op_id op;
	struct agg_ep_id client, server;
};

enum { RT_OPS, RT_CONN, RT_N };   /* the two route caches (agg.c) */
struct route;

struct agg {
	struct agg_config cfg;
	struct table t[AGG_NDIM];
	struct route *route[RT_N];   /* ROUTES each, allocated at the first record */
	struct agg_totals tot;
	uint64_t start_ns, now_ns;
	struct agg_win win[AGG_SLOTS_MAX];
	/* per window slot: the earliest call and latest clock time of its
	 * records, so a record-clock window is the time its records span */
	struct { uint64_t slot, first, last; } span[AGG_SLOTS_MAX];
	unsigned nslow;
	struct slow_rec slow[AGG_SLOW_MAX];
	/* once the list is full: the first fastest entry, the oldest time
	 * of the live entries and the expired ones (bit i: slow[i]), so most
	 * records are turned away without a scan (agg.c, slow_add) */
	unsigned slow_min;
	uint64_t slow_exp;
	/* bit d: an entry's numeric key in dimension d was refused by the
	 * full map, so a new numeric key may name an entry after all and
	 * takes the string lookup (agg.c, find) */
	uint8_t alias_lost;
	/* a connection entry's string came from a record whose numeric key
	 * does not decide it (agg.c, conn_key_decides) */
	bool conn_undecided;
	uint64_t slow_oldest;
	/* by a latency's power of two: the first Prometheus bucket it may
	 * fall in (agg.c, prom_bucket) */
	uint8_t prom_start[64];
	size_t mem;
	/* where the entries, the key maps and the route caches live: one
	 * region of 2 MB pages (agg_zalloc) */
	char *region;
	size_t region_used, region_size;
	struct hist_mem hmem;   /* the entries' histograms' chunks, from the region too */
};

/* agg.c: the Prometheus bucket table by power of two (agg_new.c calls
 * it once); agg_new.c: an entry freed, with what it holds */
/* agg_prom_le in nanoseconds, so the bucket search compares integers
 * (agg.c's prom_bucket; agg_new.c's first bucket of each power of two) */
static const uint64_t prom_le_ns[AGG_PROM_NLE] = {
	10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000,
	5000000, 10000000, 25000000, 50000000, 100000000, 250000000, 1000000000, 10000000000,
};
void agg_ent_free(struct agg *a, struct agg_ent *e);
/* agg_new.c: size bytes, zeroed, on a cache line: from the engine's
 * region while it lasts, then from malloc; NULL when out of memory.
 * agg_release gives back what came from malloc (and ignores the rest,
 * which goes with the engine). */
void *agg_zalloc(struct agg *a, size_t size);

#endif
