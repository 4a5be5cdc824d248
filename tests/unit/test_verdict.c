/* Segments, directions and the verdict of a joined record.  Each case is
 * a timeline built by hand with a delay injected at one known place
 * (the server's egress, the client's, the storage, the queue); the
 * three vantages' records are made from it on clocks of known offsets,
 * fused with a stated uncertainty, and what the record says is held to
 * the timeline: the clock-free segments exactly, the directions only
 * when the stated uncertainty resolves them, the verdict's place and
 * share as the injection put them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "src/join/fuse.h"
#include "src/join/rec_json.h"
#include "src/out/out.h"

#define US 1000ull
#define MS 1000000ull
#define S  1000000000ull

static const uint64_t T0 = 1750000000ull * S;

/* the true times of one RPC (ns on an ideal clock) */
struct tl {
	uint64_t begin, marshal, send, w_call, srecv, dispatch, exdone, ssend, w_reply, crecv, end;
};

/* where a delay is injected, and how much */
struct fault {
	uint64_t client_out, server_out, queue, exec;
};

/* base: 10 us each way on each side of the capture, 50 us execute */
static struct tl timeline(const struct fault *f)
{
	struct tl t = { .begin = T0, .marshal = T0 + 2 * US, .send = T0 + 5 * US };
	t.w_call = t.send + 10 * US + f->client_out;
	t.srecv = t.w_call + 10 * US;
	t.dispatch = t.srecv + 5 * US + f->queue;
	t.exdone = t.dispatch + 50 * US + f->exec;
	t.ssend = t.exdone + 5 * US;
	t.w_reply = t.ssend + 10 * US + f->server_out;
	t.crecv = t.w_reply + 10 * US;
	t.end = t.crecv + 5 * US;
	return t;
}

/* each vantage on its own clock: client +0, wire +1000 s, server -3 h */
static const int64_t OFF_C = 0, OFF_W = 1000 * (int64_t)S, OFF_S = -3 * 3600 * (int64_t)S;

static void make(const struct tl *t, struct nfsrdma_record *c, struct nfsrdma_record *w, struct nfsrdma_record *s)
{
	memset(c, 0, sizeof(*c));
	c->rec_version = NFSRDMA_RECORD_VERSION;
	c->source = REC_SRC_CLIENT_PROBE;
	c->vantages = REC_VT_CLIENT;
	c->xid = 7;
	c->flags = RECF_CALL | RECF_REPLY;
	uint64_t ct[RCT_N] = { t->begin, t->marshal, t->send, t->crecv, t->end };
	for (unsigned i = 0; i < RCT_N; i++)
		c->vt_client[i] = ct[i] + (uint64_t)OFF_C;

	memset(s, 0, sizeof(*s));
	s->rec_version = NFSRDMA_RECORD_VERSION;
	s->source = REC_SRC_SERVER_PROBE;
	s->vantages = REC_VT_SERVER;
	s->xid = 7;
	s->flags = RECF_CALL | RECF_REPLY;
	s->call_hdr = 28;
	s->k_exec_us = (uint32_t)((t->exdone - t->dispatch) / US);
	s->vt_server[RST_RECV] = t->srecv + (uint64_t)OFF_S;
	s->vt_server[RST_DISPATCH] = t->dispatch + (uint64_t)OFF_S;
	s->vt_server[RST_EXEC_DONE] = t->exdone + (uint64_t)OFF_S;
	s->vt_server[RST_SEND_POST] = t->ssend + (uint64_t)OFF_S;

	memset(w, 0, sizeof(*w));
	w->rec_version = NFSRDMA_RECORD_VERSION;
	w->source = REC_SRC_WIRE;
	w->xid = 7;
	w->flags = RECF_CALL | RECF_REPLY;
	w->prog = 100003, w->vers = 3, w->proc = 1;
	w->t_call_first = w->t_call_last = t->w_call + (uint64_t)OFF_W;
	w->t_reply_first = w->t_reply_last = t->w_reply + (uint64_t)OFF_W;
	rec_derive(w);
}

/* fuse with the wire as the reference; the probes' clocks known exactly
 * but stated to +/- unc */
static void fuse(const struct tl *t, uint64_t unc, unsigned which, struct nfsrdma_record *out)
{
	struct nfsrdma_record c, w, s;
	const struct nfsrdma_record *in[JV_N] = { 0 };
	struct fuse_clock clk[JV_N] = {
		[JV_CLIENT] = { .add_ns = OFF_W - OFF_C, .uncertainty_ns = unc, .known = true, .bounded = true },
		[JV_WIRE] = { .add_ns = 0, .known = true, .bounded = true },
		[JV_SERVER] = { .add_ns = OFF_W - OFF_S, .uncertainty_ns = unc, .known = true, .bounded = true },
	};

	make(t, &c, &w, &s);
	if (which & REC_VT_CLIENT)
		in[JV_CLIENT] = &c;
	if (which & REC_VT_WIRE)
		in[JV_WIRE] = &w;
	if (which & REC_VT_SERVER)
		in[JV_SERVER] = &s;
	if (!(which & REC_VT_WIRE)) {   /* the client's clock is the reference then */
		clk[JV_SERVER].add_ns = OFF_C - OFF_S;
		clk[JV_CLIENT].add_ns = 0;
	}
	fuse_records(in, clk, out);
}

static uint64_t place_ns(const struct nfsrdma_record *r, uint16_t places)
{
	for (unsigned i = 0; i < r->f_nplace; i++)
		if (r->f_place[i].places == places)
			return r->f_place[i].ns;
	return 0;
}

#define PL(x) ((uint16_t)(1u << REC_PL_##x))

/* the places always partition the fused total */
static void check_partition(const char *what, const struct nfsrdma_record *r)
{
	uint64_t sum = 0, ph = 0;
	for (unsigned i = 0; i < r->f_nplace; i++)
		sum += r->f_place[i].ns;
	for (unsigned p = 0; p < REC_FP_N; p++)
		if (r->f_mask & (1u << p))
			ph += r->f_phase[p];
	CHECK(sum == r->f_total && ph == r->f_total, "%s: places sum %llu, phases %llu, total %llu", what,
	      (unsigned long long)sum, (unsigned long long)ph, (unsigned long long)r->f_total);
}

/* 20 ms on the server's egress: the server side's round trip holds it,
 * whatever the clocks */
static void test_server_egress(void)
{
	struct fault f = { .server_out = 20 * MS }, none = { 0 };
	struct tl t = timeline(&f), t0 = timeline(&none);
	uint64_t want_srv = (t.w_reply - t.w_call) - (t.ssend - t.srecv);
	uint64_t want_cli = (t.crecv - t.send) - (t.w_reply - t.w_call);
	struct nfsrdma_record r, base;

	/* clocks to 1 us: each direction is known */
	fuse(&t, 1 * US, REC_VT_ALL, &r);
	fuse(&t0, 1 * US, REC_VT_ALL, &base);
	CHECK_EQ_U64(r.f_seg_mask & 3, 3);
	CHECK_EQ_U64(r.f_seg[REC_SEG_SERVER_NET], want_srv);
	CHECK_EQ_U64(r.f_seg[REC_SEG_CLIENT_NET], want_cli);
	/* the injected 20 ms, found on the side it was put, none on the other */
	CHECK_EQ_U64(r.f_seg[REC_SEG_SERVER_NET] - base.f_seg[REC_SEG_SERVER_NET], 20 * MS);
	CHECK_EQ_U64(r.f_seg[REC_SEG_CLIENT_NET], base.f_seg[REC_SEG_CLIENT_NET]);
	CHECK(!(r.f_merged & REC_FM_NET_PAIR), "1 us clocks: directions given (dir unc %llu)",
	      (unsigned long long)r.f_dir_unc_ns);
	CHECK_EQ_U64(r.f_phase[REC_FP_NET_OUT], t.srecv - t.send);
	CHECK_EQ_U64(r.f_phase[REC_FP_NET_BACK], t.crecv - t.ssend);
	CHECK_EQ_U64(r.f_seg_mask & (0xfu << REC_SEG_CLIENT_OUT), 0xfu << REC_SEG_CLIENT_OUT);
	CHECK_EQ_U64(r.f_seg[REC_SEG_SERVER_BACK], t.w_reply - t.ssend);
	CHECK_EQ_U64(r.f_seg[REC_SEG_SERVER_OUT], t.srecv - t.w_call);
	CHECK_EQ_U64(r.f_seg[REC_SEG_CLIENT_OUT], t.w_call - t.send);
	CHECK_EQ_U64(r.f_seg[REC_SEG_CLIENT_BACK], t.crecv - t.w_reply);
	CHECK_EQ_U64(r.f_verdict, PL(SERVER_NET));
	uint64_t total = t.end - t.begin;
	CHECK_EQ_U64(r.f_total, total);
	CHECK_EQ_U64(r.f_verdict_pm, (want_srv * 1000 + total / 2) / total);
	check_partition("server egress, 1 us", &r);

	/* clocks to 11 ms (the lab run): the direction is not
	 * resolvable, the side still is */
	fuse(&t, 11 * MS, REC_VT_ALL, &r);
	CHECK(r.f_merged & REC_FM_NET_PAIR, "11 ms clocks: net_out+net_back merged (dir unc %llu)",
	      (unsigned long long)r.f_dir_unc_ns);
	CHECK_EQ_U64(r.f_phase[REC_FP_NET_OUT], (t.srecv - t.send) + (t.crecv - t.ssend));
	CHECK_EQ_U64(r.f_mask & (1u << REC_FP_NET_BACK), 0);
	char nb[160];
	CHECK_EQ_STR(rec_fphase_span_name(r.f_merged, REC_FP_NET_OUT, nb, sizeof(nb)), "net_out+net_back");
	CHECK(rec_fphase_inside(r.f_merged, r.f_mask, REC_FP_NET_BACK), "net_back is inside the pair");
	CHECK_EQ_U64(r.f_seg[REC_SEG_SERVER_NET], want_srv);
	CHECK_EQ_U64(r.f_seg_mask & (0xfu << REC_SEG_CLIENT_OUT), 0);   /* no halves */
	CHECK_EQ_U64(r.f_verdict, PL(SERVER_NET));
	CHECK_EQ_U64(r.f_verdict_pm, (want_srv * 1000 + total / 2) / total);
	check_partition("server egress, 11 ms", &r);
}

/* 20 ms on the client's egress: the client side holds it */
static void test_client_egress(void)
{
	struct fault f = { .client_out = 20 * MS };
	struct tl t = timeline(&f);
	struct nfsrdma_record r;

	fuse(&t, 5 * MS, REC_VT_ALL, &r);
	CHECK_EQ_U64(r.f_seg[REC_SEG_CLIENT_NET], (t.crecv - t.send) - (t.w_reply - t.w_call));
	CHECK_EQ_U64(r.f_seg[REC_SEG_SERVER_NET], 20 * US);
	CHECK_EQ_U64(r.f_verdict, PL(CLIENT_NET));
	CHECK(r.f_merged & REC_FM_NET_PAIR, "5 ms clocks: merged");
	check_partition("client egress", &r);
}

/* slow storage and a long queue: the server's own places */
static void test_server_places(void)
{
	struct fault fe = { .exec = 30 * MS }, fq = { .queue = 30 * MS };
	struct tl te = timeline(&fe), tq = timeline(&fq);
	struct nfsrdma_record r;

	fuse(&te, 11 * MS, REC_VT_ALL, &r);
	CHECK_EQ_U64(r.f_verdict, PL(EXECUTE));
	CHECK_EQ_U64(place_ns(&r, PL(EXECUTE)), te.exdone - te.dispatch);
	check_partition("exec", &r);
	fuse(&tq, 11 * MS, REC_VT_ALL, &r);
	CHECK_EQ_U64(r.f_verdict, PL(SERVER_QUEUE));
	CHECK_EQ_U64(place_ns(&r, PL(SERVER_QUEUE)), tq.dispatch - tq.srecv);
	check_partition("queue", &r);
}

/* what a missing vantage leaves unresolved */
static void test_unresolved(void)
{
	struct fault f = { .server_out = 20 * MS };
	struct tl t = timeline(&f);
	struct nfsrdma_record r;

	/* no wire: the network is one place the data cannot divide */
	fuse(&t, 1 * US, REC_VT_CLIENT | REC_VT_SERVER, &r);
	CHECK_EQ_U64(r.f_seg_mask, 0);
	CHECK_EQ_U64(r.f_verdict, PL(CLIENT_NET) | PL(SERVER_NET));
	check_partition("no wire", &r);
	/* the client alone: everything between its Send and its reply */
	fuse(&t, 1 * US, REC_VT_CLIENT, &r);
	CHECK((r.f_verdict & (PL(CLIENT_NET) | PL(SERVER_NET) | PL(EXECUTE))) ==
	      (PL(CLIENT_NET) | PL(SERVER_NET) | PL(EXECUTE)), "client alone: unresolved 0x%x", r.f_verdict);
	check_partition("client alone", &r);
	/* client and wire: the client side exact, the server's work and its
	 * network seen from across it */
	fuse(&t, 1 * US, REC_VT_CLIENT | REC_VT_WIRE, &r);
	CHECK_EQ_U64(r.f_seg_mask & 3, 1u << REC_SEG_CLIENT_NET);
	CHECK(r.f_verdict & PL(SERVER_NET), "client+wire: server_net among 0x%x", r.f_verdict);
	CHECK(!(r.f_verdict & PL(CLIENT_NET)), "client+wire: not the client side 0x%x", r.f_verdict);
	check_partition("client+wire", &r);
}

/* What JSON says reads back the same (a joined file fed to another
 * join, or to the collector) */
static void test_json_roundtrip(void)
{
	struct fault f = { .server_out = 20 * MS };
	struct tl t = timeline(&f);
	struct nfsrdma_record r, back;
	char *buf = NULL, err[128];
	size_t len = 0;

	for (unsigned k = 0; k < 2; k++) {
		fuse(&t, k ? 11 * MS : 1 * US, REC_VT_ALL, &r);
		FILE *m = open_memstream(&buf, &len);
		out_json(m, &r);
		fclose(m);
		CHECK(strstr(buf, k ? "\"net_out+net_back\":" : "\"net_back\":") != NULL, "json ns: %s", buf);
		CHECK(strstr(buf, "\"verdict\":{\"place\":[\"server_net\"]") != NULL, "json verdict: %s", buf);
		CHECK(rec_json_parse(buf, strcspn(buf, "\n"), &back, err, sizeof(err)) == 0, "parse: %s", err);
		CHECK_EQ_U64(back.f_merged, r.f_merged);
		CHECK_EQ_U64(back.f_verdict, r.f_verdict);
		CHECK_EQ_U64(back.f_verdict_pm, r.f_verdict_pm);
		CHECK_EQ_U64(back.f_seg[REC_SEG_SERVER_NET], r.f_seg[REC_SEG_SERVER_NET]);
		CHECK_EQ_U64(back.f_dir_unc_ns, r.f_dir_unc_ns);
		free(buf);
		buf = NULL;
	}
}

int main(void)
{
	test_server_egress();
	test_client_egress();
	test_server_places();
	test_unresolved();
	test_json_roundtrip();
	return check_summary("verdict");
}
