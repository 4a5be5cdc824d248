/* The collector's join with the hosts' clock lines (src/daemon/coll_join.h):
 * a forwarder's CLOCK messages and this daemon's own lines reach the join
 * as the claims of their probe hosts, a line that came before the
 * sender's first record included.  The truth is the test's: monotonic
 * clocks days apart, real-time errors and claims it chooses, a liar it
 * makes. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "src/base/json.h"
#include "src/daemon/coll_join.h"

#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull

struct host { uint64_t mono_off; int64_t real_err; uint64_t t_step; int64_t step; };

static unsigned emitted;
static void on_fused(const struct nfsrdma_record *r, void *ctx) { (void)r; (void)ctx; emitted++; }

static size_t line_of(char *buf, size_t cap, const struct host *h, uint64_t t)
{
	int64_t real = (int64_t)t + h->real_err + (h->t_step && t >= h->t_step ? h->step : 0);
	return (size_t)snprintf(buf, cap,
				"{\"type\":\"clock\",\"host\":\"x\",\"mono_ns\":%llu,\"realtime_ns\":%lld,\"spread_ns\":500,"
				"\"synced\":true,\"maxerror_ns\":100000}",
				(unsigned long long)(t + h->mono_off), (long long)real);
}

static void lines(struct coll_join *cj, const struct host *c, const struct host *s, uint64_t t)
{
	char buf[512];
	struct fwd_meta m = { .kind = FWD_KIND_CLOCK, .host = "cl" };

	m.clock = buf;
	m.clock_len = line_of(buf, sizeof(buf), c, t);
	coll_join_add(cj, NULL, &m, 0);   /* from the forwarder */
	coll_join_clock(cj, "", buf, line_of(buf, sizeof(buf), s, t));   /* this daemon's own */
}

static void rpc(struct coll_join *cj, uint32_t xid, const struct host *c, const struct host *s, uint64_t t)
{
	struct nfsrdma_record r;
	struct fwd_meta m = { .kind = FWD_KIND_RECORD, .host = "cl", .vantage = REC_SRC_CLIENT_PROBE };
	uint64_t out = 1 * MS + (xid * 7919u) % 2000 * US, back = 1 * MS + (xid * 104729u) % 2000 * US;
	uint64_t recv = t + 5 * US + out, done = recv + 50 * US, reply = done + back;

	memset(&r, 0, sizeof(r));
	r.rec_version = NFSRDMA_RECORD_VERSION;
	r.source = REC_SRC_CLIENT_PROBE;
	r.vantages = REC_VT_CLIENT;
	r.xid = xid;
	r.flags = RECF_CALL | RECF_REPLY;
	r.vt_client[RCT_BEGIN] = t + c->mono_off;
	r.vt_client[RCT_SEND] = t + 5 * US + c->mono_off;
	r.vt_client[RCT_REPLY] = reply + c->mono_off;
	r.vt_client[RCT_END] = reply + 5 * US + c->mono_off;
	coll_join_add(cj, &r, &m, 0);
	memset(&r, 0, sizeof(r));
	r.rec_version = NFSRDMA_RECORD_VERSION;
	r.source = REC_SRC_SERVER_PROBE;
	r.vantages = REC_VT_SERVER;
	r.xid = xid;
	r.flags = RECF_CALL | RECF_REPLY;
	r.call_hdr = 28;
	r.vt_server[RST_RECV] = recv + s->mono_off;
	r.vt_server[RST_DISPATCH] = recv + 5 * US + s->mono_off;
	r.vt_server[RST_EXEC_DONE] = done + s->mono_off;
	r.vt_server[RST_SEND_POST] = done + 5 * US + s->mono_off;
	coll_join_add(cj, &r, NULL, 0);
}

static char *report(const struct coll_join *cj)
{
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct jw w;
	jw_init(&w, f);
	coll_join_report_json(cj, &w);
	jw_flush(&w);
	fclose(f);
	return buf;
}

static void run(bool lie)
{
	struct host c = { 3 * 86400 * S, 10 * US, lie ? 1000 * S + 30 * S : 0, 50 * (int64_t)MS };
	struct host s = { 9 * 3600 * S, -20 * (int64_t)US, 0, 0 };
	struct coll_join *cj = coll_join_new(on_fused, NULL, 0, false);
	uint64_t t0 = 1000 * S;

	/* the lines come first: no host of theirs exists yet */
	lines(cj, &c, &s, t0 - S);
	for (unsigned i = 0; i < 3000; i++) {
		uint64_t t = t0 + i * 20 * MS;
		if (i % 250 == 249)
			lines(cj, &c, &s, t);
		rpc(cj, 0x7000 + i, &c, &s, t);
	}
	struct coll_join_stats st;
	coll_join_get_stats(cj, &st);
	CHECK(st.clock_lines >= 2 * 12, "%llu clock lines given to the join", (unsigned long long)st.clock_lines);
	const char *rep = report(cj);
	const char *cl = strstr(rep, "\"clock_claims\":[");
	CHECK(cl != NULL, "the claims in the report: %s", rep);
	if (!cl)
		return;
	/* hosts: 0 = the forwarder's client probe (its first record), 1 = ours */
	const char *h0 = strstr(cl, "{\"host\":0,"), *h1 = strstr(cl, "{\"host\":1,");
	CHECK(h0 && h1, "both hosts claim: %s", cl);
	if (h0 && h1) {
		CHECK(strstr(h0, "\"used\":true") && strstr(h0, "\"used\":true") < strchr(h0, '}'), "the client's used");
		const char *t0s = strstr(h0, "\"trusted\":"), *t1s = strstr(h1, "\"trusted\":");
		CHECK(t0s && !strncmp(t0s, lie ? "\"trusted\":false" : "\"trusted\":true", lie ? 15 : 14),
		      "the forwarder's host %s: %s", lie ? "named" : "trusted", cl);
		CHECK(t1s && !strncmp(t1s, "\"trusted\":true", 14), "this daemon's host trusted: %s", cl);
	}
	/* the pair (host 0, host 1): offset = ours - the forwarder's, which the test set */
	const char *on = strstr(rep, "\"offset_ns\":"), *un = strstr(rep, "\"uncertainty_ns\":");
	CHECK(on && un, "a clock pair in the report: %s", rep);
	if (on && un) {
		long long off = strtoll(on + 12, NULL, 10), unc = strtoll(un + 17, NULL, 10);
		long long d = off - ((long long)s.mono_off - (long long)c.mono_off);
		CHECK((d < 0 ? -d : d) <= unc, "estimate %lld ns off the truth, +- %lld", d, unc);
	}
	const char *src = strstr(rep, "\"source\":\"");
	CHECK(src && !strncmp(src, lie ? "\"source\":\"causal\"" : "\"source\":\"hosts\"", lie ? 17 : 16),
	      "the pair from %s: %s", lie ? "the bounds after the lie" : "the host clocks", rep);
	coll_join_free(cj);
}

int main(void)
{
	run(false);
	run(true);
	return check_summary("coll_clock");
}
