/* nfsrdma-dissect --compare A B: two captures side by side, per
 * operation (the -z proc key, rec_name_str): RPCs, p50 / p99 of the total
 * (the one histogram, src/stats/hist.h), call and reply payload bytes,
 * and the mean of each phase, which add up to the mean total.  An
 * operation seen on one side only keeps its row, the other side empty.
 *
 * Payload: the RPC message and its bulk data, without the transport's own
 * header: inline bytes minus the transport header (call_hdr / reply_hdr:
 * the RPC-over-RDMA header) plus the bytes RDMA READ and WRITE moved. */
#ifndef NFSRDMA_COMPARE_H
#define NFSRDMA_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/diag.h"
#include "dissect/record.h"
#include "src/stats/hist.h"

enum { CMP_A, CMP_B, CMP_SIDES };

/* One operation on one side. */
struct cmp_side {
	uint64_t rpcs;                 /* records */
	uint64_t timed;                /* of them with call and reply: in lat */
	uint64_t call_bytes, reply_bytes;
	uint64_t lat_sum;              /* ns, over the timed ones */
	uint64_t phase_sum[REC_PH_N];  /* ns, over the timed ones: add up to lat_sum */
	uint64_t phase_n[REC_PH_N];    /* timed records in which the phase happened */
	struct hist lat;
};

struct cmp_op {
	char key[96];
	struct cmp_side side[CMP_SIDES];
};

struct compare {
	const char *file[CMP_SIDES];
	struct cmp_op **op;
	size_t n, cap;
	uint64_t rpcs[CMP_SIDES];
};

/* NULL when out of memory.  The file names are kept, not copied. */
struct compare *compare_new(const char *file_a, const char *file_b);
void compare_free(struct compare *c);
/* -ENOMEM, else 0. */
int compare_add(struct compare *c, int side, const struct nfsrdma_record *r);
/* The operations sorted by name (compare_add after this is fine). */
void compare_sort(struct compare *c);

/* How compare_read reads a capture: which records to keep (the tool's
 * filters; NULL keeps all) and where its diagnostics go. */
struct compare_how {
	bool (*keep)(const struct nfsrdma_record *r, void *ctx);
	void (*diag)(const struct diag *g, void *ctx);
	void *ctx;
};
/* Reads capture file (a path, or "-" for stdin) into side.  Returns 0, or
 * the tool's exit status after one line on stderr: 1 (unreadable, out of
 * memory), 2 (unsupported link type).  A capture with no RPC, or none
 * kept, is said so on stderr (as a lone capture would be) and sets
 * *nothing. */
int compare_read(struct compare *c, int side, const char *file, const struct compare_how *how,
		 bool *nothing);


/* The aligned table: per operation one row per metric, A, B and B/A. */
void compare_print(const struct compare *c, FILE *f);
/* --json: one {"type":"compare"} line per operation, then one
 * {"type":"compare_total"} (docs/record.md, "JSON Lines"). */
void compare_print_json(const struct compare *c, FILE *f);
/* --plot: an SVG with both sides' latency and phase split per operation;
 * 0 or a negative errno with one line in err. */
int compare_plot(const struct compare *c, const char *path, char *err, size_t errlen);

#endif
