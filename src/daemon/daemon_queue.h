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
/* A producer's reservation: slots it fills in place, without the lock,
 * then commits.  Each producer holds at most one at a time. */
struct rec_resv {
	struct nfsrdma_record *slot;   /* n contiguous slots of the ring */
	size_t start, n;
	bool lossless;
};
/* Reserves up to want (>= 1) contiguous free slots; returns how many (at
 * least one), or 0 when a lossy producer finds the queue full (that one
 * record is counted as dropped) or the queue is closed.  A lossless
 * producer waits for room.  The consumer reads records in slot order, so
 * a reservation held long delays every later producer's records. */
size_t rec_queue_reserve(struct rec_queue *q, size_t want, bool lossless, struct rec_resv *rv);
/* Publishes the first used slots of rv (used <= rv->n) to the consumer;
 * the rest go back to the queue.  Wakes the consumer as push_many does. */
void rec_queue_commit(struct rec_queue *q, struct rec_resv *rv, size_t used);
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
