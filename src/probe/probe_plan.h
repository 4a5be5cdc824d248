/* Which tracepoints the kernel probes can use on the running kernel, read
 * from its tracefs format files before anything is loaded: the field table
 * each BPF program gets (bpf/probe.h), the events that are unavailable,
 * and one line per missing event or field naming what the records lose.
 * The per-kernel history behind the messages is in docs/probes.md. */
#ifndef NFSRDMA_PROBE_PLAN_H
#define NFSRDMA_PROBE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/probe.h"

enum probe_fkind { PFK_INT, PFK_STR };   /* PFK_STR: any __data_loc field */

/* A field a program reads: its slot in probe_fld, its name in the format
 * file and its shape.  An optional field reads as 0 when absent; lost says
 * what the records lack then (NULL: nothing, another field stands in). */
struct probe_tp_field {
	int               id;
	const char       *name;
	enum probe_fkind  kind;
	bool              optional;
	const char       *since;   /* first kernel with it (NULL: every one from 5.4) */
	const char       *lost;
};

#define PROBE_TP_FIELDS 10
struct probe_tp {
	const char *sys, *event;
	unsigned    side;        /* PROBE_WANT_CLIENT / _SERVER (probe_load.h) */
	const char *prog;        /* BPF program name */
	bool        essential;   /* the side cannot emit records without it */
	const char *since;       /* first kernel with the event (NULL: every one from 5.4) */
	const char *without;     /* what is lost without it */
	const char *older;       /* on kernels before since, if that differs from without */
	struct probe_tp_field f[PROBE_TP_FIELDS];
};

extern const struct probe_tp probe_tps[];
extern const size_t probe_ntps;

struct probe_plan {
	struct probe_fld cfld[PFLD_MAX], sfld[PFLD_MAX];  /* client, server tables */
	unsigned unavailable;    /* bit i = probe_tps[i] */
	char     unavail[1024];  /* "sys:event,..." */
	char     notes[4096];    /* every line logged, '\n' after each (for tests) */
	/* probe_plan_build_held: each line's level digit, the line, '\n';
	 * logged by probe_plan_say once the caller knows what they lead to */
	bool     hold;
	char     held[4096];
};

/* Reads ROOT/events/SYS/EVENT/format of each event of the wanted sides
 * (skip: "sys:event,..." or bare event names treated as unavailable) and
 * logs one warning per missing event or field that costs the records
 * something. */
void probe_plan_build(struct probe_plan *pl, const char *root, unsigned want, const char *skip);
/* The same, its lines held until probe_plan_say: ten warnings, one per
 * absent tracepoint, before the one error that nothing can be attached
 * bury it; then they are -v's detail (fatal: warnings said at info). */
void probe_plan_build_held(struct probe_plan *pl, const char *root, unsigned want, const char *skip);
void probe_plan_say(struct probe_plan *pl, bool fatal);
/* Marks event i unavailable after the fact (attach failed), with a line. */
void probe_plan_drop(struct probe_plan *pl, size_t i, const char *why);
bool probe_plan_has(const struct probe_plan *pl, const char *event);

#endif
