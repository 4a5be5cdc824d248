/* Ordering across clients, as resource-oriented replay does it (ROOT,
 * SOSP 2013): the objects a call touches are its file handles and its
 * (directory, name) pairs.  A call depends on the last earlier call of
 * another client that changed one of them, and a change also on the last
 * earlier call of another client that looked at one of them: it is held
 * until that call's reply is in.  Calls of one client, and calls of
 * clients that share nothing, keep their traced concurrency. */
#include "src/replay/replay_engine.h"

#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_vocab.h"
#include "src/clnt/nfs3.h"

#define DEP_KEYS 24

struct dep_key {
	struct nfs_fh fh;
	const char *name;    /* NULL: the handle itself */
};

struct dep_keys {
	struct dep_key k[DEP_KEYS];
	unsigned n;
};

static void key_add(struct dep_keys *ks, const struct nfs_fh *fh, const char *name)
{
	if (ks->n < DEP_KEYS)
		ks->k[ks->n++] = (struct dep_key){ *fh, name };
}

/* The last call (index + 1) to touch a key, and its client, kept in an
 * fhmap entry's value. */
struct dep_last {
	uint64_t idx1;
	uint32_t client;
};

static struct dep_last last_get(const struct fhmap *m, const struct dep_key *k)
{
	struct dep_last d = { 0, 0 };
	const struct fhent *ent = fhmap_get(m, &k->fh, k->name);
	if (ent)
		memcpy(&d, ent->val.data, sizeof(d));
	return d;
}

static void last_put(struct fhmap *m, const struct dep_key *k, size_t i, uint32_t client)
{
	struct dep_last d = { i + 1, client };
	struct nfs_fh v = { .len = sizeof(d) };
	memcpy(v.data, &d, sizeof(d));
	fhmap_put(m, &k->fh, k->name, &v, true);
}

/* NFSv4: every PUTFH handle (PUTROOTFH: the trace's root), and every name
 * paired with every one of them (a superset of the pairs the COMPOUND
 * touches: a dependency too many only costs concurrency). */
static void v4_keys(const struct engine *e, const struct tcall *tc, const struct nfs4_call_info *in,
		    struct v4_names *names, struct dep_keys *ks)
{
	unsigned nops = in->nops < NFS4_RES_MAXOPS ? in->nops : NFS4_RES_MAXOPS;
	struct nfs_fh dirs[4];
	unsigned nd = 0;

	for (unsigned k = 0; k < nops && nd < 4; k++) {
		if (in->op[k] == NFS4_OP_PUTROOTFH) {
			if (e->have_troot)
				dirs[nd++] = e->troot;
			else
				dirs[nd++] = (struct nfs_fh){ .len = 0 };
			continue;
		}
		if (in->op[k] != NFS4_OP_PUTFH || in->op_off[k] > tc->args_len)
			continue;
		struct cursor c = cur_make(tc->args + in->op_off[k], tc->args_len - in->op_off[k]);
		uint32_t n = 0;
		const uint8_t *p = cur_xdr_opaque(&c, NFS4_FHSIZE_MAX, &n, "nfs_fh4");
		if (!p)
			continue;
		dirs[nd].len = n;
		memcpy(dirs[nd].data, p, n);
		nd++;
	}
	replay_v4_names(tc, in, names);
	for (unsigned d = 0; d < nd; d++) {
		key_add(ks, &dirs[d], NULL);
		for (unsigned k = 0; k < names->n; k++)
			key_add(ks, &dirs[d], names->name[k]);
	}
}

/* What call i touches, and whether it changes it. */
static bool call_keys(const struct engine *e, size_t i, struct v4_names *names, struct dep_keys *ks)
{
	const struct tcall *tc = &e->t.calls[i];
	ks->n = 0;
	if (tc->prog == PROG_NFS && tc->vers == 4) {
		struct nfs4_call_info in;
		if (tc->proc != 1 || nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)
			return false;
		v4_keys(e, tc, &in, names, ks);
		return in.mutates;
	}
	struct layout l;
	if (!replay_nfs3_layout(tc, &l))
		return false;
	for (unsigned k = 0; k < l.nref; k++)
		key_add(ks, &l.ref[k].fh, NULL);
	if (l.nref && l.has_name)
		key_add(ks, &l.ref[0].fh, l.name);
	return tc->prog == PROG_NFSACL ? tc->proc == 2 : nfs3_is_mutation(tc->proc);
}

void replay_deps(struct engine *e)
{
	struct fhmap *lastw = calloc(1, sizeof(*lastw)), *lasta = calloc(1, sizeof(*lasta));
	struct v4_names *names = malloc(sizeof(*names));
	struct dep_keys *ks = malloc(sizeof(*ks));

	if (!lastw || !lasta || !names || !ks)
		goto out;
	for (size_t i = 0; i < e->t.n; i++) {
		uint32_t client = e->t.calls[i].client;
		bool mut = call_keys(e, i, names, ks);
		uint64_t dep = 0;
		for (unsigned k = 0; k < ks->n; k++) {
			struct dep_last w = last_get(lastw, &ks->k[k]);
			if (w.idx1 && w.client != client && w.idx1 > dep)
				dep = w.idx1;
			struct dep_last a = mut ? last_get(lasta, &ks->k[k]) : (struct dep_last){ 0, 0 };
			if (a.idx1 && a.client != client && a.idx1 > dep)
				dep = a.idx1;
		}
		for (unsigned k = 0; k < ks->n; k++) {
			if (mut)
				last_put(lastw, &ks->k[k], i, client);
			last_put(lasta, &ks->k[k], i, client);
		}
		e->ti[i].dep = dep;
		e->deps += dep != 0;
	}
out:
	if (lastw)
		fhmap_free(lastw);
	if (lasta)
		fhmap_free(lasta);
	free(lastw);
	free(lasta);
	free(names);
	free(ks);
}
