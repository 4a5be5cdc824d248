/* Bounded record queue (see daemon_queue.h): a ring under one mutex.
 * Producers hand in batches (the records of one source_poll), so the lock
 * is taken and the consumer woken once per batch, not per record: per
 * record, the lock hand-offs and eventfd wakeups between a source thread
 * and the main thread cost more CPU than the aggregation itself. */
#include "src/daemon/daemon_queue.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct rec_queue {
	pthread_mutex_t mu;
	pthread_cond_t space;
	struct nfsrdma_record *ring;
	size_t cap, head, len;
	uint64_t drops;
	bool closed;
	bool quiet;         /* emptied by the consumer since the last wakeup */
	unsigned waiting;   /* lossless producers waiting for room */
	int efd;   /* readable while records wait (-1: none, the consumer polls) */
};

struct rec_queue *rec_queue_new(size_t cap)
{
	struct rec_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	if (cap < 1)
		cap = 1;
	q->ring = calloc(cap, sizeof(*q->ring));
	if (!q->ring) {
		free(q);
		return NULL;
	}
	q->cap = cap;
	q->quiet = true;
	q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->space, NULL);
	return q;
}

void rec_queue_free(struct rec_queue *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->space);
	if (q->efd >= 0)
		close(q->efd);
	free(q->ring);
	free(q);
}

void rec_queue_kick(struct rec_queue *q)
{
	uint64_t one = 1;

	if (q->efd >= 0 && write(q->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is at its maximum, so it is readable anyway */
	}
}

void rec_queue_ack(struct rec_queue *q)
{
	uint64_t v;

	if (q->efd >= 0 && read(q->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing was signalled */
	}
}

int rec_queue_fd(const struct rec_queue *q)
{
	return q->efd;
}

/* Room a waiting lossless producer asks for before it is woken: a
 * quarter of the queue (or its whole batch, if smaller), so it wakes once
 * per many records rather than once per consumer pop. */
static size_t room_wanted(const struct rec_queue *q, size_t left)
{
	size_t quarter = q->cap / 4 ? q->cap / 4 : 1;

	return left < quarter ? left : quarter;
}

/* Records a lossless producer queues before it wakes the consumer: the
 * consumer wakes once per that many rather than once per batch (a wakeup
 * is two context switches and an eventfd write and read), and the
 * records are still in cache when it reads them.  Only a file read flat
 * out is lossless, so nothing waits on these records but the aggregation;
 * the producer wakes the consumer anyway before it sleeps and when its
 * source ends (rec_queue_kick). */
#define KICK_LOSSLESS 512

static size_t kick_at(const struct rec_queue *q, bool lossless)
{
	size_t half = q->cap / 2 ? q->cap / 2 : 1;

	if (!lossless)
		return 1;
	return half < KICK_LOSSLESS ? half : KICK_LOSSLESS;
}

size_t rec_queue_push_many(struct rec_queue *q, const struct nfsrdma_record *r, size_t n, bool lossless)
{
	size_t done = 0;
	bool kick = false;

	pthread_mutex_lock(&q->mu);
	while (done < n && !q->closed) {
		if (lossless && q->cap - q->len < room_wanted(q, n - done)) {
			if (kick || (q->quiet && q->len)) {
				/* the consumer must hear of what we queued before we sleep */
				q->quiet = false;
				pthread_mutex_unlock(&q->mu);
				rec_queue_kick(q);
				kick = false;
				pthread_mutex_lock(&q->mu);
				continue;
			}
			q->waiting++;
			pthread_cond_wait(&q->space, &q->mu);
			q->waiting--;
			continue;
		}
		size_t room = q->cap - q->len, k = n - done < room ? n - done : room;
		if (!k) {
			q->drops += n - done;   /* lossy and full */
			break;
		}
		/* Only the records that end a quiet spell wake the consumer: it
		 * clears the signal before it drains, and drains until empty. */
		if (q->quiet && q->len + k >= kick_at(q, lossless)) {
			q->quiet = false;
			kick = true;
		}
		/* at most two runs: up to the ring's end, then from its start */
		size_t tail = (q->head + q->len) % q->cap, run = q->cap - tail < k ? q->cap - tail : k;
		memcpy(&q->ring[tail], &r[done], run * sizeof(*r));
		if (k > run)
			memcpy(&q->ring[0], &r[done + run], (k - run) * sizeof(*r));
		q->len += k;
		done += k;
	}
	pthread_mutex_unlock(&q->mu);
	if (kick)
		rec_queue_kick(q);
	return done;
}

bool rec_queue_push(struct rec_queue *q, const struct nfsrdma_record *r, bool lossless)
{
	return rec_queue_push_many(q, r, 1, lossless) == 1;
}

size_t rec_queue_pop(struct rec_queue *q, struct nfsrdma_record *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&q->mu);
	while (n < max && q->len) {
		memcpy(&out[n++], &q->ring[q->head], sizeof(*out));
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
	if (!q->len)
		q->quiet = true;
	if (n && q->waiting && (q->cap - q->len >= room_wanted(q, q->cap) || !q->len))
		pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t rec_queue_peek(struct rec_queue *q, const struct nfsrdma_record **first)
{
	pthread_mutex_lock(&q->mu);
	size_t n = q->cap - q->head < q->len ? q->cap - q->head : q->len;
	*first = &q->ring[q->head];
	pthread_mutex_unlock(&q->mu);
	return n;
}

void rec_queue_release(struct rec_queue *q, size_t n)
{
	pthread_mutex_lock(&q->mu);
	if (n > q->len)
		n = q->len;
	q->head = (q->head + n) % q->cap;
	q->len -= n;
	/* An empty ring starts again at its first slot: a consumer that keeps
	 * up then reuses the same few slots, still in cache, instead of
	 * walking the whole ring (8192 records, 10 MB) through memory. */
	if (!q->len) {
		q->head = 0;
		q->quiet = true;
	}
	if (n && q->waiting && (q->cap - q->len >= room_wanted(q, q->cap) || !q->len))
		pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->mu);
}

void rec_queue_close(struct rec_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = true;
	pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->mu);
}

uint64_t rec_queue_drops(struct rec_queue *q)
{
	pthread_mutex_lock(&q->mu);
	uint64_t d = q->drops;
	pthread_mutex_unlock(&q->mu);
	return d;
}

size_t rec_queue_len(struct rec_queue *q)
{
	pthread_mutex_lock(&q->mu);
	size_t n = q->len;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t rec_queue_cap(const struct rec_queue *q)
{
	return q->cap;
}
