#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/grow.h"
#include "src/join/fuse.h"
#include "src/join/join.h"
#include "src/join/join_int.h"

static const uint64_t MATCH_DEFAULT_NS = 10ull * 1000 * 1000 * 1000;

static int vantage_index(unsigned bits)
{
	return bits == REC_VT_CLIENT ? JV_CLIENT : bits == REC_VT_WIRE ? JV_WIRE :
	       bits == REC_VT_SERVER ? JV_SERVER : -1;
}

/* A record's time on its own clock: when its vantage first saw the RPC. */
static uint64_t rec_time(const struct nfsrdma_record *r, int v)
{
	uint64_t t[(int)RST_N > (int)RCT_N ? (int)RST_N : (int)RCT_N];

	if (v == JV_CLIENT) {
		fuse_client_times(r, t);
		for (unsigned i = 0; i < RCT_N; i++)
			if (t[i])
				return t[i];
	} else if (v == JV_SERVER) {
		fuse_server_times(r, t);
		for (unsigned i = 0; i < RST_N; i++)
			if (t[i])
				return t[i];
	}
	return r->t_call_first ? r->t_call_first : r->t_reply_first;
}

struct join *join_new(const struct join_opts *o, join_emit_fn emit, void *ctx)
{
	struct join *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	if (o)
		j->o = *o;
	if (!j->o.expect)
		j->o.expect = REC_VT_ALL;
	if (!j->o.match_ns)
		j->o.match_ns = MATCH_DEFAULT_NS;
	if (!j->o.max_pending)
		j->o.max_pending = 65536;
	if (j->o.max_pending > (1u << 24))
		j->o.max_pending = 1u << 24;
	for (j->nbucket = 16; j->nbucket < 2 * j->o.max_pending; j->nbucket <<= 1)
		;
	j->bucket = calloc(j->nbucket, sizeof(*j->bucket));
	if (!j->bucket) {
		free(j);
		return NULL;
	}
	j->emit = emit;
	j->ctx = ctx;
	return j;
}

void join_free(struct join *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < JOIN_MAX_HOSTS * JOIN_MAX_HOSTS; i++)
		clock_sync_free(j->pair[i]);
	claims_free(j->claims);
	free(j->ent);
	free(j->bucket);
	free(j);
}

const struct join_stats *join_stats(const struct join *j) { return &j->st; }

/* ---- entries: a pool, a hash on the XID, a FIFO by arrival ---- */

static struct jent *E(struct join *j, uint32_t i) { return &j->ent[i - 1]; }

static uint32_t ent_alloc(struct join *j)
{
	if (j->free_head) {
		uint32_t i = j->free_head;
		j->free_head = E(j, i)->hnext;
		return i;
	}
	if (ARR_RESERVE_MAX(j->ent, j->cap, j->nent + 1, 64, j->o.max_pending) < 0)
		return 0;
	return (uint32_t)++j->nent;
}

static uint32_t *bucket_of(struct join *j, uint32_t xid)
{
	/* XIDs are sequential per client: their low bits keep neighbours in
	 * one cache line (a multiplicative hash cost a miss per record) */
	return &j->bucket[(xid ^ (xid >> 20)) & (j->nbucket - 1)];
}

static void ent_unlink(struct join *j, uint32_t i)
{
	struct jent *e = E(j, i);
	uint32_t *p = bucket_of(j, e->xid);

	while (*p != i)
		p = &E(j, *p)->hnext;
	*p = e->hnext;
	if (e->fprev)
		E(j, e->fprev)->fnext = e->fnext;
	else
		j->fifo_head = e->fnext;
	if (e->fnext)
		E(j, e->fnext)->fprev = e->fprev;
	else
		j->fifo_tail = e->fprev;
	e->hnext = j->free_head;
	e->have = 0;              /* free: a remembered split finds it gone */
	j->free_head = i;
	j->st.pending--;
}

/* ---- clocks ---- */

static struct clock_sync *pair_get(struct join *j, unsigned a, unsigned b)
{
	struct clock_sync **p = &j->pair[a * JOIN_MAX_HOSTS + b];

	if (!*p)
		*p = clock_sync_new();
	return *p;
}

static inline int causal_clock(const struct join *j, unsigned a, unsigned b, uint64_t at_a,
				struct clock_est *out)
{
	if (a >= JOIN_MAX_HOSTS || b >= JOIN_MAX_HOSTS)
		return -EINVAL;
	if (a == b) {
		*out = (struct clock_est){ .bounded = true };
		return 0;
	}
	if (a < b) {
		const struct clock_sync *p = j->pair[a * JOIN_MAX_HOSTS + b];
		return p ? clock_sync_estimate(p, at_a, out) : -ENODATA;
	}
	/* The pair is kept as (b, a), its times on b's clock: asked at a time
	 * of a, its "B" (clock_sync maps it from the fit's own reference time:
	 * starting from at_a, a pair whose clocks are days apart extrapolated
	 * its drift over those days, hundreds of us off). */
	const struct clock_sync *p = j->pair[b * JOIN_MAX_HOSTS + a];
	struct clock_est e;
	if (!p || clock_sync_estimate_at_b(p, at_a, &e) < 0)
		return -ENODATA;
	*out = e;
	out->offset_ns = -e.offset_ns;
	out->drift_ppm = -e.drift_ppm;
	return 0;
}

/* The causal estimate, or the hosts' own clocks where both claim better
 * (clock_claim.h) */
static inline int clock_at(const struct join *j, unsigned a, unsigned b, uint64_t at_a, struct clock_est *out)
{
	/* clock_sync's answers are zeroed first: from_hosts false */
	int rc = causal_clock(j, a, b, at_a, out);

	/* the hot path of every record: the claims only where a host sent lines */
	return __builtin_expect(j->claims != NULL, 0) ? claims_apply(j->claims, a, b, at_a, rc, out) : rc;
}

int join_clock(const struct join *j, unsigned a, unsigned b, uint64_t at_a, struct clock_est *out)
{
	return clock_at(j, a, b, at_a, out);
}

int join_clock_causal(const struct join *j, unsigned a, unsigned b, uint64_t at_a, struct clock_est *out)
{
	return causal_clock(j, a, b, at_a, out);
}

int join_clock_line(struct join *j, unsigned host, const char *line, size_t len, char *err, size_t errlen)
{
	struct claim_line l;
	int rc = claim_parse(line, len, &l, err, errlen);

	if (rc)
		return rc;
	if (host >= JOIN_MAX_HOSTS || (!j->claims && !(j->claims = claims_new())) ||
	    (rc = claims_add(j->claims, host, &l)) < 0) {
		snprintf(err, errlen, "a clock line not kept (%s)", host >= JOIN_MAX_HOSTS ? "host out of range" :
			 !j->claims ? "out of memory" : "the host's 2^20 lines are full");
		return host >= JOIN_MAX_HOSTS ? -EINVAL : rc < 0 ? rc : -ENOMEM;
	}
	return 0;
}

int join_clock_hint(struct join *j, unsigned a, unsigned b, int64_t offset_ns, uint64_t uncertainty_ns)
{
	if (a >= JOIN_MAX_HOSTS || b >= JOIN_MAX_HOSTS || a == b)
		return -EINVAL;
	struct clock_sync *p = a < b ? pair_get(j, a, b) : pair_get(j, b, a);
	if (!p)
		return -ENOMEM;
	clock_sync_hint(p, a < b ? offset_ns : -offset_ns, uncertainty_ns);
	return 0;
}

void join_clock_each(const struct join *j,
		     void (*fn)(unsigned a, unsigned b, const struct clock_est *e, void *ctx), void *ctx)
{
	for (unsigned a = 0; a < JOIN_MAX_HOSTS; a++)
		for (unsigned b = a + 1; b < JOIN_MAX_HOSTS; b++) {
			struct clock_est e;
			const struct clock_sync *p = j->pair[a * JOIN_MAX_HOSTS + b];
			if (p && join_clock(j, a, b, j->host_now[a], &e) == 0)
				fn(a, b, &e, ctx);
		}
}

/* A message left host hx at tx and reached host hy at ty. */
static void causal(struct join *j, unsigned hx, uint64_t tx, unsigned hy, uint64_t ty)
{
	if (!tx || !ty || hx == hy)
		return;
	if (__builtin_expect(j->claims != NULL, 0))
		claims_check(j->claims, hx, tx, hy, ty);
	if (hx < hy)
		clock_sync_a_to_b(pair_get(j, hx, hy), tx, ty);
	else
		clock_sync_b_to_a(pair_get(j, hy, hx), tx, ty);
}

/* What vantages u and v of one RPC prove about their clocks: the call
 * goes client -> wire -> server, the reply back. */
static void feed_pair(struct join *j, const struct jent *e, int u, int v)
{
	const struct nfsrdma_record *r[JV_N] = { 0 };
	uint64_t c[RCT_N] = { 0 }, s[RST_N] = { 0 };

	r[u] = &e->rec[u];
	r[v] = &e->rec[v];
	for (int k = 0; k < JV_N; k++)
		if (r[k] && (r[k]->flags & RECF_RETRANSMIT))
			return;  /* which transmission met which: unknown */
	if (e->fflags & (RECFF_RETRANSMIT | RECFF_DUP_XID))
		return;
	if (r[JV_CLIENT])
		fuse_client_times(r[JV_CLIENT], c);
	if (r[JV_SERVER])
		fuse_server_times(r[JV_SERVER], s);
	uint64_t c_out = c[RCT_SEND] ? c[RCT_SEND] : c[RCT_MARSHAL] ? c[RCT_MARSHAL] : c[RCT_BEGIN];
	uint64_t c_in = c[RCT_REPLY] ? c[RCT_REPLY] : c[RCT_END];
	/* without the request's receive, the execute's start: later, still a bound */
	uint64_t s_in = s[RST_RECV] ? s[RST_RECV] : s[RST_DISPATCH];
	/* the reply leaves after the server's execute ends, at its Send's post */
	uint64_t s_out = s[RST_SEND_POST] ? s[RST_SEND_POST] : s[RST_EXEC_DONE];
	const struct nfsrdma_record *w = r[JV_WIRE];
	unsigned hc = e->host[JV_CLIENT], hw = e->host[JV_WIRE], hs = e->host[JV_SERVER];

	if (r[JV_CLIENT] && w) {
		causal(j, hc, c_out, hw, w->t_call_first);
		causal(j, hw, w->t_reply_last, hc, c_in);
	} else if (r[JV_CLIENT] && r[JV_SERVER]) {
		causal(j, hc, c_out, hs, s_in);
		causal(j, hs, s_out, hc, c_in);
	} else if (w && r[JV_SERVER]) {
		causal(j, hw, w->t_call_last, hs, s_in);
		causal(j, hs, s_out, hw, w->t_reply_first);
	}
}

/* ---- emit ---- */

/* The clocks that put each vantage of e on its reference vantage's clock;
 * true when one of them is confirming a step or a jump, or stepped and is
 * one-sided again (the window or the end emits e then, fused with the
 * clock once it has settled). */
static bool ent_clocks(const struct join *j, const struct jent *e, struct fuse_clock clk[JV_N])
{
	int ref = (e->have & REC_VT_WIRE) ? JV_WIRE : (e->have & REC_VT_CLIENT) ? JV_CLIENT : JV_SERVER;
	uint64_t t_ref = rec_time(&e->rec[ref], ref);
	bool settling = false;

	for (int v = 0; v < JV_N; v++) {
		struct clock_est est;
		clk[v] = (struct fuse_clock){ 0 };
		if (!(e->have & (1u << v)) || clock_at(j, e->host[ref], e->host[v], t_ref, &est) < 0)
			continue;
		/* offset = v - ref: a time of v minus it is on ref's clock */
		clk[v] = (struct fuse_clock){ .add_ns = -est.offset_ns, .uncertainty_ns = est.uncertainty_ns,
					      .known = true, .bounded = est.bounded, .steps = est.steps };
		if (v != ref && (est.unsettled || (est.steps && !est.bounded)))
			settling = true;
	}
	return settling;
}

/* clk: the entry's clocks (ent_clocks), or NULL to find them */
static void emit_ent(struct join *j, uint32_t i, bool evicted, const struct fuse_clock *clk)
{
	struct jent *e = E(j, i);
	const struct nfsrdma_record *in[JV_N] = { 0 };
	struct fuse_clock own[JV_N];

	if (!clk) {
		ent_clocks(j, e, own);
		clk = own;
	}
	for (int v = 0; v < JV_N; v++)
		if (e->have & (1u << v))
			in[v] = &e->rec[v];
	struct nfsrdma_record *out = &j->out;
	fuse_records(in, clk, out);
	out->f_flags |= e->fflags;
	if (evicted && (e->have & j->o.expect) != j->o.expect)
		out->f_flags |= RECFF_EVICTED;
	struct join_stats *st = &j->st;
	st->emitted++;
	st->by_vantages[e->have & 7]++;
	if ((e->have & j->o.expect) == j->o.expect) {
		st->complete++;
	} else {
		st->partial++;
		if (evicted)
			st->evicted++;
	}
	for (int v = 0; v < JV_N; v++) {
		if (!(j->o.expect & (1u << v)))
			continue;
		if (e->have & (1u << v)) {
			j->trailing[v] = 0;
		} else {
			st->missing[v]++;
			j->trailing[v]++;
		}
		st->stopped_after[v] = st->in[v] ? j->trailing[v] : 0;
	}
	if (out->f_flags & RECFF_NEGATIVE)
		st->negative++;
	for (unsigned k = 0; k < 4; k++)
		if (out->f_flags & (RECFF_NEG_CLIENT << k))
			st->negative_by[k]++;
	if (out->f_flags & RECFF_NO_CLOCK)
		st->unaligned++;
	ent_unlink(j, i);
	if (j->emit)
		j->emit(out, j->ctx);
}

/* room: entries about to be taken */
static void evict_old(struct join *j, size_t room)
{
	while (j->fifo_head) {
		struct jent *e = E(j, j->fifo_head);
		bool full = j->st.pending + room > j->o.max_pending;
		bool old = j->o.window_ns && j->host_now[e->anchor_host] > e->anchor_t + j->o.window_ns;
		if (!full && !old)
			break;
		emit_ent(j, j->fifo_head, true, NULL);
	}
}

void join_flush(struct join *j)
{
	while (j->fifo_head)
		emit_ent(j, j->fifo_head, true, NULL);
}

/* ---- matching ---- */

static bool ep_differ(const struct rec_endpoint *a, const struct rec_endpoint *b)
{
	if (!a->family || !b->family || a->family == 'G' || b->family == 'G' || a->family == 'L' ||
	    b->family == 'L')
		return false;  /* unknown on one side: no evidence against */
	return a->family != b->family || memcmp(a->addr, b->addr, a->family == 4 ? 4 : 16) != 0;
}

/* Two records of one XID that name different RPCs (program, version where
 * both know it, procedure) are two RPCs: an implementation that numbers
 * XIDs from 1 on every connection (Chimera's client: its portmap NULL over
 * TCP, its MOUNT NULL, an NFS NULL and an NFS GETATTR over RDMA were all
 * XID 1).  A record that names a program knows its procedure's number
 * (the probes read both from the kernel's RPC). */
static bool rpc_differ(const struct nfsrdma_record *a, const struct nfsrdma_record *b)
{
	if (!a->prog || !b->prog)
		return false;
	return a->prog != b->prog || (a->vers && b->vers && a->vers != b->vers) || a->proc != b->proc;
}

/* Could r (vantage v, host h, own time t) be the RPC of entry e?  0 yes;
 * 1 no (endpoints); 2 no but for the clocks: *uh, *shift say which host
 * of e and how far r's time is from where the estimate puts it. */
static int mismatch(const struct join *j, const struct jent *e, const struct nfsrdma_record *r,
		    unsigned h, uint64_t t, unsigned *uh, int64_t *shift)
{
	int why = 0;

	for (int u = 0; u < JV_N; u++) {
		if (!(e->have & (1u << u)))
			continue;
		const struct nfsrdma_record *o = &e->rec[u];
		if (ep_differ(&o->caller, &r->caller) || ep_differ(&o->callee, &r->callee) || rpc_differ(o, r))
			return 1;
		struct clock_est est;
		uint64_t tu = rec_time(o, u);
		if (clock_at(j, e->host[u], h, tu, &est) < 0)
			continue;  /* clocks not related yet: the XID decides */
		if (est.uncertainty_ns >= j->o.match_ns)
			continue;
		int64_t d = (int64_t)(t - (tu + (uint64_t)est.offset_ns));
		if ((uint64_t)(d < 0 ? -d : d) > j->o.match_ns + est.uncertainty_ns) {
			why = 2;
			*uh = e->host[u];
			*shift = d;
		}
	}
	return why;
}

/* A clock that steps by more than the match window would never be seen
 * again: its records match no other vantage, so no bound reaches the
 * estimator.  When JOIN_STEP_CONFIRM XIDs in a row between two hosts match but
 * for the clocks, all off by the same shift (within STEP_AGREE_NS: XIDs
 * reused much later are off by anything), the next ones are joined: their
 * bounds contradict the fit and the estimator detects the step
 * (clock_sync.h). */
#define STEP_AGREE_NS  (1000000000ll)

static bool step_confirmed(struct join *j, unsigned uh, unsigned h, int64_t d)
{
	__typeof__(j->stepc[0]) *c = &j->stepc[uh * JOIN_MAX_HOSTS + h];
	int64_t gap = d - c->shift;

	if (c->n && gap <= STEP_AGREE_NS && gap >= -STEP_AGREE_NS)
		c->n++;
	else
		c->n = 1;
	c->shift = d;
	return c->n > JOIN_STEP_CONFIRM;
}

/* The n-th XID off by the shift (not yet believed) left two entries apart. */
static void remember_split(struct join *j, unsigned uh, unsigned h, uint32_t waiting, uint32_t arrived)
{
	__typeof__(j->stepc[0]) *c = &j->stepc[uh * JOIN_MAX_HOSTS + h];

	if (c->n >= 1 && c->n <= JOIN_STEP_CONFIRM)
		c->split[c->n - 1] = (__typeof__(c->split[0])){ waiting, arrived, E(j, waiting)->xid };
}

static void emit_if_complete(struct join *j, uint32_t i)
{
	struct fuse_clock clk[JV_N];

	if ((E(j, i)->have & j->o.expect) == j->o.expect && !j->o.hold_complete && !ent_clocks(j, E(j, i), clk))
		emit_ent(j, i, false, clk);
}

/* The step is believed: the XIDs that showed it are joined too, when
 * both their entries are still waiting and hold different vantages. */
static void rejoin_splits(struct join *j, unsigned uh, unsigned h)
{
	__typeof__(j->stepc[0]) *c = &j->stepc[uh * JOIN_MAX_HOSTS + h];

	for (unsigned k = 0; k < JOIN_STEP_CONFIRM; k++) {
		uint32_t wi = c->split[k].waiting, ai = c->split[k].arrived;
		c->split[k].waiting = c->split[k].arrived = 0;
		if (!wi || !ai || wi == ai)
			continue;
		struct jent *w = E(j, wi), *a = E(j, ai);
		if (!w->have || !a->have || w->xid != c->split[k].xid || a->xid != c->split[k].xid ||
		    (w->have & a->have))
			continue;
		uint8_t old = w->have, add = a->have;
		for (int v = 0; v < JV_N; v++)
			if (add & (1u << v)) {
				w->rec[v] = a->rec[v];
				w->host[v] = a->host[v];
			}
		w->have |= add;
		w->fflags |= a->fflags;
		ent_unlink(j, ai);
		for (int v = 0; v < JV_N; v++)
			for (int u = 0; u < JV_N; u++)
				if ((add & (1u << v)) && (old & (1u << u)))
					feed_pair(j, w, u, v);
		j->st.step_joins++;
		/* not emitted yet: the estimator has not seen the step, and the
		 * window or the end emits it, fused with the clock after it */
	}
}

static void merge_retransmit(struct jent *e, const struct nfsrdma_record *r)
{
	struct nfsrdma_record *w = &e->rec[JV_WIRE];

	/* the first call is kept; the reply is whichever transmission got one */
	if (!(w->flags & RECF_REPLY) && (r->flags & RECF_REPLY)) {
		w->t_reply_first = r->t_reply_first;
		w->t_reply_last = r->t_reply_last;
		w->t_write_first = r->t_write_first;
		w->t_write_last = r->t_write_last;
		w->flags |= RECF_REPLY;
		w->rpc_status = r->rpc_status;
		w->status = r->status;
	}
	w->flags |= RECF_RETRANSMIT;
	e->fflags |= RECFF_RETRANSMIT;
}

/* A host's newest time.  A clock stepped back gives records far behind
 * it, again and again: after JOIN_STEP_CONFIRM in a row, follow it, or the
 * window would evict its new RPCs at once and its clocks be reported at
 * a time it left. */
static void host_time(struct join *j, unsigned host, uint64_t t)
{
	if (t > j->host_now[host]) {
		j->host_now[host] = t;
		j->host_back[host] = 0;
	} else if (j->host_now[host] - t <= j->o.match_ns) {
		j->host_back[host] = 0;
	} else if (++j->host_back[host] > JOIN_STEP_CONFIRM) {
		j->host_now[host] = t;
		j->host_back[host] = 0;
	}
}

int join_add(struct join *j, const struct nfsrdma_record *r, unsigned host)
{
	int v = vantage_index(rec_vantages(r));

	if (v < 0 || host >= JOIN_MAX_HOSTS) {
		j->st.rejected++;
		return -EINVAL;
	}
	j->st.in[v]++;
	uint64_t t = rec_time(r, v);
	host_time(j, host, t);

	uint32_t match = 0, stepped = 0;
	unsigned step_u = 0;
	int64_t step_d = 0;
	bool dup = false;
	for (uint32_t i = *bucket_of(j, r->xid); i; i = E(j, i)->hnext) {
		struct jent *e = E(j, i);
		if (e->xid != r->xid)
			continue;
		unsigned uh = 0;
		int64_t off = 0;
		int why = mismatch(j, e, r, host, t, &uh, &off);
		if (why == 2 && !(e->have & (1u << v)) && !stepped) {
			stepped = i;
			step_u = uh;
			step_d = off;
		}
		if (why)
			continue;
		if (!(e->have & (1u << v))) {
			/* the oldest waiting entry (chains are newest first):
			 * when a probe sent an XID twice, the first copy gets
			 * the other vantages, not whichever copy came last */
			match = i;
			continue;
		}
		if (e->host[v] == host) {
			int64_t d = (int64_t)(t - rec_time(&e->rec[v], v));
			if ((uint64_t)(d < 0 ? -d : d) > j->o.match_ns)
				continue;  /* the XID again, long after: another RPC */
		}
		if (v == JV_WIRE && e->host[v] == host) {
			merge_retransmit(e, r);
			j->st.retransmits++;
			return 0;
		}
		e->fflags |= RECFF_DUP_XID;
		dup = true;
	}
	if (dup)
		j->st.dup_xids++;
	uint32_t split = 0;
	bool rejoin = false;
	if (match) {
		/* in a row no more: only between the hosts that just agreed */
		const struct jent *m = E(j, match);
		for (int u = 0; u < JV_N; u++)
			if (m->have & (1u << u))
				j->stepc[m->host[u] * JOIN_MAX_HOSTS + host].n = 0;
	} else if (stepped && step_confirmed(j, step_u, host, step_d)) {
		match = stepped;
		j->st.step_joins++;
		rejoin = true;
	} else if (stepped) {
		split = stepped;
	}
	if (!match) {
		evict_old(j, 1);
		match = ent_alloc(j);
		if (!match) {
			j->st.rejected++;
			return -ENOMEM;
		}
		struct jent *e = E(j, match);
		e->xid = r->xid;
		e->have = 0;
		e->fflags = dup ? RECFF_DUP_XID : 0;
		e->anchor_host = (uint8_t)host;
		e->anchor_t = t;
		uint32_t *b = bucket_of(j, r->xid);
		e->hnext = *b;
		*b = match;
		e->fnext = 0;
		e->fprev = j->fifo_tail;
		if (j->fifo_tail)
			E(j, j->fifo_tail)->fnext = match;
		else
			j->fifo_head = match;
		j->fifo_tail = match;
		if (++j->st.pending > j->st.pending_max)
			j->st.pending_max = j->st.pending;
	}
	struct jent *e = E(j, match);
	e->rec[v] = *r;
	e->host[v] = (uint8_t)host;
	e->have |= (uint8_t)(1u << v);
	for (int u = 0; u < JV_N; u++)
		if (u != v && (e->have & (1u << u)))
			feed_pair(j, e, u, v);
	if (split)
		remember_split(j, step_u, host, split, match);
	if (rejoin)
		rejoin_splits(j, step_u, host);   /* this one, joined across the step, waits as they do */
	else
		emit_if_complete(j, match);
	evict_old(j, 0);
	return 0;
}
