/* nfsrdma-top's view of the probes' RPCs in flight (the control
 * protocol's IF lines): the header text, batch mode's line and the JSON
 * object, from snapshots written here; no IF line gives nothing / null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "src/stats/agg.h"
#include "src/stats/fsplit.h"
#include "src/top/top_view.h"

#define S 1000000000ull

static char *render(const struct agg_snap *s, int json)
{
	struct fsplit_snap fs;
	struct top_view v = { .dim = AGG_OP, .sort = SORT_KEY, .transport = -1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&fs, 0, sizeof(fs));
	if (json)
		top_batch_json(f, s, &fs, &v, "test");
	else
		top_batch_text(f, s, &fs, &v, "test");
	fclose(f);
	return buf;
}

int main(void)
{
	struct agg_snap s;
	char line[128], *out;
	uint64_t stalled = 99;

	/* a daemon without a kernel source: nothing in the header, null */
	memset(&s, 0, sizeof(s));
	top_inflight_text(&s, line, sizeof(line), &stalled);
	CHECK_EQ_STR(line, "");
	CHECK_EQ_U64(stalled, 0);
	out = render(&s, 1);
	CHECK(strstr(out, "\"in_flight\":null,") != NULL, "json: in_flight null without IF (%s)", out);
	free(out);
	out = render(&s, 0);
	CHECK(strstr(out, "in flight") == NULL, "text: no in-flight line without IF");
	free(out);

	/* client 3 in flight, the oldest 12.5 s, 2 stalled past 5 s, 1
	 * abandoned; server 1 at 0.25 s: the header sums and takes the oldest */
	s.inflight_sides = 3;
	s.inflight[0] = (struct agg_inflight){ .in_flight = 3, .oldest_ns = 12500000000ull, .stalled = 2,
					       .abandoned = 1, .stall_after_ns = 5 * S };
	s.inflight[1] = (struct agg_inflight){ .in_flight = 1, .oldest_ns = 250000000ull, .stall_after_ns = 5 * S };
	top_inflight_text(&s, line, sizeof(line), &stalled);
	CHECK_EQ_STR(line, "in flight 4, oldest 12.5 s");
	CHECK_EQ_U64(stalled, 2);
	out = render(&s, 1);
	CHECK(strstr(out, "\"in_flight\":{\"client\":{\"rpcs\":3,\"oldest_s\":12.500000,\"stalled\":2,"
			  "\"stall_after_s\":5.000,\"abandoned\":1},\"server\":{\"rpcs\":1,\"oldest_s\":0.250000,"
			  "\"stalled\":0,\"stall_after_s\":5.000,\"abandoned\":0}},") != NULL,
	      "json: both sides (%s)", out);
	free(out);
	out = render(&s, 0);
	CHECK(strstr(out, "in flight:  client 3 (oldest 12.500 s, stalled 2 past 5.0 s, abandoned 1)  STALLED"
			  "  server 1 (oldest 0.250 s, stalled 0 past 5.0 s, abandoned 0)\n") != NULL,
	      "text: a line with both sides (%s)", out);
	free(out);

	/* the server side alone: the client is null */
	s.inflight_sides = 2;
	top_inflight_text(&s, line, sizeof(line), &stalled);
	CHECK_EQ_STR(line, "in flight 1, oldest 0.2 s");
	CHECK_EQ_U64(stalled, 0);
	out = render(&s, 1);
	CHECK(strstr(out, "\"in_flight\":{\"client\":null,\"server\":{\"rpcs\":1,") != NULL,
	      "json: client null (%s)", out);
	free(out);
	return check_summary("top-inflight");
}
