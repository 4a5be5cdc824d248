/* Disciplined host clocks in the join (src/join/clock_claim.h): hosts whose
 * monotonic clocks are days apart, whose real-time clocks the test puts a
 * known error away from true time, and clock lines claiming an error the
 * test chooses.  The truth is the test's own timeline: the offset between
 * two monotonic clocks is the difference of the offsets it set; a liar is
 * the host it made lie. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "src/join/join.h"

#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull
#define DAY (86400ull * S)

struct host {
	uint64_t mono_off;    /* mono = true + mono_off */
	int64_t  real_err;    /* realtime = true + real_err (+ step after t_step) */
	uint64_t claim;       /* maxerror_ns its clock lines claim */
	uint64_t t_step;      /* true time its real-time clock is stepped (0: never) */
	int64_t  step;
	bool     synced;
};

static uint64_t mono(const struct host *h, uint64_t t) { return t + h->mono_off; }

static void clock_line(struct join *j, unsigned id, const struct host *h, uint64_t t)
{
	char line[512];
	int64_t real = (int64_t)t + h->real_err + (h->t_step && t >= h->t_step ? h->step : 0);
	int n = snprintf(line, sizeof(line),
			 "{\"type\":\"clock\",\"host\":\"h%u\",\"mono_ns\":%llu,\"realtime_ns\":%lld,\"tai_ns\":null,"
			 "\"spread_ns\":1000,\"synced\":%s,\"state\":0,\"status\":8193,\"esterror_ns\":1000,"
			 "\"maxerror_ns\":%llu,\"offset_ns\":0,\"freq_ppm\":1.500,\"tai_offset_s\":37,\"ptp\":[]}",
			 id, (unsigned long long)mono(h, t), (long long)real, h->synced ? "true" : "false",
			 (unsigned long long)h->claim);
	char err[128];
	CHECK(join_clock_line(j, id, line, (size_t)n, err, sizeof(err)) == 0, "host %u's clock line: %s", id, err);
}

/* One RPC from client c to server s at true time t: the network takes 1 to
 * 3 ms each way (so the causal bounds are loose: about +-1 ms). */
static void rpc(struct join *j, uint32_t xid, unsigned ci, const struct host *c, unsigned si,
		const struct host *s, uint64_t t)
{
	struct nfsrdma_record r;
	uint64_t out = 1 * MS + (xid * 7919u) % 2000 * US, back = 1 * MS + (xid * 104729u) % 2000 * US;
	uint64_t send = t + 5 * US, recv = send + out, done = recv + 50 * US, reply = done + back;

	memset(&r, 0, sizeof(r));
	r.rec_version = NFSRDMA_RECORD_VERSION;
	r.source = REC_SRC_CLIENT_PROBE;
	r.vantages = REC_VT_CLIENT;
	r.xid = xid;
	r.flags = RECF_CALL | RECF_REPLY;
	r.vt_client[RCT_BEGIN] = mono(c, t);
	r.vt_client[RCT_MARSHAL] = mono(c, t + 2 * US);
	r.vt_client[RCT_SEND] = mono(c, send);
	r.vt_client[RCT_REPLY] = mono(c, reply);
	r.vt_client[RCT_END] = mono(c, reply + 5 * US);
	CHECK(join_add(j, &r, ci) == 0, "client record %u", xid);
	memset(&r, 0, sizeof(r));
	r.rec_version = NFSRDMA_RECORD_VERSION;
	r.source = REC_SRC_SERVER_PROBE;
	r.vantages = REC_VT_SERVER;
	r.xid = xid;
	r.flags = RECF_CALL | RECF_REPLY;
	r.call_hdr = 28;
	r.vt_server[RST_RECV] = mono(s, recv);
	r.vt_server[RST_DISPATCH] = mono(s, recv + 5 * US);
	r.vt_server[RST_EXEC_DONE] = mono(s, done);
	r.vt_server[RST_SEND_POST] = mono(s, done + 5 * US);
	CHECK(join_add(j, &r, si) == 0, "server record %u", xid);
}

static unsigned emitted, negatives;
static void on_fused(const struct nfsrdma_record *r, void *ctx)
{
	(void)ctx;
	emitted++;
	negatives += !!(r->f_flags & RECFF_NEGATIVE);
	if (getenv("CLAIMS_SHOW") && (r->f_flags & RECFF_NEGATIVE))
		fprintf(stderr, "negative: xid %x flags %x unc %llu\n", r->xid, r->f_flags, (unsigned long long)r->f_uncert_ns);
}

static struct join *new_join(void)
{
	struct join_opts o = { .expect = REC_VT_CLIENT | REC_VT_SERVER };
	negatives = 0;
	return join_new(&o, on_fused, NULL);
}

/* the truth: b - a of the monotonic clocks */
static int64_t true_off(const struct host *a, const struct host *b) { return (int64_t)(b->mono_off - a->mono_off); }

static void check_inside(const struct join *j, unsigned a, unsigned b, const struct host *ha,
			 const struct host *hb, uint64_t t, bool hosts, const char *what)
{
	struct clock_est e;
	CHECK(join_clock(j, a, b, mono(ha, t), &e) == 0, "%s: an estimate", what);
	int64_t d = e.offset_ns - true_off(ha, hb);
	CHECK((uint64_t)(d < 0 ? -d : d) <= e.uncertainty_ns, "%s: %lld ns off the truth, +- %llu", what,
	      (long long)d, (unsigned long long)e.uncertainty_ns);
	CHECK(e.from_hosts == hosts, "%s: from the host clocks %d, expected %d", what, e.from_hosts, hosts);
	struct clock_est c;
	if (hosts && join_clock_causal(j, a, b, mono(ha, t), &c) == 0)
		CHECK(e.uncertainty_ns < c.uncertainty_ns, "%s: +- %llu, causal +- %llu", what,
		      (unsigned long long)e.uncertainty_ns, (unsigned long long)c.uncertainty_ns);
	else if (hosts)
		CHECK(0, "%s: no causal estimate", what);
}

static char *report(const struct join *j)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	join_report_json(j, f, NULL);
	join_report(j, f, NULL);
	fclose(f);
	if (getenv("CLAIMS_SHOW"))
		fputs(buf, stderr);
	return buf;
}

/* "host":N ... its element of clock_claims */
static const char *claim_of(const char *rep, unsigned h)
{
	char key[32];
	const char *c = strstr(rep, "\"clock_claims\":[");
	snprintf(key, sizeof(key), "{\"host\":%u,", h);
	return c ? strstr(c, key) : NULL;
}

static bool claim_has(const char *rep, unsigned h, const char *what)
{
	const char *c = claim_of(rep, h), *end = c ? strchr(c, '}') : NULL;
	const char *w = c ? strstr(c, what) : NULL;
	return w && w < end;
}

/* Two honest hosts claiming 100 us: their clocks are used, tighter than
 * the bounds, and the truth is inside. */
static void honest_pair(void)
{
	struct host c = { 3 * DAY + 1234567, 20 * US, 100 * US, 0, 0, true };
	struct host s = { 5 * 3600 * S + 7654321, -30 * (int64_t)US, 100 * US, 0, 0, true };
	struct join *j = new_join();
	uint64_t t0 = 1000 * S;

	for (unsigned i = 0; i < 3000; i++) {
		uint64_t t = t0 + i * 20 * MS;
		if (i % 250 == 0) {
			clock_line(j, 1, &c, t);
			clock_line(j, 2, &s, t);
		}
		rpc(j, 0x1000 + i, 1, &c, 2, &s, t);
	}
	check_inside(j, 1, 2, &c, &s, t0 + 59 * S, true, "honest pair, client to server");
	check_inside(j, 2, 1, &s, &c, t0 + 59 * S, true, "honest pair, server to client");
	join_flush(j);
	CHECK(negatives == 0, "%u RPCs with a negative phase (the timeline has none)", negatives);
	const char *rep = report(j);
	CHECK(claim_has(rep, 1, "\"used\":true") && claim_has(rep, 2, "\"used\":true"), "both used: %s", rep);
	CHECK(claim_has(rep, 1, "\"trusted\":true") && claim_has(rep, 2, "\"trusted\":true"), "both trusted");
	CHECK(strstr(rep, "\"source\":\"hosts\"") != NULL, "the pair's clock from the hosts: %s", rep);
	CHECK(!strstr(rep, "CONTRADICTED"), "nothing contradicted");
	join_free(j);
}

/* Three hosts; client 2 claims 100 us but is 3 ms off from the start: the
 * server, vouched for by client 1, is not blamed; client 2 is named. */
static void liar_from_start(int64_t err)
{
	struct host c1 = { 2 * DAY, 10 * US, 100 * US, 0, 0, true };
	struct host c2 = { 4 * DAY + 999, err, 100 * US, 0, 0, true };
	struct host s = { 7 * 3600 * S, -15 * (int64_t)US, 100 * US, 0, 0, true };
	struct join *j = new_join();
	uint64_t t0 = 500 * S;

	for (unsigned i = 0; i < 4000; i++) {
		uint64_t t = t0 + i * 15 * MS;
		if (i % 300 == 0) {
			clock_line(j, 1, &c1, t);
			clock_line(j, 2, &c2, t);
			clock_line(j, 3, &s, t);
		}
		if (i % 2)
			rpc(j, 0x20000 + i, 1, &c1, 3, &s, t);
		else
			rpc(j, 0x20000 + i, 2, &c2, 3, &s, t);
	}
	uint64_t tq = t0 + 59 * S;
	check_inside(j, 1, 3, &c1, &s, tq, true, "liar: the honest pair");
	check_inside(j, 2, 3, &c2, &s, tq, false, "liar: its pair back on the bounds");
	join_flush(j);
	CHECK(negatives == 0, "%u RPCs with a negative phase (the timeline has none)", negatives);
	const char *rep = report(j);
	CHECK(claim_has(rep, 2, "\"trusted\":false"), "client 2 named (%lld ns off): %s", (long long)err, rep);
	CHECK(!claim_has(rep, 2, "\"contradicted\":0,"), "client 2's contradictions counted");
	CHECK(claim_has(rep, 1, "\"trusted\":true") && claim_has(rep, 3, "\"trusted\":true"),
	      "the honest hosts not named");
	CHECK(strstr(rep, "join: host clock host 2:") && strstr(strstr(rep, "join: host clock host 2:"), "CONTRADICTED"),
	      "the text names host 2");
	join_free(j);
}

/* Two hosts in sync, then the client's real-time clock is stepped +50 ms
 * while its lines still claim 100 us: it is named, the pair goes back to
 * the bounds and the truth stays inside. */
static void stepped_liar(void)
{
	uint64_t t0 = 2000 * S;
	struct host c = { 1 * DAY + 5, 5 * US, 100 * US, t0 + 40 * S, 50 * (int64_t)MS, true };
	struct host s = { 9 * DAY + 77, 0, 100 * US, 0, 0, true };
	struct join *j = new_join();

	for (unsigned i = 0; i < 5000; i++) {
		uint64_t t = t0 + i * 20 * MS;
		if (i % 250 == 0) {
			clock_line(j, 1, &c, t);
			clock_line(j, 2, &s, t);
		}
		if (i == 1500)
			check_inside(j, 1, 2, &c, &s, t, true, "before the step");
		rpc(j, 0x30000 + i, 1, &c, 2, &s, t);
	}
	check_inside(j, 1, 2, &c, &s, t0 + 99 * S, false, "after the step");
	join_flush(j);
	CHECK(negatives == 0, "%u RPCs with a negative phase (the timeline has none)", negatives);
	const char *rep = report(j);
	CHECK(claim_has(rep, 1, "\"trusted\":false") && claim_has(rep, 1, "\"steps\":1,"), "the stepped host named: %s",
	      rep);
	CHECK(claim_has(rep, 2, "\"trusted\":true"), "the server not named");
	CHECK(claim_has(rep, 1, "\"used\":true"), "used before the step");
	join_free(j);
}

/* Two hosts, one off from the start and no step: the data cannot tell
 * which, and both are named. */
static void two_cannot_tell(void)
{
	struct host c = { 1 * DAY, 3 * (int64_t)MS, 100 * US, 0, 0, true };
	struct host s = { 2 * DAY, 0, 100 * US, 0, 0, true };
	struct join *j = new_join();

	for (unsigned i = 0; i < 1000; i++) {
		uint64_t t = 100 * S + i * 20 * MS;
		if (i % 250 == 0) {
			clock_line(j, 1, &c, t);
			clock_line(j, 2, &s, t);
		}
		rpc(j, 0x40000 + i, 1, &c, 2, &s, t);
	}
	check_inside(j, 1, 2, &c, &s, 100 * S + 19 * S, false, "two hosts, one lying");
	const char *rep = report(j);
	CHECK(claim_has(rep, 1, "\"trusted\":false") && claim_has(rep, 2, "\"trusted\":false"), "both named: %s", rep);
	join_free(j);
}

/* Unsynchronised or loose claims are not used; the bounds answer. */
static void not_used(bool synced, uint64_t claim)
{
	struct host c = { 1 * DAY, 0, claim, 0, 0, synced };
	struct host s = { 3 * DAY, 0, claim, 0, 0, synced };
	struct join *j = new_join();

	for (unsigned i = 0; i < 1000; i++) {
		uint64_t t = 100 * S + i * 20 * MS;
		if (i % 250 == 0) {
			clock_line(j, 1, &c, t);
			clock_line(j, 2, &s, t);
		}
		rpc(j, 0x50000 + i, 1, &c, 2, &s, t);
	}
	check_inside(j, 1, 2, &c, &s, 100 * S + 19 * S, false, synced ? "a loose claim" : "unsynchronised");
	const char *rep = report(j);
	CHECK(claim_has(rep, 1, "\"used\":false") && claim_has(rep, 1, "\"trusted\":true"), "not used, not named: %s",
	      rep);
	join_free(j);
}

static void bad_lines(void)
{
	struct join *j = new_join();
	char err[128];
	static const char *const bad[] = {
		"{\"type\":\"clock\"}",
		"{\"type\":\"clock\",\"mono_ns\":1,\"realtime_ns\":2,\"spread_ns\":3}",
		"{\"type\":\"clock\",\"mono_ns\":-1,\"realtime_ns\":2,\"spread_ns\":3,\"maxerror_ns\":4,\"synced\":true}",
		"{\"type\":\"clock\",\"mono_ns\":1x,\"realtime_ns\":2,\"spread_ns\":3,\"maxerror_ns\":4,\"synced\":true}",
		"{\"type\":\"clock\",\"mono_ns\":99999999999999999999999,\"realtime_ns\":2,\"spread_ns\":3,"
		"\"maxerror_ns\":4,\"synced\":true}",
		"{\"type\":\"clock\",\"mono_ns\":1,\"realtime_ns\":2,\"spread_ns\":3,\"maxerror_ns\":4}",
		"{\"type\":\"clock\",\"mono_ns\":",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK(join_clock_line(j, 1, bad[i], strlen(bad[i]), err, sizeof(err)) == -EINVAL && err[0],
		      "bad line %u refused with a reason", i);
	}
	/* the line cut at its length: the key past len is not read */
	const char *cut = "{\"type\":\"clock\",\"mono_ns\":5,\"realtime_ns\":7,\"spread_ns\":1,\"maxerror_ns\":4,\"synced\":true}";
	CHECK(join_clock_line(j, 1, cut, strlen(cut) - 14, err, sizeof(err)) == -EINVAL, "a cut line refused");
	CHECK(join_clock_line(j, 1, cut, strlen(cut), err, sizeof(err)) == 0, "the whole line kept");
	const char *other = "{\"type\":\"summary\",\"mono_ns\":1}";
	CHECK(join_clock_line(j, 1, other, strlen(other), err, sizeof(err)) == 1, "another type is not a clock line");
	CHECK(join_clock_line(j, JOIN_MAX_HOSTS, cut, strlen(cut), err, sizeof(err)) == -EINVAL, "host out of range");
	join_free(j);
}

int main(void)
{
	honest_pair();
	liar_from_start(3 * (int64_t)MS);
	liar_from_start(-3 * (int64_t)MS);
	stepped_liar();
	two_cannot_tell();
	not_used(false, 100 * US);
	not_used(true, 5 * MS);
	bad_lines();
	return check_summary("join_claims");
}
