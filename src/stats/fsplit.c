/* The fused split (fsplit.h): rows found by numeric keys (agg_key.h), so
 * a fused record formats no string; a row's key string is made once,
 * when the row is. */
#include "src/stats/fsplit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/agg_key.h"
#include "src/stats/phase_diag.h"

struct fs_ent {
	struct fsplit_row row;      /* key, shape and counters; the sums come from d at snapshot */
	struct phase_diag d;
};

struct fsplit {
	struct agg_map *map;
	struct fs_ent **ent;
	unsigned n, max;
	uint64_t rpcs, unsplit, overflow;
};

struct fsplit *fsplit_new(unsigned max_rows)
{
	struct fsplit *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->max = max_rows ? max_rows : FSPLIT_ROWS_DEFAULT;
	f->ent = calloc(f->max, sizeof(*f->ent));
	f->map = agg_map_new(f->max);
	if (!f->ent || !f->map) {
		fsplit_free(f);
		return NULL;
	}
	return f;
}

void fsplit_free(struct fsplit *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->n; i++) {
		phase_diag_free(&f->ent[i]->d);
		free(f->ent[i]);
	}
	free(f->ent);
	agg_map_free(f->map);
	free(f);
}

/* The row's key string, as the aggregation names its keys (agg.c). */
static void key_string(unsigned dim, const struct agg_op_id *op, const struct agg_ep_id *ep, char *key, size_t len)
{
	char prog[AGG_LABEL_MAX], proc[AGG_LABEL_MAX], addr[AGG_LABEL_MAX];

	if (dim == AGG_OP) {
		agg_op_id_str(op, prog, sizeof(prog), proc, sizeof(proc));
		snprintf(key, len, "%s %s%s", prog, proc, agg_op_suffix(op->transport));
	} else {
		agg_ep_id_str(ep, addr, sizeof(addr));
		snprintf(key, len, "%s%s", addr, agg_op_suffix(op->transport));
	}
}

static struct fs_ent *row_of(struct fsplit *f, unsigned dim, const struct nfsrdma_record *r,
			     const struct agg_op_id *op, const struct agg_key_part *opp, const struct agg_ep_id *ep,
			     const struct agg_key_part *epp, uint32_t merged, unsigned vt)
{
	struct agg_key k;
	struct agg_key_part tr = { { r->transport, 0, 0 }, 0x51ed27u + r->transport };
	/* the shape and the dimension ride in the key's first word */
	uint32_t shape = dim | vt << 4 | (merged & REC_FM_NET_PAIR ? 0x80u : 0) | (merged & 0xffffffu) << 8;

	agg_key_make(&k, shape, dim == AGG_OP ? opp : epp, dim == AGG_OP ? NULL : &tr, NULL);
	struct fs_ent *e = agg_map_get(f->map, &k);
	if (e)
		return e;
	if (f->n >= f->max || !(e = calloc(1, sizeof(*e))))
		return NULL;
	if (phase_diag_init(&e->d, REC_FP_N) < 0 || agg_map_put(f->map, &k, e) < 0) {
		phase_diag_free(&e->d);
		free(e);
		return NULL;
	}
	key_string(dim, op, ep, e->row.key, sizeof(e->row.key));
	e->row.dim = (uint8_t)dim;
	e->row.transport = r->transport;
	e->row.vantages = (uint8_t)vt;
	e->row.merged = merged;
	f->ent[f->n++] = e;
	return e;
}

void fsplit_add(struct fsplit *f, const struct nfsrdma_record *r)
{
	if (!rec_is_fused(r))
		return;
	f->rpcs++;
	if (!r->f_mask) {
		f->unsplit++;
		return;
	}
	uint64_t ph[REC_FP_N];
	/* a merged span counts in its first phase; the phases inside it are 0 */
	for (unsigned p = 0; p < REC_FP_N; p++)
		ph[p] = r->f_mask & (1u << p) ? r->f_phase[p] : 0;
	uint32_t merged = r->f_merged & (((1u << (REC_FP_N - 1)) - 1) | REC_FM_NET_PAIR);
	unsigned vt = rec_vantages(r);
	const struct rec_endpoint *client = r->flags & RECF_BACKCHANNEL ? &r->callee : &r->caller;
	const struct rec_endpoint *server = r->flags & RECF_BACKCHANNEL ? &r->caller : &r->callee;
	struct agg_op_id op;
	struct agg_ep_id ec, es;
	struct agg_key_part pop, pc, ps;

	agg_op_id(r, &op);
	agg_ep_id(client, r->transport, false, &ec);
	agg_ep_id(server, r->transport, false, &es);
	agg_part_op(&pop, &op);
	agg_part_ep(&pc, &ec);
	agg_part_ep(&ps, &es);
	static const unsigned dims[] = { AGG_OP, AGG_CLIENT, AGG_SERVER };
	for (unsigned i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
		unsigned d = dims[i];
		struct fs_ent *e = row_of(f, d, r, &op, &pop, d == AGG_CLIENT ? &ec : &es, d == AGG_CLIENT ? &pc : &ps,
					  merged, vt);
		if (!e) {
			f->overflow++;
			continue;
		}
		e->row.mask |= r->f_mask;
		e->row.negative += !!(r->f_flags & RECFF_NEGATIVE);
		e->row.partial += !!(r->f_flags & RECFF_EVICTED);
		phase_diag_add(&e->d, r->f_total, ph);
		verdict_sum_add(&e->row.vs, r);
	}
}

int fsplit_snapshot(const struct fsplit *f, struct fsplit_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->have = true;
	s->rpcs = f->rpcs;
	s->unsplit = f->unsplit;
	s->overflow = f->overflow;
	if (!f->n)
		return 0;
	if (!(s->rows = calloc(f->n, sizeof(*s->rows))))
		return -ENOMEM;
	for (unsigned i = 0; i < f->n; i++) {
		const struct fs_ent *e = f->ent[i];
		struct fsplit_row *o = &s->rows[s->n];
		struct phase_diag_split sp;
		if (phase_diag_split(&e->d, &sp) < 0)
			continue;   /* a row is made with its first RPC: not reached */
		*o = e->row;
		o->n = sp.n;
		o->sum = sp.sum;
		o->p50 = sp.p50_ns;
		o->p99 = sp.p99_ns;
		o->max = sp.max_ns;
		o->tail_n = sp.tail_n;
		o->tail_sum = sp.tail_sum;
		memcpy(o->phase, sp.phase, sizeof(o->phase));
		memcpy(o->tail, sp.tail, sizeof(o->tail));
		s->n++;
	}
	return 0;
}

void fsplit_snap_free(struct fsplit_snap *s)
{
	free(s->rows);
	s->rows = NULL;
	s->n = s->cap = 0;
}

size_t fsplit_memory(const struct fsplit *f)
{
	size_t m = sizeof(*f) + f->max * sizeof(*f->ent) + agg_map_memory(f->map);

	for (unsigned i = 0; i < f->n; i++) {
		const struct phase_diag *d = &f->ent[i]->d;
		unsigned sub = 1u << d->tot.res;
		m += sizeof(*f->ent[i]) + d->tot.bytes;
		for (unsigned c = 0; c < HIST_MAX_EXP; c++)
			if (d->bsum[c])
				m += (size_t)sub * (d->nph + 1) * sizeof(uint64_t);
	}
	return m;
}

unsigned fsplit_spans(uint32_t merged, uint8_t first[REC_FP_N], uint8_t last[REC_FP_N])
{
	unsigned n = 0;

	for (unsigned p = 0; p < REC_FP_N; p++) {
		/* net_back counted with net_out: no span of its own */
		if (p == REC_FP_NET_BACK && (merged & REC_FM_NET_PAIR) && !(merged & (1u << p)) &&
		    !(merged & (1u << (p - 1))))
			continue;
		first[n] = (uint8_t)p;
		while (p + 1 < REC_FP_N && (merged & (1u << p)))
			p++;
		last[n++] = (uint8_t)p;
	}
	return n;
}
