/* Disciplined host clocks (clock_claim.h; docs/clocks.md, "Host clocks").
 *
 * A host's line pairs its monotonic clock (the probes') with its real-time
 * clock: d = realtime - mono.  If two hosts' real-time clocks are each
 * within their claimed error of true time, then at one instant
 * mono_b - mono_a = d_a - d_b within err_a + err_b: an offset with no
 * message at all.  NTP and PTP slew CLOCK_MONOTONIC with CLOCK_REALTIME,
 * so d moves only when the real-time clock is stepped. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/json.h"
#include "src/join/clock_claim.h"
#include "src/join/join.h"

#define LINES_MAX      (1u << 20)   /* per host: 58 days of lines 5 s apart */
#define CLAIM_CONFIRM  2            /* contradicting bounds before a pair is believed
				     * contradicted: one may be a mispaired RPC */
#define CLAIM_WITNESS  8            /* bounds a pair needs, none contradicting, for
				     * one of its hosts to vouch for the other */

struct chost {
	struct claim_line *v;
	size_t n, cap;
	uint64_t synced, jumps, used, refused;
	uint64_t max_claim_ns;
};

struct cpair {
	uint64_t checked, contradicted, worst_ns;
};

struct claims {
	struct chost h[JOIN_MAX_HOSTS];
	struct cpair p[JOIN_MAX_HOSTS * JOIN_MAX_HOSTS];   /* [a][b], a < b */
	bool blamed[JOIN_MAX_HOSTS];
	uint64_t contra[JOIN_MAX_HOSTS];                   /* bounds against its claim */
	bool dirty;                                        /* blame to be worked out again */
};

/* ---- the line ---- */

static const char *find_key(const char *s, size_t len, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k + 3 <= len; i++)
		if (s[i] == '"' && !memcmp(s + i + 1, key, k) && s[i + 1 + k] == '"' && s[i + 2 + k] == ':')
			return s + i + k + 3;
	return NULL;
}

static int num_key(const char *s, size_t len, const char *key, int64_t *v, bool need)
{
	const char *p = find_key(s, len, key), *end = s + len;
	char buf[24];
	size_t n = 0;

	if (!p)
		return need ? -EINVAL : 0;
	while (p < end && *p == ' ')
		p++;
	while (p < end && n + 1 < sizeof(buf) && (*p == '-' || (*p >= '0' && *p <= '9')))
		buf[n++] = *p++;
	buf[n] = 0;
	if (!n || (p < end && *p != ',' && *p != '}' && *p != ' ' && *p != '.'))
		return -EINVAL;
	char *e;
	errno = 0;
	long long x = strtoll(buf, &e, 10);
	if (*e || errno)
		return -EINVAL;
	*v = x;
	return 0;
}

int claim_parse(const char *line, size_t len, struct claim_line *out, char *err, size_t errlen)
{
	static const char *const need[] = { "mono_ns", "realtime_ns", "spread_ns", "maxerror_ns" };
	int64_t v[4];
	const char *t = find_key(line, len, "type");

	if (!t || (size_t)(line + len - t) < 7 || memcmp(t, "\"clock\"", 7))
		return 1;
	for (unsigned i = 0; i < 4; i++)
		if (num_key(line, len, need[i], &v[i], true) < 0 || (i != 1 && v[i] < 0) || (i == 1 && v[i] <= 0)) {
			snprintf(err, errlen, "a clock line without a valid \"%s\"", need[i]);
			return -EINVAL;
		}
	const char *sy = find_key(line, len, "synced");
	if (!sy) {
		snprintf(err, errlen, "a clock line without \"synced\"");
		return -EINVAL;
	}
	*out = (struct claim_line){
		.mono_ns = (uint64_t)v[0],
		.d_ns = v[1] - v[0],
		.err_ns = (uint64_t)v[3] + (uint64_t)v[2],
		.synced = (size_t)(line + len - sy) >= 4 && !memcmp(sy, "true", 4),
	};
	return 0;
}

/* ---- history ---- */

struct claims *claims_new(void) { return calloc(1, sizeof(struct claims)); }

void claims_free(struct claims *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < JOIN_MAX_HOSTS; i++)
		free(c->h[i].v);
	free(c);
}

static int64_t absd(int64_t x) { return x < 0 ? -x : x; }

int claims_add(struct claims *c, unsigned host, const struct claim_line *l)
{
	if (host >= JOIN_MAX_HOSTS)
		return -EINVAL;
	struct chost *h = &c->h[host];
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct claim_line *n = cap <= LINES_MAX ? realloc(h->v, cap * sizeof(*n)) : NULL;
		if (!n) {
			h->refused++;
			return -ENOSPC;
		}
		h->v = n;
		h->cap = cap;
	}
	/* in time order (lines of one host come in order; a merge may not) */
	size_t i = h->n;
	while (i && h->v[i - 1].mono_ns > l->mono_ns)
		i--;
	memmove(&h->v[i + 1], &h->v[i], (h->n - i) * sizeof(*h->v));
	h->v[i] = *l;
	h->n++;
	if (l->synced) {
		h->synced++;
		if (l->err_ns > h->max_claim_ns)
			h->max_claim_ns = l->err_ns;
	}
	/* the real-time clock stepped while the host claimed it was right on
	 * both sides of the step: one of the two claims was false */
	const struct claim_line *p = i ? &h->v[i - 1] : NULL;
	if (p && p->synced && l->synced && (uint64_t)absd(l->d_ns - p->d_ns) > p->err_ns + l->err_ns) {
		h->jumps++;
		c->dirty = true;
	}
	return 0;
}

/* The line in force at t (the last at or before it; the first before any). */
static const struct claim_line *claim_at(const struct claims *c, unsigned host, uint64_t t)
{
	const struct chost *h = &c->h[host];
	size_t lo = 0, hi = h->n;

	if (!h->n)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->v[mid].mono_ns <= t)
			lo = mid;
		else
			hi = mid;
	}
	return &h->v[lo];
}

/* ---- checking the claims against the bounds ---- */

void claims_check(struct claims *c, unsigned hx, uint64_t tx, unsigned hy, uint64_t ty)
{
	const struct claim_line *lx = claim_at(c, hx, tx), *ly = claim_at(c, hy, ty);

	if (!lx || !ly || !lx->synced || !ly->synced)
		return;
	/* the message proves (y - x) <= ty - tx; the claims, (y - x) >= d_x - d_y - E */
	int64_t claimed_low = lx->d_ns - ly->d_ns - (int64_t)(lx->err_ns + ly->err_ns);
	int64_t bound = (int64_t)(ty - tx);
	struct cpair *p = &c->p[hx < hy ? hx * JOIN_MAX_HOSTS + hy : hy * JOIN_MAX_HOSTS + hx];
	p->checked++;
	if (claimed_low <= bound)
		return;
	p->contradicted++;
	if ((uint64_t)(claimed_low - bound) > p->worst_ns)
		p->worst_ns = (uint64_t)(claimed_low - bound);
	c->dirty = true;
}

static const struct cpair *pair(const struct claims *c, unsigned a, unsigned b)
{
	return &c->p[a < b ? a * JOIN_MAX_HOSTS + b : b * JOIN_MAX_HOSTS + a];
}

/* A host some third host's claim agrees with over many bounds. */
static bool vouched(const struct claims *c, unsigned h, unsigned other)
{
	for (unsigned z = 0; z < JOIN_MAX_HOSTS; z++) {
		const struct cpair *p = pair(c, h, z);
		if (z != h && z != other && p->checked >= CLAIM_WITNESS && !p->contradicted)
			return true;
	}
	return false;
}

/* Which host of a contradicted pair lied: the one whose real-time clock
 * stepped under a claim; else the one no third host vouches for; else
 * (two hosts, no step: the data cannot tell) both. */
static void blame(struct claims *c)
{
	memset(c->blamed, 0, sizeof(c->blamed));
	memset(c->contra, 0, sizeof(c->contra));
	for (unsigned a = 0; a < JOIN_MAX_HOSTS; a++)
		for (unsigned b = a + 1; b < JOIN_MAX_HOSTS; b++) {
			const struct cpair *p = &c->p[a * JOIN_MAX_HOSTS + b];
			if (p->contradicted < CLAIM_CONFIRM)
				continue;
			bool ja = c->h[a].jumps > 0, jb = c->h[b].jumps > 0;
			bool va = vouched(c, a, b), vb = vouched(c, b, a);
			bool ba = true, bb = true;
			if (ja != jb)
				ba = ja, bb = jb;
			else if (va != vb)
				ba = !va, bb = !vb;
			if (ba) {
				c->blamed[a] = true;
				c->contra[a] += p->contradicted;
			}
			if (bb) {
				c->blamed[b] = true;
				c->contra[b] += p->contradicted;
			}
		}
	c->dirty = false;
}

int claims_apply(struct claims *c, unsigned a, unsigned b, uint64_t at_a, int rc, struct clock_est *out)
{
	if (rc != 0 || a == b || a >= JOIN_MAX_HOSTS || b >= JOIN_MAX_HOSTS)
		return rc;
	out->from_hosts = false;
	if (c->dirty)
		blame(c);
	/* one contradicting bound is enough not to use the pair's claims (the
	 * bounds are never wrong to fall back on); naming a host takes more */
	if (c->blamed[a] || c->blamed[b] || pair(c, a, b)->contradicted)
		return rc;
	const struct claim_line *la = claim_at(c, a, at_a), *lb = claim_at(c, b, UINT64_MAX);
	if (!la || !lb)
		return rc;
	/* b's clock at the instant of at_a, from the claims themselves */
	lb = claim_at(c, b, at_a + (uint64_t)(la->d_ns - lb->d_ns));
	lb = claim_at(c, b, at_a + (uint64_t)(la->d_ns - lb->d_ns));
	uint64_t e = la->err_ns + lb->err_ns;
	if (!la->synced || !lb->synced || e >= out->uncertainty_ns)
		return rc;
	out->offset_ns = la->d_ns - lb->d_ns;
	out->uncertainty_ns = e;
	out->bounded = true;
	out->from_hosts = true;
	c->h[a].used++;
	c->h[b].used++;
	return 0;
}

/* ---- the report ---- */

/* The worst contradiction of host h's claim by any pair's bounds */
static uint64_t worst_of(const struct claims *c, unsigned h)
{
	uint64_t worst = 0;
	for (unsigned z = 0; z < JOIN_MAX_HOSTS; z++)
		if (z != h && pair(c, h, z)->worst_ns > worst)
			worst = pair(c, h, z)->worst_ns;
	return worst;
}

void claims_json(struct claims *c, struct jw *j)
{
	bool first = true;

	if (c->dirty)
		blame(c);
	for (unsigned h = 0; h < JOIN_MAX_HOSTS; h++) {
		const struct chost *k = &c->h[h];
		if (!k->n)
			continue;
		jw_lit(j, first ? "{\"host\":" : ",{\"host\":");
		first = false;
		jw_u(j, h);
		JW_KEY(j, "lines");
		jw_u(j, k->n);
		JW_KEY(j, "synced_lines");
		jw_u(j, k->synced);
		JW_KEY(j, "claimed_ns");
		jw_u(j, k->max_claim_ns);
		JW_KEY(j, "used");
		jw_bool(j, k->used);
		JW_KEY(j, "contradicted");
		jw_u(j, c->contra[h]);
		JW_KEY(j, "worst_ns");
		jw_u(j, c->blamed[h] ? worst_of(c, h) : 0);
		JW_KEY(j, "steps");
		jw_u(j, k->jumps);
		JW_KEY(j, "trusted");
		jw_bool(j, !c->blamed[h]);
		jw_c(j, '}');
	}
}

void claims_report(struct claims *c, FILE *f, const char *const *names)
{
	if (c->dirty)
		blame(c);
	for (unsigned h = 0; h < JOIN_MAX_HOSTS; h++) {
		const struct chost *k = &c->h[h];
		if (!k->n)
			continue;
		uint64_t worst = worst_of(c, h);
		char nb[32];
		const char *name = names && names[h] ? names[h] : (snprintf(nb, sizeof(nb), "host %u", h), nb);
		fprintf(f, "join: host clock %s: %zu lines, %" PRIu64 " synchronised", name, k->n, k->synced);
		if (k->synced)
			fprintf(f, ", claiming +/- %.1f us at most", (double)k->max_claim_ns / 1e3);
		fprintf(f, "; %s", k->used ? "used (tighter than the causal bounds)" : "not used");
		if (k->jumps)
			fprintf(f, "; stepped %" PRIu64 " times while claiming it", k->jumps);
		if (c->blamed[h])
			fprintf(f, "; CONTRADICTED by %" PRIu64 " bounds (worst %.1f us beyond its claim): not trusted",
				c->contra[h], (double)worst / 1e3);
		fputc('\n', f);
	}
}
