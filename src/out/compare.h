/* nfsrdma-dissect --compare A B: two captures side by side, per
 * operation (the -z proc key, rec_name_str): RPCs, p50 / p99 of the total
 * (the one histogram, src/stats/hist.h), call and reply payload bytes,
 * and the mean of each phase, which add up to the mean total.  An
 * operation seen on one side only keeps its row, the other side empty.
 *
 * Payload: the RPC message and its bulk data, without the transport's own
 * header: inline bytes minus the transport header (call_hdr / reply_hdr:
 * the RPC-over-RDMA header) plus the bytes RDMA READ and WRITE moved.
 *
 * Beside them, the transport's choices (struct cmp_xprt), which is where
 * two RPC-over-RDMA implementations serving one workload differ: chunk
 * mix, message types, inline sizes, credits, Reply chunk use; per
 * operation and per capture.  Only RPCs over RDMA count there: over
 * TCP or UDP there are no chunks, credits or inline threshold. */
#ifndef NFSRDMA_COMPARE_H
#define NFSRDMA_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/diag.h"
#include "dissect/record.h"
#include "src/stats/hist.h"

enum { CMP_A, CMP_B, CMP_SIDES };

/* RPCs by chunk mix, as the summaries' "chunks" (src/stats/agg.h): an
 * RPC counts in each kind it used; inline only when it used none. */
enum cmp_mix { CMP_MIX_INLINE, CMP_MIX_READ, CMP_MIX_WRITE, CMP_MIX_REPLY, CMP_MIX_P0, CMP_MIX_N };
/* RPC-over-RDMA message types (rdma_proc), and one for a value past them */
enum { CMP_PROC_N = 5, CMP_PROC_OTHER = CMP_PROC_N, CMP_PROC_SLOTS };
/* rdma_vers counted per value 0..2; the last slot holds any other */
enum { CMP_VERS_SLOTS = 4 };

/* A minimum and maximum over the RPCs that had the field (n). */
struct cmp_range {
	uint64_t n, min, max;
};

/* One direction's inline messages (SEND payload, header included). */
struct cmp_inline {
	uint64_t n, sum, max;
};

/* The transport's facts over some RPCs over RDMA. */
struct cmp_xprt {
	uint64_t rdma;                       /* RPCs over RDMA: the rest counts these */
	uint64_t mix[CMP_MIX_N];
	uint64_t call_proc[CMP_PROC_SLOTS];  /* calls seen, by message type */
	uint64_t reply_proc[CMP_PROC_SLOTS];
	struct cmp_inline call_inline, reply_inline;
	struct cmp_range credits_asked;      /* calls seen */
	struct cmp_range credits_granted;    /* replies seen */
	uint64_t reply_chunk_used;           /* replies that went (partly) in the Reply chunk */
	uint64_t reply_chunk_bytes;          /* bytes RDMA WRITE moved into it */
	/* per capture only: the largest inline message per direction (a
	 * lower bound on the receiver's inline threshold), and versions */
	uint64_t max_to_server, max_to_client;
	uint64_t vers[CMP_VERS_SLOTS];
};

/* One operation on one side. */
struct cmp_side {
	uint64_t rpcs;                 /* records */
	uint64_t timed;                /* of them with call and reply: in lat */
	uint64_t call_bytes, reply_bytes;
	uint64_t lat_sum;              /* ns, over the timed ones */
	uint64_t phase_sum[REC_PH_N];  /* ns, over the timed ones: add up to lat_sum */
	uint64_t phase_n[REC_PH_N];    /* timed records in which the phase happened */
	struct hist lat;
	struct cmp_xprt x;
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
	struct cmp_xprt all[CMP_SIDES];   /* every operation together */
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


extern const char *const cmp_mix_name[CMP_MIX_N];
extern const char *const cmp_proc_name[CMP_PROC_SLOTS];

/* The aligned table: per operation one row per metric, A, B and B/A. */
void compare_print(const struct compare *c, FILE *f);
/* The transport rows of one operation (compare_xprt.c), or of the
 * whole capture, in compare_print's columns (CMP_METRIC_W wide); kw the
 * key column's width. */
enum { CMP_METRIC_W = 18 };
void compare_print_xprt(FILE *f, int kw, const char *key, const struct cmp_xprt *a,
			const struct cmp_xprt *b, bool capture);
/* The JSON object of x (its "xprt" key), null without an RPC over RDMA,
 * into the line a JSON writer builds (src/base/json.h). */
struct jw;
void compare_json_xprt(struct jw *j, const struct cmp_xprt *x, bool capture);
/* The ratios (B/A) of the transport facts, each key after a comma. */
void compare_json_xprt_ratio(struct jw *j, const struct cmp_xprt *a, const struct cmp_xprt *b, bool capture);
/* --json: one {"type":"compare"} line per operation, then one
 * {"type":"compare_total"} (docs/record.md, "JSON Lines"). */
void compare_print_json(const struct compare *c, FILE *f);
/* --plot: an SVG with both sides' latency and phase split per operation;
 * 0 or a negative errno with one line in err. */
int compare_plot(const struct compare *c, const char *path, char *err, size_t errlen);

#endif
