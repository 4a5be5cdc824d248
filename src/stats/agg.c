/* Aggregation engine (see agg.h). */
#include "dissect/grow.h"
#include "src/stats/agg.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/record_names.h"
#include "src/stats/agg_priv.h"

const double agg_prom_le[AGG_PROM_NLE] = {
	0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 10.0,
};
const char *const agg_dim_name[AGG_NDIM] = { "op", "client", "server", "conn", "series" };
const char *const agg_mix_name[MIX_N] = { "inline", "read", "write", "reply", "p0" };

/* A record's entries, cached under its route keys (agg_route_keys): its
 * operation, client, server and series entries under the operation and
 * addresses, its connection's under the connection and QPs.  Two lookups
 * a record instead of one per dimension, and a new connection (a
 * remount) finds the other four already cached.  Direct-mapped and
 * overwritten on a miss, so the caches follow what comes and goes
 * without growing; an entry, once a key's, stays that key's, so a cached
 * route never goes stale. */
#define ROUTES 2048
static const unsigned rt_dims[RT_N] = {
	[RT_OPS] = 1u << AGG_OP | 1u << AGG_CLIENT | 1u << AGG_SERVER | 1u << AGG_SERIES,
	[RT_CONN] = 1u << AGG_CONN,
};
struct route {
	struct agg_key k;        /* n == 0: empty */
	struct agg_ent *e[AGG_NDIM];
	unsigned live;           /* bit d: e[d] is not NULL */
	unsigned other;          /* bit d: e[d] is the dimension's "(other)" */
	struct agg_op_id op;     /* for the slowest list */
	struct agg_ep_id cl, sv; /* the endpoints without QPs (slowest list) */
};


static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static struct agg_ent *ent_new(struct agg *a, enum agg_dim d, const char *key)
{
	/* one allocation with its window slots: an entry is touched by
	 * every record that lands in it, so it is kept small, and on a
	 * cache line's start, so that its first part (agg.h) takes the
	 * fewest lines (agg_zalloc) */
	struct agg_ent *e = agg_zalloc(a, sizeof(struct agg_ent) + a->cfg.slots * sizeof(struct agg_win));
	e->win = (struct agg_win *)(e + 1);
	a->mem += a->cfg.slots * sizeof(*e->win);
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->label[0], sizeof(e->label[0]), "%s", key);
	hist_init(&e->lat, HIST_RES);
	hist_use_mem(&e->lat, &a->hmem);
	e->series = d == AGG_SERIES;
	a->mem += sizeof(*e);
	if (d == AGG_OP) {
		if (!(e->wring = calloc(AGG_WRING, sizeof(*e->wring)))) {
			agg_ent_free(a, e);
			return NULL;
		}
		a->mem += AGG_WRING * sizeof(*e->wring);
	}
	return e;
}

/* A full table's "(other)" entry, the overflow counted. */
static struct agg_ent *other_of(struct agg *a, enum agg_dim d)
{
	struct table *t = &a->t[d];

	a->tot.overflow[d]++;
	if (!t->other)
		t->other = ent_new(a, d, OTHER_KEY);
	return t->other;
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
	if (t->n >= t->max)
		return other_of(a, d);
	if (t->n == t->cap) {
		size_t old = t->cap;
		if (ARR_RESERVE(t->order, t->cap, t->n + 1, 64) < 0)
			return NULL;
		a->mem += (t->cap - old) * sizeof(*t->order);
	}
	if (!(e = ent_new(a, d, key)))
		return NULL;
	e->hash = h;
	e->next = t->bucket[h % NBUCKETS];
	t->bucket[h % NBUCKETS] = e;
	e->ord = t->n;
	t->order[t->n++] = e;
	return e;
}

/* What a record adds to every entry it lands in, worked out once. */
struct facts {
	const struct nfsrdma_record *r;
	struct agg_counts d;   /* added to each entry's counts as one vector */
	uint64_t bytes_inline, bytes_ddp;
	bool error, answered, finding;
	bool mix[MIX_N];
	unsigned prom;   /* index into agg_prom_le (AGG_PROM_NLE = +Inf) */
	unsigned hidx;   /* d_total's histogram bucket (answered records) */
};

/* The first bucket whose bound is >= ns (AGG_PROM_NLE: +Inf).  No two
 * bounds share a power of two, so the first bucket of ns's power of two
 * (agg_new, prom_start) is its bucket or the one before it. */
static unsigned prom_bucket(const struct agg *a, uint64_t ns)
{
	unsigned i = a->prom_start[ns ? 63 - __builtin_clzll(ns) : 0];

	return i + (i < AGG_PROM_NLE && ns > prom_le_ns[i]);
}

static void facts_of(const struct agg *a, const struct nfsrdma_record *r, struct facts *f)
{
	f->r = r;
	f->bytes_inline = rec_bytes_inline(r);
	f->bytes_ddp = rec_bytes_ddp(r);
	/* Same error rule as the dissector's -z summaries. */
	f->error = (r->flags & RECF_REPLY) &&
		   (r->rpc_status != 0 || (r->status != 0 && r->status != REC_STATUS_NONE));
	f->answered = (r->flags & (RECF_CALL | RECF_REPLY)) == (RECF_CALL | RECF_REPLY);
	f->finding = r->nfindings || r->findings;
	unsigned reads = r->n_read_chunks - ((r->flags & RECF_ARGS_DDP) && r->n_read_chunks ? 1 : 0);
	f->mix[MIX_P0] = r->flags & RECF_ARGS_DDP;
	f->mix[MIX_READ] = reads;
	f->mix[MIX_WRITE] = r->n_write_chunks;
	f->mix[MIX_REPLY] = r->n_reply_segs;
	f->mix[MIX_INLINE] = !(r->flags & RECF_ARGS_DDP) && !reads && !r->n_write_chunks && !r->n_reply_segs;
	f->prom = prom_bucket(a, r->d_total);
	f->hidx = hist_index(HIST_RES, r->d_total);

	struct agg_counts *d = &f->d;
	memset(d, 0, sizeof(*d));
	d->records = 1;
	d->calls = !!(r->flags & RECF_CALL);
	d->replies = !!(r->flags & RECF_REPLY);
	d->noreply = !d->replies;
	d->errors = f->error;
	d->findings = f->finding;
	d->bytes_inline = f->bytes_inline;
	d->bytes_ddp = f->bytes_ddp;
	for (int m = 0; m < MIX_N; m++)
		d->mix[m] = f->mix[m];
	if (f->answered) {
		for (int p = 0; p < PH_N; p++)
			d->phase_sum[p] = r->d_phase[p];
		d->lat_sum = r->d_total;
		d->lat_n = 1;
	}
}

/* Every count is a uint64_t, so a record's counts go in as one vector
 * add (six entries take each record). */
#define NCOUNTS (sizeof(struct agg_counts) / sizeof(uint64_t))
_Static_assert(sizeof(struct agg_counts) % sizeof(uint64_t) == 0, "agg_counts holds uint64_t only");

typedef uint64_t u64x2 __attribute__((vector_size(16)));

static void count(struct agg_counts *c, const struct facts *f)
{
	uint64_t *o = (uint64_t *)(void *)c;
	const uint64_t *in = (const void *)&f->d;
	size_t i = 0;

	/* two counts an instruction, unrolled (at -O2 the compiler does
	 * neither for an odd count of words) */
#if defined(__clang__)
#pragma clang loop unroll(full)
#elif defined(__GNUC__)
#pragma GCC unroll 16
#endif
	for (; i + 2 <= NCOUNTS; i += 2) {
		u64x2 x, y;
		memcpy(&x, &o[i], sizeof(x));
		memcpy(&y, &in[i], sizeof(y));
		x += y;
		memcpy(&o[i], &x, sizeof(x));
	}
	if (i < NCOUNTS)
		o[i] += in[i];
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

static void win_add(struct agg_win *w, const struct facts *f)
{
	w->records++;
	w->errors += f->error;
	w->bytes += f->bytes_inline + f->bytes_ddp;
	if (f->answered) {
		w->lat_sum += f->r->d_total;
		w->lat_n++;
	}
}

/* An operation row's window histograms, one per slot, made when its
 * sample ring overflows: the ring's totals still in their slots go in. */
static int wlat_make(struct agg *a, struct agg_ent *e)
{
	if (!(e->wlat = calloc(a->cfg.slots, sizeof(*e->wlat))))
		return -1;
	a->mem += a->cfg.slots * sizeof(*e->wlat);
	for (unsigned i = 0; i < a->cfg.slots; i++) {
		hist_init(&e->wlat[i], HIST_RES);
		hist_use_mem(&e->wlat[i], &a->hmem);
	}
	for (unsigned j = 0; j < AGG_WRING; j++) {
		const struct agg_wsample *s = &e->wring[j];
		if (e->win[s->slot % a->cfg.slots].slot == s->slot)
			hist_add(&e->wlat[s->slot % a->cfg.slots], s->total);
	}
	return 0;
}

/* An answered record's total in its operation row's window. */
static void wlat_add(struct agg *a, struct agg_ent *e, const struct facts *f, uint64_t slot, unsigned idx)
{
	struct agg_wsample *s = &e->wring[e->wring_n % AGG_WRING];

	/* the oldest sample is overwritten once it has left the window
	 * (a->now_ns never goes back) */
	if (!e->wlat && e->wring_n >= AGG_WRING && s->slot + a->cfg.slots > slot)
		(void)wlat_make(a, e);   /* out of memory: the oldest sample is lost instead */
	if (e->wlat) {
		hist_add_at(&e->wlat[idx], f->hidx, f->r->d_total);
		return;
	}
	s->slot = slot;
	s->total = f->r->d_total;
	e->wring_n++;
}

/* idx: slot's place in the window (slot % slots), the same for every
 * entry of a record */
static void ent_add(struct agg *a, struct agg_ent *e, const struct facts *f, uint64_t slot, unsigned idx)
{
	const struct nfsrdma_record *r = f->r;
	struct agg_win *w = &e->win[idx];

	count(&e->tot, f);
	e->last_ns = a->now_ns;
	if (w->slot != slot) {
		memset(w, 0, sizeof(*w));
		w->slot = slot;
	}
	/* an empty histogram (n == 0: no counts, nothing lost) is already reset */
	if (e->wlat && w->records == 0 && e->wlat[idx].n)
		hist_reset(&e->wlat[idx]);
	win_add(w, f);
	if (r->credits_granted) {
		e->credits_granted = r->credits_granted;
		e->credits_seq = a->tot.tot.records;
	}
	if (r->credits_asked)
		e->credits_asked = r->credits_asked;
	if (!f->answered)
		return;
	e->phase_seen |= r->phase_mask & AGG_SLOW_ALL_PHASES;
	if (e->wring) {
		wlat_add(a, e, f, slot, idx);
		agg_diag_add(e, r, f->hidx);
	}
	hist_add_at(&e->lat, f->hidx, r->d_total);
	if (e->series)
		e->prom[f->prom]++;
}

/* An entry of time t has left the window (never, over the whole run). */
static bool slow_expired(const struct agg *a, uint64_t t, uint64_t horizon)
{
	return !a->cfg.slow_whole_run && a->now_ns > t + horizon;
}

/* The fastest entry (its first index, as a scan from 0 keeping the
 * strictly smaller finds it) and the oldest time of the entries still
 * live (not in slow_exp). */
static void slow_rescan(struct agg *a, uint64_t horizon)
{
	a->slow_min = 0;
	a->slow_oldest = UINT64_MAX;
	for (unsigned i = 0; i < a->nslow; i++) {
		if (a->slow[i].total < a->slow[a->slow_min].total)
			a->slow_min = i;
		if (a->slow_exp >> i & 1)
			continue;
		if (slow_expired(a, a->slow[i].t_ns, horizon))
			a->slow_exp |= 1ull << i;
		else if (a->slow[i].t_ns < a->slow_oldest)
			a->slow_oldest = a->slow[i].t_ns;
	}
}

/* The fastest entry alone, when one of them has just been replaced by
 * a record newer than all (no time to look at). */
static void slow_min_find(struct agg *a)
{
	unsigned m = 0;
	uint64_t t = a->slow[0].total;

	for (unsigned i = 1; i < a->nslow; i++)
		if (a->slow[i].total < t) {
			t = a->slow[i].total;
			m = i;
		}
	a->slow_min = m;
}

/* A full list takes a record into its first expired entry, else into its
 * fastest one if the record is slower.  The expired entries are kept as
 * a mask, found again only when the oldest live one expires: after a
 * pause longer than the window every entry has, and each of the next
 * slow_n records used to scan the list twice to replace one. */
static void slow_add(struct agg *a, const struct nfsrdma_record *r, const struct agg_op_id *op,
		     const struct agg_ep_id *client, const struct agg_ep_id *server)
{
	uint64_t horizon = a->cfg.slot_ns * a->cfg.slots;
	unsigned victim = a->nslow;
	const bool was_full = a->nslow >= a->cfg.slow_n;

	if (was_full) {
		if (a->slow_oldest != UINT64_MAX && slow_expired(a, a->slow_oldest, horizon))
			slow_rescan(a, horizon);
		if (a->slow_exp) {
			victim = (unsigned)__builtin_ctzll(a->slow_exp);
			a->slow_exp &= a->slow_exp - 1;
		} else if (a->slow[a->slow_min].total >= r->d_total) {
			return;
		} else {
			victim = a->slow_min;
		}
	} else {
		a->nslow++;
	}
	struct slow_rec *s = &a->slow[victim];
	s->t_ns = a->now_ns;
	s->total = r->d_total;
	for (int p = 0; p < PH_N; p++)
		s->phase[p] = r->d_phase[p];
	s->phase_mask = r->phase_mask & AGG_SLOW_ALL_PHASES;
	s->xid = r->xid;
	s->conn = r->conn_id;
	s->op = *op;
	s->client = *client;
	s->server = *server;
	if (a->nslow < a->cfg.slow_n)
		return;
	if (!was_full) {
		slow_rescan(a, horizon);   /* the list has just filled */
		return;
	}
	/* a live entry now, none older than the others.  slow_oldest stays
	 * a bound below the live entries' times, not their oldest: when it
	 * passes the horizon the rescan above finds the true one, so every
	 * expired entry is still in the mask before a choice is made */
	if (a->now_ns < a->slow_oldest)
		a->slow_oldest = a->now_ns;
	if (!a->slow_exp)
		slow_min_find(a);
}

/* The labels of a record (lab[0..3] as in agg_ent.label), only those
 * asked for: a new numeric key needs the ones its key string is made of,
 * and a new entry the rest of its own.  Most new connection keys of a
 * long run only find "(other)" (the table is full) and need none. */
enum { LAB_PROG = 1, LAB_PROC = 2, LAB_CLIENT = 4, LAB_SERVER = 8 };
static const unsigned key_labs[AGG_NDIM] = {
	[AGG_OP] = LAB_PROG | LAB_PROC, [AGG_CLIENT] = LAB_CLIENT, [AGG_SERVER] = LAB_SERVER,
	[AGG_CONN] = 0, [AGG_SERIES] = LAB_PROG | LAB_PROC | LAB_CLIENT | LAB_SERVER,
};

static void make_labels(const struct nfsrdma_record *r, unsigned which, char lab[4][AGG_LABEL_MAX])
{
	const struct rec_endpoint *client = r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller;
	const struct rec_endpoint *server = r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee;

	if (which & LAB_PROG)
		rec_prog_str(r, lab[0], AGG_LABEL_MAX);
	if (which & LAB_PROC)
		rec_proc_str(r, lab[1], AGG_LABEL_MAX);
	if (which & LAB_CLIENT)
		dissect_addr_str(client, lab[2], AGG_LABEL_MAX);
	if (which & LAB_SERVER)
		dissect_addr_str(server, lab[3], AGG_LABEL_MAX);
}

/* The key string of a new numeric key, from its labels (key_labs[d]). */
static void key_string(enum agg_dim d, const struct nfsrdma_record *r, char *key, size_t klen,
		       char lab[4][AGG_LABEL_MAX])
{
	const struct rec_endpoint *client = r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller;
	const struct rec_endpoint *server = r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee;
	char ea[64], eb[64];

	const char *tr = agg_op_suffix(r->transport);
	switch (d) {
	case AGG_OP:
		snprintf(key, klen, "%s %s%s", lab[0], lab[1], tr);
		break;
	case AGG_CLIENT:
		snprintf(key, klen, "%s%s", lab[2], tr);
		break;
	case AGG_SERVER:
		snprintf(key, klen, "%s%s", lab[3], tr);
		break;
	case AGG_CONN:
		snprintf(key, klen, "%u %s <> %s%s", r->conn_id, rec_ep_str(client, ea, sizeof(ea)),
			 rec_ep_str(server, eb, sizeof(eb)), tr);
		break;
	default:
		/* labels are joined by a byte that cannot occur in them */
		snprintf(key, klen, "%s\x1f%s\x1f%s\x1f%s\x1f%s", lab[0], lab[1], lab[2], lab[3], tr);
		break;
	}
}

/* Whether two records of this kind with one connection key string have
 * one numeric key: then a numeric key the map has never seen names no
 * entry.  The string (key_string) is the conn id and per endpoint its
 * address, one canonical string per family and unlike another family's,
 * followed by ".qpN" (none for QP 0), or by ".PORT" for an IP endpoint
 * (rec_ep_str), which a string with a QP or neither can never equal.
 * The numeric key holds the conn id, the address and the QP, not the
 * port: an IP endpoint's QP, were it ever set, would be a difference the
 * string does not show. */
static bool ep_decides(const struct rec_endpoint *e)
{
	return !e->ip_proto || !e->qpn;
}

static bool conn_key_decides(const struct nfsrdma_record *r)
{
	return ep_decides(&r->caller) && ep_decides(&r->callee);
}

/* The entry of a record in dimension d: by its numeric key when seen
 * before, else by its key string (made here, once per numeric key). */
static struct agg_ent *find(struct agg *a, enum agg_dim d, const struct agg_key *k,
			    const struct nfsrdma_record *r)
{
	struct table *t = &a->t[d];
	struct agg_ent *e = agg_map_get(t->fast, k);
	char key[AGG_KEY_MAX], lab[4][AGG_LABEL_MAX];

	if (e) {
		if (e == t->other)
			a->tot.overflow[d]++;
		return e;
	}
	const bool decides = d == AGG_CONN && conn_key_decides(r);
	if (decides && t->n >= t->max && !(a->alias_lost & 1u << d) && !a->conn_undecided) {
		/* what the string lookup below would find: no entry has this
		 * key string, so "(other)" (a long run's new connections, once
		 * the table is full, made two endpoint strings each for it) */
		if ((e = other_of(a, d)))
			agg_map_put(t->fast, k, e);
		return e;
	}
	make_labels(r, key_labs[d], lab);
	key_string(d, r, key, sizeof(key), lab);
	if (!(e = lookup(a, d, key)))
		return NULL;
	if (e != t->other && d == AGG_CONN && !decides)
		a->conn_undecided = true;
	if (e != t->other)
		e->transport = r->transport;
	if (e != t->other && !e->label[1][0] && (d == AGG_OP || d == AGG_SERIES)) {
		snprintf(e->label[0], sizeof(e->label[0]), "%s", lab[0]);
		snprintf(e->label[1], sizeof(e->label[1]), "%s", lab[1]);
		if (d == AGG_SERIES) {
			snprintf(e->label[2], sizeof(e->label[2]), "%s", lab[2]);
			snprintf(e->label[3], sizeof(e->label[3]), "%s", lab[3]);
		}
	}
	if (e != t->other && d == AGG_CONN && !e->label[2][0]) {
		/* separate labels, as Prometheus wants, not one joined string */
		const bool bc = r->flags & RECF_BACKCHANNEL;
		make_labels(r, LAB_CLIENT | LAB_SERVER, lab);
		snprintf(e->label[2], sizeof(e->label[2]), "%s", lab[2]);
		snprintf(e->label[3], sizeof(e->label[3]), "%s", lab[3]);
		e->conn_id = r->conn_id;
		e->qpn_client = bc ? r->callee.qpn : r->caller.qpn;
		e->qpn_server = bc ? r->caller.qpn : r->callee.qpn;
	}
	/* A full map refuses: this key takes the slow path again next time
	 * (memory stays bounded under a flood of distinct keys). */
	if (agg_map_put(t->fast, k, e) < 0 && e != t->other)
		a->alias_lost |= (uint8_t)(1u << d);
	return e;
}

/* A record's span starts at its first call packet (the clock time when
 * that is missing or later: a reply-only record, or one stamped on
 * another clock). */
static void span_add(struct agg *a, unsigned idx, uint64_t slot, const struct nfsrdma_record *r,
		     uint64_t now_ns)
{
	uint64_t first = r->t_call_first && r->t_call_first < now_ns ? r->t_call_first : now_ns;

	if (a->span[idx].slot != slot || !a->span[idx].last) {
		a->span[idx].slot = slot;
		a->span[idx].first = first;
		a->span[idx].last = now_ns;
		return;
	}
	if (first < a->span[idx].first)
		a->span[idx].first = first;
	if (now_ns > a->span[idx].last)
		a->span[idx].last = now_ns;
}

/* Two route keys (agg_route_keys), the same: a loop of fixed length,
 * unrolled, instead of one over their count of words. */
static bool same_route_key(const struct agg_key *x, const struct agg_key *y)
{
	_Static_assert(AGG_ROUTE_WORDS <= AGG_KEY_WORDS, "route keys fit a key");
	uint64_t d = 0;

	if (x->hash != y->hash || x->n != y->n)
		return false;
	for (unsigned i = 0; i < AGG_ROUTE_WORDS; i++)
		d |= x->w[i] ^ y->w[i];
	return !d;
}

/* The route of key k in cache c, its entries found per dimension on a
 * miss.  A route with an entry missing (out of memory) is not cached: it
 * is built in tmp, its missing entries NULL, as is every route when the
 * cache itself cannot be had. */
static const struct route *route_of(struct agg *a, int c, const struct agg_key *k, const struct nfsrdma_record *r,
				    struct route *tmp)
{
	struct route *rt = NULL;

	if (!a->route[c] && (a->route[c] = agg_zalloc(a, ROUTES * sizeof(*a->route[c]))))
		a->mem += ROUTES * sizeof(*a->route[c]);
	if (a->route[c] && same_route_key(&(rt = &a->route[c][k->hash % ROUTES])->k, k))
		return rt;
	const struct rec_endpoint *client = r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller;
	const struct rec_endpoint *server = r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee;
	struct agg_ep_id clq, svq;
	struct agg_key_part pop, pcl, psv, pclq, psvq;

	memset(tmp, 0, sizeof(*tmp));
	agg_op_id(r, &tmp->op);
	agg_ep_id(client, r->transport, false, &tmp->cl);
	agg_ep_id(server, r->transport, false, &tmp->sv);
	agg_ep_id(client, r->transport, true, &clq);
	agg_ep_id(server, r->transport, true, &svq);
	agg_part_op(&pop, &tmp->op);
	agg_part_ep(&pcl, &tmp->cl);
	agg_part_ep(&psv, &tmp->sv);
	agg_part_ep(&pclq, &clq);
	agg_part_ep(&psvq, &svq);
	const struct agg_key_part *parts[AGG_NDIM][3] = {
		[AGG_OP] = { &pop, NULL, NULL }, [AGG_CLIENT] = { NULL, &pcl, NULL },
		[AGG_SERVER] = { NULL, NULL, &psv }, [AGG_CONN] = { NULL, &pclq, &psvq },
		[AGG_SERIES] = { &pop, &pcl, &psv },
	};
	for (int d = 0; d < AGG_NDIM; d++) {
		struct agg_key dk;
		if (!(rt_dims[c] & 1u << d))
			continue;
		agg_key_make(&dk, d == AGG_CONN ? r->conn_id : 0, parts[d][0], parts[d][1], parts[d][2]);
		if (!(tmp->e[d] = find(a, d, &dk, r)))
			rt = NULL;
		else
			tmp->live |= 1u << d;
		/* find counted a "(other)" in the overflow; agg_add counts it */
		if (tmp->e[d] && tmp->e[d] == a->t[d].other) {
			tmp->other |= 1u << d;
			a->tot.overflow[d]--;
		}
	}
	if (!rt)
		return tmp;
	*rt = *tmp;
	rt->k = *k;
	return rt;
}

/* The lines ent_add will touch in e, asked for ahead: a record's five
 * entries are scattered and the dissector has pushed them out of the
 * cache since the last record, so their misses overlap instead of
 * coming one after another. */
static void ent_prefetch(const struct agg_ent *e, const struct facts *f, unsigned idx)
{
	/* addresses only, no load from e: the entry's first lines (its
	 * counts up to its histogram's header, agg.h), the window slot (the
	 * slots follow the entry, ent_new) and, every entry's histogram
	 * being of HIST_RES, the histogram's chunk pointer */
	const char *p = (const char *)e, *end = (const char *)(&e->lat.lost + 1) - 1;
	for (; p < end; p += 64)
		__builtin_prefetch(p, 1);
	__builtin_prefetch(end, 1);
	__builtin_prefetch((const struct agg_win *)(e + 1) + idx, 1);
	if (!f->answered)
		return;
	__builtin_prefetch(&e->lat.chunk[f->hidx >> HIST_RES], 0);
}

/* The second level, once ent_prefetch's lines have had time to come:
 * the histogram chunks the sample lands in, the operation entry's window
 * histogram and its diagnosis. */
static void ent_prefetch2(const struct agg_ent *e, const struct facts *f, unsigned idx)
{
	const unsigned k = f->hidx >> HIST_RES, i = f->hidx & ((1u << HIST_RES) - 1);

	if (!f->answered)
		return;
	if (e->series)
		__builtin_prefetch(&e->prom[f->prom], 1);
	if (e->lat.chunk[k])
		__builtin_prefetch(e->lat.chunk[k] + i, 1);
	if (!e->wring)
		return;
	if (e->wlat) {
		__builtin_prefetch(&e->wlat[idx], 1);
		__builtin_prefetch(&e->wlat[idx].chunk[k], 0);
	} else {
		__builtin_prefetch(&e->wring[e->wring_n % AGG_WRING], 1);
	}
	const struct phase_diag *d = e->diag[rec_is_fused(f->r)];
	if (d)
		__builtin_prefetch(d->shared ? (const void *)d->sum_phase : (const void *)&d->tot, 1);
}

/* A series entry of its own (not "(other)") stands for the record in
 * its client and server rows too: the snapshot adds a client's and a
 * server's series up (agg_snap.c), two entries a record fewer.  The
 * dimensions whose entries are then left alone. */
static unsigned fold_into_series(const struct route *rt)
{
	struct agg_ent *se = rt->e[AGG_SERIES];

	if (!se || rt->other & 1u << AGG_SERIES)
		return 0;
	if (!se->fold[0])
		se->fold[0] = rt->e[AGG_CLIENT];
	if (!se->fold[1])
		se->fold[1] = rt->e[AGG_SERVER];
	return 1u << AGG_CLIENT | 1u << AGG_SERVER;
}

void agg_add(struct agg *a, const struct nfsrdma_record *r, uint64_t now_ns)
{
	struct agg_key k[RT_N];
	struct route tmp[RT_N];
	const struct route *rt[RT_N];
	struct facts f;
	unsigned idx;

	/* the route keys first: their cache slots load while the rest of
	 * the record's facts are worked out */
	agg_route_keys(r, &k[RT_OPS], &k[RT_CONN]);
	for (int c = 0; c < RT_N; c++) {
		if (a->route[c]) {
			const struct route *p = &a->route[c][k[c].hash % ROUTES];
			__builtin_prefetch(&p->k.hash);
			__builtin_prefetch(&p->k.w[0]);
			__builtin_prefetch(&p->e[0]);
		}
	}
	if (now_ns > a->now_ns)
		a->now_ns = now_ns;
	if (!a->start_ns || now_ns < a->start_ns)
		a->start_ns = now_ns;
	uint64_t slot = a->now_ns / a->cfg.slot_ns;

	facts_of(a, r, &f);
	count(&a->tot.tot, &f);
	win_add(win_slot(a->win, a->cfg.slots, slot, &idx), &f);
	span_add(a, idx, slot, r, now_ns);
	for (unsigned i = 0; i < r->nfindings && i < REC_MAX_FINDINGS; i++)
		if (r->finding[i].id < AGG_FINDINGS)
			a->tot.findings_by_id[r->finding[i].id]++;

	/* the entries to update, route by route: bit d of each */
	unsigned upd[RT_N];
	for (int c = RT_N - 1; c >= 0; c--) {
		rt[c] = route_of(a, c, &k[c], r, &tmp[c]);
		upd[c] = rt[c]->live & ~(c == RT_OPS ? fold_into_series(rt[c]) : 0);
		for (unsigned m = upd[c]; m; m &= m - 1)
			ent_prefetch(rt[c]->e[__builtin_ctz(m)], &f, idx);
	}
	for (int c = RT_N - 1; c >= 0; c--)
		for (unsigned m = upd[c]; m; m &= m - 1)
			ent_prefetch2(rt[c]->e[__builtin_ctz(m)], &f, idx);
	/* the connection route first, then the dimensions in order */
	for (int c = RT_N - 1; c >= 0; c--) {
		for (unsigned m = rt[c]->other; m; m &= m - 1)
			a->tot.overflow[__builtin_ctz(m)]++;
		for (unsigned m = upd[c]; m; m &= m - 1)
			ent_add(a, rt[c]->e[__builtin_ctz(m)], &f, slot, idx);
	}
	if (f.answered)
		slow_add(a, r, &rt[RT_OPS]->op, &rt[RT_OPS]->cl, &rt[RT_OPS]->sv);
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
