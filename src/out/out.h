/* Record outputs.  Each writes whole lines to a FILE and keeps no state
 * beyond what it says. */
#ifndef NFSRDMA_OUT_H
#define NFSRDMA_OUT_H

#include <stdio.h>

#include "dissect/dissect.h"
#include "dissect/dtree.h"
#include "dissect/record.h"

/* One line per RPC, tcpdump -n style, UTC. */
void out_line(FILE *f, const struct nfsrdma_record *r);
/* -V: the line, then the decode tree indented under it. */
void out_tree(FILE *f, const struct nfsrdma_record *r, const struct dtree *t);
/* A JSON string (docs/record.md, "Names"): valid UTF-8 kept, quotes,
 * backslashes and controls (C0, DEL, C1) escaped, any other byte as
 * \udcXX; at most max bytes of s (stops at NUL).  The one escaper every
 * tool's --json output uses. */
void out_json_strn(FILE *f, const char *s, size_t max);
static inline void out_json_str(FILE *f, const char *s) { out_json_strn(f, s, (size_t)-1); }
/* The op rows of a snapshot as a JSON array's items (nfsrdmad's summary). */
struct agg_snap;
struct jw;
void out_agg_ops_json(struct jw *j, const struct agg_snap *s);
/* A group's verdict_sum (src/stats/verdict_sum.h) as JSON members, each
 * with its leading comma: "verdict" {"place":[..],"share":0.834} or null,
 * "places" (every place-set's summed ns, largest first),
 * "places_overflow" {"shares","ns"}, "seg" (each segment's sum_ns, rpcs
 * and mean_ns, or null).  The one form of -z, nfsrdma-top and nfsrdmad. */
struct verdict_sum;
struct jw;
void out_jw_verdict_sum(struct jw *j, const struct verdict_sum *v);
/* JSON Lines: one object per record. */
void out_json(FILE *f, const struct nfsrdma_record *r);
/* The CSV convention of a string from the wire, into buf (len bytes,
 * NUL-terminated, cut only between whole escapes; 6 * max + 1 always
 * suffice): JSON's escapes but for '"', which the cell's RFC 4180
 * quoting doubles.  The one escaper of --csv and --fields. */
const char *out_csv_esc(const char *s, size_t max, char *buf, size_t len);
/* A text line's name: "NAME" in the text convention (dissect/name_text.h),
 * then "..." when the record's name was cut (RECF_NAME_CUT). */
void out_text_name(FILE *f, const char *name, size_t max, bool cut);
/* CSV: header once, then one row per record. */
void out_csv_header(FILE *f);
void out_csv(FILE *f, const struct nfsrdma_record *r);
/* CSV of joined records (--join): fused phases instead of the wire's. */
void out_csv_header_fused(FILE *f);
void out_csv_fused(FILE *f, const struct nfsrdma_record *r);
/* --check: one line per finding. */
void out_finding(FILE *f, const struct dissect_finding *fd);
/* --check --json: the same finding as a JSON object {"type":"finding"...}. */
void out_finding_json(FILE *f, const struct dissect_finding *fd);
/* --check --json: the closing line {"type":"check","findings":N,"rpcs":N}. */
void out_check_json(FILE *f, unsigned long long findings, unsigned long long rpcs);

/* -z summaries */
/* Rows of RPCs over TCP or UDP carry the transport after their key
 * ("NFSv3 READ tcp"); SUM_TRANSPORT has one row per transport. */
enum summary_kind { SUM_PROC = 1, SUM_CONN, SUM_CLIENT, SUM_TRANSPORT };
#define SUM_KINDS 4
struct summary;
struct summary *summary_new(enum summary_kind kind);
void summary_add(struct summary *s, const struct nfsrdma_record *r);
void summary_print(const struct summary *s, FILE *f);
/* --json: one {"type":"summary"} object per row, then {"type":"summary_total"}. */
void summary_print_json(const struct summary *s, FILE *f);
void summary_free(struct summary *s);

#endif
