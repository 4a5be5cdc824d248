/* A group's verdict (src/stats/verdict_sum.c) from joined records whose
 * places and segments are set here by hand: every expected sum, share and
 * sentence is worked out in the comments from those records, never taken
 * from another output. */
#include "check.h"
#include "src/stats/verdict_sum.h"

#define PL(x) ((uint16_t)(1u << REC_PL_##x))
#define US 1000ull
#define MS 1000000ull

static void joined(struct nfsrdma_record *r)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_JOINED;
	r->vantages = REC_VT_ALL;
}

static void place(struct nfsrdma_record *r, uint16_t places, uint64_t ns)
{
	r->f_place[r->f_nplace++] = (struct rec_place_ns){ .ns = ns, .places = places };
	r->f_total += ns;
}

static void seg(struct nfsrdma_record *r, unsigned sg, uint64_t ns)
{
	r->f_seg[sg] = ns;
	r->f_seg_mask |= 1u << sg;
}

static void words(void)
{
	char b[160];

	CHECK_EQ_STR(verdict_words(PL(SERVER_NET), 834, b, sizeof(b)), "server-side network 83%");
	CHECK_EQ_STR(verdict_words(PL(SERVER_QUEUE) | PL(EXECUTE), 700, b, sizeof(b)),
		     "unresolved between server queue and server execute 70%");
	CHECK_EQ_STR(verdict_words(PL(CLIENT_NET) | PL(SERVER_NET) | PL(SERVER_QUEUE), 405, b, sizeof(b)),
		     "unresolved between client-side network, server-side network and server queue 41%");
	CHECK_EQ_STR(verdict_words(0, 500, b, sizeof(b)), "");
	CHECK_EQ_STR(verdict_places_str(PL(CLIENT_NET) | PL(SERVER_NET), '|', b, sizeof(b)), "client_net|server_net");
	CHECK_EQ_STR(verdict_places_str(PL(REPLY_WAIT), ',', b, sizeof(b)), "reply_wait");
	/* a short buffer truncates, never overruns */
	char s[12];
	memset(s, 'x', sizeof(s));
	verdict_words(PL(SERVER_QUEUE) | PL(EXECUTE), 700, s, sizeof(s));
	CHECK(strlen(s) == sizeof(s) - 1 && !strncmp(s, "unresolved ", 11), "truncated: \"%s\"", s);
}

int main(void)
{
	struct verdict_sum v;
	struct verdict_of o;
	struct nfsrdma_record r;
	uint64_t m;

	words();

	/* 20 ms injected on the server's egress in 9 RPCs: each 20.1 ms
	 * server_net, 50 us execute, 30 us client_net; one clean RPC of
	 * 50 us execute, 30 us client_net, 20 us server_net.  Sums:
	 * server_net 9 * 20.1 + 0.02 = 180.92 ms, execute 0.5 ms, client_net
	 * 0.3 ms; all 181.72 ms; share 180.92 / 181.72 = 0.99560 -> 996 pm. */
	memset(&v, 0, sizeof(v));
	for (int i = 0; i < 10; i++) {
		joined(&r);
		uint64_t sn = i < 9 ? 20100 * US : 20 * US;
		place(&r, PL(SERVER_NET), sn);
		place(&r, PL(EXECUTE), 50 * US);
		place(&r, PL(CLIENT_NET), 30 * US);
		seg(&r, REC_SEG_SERVER_NET, sn);
		seg(&r, REC_SEG_CLIENT_NET, 30 * US);
		verdict_sum_add(&v, &r);
	}
	CHECK_EQ_U64(v.n, 10);
	CHECK_EQ_U64(v.ns, 181720 * US);
	CHECK(verdict_sum_get(&v, &o), "a verdict");
	CHECK_EQ_U64(o.places, PL(SERVER_NET));
	CHECK_EQ_U64(o.ns, 180920 * US);
	CHECK_EQ_U64(o.pm, 996);
	CHECK(verdict_sum_seg_mean(&v, REC_SEG_SERVER_NET, &m) && m == 18092 * US, "server_net mean %llu",
	      (unsigned long long)m);
	CHECK(verdict_sum_seg_mean(&v, REC_SEG_CLIENT_NET, &m) && m == 30 * US, "client_net mean");
	CHECK(!verdict_sum_seg_mean(&v, REC_SEG_CLIENT_OUT, &m), "no RPC had client_net_out");
	CHECK_EQ_U64(v.seg_n[REC_SEG_SERVER_NET], 10);

	/* Directions the clocks cannot give: the network is one share naming
	 * both sides (8 ms), beside a 3 ms queue+execute span and 1 ms
	 * client host, in 4 RPCs.  The verdict is the pair, 8 / 12 = 667 pm;
	 * no segment known. */
	memset(&v, 0, sizeof(v));
	for (int i = 0; i < 4; i++) {
		joined(&r);
		place(&r, PL(CLIENT_NET) | PL(SERVER_NET), 8 * MS);
		place(&r, PL(SERVER_QUEUE) | PL(EXECUTE), 3 * MS);
		place(&r, PL(CLIENT_HOST), 1 * MS);
		verdict_sum_add(&v, &r);
	}
	CHECK(verdict_sum_get(&v, &o), "a verdict");
	CHECK_EQ_U64(o.places, PL(CLIENT_NET) | PL(SERVER_NET));
	CHECK_EQ_U64(o.pm, 667);
	CHECK(!verdict_sum_seg_mean(&v, REC_SEG_SERVER_NET, &m), "no segment");

	/* Two groups merged: the one above (48 ms: 32 net pair, 12
	 * queue+execute, 4 host) and 2 RPCs of 30 ms execute alone (60 ms):
	 * 108 ms, execute 60 / 108 = 556 pm. */
	struct verdict_sum w;
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < 2; i++) {
		joined(&r);
		place(&r, PL(EXECUTE), 30 * MS);
		verdict_sum_add(&w, &r);
	}
	verdict_sum_merge(&v, &w);
	CHECK_EQ_U64(v.n, 6);
	CHECK_EQ_U64(v.ns, 108 * MS);
	CHECK(verdict_sum_get(&v, &o) && o.places == PL(EXECUTE) && o.pm == 556, "merged: places %u pm %u",
	      o.places, o.pm);

	/* Records not joined, and joined ones with no places, leave no share */
	memset(&v, 0, sizeof(v));
	memset(&r, 0, sizeof(r));
	r.source = REC_SRC_WIRE;
	r.f_nplace = 1;
	r.f_place[0] = (struct rec_place_ns){ .ns = 5 * MS, .places = PL(EXECUTE) };
	verdict_sum_add(&v, &r);
	joined(&r);
	verdict_sum_add(&v, &r);
	CHECK_EQ_U64(v.n, 0);
	CHECK(!verdict_sum_get(&v, &o) && !o.places, "no verdict without time");

	/* The bound: 12 sets of 1 ms each fill it; 3 more distinct sets of
	 * 2 ms overflow (3 shares, 6 ms).  The largest kept set (1 ms, the
	 * first by place bits) is outweighed by what overflowed: no verdict.
	 * Then 10 ms more in the first set: 11 ms > 6 ms overflowed, a
	 * verdict of 11 / (12 + 6 + 10) = 393 pm. */
	memset(&v, 0, sizeof(v));
	for (unsigned k = 1; k <= 15; k++) {
		joined(&r);
		place(&r, (uint16_t)k, k <= 12 ? 1 * MS : 2 * MS);
		verdict_sum_add(&v, &r);
	}
	CHECK_EQ_U64(v.nset, VSUM_SETS);
	CHECK_EQ_U64(v.overflow, 3);
	CHECK_EQ_U64(v.overflow_ns, 6 * MS);
	CHECK(!verdict_sum_get(&v, &o), "overflow could outweigh: no verdict");
	verdict_sum_add_set(&v, 1, 10 * MS);
	CHECK(verdict_sum_get(&v, &o) && o.places == 1 && o.pm == 393, "after: places %u pm %u", o.places, o.pm);

	return check_summary("test_verdict_sum");
}
