/* The message a forwarding nfsrdmad sends its collector: one record, who
 * sent it and the sender's clocks at send time.  Little-endian throughout:
 *
 *   "NRFW"  u8 msg version (FWD_MSG_VERSION)  u8 vantage (enum rec_source)
 *   u16 record version  u16 fixed length  u8 findings  u8 ops  u8 host length
 *   u8 kind (FWD_KIND_*)  u8 pad[2]  u64 session  u64 seq  u64 dropped  u64 CLOCK_REALTIME ns
 *   u64 CLOCK_MONOTONIC ns
 *   host name (host length bytes, no NUL)
 *   the record's fixed part (offsetof(struct nfsrdma_record, finding) bytes,
 *   its own in-memory form), then `findings` rec_finding, then `ops` rec_op,
 *   then (msg version 2 on) its vantage part: the record from `vantages` up
 *   to the fused split (FWD_REC_VT_LEN bytes: each vantage's timestamps)
 *
 * The record crosses as the struct it is (the same fixed-size schema the
 * BPF side mirrors), cut after the findings and ops it uses: compact and
 * with nothing to keep in step but the record version.  The fused split
 * after the vantage part never crosses: the collector's join derives it.
 * (Version 1 stopped at the ops, so a collector fused forwarded probe
 * records without their task-begin and Send-post times.)  A collector takes
 * only its own record version; a mismatch is a refused message, counted.
 * A forwarder that stops sends a last message of kind END: header and
 * host, no record, seq = how many it sent, so the collector can count
 * what was still in flight as lost.
 * Every 5 s a live forwarder sends its host's clock line (kind CLOCK):
 * header and host, then the {"type":"clock"} JSON line itself (fixed
 * length = its length, 1 .. FWD_CLOCK_MAX, printable ASCII, no newline),
 * vantage 0, no findings or ops; seq = records sent so far (it takes no
 * number).  A collector of before this kind refuses it (counted as
 * malformed) and goes on. */
#ifndef NFSRDMA_FWD_MSG_H
#define NFSRDMA_FWD_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"

#define FWD_MSG_VERSION 2
#define FWD_HOST_MAX    64
#define FWD_HDR_LEN     56
#define FWD_REC_FIXED   offsetof(struct nfsrdma_record, finding)
#define FWD_REC_VT_OFF  offsetof(struct nfsrdma_record, vantages)
#define FWD_REC_VT_LEN  (offsetof(struct nfsrdma_record, f_phase) - FWD_REC_VT_OFF)
#define FWD_MSG_MAX     (FWD_HDR_LEN + FWD_HOST_MAX + sizeof(struct nfsrdma_record))

#define FWD_CLOCK_MAX   1024

enum fwd_kind { FWD_KIND_RECORD = 0, FWD_KIND_END = 1, FWD_KIND_CLOCK = 2 };

struct fwd_meta {
	uint8_t  kind;                   /* enum fwd_kind */
	char     host[FWD_HOST_MAX + 1]; /* sender's host name, NUL-terminated */
	uint8_t  vantage;                /* enum rec_source of the record */
	uint64_t session;                /* random per forwarder run: a restart is a new sequence */
	uint64_t seq;                    /* messages this session queued before this one */
	uint64_t dropped;                /* records the sender's full queue dropped so far */
	uint64_t realtime_ns, mono_ns;   /* sender's clocks when it queued the message */
	const char *clock;               /* kind CLOCK: the line, in the decoded buffer */
	size_t clock_len;
};

/* Writes the message into buf (at least FWD_MSG_MAX bytes); returns its length. */
size_t fwd_msg_encode(uint8_t *buf, const struct fwd_meta *m, const struct nfsrdma_record *r);

/* The END message (fixed length 0, no record); m->seq = records sent. */
size_t fwd_msg_encode_end(uint8_t *buf, const struct fwd_meta *m);

/* A CLOCK message carrying line (len bytes, its newline not included);
 * 0 when len is 0 or above FWD_CLOCK_MAX. */
size_t fwd_msg_encode_clock(uint8_t *buf, const struct fwd_meta *m, const char *line, size_t len);

/* Why a message was refused (fwd_msg_decode's negative return). */
enum fwd_msg_err {
	FWD_ERR_SHORT = 1,   /* shorter than its header or than the lengths it states */
	FWD_ERR_MAGIC,       /* not a forwarded record */
	FWD_ERR_VERSION,     /* message or record version this collector does not read */
	FWD_ERR_FIELD,       /* a count or name out of its bounds */
	FWD_ERR_N
};
const char *fwd_msg_err_name(int neg_err);

/* Bounded decode of a hostile message: 0 and *m, *r filled (the record's
 * derived phases recomputed here, never taken from the sender; an END
 * message fills *m only, m->kind saying so), or
 * -enum fwd_msg_err with *off the byte offset where it went wrong. */
int fwd_msg_decode(const uint8_t *buf, size_t len, struct fwd_meta *m, struct nfsrdma_record *r,
		   size_t *off);

#endif
