/* Where a late call's time went: see replay_late.h.
 *
 * The replay's thread says what it does next (late_mark) at each change:
 * the scheduler choosing, building a call, polling the transports.  The
 * time since the last mark goes to what it was doing, less what the
 * transports say they spent asleep or posting (xprt_time) and what the
 * reply callbacks took, which go to their own rows.  Marks closer than
 * MARK_NS to the newest one are merged into it, so a tight loop (the
 * spin before a call's time) costs a ring slot per MARK_NS, and
 * the ring holds the last RING_MARKS of them (a late call's window is
 * milliseconds).  The kernel's run_delay (time runnable and not running:
 * another task had the CPU) is read at each new slot.
 *
 * Without IRQ time accounting (Debian's 6.1 kernels), interrupts and the
 * soft interrupts run on their back (soft-RoCE's packet work) count as
 * the thread's own time, in whatever row it was in. */
#include "src/replay/replay_late.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/json.h"
#include "src/replay/replay_pace.h"
#include "src/xprt/xprt.h"

#define MARK_NS 20000ull
#define RING_MARKS 16384

static const char *const kind_name[LT_KINDS] = {
	"asleep", "replies", "posting", "polling", "building", "scheduler",
};

static uint64_t run_delay(const struct late_log *l)
{
	char buf[96];
	unsigned long long run, wait;

	if (l->fd < 0)
		return 0;
	ssize_t n = pread(l->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? wait : 0;
}

int late_start(struct late_log *l)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->ring = calloc(RING_MARKS, sizeof(*l->ring));
	if (!l->ring)
		return -ENOMEM;
	l->cap = RING_MARKS;
	l->fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	l->on = true;
	l->kind = LT_SCHED;
	l->t_last = xprt_now_ns();
	l->blocked = xprt_time.blocked_ns;
	l->posted = xprt_time.post_ns;
	l->run_delay = run_delay(l);
	l->ring[0] = (struct late_mark){ .t = l->t_last, .run_delay = l->run_delay };
	l->n = 1;
	return 1;
}

void late_stop(struct late_log *l)
{
	if (!l->on)
		return;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	free(l->ring);
	l->ring = NULL;
	l->on = false;
}

unsigned late_mark(struct late_log *l, unsigned kind)
{
	unsigned was = l->kind;

	l->kind = kind;
	if (!l->on)
		return was;
	uint64_t now = xprt_now_ns(), dt = now - l->t_last;
	uint64_t part[3] = { xprt_time.blocked_ns - l->blocked, l->replies_ns, xprt_time.post_ns - l->posted };
	static const unsigned row[3] = { LT_SLEEP, LT_REPLIES, LT_POST };
	for (int k = 0; k < 3; k++) {
		uint64_t d = part[k] < dt ? part[k] : dt;
		l->cum[row[k]] += d;
		dt -= d;
	}
	l->cum[was] += dt;
	l->t_last = now;
	l->blocked = xprt_time.blocked_ns;
	l->posted = xprt_time.post_ns;
	l->replies_ns = 0;

	struct late_mark *m = &l->ring[l->head];
	if (now - m->t >= MARK_NS) {
		l->head = (l->head + 1) % l->cap;
		l->n += l->n < l->cap;
		m = &l->ring[l->head];
		l->run_delay = run_delay(l);
	}
	m->t = now;
	memcpy(m->cum, l->cum, sizeof(m->cum));
	m->run_delay = l->run_delay;
	return was;
}

/* The totals at time t, between the two marks around it; *older: how
 * much of [t, oldest mark) the ring no longer holds. */
static void at(const struct late_log *l, uint64_t t, double cum[LT_KINDS], double *wait, uint64_t *older)
{
	size_t k = l->head, next = SIZE_MAX;
	for (size_t i = 1; i < l->n && l->ring[k].t > t; i++) {
		next = k;
		k = (k + l->cap - 1) % l->cap;
	}
	const struct late_mark *a = &l->ring[k];
	if (a->t > t) {   /* older than the ring */
		*older = a->t - t;
		next = SIZE_MAX;
	}
	const struct late_mark *b = next == SIZE_MAX ? a : &l->ring[next];
	double f = b->t > a->t && t > a->t ? (double)(t - a->t) / (double)(b->t - a->t) : 0;
	for (int j = 0; j < LT_KINDS; j++)
		cum[j] = (double)a->cum[j] + f * (double)(b->cum[j] - a->cum[j]);
	*wait = (double)a->run_delay + f * (double)(b->run_delay - a->run_delay);
}

uint64_t late_explain(struct late_log *l, uint64_t from, uint64_t to, uint64_t out[LT_KINDS],
		      int64_t *wait)
{
	double c0[LT_KINDS], c1[LT_KINDS], w0, w1;
	uint64_t unknown = 0, ignore = 0;

	memset(out, 0, sizeof(uint64_t) * LT_KINDS);
	*wait = -1;
	if (!l->on || to <= from)
		return 0;
	late_mark(l, l->kind);   /* up to now */
	at(l, from, c0, &w0, &unknown);
	at(l, to, c1, &w1, &ignore);
	for (int j = 0; j < LT_KINDS; j++)
		out[j] = c1[j] > c0[j] ? (uint64_t)(c1[j] - c0[j]) : 0;
	if (l->fd >= 0)
		*wait = w1 > w0 ? (int64_t)(w1 - w0) : 0;
	if (to - from >= LATE_SHOWN_NS) {
		l->shown++;
		for (int j = 0; j < LT_KINDS; j++)
			l->sum[j] += out[j];
		l->sum_wait += *wait > 0 ? (uint64_t)*wait : 0;
		l->sum_total += to - from;
	}
	return unknown;
}

void late_print(FILE *f, const uint64_t part[LT_KINDS], int64_t wait, uint64_t unknown)
{
	for (int j = 0; j < LT_KINDS; j++)
		fprintf(f, "%s%s %.2f", j ? ", " : "", kind_name[j], (double)part[j] / 1e6);
	if (unknown)
		fprintf(f, ", before the timeline %.2f", (double)unknown / 1e6);
	fputs(" ms", f);
	if (wait >= 0)
		fprintf(f, "; runnable, not running %.2f ms", (double)wait / 1e6);
}

void late_json(const struct late_log *l, uint64_t spin_stops, struct jw *j)
{
	if (!l->on)
		return;
	const struct xprt_time *x = &xprt_time;
	jw_lit(j, "\"late_parts\":{\"calls\":");
	jw_u(j, l->shown);
	JW_KEY(j, "late_ns");
	jw_u(j, (uint64_t)l->sum_total);
	for (int k = 0; k < LT_KINDS; k++) {
		jw_lit(j, ",\"");
		jw_lit(j, kind_name[k]);
		jw_lit(j, "_ns\":");
		jw_u(j, (uint64_t)l->sum[k]);
	}
	JW_KEY(j, "runnable_not_running_ns");
	jw_u(j, (uint64_t)l->sum_wait);
	jw_lit(j, "},\"wakeups\":{\"timeouts\":");
	jw_u(j, x->timeouts);
	JW_KEY(j, "late_mean_ns");
	jw_u(j, x->timeouts ? (uint64_t)x->late_ns / x->timeouts : 0);
	JW_KEY(j, "late_max_ns");
	jw_u(j, (uint64_t)x->late_max_ns);
	JW_KEY(j, "over_1ms");
	jw_u(j, x->late_over_1ms);
	JW_KEY(j, "seconds_without_polling");
	jw_u(j, spin_stops);
	jw_lit(j, "},");
}

void late_report(const struct late_log *l, uint64_t spin_stops, FILE *f)
{
	if (!l->on)
		return;
	const struct xprt_time *x = &xprt_time;
	double wake_mean = x->timeouts ? (double)x->late_ns / (double)x->timeouts / 1e3 : 0;
	fprintf(f, "wake-ups: %" PRIu64 " sleeps ran to their time, back %.1f us late on average, "
		"%" PRIu64 " over 1 ms, at most %.1f us\n", x->timeouts, wake_mean, x->late_over_1ms,
		(double)x->late_max_ns / 1e3);
	if (spin_stops)
		fprintf(f, "polling before a call's time stopped in %" PRIu64 " second(s): awake %.0f ms of "
			"the second already, the waits slept to their time\n", spin_stops, PACE_AWAKE_MAX_NS / 1e6);
	if (!l->shown)
		return;
	fprintf(f, "the %" PRIu64 " call(s) at least %.1f ms late, %.2f ms in all: ", l->shown,
		(double)LATE_SHOWN_NS / 1e6, (double)l->sum_total / 1e6);
	late_print(f, l->sum, l->fd >= 0 ? (int64_t)l->sum_wait : -1, 0);
	fputc('\n', f);
}
