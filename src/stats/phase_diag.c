/* Mean and tail split of an operation's phases (phase_diag.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/phase_diag.h"

static void phase_diag_add_at(struct phase_diag *d, unsigned i, uint64_t total, const uint64_t *phase);

int phase_diag_init(struct phase_diag *d, unsigned nph)
{
	memset(d, 0, sizeof(*d));
	if (!nph || nph > DIAG_PH_MAX)
		return -EINVAL;
	d->nph = nph;
	d->res = HIST_RES;
	return hist_init(&d->tot, HIST_RES);
}

void phase_diag_free(struct phase_diag *d)
{
	hist_free(&d->tot);
	for (unsigned e = 0; e < HIST_MAX_EXP; e++) {
		free(d->bsum[e]);
		d->bsum[e] = NULL;
	}
}

void phase_diag_add(struct phase_diag *d, uint64_t total, const uint64_t *phase)
{
	phase_diag_add_at(d, hist_index(d->tot.res, total), total, phase);
}

/* The same with total's bucket i = hist_index(HIST_RES, total) known. */
static void phase_diag_add_at(struct phase_diag *d, unsigned i, uint64_t total, const uint64_t *phase)
{
	phase_diag_add_masked(d, i, total, phase, ~0u);
}

void phase_diag_add_masked(struct phase_diag *d, unsigned i, uint64_t total, const uint64_t *phase, unsigned mask)
{
	const unsigned res = d->res, c = i >> res, sub = 1u << res, w = d->nph + 1;

	if (!d->nph)
		return;
	if (!d->shared)
		hist_add_at(&d->tot, i, total);
	if (!d->bsum[c] && !(d->bsum[c] = calloc((size_t)sub * w, sizeof(uint64_t)))) {
		d->lost++;
		for (unsigned p = 0; p < d->nph; p++)
			d->sum_phase[p] += mask >> p & 1 ? phase[p] : 0;
		return;
	}
	/* one pass: each phase into the overall sum and its bucket's */
	uint64_t *s = d->bsum[c] + (size_t)(i & (sub - 1)) * w;
	for (unsigned p = 0; p < d->nph; p++) {
		const uint64_t v = mask >> p & 1 ? phase[p] : 0;
		d->sum_phase[p] += v;
		s[p] += v;
	}
	s[d->nph] += total;
}

int phase_diag_unshare(struct phase_diag *d)
{
	const struct hist *h = d->shared;

	d->shared = NULL;
	return h ? hist_merge(&d->tot, h) : 0;
}

static unsigned argmax(const uint64_t *v, unsigned n)
{
	unsigned b = 0;
	for (unsigned p = 1; p < n; p++)
		if (v[p] > v[b])
			b = p;
	return b;
}

static unsigned pct(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned)((200 * (unsigned __int128)part + whole) / (2 * (unsigned __int128)whole)) : 0;
}

int phase_diag_split(const struct phase_diag *d, struct phase_diag_split *out)
{
	const struct hist *h = d->shared ? d->shared : &d->tot;
	unsigned res = h->res, sub = 1u << res;
	uint64_t acc = 0, want;

	memset(out, 0, sizeof(*out));
	if (!h->n)
		return -ENODATA;
	out->n = h->n;
	out->sum = h->sum;
	out->p50_ns = hist_pct(h, 0.5);
	out->p99_ns = hist_pct(h, 0.99);
	out->max_ns = h->max;
	memcpy(out->phase, d->sum_phase, sizeof(out->phase));
	/* the nearest rank, as hist_pct takes it */
	want = (uint64_t)(0.99 * (double)h->n + 0.999999);
	if (!want)
		want = 1;
	for (unsigned i = 0, last = hist_index(res, h->max); i <= last; i++) {
		uint64_t c = hist_count(h, i);
		acc += c;
		if (acc < want)
			continue;
		if (!c || !d->bsum[i >> res])
			continue;
		/* this bucket holds the rank-th sample, or lies above it */
		out->tail_n += c;
		const uint64_t *s = d->bsum[i >> res] + (size_t)(i & (sub - 1)) * (d->nph + 1);
		for (unsigned p = 0; p < d->nph; p++)
			out->tail[p] += s[p];
		out->tail_sum += s[d->nph];
	}
	return 0;
}

int phase_diag_get(const struct phase_diag *d, struct phase_diag_result *out)
{
	struct phase_diag_split sp;

	memset(out, 0, sizeof(*out));
	if (phase_diag_split(d, &sp) < 0)
		return -ENODATA;
	out->n = sp.n;
	out->mean_ns = sp.sum / sp.n;
	out->p99_ns = sp.p99_ns;
	out->tail_n = sp.tail_n;
	out->mean_phase = argmax(sp.phase, d->nph);
	out->mean_pct = pct(sp.phase[out->mean_phase], sp.sum);
	out->p99_phase = argmax(sp.tail, d->nph);
	out->p99_pct = pct(sp.tail[out->p99_phase], sp.tail_sum);
	return 0;
}
