/* The daemon's record queue (src/daemon/daemon_queue.c): its eventfd wakes the
 * main loop exactly when records end an empty spell (or a source kicks
 * it), a full queue drops (lossy) or waits (lossless), and closing frees a
 * waiting producer.  Real eventfd and threads; poll(2) with no wait. */
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "check.h"
#include "src/daemon/daemon_queue.h"

static int readable(struct rec_queue *q)
{
	struct pollfd p = { rec_queue_fd(q), POLLIN, 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static struct rec_queue *Q;
static struct nfsrdma_record batch[6];

static void *lossless_batch(void *arg)
{
	return (void *)rec_queue_push_many(Q, batch, 6, true);
}

static void *lossless_push(void *arg)
{
	struct nfsrdma_record r;

	memset(&r, 0, sizeof(r));
	r.xid = 99;
	return (void *)(long)rec_queue_push(Q, &r, true);
}

int main(void)
{
	struct nfsrdma_record r, out[8];
	struct rec_queue *q = rec_queue_new(4);

	CHECK(q != NULL, "queue");
	if (!q)
		return check_summary("daemon-queue");
	memset(&r, 0, sizeof(r));
	CHECK(rec_queue_fd(q) >= 0, "an eventfd");
	CHECK(!readable(q), "empty queue: no wakeup");

	r.xid = 1;
	CHECK(rec_queue_push(q, &r, false), "push 1");
	CHECK(readable(q), "the first record into an empty queue wakes the consumer");
	rec_queue_ack(q);
	CHECK(!readable(q), "ack clears the wakeup");
	r.xid = 2;
	CHECK(rec_queue_push(q, &r, false), "push 2");
	CHECK(!readable(q), "a record behind an undrained one does not wake again");
	size_t n = rec_queue_pop(q, out, 8);
	CHECK_EQ_U64(n, 2);
	CHECK(n == 2 && out[0].xid == 1 && out[1].xid == 2, "records in order");
	r.xid = 3;
	rec_queue_push(q, &r, false);
	CHECK(readable(q), "after a drain, the next record wakes again");
	rec_queue_ack(q);
	rec_queue_kick(q);
	CHECK(readable(q), "a kick wakes without a record (a source ended)");
	rec_queue_ack(q);

	/* full: lossy drops and counts; lossless waits until closed */
	for (int i = 0; i < 3; i++)
		CHECK(rec_queue_push(q, &r, false), "fill %d", i);
	CHECK_EQ_U64(rec_queue_len(q), 4);
	CHECK(!rec_queue_push(q, &r, false), "lossy push into a full queue is dropped");
	CHECK_EQ_U64(rec_queue_drops(q), 1);
	Q = q;
	pthread_t th;
	void *ret = (void *)1;
	CHECK(pthread_create(&th, NULL, lossless_push, NULL) == 0, "producer thread");
	usleep(20000);
	CHECK_EQ_U64(rec_queue_len(q), 4);
	n = rec_queue_pop(q, out, 1);   /* makes room: the waiting producer goes in */
	pthread_join(th, &ret);
	CHECK(ret == (void *)1, "the lossless producer got in once there was room");
	CHECK_EQ_U64(rec_queue_len(q), 4);
	CHECK(pthread_create(&th, NULL, lossless_push, NULL) == 0, "producer thread 2");
	usleep(20000);
	rec_queue_close(q);
	pthread_join(th, &ret);
	CHECK(ret == (void *)0, "closing frees a waiting producer, its record refused");
	rec_queue_free(q);

	/* batches: one wakeup per batch; lossy keeps what fits and counts the
	 * rest; lossless waits and delivers all, in order */
	Q = q = rec_queue_new(4);
	CHECK(q != NULL, "queue 2");
	if (!q)
		return check_summary("daemon-queue");
	for (int i = 0; i < 6; i++)
		batch[i].xid = 10 + (uint32_t)i;
	CHECK_EQ_U64(rec_queue_push_many(q, batch, 6, false), 4);
	CHECK_EQ_U64(rec_queue_drops(q), 2);
	CHECK(readable(q), "a batch into an empty queue wakes the consumer");
	rec_queue_ack(q);
	n = rec_queue_pop(q, out, 8);
	CHECK(n == 4 && out[0].xid == 10 && out[3].xid == 13, "the first four of the batch, in order");
	CHECK(pthread_create(&th, NULL, lossless_batch, NULL) == 0, "batch producer thread");
	uint32_t want = 10;
	int got = 0, in_order = 1;
	for (int spins = 0; got < 6 && spins < 1000; spins++) {
		usleep(1000);
		size_t k = rec_queue_pop(q, out, 8);
		for (size_t i = 0; i < k; i++, got++)
			in_order = in_order && out[i].xid == want++;
	}
	pthread_join(th, &ret);
	CHECK(ret == (void *)6 && got == 6 && in_order, "a lossless batch larger than the queue arrives whole, in order (%d)", got);
	CHECK_EQ_U64(rec_queue_drops(q), 2);

	/* zero-copy consumer: peek sees the ring's contiguous run (up to the
	 * wrap), the slots stay taken until released, then the rest follows */
	for (int i = 0; i < 4; i++)
		batch[i].xid = 20 + (uint32_t)i;
	rec_queue_push_many(q, batch, 3, false);         /* head is at slot 2 of 4 after 6 + 4 pops */
	const struct nfsrdma_record *run;
	size_t k = rec_queue_peek(q, &run);
	CHECK(k == 2 && run[0].xid == 20 && run[1].xid == 21, "peek: the run up to the ring's end (%zu)", k);
	CHECK_EQ_U64(rec_queue_push_many(q, &batch[3], 1, false), 1);
	CHECK(!rec_queue_push(q, &r, false), "peeked records still hold their slots: full");
	CHECK(run[0].xid == 20 && run[1].xid == 21, "peeked records untouched by producers");
	rec_queue_release(q, k);
	CHECK_EQ_U64(rec_queue_len(q), 2);
	k = rec_queue_peek(q, &run);
	CHECK(k == 2 && run[0].xid == 22 && run[1].xid == 23, "after release, the rest from the ring's start");
	rec_queue_release(q, k);
	CHECK(rec_queue_peek(q, &run) == 0, "empty after releasing all");
	rec_queue_free(q);

	/* reservations: two producers fill slots in place; the consumer
	 * reads in slot order, waits at an uncommitted reservation, and steps
	 * over the slots a reservation committed short */
	q = rec_queue_new(8);
	CHECK(q != NULL, "queue 3");
	if (!q)
		return check_summary("daemon-queue");
	struct rec_resv a, b;
	CHECK_EQ_U64(rec_queue_reserve(q, 3, false, &a), 3);
	struct nfsrdma_record *slot0 = a.slot;
	CHECK_EQ_U64(rec_queue_reserve(q, 4, false, &b), 4);
	CHECK(b.slot == a.slot + 3, "the second reservation follows the first");
	b.slot[0].xid = 40;
	b.slot[1].xid = 41;
	rec_queue_commit(q, &b, 2);
	CHECK(readable(q), "a committed record wakes the consumer");
	rec_queue_ack(q);
	CHECK(rec_queue_peek(q, &run) == 0, "nothing to read behind an uncommitted reservation");
	a.slot[0].xid = 30;
	rec_queue_commit(q, &a, 1);
	CHECK_EQ_U64(rec_queue_len(q), 3);
	n = rec_queue_pop(q, out, 8);
	CHECK(n == 3 && out[0].xid == 30 && out[1].xid == 40 && out[2].xid == 41,
	      "committed records in slot order, the unused slots skipped (%zu)", n);
	/* slots 5-7: up to the ring's end (slots 5 and 6, unused by the
	 * newest reservation then, went straight back) */
	CHECK_EQ_U64(rec_queue_reserve(q, 8, false, &a), 3);
	CHECK(a.slot == slot0 + 5, "reserved from slot 5");
	rec_queue_commit(q, &a, 0);
	CHECK_EQ_U64(rec_queue_reserve(q, 8, false, &a), 8);
	CHECK(a.slot == slot0, "every slot free again: a whole-ring run from slot 0");
	CHECK_EQ_U64(rec_queue_reserve(q, 1, false, &b), 0);
	CHECK_EQ_U64(rec_queue_drops(q), 1);
	rec_queue_commit(q, &a, 0);
	CHECK_EQ_U64(rec_queue_len(q), 0);
	rec_queue_free(q);
	return check_summary("daemon-queue");
}
