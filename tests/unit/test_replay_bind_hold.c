/* When an NFSv4.1 client's calls wait for the BIND_CONN_TO_SESSION of a
 * new connection (replay_bind_holds, src/replay/replay_deleg.c).  A CI
 * lab run sent a trace call's SEQUENCE first on a connection a poll had
 * just brought back: knfsd bound it to the fore channel, refused the
 * bind for the back channel (NFS4ERR_INVAL, eight times) and could not
 * recall.  The states below are the ones a drop goes through: down,
 * back but not looked at, bind sent, bind answered. */
#include "check.h"

#include "src/replay/replay_engine.h"

static struct xprt conn[2];

static void client(struct rclient *cl, unsigned nx)
{
	memset(cl, 0, sizeof(*cl));
	memset(conn, 0, sizeof(conn));
	cl->v4 = true;
	cl->s.minor = 1;
	cl->s.back_channel = true;
	cl->s.have_session = true;
	cl->nx = nx;
	for (unsigned k = 0; k < nx; k++)
		cl->x[k] = &conn[k];
}

static void test_drop_cycle(void)
{
	struct rclient cl;
	client(&cl, 1);
	CHECK(!replay_bind_holds(&cl), "bound connection, nothing to wait for");
	conn[0].broken = true;                    /* dropped: the next poll reconnects */
	CHECK(replay_bind_holds(&cl), "down: held");
	conn[0].broken = false;
	conn[0].st.reconnects = 1;                /* back, the bind not yet sent */
	CHECK(replay_bind_holds(&cl), "back, not bound: held");
	cl.bound_reconnects = 1;                  /* bind_conn saw it and sent the bind */
	cl.bind_first = true;
	CHECK(replay_bind_holds(&cl), "bind in flight: held");
	cl.bind_first = false;                    /* answered (OK or not) */
	CHECK(!replay_bind_holds(&cl), "answered: released");
}

static void test_second_connection(void)
{
	struct rclient cl;
	client(&cl, 2);
	cl.bound_reconnects = 0;
	conn[1].broken = true;
	CHECK(replay_bind_holds(&cl), "the client's second connection down: held");
	conn[1].broken = false;
	conn[1].st.reconnects = 2;
	cl.bound_reconnects = 1;
	CHECK(replay_bind_holds(&cl), "reconnects 2 against 1 bound: held");
	cl.bound_reconnects = 2;
	CHECK(!replay_bind_holds(&cl), "all bound: released");
}

static void test_not_concerned(void)
{
	struct rclient cl;
	client(&cl, 1);
	conn[0].broken = true;
	cl.s.back_channel = false;   /* no --delegations: a SEQUENCE binds the fore channel itself */
	CHECK(!replay_bind_holds(&cl), "no back channel: not held");
	client(&cl, 1);
	conn[0].broken = true;
	cl.s.have_session = false;   /* no session yet: CREATE_SESSION binds */
	CHECK(!replay_bind_holds(&cl), "no session: not held");
	client(&cl, 1);
	conn[0].broken = true;
	cl.v4 = false;               /* NFSv3 */
	CHECK(!replay_bind_holds(&cl), "NFSv3: not held");
}

int main(void)
{
	test_drop_cycle();
	test_second_connection();
	test_not_concerned();
	return check_summary("test_replay_bind_hold");
}
