/* The join's insides, shared by join.c and join_report.c only. */
#ifndef NFSRDMA_JOIN_INT_H
#define NFSRDMA_JOIN_INT_H

#include "src/join/clock_claim.h"
#include "src/join/fuse.h"
#include "src/join/join.h"

/* XIDs in a row off by the same shift before a step past the match
 * window is believed (join.c) */
#define JOIN_STEP_CONFIRM 4

struct jent {
	uint32_t xid;
	uint8_t  have;            /* vantage bits present */
	uint8_t  host[JV_N];
	uint8_t  anchor_host;     /* the first record's host and time: the window */
	uint32_t fflags;          /* RECFF_* found while joining */
	uint32_t hnext;           /* hash chain / free list (index + 1; 0 ends) */
	uint32_t fprev, fnext;    /* arrival order */
	uint64_t anchor_t;
	struct nfsrdma_record rec[JV_N];
};

struct join {
	struct join_opts o;
	join_emit_fn emit;
	void *ctx;
	struct jent *ent;
	size_t nent, cap;
	uint32_t free_head, fifo_head, fifo_tail;
	uint32_t *bucket;
	size_t nbucket;
	uint64_t host_now[JOIN_MAX_HOSTS];   /* newest own-clock time per host */
	uint32_t host_back[JOIN_MAX_HOSTS];  /* records in a row far behind it (a step back) */
	uint64_t trailing[JV_N];
	struct clock_sync *pair[JOIN_MAX_HOSTS * JOIN_MAX_HOSTS];  /* [a][b], a < b */
	/* [waiting host][arriving host]: XIDs that matched but for the
	 * clocks, all off by about the same shift: a step past the window.
	 * split[]: the entries each of them left apart (the waiting one, the
	 * one the arriving record started), joined once the step is believed */
	struct {
		int64_t shift;
		uint32_t n;
		struct { uint32_t waiting, arrived, xid; } split[JOIN_STEP_CONFIRM];
	} stepc[JOIN_MAX_HOSTS * JOIN_MAX_HOSTS];
	struct claims *claims;   /* hosts' clock lines; NULL until one comes */
	struct join_stats st;
	struct nfsrdma_record out;
};

#endif
