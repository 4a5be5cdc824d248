/* Entry points of the replay engine (src/replay/replay_*.c) and the
 * load generator (loadgen.c), with their options. */
#ifndef NFSRDMA_REPLAY_REPLAY_H
#define NFSRDMA_REPLAY_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/base/exit.h"

/* ---- replay (replay_run.c) ---- */
struct replay_opts {
	const char *trace;
	const char *target;
	const char *export_path;  /* MOUNT path on the target (default: from the trace, else /export) */
	const char *transport;    /* "rdma" (default) or "tcp" */
	uint16_t port;
	double speed;             /* 1 recorded, 2 twice as fast, 0 as fast as credits allow */
	bool realtime;            /* SCHED_FIFO and locked memory while replaying (replay_rt.c) */
	uint32_t max_inflight;    /* 0: as recorded */
	bool allow_mutations;
	bool same_tree;           /* handles not resolvable by path are sent unchanged */
	bool json;
	bool per_call;            /* --per-call: one line per replayed call */
	uint32_t slots;
	unsigned reconnect_ms;
	bool busy_poll;
	uint32_t moderate_us;     /* as xprt_opts.moderate_us */
	bool dry_run;             /* print what would be sent; no network */
	bool delegations;         /* NFSv4.1+: serve the back channel, take delegations */
	/* Fault injection: once the reply to the trace call with this XID is
	 * in, drop the connection and go on over a new one. */
	bool disconnect;
	uint32_t disconnect_xid;
	uint64_t max_idle_ns;     /* idle stretches of the trace cut to this (0: as recorded) */
	/* --clients N: N groups replay the whole capture at once, group G
	 * (1..N) rooted at the export's directory replay-gG */
	uint32_t clients;
	uint32_t group;                   /* set per group by replay_groups.c */
	/* replay_groups.c: only say whether the capture changes state
	 * (REPLAY_MUTATES) or not (0); nothing is sent */
	bool probe_mutates;
	struct replay_group_result *result;   /* where a group leaves its totals */
};

/* A group's totals (replay_groups.c), in memory its parent shares. */
struct replay_group_result {
	int rc;
	uint64_t trace, replayed, ok, mismatch, errors, unsupported, lost;
	double secs;
	bool made_dir;      /* the group made its directory on the target */
};
/* Returns 0 all replayed calls answered with the recorded status; 1
 * mismatches or errors, or a set-up failure (a trace that cannot be read,
 * a target that cannot be reached: could not do the job, 1 in every
 * nfsrdma tool); 2 calls lost in flight; 3 nothing to replay (found
 * nothing, as in every tool); 4 refused (mutations without
 * --allow-mutations).  The tool exits with replay_exit_status() of it. */
#define REPLAY_MUTATES 64      /* the probe's answer, never an exit status */
int replay_run(const struct replay_opts *o, FILE *out);
/* The tool's exit status (nfsrdma-replay(1), EXIT STATUS): bad usage is 2
 * in every nfsrdma tool, so calls lost in flight (replay_run's 2) are 5;
 * every other code is its own status.  Idempotent. */
#define REPLAY_EXIT_FAILED EXIT_FAILED
#define REPLAY_EXIT_USAGE EXIT_USAGE
#define REPLAY_EXIT_NOTHING EXIT_NOTHING_FOUND
#define REPLAY_EXIT_LOST 5
int replay_exit_status(int run_rc);
/* --clients N: N processes, one per group, each a replay_run(); the
 * groups' reports and their total.  Returns the worst exit status. */
int replay_groups_run(const struct replay_opts *o, FILE *out);

/* ---- load generation (loadgen.c) ---- */
enum lg_op { LG_NULL, LG_GETATTR, LG_READ, LG_WRITE, LG_MIX, LG_READDIRPLUS };
struct loadgen_opts {
	const char *target;
	const char *export_path;
	const char *transport;
	uint16_t port;
	enum lg_op op;
	uint32_t read_pct;        /* LG_MIX: share of READs (rest WRITE) */
	uint32_t size;            /* READ/WRITE transfer size */
	uint32_t sizes[16];       /* sweep */
	unsigned nsizes;
	uint32_t qd;
	double duration;          /* seconds (0: use count) */
	uint64_t count;
	double warmup;            /* seconds */
	const char *file;         /* name in the export (READ/WRITE) */
	uint64_t file_size;
	bool allow_mutations;
	bool json;
	const char *svg;
	bool busy_poll;
	uint32_t moderate_us;     /* as xprt_opts.moderate_us */
	uint32_t vers;            /* 3 (default) or 4 */
	uint32_t minor;           /* NFSv4 minor version (1 or 2) */
};
int loadgen_run(const struct loadgen_opts *o, FILE *out);

#endif
