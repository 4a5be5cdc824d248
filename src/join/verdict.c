#include <string.h>

#include "src/join/fuse.h"
#include "src/join/verdict.h"

/* The uncertainty of a difference of two times from vantages a and b
 * (JV_*) on the record's clock: 0 on one vantage's own clock,
 * UINT64_MAX when either was not bounded. */
static uint64_t verdict_pair_unc(const struct nfsrdma_record *r, unsigned a, unsigned b)
{
	if (a == b)
		return 0;
	if (a >= JV_N || b >= JV_N)
		return UINT64_MAX;
	uint64_t ua = r->f_unc_ns[a], ub = r->f_unc_ns[b];
	if (ua == UINT64_MAX || ub == UINT64_MAX || ua + ub < ua)
		return UINT64_MAX;
	return ua + ub;
}

/* u is small enough against the pair's sum to give each direction */
static bool resolved(uint64_t u, uint64_t sum)
{
	if (u == UINT64_MAX)
		return false;
	if (u < (1ull << 53) && sum < (1ull << 53))   /* no overflow: the common case, kept cheap */
		return u * 1000 <= sum * REC_DIR_MERGE_PM;
	return (unsigned __int128)u * 1000 <= (unsigned __int128)sum * REC_DIR_MERGE_PM;
}

static void seg_set(struct nfsrdma_record *r, unsigned s, uint64_t v)
{
	r->f_seg[s] = v;
	r->f_seg_mask |= 1u << s;
}

/* A side's round trip is a difference of two durations, each read on one
 * host's own clock: no alignment enters it.  Its halves are one-way and
 * are given only when that side's alignment resolves them. */
static void segments(struct nfsrdma_record *r)
{
	const uint64_t *c = r->vt_client, *s = r->vt_server;
	bool wire = (r->vantages & REC_VT_WIRE) && r->t_call_first && r->t_reply_first &&
		    r->t_reply_first >= r->t_call_first;
	uint64_t w_rtt = wire ? r->t_reply_first - r->t_call_first : 0;

	memset(r->f_seg, 0, sizeof(r->f_seg));
	r->f_seg_mask = 0;
	if (!wire)
		return;
	if ((r->vantages & REC_VT_CLIENT) && c[RCT_SEND] && c[RCT_REPLY] && c[RCT_REPLY] >= c[RCT_SEND] &&
	    c[RCT_REPLY] - c[RCT_SEND] >= w_rtt) {
		uint64_t net = c[RCT_REPLY] - c[RCT_SEND] - w_rtt;
		seg_set(r, REC_SEG_CLIENT_NET, net);
		/* aligned: the halves may come out negative within the clock's error */
		int64_t out = (int64_t)(r->t_call_first - c[RCT_SEND]), back = (int64_t)(c[RCT_REPLY] - r->t_reply_first);
		if (out >= 0 && back >= 0 && resolved(verdict_pair_unc(r, JV_CLIENT, JV_WIRE), net)) {
			seg_set(r, REC_SEG_CLIENT_OUT, (uint64_t)out);
			seg_set(r, REC_SEG_CLIENT_BACK, (uint64_t)back);
		}
	}
	if ((r->vantages & REC_VT_SERVER) && s[RST_RECV] && s[RST_SEND_POST] && s[RST_SEND_POST] >= s[RST_RECV] &&
	    w_rtt >= s[RST_SEND_POST] - s[RST_RECV]) {
		uint64_t net = w_rtt - (s[RST_SEND_POST] - s[RST_RECV]);
		seg_set(r, REC_SEG_SERVER_NET, net);
		int64_t out = (int64_t)(s[RST_RECV] - r->t_call_first), back = (int64_t)(r->t_reply_first - s[RST_SEND_POST]);
		if (out >= 0 && back >= 0 && resolved(verdict_pair_unc(r, JV_WIRE, JV_SERVER), net)) {
			seg_set(r, REC_SEG_SERVER_OUT, (uint64_t)out);
			seg_set(r, REC_SEG_SERVER_BACK, (uint64_t)back);
		}
	}
}

/* The last phase of the span that starts at phase p (f_merged runs on) */
static unsigned span_end(const struct nfsrdma_record *r, unsigned p)
{
	unsigned e = p;
	while (e + 1 < REC_FP_N && (r->f_merged & (1u << e)))
		e++;
	return e;
}

/* net_out and net_back, each one span: merged into one when the clocks
 * that gave their boundaries cannot put the time on either side */
static void directions(struct nfsrdma_record *r, const uint8_t vs[REC_FP_N + 1])
{
	const uint32_t both = (1u << REC_FP_NET_OUT) | (1u << REC_FP_NET_BACK);

	r->f_dir_unc_ns = UINT64_MAX;   /* no pair to split: JSON null */
	if ((r->f_mask & both) != both || span_end(r, REC_FP_NET_OUT) != REC_FP_NET_OUT ||
	    span_end(r, REC_FP_NET_BACK) != REC_FP_NET_BACK)
		return;
	uint64_t uo = verdict_pair_unc(r, vs[REC_FP_NET_OUT], vs[REC_FP_SERVER_QUEUE]);
	uint64_t ub = verdict_pair_unc(r, vs[REC_FP_NET_BACK], vs[REC_FP_CLIENT_DONE]);
	uint64_t u = uo > ub ? uo : ub;
	uint64_t sum = r->f_phase[REC_FP_NET_OUT] + r->f_phase[REC_FP_NET_BACK];

	r->f_dir_unc_ns = u;
	if (resolved(u, sum))
		return;
	r->f_phase[REC_FP_NET_OUT] = sum;
	r->f_phase[REC_FP_NET_BACK] = 0;
	r->f_mask &= ~(1u << REC_FP_NET_BACK);
	r->f_merged |= REC_FM_NET_PAIR;
}

#define PL(x) ((uint16_t)(1u << REC_PL_##x))

/* The side of the capture point a network phase lies on, from the
 * vantages of its two boundaries: client and server kernels, both sides;
 * a kernel and the wire, that kernel's side; wire to wire, the message's
 * transfer past the capture point, which the receiver's side holds
 * (docs/record.md "Segments and the verdict"). */
static uint16_t net_side(unsigned ph, unsigned v0, unsigned v1)
{
	bool c = v0 == JV_CLIENT || v1 == JV_CLIENT, s = v0 == JV_SERVER || v1 == JV_SERVER;
	if (c && s)
		return PL(CLIENT_NET) | PL(SERVER_NET);
	if (c)
		return PL(CLIENT_NET);
	if (s)
		return PL(SERVER_NET);
	return ph == REC_FP_NET_OUT ? PL(SERVER_NET) : PL(CLIENT_NET);
}

/* each fused phase's own place; the network phases' side is decided by
 * their boundaries (net_side) */
static const uint16_t phase_place[REC_FP_N] = {
	[REC_FP_CLIENT_QUEUE] = PL(CLIENT_HOST), [REC_FP_CLIENT_SEND] = PL(CLIENT_HOST),
	[REC_FP_NET_OUT] = 0, [REC_FP_SERVER_QUEUE] = PL(SERVER_QUEUE), [REC_FP_PULL] = PL(PULL),
	[REC_FP_EXECUTE] = PL(EXECUTE), [REC_FP_REPLY_BUILD] = PL(REPLY_WAIT), [REC_FP_PUSH] = PL(PUSH),
	[REC_FP_NET_BACK] = 0, [REC_FP_CLIENT_DONE] = PL(CLIENT_HOST),
};

/* The places a span of fused phases p..e covers.  A server phase bounded
 * by the wire holds the server-side network's time too: the wire sees the
 * server's work from across that network. */
static uint16_t span_places(const struct nfsrdma_record *r, unsigned p, unsigned e, const uint8_t vs[REC_FP_N + 1])
{
	unsigned v0 = vs[p], v1 = vs[e + 1];
	uint16_t m = 0;

	for (unsigned ph = p; ph <= e; ph++)
		m |= phase_place[ph];
	/* a span over both directions crosses both sides whoever bounds it */
	if (p <= REC_FP_NET_OUT && e >= REC_FP_NET_BACK)
		m |= PL(CLIENT_NET) | PL(SERVER_NET);
	else if (p <= REC_FP_NET_OUT && e >= REC_FP_NET_OUT)
		m |= net_side(REC_FP_NET_OUT, v0, v1);
	else if (p <= REC_FP_NET_BACK && e >= REC_FP_NET_BACK)
		m |= net_side(REC_FP_NET_BACK, v0, v1);
	if ((v0 == JV_WIRE || v1 == JV_WIRE) && p <= REC_FP_PUSH && e >= REC_FP_SERVER_QUEUE)
		m |= PL(SERVER_NET);
	if (p == REC_FP_NET_OUT && (r->f_merged & REC_FM_NET_PAIR))
		m |= net_side(REC_FP_NET_BACK, vs[REC_FP_NET_BACK], vs[REC_FP_CLIENT_DONE]);
	return m;
}

static void add_place(struct nfsrdma_record *r, uint16_t places, uint64_t ns)
{
	if (!places || !ns)
		return;
	for (unsigned i = 0; i < r->f_nplace; i++)
		if (r->f_place[i].places == places) {
			r->f_place[i].ns += ns;
			return;
		}
	if (r->f_nplace < REC_FP_N)
		r->f_place[r->f_nplace++] = (struct rec_place_ns){ .ns = ns, .places = places };
}

/* f_total divided among places; the network both sides hold, split by
 * the clock-free segments when the wire gave them.  One place's time
 * gathers in one[] (a span's usual case), a span of several in the
 * record's list at once. */
static void places(struct nfsrdma_record *r, const uint8_t vs[REC_FP_N + 1])
{
	const uint16_t nets = PL(CLIENT_NET) | PL(SERVER_NET);
	const uint32_t segs = (1u << REC_SEG_CLIENT_NET) | (1u << REC_SEG_SERVER_NET);
	uint64_t one[REC_PL_N] = { 0 }, both = 0;
	uint16_t seen = 0;

	uint32_t by_wire = 0;   /* boundary b given by the wire */
	for (unsigned b = 0; b <= REC_FP_N; b++)
		by_wire |= (uint32_t)(vs[b] == JV_WIRE) << b;

	r->f_nplace = 0;
	for (uint32_t todo = r->f_mask & ((1u << REC_FP_N) - 1); todo; todo &= todo - 1) {
		unsigned p = (unsigned)__builtin_ctz(todo);
		uint16_t m;
		/* a phase alone, not a network one (most of every record):
		 * span_places' answer without its walk */
		if (!(r->f_merged & (1u << p)) && p != REC_FP_NET_OUT && p != REC_FP_NET_BACK) {
			m = phase_place[p];
			if (((by_wire >> p) & 3u) && p >= REC_FP_SERVER_QUEUE && p <= REC_FP_PUSH)
				m |= PL(SERVER_NET);
		} else {
			m = span_places(r, p, span_end(r, p), vs);
		}
		if (m && !(m & (m - 1))) {
			one[__builtin_ctz(m)] += r->f_phase[p];
			seen |= m;
		} else if (m == nets && (r->f_seg_mask & segs) == segs) {
			both += r->f_phase[p];
		} else {
			add_place(r, m, r->f_phase[p]);
		}
	}
	if (both) {
		uint64_t sc = r->f_seg[REC_SEG_CLIENT_NET], ss = r->f_seg[REC_SEG_SERVER_NET];
		uint64_t srv = !(sc + ss) ? both / 2 :
			       both < (1ull << 32) && ss < (1ull << 32) ? both * ss / (sc + ss) :
			       (uint64_t)((unsigned __int128)both * ss / (sc + ss));
		one[REC_PL_SERVER_NET] += srv;
		one[REC_PL_CLIENT_NET] += both - srv;
		seen |= nets;
	}
	for (unsigned pl = 0; pl < REC_PL_N; pl++)
		if ((seen & (1u << pl)) && one[pl] && r->f_nplace < REC_FP_N)
			r->f_place[r->f_nplace++] = (struct rec_place_ns){ .ns = one[pl], .places = (uint16_t)(1u << pl) };
	/* the verdict: the largest share (the earliest of equals) */
	unsigned best = 0;
	for (unsigned i = 1; i < r->f_nplace; i++)
		if (r->f_place[i].ns > r->f_place[best].ns)
			best = i;
	r->f_verdict = r->f_verdict_pm = 0;
	if (r->f_nplace && r->f_total && r->f_place[best].ns) {
		uint64_t ns = r->f_place[best].ns, tot = r->f_total;
		r->f_verdict = r->f_place[best].places;
		r->f_verdict_pm = (uint16_t)(ns < (1ull << 53) ? (ns * 1000 + tot / 2) / tot :
					     (uint64_t)(((unsigned __int128)ns * 1000 + tot / 2) / tot));
	}
}

void verdict_derive(struct nfsrdma_record *r, const uint8_t vs[REC_FP_N + 1])
{
	segments(r);
	directions(r, vs);
	places(r, vs);
}
