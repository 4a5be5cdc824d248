/* The replay's connection plan (src/replay/replay_conns.c): how many
 * connections the machine lets it open (replay_conn_limit: the cap, the
 * open-file limit, the device's QP limit) and which connection each
 * traced client's calls go on (replay_conn_plan): its own while the limit
 * allows, then its own last, then another client's.  The expected plans
 * are worked out by hand from those rules. */
#include "check.h"

#include "src/replay/replay_engine.h"

/* A call of traced client `client` on traced connection `conn`. */
static void call(struct trace *t, unsigned client, uint32_t conn)
{
	struct tcall *tc = &t->calls[t->n++];
	memset(tc, 0, sizeof(*tc));
	tc->client = (uint16_t)client;
	tc->conn = conn;
	if (client + 1 > t->nclients)
		t->nclients = client + 1;
}

static void test_limit(void)
{
	const char *why = NULL;
	/* plenty of everything: the cap */
	CHECK_EQ_U64(replay_conn_limit(1u << 20, 2, 0, &why), REPLAY_CONN_CAP);
	CHECK(why && strstr(why, "cap"), "why %s", why);
	/* 1024 descriptors, 64 kept, 2 per RDMA connection: 480 */
	CHECK_EQ_U64(replay_conn_limit(1024, 2, 0, &why), 480);
	CHECK(why && strstr(why, "RLIMIT_NOFILE"), "why %s", why);
	/* TCP: a descriptor each: 960 */
	CHECK_EQ_U64(replay_conn_limit(1024, 1, 0, &why), 960);
	/* the device's QP limit below both */
	CHECK_EQ_U64(replay_conn_limit(1024, 2, 100, &why), 100);
	CHECK(why && strstr(why, "QP"), "why %s", why);
	/* a QP limit above the others does not bind */
	CHECK_EQ_U64(replay_conn_limit(1024, 2, 1u << 18, &why), 480);
	/* fewer descriptors than the reserve: still one connection */
	CHECK_EQ_U64(replay_conn_limit(16, 2, 0, &why), 1);
}

/* NFSv4.0 clients' callback servers (--delegations only): four
 * descriptors each, none for v3 or 4.1 clients, none without the option */
static void test_cb_fds(void)
{
	struct tclient cl[5] = {
		{ .vers = 4, .minor = 0 }, { .vers = 3 }, { .vers = 4, .minor = 1 },
		{ .vers = 4, .minor = 0 }, { .vers = 4, .minor = 2 },
	};
	struct trace t = { .clients = cl, .nclients = 5 };
	CHECK_EQ_U64(replay_cb_server_fds(&t, true), 8);
	CHECK_EQ_U64(replay_cb_server_fds(&t, false), 0);
	t.nclients = 3;
	CHECK_EQ_U64(replay_cb_server_fds(&t, true), 4);
	t.nclients = 0;
	CHECK_EQ_U64(replay_cb_server_fds(&t, true), 0);
}

int main(void)
{
	struct trace t;
	struct conn_plan p;

	test_limit();
	test_cb_fds();
	memset(&t, 0, sizeof(t));
	t.calls = calloc(64, sizeof(*t.calls));
	t.cap = 64;
	/* client 0: traced connections 10, 11 (and 10 again); client 1: 20;
	 * client 2: 30, 31; client 3: 40 */
	call(&t, 0, 10);   /* #0 */
	call(&t, 1, 20);   /* #1 */
	call(&t, 0, 11);   /* #2 */
	call(&t, 2, 30);   /* #3 */
	call(&t, 3, 40);   /* #4 */
	call(&t, 2, 31);   /* #5 */
	call(&t, 0, 10);   /* #6 */

	/* no limit: one connection per (client, traced connection), in
	 * trace order */
	CHECK(replay_conn_plan(&t, 100, &p) == 0, "plan");
	CHECK_EQ_U64(p.n, 6);
	CHECK_EQ_U64(p.wanted, 6);
	CHECK_EQ_U64(p.sharing, 0);
	unsigned want[] = { 0, 1, 2, 3, 4, 5, 0 };
	for (unsigned i = 0; i < 7; i++)
		CHECK(p.of_call[i].g == want[i], "call %u on %u, want %u", i, p.of_call[i].g, want[i]);
	CHECK_EQ_U64(p.cl[0].n, 2);
	CHECK_EQ_U64(p.of_call[6].xi, 0);   /* its first connection again */
	CHECK(!p.cl[3].shared, "client 3 has its own");
	replay_conn_plan_free(&p);

	/* a limit of 4: 0 gets 10 -> 0, 1 gets 20 -> 1, 0's 11 -> 2, 2's 30
	 * -> 3; then client 3 has none left: it shares connection 3 % 4 = 3
	 * (client 2's); client 2's 31 goes on its own last (3) */
	CHECK(replay_conn_plan(&t, 4, &p) == 0, "plan");
	CHECK_EQ_U64(p.n, 4);
	CHECK_EQ_U64(p.wanted, 6);
	CHECK_EQ_U64(p.sharing, 1);
	unsigned want4[] = { 0, 1, 2, 3, 3, 3, 0 };
	for (unsigned i = 0; i < 7; i++)
		CHECK(p.of_call[i].g == want4[i], "limit 4: call %u on %u, want %u", i, p.of_call[i].g, want4[i]);
	CHECK(p.cl[3].shared && !p.cl[2].shared && !p.cl[0].shared, "only client 3 shares");
	CHECK_EQ_U64(p.cl[2].n, 2);         /* 30 and 31, both on connection 3 */
	CHECK_EQ_U64(p.of_call[5].xi, 1);
	replay_conn_plan_free(&p);

	/* a limit of 1: every client on the one connection */
	CHECK(replay_conn_plan(&t, 1, &p) == 0, "plan");
	CHECK_EQ_U64(p.n, 1);
	CHECK_EQ_U64(p.sharing, 3);
	for (unsigned i = 0; i < 7; i++)
		CHECK(p.of_call[i].g == 0, "limit 1: call %u on %u", i, p.of_call[i].g);
	replay_conn_plan_free(&p);

	/* a client with more traced connections than RC_MAXCONN: its later
	 * ones on its last, not counted as wanted */
	free(t.calls);
	memset(&t, 0, sizeof(t));
	t.calls = calloc(64, sizeof(*t.calls));
	t.cap = 64;
	for (unsigned c = 0; c < RC_MAXCONN + 2; c++)
		call(&t, 0, 100 + c);
	CHECK(replay_conn_plan(&t, 100, &p) == 0, "plan");
	CHECK_EQ_U64(p.n, RC_MAXCONN);
	CHECK_EQ_U64(p.wanted, RC_MAXCONN);
	CHECK_EQ_U64(p.of_call[RC_MAXCONN + 1].g, RC_MAXCONN - 1);
	replay_conn_plan_free(&p);
	free(t.calls);
	return check_summary("replay-conns");
}
