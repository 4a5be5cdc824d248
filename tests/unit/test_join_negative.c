/* Negative fused phases: when the join may flag one and what reason it
 * names.  Synthetic RPCs of three vantages on three clocks of known
 * offsets and drifts; the truth is the timeline they were built from.
 * Consistent records are never flagged; a vantage that contradicts itself
 * is flagged with its own name (no alignment involved); two vantages that
 * disagree beyond the alignment's uncertainty are flagged "clock"; a
 * server record whose receive time is svc_process's (no RPC-over-RDMA
 * header: TCP) gives no arrival and makes nothing negative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "src/join/fuse.h"
#include "src/join/join.h"

#define US 1000ull
#define S  1000000000ull

static const uint64_t T0 = 1750000000ull * S;

struct tl {   /* true times, ns on an ideal clock */
	uint64_t begin, marshal, send, w_call, srecv, dispatch, exdone, ssend, w_reply, crecv, end, process;
};

/* RPC i: one every 200 us; network 10..25 us each way, queueing and
 * execute varying with i */
static struct tl timeline(unsigned i)
{
	uint64_t T = T0 + (uint64_t)i * 200 * US;
	uint64_t jo = (i * 7919u) % 16 * US, jb = (i * 104729u) % 13 * US, q = (i * 31u) % 9 * US;
	struct tl t = { .begin = T, .marshal = T + 2 * US + q, .send = T + 6 * US + q };
	t.w_call = t.send + 4 * US + jo / 2;
	t.srecv = t.send + 10 * US + jo;
	t.dispatch = t.srecv + 3 * US + q;
	t.process = t.dispatch + 4 * US;
	t.exdone = t.dispatch + 40 * US + (i % 5) * 7 * US;
	t.ssend = t.exdone + 6 * US;
	t.w_reply = t.ssend + 4 * US + jb / 2;
	t.crecv = t.ssend + 10 * US + jb;
	t.end = t.crecv + 5 * US;
	return t;
}

struct hclock { int64_t off; double ppm; };

static uint64_t on(const struct hclock *h, uint64_t t)
{
	return (uint64_t)((int64_t)t + h->off + (int64_t)(h->ppm * 1e-6 * (double)(t - T0)));
}

static void mk_client(struct nfsrdma_record *r, uint32_t xid, const struct tl *t, const struct hclock *h)
{
	memset(r, 0, sizeof(*r));
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_CLIENT_PROBE;
	r->vantages = REC_VT_CLIENT;
	r->xid = xid;
	r->flags = RECF_CALL | RECF_REPLY;
	r->vt_client[RCT_BEGIN] = on(h, t->begin);
	r->vt_client[RCT_MARSHAL] = on(h, t->marshal);
	r->vt_client[RCT_SEND] = on(h, t->send);
	r->vt_client[RCT_REPLY] = on(h, t->crecv);
	r->vt_client[RCT_END] = on(h, t->end);
}

/* v3: what nfsrdmad wrote before version 4 (and tests/join/trace2records.py
 * writes): t_call_first is svcrdma_decode_rqst's time when call_hdr says
 * the header was seen, else svc_process's */
static void mk_server(struct nfsrdma_record *r, uint32_t xid, const struct tl *t, const struct hclock *h, bool rdma)
{
	memset(r, 0, sizeof(*r));
	r->rec_version = 3;
	r->source = REC_SRC_SERVER_PROBE;
	r->xid = xid;
	r->flags = RECF_CALL | RECF_REPLY;
	r->call_hdr = rdma ? 28 : 0;
	r->t_call_first = r->t_call_last = on(h, rdma ? t->srecv : t->process);
	r->t_reply_first = r->t_reply_last = on(h, t->exdone);
	r->k_exec_us = (uint32_t)((on(h, t->exdone) - on(h, t->dispatch)) / US);
}

static void mk_wire(struct nfsrdma_record *r, uint32_t xid, const struct tl *t, const struct hclock *h)
{
	memset(r, 0, sizeof(*r));
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_WIRE;
	r->xid = xid;
	r->flags = RECF_CALL | RECF_REPLY;
	r->t_call_first = r->t_call_last = on(h, t->w_call);
	r->t_reply_first = r->t_reply_last = on(h, t->w_reply);
	rec_derive(r);
}

#define NRPC 5000
#define ODD_MAX 8

struct sink {
	unsigned n, bad_sum, neg, neg_reason[4], reasonless, partial;
	/* the odd RPCs' fused records, by XID */
	uint32_t odd_xid[ODD_MAX];
	struct nfsrdma_record odd[ODD_MAX];
	unsigned nodd;
	/* against the truth, for RPCs not flagged */
	unsigned sq_wrong;
};

static void on_fused(const struct nfsrdma_record *r, void *ctx)
{
	struct sink *s = ctx;
	uint64_t sum = 0;

	s->n++;
	for (unsigned p = 0; p < REC_FP_N; p++)
		if (r->f_mask & (1u << p))
			sum += r->f_phase[p];
	s->bad_sum += sum != r->f_total;
	s->partial += r->vantages != REC_VT_ALL;
	if (r->f_flags & RECFF_NEGATIVE) {
		s->neg++;
		s->reasonless += !(r->f_flags & RECFF_NEG_REASONS);
	} else if (r->f_flags & RECFF_NEG_REASONS) {
		s->reasonless++;   /* a reason without the flag: as wrong */
	}
	for (unsigned k = 0; k < 4; k++)
		s->neg_reason[k] += (r->f_flags & (RECFF_NEG_CLIENT << k)) != 0;
	for (unsigned k = 0; k < s->nodd; k++)
		if (s->odd_xid[k] == r->xid)
			s->odd[k] = *r;
}

enum odd_kind { ODD_NONE, ODD_CLIENT_BEGIN_LATE, ODD_SERVER_DISPATCH_EARLY, ODD_SERVER_AHEAD, ODD_WIRE_REPLY_EARLY,
		ODD_READ_PUSH_IN_EXEC };

/* A READ as Linux serves it over RDMA, in a version 4 server probe record:
 * the encoder posts the Write chunk 30 us into the execute, before
 * svc_stats_latency; the wire sees the WRITEs after the execute's end
 * (the post reaches the wire later) and before the reply's Send. */
static void wire_read_push(struct nfsrdma_record *w, const struct tl *t, const struct hclock *hw)
{
	w->t_write_first = on(hw, t->exdone + 2 * US);
	w->t_write_last = on(hw, t->exdone + 4 * US);
	w->n_rdma_writes = 2;
	rec_derive(w);
}

static void server_read_push(struct nfsrdma_record *sv, const struct tl *t, const struct hclock *hs)
{
	sv->rec_version = NFSRDMA_RECORD_VERSION;
	sv->vantages = REC_VT_SERVER;
	sv->t_write_first = on(hs, t->dispatch + 30 * US);
	sv->t_write_last = on(hs, t->ssend - 1 * US);
	sv->vt_server[RST_RECV] = on(hs, t->srecv);
	sv->vt_server[RST_DISPATCH] = on(hs, t->dispatch);
	sv->vt_server[RST_EXEC_DONE] = on(hs, t->exdone);
	sv->vt_server[RST_WRITE_POST] = sv->t_write_first;
	sv->vt_server[RST_WRITE_DONE] = sv->t_write_last;
	sv->vt_server[RST_SEND_POST] = on(hs, t->ssend);
	sv->t_reply_first = sv->t_reply_last = sv->vt_server[RST_SEND_POST];
}

/* The run: every RPC consistent but those listed in odd (RPC index and how
 * it contradicts).  rdma false: the server records are TCP's. */
static struct join *run(struct sink *s, struct hclock hc, struct hclock hw, struct hclock hs, bool rdma,
			const unsigned *odd_i, const enum odd_kind *odd_k, unsigned nodd)
{
	struct join_opts o = { .expect = REC_VT_ALL };
	struct join *j = join_new(&o, on_fused, s);
	struct nfsrdma_record r;
	unsigned refused = 0;

	CHECK(j != NULL, "join_new");
	s->nodd = nodd;
	for (unsigned k = 0; k < nodd; k++)
		s->odd_xid[k] = 0x5000 + odd_i[k];
	for (unsigned i = 0; i < NRPC; i++) {
		struct tl t = timeline(i);
		enum odd_kind kind = ODD_NONE;
		for (unsigned k = 0; k < nodd; k++)
			if (odd_i[k] == i)
				kind = odd_k[k];
		uint32_t xid = 0x5000 + i;
		mk_wire(&r, xid, &t, &hw);
		if (kind == ODD_WIRE_REPLY_EARLY) {   /* an RDMA WRITE after the reply it belongs to */
			r.t_write_first = r.t_write_last = r.t_reply_first + 1 * US;
			r.t_reply_last = r.t_write_first;   /* the client's reply stays after it */
			r.n_rdma_writes = 1;
		}
		if (kind == ODD_READ_PUSH_IN_EXEC)
			wire_read_push(&r, &t, &hw);
		refused += join_add(j, &r, 1) != 0;
		mk_server(&r, xid, &t, &hs, rdma);
		if (kind == ODD_SERVER_DISPATCH_EARLY)   /* execute 30 us longer than decode .. done */
			r.k_exec_us += (uint32_t)((t.dispatch - t.srecv) / US) + 30;
		if (kind == ODD_READ_PUSH_IN_EXEC)
			server_read_push(&r, &t, &hs);
		if (kind == ODD_SERVER_AHEAD) {   /* every server time 2 ms early */
			r.t_call_first -= 2000 * US, r.t_call_last -= 2000 * US;
			r.t_reply_first -= 2000 * US, r.t_reply_last -= 2000 * US;
		}
		refused += join_add(j, &r, 2) != 0;
		mk_client(&r, xid, &t, &hc);
		if (kind == ODD_CLIENT_BEGIN_LATE)   /* the task "began" after its Send */
			r.vt_client[RCT_BEGIN] = r.vt_client[RCT_SEND] + 7 * US;
		refused += join_add(j, &r, 0) != 0;
	}
	CHECK(refused == 0, "%u records refused", refused);
	join_flush(j);
	return j;
}

/* offsets of days and hours, drifts of tens of ppm (80 us apart after the
 * run's 1 s), against a network of 10 us one way */
static const struct hclock HC = { 0, 0 }, HW = { 2 * 86400 * (int64_t)S + 1234567, 30 },
			    HS = { -5 * 3600 * (int64_t)S - 7654321, -80 };

static void test_consistent(bool rdma)
{
	struct sink s = { 0 };
	const char *what = rdma ? "consistent" : "consistent, TCP server";
	struct join *j = run(&s, HC, HW, HS, rdma, NULL, NULL, 0);
	const struct join_stats *st = join_stats(j);

	CHECK_EQ_U64(s.n, NRPC);
	CHECK_EQ_U64(s.partial, 0);
	CHECK_EQ_U64(s.bad_sum, 0);
	/* true times, linear clocks: the alignment never makes a phase negative */
	CHECK(s.neg == 0, "%s: %u of %u RPCs flagged negative (client %u wire %u server %u clock %u)", what, s.neg,
	      s.n, s.neg_reason[0], s.neg_reason[1], s.neg_reason[2], s.neg_reason[3]);
	CHECK_EQ_U64(s.reasonless, 0);
	CHECK_EQ_U64(st->negative, 0);
	for (unsigned k = 0; k < 4; k++)
		CHECK_EQ_U64(st->negative_by[k], 0);
	join_free(j);
}

/* The TCP server's t_call_first is svc_process, after the execute's start:
 * the join must not take it as the arrival (it made every such RPC's
 * server_queue negative); the wire's last call packet is. */
static void test_tcp_server_arrival(void)
{
	struct sink s = { 0 };
	unsigned odd_i[] = { NRPC - 1 };
	enum odd_kind odd_k[] = { ODD_NONE };
	struct join *j = run(&s, HC, HW, HS, false, odd_i, odd_k, 1);
	const struct nfsrdma_record *r = &s.odd[0];
	struct tl t = timeline(NRPC - 1);

	CHECK_EQ_U64(s.neg, 0);
	CHECK_EQ_U64(r->vt_server[RST_RECV], 0);
	CHECK(r->f_mask & (1u << REC_FP_SERVER_QUEUE), "TCP: server_queue from the wire's arrival");
	/* the wire's last call packet .. rq_stime, on aligned clocks */
	int64_t d = (int64_t)r->f_phase[REC_FP_SERVER_QUEUE] - (int64_t)(t.dispatch - t.w_call);
	CHECK((uint64_t)(d < 0 ? -d : d) <= r->f_uncert_ns + US,
	      "TCP: server_queue %llu ns, truth %llu +/- %llu", (unsigned long long)r->f_phase[REC_FP_SERVER_QUEUE],
	      (unsigned long long)(t.dispatch - t.w_call), (unsigned long long)r->f_uncert_ns);
	/* execute: the kernel's own figure, whole microseconds */
	CHECK_EQ_U64(r->f_phase[REC_FP_EXECUTE], (on(&HS, t.exdone) - on(&HS, t.dispatch)) / US * US);
	join_free(j);

	/* the same records claiming an RPC-over-RDMA header: then the
	 * svc_process time is taken as the arrival, and contradicts the
	 * execute's start on the server's own clock */
	struct sink s2 = { 0 };
	struct nfsrdma_record rec;
	struct join_opts o = { .expect = REC_VT_ALL };
	j = join_new(&o, on_fused, &s2);
	s2.nodd = 1;
	s2.odd_xid[0] = 0x77;
	mk_wire(&rec, 0x77, &t, &HW);
	join_add(j, &rec, 1);
	mk_server(&rec, 0x77, &t, &HS, false);
	rec.call_hdr = 28;
	join_add(j, &rec, 2);
	mk_client(&rec, 0x77, &t, &HC);
	join_add(j, &rec, 0);
	join_flush(j);
	CHECK_EQ_U64(s2.odd[0].f_flags & (RECFF_NEGATIVE | RECFF_NEG_REASONS), RECFF_NEGATIVE | RECFF_NEG_SERVER);
	join_free(j);
}

static void test_reasons(void)
{
	unsigned odd_i[] = { 1000, 2000, 3000, 4000 };
	enum odd_kind odd_k[] = { ODD_CLIENT_BEGIN_LATE, ODD_SERVER_DISPATCH_EARLY, ODD_SERVER_AHEAD,
				  ODD_WIRE_REPLY_EARLY };
	struct sink s = { 0 };
	struct join *j = run(&s, HC, HW, HS, true, odd_i, odd_k, 4);
	const struct join_stats *st = join_stats(j);
	static const uint32_t want[] = { RECFF_NEG_CLIENT, RECFF_NEG_SERVER, RECFF_NEG_CLOCK, RECFF_NEG_WIRE };

	CHECK_EQ_U64(s.n, NRPC);
	CHECK_EQ_U64(s.bad_sum, 0);
	CHECK_EQ_U64(s.reasonless, 0);
	for (unsigned k = 0; k < 4; k++) {
		const struct nfsrdma_record *r = &s.odd[k];
		CHECK(r->xid == 0x5000 + odd_i[k], "odd RPC %u emitted", odd_i[k]);
		CHECK((r->f_flags & (RECFF_NEGATIVE | RECFF_NEG_REASONS)) == (RECFF_NEGATIVE | want[k]),
		      "odd RPC %u: fuse_flags 0x%x, want negative with 0x%x", odd_i[k], r->f_flags, want[k]);
	}
	/* only the four: one bad record does not spoil its neighbours' clocks */
	CHECK(s.neg == 4, "%u flagged, want the 4 contradicting RPCs", s.neg);
	CHECK_EQ_U64(st->negative, 4);
	CHECK_EQ_U64(st->negative_by[0], 1);
	CHECK_EQ_U64(st->negative_by[1], 1);
	CHECK_EQ_U64(st->negative_by[2], 1);
	CHECK_EQ_U64(st->negative_by[3], 1);

	/* the report counts them per reason */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL, "open_memstream");
	join_report_json(j, f, NULL);
	join_report(j, f, NULL);
	fclose(f);
	CHECK(strstr(buf, "\"negative\":4,\"negative_by\":{\"client\":1,\"wire\":1,\"server\":1,\"clock\":1}") != NULL,
	      "JSON report counts negatives per reason: %.300s", buf);
	CHECK(strstr(buf, "negative phases by reason: client kernel's own order 1, wire's 1, server kernel's 1, "
			  "across vantages (clock) 1") != NULL, "text report counts negatives per reason");
	free(buf);
	join_free(j);
}

/* A READ's push starts inside the execute (the server's own clock says
 * so): not a contradiction, and not flagged (tests/join/lab: every READ
 * of the real probes was).  reply_build+push are one span, from the
 * execute's end to the reply's Send, whatever the wire's first WRITE. */
static void test_read_push_in_execute(void)
{
	unsigned odd_i[] = { 2500 };
	enum odd_kind odd_k[] = { ODD_READ_PUSH_IN_EXEC };
	struct sink s = { 0 };
	struct join *j = run(&s, HC, HW, HS, true, odd_i, odd_k, 1);
	const struct nfsrdma_record *r = &s.odd[0];
	struct tl t = timeline(odd_i[0]);

	CHECK_EQ_U64(s.n, NRPC);
	CHECK_EQ_U64(s.bad_sum, 0);
	CHECK(r->xid == 0x5000 + odd_i[0], "the READ emitted");
	CHECK_EQ_U64(r->vantages, REC_VT_ALL);
	CHECK(r->vt_server[RST_WRITE_POST] < r->vt_server[RST_EXEC_DONE], "the push posted within the execute");
	CHECK(!(r->f_flags & (RECFF_NEGATIVE | RECFF_NEG_REASONS)), "READ pushed within the execute: fuse_flags 0x%x",
	      r->f_flags);
	CHECK_EQ_U64(s.neg, 0);
	CHECK(r->f_merged & (1u << REC_FP_REPLY_BUILD), "reply_build runs on into push: f_merged 0x%x", r->f_merged);
	CHECK(r->f_mask & (1u << REC_FP_REPLY_BUILD), "reply_build+push has a time");
	CHECK(!(r->f_mask & (1u << REC_FP_PUSH)), "no push of its own: f_mask 0x%x", r->f_mask);
	/* the execute's end .. the reply's Send, both on the server's clock */
	CHECK_EQ_U64(r->f_phase[REC_FP_REPLY_BUILD], on(&HS, t.ssend) - on(&HS, t.exdone));
	join_free(j);
}

int main(void)
{
	test_consistent(true);
	test_consistent(false);
	test_tcp_server_arrival();
	test_reasons();
	test_read_push_in_execute();
	return check_summary("join_negative");
}
