/* Trace handles and their target counterparts: the names the trace's
 * replies gave (child -> parent, name), and resolving a trace handle on
 * the target by its path (LOOKUPs from the root, read-only).  The maps
 * themselves are replay_fhmap.c's. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/xdr.h"
#include "src/base/log.h"
#include "src/clnt/nfs3.h"

/* Names of trace handles: child -> "name" stored as an entry keyed by the
 * child with the name in e->name and the parent in e->val. */
void replay_tpath_put(struct engine *e, const struct nfs_fh *parent, const char *name,
		      const struct nfs_fh *child)
{
	if (!strcmp(name, ".") || !strcmp(name, "..") || fhmap_fh_eq(parent, child))
		return;
	if (fhmap_get(&e->tparent, child, NULL))
		return;
	fhmap_put(&e->tparent, child, NULL, parent, false);
	/* tname: key child, name = name (one per child) */
	struct fhent *x = calloc(1, sizeof(*x));
	if (!x)
		return;
	x->h = fhmap_hash(child, NULL) ^ 0x9e3779b97f4a7c15ull;
	x->key = *child;
	x->name = strdup(name);
	if (!x->name) {
		free(x);
		return;
	}
	x->next = e->tname.b[x->h & 4095];
	e->tname.b[x->h & 4095] = x;
}

const char *replay_tpath_name(const struct engine *e, const struct nfs_fh *child)
{
	uint64_t h = fhmap_hash(child, NULL) ^ 0x9e3779b97f4a7c15ull;
	for (struct fhent *x = e->tname.b[h & 4095]; x; x = x->next)
		if (x->h == h && fhmap_fh_eq(&x->key, child))
			return x->name;
	return NULL;
}

void replay_rdp_entry(void *ctx, const char *name, const struct nfs_fh *fh)
{
	struct rdp_ctx *c = ctx;
	if (c->target)
		fhmap_put(&c->e->edges, c->dir, name, fh, true);
	else
		replay_tpath_put(c->e, c->dir, name, fh);
}

struct v4lk {
	const struct nfs_fh *dir;
	const char *name;
};

static unsigned v4_build_lookup(struct xenc *x, void *ctx)
{
	struct v4lk *a = ctx;
	if (a->dir)
		nfs4_enc_putfh(x, a->dir);
	else
		nfs4_enc_putrootfh(x);
	if (a->name)
		nfs4_enc_lookup(x, a->name);
	nfs4_enc_getfh(x);
	return a->name ? 3 : 2;
}

/* PUTFH dir (or PUTROOTFH), LOOKUP name, GETFH on the target. */
static int v4_target_lookup(struct engine *e, const struct nfs_fh *dir, const char *name,
			    struct nfs_fh *out)
{
	struct nfs4_res r;
	struct v4lk a = { dir, name };
	int ret;

	/* NFSv4.0 needs no client ID to look up */
	if (e->v4s->minor && (ret = replay_v4_session(e)) < 0)
		return ret;
	while ((ret = nfs41_call_sync(e->x, e->v4s, &e->cred, v4_build_lookup, &a, 1024, &r)) == -EAGAIN)
		if ((ret = xprt_poll(e->x, 100)) < 0)
			return ret;
	if (ret < 0)
		return ret;
	e->extra_lookups++;
	if (r.status || !r.nfh)
		return -ENOENT;
	*out = r.fh[0];
	if (dir && name)
		fhmap_put(&e->edges, dir, name, out, true);
	return 0;
}

/* Synchronous LOOKUP on the target (path resolution; read-only). */
static int target_lookup(struct engine *e, const struct nfs_fh *dir, const char *name,
			 struct nfs_fh *out)
{
	struct nfs_msg m;
	uint8_t rbuf[4096];
	size_t rlen;
	struct rpc_res res;

	/* as the call's own client speaks: a mixed trace has both */
	if (e->cur ? e->cur->v4 : e->v4)
		return v4_target_lookup(e, dir, name, out);
	if (nfs3_enc_lookup(&m, &e->cred, dir, name) < 0)
		return -EMSGSIZE;
	int ret = xprt_call_sync(e->x, &m.req, rbuf, sizeof(rbuf), &rlen, 15000);
	if (ret < 0)
		return ret;
	e->extra_lookups++;
	if (nfs3_decode_reply(NFS3P_LOOKUP, rbuf, rlen, false, &res, NULL, NULL) < 0 || res.rpc_status)
		return -EPROTO;
	if (res.status || !res.has_fh)
		return -ENOENT;
	*out = res.fh;
	fhmap_put(&e->edges, dir, name, out, true);
	return 0;
}

static unsigned v4_build_mkdir(struct xenc *x, void *ctx)
{
	struct v4lk *a = ctx;
	if (a->dir)
		nfs4_enc_putfh(x, a->dir);
	else
		nfs4_enc_putrootfh(x);
	nfs4_enc_create_dir(x, a->name, 0777);
	nfs4_enc_getfh(x);
	return 3;
}

/* MKDIR (NFSv4: CREATE of NF4DIR) name in dir on the target, mode 0777
 * (the trace's clients, whoever they were, work in it).  0, or a
 * negative errno; -EEXIST when it is there already. */
static int target_mkdir(struct engine *e, const struct nfs_fh *dir, const char *name,
			struct nfs_fh *out)
{
	int ret;
	if (e->cur ? e->cur->v4 : e->v4) {
		struct nfs4_res r;
		struct v4lk a = { dir, name };
		if (e->v4s->minor && (ret = replay_v4_session(e)) < 0)
			return ret;
		while ((ret = nfs41_call_sync(e->x, e->v4s, &e->cred, v4_build_mkdir, &a, 1024, &r)) == -EAGAIN)
			if ((ret = xprt_poll(e->x, 100)) < 0)
				return ret;
		if (ret < 0)
			return ret;
		if (r.status == 17)   /* NFS4ERR_EXIST */
			return -EEXIST;
		if (r.status || !r.nfh)
			return -EPROTO;
		*out = r.fh[0];
		return 0;
	}
	struct nfs_msg m;
	uint8_t rbuf[4096];
	size_t rlen;
	struct rpc_res res;
	if (nfs3_enc_mkdir(&m, &e->cred, dir, name, 0777) < 0)
		return -EMSGSIZE;
	if ((ret = xprt_call_sync(e->x, &m.req, rbuf, sizeof(rbuf), &rlen, 15000)) < 0)
		return ret;
	if (nfs3_decode_reply(NFS3P_MKDIR, rbuf, rlen, false, &res, NULL, NULL) < 0 || res.rpc_status)
		return -EPROTO;
	if (res.status == 17)    /* NFS3ERR_EXIST */
		return -EEXIST;
	if (res.status || !res.has_fh)
		return -EPROTO;
	*out = res.fh;
	return 0;
}

/* trace handle -> target handle.  0, or -ENOENT (no path / not on the
 * target), -EPERM (named by a refused call). */
int replay_resolve(struct engine *e, const struct nfs_fh *tfh, struct nfs_fh *out, int depth)
{
	struct fhent *m = fhmap_get(&e->tmap, tfh, NULL);
	if (m) {
		*out = m->val;
		return 0;
	}
	if (e->have_troot && fhmap_fh_eq(tfh, &e->troot)) {
		if (!e->have_root && e->v4) {
			uint64_t t = xprt_now_ns();
			int ret = v4_target_lookup(e, NULL, NULL, &e->root);
			replay_blocked(e, BLOCK_PATH, t);
			if (ret < 0)
				return ret;
			e->have_root = true;
		}
		*out = e->root;
		return 0;
	}
	struct fhent *p = fhmap_get(&e->tparent, tfh, NULL);
	const char *name = p ? replay_tpath_name(e, tfh) : NULL;
	if (p && name && depth < 64) {
		struct nfs_fh pdir, child;
		int ret = replay_resolve(e, &p->val, &pdir, depth + 1);
		if (ret < 0)
			return ret;
		struct fhent *ed = fhmap_get(&e->edges, &pdir, name);
		if (ed) {
			child = ed->val;
		} else {
			if (fhmap_get(&e->refused, tfh, NULL))
				return -EPERM;
			uint64_t t = xprt_now_ns();
			ret = target_lookup(e, &pdir, name, &child);
			replay_blocked(e, BLOCK_PATH, t);
			if (ret < 0)
				return ret;
		}
		fhmap_put(&e->tmap, tfh, NULL, &child, true);
		*out = child;
		return 0;
	}
	if (fhmap_get(&e->refused, tfh, NULL))
		return -EPERM;
	if (e->o->same_tree) {
		*out = *tfh;
		return 0;
	}
	return -ENOENT;
}

/* NFSv4.1+: the root's look-ups go on a client ID and session of their
 * own, gone before the trace's calls: the traced clients' own would
 * otherwise exist before their EXCHANGE_ID (RECLAIM_COMPLETE would be
 * COMPLETE_ALREADY, DESTROY_CLIENTID CLIENTID_BUSY). */
struct own_session {
	struct nfs41_session *saved, tmp;
	bool on;
};

static void own_session_begin(struct engine *e, struct own_session *os, const char *tag)
{
	os->saved = e->v4s;
	os->on = e->cur && e->cur->v4 && e->v4s->minor >= 1;
	if (os->on) {
		nfs41_session_init(&os->tmp, e->v4s->minor, tag);
		e->v4s = &os->tmp;
	}
}

static void own_session_end(struct engine *e, struct own_session *os)
{
	if (!os->on)
		return;
	if (os->tmp.have_session || os->tmp.have_client)
		nfs41_session_close(e->x, &os->tmp, &e->cred);
	e->v4s = os->saved;
	os->on = false;
}

/* From now on the trace's PUTROOTFH goes as PUTFH of fh. */
static void set_root(struct engine *e, const struct nfs_fh *fh)
{
	e->v4_root = *fh;
	e->have_v4_root = true;
	e->root = *fh;
	e->have_root = true;
	if (e->have_troot)
		fhmap_put(&e->tmap, &e->troot, NULL, fh, true);
}

int replay_export_root(struct engine *e)
{
	const char *path = e->o->export_path;
	struct own_session os;
	struct nfs_fh dir, fh;
	bool have = false;
	int ret = 0;

	if (!e->v4 || !path)
		return 0;
	own_session_begin(e, &os, "replay-export");
	for (const char *p = path; *p;) {
		char comp[256];
		size_t n = strcspn(p, "/");
		if (n >= sizeof(comp)) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (n && !(n == 1 && *p == '.')) {
			memcpy(comp, p, n);
			comp[n] = 0;
			if ((ret = target_lookup(e, have ? &dir : NULL, comp, &fh)) < 0)
				break;
			dir = fh;
			have = true;
		}
		p += n + (p[n] == '/');
	}
	own_session_end(e, &os);
	if (ret < 0) {
		log_error("replay: --export %s: not found below the target's NFSv4 pseudo-root (%s)", path,
			  strerror(-ret));
		return ret;
	}
	if (have) {
		set_root(e, &dir);
		log_info("replay: the trace's PUTROOTFH goes as PUTFH of %s on the target (--export)", path);
	}
	return 0;
}

int replay_group_root(struct engine *e)
{
	char name[32];
	struct nfs_fh dir = e->root, fh;
	struct own_session os;
	char tag[32];

	snprintf(name, sizeof(name), "replay-g%u", e->o->group);
	snprintf(tag, sizeof(tag), "replay-g%u-root", e->o->group);
	own_session_begin(e, &os, tag);
	const struct nfs_fh *in = e->have_root ? &dir : NULL;
	int ret = target_lookup(e, in, name, &fh);
	bool made = false;
	if (ret == -ENOENT && e->o->allow_mutations) {
		/* made here, as the trace's mutations will be */
		ret = target_mkdir(e, in, name, &fh);
		made = ret == 0;
		if (ret == -EEXIST)
			ret = target_lookup(e, in, name, &fh);
	} else if (ret == -ENOENT) {
		/* a capture that changes nothing (the groups' parent refuses
		 * the others without --allow-mutations): the groups cannot
		 * collide, and share the export's root */
		own_session_end(e, &os);
		log_info("replay: --clients: no directory %s in the target's export; group %u reads "
			 "from the export's root", name, e->o->group);
		return 0;
	}
	if (made)
		log_info("replay: --clients: made the directory %s in the target's export", name);
	if (made && e->o->result)
		e->o->result->made_dir = true;
	own_session_end(e, &os);
	if (ret < 0) {
		log_error("replay: --clients: no directory %s in the target's export, and none could be "
			  "made (%s); each group replays in its own one", name, strerror(-ret));
		return ret;
	}
	set_root(e, &fh);
	return 0;
}
