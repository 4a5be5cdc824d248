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
/* A phase (rec_phase) or the total: "-" when it did not happen (or the
 * total is unknown), "0ns" when it took no time. */
const char *rec_phase_str(const struct nfsrdma_record *r, unsigned ph, char *buf, size_t len);
const char *rec_total_str(const struct nfsrdma_record *r, char *buf, size_t len);
/* The phases a record's line shows, in time order: call, then queue, pull
 * and server when the arguments were pulled, else queue+server, then push,
 * wait and reply.  Returns how many were written to ph (<= REC_PH_N). */
unsigned rec_phases_shown(const struct nfsrdma_record *r, unsigned ph[REC_PH_N]);
/* "2024-05-01 12:00:00.123456" (UTC) */
const char *fmt_ts(uint64_t ns, char *buf, size_t len);
/* Chunk mix class: "inline", "read", "write", "reply", "p0", combos joined by '+' */
const char *rec_chunk_mix(const struct nfsrdma_record *r, char *buf, size_t len);

#endif
