/* --max-idle (src/replay/trace_idle.c, trace_cut_idle): the idle
 * stretches of a made-up trace cut to the limit, the times below worked
 * out by hand; busy stretches (overlapping calls, a reply after later
 * calls, a call never answered) keep their timing to the nanosecond.
 * Closing line: "trace-idle: N passed, N failed". */
#include "check.h"

#include <string.h>

#include "src/replay/trace.h"

#define MS 1000000ull
#define S 1000000000ull

static void call(struct trace *t, uint64_t at, uint64_t reply)
{
	struct tcall *c = &t->calls[t->n++];
	memset(c, 0, sizeof(*c));
	c->t_call = at;
	c->t_reply = reply;
	c->replied = reply != 0;
}

int main(void)
{
	static struct tcall calls[16];
	struct trace t = { .calls = calls, .cap = 16 };
	struct trace_idle_cut cut;

	/* t0 = 100 s (a capture's own clock) */
	call(&t, 100 * S, 100 * S + 2 * MS);            /* 0: busy to +2 ms */
	call(&t, 100 * S + 1 * MS, 100 * S + 3 * MS);   /* 1: overlaps 0, busy to +3 ms */
	call(&t, 105 * S, 105 * S + 1 * MS);            /* 2: after 5 s - 3 ms idle: cut to 0.5 s */
	call(&t, 105 * S + 200 * MS, 0);                /* 3: 199 ms after 2's reply: kept; never answered */
	call(&t, 105 * S + 400 * MS, 108 * S);          /* 4: 200 ms after 3 (busy to its send): kept; long */
	call(&t, 106 * S, 106 * S + 1 * MS);            /* 5: inside 4's flight: kept */
	call(&t, 109 * S, 109 * S + 1 * MS);            /* 6: 1 s after 4's reply: cut to 0.5 s */
	trace_cut_idle(&t, 500 * MS, &cut);

	uint64_t cut1 = 5 * S - 3 * MS - 500 * MS;      /* the first stretch's removed time */
	uint64_t cut2 = cut1 + 500 * MS;                /* and the second's (1 s - 0.5 s) */
	CHECK_EQ_U64(cut.stretches, 2);
	CHECK_EQ_U64(cut.removed_ns, cut2);
	CHECK_EQ_U64(calls[0].t_call, 100 * S);
	CHECK_EQ_U64(calls[1].t_reply, 100 * S + 3 * MS);
	CHECK_EQ_U64(calls[2].t_call, 100 * S + 3 * MS + 500 * MS);
	CHECK_EQ_U64(calls[2].t_call, 105 * S - cut1);
	CHECK_EQ_U64(calls[2].t_reply - calls[2].t_call, 1 * MS);
	CHECK_EQ_U64(calls[3].t_call - calls[2].t_call, 200 * MS);
	CHECK_EQ_U64(calls[3].t_reply, 0);
	CHECK_EQ_U64(calls[4].t_reply - calls[4].t_call, 108 * S - (105 * S + 400 * MS));
	CHECK_EQ_U64(calls[5].t_call - calls[4].t_call, 600 * MS);
	CHECK_EQ_U64(calls[6].t_call - calls[4].t_reply, 500 * MS);
	CHECK_EQ_U64(calls[6].t_call, 109 * S - cut2);
	for (size_t i = 1; i < t.n; i++)
		CHECK(calls[i].t_call >= calls[i - 1].t_call, "call %zu still after call %zu", i, i - 1);

	/* a limit no stretch exceeds: nothing moves */
	struct tcall keep[16];
	memcpy(keep, calls, sizeof(keep));
	trace_cut_idle(&t, 10 * S, &cut);
	CHECK(cut.stretches == 0 && cut.removed_ns == 0 && !memcmp(keep, calls, sizeof(keep)),
	      "a limit above every stretch leaves the trace as it was");
	return check_summary("trace-idle");
}
