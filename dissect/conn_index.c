/* The connection table's index: an open-addressed hash from a packet's
 * destination (address, QPN), a CM communication ID, or an address pair of
 * one-sided connections waiting for their peer, to the connection; and the
 * keys and endpoint addresses taken from a frame.  See conn.c for the model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/conn_int.h"

static inline unsigned memo_slot(const struct hkey *k)
{
	return (k->id ^ k->a[15]) & 3;
}

static uint64_t hkey_hash(const struct hkey *k)
{
	uint64_t w[5];
	memcpy(w, k, sizeof(w));
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

struct hent *conn_ht_find(struct htab *t, const struct hkey *k)
{
	if (!t->cap)
		return NULL;
	/* The slot's own key is compared, so a slot deleted and reused for
	 * another key is never taken for the old one. */
	struct hent **memo = &t->last[memo_slot(k)];
	if (*memo && (*memo)->state == 1 && memcmp(&(*memo)->k, k, sizeof(*k)) == 0)
		return *memo;
	size_t m = t->cap - 1, i = hkey_hash(k) & m;
	for (;;) {
		struct hent *e = &t->e[i];
		if (e->state == 0)
			return NULL;
		if (e->state == 1 && memcmp(&e->k, k, sizeof(*k)) == 0)
			return *memo = e;
		i = (i + 1) & m;
	}
}

/* ht_find for a QP key, built in registers: the packet path's lookup.
 * (A key assembled byte by byte in memory and read back at once as wide
 * words stalls store forwarding: that was most of conn_rc's time.)
 * Hashes exactly as hkey_hash does for the same hkey. */
struct hent *conn_ht_find_qp(struct htab *t, const struct ep_key *e, uint32_t qpn)
{
	if (!t->cap)
		return NULL;
	uint64_t w0 = (uint64_t)HK_QP | (uint64_t)e->fam << 8 | (uint64_t)qpn << 32, w1, w2;
	memcpy(&w1, e->a, 8);
	memcpy(&w2, e->a + 8, 8);
	struct hent **memo = &t->last[(qpn ^ e->a[15]) & 3];
	struct hent *x = *memo;
	uint64_t kw[5];
	if (x && x->state == 1) {
		memcpy(kw, &x->k, sizeof(kw));
		if (kw[0] == w0 && kw[1] == w1 && kw[2] == w2 && !kw[3] && !kw[4])
			return x;
	}
	uint64_t w[5] = { w0, w1, w2, 0, 0 }, h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 5; i++) {
		h ^= w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	size_t m = t->cap - 1, i = h & m;
	for (;;) {
		struct hent *c = &t->e[i];
		if (c->state == 0)
			return NULL;
		if (c->state == 1) {
			memcpy(kw, &c->k, sizeof(kw));
			if (kw[0] == w0 && kw[1] == w1 && kw[2] == w2 && !kw[3] && !kw[4])
				return *memo = c;
		}
		i = (i + 1) & m;
	}
}

static int ht_grow(struct htab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024;
	if (t->used * 4 < t->cap)   /* mostly tombstones: rehash in place size */
		ncap = t->cap;
	struct hent *ne = calloc(ncap, sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct hent *e = &t->e[i];
		if (e->state != 1)
			continue;
		size_t j = hkey_hash(&e->k) & (ncap - 1);
		while (ne[j].state)
			j = (j + 1) & (ncap - 1);
		ne[j] = *e;
	}
	free(t->e);
	t->e = ne;
	t->cap = ncap;
	t->dead = 0;
	memset(t->last, 0, sizeof(t->last));
	return 0;
}

/* Inserts or replaces. */
struct hent *conn_ht_put(struct htab *t, const struct hkey *k, struct conn *c, int side)
{
	struct hent *e = conn_ht_find(t, k);
	if (!e) {
		if ((t->used + t->dead + 1) * 2 > t->cap && ht_grow(t) < 0)
			return NULL;
		size_t m = t->cap - 1, i = hkey_hash(k) & m;
		while (t->e[i].state == 1)
			i = (i + 1) & m;
		e = &t->e[i];
		if (e->state == 2)
			t->dead--;
		e->k = *k;
		e->state = 1;
		t->used++;
	}
	e->c = c;
	e->side = (uint8_t)side;
	return e;
}

void conn_ht_del(struct htab *t, struct hent *e)
{
	e->state = 2;
	e->c = NULL;
	t->used--;
	t->dead++;
}

/* Address used in keys: IP / GID, or the LID for native IB (a QP is found
 * by LID whether or not its packets carry a GRH). */

void conn_frame_keys(const struct ib_frame *f, struct ep_key *src, struct ep_key *dst)
{
	if (f->kind == IBF_IB) {
		memset(src, 0, sizeof(*src));
		memset(dst, 0, sizeof(*dst));
		src->fam = dst->fam = 'L';
		src->a[0] = (uint8_t)(f->slid >> 8);
		src->a[1] = (uint8_t)f->slid;
		dst->a[0] = (uint8_t)(f->dlid >> 8);
		dst->a[1] = (uint8_t)f->dlid;
		return;
	}
	/* Whole 8-byte words, built in registers: an IPv4 address sits in a
	 * zeroed 16-byte field written in two steps, and reading it back as
	 * one wide load right away would stall store forwarding. */
	uint64_t s0, s1, d0, d1;
	if (f->family == 4) {
		uint32_t a, b;
		memcpy(&a, f->src, 4);
		memcpy(&b, f->dst, 4);
		s0 = 0;
		d0 = 0;
		memcpy(&s0, &a, 4);   /* the same bytes first, whatever the byte order */
		memcpy(&d0, &b, 4);
		s1 = d1 = 0;
	} else {
		memcpy(&s0, f->src, 8);
		memcpy(&s1, f->src + 8, 8);
		memcpy(&d0, f->dst, 8);
		memcpy(&d1, f->dst + 8, 8);
	}
	src->fam = dst->fam = f->family;
	memcpy(src->a, &s0, 8);
	memcpy(src->a + 8, &s1, 8);
	memcpy(dst->a, &d0, 8);
	memcpy(dst->a + 8, &d1, 8);
}

void conn_fill_endpoint(struct rdma_endpoint *ep, const struct ib_frame *f, bool source)
{
	if (f->kind == IBF_IB) {
		ep->lid = source ? f->slid : f->dlid;
		if (f->has_grh) {
			ep->family = 'G';
			memcpy(ep->addr, source ? f->src : f->dst, 16);
		} else if (ep->family != 'G') {
			ep->family = 'L';
		}
	} else {
		ep->family = f->family;
		memcpy(ep->addr, source ? f->src : f->dst, 16);
	}
	if (source && f->kind == IBF_ROCE_V2)
		ep->udp_sport = f->sport;
}

struct hkey conn_qp_key(const struct ep_key *e, uint32_t qpn)
{
	struct hkey k;
	memset(&k, 0, sizeof(k));
	k.kind = HK_QP;
	k.fam = e->fam;
	k.id = qpn;
	memcpy(k.a, e->a, 16);
	return k;
}

struct hkey conn_comm_key(const struct ep_key *e, uint32_t id)
{
	struct hkey k = conn_qp_key(e, id);
	k.kind = HK_COMM;
	return k;
}

struct hkey conn_wait_key(const struct ep_key *unknown, const struct ep_key *known)
{
	struct hkey k;
	memset(&k, 0, sizeof(k));
	k.kind = HK_WAIT;
	k.fam = unknown->fam;
	memcpy(k.a, unknown->a, 16);
	memcpy(k.b, known->a, 16);
	return k;
}


struct ep_key conn_side_key(const struct conn *c, int i)
{
	struct ep_key e;
	e.fam = c->key_fam[i];
	memcpy(e.a, c->key_addr[i], 16);
	return e;
}
