/* The replay's maps keyed by a handle (or any key up to a handle's size)
 * and an optional name: trace -> target handles, names, paths, stateids,
 * client and session IDs; and the keys the NFSv4 state builds for them.
 * Below the files that use them (handles, NFSv4 state, delegations): they
 * call none of those. */
#include "src/replay/replay_engine.h"

#include <stdlib.h>
#include <string.h>

#include "dissect/xdr.h"
#include "src/xprt/xdr_enc.h"

uint64_t fhmap_hash(const struct nfs_fh *fh, const char *name)
{
	uint64_t h = xdr_fh_hash(fh->data, fh->len);
	if (name)
		h ^= xdr_fh_hash((const uint8_t *)name, (uint32_t)strlen(name)) * 31;
	return h;
}

bool fhmap_fh_eq(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

struct fhent *fhmap_get(const struct fhmap *m, const struct nfs_fh *fh, const char *name)
{
	uint64_t h = fhmap_hash(fh, name);
	for (struct fhent *e = m->b[h & 4095]; e; e = e->next)
		if (e->h == h && fhmap_fh_eq(&e->key, fh) &&
		    ((!name && !e->name) || (name && e->name && !strcmp(name, e->name))))
			return e;
	return NULL;
}

/* Sets (or, with overwrite, replaces) an entry. */
void fhmap_put(struct fhmap *m, const struct nfs_fh *fh, const char *name,
		    const struct nfs_fh *val, bool overwrite)
{
	struct fhent *e = fhmap_get(m, fh, name);
	if (e) {
		if (overwrite)
			e->val = *val;
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->h = fhmap_hash(fh, name);
	e->key = *fh;
	e->val = *val;
	if (name && !(e->name = strdup(name))) {
		free(e);
		return;
	}
	e->next = m->b[e->h & 4095];
	m->b[e->h & 4095] = e;
	m->n++;
}

void fhmap_free(struct fhmap *m)
{
	for (size_t i = 0; i < 4096; i++)
		for (struct fhent *e = m->b[i], *n; e; e = n) {
			n = e->next;
			free(e->name);
			free(e);
		}
}

/* A client ID as a key or value of cidmap (8 bytes, big-endian). */
struct nfs_fh replay_cid_key(uint64_t id)
{
	struct nfs_fh k = { .len = 8 };
	xenc_put_u32_at(k.data, (uint32_t)(id >> 32));
	xenc_put_u32_at(k.data + 4, (uint32_t)id);
	return k;
}

/* A trace stateid's key in sidmap, delegmap, closedmap and recalledmap:
 * its "other" under the traced client holding it.  A stateid belongs to
 * one client ID, and "other" is the server's to form: knfsd puts the
 * client ID in it, a server numbering stateids per client need not, and
 * one host's v4.1 and v4.2 mounts are two clients.  Keyed by "other"
 * alone, one client's OPEN overwrote the other's mapping. */
struct nfs_fh replay_sid_key(const struct engine *e, const struct rclient *cl, const uint8_t other[12])
{
	struct nfs_fh k = { .len = 14 };
	uint16_t c = cl && e->cl ? (uint16_t)(cl - e->cl) : 0;
	k.data[0] = (uint8_t)(c >> 8);
	k.data[1] = (uint8_t)c;
	memcpy(k.data + 2, other, 12);
	return k;
}
