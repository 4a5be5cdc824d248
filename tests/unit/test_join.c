/* The join on synthetic RPCs whose true timeline, clock offsets, drift and
 * steps are known: every phase is checked against the timeline it was
 * built from, not against the join's own earlier output. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "src/join/fuse.h"
#include "src/join/join.h"

#define US 1000ull
#define S  1000000000ull

/* The true timeline of RPC i (ns on an ideal clock), jitter on the network */
struct truth {
	uint64_t begin, marshal, send, w_call, srecv, dispatch, exdone, ssend, w_reply, crecv, end;
};

static struct truth timeline(unsigned i, uint64_t t0)
{
	uint64_t T = t0 + i * 100 * US, jo = (i * 7919u) % 5 * US, jb = (i * 104729u) % 7 * US;
	struct truth t = { .begin = T, .marshal = T + 2 * US, .send = T + 5 * US };
	t.w_call = t.send + 10 * US + jo / 2;
	t.srecv = t.send + 20 * US + jo;
	t.dispatch = t.srecv + 5 * US;
	t.exdone = t.dispatch + 50 * US;
	t.ssend = t.exdone + 5 * US;
	t.w_reply = t.ssend + 10 * US + jb / 2;
	t.crecv = t.ssend + 20 * US + jb;
	t.end = t.crecv + 5 * US;
	return t;
}

/* host clocks: own = true + off + drift (ppm) * (true - t0) + step after t_step */
struct hclock { int64_t off; double ppm; uint64_t t_step; int64_t step; };

static uint64_t on(const struct hclock *h, uint64_t t, uint64_t t0)
{
	int64_t v = (int64_t)t + h->off + (int64_t)(h->ppm * 1e-6 * (double)(t - t0));
	if (h->t_step && t >= h->t_step)
		v += h->step;
	return (uint64_t)v;
}

static void mk_client(struct nfsrdma_record *r, uint32_t xid, const struct truth *t, const struct hclock *h,
		      uint64_t t0, bool v3)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_CLIENT_PROBE;
	r->xid = xid;
	r->flags = RECF_CALL | RECF_REPLY;
	r->k_exec_us = (uint32_t)((t->end - t->begin) / US);
	if (v3) {   /* what today's nfsrdmad writes: no vantage fields */
		r->rec_version = 3;
		r->t_call_first = on(h, t->begin, t0);
		r->t_marshal = on(h, t->marshal, t0);
		r->t_call_last = on(h, t->send, t0);
		r->t_reply_first = on(h, t->crecv, t0);
		r->t_reply_last = on(h, t->end, t0);
		return;
	}
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->vantages = REC_VT_CLIENT;
	r->vt_client[RCT_BEGIN] = on(h, t->begin, t0);
	r->vt_client[RCT_MARSHAL] = on(h, t->marshal, t0);
	r->vt_client[RCT_SEND] = on(h, t->send, t0);
	r->vt_client[RCT_REPLY] = on(h, t->crecv, t0);
	r->vt_client[RCT_END] = on(h, t->end, t0);
}

static void mk_server(struct nfsrdma_record *r, uint32_t xid, const struct truth *t, const struct hclock *h,
		      uint64_t t0)
{
	memset(r, 0, sizeof(*r));
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_SERVER_PROBE;
	r->vantages = REC_VT_SERVER;
	r->xid = xid;
	r->flags = RECF_CALL | RECF_REPLY;
	r->caller.family = 4;
	memcpy(r->caller.addr, "\x0a\x00\x00\x02", 4);
	r->k_exec_us = (uint32_t)((t->exdone - t->dispatch) / US);
	r->call_hdr = 28;   /* an RPC-over-RDMA request: svcrdma_decode_rqst gave the receive */
	r->vt_server[RST_RECV] = on(h, t->srecv, t0);
	r->vt_server[RST_DISPATCH] = on(h, t->dispatch, t0);
	r->vt_server[RST_EXEC_DONE] = on(h, t->exdone, t0);
	r->vt_server[RST_SEND_POST] = on(h, t->ssend, t0);
}

static void mk_wire(struct nfsrdma_record *r, uint32_t xid, const struct truth *t, const struct hclock *h,
		    uint64_t t0)
{
	memset(r, 0, sizeof(*r));
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_WIRE;
	r->xid = xid;
	r->flags = RECF_CALL | RECF_REPLY;
	r->caller.family = r->callee.family = 4;
	memcpy(r->caller.addr, "\x0a\x00\x00\x02", 4);
	memcpy(r->callee.addr, "\x0a\x00\x00\x01", 4);
	r->t_call_first = r->t_call_last = on(h, t->w_call, t0);
	r->t_reply_first = r->t_reply_last = on(h, t->w_reply, t0);
	rec_derive(r);
}

struct sink {
	unsigned n, bad_sum, negative_flagged, complete3;
	unsigned exec_wrong, total_wrong, netsum_wrong, out_err;   /* against the truth */
	uint64_t max_out_err;
	struct nfsrdma_record last;
	bool check_truth;
};

static void on_fused(const struct nfsrdma_record *r, void *ctx)
{
	struct sink *s = ctx;
	uint64_t sum = 0;

	s->n++;
	for (unsigned p = 0; p < REC_FP_N; p++)
		if (r->f_mask & (1u << p))
			sum += r->f_phase[p];
	if (sum != r->f_total)
		s->bad_sum++;
	if (r->f_flags & RECFF_NEGATIVE)
		s->negative_flagged++;
	if (r->vantages == REC_VT_ALL)
		s->complete3++;
	s->last = *r;
	if (!s->check_truth || r->vantages != REC_VT_ALL || (r->f_flags & RECFF_NEGATIVE))
		return;
	if (r->f_phase[REC_FP_EXECUTE] != 50 * US)
		s->exec_wrong++;
	if (r->f_total != r->k_exec_us * 0 + (r->vt_client[RCT_END] - r->vt_client[RCT_BEGIN]))
		s->total_wrong++;
	/* net out + net back does not depend on the clocks: reply - send
	 * on the client minus post - receive on the server */
	if (r->f_phase[REC_FP_NET_OUT] + r->f_phase[REC_FP_SERVER_QUEUE] + r->f_phase[REC_FP_PULL] +
	    r->f_phase[REC_FP_EXECUTE] + r->f_phase[REC_FP_REPLY_BUILD] + r->f_phase[REC_FP_PUSH] +
	    r->f_phase[REC_FP_NET_BACK] != r->vt_client[RCT_REPLY] - r->vt_client[RCT_SEND])
		s->netsum_wrong++;
}

static const uint64_t T0 = 1700000000ull * S;

static void run_three(const char *what, struct hclock hc, struct hclock hw, struct hclock hs, unsigned n,
		      struct sink *s, struct join **jout, bool v3client)
{
	struct join_opts o = { .expect = REC_VT_ALL };
	struct join *j = join_new(&o, on_fused, s);
	struct nfsrdma_record r;

	unsigned refused = 0;
	CHECK(j != NULL, "%s: join_new", what);
	for (unsigned i = 0; i < n; i++) {
		struct truth t = timeline(i, T0);
		uint32_t xid = 0x1000 + i;
		mk_wire(&r, xid, &t, &hw, T0);
		refused += join_add(j, &r, 1) != 0;
		mk_server(&r, xid, &t, &hs, T0);
		refused += join_add(j, &r, 2) != 0;
		mk_client(&r, xid, &t, &hc, T0, v3client);
		refused += join_add(j, &r, 0) != 0;
	}
	CHECK(refused == 0, "%s: %u records refused", what, refused);
	join_flush(j);
	*jout = j;
}

static void offsets_recovered(const char *what, struct join *j, int64_t want_w, int64_t want_s, uint64_t slack)
{
	struct clock_est e;

	CHECK(join_clock(j, 0, 1, T0, &e) == 0, "%s: client-wire estimate", what);
	CHECK(e.bounded, "%s: client-wire bounded", what);
	int64_t d = e.offset_ns - want_w;
	CHECK((uint64_t)(d < 0 ? -d : d) <= e.uncertainty_ns + slack, "%s: wire offset %lld, truth %lld +/- %llu",
	      what, (long long)e.offset_ns, (long long)want_w, (unsigned long long)e.uncertainty_ns);
	CHECK(join_clock(j, 0, 1, T0, &e) == 0 && join_clock(j, 1, 0, T0, &e) == 0 &&
	      e.offset_ns == -(want_w + d), "%s: the pair asked the other way round is its inverse", what);
	CHECK(join_clock(j, 1, 2, T0, &e) == 0, "%s: wire-server estimate", what);
	d = e.offset_ns - (want_s - want_w);
	CHECK((uint64_t)(d < 0 ? -d : d) <= e.uncertainty_ns + slack, "%s: server-wire offset %lld, truth %lld +/- %llu",
	      what, (long long)e.offset_ns, (long long)(want_s - want_w), (unsigned long long)e.uncertainty_ns);
}

static void test_offsets(bool v3client)
{
	struct hclock hc = { 0 }, hw = { .off = 1000 * (int64_t)S }, hs = { .off = -(int64_t)T0 + 3600 * (int64_t)S };
	struct sink s = { .check_truth = true };
	struct join *j;
	const char *what = v3client ? "offsets, client v3" : "offsets";

	run_three(what, hc, hw, hs, 2000, &s, &j, v3client);
	const struct join_stats *st = join_stats(j);
	CHECK_EQ_U64(st->emitted, 2000);
	CHECK_EQ_U64(st->complete, 2000);
	CHECK_EQ_U64(s.complete3, 2000);
	CHECK_EQ_U64(s.bad_sum, 0);
	CHECK_EQ_U64(st->negative, s.negative_flagged);
	CHECK(s.negative_flagged == 0, "%s: %u negative of 2000", what, s.negative_flagged);
	CHECK_EQ_U64(s.exec_wrong, 0);
	CHECK_EQ_U64(s.total_wrong, 0);
	CHECK_EQ_U64(s.netsum_wrong, 0);
	offsets_recovered(what, j, hw.off, hs.off, 0);
	/* the last fused record: every phase where the timeline put it */
	const struct nfsrdma_record *r = &s.last;
	CHECK_EQ_U64(r->source, REC_SRC_JOINED);
	CHECK_EQ_U64(r->vantages, REC_VT_ALL);
	CHECK_EQ_U64(r->f_phase[REC_FP_CLIENT_QUEUE], 2 * US);
	CHECK_EQ_U64(r->f_phase[REC_FP_CLIENT_SEND], 3 * US);
	CHECK_EQ_U64(r->f_phase[REC_FP_SERVER_QUEUE], 5 * US);
	CHECK_EQ_U64(r->f_phase[REC_FP_PULL], 0);
	CHECK_EQ_U64(r->f_phase[REC_FP_REPLY_BUILD], 5 * US);
	CHECK_EQ_U64(r->f_phase[REC_FP_CLIENT_DONE], 5 * US);
	struct truth t = timeline(1999, T0);
	uint64_t pair = (t.srecv - t.send) + (t.crecv - t.ssend);
	/* the directions only when the alignment resolves them; their sum
	 * needs no clock */
	if (r->f_merged & REC_FM_NET_PAIR) {
		CHECK_EQ_U64(r->f_merged, REC_FM_NET_PAIR);
		CHECK_EQ_U64(r->f_mask, ((1u << REC_FP_N) - 1) & ~(1u << REC_FP_NET_BACK));
		CHECK_EQ_U64(r->f_phase[REC_FP_NET_OUT], pair);
		CHECK(r->f_dir_unc_ns * 1000 > pair * REC_DIR_MERGE_PM, "%s: merged with dir uncertainty %llu of %llu",
		      what, (unsigned long long)r->f_dir_unc_ns, (unsigned long long)pair);
	} else {
		CHECK_EQ_U64(r->f_merged, 0);
		CHECK_EQ_U64(r->f_mask, (1u << REC_FP_N) - 1);
		int64_t e_out = (int64_t)r->f_phase[REC_FP_NET_OUT] - (int64_t)(t.srecv - t.send);
		CHECK((uint64_t)(e_out < 0 ? -e_out : e_out) <= r->f_dir_unc_ns,
		      "%s: net out off by %lld ns, uncertainty %llu", what, (long long)e_out,
		      (unsigned long long)r->f_dir_unc_ns);
	}
	/* the segments on each side of the capture: exact, clock-free */
	CHECK_EQ_U64(r->f_seg[REC_SEG_CLIENT_NET], (t.crecv - t.send) - (t.w_reply - t.w_call));
	CHECK_EQ_U64(r->f_seg[REC_SEG_SERVER_NET], (t.w_reply - t.w_call) - (t.ssend - t.srecv));
	join_free(j);
}

static void widest(unsigned a, unsigned b, const struct clock_est *e, void *ctx)
{
	uint64_t *w = ctx;

	(void)a, (void)b;
	if (e->uncertainty_ns > *w)
		*w = e->uncertainty_ns;
}

static void test_drift_and_step(void)
{
	/* 50 ppm over 0.2 s: 10 us apart at the end */
	struct hclock hc = { 0 }, hw = { .off = 5 * (int64_t)S }, hs = { .off = -3 * (int64_t)S, .ppm = 50 };
	struct sink s = { 0 };
	struct join *j;

	run_three("drift", hc, hw, hs, 2000, &s, &j, false);
	CHECK_EQ_U64(join_stats(j)->emitted, 2000);
	CHECK_EQ_U64(s.bad_sum, 0);
	CHECK_EQ_U64(join_stats(j)->negative, s.negative_flagged);
	CHECK_EQ_U64(s.negative_flagged, 0);
	/* without a drift model the estimate may be off by the drift over the run */
	offsets_recovered("drift", j, hw.off, hs.off, 10 * US);
	join_free(j);

	struct hclock hstep = { .off = -3 * (int64_t)S, .t_step = T0 + 100 * 1000 * US, .step = 2000 * (int64_t)US };
	struct sink s2 = { 0 };
	run_three("step", hc, hw, hstep, 2000, &s2, &j, false);
	struct clock_est e;
	CHECK(join_clock(j, 1, 2, T0, &e) == 0 && e.steps >= 1, "step: a clock step of 2 ms is reported (%u)", e.steps);
	CHECK_EQ_U64(s2.bad_sum, 0);
	CHECK_EQ_U64(join_stats(j)->negative, s2.negative_flagged);
	/* around the step the clocks contradict the records until it is
	 * seen: flagged as the clock's doing, never as a vantage's own */
	CHECK_EQ_U64(join_stats(j)->negative_by[3], s2.negative_flagged);
	CHECK_EQ_U64(join_stats(j)->emitted, 2000);
	join_free(j);

	/* a step of 60 s, past the 10 s match window: the server's records
	 * would match nothing again and the estimator never see the step;
	 * after a few XIDs off by the same shift they are joined, the step
	 * is detected and the rest joins as before */
	struct hclock hbig = { .off = -3 * (int64_t)S, .t_step = T0 + 100 * 1000 * US, .step = 60 * (int64_t)S };
	struct sink s3 = { 0 };
	run_three("step 60 s", hc, hw, hbig, 2000, &s3, &j, false);
	CHECK(join_clock(j, 1, 2, T0 + 150 * 1000 * US, &e) == 0 && e.steps >= 1,
	      "step 60 s: the step is reported (%u)", e.steps);
	CHECK(join_stats(j)->step_joins >= 1, "step 60 s: joined across the step");
	/* the XIDs that showed the step are joined once it is believed (1992 before) */
	CHECK(s3.complete3 == 2000, "step 60 s: %u of 2000 RPCs complete", s3.complete3);
	CHECK_EQ_U64(s3.bad_sum, 0);
	CHECK_EQ_U64(join_stats(j)->emitted, join_stats(j)->complete + join_stats(j)->partial);
	join_free(j);

	/* live (a 50 ms window): the wire's clock 60 s back.  Its new RPCs
	 * must not be evicted at once for being behind its old newest time,
	 * and the pairs' clocks are reported at its current time */
	struct hclock wback = { .off = 5 * (int64_t)S, .t_step = T0 + 100 * 1000 * US, .step = -60 * (int64_t)S };
	struct join_opts lo = { .expect = REC_VT_ALL, .window_ns = 50 * 1000 * US };
	struct sink s4 = { 0 };
	struct nfsrdma_record r;
	j = join_new(&lo, on_fused, &s4);
	for (unsigned i = 0; i < 2000; i++) {
		struct truth t = timeline(i, T0);
		mk_wire(&r, 0x5000 + i, &t, &wback, T0);
		join_add(j, &r, 1);
		mk_server(&r, 0x5000 + i, &t, &hs, T0);
		join_add(j, &r, 2);
		mk_client(&r, 0x5000 + i, &t, &hc, T0, false);
		join_add(j, &r, 0);
	}
	join_flush(j);
	CHECK(s4.complete3 >= 2000 - 1, "wire 60 s back: %u of 2000 RPCs complete (1991 before)", s4.complete3);
	uint64_t worst = 0;
	join_clock_each(j, widest, &worst);
	CHECK(worst < 1000 * US, "wire 60 s back: clocks reported to +- %llu ns", (unsigned long long)worst);
	join_free(j);
}

static void test_missing_and_reuse(void)
{
	struct hclock hc = { 0 }, hw = { .off = 7 * (int64_t)S }, hs = { .off = 11 * (int64_t)S };
	struct join_opts o = { .expect = REC_VT_ALL };
	struct sink s = { 0 };
	struct join *j = join_new(&o, on_fused, &s);
	struct nfsrdma_record r;
	unsigned n = 1000;

	for (unsigned i = 0; i < n; i++) {
		struct truth t = timeline(i, T0);
		uint32_t xid = 0x5000 + i;
		mk_wire(&r, xid, &t, &hw, T0);
		join_add(j, &r, 1);
		if (i % 10 != 9) {   /* the server probe missed every tenth */
			mk_server(&r, xid, &t, &hs, T0);
			join_add(j, &r, 2);
		}
		mk_client(&r, xid, &t, &hc, T0, false);
		join_add(j, &r, 0);
	}
	const struct join_stats *st = join_stats(j);
	CHECK_EQ_U64(st->complete, 900);
	CHECK_EQ_U64(st->pending, 100);
	/* the same XIDs a minute later: other RPCs, not duplicates */
	for (unsigned i = 0; i < 10; i++) {
		struct truth t = timeline(i, T0 + 60 * S);
		mk_wire(&r, 0x5000 + i, &t, &hw, T0);
		join_add(j, &r, 1);
		mk_server(&r, 0x5000 + i, &t, &hs, T0);
		join_add(j, &r, 2);
		mk_client(&r, 0x5000 + i, &t, &hc, T0, false);
		join_add(j, &r, 0);
	}
	CHECK_EQ_U64(st->complete, 910);
	CHECK_EQ_U64(st->dup_xids, 0);
	join_flush(j);
	CHECK_EQ_U64(st->emitted, 1010);
	CHECK_EQ_U64(st->partial, 100);
	CHECK_EQ_U64(st->missing[JV_SERVER], 100);
	CHECK_EQ_U64(st->by_vantages[REC_VT_CLIENT | REC_VT_WIRE], 100);
	CHECK_EQ_U64(s.bad_sum, 0);
	/* a partial one: the server's phases merged into one span, named so */
	join_free(j);
	char nb[128];

	/* client + wire only for one RPC: the server's span is one merged phase */
	struct sink s1 = { 0 };
	j = join_new(&o, on_fused, &s1);
	struct truth t = timeline(0, T0);
	mk_wire(&r, 9, &t, &hw, T0);
	join_add(j, &r, 1);
	mk_client(&r, 9, &t, &hc, T0, false);
	join_add(j, &r, 0);
	join_flush(j);
	CHECK_EQ_U64(s1.n, 1);
	CHECK_EQ_U64(s1.last.vantages, REC_VT_CLIENT | REC_VT_WIRE);
	CHECK(s1.last.f_flags & RECFF_EVICTED, "partial record flagged");
	CHECK_EQ_STR(rec_fphase_span_name(s1.last.f_merged, REC_FP_SERVER_QUEUE, nb, sizeof(nb)),
		     "server_queue+pull+execute+reply_build");
	/* the wire saw no RDMA WRITE: no push, a phase of no time, not unknown */
	CHECK(s1.last.f_mask & (1u << REC_FP_PUSH), "push known");
	CHECK_EQ_U64(s1.last.f_phase[REC_FP_PUSH], 0);
	CHECK(s1.last.f_mask & (1u << REC_FP_SERVER_QUEUE), "merged span present");
	CHECK(!(s1.last.f_mask & (1u << REC_FP_EXECUTE)), "execute alone absent");
	CHECK_EQ_U64(s1.bad_sum, 0);
	join_free(j);
}

static void test_retransmit_dup_window(void)
{
	struct hclock h0 = { 0 };
	struct join_opts o = { .expect = REC_VT_CLIENT | REC_VT_WIRE };
	struct sink s = { 0 };
	struct join *j = join_new(&o, on_fused, &s);
	struct nfsrdma_record r;
	struct truth t = timeline(0, T0);

	/* the wire sees the call twice (the first without a reply) */
	mk_wire(&r, 77, &t, &h0, T0);
	r.flags = RECF_CALL | RECF_TIMEOUT;
	r.t_reply_first = r.t_reply_last = 0;
	join_add(j, &r, 1);
	mk_wire(&r, 77, &t, &h0, T0);
	r.t_call_first += 2 * US;
	r.t_call_last += 2 * US;
	join_add(j, &r, 1);
	CHECK_EQ_U64(join_stats(j)->retransmits, 1);
	mk_client(&r, 77, &t, &h0, T0, false);
	join_add(j, &r, 0);
	CHECK_EQ_U64(s.n, 1);
	CHECK(s.last.f_flags & RECFF_RETRANSMIT, "retransmission flagged");
	CHECK(s.last.flags & RECF_REPLY, "the reply of the second transmission kept");
	/* a client with one XID twice, close together: counted, two records */
	mk_client(&r, 88, &t, &h0, T0, false);
	join_add(j, &r, 0);
	join_add(j, &r, 0);
	CHECK_EQ_U64(join_stats(j)->dup_xids, 1);
	join_flush(j);
	CHECK_EQ_U64(s.n, 3);
	join_free(j);

	/* the wire, a probe record sent twice, then the server: the first
	 * copy (joined with the wire) is completed, the second goes out
	 * alone, flagged (the vantages are not split between the two) */
	struct join_opts all = { .expect = REC_VT_ALL };
	struct sink sd = { 0 };
	j = join_new(&all, on_fused, &sd);
	mk_wire(&r, 99, &t, &h0, T0);
	join_add(j, &r, 1);
	mk_client(&r, 99, &t, &h0, T0, false);
	join_add(j, &r, 0);
	join_add(j, &r, 0);
	mk_server(&r, 99, &t, &h0, T0);
	join_add(j, &r, 2);
	CHECK_EQ_U64(sd.n, 1);
	CHECK_EQ_U64(sd.complete3, 1);
	join_flush(j);
	CHECK_EQ_U64(sd.n, 2);
	CHECK(sd.last.vantages == REC_VT_CLIENT && (sd.last.f_flags & RECFF_DUP_XID), "the copy: client only, flagged");
	CHECK_EQ_U64(join_stats(j)->dup_xids, 1);
	join_free(j);
	j = join_new(&o, on_fused, &s);
	/* a bad record (no vantage) is refused and counted */
	memset(&r, 0, sizeof(r));
	CHECK(join_add(j, &r, 0) == -EINVAL, "no vantage: refused");
	CHECK_EQ_U64(join_stats(j)->rejected, 1);
	join_free(j);

	/* bounded memory: 16 waiting at most, the rest pushed out, counted */
	struct join_opts small = { .expect = REC_VT_ALL, .max_pending = 16 };
	struct sink s2 = { 0 };
	j = join_new(&small, on_fused, &s2);
	for (unsigned i = 0; i < 1000; i++) {
		struct truth ti = timeline(i, T0);
		mk_client(&r, 0x9000 + i, &ti, &h0, T0, false);
		join_add(j, &r, 0);
	}
	CHECK(join_stats(j)->pending_max <= 16, "pending at most 16 (%llu)",
	      (unsigned long long)join_stats(j)->pending_max);
	CHECK_EQ_U64(join_stats(j)->evicted, 1000 - 16);
	join_flush(j);
	CHECK_EQ_U64(s2.n, 1000);
	CHECK_EQ_U64(join_stats(j)->stopped_after[JV_SERVER], 0);
	CHECK_EQ_U64(join_stats(j)->missing[JV_SERVER], 1000);
	join_free(j);

	/* a time window: RPCs older than 1 ms behind their host leave */
	struct join_opts win = { .expect = REC_VT_ALL, .window_ns = 1000 * US };
	struct sink s3 = { 0 };
	j = join_new(&win, on_fused, &s3);
	for (unsigned i = 0; i < 100; i++) {
		struct truth ti = timeline(i, T0);
		mk_client(&r, 0xa000 + i, &ti, &h0, T0, false);
		join_add(j, &r, 0);
	}
	CHECK(join_stats(j)->pending <= 11, "window keeps about 1 ms (%llu)",
	      (unsigned long long)join_stats(j)->pending);
	join_flush(j);
	CHECK_EQ_U64(s3.n, 100);
	join_free(j);
}

static void test_stopped_vantage(void)
{
	struct hclock hc = { 0 }, hs = { .off = 1 * (int64_t)S };
	struct join_opts o = { .expect = REC_VT_CLIENT | REC_VT_SERVER };
	struct sink s = { 0 };
	struct join *j = join_new(&o, on_fused, &s);
	struct nfsrdma_record r;

	for (unsigned i = 0; i < 400; i++) {
		struct truth t = timeline(i, T0);
		mk_client(&r, 0xb000 + i, &t, &hc, T0, false);
		join_add(j, &r, 0);
		if (i < 200) {   /* the server's probe stops halfway */
			mk_server(&r, 0xb000 + i, &t, &hs, T0);
			join_add(j, &r, 1);
		}
	}
	join_flush(j);
	CHECK_EQ_U64(join_stats(j)->complete, 200);
	CHECK_EQ_U64(join_stats(j)->stopped_after[JV_SERVER], 200);
	CHECK_EQ_U64(s.bad_sum, 0);
	/* client + server only: the wire's phases are not needed for the split */
	join_free(j);
}

/* A merged span's name at the edges of the phase list (docs/record.md's
 * names): the last phase ends the name whatever bits follow it, and a
 * buffer one byte short cuts the name rather than overrun. */
static void test_span_names(void)
{
	static const struct { uint32_t merged; unsigned ph, len; const char *want; } rows[] = {
		{ 0, REC_FP_CLIENT_QUEUE, 64, "client_queue" },
		{ 1u << REC_FP_NET_BACK, REC_FP_NET_BACK, 64, "net_back+client_done" },
		/* the last phase merged "into the next": there is none */
		{ 1u << REC_FP_CLIENT_DONE, REC_FP_CLIENT_DONE, 64, "client_done" },
		{ ~0u, REC_FP_NET_BACK, 64, "net_back+client_done" },
		{ ~0u, REC_FP_PUSH, 64, "push+net_back+client_done" },
		{ ~0u, REC_FP_CLIENT_QUEUE, 128, "client_queue+client_send+net_out+server_queue+pull+execute+"
						 "reply_build+push+net_back+client_done" },
		/* 20 characters: a buffer of 21 holds them, one of 20 cuts the last */
		{ ~0u, REC_FP_NET_BACK, 21, "net_back+client_done" },
		{ ~0u, REC_FP_NET_BACK, 20, "net_back+client_don" },
		{ ~0u, REC_FP_NET_BACK, 1, "" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char nb[160];
		memset(nb, 'x', sizeof(nb));
		CHECK_EQ_STR(rec_fphase_span_name(rows[i].merged, rows[i].ph, nb, rows[i].len), rows[i].want);
		CHECK(nb[rows[i].len] == 'x', "row %zu: wrote past its %u bytes", i, rows[i].len);
	}
}

/* One XID, two RPCs at once: a portmap NULL over TCP on the wire and an NFS
 * GETATTR over RDMA that the wire and the server probe saw (an
 * implementation numbering XIDs from 1 on each connection).  The server
 * probe's record joins the GETATTR, never the NULL. */
static void test_xid_reused_across_programs(void)
{
	struct hclock hw = { 0 }, hs = { .off = 3 * (int64_t)S };
	struct join_opts o = { .expect = REC_VT_WIRE | REC_VT_SERVER };
	struct sink s = { 0 };
	struct join *j = join_new(&o, on_fused, &s);
	struct nfsrdma_record r;
	struct truth t = timeline(0, T0);

	mk_wire(&r, 1, &t, &hw, T0);   /* portmap NULL, TCP */
	r.prog = 100000, r.vers = 2, r.proc = 0, r.transport = REC_TR_TCP;
	join_add(j, &r, 1);
	struct truth t2 = timeline(1, T0 + 2000 * US);
	mk_wire(&r, 1, &t2, &hw, T0);  /* NFSv3 GETATTR, RDMA */
	r.prog = 100003, r.vers = 3, r.proc = 1;
	join_add(j, &r, 1);
	mk_server(&r, 1, &t2, &hs, T0);
	r.prog = 100003, r.vers = 3, r.proc = 1;
	join_add(j, &r, 2);
	join_flush(j);
	const struct join_stats *st = join_stats(j);
	CHECK_EQ_U64(st->emitted, 2);
	CHECK_EQ_U64(st->complete, 1);
	CHECK_EQ_U64(st->dup_xids, 0);
	CHECK_EQ_U64(st->by_vantages[REC_VT_WIRE | REC_VT_SERVER], 1);
	/* emitted last, at the flush: the NULL, alone (the GETATTR left complete) */
	CHECK_EQ_U64(s.last.prog, 100000);
	CHECK_EQ_U64(s.last.vantages, REC_VT_WIRE);
	/* the probe's record without a program (an older probe): the XID decides as before */
	join_free(j);
	j = join_new(&o, on_fused, &s);
	mk_wire(&r, 2, &t2, &hw, T0);
	r.prog = 100003, r.vers = 3, r.proc = 1;
	join_add(j, &r, 1);
	mk_server(&r, 2, &t2, &hs, T0);
	join_add(j, &r, 2);
	join_flush(j);
	CHECK_EQ_U64(join_stats(j)->complete, 1);
	join_free(j);
}

int main(void)
{
	test_span_names();
	test_offsets(false);
	test_offsets(true);
	test_drift_and_step();
	test_missing_and_reuse();
	test_retransmit_dup_window();
	test_stopped_vantage();
	test_xid_reused_across_programs();
	return check_summary("join");
}
