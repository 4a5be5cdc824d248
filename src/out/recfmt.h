/* Formatting helpers shared by the record outputs (line, JSON, CSV,
 * tree, summaries): statuses, op lists, durations, phases, times, chunk
 * mixes.  The record's names come from dissect/record_names.h. */
#ifndef NFSRDMA_RECFMT_H
#define NFSRDMA_RECFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/record.h"
#include "dissect/record_names.h"

/* "OK", "NOENT", "no reply", "PROG_UNAVAIL", "RDMA_ERROR ERR_CHUNK" ... */
const char *rec_status_str(const struct nfsrdma_record *r, char *buf, size_t len);
/* NFSv4 op list "SEQUENCE,PUTFH,READ" (empty for other programs) */
const char *rec_ops_str(const struct nfsrdma_record *r, char *buf, size_t len);
/* "1.234ms", "56us", "2.5s", "-" for 0 */
const char *fmt_dur(uint64_t ns, char *buf, size_t len);
/* The phases a record's line shows, in time order: call, then queue, pull
 * and server when the arguments were pulled, else queue+server, then push,
 * wait and reply.  Returns how many were written to ph (<= REC_PH_N). */
unsigned rec_phases_shown(const struct nfsrdma_record *r, unsigned ph[REC_PH_N]);
/* The durations a text line prints for a total split into n spans (0 for a
 * span that did not happen): every boundary, the running sum of the spans
 * from the start, is rounded to the line's unit (the total's: 1 ns under
 * 1 us, 1 us under 1 s, else 1 ms), and a span printed as the difference
 * of its two rounded boundaries.  So the printed spans add up to the
 * printed total at any capture resolution: cut one by one, 1-5 us went
 * missing on a line of nanosecond times.  out[] takes the n spans;
 * returns the total as printed. */
uint64_t dur_split(uint64_t total, const uint64_t *span, unsigned n, uint64_t *out);
/* The same rounded to a unit of the caller's (nfsrdma-top's shorter forms). */
uint64_t dur_split_unit(uint64_t unit, uint64_t total, const uint64_t *span, unsigned n, uint64_t *out);
/* A record's shown phases (rec_phases_shown) as dur_split prints them:
 * out[i] for ph[i]; returns the total as printed. */
uint64_t rec_phases_printed(const struct nfsrdma_record *r, const unsigned *ph, unsigned nph, uint64_t *out);
/* A duration already rounded by dur_split: "0ns" for 0, else fmt_dur's. */
const char *fmt_dur0(uint64_t ns, char *buf, size_t len);
/* "2024-05-01 12:00:00.123456" (UTC) */
const char *fmt_ts(uint64_t ns, char *buf, size_t len);
/* "12:00:00.123456" (UTC): the time of day a text line starts with */
const char *fmt_tod(uint64_t ns, char *buf, size_t len);
/* Chunk mix class: "inline", "read", "write", "reply", "p0", combos joined by '+' */
const char *rec_chunk_mix(const struct nfsrdma_record *r, char *buf, size_t len);

#endif
