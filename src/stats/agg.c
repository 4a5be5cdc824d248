/* Aggregation engine (see agg.h). */
#include "src/stats/agg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "src/out/recfmt.h"

const double agg_prom_le[AGG_PROM_NLE] = {
	0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 10.0,
};
const char *const agg_dim_name[AGG_NDIM] = { "op", "client", "server", "conn", "series" };
const char *const agg_phase_name[PH_N] = { "call", "pull", "server", "push", "reply" };
const char *const agg_mix_name[MIX_N] = { "inline", "read", "write", "reply", "p0" };

#define NBUCKETS 1024   /* hash chains per dimension */
#define OTHER_KEY "(other)"

struct table {
	struct agg_ent *bucket[NBUCKETS];
	struct agg_ent **order;   /* insertion order */
	size_t n, cap, max;
	struct agg_ent *other;
};

struct agg {
	struct agg_config cfg;
	struct table t[AGG_NDIM];
	struct agg_totals tot;
	uint64_t start_ns, now_ns;
	struct agg_win win[AGG_SLOTS_MAX];
	unsigned nslow;
	struct agg_slow slow[AGG_SLOW_MAX];
	size_t mem;
};

struct agg *agg_new(const struct agg_config *c)
{
	static const unsigned defmax[AGG_NDIM] = { 256, 1024, 1024, 1024, 4096 };
	struct agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (c)
		a->cfg = *c;
	for (int d = 0; d < AGG_NDIM; d++)
		a->t[d].max = a->cfg.max_keys[d] ? a->cfg.max_keys[d] : defmax[d];
	if (!a->cfg.slots || a->cfg.slots > AGG_SLOTS_MAX)
		a->cfg.slots = 10;
	if (!a->cfg.slot_ns)
		a->cfg.slot_ns = 1000000000ull;
	if (!a->cfg.slow_n || a->cfg.slow_n > AGG_SLOW_MAX)
		a->cfg.slow_n = 20;
	a->mem = sizeof(*a);
	return a;
}

static void ent_free(struct agg *a, struct agg_ent *e)
{
	if (!e)
		return;
	hist_free(&e->lat);
	if (e->wlat)
		for (unsigned i = 0; i < a->cfg.slots; i++)
			hist_free(&e->wlat[i]);
	free(e->wlat);
	free(e);
}

void agg_free(struct agg *a)
{
	if (!a)
		return;
	for (int d = 0; d < AGG_NDIM; d++) {
		for (size_t i = 0; i < a->t[d].n; i++)
			ent_free(a, a->t[d].order[i]);
		free(a->t[d].order);
		ent_free(a, a->t[d].other);
	}
	free(a);
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static struct agg_ent *ent_new(struct agg *a, enum agg_dim d, const char *key)
{
	struct agg_ent *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->label[0], sizeof(e->label[0]), "%s", key);
	if (hist_init(&e->lat, HIST_RES) < 0) {
		ent_free(a, e);
		return NULL;
	}
	a->mem += sizeof(*e) + hist_bytes(HIST_RES);
	if (d == AGG_OP) {
		if (!(e->wlat = calloc(a->cfg.slots, sizeof(*e->wlat)))) {
			ent_free(a, e);
			return NULL;
		}
		for (unsigned i = 0; i < a->cfg.slots; i++)
			if (hist_init(&e->wlat[i], HIST_RES) < 0) {
				ent_free(a, e);
				return NULL;
			}
		a->mem += a->cfg.slots * (sizeof(*e->wlat) + hist_bytes(HIST_RES));
	}
	return e;
}

/* Finds or makes the entry for key; NULL only when out of memory.  A full
 * table hands back its "(other)" entry and counts the overflow. */
static struct agg_ent *lookup(struct agg *a, enum agg_dim d, const char *key)
{
	struct table *t = &a->t[d];
	uint32_t h = hash_str(key);
	struct agg_ent *e;

	for (e = t->bucket[h % NBUCKETS]; e; e = e->next)
		if (e->hash == h && !strcmp(e->key, key))
			return e;
	if (t->n >= t->max) {
		a->tot.overflow[d]++;
		if (!t->other)
			t->other = ent_new(a, d, OTHER_KEY);
		return t->other;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct agg_ent **o = realloc(t->order, cap * sizeof(*o));
		if (!o)
			return NULL;
		a->mem += (cap - t->cap) * sizeof(*o);
		t->order = o;
		t->cap = cap;
	}
	if (!(e = ent_new(a, d, key)))
		return NULL;
	e->hash = h;
	e->next = t->bucket[h % NBUCKETS];
	t->bucket[h % NBUCKETS] = e;
	t->order[t->n++] = e;
	return e;
}

static bool is_error(const struct nfsrdma_record *r)
{
	/* Same rule as the dissector's -z summaries. */
	return (r->flags & RECF_REPLY) &&
	       (r->rpc_status != 0 || (r->status != 0 && r->status != REC_STATUS_NONE));
}

static void count(struct agg_counts *c, const struct nfsrdma_record *r)
{
	c->records++;
	if (r->flags & RECF_CALL)
		c->calls++;
	if (r->flags & RECF_REPLY)
		c->replies++;
	else
		c->noreply++;
	if (is_error(r))
		c->errors++;
	if (r->nfindings || r->findings)
		c->findings++;
	c->bytes_inline += rec_bytes_inline(r);
	c->bytes_ddp += rec_bytes_ddp(r);
	unsigned reads = r->n_read_chunks - ((r->flags & RECF_ARGS_DDP) && r->n_read_chunks ? 1 : 0);
	if (r->flags & RECF_ARGS_DDP)
		c->mix[MIX_P0]++;
	if (reads)
		c->mix[MIX_READ]++;
	if (r->n_write_chunks)
		c->mix[MIX_WRITE]++;
	if (r->n_reply_segs)
		c->mix[MIX_REPLY]++;
	if (!(r->flags & RECF_ARGS_DDP) && !reads && !r->n_write_chunks && !r->n_reply_segs)
		c->mix[MIX_INLINE]++;
	if ((r->flags & (RECF_CALL | RECF_REPLY)) == (RECF_CALL | RECF_REPLY)) {
		c->phase_sum[PH_CALL] += r->d_call;
		c->phase_sum[PH_PULL] += r->d_pull;
		c->phase_sum[PH_SERVER] += r->d_server;
		c->phase_sum[PH_PUSH] += r->d_push;
		c->phase_sum[PH_REPLY] += r->d_reply;
		c->lat_sum += r->d_total;
		c->lat_n++;
	}
}

static bool answered(const struct nfsrdma_record *r)
{
	return (r->flags & (RECF_CALL | RECF_REPLY)) == (RECF_CALL | RECF_REPLY);
}

/* The slot for now, cleared if it last held an older second. */
static struct agg_win *win_slot(struct agg_win *w, unsigned slots, uint64_t slot, unsigned *idx)
{
	*idx = (unsigned)(slot % slots);
	if (w[*idx].slot != slot) {
		memset(&w[*idx], 0, sizeof(w[*idx]));
		w[*idx].slot = slot;
	}
	return &w[*idx];
}

static void win_add(struct agg_win *w, const struct nfsrdma_record *r)
{
	w->records++;
	if (is_error(r))
		w->errors++;
	w->bytes += rec_bytes_inline(r) + rec_bytes_ddp(r);
	if (answered(r)) {
		w->lat_sum += r->d_total;
		w->lat_n++;
	}
}

static void ent_add(struct agg *a, struct agg_ent *e, const struct nfsrdma_record *r, uint64_t slot)
{
	unsigned idx;

	count(&e->tot, r);
	e->last_ns = a->now_ns;
	struct agg_win *w = win_slot(e->win, a->cfg.slots, slot, &idx);
	if (e->wlat && w->records == 0)
		hist_reset(&e->wlat[idx]);
	win_add(w, r);
	if (r->credits_granted)
		e->credits_granted = r->credits_granted;
	if (r->credits_asked)
		e->credits_asked = r->credits_asked;
	if (!answered(r))
		return;
	hist_add(&e->lat, r->d_total);
	if (e->wlat)
		hist_add(&e->wlat[idx], r->d_total);
	double s = (double)r->d_total / 1e9;
	unsigned i = 0;
	while (i < AGG_PROM_NLE && s > agg_prom_le[i])
		i++;
	e->prom[i]++;
}

static void slow_add(struct agg *a, const struct nfsrdma_record *r)
{
	uint64_t horizon = a->cfg.slot_ns * a->cfg.slots;
	unsigned victim = a->nslow;

	if (!answered(r))
		return;
	if (a->nslow >= a->cfg.slow_n) {
		/* replace an expired entry, else the fastest if we are slower */
		victim = a->cfg.slow_n;
		for (unsigned i = 0; i < a->nslow; i++) {
			if (a->now_ns > a->slow[i].t_ns + horizon) {
				victim = i;
				break;
			}
			if (victim == a->cfg.slow_n || a->slow[i].total < a->slow[victim].total)
				victim = i;
		}
		if (victim < a->cfg.slow_n && a->now_ns <= a->slow[victim].t_ns + horizon &&
		    a->slow[victim].total >= r->d_total)
			return;
	} else {
		a->nslow++;
	}
	struct agg_slow *s = &a->slow[victim];
	memset(s, 0, sizeof(*s));
	s->t_ns = a->now_ns;
	s->total = r->d_total;
	s->phase[PH_CALL] = r->d_call;
	s->phase[PH_PULL] = r->d_pull;
	s->phase[PH_SERVER] = r->d_server;
	s->phase[PH_PUSH] = r->d_push;
	s->phase[PH_REPLY] = r->d_reply;
	s->xid = r->xid;
	s->conn = r->conn_id;
	rec_name_str(r, s->op, sizeof(s->op));
	dissect_addr_str(r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller, s->client, sizeof(s->client));
	dissect_addr_str(r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee, s->server, sizeof(s->server));
}

void agg_add(struct agg *a, const struct nfsrdma_record *r, uint64_t now_ns)
{
	char key[AGG_KEY_MAX], prog[AGG_LABEL_MAX], op[AGG_LABEL_MAX], cl[AGG_LABEL_MAX], sv[AGG_LABEL_MAX];
	struct agg_ent *e;
	unsigned idx;

	if (now_ns > a->now_ns)
		a->now_ns = now_ns;
	if (!a->start_ns || now_ns < a->start_ns)
		a->start_ns = now_ns;
	uint64_t slot = a->now_ns / a->cfg.slot_ns;
	const struct rec_endpoint *client = r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller;
	const struct rec_endpoint *server = r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee;

	count(&a->tot.tot, r);
	win_add(win_slot(a->win, a->cfg.slots, slot, &idx), r);
	for (unsigned i = 0; i < r->nfindings && i < REC_MAX_FINDINGS; i++)
		if (r->finding[i].id < AGG_FINDINGS)
			a->tot.findings_by_id[r->finding[i].id]++;

	rec_prog_str(r, prog, sizeof(prog));
	rec_proc_str(r, op, sizeof(op));
	dissect_addr_str(client, cl, sizeof(cl));
	dissect_addr_str(server, sv, sizeof(sv));

	snprintf(key, sizeof(key), "%s %s", prog, op);
	if ((e = lookup(a, AGG_OP, key))) {
		if (strcmp(e->key, OTHER_KEY) != 0 && !e->label[1][0]) {
			snprintf(e->label[0], sizeof(e->label[0]), "%s", prog);
			snprintf(e->label[1], sizeof(e->label[1]), "%s", op);
		}
		ent_add(a, e, r, slot);
	}
	if ((e = lookup(a, AGG_CLIENT, cl)))
		ent_add(a, e, r, slot);
	if ((e = lookup(a, AGG_SERVER, sv)))
		ent_add(a, e, r, slot);
	char ea[64], eb[64];
	snprintf(key, sizeof(key), "%u %s <> %s", r->conn_id, fmt_ep(client, ea, sizeof(ea)),
		 fmt_ep(server, eb, sizeof(eb)));
	if ((e = lookup(a, AGG_CONN, key)))
		ent_add(a, e, r, slot);
	/* labels are joined by a byte that cannot occur in them */
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%s", prog, op, cl, sv);
	if ((e = lookup(a, AGG_SERIES, key))) {
		if (strcmp(e->key, OTHER_KEY) != 0 && !e->label[1][0]) {
			snprintf(e->label[0], sizeof(e->label[0]), "%s", prog);
			snprintf(e->label[1], sizeof(e->label[1]), "%s", op);
			snprintf(e->label[2], sizeof(e->label[2]), "%s", cl);
			snprintf(e->label[3], sizeof(e->label[3]), "%s", sv);
		}
		ent_add(a, e, r, slot);
	}
	slow_add(a, r);
}

void agg_set_external(struct agg *a, uint64_t drops_queue, uint64_t drops_source,
		      uint64_t source_events, uint64_t source_errors, uint64_t source_records)
{
	a->tot.source_records = source_records;
	a->tot.drops_queue = drops_queue;
	a->tot.drops_source = drops_source;
	a->tot.source_events = source_events;
	a->tot.source_errors = source_errors;
}

const struct agg_totals *agg_totals(const struct agg *a)
{
	return &a->tot;
}

size_t agg_count(const struct agg *a, enum agg_dim d)
{
	return a->t[d].n + (a->t[d].other ? 1 : 0);
}

const struct agg_ent *agg_entry(const struct agg *a, enum agg_dim d, size_t i)
{
	if (i < a->t[d].n)
		return a->t[d].order[i];
	return i == a->t[d].n ? a->t[d].other : NULL;
}

size_t agg_memory(const struct agg *a)
{
	return a->mem;
}

/* Sums the live window slots: those within the last `slots` seconds of now. */
static void win_sum(const struct agg *a, const struct agg_win *w, uint64_t now_slot, struct agg_win *out,
		    const struct hist *wl, struct hist *hout)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < a->cfg.slots; i++) {
		if (!w[i].records || w[i].slot > now_slot || w[i].slot + a->cfg.slots <= now_slot)
			continue;
		out->records += w[i].records;
		out->errors += w[i].errors;
		out->bytes += w[i].bytes;
		out->lat_sum += w[i].lat_sum;
		out->lat_n += w[i].lat_n;
		if (wl && hout)
			hist_merge(hout, &wl[i]);
	}
}

int agg_snapshot(const struct agg *a, uint64_t now_ns, struct agg_snap *s)
{
	memset(s, 0, sizeof(*s));
	if (now_ns < a->now_ns)
		now_ns = a->now_ns;
	s->now_ns = now_ns;
	s->start_ns = a->start_ns;
	uint64_t now_slot = now_ns / a->cfg.slot_ns;
	/* The window is the full slot count, or the time since start when shorter
	 * (the current slot counts as a whole second: rates never divide by ~0). */
	double win = (double)a->cfg.slots * (double)a->cfg.slot_ns / 1e9;
	double since = a->start_ns ? (double)(now_slot - a->start_ns / a->cfg.slot_ns + 1) *
				     (double)a->cfg.slot_ns / 1e9 : win;
	if (since < win)
		win = since;
	s->win_s = win;
	s->t = a->tot;
	struct agg_win w;
	win_sum(a, a->win, now_slot, &w, NULL, NULL);
	s->rate = (double)w.records / win;
	s->bw = (double)w.bytes / win;

	struct hist wh;   /* an operation's window slots, merged */
	if (hist_init(&wh, HIST_RES) < 0)
		return -ENOMEM;
	for (int d = 0; d < AGG_NDIM; d++) {
		size_t n = agg_count(a, d);
		if (!n)
			continue;
		struct agg_row *rows = calloc(n, sizeof(*rows));
		if (!rows) {
			hist_free(&wh);
			agg_snap_free(s);
			return -ENOMEM;
		}
		s->rows[d] = rows;
		s->nrows[d] = n;
		for (size_t i = 0; i < n; i++) {
			const struct agg_ent *e = agg_entry(a, d, i);
			struct agg_row *r = &rows[i];
			hist_reset(&wh);
			snprintf(r->key, sizeof(r->key), "%s", e->key);
			if (d == AGG_SERIES && e->label[1][0])
				snprintf(r->key, sizeof(r->key), "%s %s %s>%s", e->label[0], e->label[1],
					 e->label[2], e->label[3]);
			r->tot = e->tot;
			win_sum(a, e->win, now_slot, &w, e->wlat, e->wlat ? &wh : NULL);
			r->rate = (double)w.records / win;
			r->bw = (double)w.bytes / win;
			r->inflight = (double)w.lat_sum / 1e9 / win;   /* Little's law */
			r->p50 = hist_pct(&e->lat, 0.50);
			r->p90 = hist_pct(&e->lat, 0.90);
			r->p99 = hist_pct(&e->lat, 0.99);
			r->p999 = hist_pct(&e->lat, 0.999);
			r->max = e->lat.max;
			if (e->wlat) {
				r->wp50 = hist_pct(&wh, 0.50);
				r->wp99 = hist_pct(&wh, 0.99);
			}
			for (int p = 0; p < PH_N; p++)
				r->phase_mean[p] = e->tot.lat_n ? e->tot.phase_sum[p] / e->tot.lat_n : 0;
			r->credits = e->credits_granted;
		}
	}
	hist_free(&wh);
	s->nslow = a->nslow;
	memcpy(s->slow, a->slow, a->nslow * sizeof(s->slow[0]));
	return 0;
}

void agg_snap_free(struct agg_snap *s)
{
	for (int d = 0; d < AGG_NDIM; d++) {
		free(s->rows[d]);
		s->rows[d] = NULL;
		s->nrows[d] = 0;
	}
}
