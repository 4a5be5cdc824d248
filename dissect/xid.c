#include "dissect/xid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline size_t xid_hash(uint64_t key, size_t n)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 32) & (n - 1);
}

int xid_table_init(struct xid_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = 1024;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -ENOMEM;
}

void xid_table_free(struct xid_table *t)
{
	struct xentry *x, *n;

	for (x = t->oldest; x; x = n) {
		n = x->newer;
		dt_free(&x->tree);
		free(x->p0buf);
		free(x->rcbuf);
		free(x->notes);
		free(x);
	}
	for (x = t->free; x; x = n) {
		n = x->hnext;
		dt_free(&x->tree);
		free(x->notes);
		free(x);
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

struct xentry *xid_find(const struct xid_table *t, uint32_t conn_id, int dir, uint32_t xid)
{
	uint64_t key = xid_key(conn_id, dir, xid);

	for (struct xentry *x = t->buckets[xid_hash(key, t->nbuckets)]; x; x = x->hnext)
		if (x->key == key)
			return x;
	return NULL;
}

static void xid_grow(struct xid_table *t)
{
	size_t n = t->nbuckets * 2;
	struct xentry **b = calloc(n, sizeof(*b));

	if (!b)
		return; /* keep going with longer chains */
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct xentry *x = t->buckets[i], *next;
		for (; x; x = next) {
			next = x->hnext;
			size_t h = xid_hash(x->key, n);
			x->hnext = b[h];
			b[h] = x;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
}

struct xentry *xid_add(struct xid_table *t, uint32_t conn_id, int dir, uint32_t xid)
{
	struct xentry *x = t->free;
	struct dtree keep;
	struct xnote *notes = NULL;
	uint32_t cap_notes = 0;

	if (x) {
		t->free = x->hnext;
		keep = x->tree;   /* reuse the -V buffer and the frame notes' */
		notes = x->notes;
		cap_notes = x->cap_notes;
	} else {
		x = malloc(sizeof(*x));
		if (!x)
			return NULL;
		dt_init(&keep, 0);
	}
	memset(x, 0, sizeof(*x));
	x->tree = keep;
	x->notes = notes;
	x->cap_notes = cap_notes;
	dt_reset(&x->tree);
	x->key = xid_key(conn_id, dir, xid);
	x->call_dir = dir;
	if (t->count >= t->nbuckets)
		xid_grow(t);
	size_t h = xid_hash(x->key, t->nbuckets);
	x->hnext = t->buckets[h];
	t->buckets[h] = x;
	x->older = t->newest;
	if (t->newest)
		t->newest->newer = x;
	else
		t->oldest = x;
	t->newest = x;
	t->count++;
	return x;
}

void xid_remove(struct xid_table *t, struct xentry *x)
{
	struct xentry **pp = &t->buckets[xid_hash(x->key, t->nbuckets)];

	while (*pp && *pp != x)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = x->hnext;
	if (x->older)
		x->older->newer = x->newer;
	else
		t->oldest = x->newer;
	if (x->newer)
		x->newer->older = x->older;
	else
		t->newest = x->older;
	t->count--;
	x->hnext = t->free;
	t->free = x;
}
