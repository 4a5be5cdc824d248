/* Bounded record queue (see daemon_queue.h): a ring under one mutex.
 * Producers reserve a run of slots, fill them in place without the lock
 * and commit them (the records of one source_poll together), so the lock
 * is taken and the consumer woken once per run, not per record, and a
 * record is copied once, from the source into its slot: per record, the
 * lock hand-offs and eventfd wakeups between a source thread and the main
 * thread cost more CPU than the aggregation itself, and a second copy of
 * each 1.3 KB record (through a batch of the producer's own) was most of
 * what the daemon's source thread did beyond the dissector's work.
 *
 * Each slot has a state.  The consumer reads READY slots from head in
 * order and stops at a RESERVED one; a reservation committed short leaves
 * its unused slots as HOLEs the consumer steps over (or hands them back
 * at once when it is the newest reservation, the only case with a single
 * producer). */
#include "src/daemon/daemon_queue.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum { S_FREE = 0, S_RESV, S_READY, S_HOLE };

struct rec_queue {
	pthread_mutex_t mu;
	pthread_cond_t space;
	struct nfsrdma_record *ring;
	unsigned char *state;   /* per slot, S_* */
	size_t cap, head;
	size_t len;         /* slots not free: reserved, ready or holes */
	size_t ready;       /* committed records the consumer has not released */
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
	q->state = calloc(cap, 1);
	if (!q->ring || !q->state) {
		free(q->ring);
		free(q->state);
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
	free(q->state);
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

/* Holes at the head go back to the queue: nothing is left to read there. */
static void skip_holes(struct rec_queue *q)
{
	while (q->len && q->state[q->head] == S_HOLE) {
		q->state[q->head] = S_FREE;
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
}

static void room_made(struct rec_queue *q)
{
	if (q->waiting && (q->cap - q->len >= room_wanted(q, q->cap) || !q->len))
		pthread_cond_broadcast(&q->space);
}

/* reserve, counting ndrop records as dropped when a lossy producer finds
 * no room */
static size_t reserve(struct rec_queue *q, size_t want, bool lossless, struct rec_resv *rv, size_t ndrop)
{
	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->closed) {
			pthread_mutex_unlock(&q->mu);
			return 0;
		}
		if (!lossless || q->cap - q->len >= room_wanted(q, want))
			break;
		if (q->quiet && q->ready) {
			/* the consumer must hear of what we queued before we sleep */
			q->quiet = false;
			pthread_mutex_unlock(&q->mu);
			rec_queue_kick(q);
			pthread_mutex_lock(&q->mu);
			continue;
		}
		q->waiting++;
		pthread_cond_wait(&q->space, &q->mu);
		q->waiting--;
	}
	if (q->len == q->cap) {
		q->drops += ndrop;   /* lossy and full */
		pthread_mutex_unlock(&q->mu);
		return 0;
	}
	/* a run is contiguous: up to the ring's end at most */
	size_t tail = (q->head + q->len) % q->cap, k = q->cap - q->len;

	if (k > q->cap - tail)
		k = q->cap - tail;
	if (k > want)
		k = want;
	memset(&q->state[tail], S_RESV, k);
	q->len += k;
	pthread_mutex_unlock(&q->mu);
	rv->slot = &q->ring[tail];
	rv->start = tail;
	rv->n = k;
	rv->lossless = lossless;
	return k;
}

size_t rec_queue_reserve(struct rec_queue *q, size_t want, bool lossless, struct rec_resv *rv)
{
	return reserve(q, want ? want : 1, lossless, rv, 1);
}

void rec_queue_commit(struct rec_queue *q, struct rec_resv *rv, size_t used)
{
	bool kick = false;

	if (used > rv->n)
		used = rv->n;
	pthread_mutex_lock(&q->mu);
	memset(&q->state[rv->start], S_READY, used);
	q->ready += used;
	size_t rest = rv->n - used;
	if (rest) {
		if ((rv->start + rv->n) % q->cap == (q->head + q->len) % q->cap) {
			/* the newest reservation: its tail simply goes back */
			memset(&q->state[rv->start + used], S_FREE, rest);
			q->len -= rest;
			if (!q->len)
				q->head = 0;
		} else {
			memset(&q->state[rv->start + used], S_HOLE, rest);
			skip_holes(q);
		}
		room_made(q);
	}
	/* Only the records that end a quiet spell wake the consumer: it
	 * clears the signal before it drains, and drains until empty. */
	if (q->quiet && q->ready && q->ready >= kick_at(q, rv->lossless)) {
		q->quiet = false;
		kick = true;
	}
	pthread_mutex_unlock(&q->mu);
	rv->n = 0;
	if (kick)
		rec_queue_kick(q);
}

size_t rec_queue_push_many(struct rec_queue *q, const struct nfsrdma_record *r, size_t n, bool lossless)
{
	struct rec_resv rv;
	size_t done = 0, k;

	while (done < n && (k = reserve(q, n - done, lossless, &rv, n - done)) > 0) {
		memcpy(rv.slot, &r[done], k * sizeof(*r));
		rec_queue_commit(q, &rv, k);
		done += k;
	}
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
	skip_holes(q);
	while (n < max && q->len && q->state[q->head] == S_READY) {
		memcpy(&out[n++], &q->ring[q->head], sizeof(*out));
		q->state[q->head] = S_FREE;
		q->head = (q->head + 1) % q->cap;
		q->len--;
		q->ready--;
		skip_holes(q);
	}
	if (!q->ready)
		q->quiet = true;
	if (n)
		room_made(q);
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t rec_queue_peek(struct rec_queue *q, const struct nfsrdma_record **first)
{
	size_t n = 0;

	pthread_mutex_lock(&q->mu);
	skip_holes(q);
	for (size_t i = q->head; i < q->cap && n < q->ready && q->state[i] == S_READY; i++)
		n++;
	*first = &q->ring[q->head];
	pthread_mutex_unlock(&q->mu);
	return n;
}

void rec_queue_release(struct rec_queue *q, size_t n)
{
	pthread_mutex_lock(&q->mu);
	if (n > q->ready)
		n = q->ready;
	if (n > q->cap - q->head)
		n = q->cap - q->head;   /* a peek never spans the wrap */
	memset(&q->state[q->head], S_FREE, n);
	q->head = (q->head + n) % q->cap;
	q->len -= n;
	q->ready -= n;
	skip_holes(q);
	/* An empty ring starts again at its first slot: a consumer that keeps
	 * up then reuses the same few slots, still in cache, instead of
	 * walking the whole ring (8192 records, 10 MB) through memory. */
	if (!q->len)
		q->head = 0;
	if (!q->ready)
		q->quiet = true;
	if (n)
		room_made(q);
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
	size_t n = q->ready;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t rec_queue_cap(const struct rec_queue *q)
{
	return q->cap;
}
