/* Bounded record queue (see daemon_queue.h): a ring under one mutex.  The
 * critical section is a memcpy of one record, so contention is low at the
 * rates one dissector thread produces. */
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

bool rec_queue_push(struct rec_queue *q, const struct nfsrdma_record *r, bool lossless)
{
	bool ok = false, first = false;

	pthread_mutex_lock(&q->mu);
	while (lossless && q->len == q->cap && !q->closed)
		pthread_cond_wait(&q->space, &q->mu);
	if (q->closed) {
		/* shutting down: nothing is lost that anyone will read */
	} else if (q->len == q->cap) {
		q->drops++;
	} else {
		memcpy(&q->ring[(q->head + q->len) % q->cap], r, sizeof(*r));
		first = q->len++ == 0;
		ok = true;
	}
	pthread_mutex_unlock(&q->mu);
	/* Only the record that ends an empty spell wakes the consumer: it
	 * clears the signal before it drains, and drains until empty. */
	if (first)
		rec_queue_kick(q);
	return ok;
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
	if (n)
		pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->mu);
	return n;
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
