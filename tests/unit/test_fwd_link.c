/* nfsrdmad's forward link over real ZeroMQ on loopback (no mocks): the
 * message codec (round trip, every truncation, bad versions and counts),
 * the collector's allow-lists (address, CURVE key), and hostile messages
 * from a raw ZeroMQ socket: each refused, counted, no crash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#include "check.h"
#include "src/base/clock.h"
#include "src/base/log.h"
#include "src/daemon/fwd_link.h"
#include "src/daemon/fwd_msg.h"

static struct nfsrdma_record sample(uint32_t xid)
{
	struct nfsrdma_record r;

	memset(&r, 0, sizeof(r));
	r.rec_version = NFSRDMA_RECORD_VERSION;
	r.source = REC_SRC_WIRE;
	r.flags = RECF_CALL | RECF_REPLY;
	r.xid = xid;
	r.prog = 100003;
	r.vers = 3;
	r.proc = 6;
	r.t_call_first = 1000;
	r.t_call_last = 1100;
	r.t_reply_first = 5000;
	r.t_reply_last = 5200;
	r.nops = 1;
	r.ops[0].op = 6;
	r.nfindings = 1;
	r.finding[0].id = 3;
	snprintf(r.name, sizeof(r.name), "file-%u", xid);
	rec_derive(&r);
	return r;
}

static void codec(void)
{
	struct nfsrdma_record r = sample(0x1234), out;
	struct fwd_meta m = { .host = "client-a", .vantage = REC_SRC_WIRE, .session = 77, .seq = 5, .dropped = 2,
			      .realtime_ns = 111, .mono_ns = 222 }, mo;
	uint8_t buf[FWD_MSG_MAX];
	size_t off, n = fwd_msg_encode(buf, &m, &r);

	/* the documented layout: header, host, fixed part, the findings and ops used */
	CHECK_EQ_U64(n, FWD_HDR_LEN + 8 + FWD_REC_FIXED + sizeof(struct rec_finding) + sizeof(struct rec_op) +
			FWD_REC_VT_LEN);
	CHECK(n < sizeof(r) / 2, "a one-op record crosses in %zu bytes of its %zu", n, sizeof(r));
	CHECK_EQ_U64(fwd_msg_decode(buf, n, &mo, &out, &off), 0);
	CHECK_EQ_STR(mo.host, "client-a");
	CHECK_EQ_U64(mo.session, 77);
	CHECK_EQ_U64(mo.seq, 5);
	CHECK_EQ_U64(mo.dropped, 2);
	CHECK_EQ_U64(mo.realtime_ns, 111);
	CHECK_EQ_U64(mo.mono_ns, 222);
	CHECK_EQ_U64(out.xid, 0x1234);
	CHECK_EQ_U64(out.d_total, 4200);
	CHECK_EQ_U64(out.ops[0].op, 6);
	CHECK_EQ_U64(out.finding[0].id, 3);
	CHECK_EQ_STR(out.name, "file-4660");
	CHECK(!memcmp(&out, &r, sizeof(r)), "the record comes back as it went");

	/* every cut short is refused as truncated or trailing-free */
	unsigned bad = 0;
	for (size_t l = 0; l < n; l++)
		bad += fwd_msg_decode(buf, l, &mo, &out, &off) == -FWD_ERR_SHORT;
	CHECK_EQ_U64(bad, n);
	/* one byte more than was written: not ours */
	buf[n] = 0;
	CHECK_EQ_U64(fwd_msg_decode(buf, n + 1, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);

	uint8_t b2[FWD_MSG_MAX];
	memcpy(b2, buf, n);
	b2[0] = 'X';
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_MAGIC);
	memcpy(b2, buf, n);
	b2[4] = FWD_MSG_VERSION + 1;
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_VERSION);
	CHECK_EQ_U64(off, 4);
	memcpy(b2, buf, n);
	b2[6] = NFSRDMA_RECORD_VERSION + 1;   /* record version, low byte */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_VERSION);
	memcpy(b2, buf, n);
	b2[10] = REC_MAX_FINDINGS + 1;        /* findings count */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);
	memcpy(b2, buf, n);
	b2[FWD_HDR_LEN] = '"';                /* a quote in the host name */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);

	/* the vantage part crosses (a probe record's task begin, a server
	 * record's Send post); the fused split does not: the collector derives it */
	struct nfsrdma_record pr = r;
	pr.vantages = REC_VT_CLIENT;
	pr.vt_client[0] = 1000001;
	pr.vt_client[RCT_N - 1] = 1000999;
	pr.vt_server[RST_N - 1] = 77;
	pr.f_phase[0] = 5;
	pr.f_total = 5;
	size_t pn = fwd_msg_encode(b2, &m, &pr);
	CHECK_EQ_U64(pn, n);
	CHECK_EQ_U64(fwd_msg_decode(b2, pn, &mo, &out, &off), 0);
	CHECK_EQ_U64(out.vantages, REC_VT_CLIENT);
	CHECK_EQ_U64(out.vt_client[0], 1000001);
	CHECK_EQ_U64(out.vt_client[RCT_N - 1], 1000999);
	CHECK_EQ_U64(out.vt_server[RST_N - 1], 77);
	CHECK_EQ_U64(out.f_phase[0], 0);
	CHECK_EQ_U64(out.f_total, 0);
	pr.vantages = 8;                      /* no such vantage */
	pn = fwd_msg_encode(b2, &m, &pr);
	CHECK_EQ_U64(fwd_msg_decode(b2, pn, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);
	pr.vantages = REC_VT_CLIENT;
	pr.f_clock = REC_VT_CLIENT | REC_VT_WIRE;   /* one clock, not two */
	pn = fwd_msg_encode(b2, &m, &pr);
	CHECK_EQ_U64(fwd_msg_decode(b2, pn, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);

	/* the end of a run: header and host only */
	struct fwd_meta e = m;
	e.seq = 99;
	n = fwd_msg_encode_end(buf, &e);
	CHECK_EQ_U64(n, FWD_HDR_LEN + 8);
	CHECK_EQ_U64(fwd_msg_decode(buf, n, &mo, &out, &off), 0);
	CHECK_EQ_U64(mo.kind, FWD_KIND_END);
	CHECK_EQ_U64(mo.seq, 99);
	CHECK_EQ_U64(fwd_msg_decode(buf, n - 1, &mo, &out, &off), (uint64_t)-FWD_ERR_SHORT);
	memcpy(b2, buf, n);
	b2[13] = 7;                           /* no such kind */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);

	/* a clock line: header, host, the line; hostile ones refused */
	static const char line[] = "{\"type\":\"clock\",\"mono_ns\":5,\"realtime_ns\":7}";
	struct fwd_meta cm = m;
	cm.vantage = 0;
	n = fwd_msg_encode_clock(buf, &cm, line, strlen(line));
	CHECK_EQ_U64(n, FWD_HDR_LEN + 8 + strlen(line));
	CHECK_EQ_U64(fwd_msg_decode(buf, n, &mo, &out, &off), 0);
	CHECK_EQ_U64(mo.kind, FWD_KIND_CLOCK);
	CHECK(mo.clock_len == strlen(line) && mo.clock && !memcmp(mo.clock, line, mo.clock_len), "the line back");
	CHECK_EQ_STR(mo.host, "client-a");
	CHECK_EQ_U64(fwd_msg_decode(buf, n - 1, &mo, &out, &off), (uint64_t)-FWD_ERR_SHORT);
	memcpy(b2, buf, n);
	b2[n - 3] = '\n';                     /* a control byte: not one line of JSON */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);
	CHECK_EQ_U64(off, n - 3);
	memcpy(b2, buf, n);
	b2[5] = REC_SRC_WIRE;                 /* a clock line is of no vantage */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);
	memcpy(b2, buf, n);
	b2[10] = 1;                           /* findings in a clock message */
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_FIELD);
	memcpy(b2, buf, n);
	b2[8] = (FWD_CLOCK_MAX + 1) & 0xff;   /* longer than a clock line may be */
	b2[9] = (FWD_CLOCK_MAX + 1) >> 8;
	CHECK_EQ_U64(fwd_msg_decode(b2, n, &mo, &out, &off), (uint64_t)-FWD_ERR_VERSION);
	CHECK_EQ_U64(fwd_msg_encode_clock(buf, &cm, line, 0), 0);
	CHECK_EQ_U64(fwd_msg_encode_clock(buf, &cm, line, FWD_CLOCK_MAX + 1), 0);

	/* the sender's phases are not trusted: derived again on arrival */
	struct nfsrdma_record lie = r;
	lie.d_total = 999999;
	lie.d_phase[0] = 999999;
	n = fwd_msg_encode(buf, &m, &lie);
	CHECK_EQ_U64(fwd_msg_decode(buf, n, &mo, &out, &off), 0);
	CHECK_EQ_U64(out.d_total, 4200);
	/* a name without its NUL is cut, not read past */
	lie = r;
	memset(lie.name, 'a', sizeof(lie.name));
	n = fwd_msg_encode(buf, &m, &lie);
	CHECK_EQ_U64(fwd_msg_decode(buf, n, &mo, &out, &off), 0);
	CHECK_EQ_U64(strlen(out.name), REC_NAME_MAX - 1);
}

static void options(void)
{
	char err[600];

	CHECK(fwd_check_collect("0.0.0.0:9000", false, err, sizeof(err)) == -EINVAL, "0.0.0.0 refused");
	CHECK(strstr(err, "--collect-any") != NULL, "the error names the way out: %s", err);
	CHECK(fwd_check_collect("*:9000", false, err, sizeof(err)) == -EINVAL, "* refused");
	CHECK(fwd_check_collect("[::]:9000", false, err, sizeof(err)) == -EINVAL, ":: refused");
	CHECK(fwd_check_collect(":9000", false, err, sizeof(err)) == -EINVAL, "no address: refused");
	CHECK(fwd_check_collect("0.0.0.0:9000", true, err, sizeof(err)) == 0, "0.0.0.0 with --collect-any");
	CHECK(fwd_check_collect("127.0.0.1:9000", false, err, sizeof(err)) == 0, "one address");
	CHECK(fwd_check_collect("[::1]:9000", false, err, sizeof(err)) == 0, "one v6 address");
	CHECK(fwd_check_collect("server:9000", false, err, sizeof(err)) == -EINVAL, "a name is not an address");
	CHECK(fwd_check_collect("127.0.0.1:0", false, err, sizeof(err)) == -EINVAL, "port 0");
	CHECK(fwd_check_forward("server.example:9000", err, sizeof(err)) == 0, "forward to a name");
	CHECK(fwd_check_forward("server.example", err, sizeof(err)) == -EINVAL, "no port");
	CHECK(fwd_check_addr("0.0.0.0", err, sizeof(err)) == -EINVAL, "allow-list: no wildcard");
	struct fwd_cfg c = { .collect = "127.0.0.1:9000" };
	CHECK(fwd_check_cfg(&c, err, sizeof(err)) == -EINVAL, "a collector with no allow-list");
}

/* ---- live links ---- */

static unsigned got;
static uint32_t last_xid;
static void on_rec(const struct nfsrdma_record *r, const struct fwd_meta *m, const struct coll_peer *p, void *ctx)
{
	got++;
	last_xid = r->xid;
}

/* Drives the collector until cond holds or 5 s pass (a bound, not a
 * measurement). */
#define PUMP(k, cond)                                                          \
	do {                                                                   \
		uint64_t t_end_ = clock_mono_ns() + 5000000000ull;             \
		while (!(cond) && clock_mono_ns() < t_end_) {                  \
			coll_poll(k, NULL, 0, 50);                             \
			coll_drain(k, 1000, on_rec, NULL);                     \
		}                                                              \
	} while (0)

static unsigned port_base;

static void allow_by_address(void)
{
	char ep[64], err[600], collect[64];
	struct collector *k;

	snprintf(collect, sizeof(collect), "127.0.0.1:%u", port_base);
	struct fwd_cfg c = { .collect = collect, .allow = { "127.0.0.1" }, .nallow = 1 };
	CHECK(coll_open(&k, &c, err, sizeof(err)) == 0, "collector: %s", err);
	if (!k)
		return;
	void *ctx = zmq_ctx_new();
	/* an allowed peer (from 127.0.0.1) and one that is not (127.0.0.2) */
	void *ok = zmq_socket(ctx, ZMQ_PUSH), *no = zmq_socket(ctx, ZMQ_PUSH), *junk = zmq_socket(ctx, ZMQ_PUSH);
	int zero = 0;
	zmq_setsockopt(ok, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(no, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(junk, ZMQ_LINGER, &zero, sizeof(zero));
	snprintf(ep, sizeof(ep), "tcp://127.0.0.1:0;127.0.0.1:%u", port_base);
	zmq_connect(ok, ep);
	zmq_connect(junk, ep);
	snprintf(ep, sizeof(ep), "tcp://127.0.0.2:0;127.0.0.1:%u", port_base);
	zmq_connect(no, ep);

	struct nfsrdma_record r = sample(42);
	struct fwd_meta m = { .host = "good", .vantage = REC_SRC_WIRE, .session = 1 };
	uint8_t buf[FWD_MSG_MAX];
	for (unsigned i = 0; i < 10; i++) {
		m.seq = i;
		r.xid = 100 + i;
		size_t n = fwd_msg_encode(buf, &m, &r);
		zmq_send(ok, buf, n, 0);
		zmq_send(no, buf, n, ZMQ_DONTWAIT);
	}
	got = 0;
	struct coll_stats s;
	PUMP(k, (coll_get_stats(k, &s), got == 10 && s.refused > 0));
	CHECK_EQ_U64(got, 10);
	CHECK_EQ_U64(last_xid, 109);
	CHECK(s.refused > 0, "the peer at 127.0.0.2 was refused and counted (%llu)", (unsigned long long)s.refused);
	bool seen = false;
	for (unsigned i = 0; i < s.npeers; i++) {
		if (!strcmp(s.peer[i].addr, "127.0.0.2")) {
			seen = s.peer[i].refused > 0 && s.peer[i].received == 0;
		} else if (!strcmp(s.peer[i].addr, "127.0.0.1")) {
			CHECK_EQ_U64(s.peer[i].received, 10);
			CHECK_EQ_STR(s.peer[i].host, "good");
		}
	}
	CHECK(seen, "refusal counted against 127.0.0.2, which delivered nothing");

	/* hostile messages from an allowed peer: garbage, truncated, a gap */
	zmq_send(junk, "garbage", 7, 0);
	m.seq = 0;
	size_t n = fwd_msg_encode(buf, &m, &r);
	zmq_send(junk, buf, n / 2, 0);
	zmq_send(junk, "", 0, 0);
	zmq_send(junk, buf, 3, ZMQ_SNDMORE);   /* multipart: not ours */
	zmq_send(junk, buf, n, 0);
	m.seq = 20;                            /* the good peer skips 10..19 */
	n = fwd_msg_encode(buf, &m, &r);
	zmq_send(ok, buf, n, 0);
	PUMP(k, (coll_get_stats(k, &s), s.malformed >= 4 && got == 11));
	CHECK_EQ_U64(s.malformed, 4);
	CHECK_EQ_U64(got, 11);
	CHECK_EQ_U64(s.lost, 10);
	for (unsigned i = 0; i < s.npeers; i++)
		if (!strcmp(s.peer[i].addr, "127.0.0.1") && s.peer[i].session == 1)
			CHECK_EQ_U64(s.peer[i].lost, 10);
	/* the good peer stops after 25 records: 21..24 never came */
	m.seq = 25;
	n = fwd_msg_encode_end(buf, &m);
	zmq_send(ok, buf, n, 0);
	PUMP(k, (coll_get_stats(k, &s), s.lost >= 14));
	CHECK_EQ_U64(s.lost, 14);
	CHECK_EQ_U64(got, 11);
	/* an END that lies about its shape */
	buf[8] = 1;
	zmq_send(junk, buf, n, 0);
	PUMP(k, (coll_get_stats(k, &s), s.malformed >= 5));
	CHECK_EQ_U64(s.malformed, 5);
	zmq_close(ok);
	zmq_close(no);
	zmq_close(junk);
	zmq_ctx_term(ctx);
	coll_close(k);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void allow_by_key(void)
{
	char dir[] = "/tmp/nfsrdma-fwdkeys.XXXXXX", p[4][300], err[600], collect[64], fwd[64];
	struct collector *k = NULL;
	struct forwarder *good = NULL, *bad = NULL;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	const char *names[4] = { "server", "client", "stranger", "allow" };
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", dir, names[i]);
	for (int i = 0; i < 3; i++)
		CHECK(fwd_keygen(p[i], err, sizeof(err)) == 0, "keygen: %s", err);
	CHECK(fwd_keygen(p[0], err, sizeof(err)) < 0, "keygen never overwrites a key");
	/* the allow-list: the client's public key, and a comment */
	char pubpath[320], key[64] = "", allow[200];
	snprintf(pubpath, sizeof(pubpath), "%s.pub", p[1]);
	FILE *f = fopen(pubpath, "r");
	if (f) {
		if (!fgets(key, sizeof(key), f))
			key[0] = 0;
		fclose(f);
	}
	snprintf(allow, sizeof(allow), "# lab clients\n%s", key);
	write_file(p[3], allow);

	snprintf(collect, sizeof(collect), "127.0.0.1:%u", port_base + 1);
	snprintf(fwd, sizeof(fwd), "127.0.0.1:%u", port_base + 1);
	char srvpub[320];
	snprintf(srvpub, sizeof(srvpub), "%s.pub", p[0]);
	struct fwd_cfg cc = { .collect = collect, .curve_key = p[0], .curve_allow = p[3] };
	CHECK(fwd_check_cfg(&cc, err, sizeof(err)) == 0, "collector cfg: %s", err);
	CHECK(coll_open(&k, &cc, err, sizeof(err)) == 0, "collector: %s", err);
	struct fwd_cfg gc = { .forward = fwd, .curve_key = p[1], .curve_server_key = srvpub, .host = "keyed" };
	struct fwd_cfg bc = { .forward = fwd, .curve_key = p[2], .curve_server_key = srvpub, .host = "stranger" };
	CHECK(fwd_open(&good, &gc, err, sizeof(err)) == 0, "forwarder: %s", err);
	CHECK(fwd_open(&bad, &bc, err, sizeof(err)) == 0, "forwarder: %s", err);
	if (!k || !good || !bad)
		goto out;
	struct nfsrdma_record r = sample(7);
	for (int i = 0; i < 5; i++) {
		fwd_record(good, &r);
		fwd_record(bad, &r);
	}
	got = 0;
	struct coll_stats s;
	PUMP(k, (coll_get_stats(k, &s), got == 5 && s.refused > 0));
	CHECK_EQ_U64(got, 5);
	CHECK(s.refused > 0, "the key not in --curve-allow was refused and counted");
	for (unsigned i = 0; i < s.npeers; i++)
		if (s.peer[i].received)
			CHECK_EQ_STR(s.peer[i].host, "keyed");
	/* a plain (NULL mechanism) peer cannot talk to a CURVE collector */
	void *ctx = zmq_ctx_new(), *plain = zmq_socket(ctx, ZMQ_PUSH);
	int zero = 0;
	zmq_setsockopt(plain, ZMQ_LINGER, &zero, sizeof(zero));
	char ep[80];
	snprintf(ep, sizeof(ep), "tcp://%s", fwd);
	zmq_connect(plain, ep);
	zmq_send(plain, "garbage", 7, ZMQ_DONTWAIT);
	/* half a second's chance to arrive */
	for (int i = 0; i < 10; i++) {
		coll_poll(k, NULL, 0, 50);
		coll_drain(k, 1000, on_rec, NULL);
	}
	coll_get_stats(k, &s);
	CHECK_EQ_U64(s.malformed, 0);
	CHECK_EQ_U64(got, 5);
	zmq_close(plain);
	zmq_ctx_term(ctx);
	/* the stranger's key is added and the collector restarted: the
	 * refused forwarder tries again by itself (libzmq would not) */
	coll_close(k);
	k = NULL;
	FILE *bf = fopen(p[3], "a");
	char spub[1300], skey[64] = "";
	snprintf(spub, sizeof(spub), "%s.pub", p[2]);
	FILE *sf = fopen(spub, "r");
	if (sf) {
		if (!fgets(skey, sizeof(skey), sf))
			skey[0] = 0;
		fclose(sf);
	}
	if (bf) {
		fprintf(bf, "\n%s", skey);
		fclose(bf);
	}
	CHECK(coll_open(&k, &cc, err, sizeof(err)) == 0, "collector again: %s", err);
	if (!k)
		goto out;
	got = 0;
	/* one record every 100 ms until one arrives (the retry waits 5 s
	 * from the refusal; 10 s at most) */
	for (int i = 0; i < 200 && !got; i++) {
		fwd_tick(bad);
		if (i % 2 == 0)
			fwd_record(bad, &r);
		coll_poll(k, NULL, 0, 50);
		coll_drain(k, 1000, on_rec, NULL);
	}
	CHECK(got >= 1, "the once-refused forwarder got through after its key was allowed");
out:
	fwd_close(good);
	fwd_close(bad);
	coll_close(k);
	for (int i = 0; i < 4; i++) {
		unlink(p[i]);
		char pp[1300];
		snprintf(pp, sizeof(pp), "%s.pub", p[i]);
		unlink(pp);
	}
	rmdir(dir);
}

/* The collector goes away and comes back: what the forwarder queued in
 * between arrives; the sequence tells the new collector what came before. */
static void restart(void)
{
	char err[600], addr[64];
	struct collector *k = NULL;
	struct forwarder *f = NULL;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port_base + 2);
	struct fwd_cfg cc = { .collect = addr, .allow = { "127.0.0.1" }, .nallow = 1, .hwm = 5 };
	struct fwd_cfg fc = { .forward = addr, .hwm = 5, .host = "restarter" };
	CHECK(coll_open(&k, &cc, err, sizeof(err)) == 0, "collector: %s", err);
	CHECK(fwd_open(&f, &fc, err, sizeof(err)) == 0, "forwarder: %s", err);
	if (!k || !f)
		goto out;
	struct nfsrdma_record r = sample(1);
	for (int i = 0; i < 3; i++)
		fwd_record(f, &r);
	got = 0;
	PUMP(k, got == 3);
	CHECK_EQ_U64(got, 3);
	coll_close(k);
	k = NULL;
	for (int i = 0; i < 40; i++)
		fwd_record(f, &r);
	CHECK(coll_open(&k, &cc, err, sizeof(err)) == 0, "collector again: %s", err);
	if (!k)
		goto out;
	got = 0;
	struct coll_stats s;
	struct fwd_stats mid;
	fwd_get_stats(f, &mid);
	PUMP(k, (fwd_tick(f), got >= mid.sent - 3));
	for (int i = 0; i < 3; i++)
		fwd_record(f, &r);
	struct fwd_stats fs0;
	fwd_get_stats(f, &fs0);
	PUMP(k, (fwd_tick(f), got >= fs0.sent - 3));
	coll_get_stats(k, &s);
	struct fwd_stats fs;
	fwd_get_stats(f, &fs);
	/* 46 records: 3 before, 40 while away (the queue of 5 took some,
	 * the rest dropped), 3 after; everything sent after the first 3
	 * reached the new collector, which counts those 3 as earlier */
	CHECK_EQ_U64(fs.sent + fs.dropped, 46);
	CHECK(fs.dropped > 0, "a queue of 5 drops most of 40");
	CHECK_EQ_U64(got, fs.sent - 3);
	CHECK_EQ_U64(s.npeers ? s.peer[0].earlier : 99, 3);
	CHECK_EQ_U64(s.npeers ? s.peer[0].received + s.peer[0].earlier + s.peer[0].lost : 0, fs.sent);
	CHECK_EQ_U64(s.lost, 0);
out:
	fwd_close(f);
	coll_close(k);
}

int main(void)
{
	log_init("test_fwd_link", LOG_ERROR);
	port_base = 20000 + (unsigned)(getpid() % 20000);
	codec();
	options();
	allow_by_address();
	allow_by_key();
	restart();
	return check_summary("fwd_link");
}
