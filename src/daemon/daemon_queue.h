/* Bounded record queue between the source threads (producers) and the
 * daemon's main thread (consumer).  Full queue: a lossy producer drops
 * the record and counts it; a lossless one (a capture file read flat out,
 * where "as fast as the consumer" is the only sensible pace) waits. */
#ifndef NFSRDMA_DAEMON_QUEUE_H
#define NFSRDMA_DAEMON_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/record.h"

struct rec_queue;

struct rec_queue *rec_queue_new(size_t cap);
void rec_queue_free(struct rec_queue *q);
/* Returns true if queued, false if dropped (lossy) or closed. */
bool rec_queue_push(struct rec_queue *q, const struct nfsrdma_record *r, bool lossless);
/* Queues n records under one lock and with at most one wakeup of the
 * consumer; returns how many were queued (the rest were dropped, lossy,
 * or the queue closed).  A lossless producer waits for room. */
size_t rec_queue_push_many(struct rec_queue *q, const struct nfsrdma_record *r, size_t n, bool lossless);
/* Moves up to max records into out; returns how many. Never blocks. */
size_t rec_queue_pop(struct rec_queue *q, struct nfsrdma_record *out, size_t max);
/* The single consumer's zero-copy pop: *first points at the oldest
 * records, contiguous in the ring (returns how many, never blocks); they
 * stay valid, and their slots unwritten by producers, until
 * rec_queue_release(q, n) hands n of them back. */
size_t rec_queue_peek(struct rec_queue *q, const struct nfsrdma_record **first);
void rec_queue_release(struct rec_queue *q, size_t n);
/* Wakes blocked producers for good (shutdown). */
void rec_queue_close(struct rec_queue *q);
/* Wakeups for the consumer: rec_queue_fd is readable once a record has
 * arrived in an empty queue (or after rec_queue_kick); rec_queue_ack clears
 * it, before the consumer drains.  -1 if eventfd failed: poll instead. */
int rec_queue_fd(const struct rec_queue *q);
void rec_queue_ack(struct rec_queue *q);
void rec_queue_kick(struct rec_queue *q);
uint64_t rec_queue_drops(struct rec_queue *q);
size_t rec_queue_len(struct rec_queue *q);
size_t rec_queue_cap(const struct rec_queue *q);

#endif
