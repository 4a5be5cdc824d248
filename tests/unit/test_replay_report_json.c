/* The replay report's blocking, late-parts and wake-up objects
 * (src/replay/replay_blocking.c, replay_late.c) as JSON: the members with
 * the values this test set, in the order docs/replay.md lists them, and
 * the braces balanced.  Closing line: "test_replay_report_json: N passed,
 * N failed". */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/json.h"
#include "src/replay/replay_engine.h"
#include "src/replay/replay_late.h"

static bool balanced(const char *s)
{
	int depth = 0;
	for (; *s; s++) {
		depth += *s == '{';
		depth -= *s == '}';
		if (depth < 0)
			return false;
	}
	return depth == 0;
}

int main(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct engine *e = calloc(1, sizeof(*e));
	CHECK(f && e, "memory stream and engine");
	if (!f || !e)
		return check_summary("test_replay_report_json");
	e->blocked_n[1] = 3;
	e->blocked_ns[1] = 77;
	e->blocked_max_ns[1] = 40;
	e->before_start_n = 6;
	e->before_start_ns = 600;
	e->cb_waits = 2;
	e->cb_wait_ns = 21;
	e->cb_wait_max_ns = 11;
	struct jw jb, *j = &jb;
	jw_init(j, f);
	jw_c(j, '{');
	replay_blocking_json(e, j);
	struct late_log l = { .on = true, .shown = 4, .sum_total = 99, .sum_wait = 8 };
	late_json(&l, 5, j);
	jw_lit(j, "\"end\":1}");
	jw_flush(j);
	fclose(f);
	CHECK(balanced(buf), "braces balanced: %s", buf);
	static const char *const want[] = {
		"{\"blocking\":{\"setup\":{\"n\":0,\"ns\":0,\"max_ns\":0},\"cb_probe\":{\"n\":3,\"ns\":77,\"max_ns\":40},",
		",\"before_start\":{\"n\":6,\"ns\":600},\"own_cb_probe_waits\":{\"n\":2,\"ns\":21,\"max_ns\":11}},",
		"\"late_parts\":{\"calls\":4,\"late_ns\":99,",
		",\"runnable_not_running_ns\":8},\"wakeups\":{\"timeouts\":",
		",\"seconds_without_polling\":5},\"end\":1}",
	};
	const char *at = buf;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *p = strstr(at, want[i]);
		CHECK(p != NULL, "in order: %s (in %s)", want[i], buf);
		if (p)
			at = p + strlen(want[i]);
	}
	free(buf);
	free(e);
	return check_summary("test_replay_report_json");
}
