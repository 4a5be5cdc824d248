/* sleep-floor: the platform's floor under the replay's issue-time error.
 * Waits for each time of a schedule exactly as the paced replay waits for
 * a call's (src/replay/replay_pace.h: asleep in ppoll until shortly
 * before it, then polling the clock; the same adaptive spin, timer slack
 * and --realtime) and, with nothing to build or post, reports how late
 * each wait came back: what no replay on this machine can beat.
 *
 *   sleep-floor [--realtime] [--repeat N] [--label WORD] --capture FILE
 *   sleep-floor [--realtime] [--repeat N] [--label WORD] --rate HZ --count N
 *
 * The capture's schedule is its calls' times as the replay reads them
 * (trace_load), the first due at once; --repeat runs it again right after
 * its last time.  One JSON object on stdout: the lateness (the project's
 * histogram and percentile), the sleeps' own lateness (and the time they
 * asked for, all told), the time spun, the time runnable and not
 * running.  bench/README.md, "The floor". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/json.h"
#include "src/replay/loadgen_hist.h"
#include "src/replay/replay_engine.h"
#include "src/replay/replay_pace.h"
#include "src/replay/trace.h"
#include "src/xprt/xprt.h"

static int usage(void)
{
	fputs("usage: sleep-floor [--realtime] [--repeat N] [--label WORD] (--capture FILE | --rate HZ --count N)\n",
	      stderr);
	return 2;
}

/* Offsets (ns) of the schedule's times from its first. */
static int load_schedule(const char *capture, double rate, uint64_t count, uint64_t **out, size_t *n)
{
	if (!capture) {
		uint64_t *at = calloc(count ? count : 1, sizeof(*at));
		if (!at)
			return -ENOMEM;
		for (uint64_t i = 0; i < count; i++)
			at[i] = (uint64_t)((double)i * 1e9 / rate);
		*out = at;
		*n = count;
		return 0;
	}
	struct trace t;
	char err[256] = "";
	if (trace_load(&t, capture, err, sizeof(err)) < 0 || t.n == 0) {
		fprintf(stderr, "sleep-floor: %s: %s\n", capture, *err ? err : "no calls");
		return -EINVAL;
	}
	uint64_t *at = calloc(t.n, sizeof(*at));
	if (!at) {
		trace_free(&t);
		return -ENOMEM;
	}
	/* as replay_due: a time before the first is due at once */
	for (size_t i = 0; i < t.n; i++)
		at[i] = t.calls[i].t_call > t.calls[0].t_call ? t.calls[i].t_call - t.calls[0].t_call : 0;
	*out = at;
	*n = t.n;
	trace_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	const char *capture = NULL, *label = "";
	double rate = 0;
	uint64_t count = 0, repeat = 1;
	bool realtime = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--realtime"))
			realtime = true;
		else if (!strcmp(a, "--capture") && v)
			capture = argv[++i];
		else if (!strcmp(a, "--rate") && v)
			rate = strtod(argv[++i], NULL);
		else if (!strcmp(a, "--count") && v)
			count = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(a, "--repeat") && v)
			repeat = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(a, "--label") && v && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-_.") == strlen(v))
			label = argv[++i];
		else
			return usage();
	}
	if (!capture && (rate <= 0 || count == 0 || count > 100000000))
		return usage();
	if (repeat == 0 || repeat > 1000)
		return usage();

	uint64_t *at;
	size_t n;
	if (load_schedule(capture, rate, count, &at, &n) < 0)
		return 1;
	/* the replay's own set-up of its timing: timer slack, --realtime */
	struct replay_opts o = { .speed = 1, .realtime = realtime };
	replay_timing_setup(&o);

	static struct lhist late, wake;
	struct pace p;
	uint64_t spun = 0, over_1ms = 0, asked = 0;
	pace_init(&p);
	int64_t w0 = pace_run_delay();
	uint64_t start = xprt_now_ns(), t0 = start;
	for (uint64_t r = 0; r < repeat; r++) {
		for (size_t i = 0; i < n; i++) {
			uint64_t due = t0 + at[i], now, spin_from = 0;
			while ((now = xprt_now_ns()) < due) {
				uint64_t nap = pace_nap(&p, due - now, now);
				if (!nap) {   /* the replay's spin: polling, no system call */
					if (!spin_from)
						spin_from = now;
					continue;
				}
				pace_before_sleep(&p);
				uint64_t was = xprt_time.late_ns;
				if (xprt_sleep_ppoll(NULL, 0, nap) < 0 && errno != EINTR)
					return 1;
				if (xprt_time.timeouts != p.timeouts) {
					lhist_add(&wake, xprt_time.late_ns - was);
					asked += nap;
				}
				pace_after_sleep(&p);
			}
			if (spin_from)
				spun += now - spin_from;
			lhist_add(&late, now - due);
			over_1ms += now - due >= 1000000ull;
		}
		t0 = xprt_now_ns();
	}
	uint64_t took = xprt_now_ns() - start;
	int64_t w1 = pace_run_delay();

	struct jw jb, *j = &jb;
	jw_init(j, stdout);
	jw_lit(j, "{\"label\":");
	jw_str(j, label);
	JW_KEY(j, "schedule");
	jw_str(j, capture ? "capture" : "rate");
	JW_KEY(j, "times");
	jw_u(j, n);
	JW_KEY(j, "repeat");
	jw_u(j, repeat);
	JW_KEY(j, "realtime");
	jw_bool(j, realtime);
	JW_KEY(j, "took_ns");
	jw_u(j, took);
	jw_c(j, ',');
	lhist_jw(j, "lateness", &late, true);
	JW_KEY(j, "lateness_over_1ms");
	jw_u(j, over_1ms);
	JW_KEY(j, "lateness_mean_ns");
	jw_u(j, late.n ? late.sum / late.n : 0);
	jw_c(j, ',');
	lhist_jw(j, "wakeups", &wake, true);
	/* late in proportion to the time asked (a timer's clock off) or not */
	JW_KEY(j, "wakeups_asked_ns");
	jw_u(j, asked);
	JW_KEY(j, "wakeups_late_ns");
	jw_u(j, wake.sum);
	JW_KEY(j, "spun_ns");
	jw_u(j, spun);
	JW_KEY(j, "spin_last_ns");
	jw_u(j, p.spin_ns + p.wake_late_ns);
	JW_KEY(j, "runnable_not_running_ns");
	jw_i(j, w0 >= 0 && w1 >= w0 ? w1 - w0 : (int64_t)-1);
	jw_lit(j, "}\n");
	jw_flush(j);
	free(at);
	return 0;
}
