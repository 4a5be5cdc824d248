/* Numeric aggregation keys and their map (see agg_key.h). */
#include "src/stats/agg_key.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/nfs4.h"
#include "dissect/programs.h"
#include "dissect/record_names.h"

static bool is_nfs4(uint32_t prog, uint32_t vers)
{
	return (prog == PROG_NFS && vers == 4) || prog == PROG_NFS_CB;
}

void agg_op_id(const struct nfsrdma_record *r, struct agg_op_id *id)
{
	memset(id, 0, sizeof(*id));
	id->transport = r->transport;
	if (!(r->flags & RECF_CALL) || !r->prog)
		return;
	id->prog = r->prog;
	id->vers = r->vers;
	id->proc = r->proc;
	if (is_nfs4(r->prog, r->vers)) {
		id->minor = r->minorvers;
		if (r->proc == 1)
			id->name = nfs4_compound_name(r);
	}
}

void agg_op_id_str(const struct agg_op_id *id, char *prog, size_t plen, char *op, size_t olen)
{
	struct nfsrdma_record r;

	/* The formatters read only these fields, and the ops only for a
	 * COMPOUND's name, which the id carries. */
	memset(&r, 0, sizeof(r));
	r.flags = id->prog ? RECF_CALL : 0;
	r.prog = id->prog;
	r.vers = id->vers;
	r.proc = id->proc;
	r.minorvers = id->minor;
	rec_prog_str(&r, prog, plen);
	if (id->name)
		snprintf(op, olen, "%s", id->name);
	else
		rec_proc_str(&r, op, olen);
}

const char *agg_op_suffix(unsigned transport)
{
	switch (transport) {
	case REC_TR_RDMA: return "";
	case REC_TR_TCP:  return " tcp";
	case REC_TR_UDP:  return " udp";
	default:          return " ?";
	}
}

void agg_ep_id(const struct rec_endpoint *e, unsigned transport, bool with_qp, struct agg_ep_id *id)
{
	memset(id, 0, sizeof(*id));
	id->family = e->family;
	id->transport = (uint8_t)transport;
	id->qpn = with_qp ? e->qpn : 0;
	switch (e->family) {
	case 4:
		memcpy(id->addr, e->addr, 4);
		break;
	case 6:
	case 'G':
		memcpy(id->addr, e->addr, 16);
		break;
	case 'L':
		id->lid = e->lid;
		break;
	default:
		id->family = 0;   /* shown as "?" whatever else it holds */
		break;
	}
}

void agg_ep_id_str(const struct agg_ep_id *id, char *buf, size_t len)
{
	struct rec_endpoint e;

	memset(&e, 0, sizeof(e));
	e.family = id->family;
	e.lid = id->lid;
	e.qpn = id->qpn;
	memcpy(e.addr, id->addr, sizeof(e.addr));
	if (id->qpn)
		rec_ep_str(&e, buf, len);
	else
		dissect_addr_str(&e, buf, len);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static void part(struct agg_key_part *p, const void *id)
{
	_Static_assert(sizeof(struct agg_op_id) == 24 && sizeof(struct agg_ep_id) == 24, "key part layout");
	memcpy(p->w, id, sizeof(p->w));
	p->hash = mix(p->w[0] * 0x9E3779B97F4A7C15ull ^ mix(p->w[1] + 0x632BE59BD9B4E019ull) ^ (p->w[2] << 1));
}

void agg_part_op(struct agg_key_part *p, const struct agg_op_id *id)
{
	part(p, id);
}

void agg_part_ep(struct agg_key_part *p, const struct agg_ep_id *id)
{
	part(p, id);
}

void agg_key_make(struct agg_key *k, uint32_t conn, const struct agg_key_part *op, const struct agg_key_part *a,
		  const struct agg_key_part *b)
{
	const struct agg_key_part *parts[3] = { op, a, b };
	uint64_t h = mix(conn + 1);
	unsigned n = 1;

	k->w[0] = conn;
	for (unsigned i = 0; i < 3; i++) {
		/* absent parts still move the hash, so (op, -, b) != (op, b, -) */
		h = mix(h * 31 + (parts[i] ? parts[i]->hash : 0x5bd1e995u + i));
		if (!parts[i])
			continue;
		memcpy(&k->w[n], parts[i]->w, sizeof(parts[i]->w));
		n += 3;
	}
	k->n = n;
	k->hash = h;
}

void agg_route_keys(const struct nfsrdma_record *r, struct agg_key *ops, struct agg_key *conn)
{
	const bool bc = r->flags & RECF_BACKCHANNEL, call = r->flags & RECF_CALL;
	const struct rec_endpoint *c = bc ? &r->callee : &r->caller, *s = bc ? &r->caller : &r->callee;
	/* the name of an NFSv4 COMPOUND is its own key part (agg_op_id) */
	const char *name = call && r->proc == 1 && is_nfs4(r->prog, r->vers) ? nfs4_compound_name(r) : NULL;
	uint64_t tail[5], ht = 0x632BE59BD9B4E019ull, ho = 0x9E3779B97F4A7C15ull, hc = ho;

	_Static_assert(AGG_KEY_WORDS >= 8, "a route key is up to 8 words");
	/* the transport too: the route's entries are per transport (an
	 * operation, a client over RDMA and over TCP are two entries each) */
	tail[0] = c->family | (uint64_t)s->family << 8 | (uint64_t)call << 16 | (uint64_t)r->transport << 24 |
		  (uint64_t)c->lid << 32 | (uint64_t)s->lid << 48;
	memcpy(&tail[1], c->addr, 16);
	memcpy(&tail[3], s->addr, 16);
	/* the endpoints' words are both keys' tail: hashed once, a fixed
	 * count of words so that the loops unroll */
	for (unsigned i = 0; i < 5; i++)
		ht = (ht ^ tail[i]) * 0xff51afd7ed558ccdull;

	ops->w[0] = r->prog | (uint64_t)r->vers << 32;
	ops->w[1] = r->proc | (uint64_t)r->minorvers << 32;
	ops->w[2] = (uintptr_t)name;
	memcpy(&ops->w[3], tail, sizeof(tail));
	ops->n = 8;
	for (unsigned i = 0; i < 3; i++)
		ho = (ho ^ ops->w[i]) * 0xff51afd7ed558ccdull;
	ops->hash = mix((ho ^ ht) * 0xff51afd7ed558ccdull);

	conn->w[0] = r->conn_id | (uint64_t)c->qpn << 32;
	conn->w[1] = s->qpn;
	memcpy(&conn->w[2], tail, sizeof(tail));
	conn->w[7] = 0;   /* so that both keys compare as 8 words (AGG_ROUTE_WORDS) */
	conn->n = 7;
	for (unsigned i = 0; i < 2; i++)
		hc = (hc ^ conn->w[i]) * 0xff51afd7ed558ccdull;
	conn->hash = mix((hc ^ ht) * 0xff51afd7ed558ccdull);
}

struct slot {
	struct agg_key k;
	void *v;
};

struct agg_map {
	size_t mask, n, max;
	struct slot s[];
};

static size_t map_cap(size_t max_entries)
{
	size_t cap = 16;

	while (cap < 2 * max_entries)
		cap *= 2;
	return cap;
}

size_t agg_map_bytes(size_t max_entries)
{
	return sizeof(struct agg_map) + map_cap(max_entries) * sizeof(struct slot);
}

struct agg_map *agg_map_in(void *mem, size_t max_entries)
{
	struct agg_map *m = mem;
	m->mask = map_cap(max_entries) - 1;
	m->max = max_entries;
	m->n = 0;
	return m;
}

struct agg_map *agg_map_new(size_t max_entries)
{
	size_t cap = map_cap(max_entries);
	struct agg_map *m = calloc(1, sizeof(*m) + cap * sizeof(m->s[0]));
	if (!m)
		return NULL;
	m->mask = cap - 1;
	m->max = max_entries;
	return m;
}

void agg_map_free(struct agg_map *m)
{
	free(m);
}

static bool same(const struct agg_key *a, const struct agg_key *b)
{
	if (a->hash != b->hash || a->n != b->n)
		return false;
	uint64_t d = 0;
	for (unsigned i = 0; i < a->n; i++)
		d |= a->w[i] ^ b->w[i];
	return !d;
}

void *agg_map_get(const struct agg_map *m, const struct agg_key *k)
{
	for (size_t i = k->hash & m->mask;; i = (i + 1) & m->mask) {
		const struct slot *s = &m->s[i];
		if (!s->v)
			return NULL;
		if (same(&s->k, k))
			return s->v;
	}
}

int agg_map_put(struct agg_map *m, const struct agg_key *k, void *v)
{
	if (m->n >= m->max)
		return -ENOSPC;
	size_t i = k->hash & m->mask;
	while (m->s[i].v && !same(&m->s[i].k, k))
		i = (i + 1) & m->mask;
	if (!m->s[i].v)
		m->n++;
	m->s[i].k = *k;
	m->s[i].v = v;
	return 0;
}

size_t agg_map_memory(const struct agg_map *m)
{
	return sizeof(*m) + (m->mask + 1) * sizeof(m->s[0]);
}
