/* RPCs in flight and their ages (src/probe/inflight_age.c) on synthetic
 * slots: the truth is the timestamps written here and the clock reading
 * handed in, ages written out by hand. */
#include <string.h>

#include "check.h"
#include "src/probe/inflight_age.h"

#define S 1000000000ull  /* ns */

static struct probe_event slot(int side, int ts, uint64_t t)
{
	struct probe_event e;

	memset(&e, 0, sizeof(e));
	e.side = (uint8_t)side;
	if (ts >= 0)
		e.t[ts] = t;
	return e;
}

int main(void)
{
	struct inflight_limits lim = { .stall_ns = 5 * S, .abandon_ns = 600 * S };
	struct inflight_side out[2];
	struct probe_event e;
	const uint64_t now = 1000 * S;

	/* the earliest non-zero timestamp, wherever it is */
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, 0);
	e.t[PT_MARSHAL] = 700;
	e.t[PT_SEND] = 650;
	e.t[PT_REPLY] = 900;
	CHECK_EQ_U64(inflight_first_ns(&e), 650);
	e = slot(PROBE_SIDE_SERVER, PT_DECODE, 0);
	CHECK_EQ_U64(inflight_first_ns(&e), 0);

	/* client: three tasks began at now - 1 s, - 7 s, - 30 s; one free
	 * slot (side 0) with an old time left in it */
	memset(out, 0, sizeof(out));
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now - 1 * S);
	CHECK(inflight_add(out, &e, now, &lim, false) == 1, "a begun task counts");
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now - 7 * S);
	inflight_add(out, &e, now, &lim, false);
	e = slot(PROBE_SIDE_CLIENT, PT_MARSHAL, now - 30 * S);  /* seen first at its marshal */
	inflight_add(out, &e, now, &lim, false);
	e = slot(0, PT_BEGIN, now - 900 * S);
	CHECK(inflight_add(out, &e, now, &lim, false) == 0, "a free slot counts nothing");
	CHECK_EQ_U64(out[0].in_flight, 3);
	CHECK_EQ_U64(out[0].stalled, 2);           /* 7 s and 30 s > 5 s */
	CHECK_EQ_U64(out[0].oldest_ns, 30 * S);
	CHECK_EQ_U64(out[0].abandoned, 0);
	CHECK_EQ_U64(out[1].in_flight, 0);
	CHECK_EQ_U64(out[1].oldest_ns, 0);

	/* exactly at the threshold is not yet stalled: older than it is */
	memset(out, 0, sizeof(out));
	e = slot(PROBE_SIDE_SERVER, PT_DECODE, now - 5 * S);
	inflight_add(out, &e, now, &lim, false);
	e = slot(PROBE_SIDE_SERVER, PT_DECODE, now - 5 * S - 1);
	inflight_add(out, &e, now, &lim, false);
	CHECK_EQ_U64(out[1].in_flight, 2);
	CHECK_EQ_U64(out[1].stalled, 1);
	CHECK_EQ_U64(out[1].oldest_ns, 5 * S + 1);
	CHECK_EQ_U64(out[0].in_flight, 0);

	/* left behind: older than the abandon bound, apart from in flight */
	memset(out, 0, sizeof(out));
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now - 601 * S);
	inflight_add(out, &e, now, &lim, false);
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now - 900 * S);
	inflight_add(out, &e, now, &lim, false);
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now - 2 * S);
	inflight_add(out, &e, now, &lim, false);
	CHECK_EQ_U64(out[0].abandoned, 2);
	CHECK_EQ_U64(out[0].abandoned_oldest_ns, 900 * S);
	CHECK_EQ_U64(out[0].in_flight, 1);
	CHECK_EQ_U64(out[0].stalled, 0);
	CHECK_EQ_U64(out[0].oldest_ns, 2 * S);

	/* left behind (the caller saw its thread idle): abandoned at any age,
	 * also with no time and with no abandon bound */
	struct inflight_limits nobound = { .stall_ns = 5 * S, .abandon_ns = 0 };
	memset(out, 0, sizeof(out));
	e = slot(PROBE_SIDE_SERVER, PT_DECODE, now - 1 * S);
	inflight_add(out, &e, now, &lim, true);
	e = slot(PROBE_SIDE_SERVER, PT_DECODE, now - 24 * S);
	inflight_add(out, &e, now, &nobound, true);
	e = slot(PROBE_SIDE_SERVER, -1, 0);
	inflight_add(out, &e, now, &lim, true);
	CHECK_EQ_U64(out[1].abandoned, 3);
	CHECK_EQ_U64(out[1].abandoned_oldest_ns, 24 * S);
	CHECK_EQ_U64(out[1].in_flight, 0);
	CHECK_EQ_U64(out[1].stalled, 0);
	CHECK_EQ_U64(out[1].untimed, 0);

	/* abandon bound 0: nothing is ever abandoned */
	struct inflight_limits never = { .stall_ns = 5 * S, .abandon_ns = 0 };
	memset(out, 0, sizeof(out));
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now - 900 * S);
	inflight_add(out, &e, now, &never, false);
	CHECK_EQ_U64(out[0].abandoned, 0);
	CHECK_EQ_U64(out[0].in_flight, 1);
	CHECK_EQ_U64(out[0].stalled, 1);
	CHECK_EQ_U64(out[0].oldest_ns, 900 * S);

	/* no time yet: in flight, untimed, no age; a time after now (the
	 * slot rewritten after the clock was read): age 0 */
	memset(out, 0, sizeof(out));
	e = slot(PROBE_SIDE_CLIENT, -1, 0);
	inflight_add(out, &e, now, &lim, false);
	e = slot(PROBE_SIDE_CLIENT, PT_BEGIN, now + 3);
	inflight_add(out, &e, now, &lim, false);
	CHECK_EQ_U64(out[0].in_flight, 2);
	CHECK_EQ_U64(out[0].untimed, 1);
	CHECK_EQ_U64(out[0].stalled, 0);
	CHECK_EQ_U64(out[0].oldest_ns, 0);

	/* a torn or foreign side value is not counted on either side */
	memset(out, 0, sizeof(out));
	e = slot(7, PT_BEGIN, now - 9 * S);
	CHECK(inflight_add(out, &e, now, &lim, false) == 0, "side 7 is no side");
	CHECK_EQ_U64(out[0].in_flight + out[1].in_flight + out[0].abandoned + out[1].abandoned, 0);

	return check_summary("inflight-age");
}
