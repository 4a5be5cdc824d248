/* The aggregation engine's readers: totals, entries, memory and the
 * snapshot every view is made from (see agg.h). */
#include "src/stats/agg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/agg_priv.h"

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

static size_t ent_hist_memory(const struct agg *a, const struct agg_ent *e)
{
	size_t m = 0;

	if (!e)
		return 0;
	m += e->lat.bytes;
	if (e->wlat)
		for (unsigned i = 0; i < a->cfg.slots; i++)
			m += e->wlat[i].bytes;
	return m;
}

size_t agg_memory(const struct agg *a)
{
	size_t m = a->mem;

	/* histogram chunks come as samples land: counted here, not per add */
	for (int d = 0; d < AGG_NDIM; d++) {
		for (size_t i = 0; i < a->t[d].n; i++)
			m += ent_hist_memory(a, a->t[d].order[i]);
		m += ent_hist_memory(a, a->t[d].other);
	}
	return m;
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

/* An operation row's totals of the live slots, from its sample ring
 * (a sample whose slot has been taken by a later one is out of the
 * window too: that slot is at least a window later). */
static void wring_sum(const struct agg *a, const struct agg_ent *e, uint64_t now_slot, struct hist *hout)
{
	uint64_t n = e->wring_n < AGG_WRING ? e->wring_n : AGG_WRING;

	for (uint64_t j = 0; j < n; j++) {
		const struct agg_wsample *s = &e->wring[j];
		if (s->slot <= now_slot && s->slot + a->cfg.slots > now_slot)
			hist_add(hout, s->total);
	}
}

/* What a client's or a server's series add to its row: a record whose
 * series entry is its own is counted there only (agg.c,
 * fold_into_series). */
struct fold {
	struct agg_counts tot;
	struct agg_win w;
	struct hist lat;
	uint16_t credits;
	uint64_t credits_seq;
	uint32_t phase_seen;
};

static void counts_add(struct agg_counts *o, const struct agg_counts *in)
{
	uint64_t *x = (uint64_t *)(void *)o;
	const uint64_t *y = (const void *)in;

	for (size_t i = 0; i < sizeof(*o) / sizeof(uint64_t); i++)
		x[i] += y[i];
}

static void win_sum_add(struct agg_win *o, const struct agg_win *in)
{
	o->records += in->records;
	o->errors += in->errors;
	o->bytes += in->bytes;
	o->lat_sum += in->lat_sum;
	o->lat_n += in->lat_n;
}

/* the latest credits of the two: each is the last one its records granted */
static void credits_fold(struct fold *f, const struct agg_ent *e)
{
	if (e->credits_seq > f->credits_seq) {
		f->credits = e->credits_granted;
		f->credits_seq = e->credits_seq;
	}
}

static void folds_free(struct fold *fo, size_t n)
{
	for (size_t i = 0; fo && i < n; i++)
		hist_free(&fo[i].lat);
	free(fo);
}

/* The n rows of d (AGG_CLIENT, AGG_SERVER): each one's series added up;
 * NULL when out of memory. */
static struct fold *folds_of(const struct agg *a, enum agg_dim d, size_t n, uint64_t now_slot)
{
	struct fold *fo = calloc(n, sizeof(*fo));

	if (!fo)
		return NULL;
	for (size_t i = 0; i < n; i++)
		hist_init(&fo[i].lat, HIST_RES);
	for (size_t j = 0; j < agg_count(a, AGG_SERIES); j++) {
		const struct agg_ent *se = agg_entry(a, AGG_SERIES, j), *e = se->fold[d == AGG_SERVER];
		if (!e)
			continue;
		size_t i = e == a->t[d].other ? a->t[d].n : e->ord;
		struct agg_win w;
		if (i >= n)
			continue;
		counts_add(&fo[i].tot, &se->tot);
		fo[i].phase_seen |= se->phase_seen;
		win_sum(a, se->win, now_slot, &w, NULL, NULL);
		win_sum_add(&fo[i].w, &w);
		credits_fold(&fo[i], se);
		if (hist_merge(&fo[i].lat, &se->lat) < 0) {
			folds_free(fo, n);
			return NULL;
		}
	}
	return fo;
}

/* The time the window's counts are divided by (the rule is in agg.h).
 * Never under one slot: a rate never divides by ~0. */
static double win_seconds(const struct agg *a, uint64_t now_ns, uint64_t now_slot, bool record_clock)
{
	uint64_t full = a->cfg.slot_ns * a->cfg.slots, ns = full;

	if (record_clock) {
		/* the live slots' records, from the earliest call to the latest
		 * record, but never reaching back before the oldest live slot */
		uint64_t lo = (now_slot + 1 > a->cfg.slots ? now_slot + 1 - a->cfg.slots : 0) * a->cfg.slot_ns;
		uint64_t first = UINT64_MAX, last = 0;
		for (unsigned i = 0; i < a->cfg.slots; i++) {
			if (!a->span[i].last || a->span[i].slot > now_slot ||
			    a->span[i].slot + a->cfg.slots <= now_slot)
				continue;
			if (a->span[i].first < first)
				first = a->span[i].first;
			if (a->span[i].last > last)
				last = a->span[i].last;
		}
		if (first < lo)
			first = lo;
		ns = last > first ? last - first : 0;
	} else if (a->start_ns && now_ns - a->start_ns < full) {
		ns = now_ns - a->start_ns;
	}
	if (ns < a->cfg.slot_ns)
		ns = a->cfg.slot_ns;
	if (ns > full)
		ns = full;
	return (double)ns / 1e9;
}

int agg_snapshot(const struct agg *a, uint64_t now_ns, struct agg_snap *s)
{
	/* 0 asks for record time: the latest record's, as files read flat out
	 * have no other clock */
	bool record_clock = now_ns == 0;

	memset(s, 0, sizeof(*s));
	if (now_ns < a->now_ns)
		now_ns = a->now_ns;
	s->now_ns = now_ns;
	s->start_ns = a->start_ns;
	uint64_t now_slot = now_ns / a->cfg.slot_ns;
	double win = win_seconds(a, now_ns, now_slot, record_clock);
	s->win_s = win;
	s->t = a->tot;
	struct agg_win w;
	win_sum(a, a->win, now_slot, &w, NULL, NULL);
	s->rate = (double)w.records / win;
	s->bw = (double)w.bytes / win;

	struct hist wh;   /* an operation's window slots, merged */
	hist_init(&wh, HIST_RES);
	for (int d = 0; d < AGG_NDIM; d++) {
		size_t n = agg_count(a, d);
		if (!n)
			continue;
		struct agg_row *rows = calloc(n, sizeof(*rows));
		struct fold *fo = d == AGG_CLIENT || d == AGG_SERVER ? folds_of(a, d, n, now_slot) : NULL;
		if (!rows || ((d == AGG_CLIENT || d == AGG_SERVER) && !fo)) {
			free(rows);
			hist_free(&wh);
			agg_snap_free(s);
			return -ENOMEM;
		}
		s->rows[d] = rows;
		s->nrows[d] = n;
		for (size_t i = 0; i < n; i++) {
			const struct agg_ent *e = agg_entry(a, d, i);
			struct agg_row *r = &rows[i];
			if (wh.n)   /* empty: nothing to clear (most rows have no window data) */
				hist_reset(&wh);
			snprintf(r->key, sizeof(r->key), "%s", e->key);
			if (d == AGG_SERIES && e->label[1][0])
				snprintf(r->key, sizeof(r->key), "%s %s%s %s>%s", e->label[0], e->label[1],
					 agg_op_suffix(e->transport), e->label[2], e->label[3]);
			const struct hist *lat = &e->lat;
			r->tot = e->tot;
			r->phase_mask = e->phase_seen;
			r->credits = e->credits_granted;
			win_sum(a, e->win, now_slot, &w, e->wlat, e->wlat ? &wh : NULL);
			if (e->wring && !e->wlat)
				wring_sum(a, e, now_slot, &wh);
			if (fo) {
				counts_add(&r->tot, &fo[i].tot);
				r->phase_mask |= fo[i].phase_seen;
				win_sum_add(&w, &fo[i].w);
				credits_fold(&fo[i], e);
				r->credits = fo[i].credits;
				hist_merge(&fo[i].lat, &e->lat);
				lat = &fo[i].lat;
			}
			r->rate = (double)w.records / win;
			r->bw = (double)w.bytes / win;
			r->inflight = (double)w.lat_sum / 1e9 / win;   /* Little's law */
			r->p50 = hist_pct(lat, 0.50);
			r->p90 = hist_pct(lat, 0.90);
			r->p99 = hist_pct(lat, 0.99);
			r->p999 = hist_pct(lat, 0.999);
			r->max = lat->max;
			if (e->wring) {
				r->wp50 = hist_pct(&wh, 0.50);
				r->wp99 = hist_pct(&wh, 0.99);
			}
			for (int p = 0; p < PH_N; p++)
				r->phase_mean[p] = r->tot.lat_n ? r->tot.phase_sum[p] / r->tot.lat_n : 0;
			agg_diag_row(e, r);
		}
		folds_free(fo, n);
	}
	hist_free(&wh);
	s->nslow = a->nslow;
	s->slow_whole_run = a->cfg.slow_whole_run;
	for (unsigned i = 0; i < a->nslow; i++) {
		const struct slow_rec *sr = &a->slow[i];
		struct agg_slow *o = &s->slow[i];
		char prog[AGG_LABEL_MAX], op[AGG_LABEL_MAX];
		memset(o, 0, sizeof(*o));
		o->t_ns = sr->t_ns;
		o->total = sr->total;
		memcpy(o->phase, sr->phase, sizeof(o->phase));
		o->phase_mask = sr->phase_mask;
		o->xid = sr->xid;
		o->conn = sr->conn;
		agg_op_id_str(&sr->op, prog, sizeof(prog), op, sizeof(op));
		if (snprintf(o->op, sizeof(o->op), "%s %s%s", prog, op, agg_op_suffix(sr->op.transport)) >=
		    (int)sizeof(o->op))
			o->op[sizeof(o->op) - 1] = 0;   /* cut short, as rec_name_str would */
		agg_ep_id_str(&sr->client, o->client, sizeof(o->client));
		agg_ep_id_str(&sr->server, o->server, sizeof(o->server));
	}
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
