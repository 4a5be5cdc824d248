#include <string.h>

#include "src/join/fuse.h"
#include "src/join/verdict.h"

void fuse_client_times(const struct nfsrdma_record *r, uint64_t t[RCT_N])
{
	if (r->vantages & REC_VT_CLIENT) {
		memcpy(t, r->vt_client, sizeof(r->vt_client));
	} else {
		/* version 3 and older: probe_to_record's mapping (docs/probes.md) */
		t[RCT_BEGIN] = r->t_call_first != r->t_marshal ? r->t_call_first : 0;
		t[RCT_MARSHAL] = r->t_marshal;
		t[RCT_SEND] = r->t_call_last;
		t[RCT_REPLY] = r->t_reply_first;
		t[RCT_END] = r->t_reply_last;
	}
	/* rpc_stats_latency's execute runs from the task's start */
	if (!t[RCT_BEGIN] && t[RCT_END] && r->k_exec_us && (uint64_t)r->k_exec_us * 1000 <= t[RCT_END])
		t[RCT_BEGIN] = t[RCT_END] - (uint64_t)r->k_exec_us * 1000;
}

void fuse_server_times(const struct nfsrdma_record *r, uint64_t t[RST_N])
{
	if (r->vantages & REC_VT_SERVER) {
		memcpy(t, r->vt_server, sizeof(r->vt_server));
	} else {
		/* version 3: t_reply_first is the reply Send's post, or
		 * svc_stats_latency when the post was not seen; which one is
		 * not said, so it is taken as the execute's end (the post is
		 * later still): the reply's departure is left to the wire */
		memset(t, 0, sizeof(uint64_t) * RST_N);
		t[RST_RECV] = r->t_call_first;
		t[RST_READ_POST] = r->t_read_first;
		t[RST_READ_DONE] = r->t_read_last;
		t[RST_EXEC_DONE] = r->t_reply_first;
		t[RST_WRITE_POST] = r->t_write_first;
		t[RST_WRITE_DONE] = r->t_write_last;
		t[RST_SEND_DONE] = r->t_reply_last != r->t_reply_first ? r->t_reply_last : 0;
	}
	/* The receive is svcrdma_decode_rqst's time only when the record has
	 * that event's header size: else (TCP, or the event missed) it is
	 * svc_process's, which fires after rq_stime, the execute's start: no
	 * arrival time, and taken as one it made every such RPC's
	 * server_queue negative.  The wire, when there, says the arrival. */
	if (!r->call_hdr)
		t[RST_RECV] = 0;
	/* the kernel's execute starts at rq_stime: svc_stats_latency - execute */
	if (!t[RST_DISPATCH] && t[RST_EXEC_DONE] && r->k_exec_us &&
	    (uint64_t)r->k_exec_us * 1000 <= t[RST_EXEC_DONE])
		t[RST_DISPATCH] = t[RST_EXEC_DONE] - (uint64_t)r->k_exec_us * 1000;
}

static uint64_t shift(uint64_t t, const struct fuse_clock *c)
{
	return t ? t + (uint64_t)c->add_ns : 0;
}

/* This RPC's own causal order bounds its clocks' offset too: the call
 * reaches the server after the wire (or client) sent it, the reply leaves
 * before they see it.  Within the pair's stated uncertainty the offset is
 * moved to the nearest point that keeps that order; if none does, it is
 * left alone and the negative phase it makes is flagged. */
static void tighten(int64_t *add, uint64_t unc, int64_t lo, int64_t hi)
{
	int64_t u = unc > (uint64_t)INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)unc;
	if (*add - u > lo)
		lo = *add - u;
	if (*add + u < hi)
		hi = *add + u;
	if (lo > hi)
		return;
	if (*add < lo)
		*add = lo;
	if (*add > hi)
		*add = hi;
}

static void order_bounds(const struct nfsrdma_record *const in[JV_N], struct fuse_clock clk[JV_N], unsigned ref)
{
	uint64_t c[RCT_N] = { 0 }, s[RST_N] = { 0 };
	const struct nfsrdma_record *w = in[JV_WIRE];
	const int64_t NONE_LO = INT64_MIN / 4, NONE_HI = INT64_MAX / 4;

	if (in[JV_CLIENT])
		fuse_client_times(in[JV_CLIENT], c);
	if (in[JV_SERVER])
		fuse_server_times(in[JV_SERVER], s);
	uint64_t s_out = s[RST_SEND_POST] ? s[RST_SEND_POST] : s[RST_EXEC_DONE];
	uint64_t s_in = s[RST_RECV] ? s[RST_RECV] : s[RST_DISPATCH];  /* the execute begins after the arrival */
	if (ref == JV_WIRE && in[JV_CLIENT] && clk[JV_CLIENT].known) {
		int64_t hi = c[RCT_SEND] && w->t_call_first ? (int64_t)(w->t_call_first - c[RCT_SEND]) : NONE_HI;
		int64_t lo = c[RCT_REPLY] && w->t_reply_last ? (int64_t)(w->t_reply_last - c[RCT_REPLY]) : NONE_LO;
		tighten(&clk[JV_CLIENT].add_ns, clk[JV_CLIENT].uncertainty_ns, lo, hi);
	}
	if (in[JV_SERVER] && clk[JV_SERVER].known && ref != JV_SERVER) {
		int64_t lo = NONE_LO, hi = NONE_HI;
		if (ref == JV_WIRE) {
			if (s_in && w->t_call_last)
				lo = (int64_t)(w->t_call_last - s_in);
			uint64_t w_out = w->t_write_first ? w->t_write_first : w->t_reply_first;
			if (s_out && w_out)
				hi = (int64_t)(w_out - s_out);
		} else {
			if (s_in && c[RCT_SEND])
				lo = (int64_t)(c[RCT_SEND] - s_in);
			if (s_out && c[RCT_REPLY])
				hi = (int64_t)(c[RCT_REPLY] - s_out);
		}
		tighten(&clk[JV_SERVER].add_ns, clk[JV_SERVER].uncertainty_ns, lo, hi);
	}
}

void fuse_records(const struct nfsrdma_record *const in[JV_N], const struct fuse_clock clk_in[JV_N],
		  struct nfsrdma_record *out)
{
	struct fuse_clock clk[JV_N];
	const struct nfsrdma_record *base = in[JV_WIRE] ? in[JV_WIRE] : in[JV_SERVER] ? in[JV_SERVER] : in[JV_CLIENT];
	/* the wire's clock is the wall clock of the capture: times readable */
	unsigned ref = in[JV_WIRE] ? JV_WIRE : in[JV_CLIENT] ? JV_CLIENT : JV_SERVER;

	/* the wire knows the most about what the RPC was; the probes fill in */
	*out = *base;
	out->rec_version = NFSRDMA_RECORD_VERSION;
	out->source = REC_SRC_JOINED;
	out->vantages = 0;
	out->f_clock = (uint8_t)(1u << ref);
	out->f_flags = 0;
	out->f_uncert_ns = 0;
	memset(out->f_unc_ns, 0, sizeof(out->f_unc_ns));
	memset(out->vt_client, 0, sizeof(out->vt_client));
	memset(out->vt_server, 0, sizeof(out->vt_server));
	memcpy(clk, clk_in, sizeof(clk));
	order_bounds(in, clk, ref);
	for (unsigned v = 0; v < JV_N; v++) {
		if (!in[v])
			continue;
		out->vantages |= (uint8_t)(1u << v);
		if (!clk[v].known) {
			out->f_flags |= RECFF_NO_CLOCK;
			continue;
		}
		if (v != ref && !clk[v].bounded)
			out->f_flags |= RECFF_UNBOUNDED;
		if (clk[v].steps)
			out->f_flags |= RECFF_CLOCK_STEP;
		if (v != ref && clk[v].uncertainty_ns > out->f_uncert_ns)
			out->f_uncert_ns = clk[v].uncertainty_ns;
		out->f_unc_ns[v] = v == ref ? 0 : clk[v].bounded ? clk[v].uncertainty_ns : UINT64_MAX;
	}
	if (in[JV_CLIENT] && clk[JV_CLIENT].known) {
		const struct nfsrdma_record *c = in[JV_CLIENT];
		fuse_client_times(c, out->vt_client);
		for (unsigned i = 0; i < RCT_N; i++)
			out->vt_client[i] = shift(out->vt_client[i], &clk[JV_CLIENT]);
		out->t_marshal = out->vt_client[RCT_MARSHAL];
		out->k_backlog_us = c->k_backlog_us;
		out->k_rtt_us = c->k_rtt_us;
		if (!in[JV_WIRE] && !in[JV_SERVER])
			out->k_exec_us = c->k_exec_us;
		if (c->flags & RECF_RETRANSMIT)
			out->flags |= RECF_RETRANSMIT;
	}
	if (in[JV_SERVER] && clk[JV_SERVER].known) {
		const struct nfsrdma_record *s = in[JV_SERVER];
		fuse_server_times(s, out->vt_server);
		for (unsigned i = 0; i < RST_N; i++)
			out->vt_server[i] = shift(out->vt_server[i], &clk[JV_SERVER]);
		out->k_exec_us = s->k_exec_us;  /* the server's execute, as svc_stats_latency says */
		if (!out->prog)
			out->prog = s->prog, out->vers = s->vers, out->proc = s->proc;
	}
	if (in[JV_WIRE] && clk[JV_WIRE].known) {
		uint64_t *t[] = { &out->t_call_first, &out->t_call_last, &out->t_read_first, &out->t_read_last,
				  &out->t_write_first, &out->t_write_last, &out->t_reply_first, &out->t_reply_last };
		for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			*t[i] = shift(*t[i], &clk[JV_WIRE]);
	} else {
		/* no wire times on this record: the probes' own views are in vt_* */
		out->t_call_first = out->t_call_last = out->t_read_first = out->t_read_last = 0;
		out->t_write_first = out->t_write_last = out->t_reply_first = out->t_reply_last = 0;
	}
	rec_derive(out);
	fuse_derive(out);
}

/* Boundary b between phase b - 1 and phase b (b = 0: the start, REC_FP_N:
 * the end).  EMPTY: the event did not happen though its vantage looked
 * (no READ, no WRITE): the phase it starts takes no time. */
enum { B_UNKNOWN, B_KNOWN, B_EMPTY };

void fuse_derive(struct nfsrdma_record *r)
{
	uint64_t at[REC_FP_N + 1] = { 0 };
	uint8_t st[REC_FP_N + 1] = { 0 };
	const uint64_t *c = r->vt_client, *s = r->vt_server;
	bool client = (r->vantages & REC_VT_CLIENT) && c[RCT_END];
	bool server = (r->vantages & REC_VT_SERVER) && (s[RST_RECV] || s[RST_EXEC_DONE]);
	bool wire = (r->vantages & REC_VT_WIRE) && r->t_call_first;

	/* vs[b]: the vantage that gave boundary b (JV_*), to say why a phase
	 * came out negative */
	uint8_t vs[REC_FP_N + 1] = { 0 };
	uint8_t cur = JV_CLIENT;
#define SET(b, t) do { if ((t) && st[b] != B_KNOWN) { at[b] = (t); st[b] = B_KNOWN; vs[b] = cur; } } while (0)
	if (client) {
		cur = JV_CLIENT;
		SET(0, c[RCT_BEGIN]);
		SET(REC_FP_CLIENT_SEND, c[RCT_MARSHAL]);
		SET(REC_FP_NET_OUT, c[RCT_SEND]);
		SET(REC_FP_CLIENT_DONE, c[RCT_REPLY]);
		SET(REC_FP_N, c[RCT_END]);
	}
	/* Linux posts a READ's Write chunk from inside the procedure (the
	 * encoder hands the payload to svc_rdma_result_payload before
	 * svc_stats_latency ends the execute): the server's own clock says
	 * the push began within the execute, so there is no push boundary
	 * after it and reply_build+push stay one span, whatever the wire's
	 * aligned first WRITE seems to say.  Taken as a boundary it made
	 * every such READ's reply_build negative. */
	bool push_in_exec = server && s[RST_WRITE_POST] && s[RST_EXEC_DONE] && s[RST_WRITE_POST] < s[RST_EXEC_DONE];
	if (server) {
		cur = JV_SERVER;
		SET(REC_FP_SERVER_QUEUE, s[RST_RECV]);
		SET(REC_FP_PULL, s[RST_READ_POST]);
		SET(REC_FP_EXECUTE, s[RST_DISPATCH]);
		SET(REC_FP_REPLY_BUILD, s[RST_EXEC_DONE]);
		if (!push_in_exec)
			SET(REC_FP_PUSH, s[RST_WRITE_POST]);
		SET(REC_FP_NET_BACK, s[RST_SEND_POST]);
	}
	if (wire) {
		cur = JV_WIRE;
		/* what the server kernel did not say, the wire approximates:
		 * its last call packet is the request's arrival, its first
		 * reply packet the reply's post */
		SET(REC_FP_SERVER_QUEUE, r->t_call_last);
		if (st[REC_FP_PULL] == B_UNKNOWN) {
			if (r->t_read_first) {
				SET(REC_FP_PULL, r->t_read_first);
				SET(REC_FP_EXECUTE, r->t_read_last);
			} else {
				st[REC_FP_PULL] = B_EMPTY;
			}
		}
		if (st[REC_FP_PUSH] == B_UNKNOWN && !push_in_exec) {
			if (!r->t_write_first)
				st[REC_FP_PUSH] = B_EMPTY;
			else if (!(server && s[RST_EXEC_DONE] && r->t_write_first < s[RST_EXEC_DONE]))
				SET(REC_FP_PUSH, r->t_write_first);
			/* else the WRITEs began while the server still executed
			 * (Linux pushes a READ's payload from inside the
			 * procedure): no push boundary after execute to give,
			 * reply_build and push stay one span */
		}
		SET(REC_FP_NET_BACK, r->t_reply_first);
		if (!client) {
			SET(REC_FP_NET_OUT, r->t_call_first);
			SET(REC_FP_CLIENT_DONE, r->t_reply_last);
		}
	}
	/* the server saw no READ (WRITE) and no wire says otherwise: none */
	if (server && st[REC_FP_PULL] == B_UNKNOWN)
		st[REC_FP_PULL] = B_EMPTY;
	if (server && st[REC_FP_PUSH] == B_UNKNOWN && !push_in_exec)
		st[REC_FP_PUSH] = B_EMPTY;
#undef SET
	/* an EMPTY boundary sits on the next known one */
	for (int b = REC_FP_N - 1; b >= 0; b--)
		if (st[b] == B_EMPTY) {
			if (st[b + 1] == B_KNOWN)
				at[b] = at[b + 1], st[b] = B_KNOWN, vs[b] = vs[b + 1];
			else
				st[b] = B_UNKNOWN;
		}
	memset(r->f_phase, 0, sizeof(r->f_phase));
	r->f_total = 0;
	r->f_mask = r->f_merged = 0;
	int first = -1, prev = -1, last = -1;
	uint64_t t_prev = 0;
	/* the latest boundary so far as given (before any hold) and its
	 * vantage: the one a boundary before it contradicts */
	uint64_t t_max = 0;
	uint8_t v_max = 0;
	for (int b = 0; b <= REC_FP_N; b++)
		if (st[b] == B_KNOWN)
			last = b;
	uint64_t end = last >= 0 ? at[last] : 0;
	for (int b = 0; b <= REC_FP_N; b++) {
		if (st[b] != B_KNOWN)
			continue;
		uint64_t raw = at[b];
		if (prev < 0) {
			first = b;
			if (end < at[b])
				end = at[b];
		} else {
			uint64_t t = raw;
			if (t < t_prev || t > end) {
				/* negative after alignment: flagged with who
				 * contradicts whom, and held between its
				 * neighbours so the phases still add up to the
				 * total (the outermost boundaries) */
				uint8_t other = t < t_max ? v_max : vs[last];
				r->f_flags |= RECFF_NEGATIVE |
					      (other == vs[b] ? RECFF_NEG_CLIENT << vs[b] : RECFF_NEG_CLOCK);
				t = t < t_prev ? t_prev : end;
			}
			r->f_phase[prev] = t - t_prev;
			r->f_mask |= 1u << prev;
			for (int m = prev; m < b - 1; m++)
				r->f_merged |= 1u << m;
			at[b] = t;
		}
		if (raw >= t_max)
			t_max = raw, v_max = vs[b];
		prev = b;
		t_prev = at[b];
	}
	if (first >= 0 && prev > first)
		r->f_total = at[prev] - at[first];
	verdict_derive(r, vs);
}
