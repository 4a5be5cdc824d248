/* The replay engine: re-issues the calls of a capture against a live
 * server in their recorded order, with new XIDs, mapping the trace's file
 * handles to the target's.  See docs/replay.md.
 *
 * Handles: the trace's root (from its MOUNT reply, else the handle of its
 * first FSINFO) is the target's root (MOUNT of the same export).  Every
 * other trace handle is known by the results that named it (LOOKUP,
 * CREATE, MKDIR, SYMLINK, MKNOD, READDIRPLUS: parent handle + name).  A
 * trace handle maps to the target handle that the replayed call returned
 * in the same place; failing that, its path is resolved on the target by
 * LOOKUPs from the root (read-only).  --same-tree sends handles that have
 * no path in the trace unchanged.
 *
 * Ordering: calls go out in trace order; a call that changes the
 * namespace (everything mutating but WRITE and COMMIT) waits for every
 * earlier call and holds back later ones until its reply; a call whose
 * handle is not mapped yet waits until nothing is in flight (the call
 * that names it may still be).  Concurrency: at most as many calls in
 * flight as the trace had when it sent the call (or --max-inflight).
 * Timing: the trace's send times divided by --speed (0: no waiting).
 *
 * Safety: calls that change state are refused unless --allow-mutations;
 * the only address contacted is --target (MOUNT, portmapper, NFS). */
#include "src/out/out.h"
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/clnt/nfs4_session.h"
#include "src/replay/loadgen_hist.h"
#include "src/replay/replay.h"
#include "src/replay/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_status.h"
#include "dissect/xdr.h"
#include "src/base/log.h"

/* ---------------------------------------------------------- fh maps -- */

struct fhent {
	struct fhent *next;
	uint64_t h;
	struct nfs_fh key;
	char *name;           /* NULL for plain fh -> fh maps */
	struct nfs_fh val;
};

struct fhmap {
	struct fhent *b[4096];
	size_t n;
};

static uint64_t key_hash(const struct nfs_fh *fh, const char *name)
{
	uint64_t h = xdr_fh_hash(fh->data, fh->len);
	if (name)
		h ^= xdr_fh_hash((const uint8_t *)name, (uint32_t)strlen(name)) * 31;
	return h;
}

static bool fh_eq(const struct nfs_fh *a, const struct nfs_fh *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static struct fhent *map_get(const struct fhmap *m, const struct nfs_fh *fh, const char *name)
{
	uint64_t h = key_hash(fh, name);
	for (struct fhent *e = m->b[h & 4095]; e; e = e->next)
		if (e->h == h && fh_eq(&e->key, fh) &&
		    ((!name && !e->name) || (name && e->name && !strcmp(name, e->name))))
			return e;
	return NULL;
}

/* Sets (or, with overwrite, replaces) an entry. */
static void map_put(struct fhmap *m, const struct nfs_fh *fh, const char *name,
		    const struct nfs_fh *val, bool overwrite)
{
	struct fhent *e = map_get(m, fh, name);
	if (e) {
		if (overwrite)
			e->val = *val;
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->h = key_hash(fh, name);
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

static void map_free(struct fhmap *m)
{
	for (size_t i = 0; i < 4096; i++)
		for (struct fhent *e = m->b[i], *n; e; e = n) {
			n = e->next;
			free(e->name);
			free(e);
		}
}

/* trace handle -> (parent handle, name): kept in a map whose value is the
 * parent and whose name lives in a side map keyed by the child. */
struct tpath {
	struct fhmap parent;  /* child -> parent */
	struct fhmap names;   /* (child, name) -> child: to find the name, walk */
};

/* ---------------------------------------------------- argument layout -- */

#define MAXREFS 3
struct argref {
	uint32_t off, size;   /* the opaque<> (length word + bytes + pad) */
	struct nfs_fh fh;
};

struct layout {
	struct argref ref[MAXREFS];
	unsigned nref;
	bool has_name;
	char name[256];       /* first name argument */
	bool has_ddp;
	uint32_t ddp_at;      /* offset of the DDP opaque's length word */
	uint32_t ddp_len;
	uint32_t count;       /* READ/READDIR(PLUS) count, WRITE count */
};

static bool take_fh(struct cursor *c, struct layout *l)
{
	if (l->nref >= MAXREFS)
		return false;
	struct argref *r = &l->ref[l->nref];
	uint32_t n;
	r->off = (uint32_t)c->off;
	const uint8_t *p = cur_xdr_opaque(c, NFS3_FHSIZE_MAX, &n, "fh");
	if (!p)
		return false;
	r->size = (uint32_t)c->off - r->off;
	r->fh.len = n;
	memcpy(r->fh.data, p, n);
	l->nref++;
	return true;
}

static bool take_name(struct cursor *c, struct layout *l)
{
	uint32_t n;
	const uint8_t *p = cur_xdr_opaque(c, 1024, &n, "name");
	if (!p)
		return false;
	if (!l->has_name) {
		size_t k = n < sizeof(l->name) - 1 ? n : sizeof(l->name) - 1;
		memcpy(l->name, p, k);
		l->name[k] = 0;
		l->has_name = strlen(l->name) == k;
	}
	return true;
}

static void skip_sattr3(struct cursor *c)
{
	for (int i = 0; i < 4 && cur_ok(c); i++) {
		uint32_t set = cur_be32(c, "sattr3");
		if (set)
			cur_skip(c, i == 3 ? 8 : 4, "sattr3");
	}
	for (int i = 0; i < 2 && cur_ok(c); i++)
		if (cur_be32(c, "settime") == 2)
			cur_skip(c, 8, "nfstime3");
}

/* Where the handles are in a NFSv3 / NFSACLv3 call.  Returns false when
 * the arguments do not decode. */
static bool parse_layout(const struct tcall *tc, struct layout *l)
{
	struct cursor c = cur_make(tc->args, tc->args_len);
	memset(l, 0, sizeof(*l));
	if (tc->prog == PROG_NFSACL_)
		return tc->proc == 0 || take_fh(&c, l);
	switch (tc->proc) {
	case NFS3P_NULL:
		return true;
	case NFS3P_GETATTR: case NFS3P_READLINK: case NFS3P_FSSTAT: case NFS3P_FSINFO:
	case NFS3P_PATHCONF: case NFS3P_ACCESS: case NFS3P_SETATTR:
		return take_fh(&c, l);
	case NFS3P_READ: case NFS3P_COMMIT:
		if (!take_fh(&c, l))
			return false;
		cur_skip(&c, 8, "offset");
		l->count = cur_be32(&c, "count");
		return cur_ok(&c);
	case NFS3P_READDIR: case NFS3P_READDIRPLUS:
		if (!take_fh(&c, l))
			return false;
		cur_skip(&c, 16, "cookie+verf");
		l->count = cur_be32(&c, "count");
		if (tc->proc == NFS3P_READDIRPLUS)
			l->count = cur_be32(&c, "maxcount");
		return cur_ok(&c);
	case NFS3P_LOOKUP: case NFS3P_REMOVE: case NFS3P_RMDIR: case NFS3P_CREATE:
	case NFS3P_MKDIR: case NFS3P_MKNOD:
		return take_fh(&c, l) && take_name(&c, l);
	case NFS3P_SYMLINK:
		if (!take_fh(&c, l) || !take_name(&c, l))
			return false;
		skip_sattr3(&c);
		l->has_ddp = true;
		l->ddp_at = (uint32_t)c.off;
		l->ddp_len = cur_be32(&c, "symlink path length");
		return cur_ok(&c) && l->ddp_len <= 4096;
	case NFS3P_WRITE:
		if (!take_fh(&c, l))
			return false;
		cur_skip(&c, 8, "offset");
		l->count = cur_be32(&c, "count");
		cur_skip(&c, 4, "stable");
		l->has_ddp = true;
		l->ddp_at = (uint32_t)c.off;
		l->ddp_len = cur_be32(&c, "data length");
		return cur_ok(&c) && l->ddp_len <= (1u << 20);
	case NFS3P_RENAME:
		return take_fh(&c, l) && take_name(&c, l) && take_fh(&c, l) && take_name(&c, l);
	case NFS3P_LINK:
		return take_fh(&c, l) && take_fh(&c, l) && take_name(&c, l);
	default:
		return false;
	}
}

/* ------------------------------------------------------------- stats -- */

/* 0..21 NFSv3, 22..25 NFSACLv3, 26 NFSv4 (undecoded), 27 unused,
 * 28 NFSv4 NULL, 32 + op: NFSv4 COMPOUND by its main operation */
#define V4BASE 32
#define NOPS (V4BASE + NFS4_OP_REMOVEXATTR + 1)
static unsigned op_index(const struct tcall *tc)
{
	if (tc->prog == PROG_NFS_ && tc->vers == 3 && tc->proc < NFS3P_NPROCS)
		return tc->proc;
	if (tc->prog == PROG_NFSACL_ && tc->proc < 4)
		return 22 + tc->proc;
	if (tc->prog == PROG_NFS_ && tc->vers == 4 && tc->proc == 0)
		return 28;
	if (tc->prog == PROG_NFS_ && tc->vers == 4 && tc->v4known && tc->v4op <= NFS4_OP_REMOVEXATTR)
		return V4BASE + tc->v4op;
	return 26;
}

static const char *op_label(unsigned i)
{
	static const char *const acl[] = { "NFSACL NULL", "NFSACL GETACL", "NFSACL SETACL",
					   "NFSACL GETXATTRDIR" };
	static char v4[NOPS][32];
	if (i < NFS3P_NPROCS)
		return nfs3_clnt_proc_name(i);
	if (i >= 22 && i < 26)
		return acl[i - 22];
	if (i == 27)
		return "NFSv4.0 COMPOUND";
	if (i == 28)
		return "NFSv4 NULL";
	if (i >= V4BASE && i < NOPS) {
		if (!v4[i][0])
			snprintf(v4[i], sizeof(v4[i]), "v4 %s", nfs4_clnt_op_name(i - V4BASE));
		return v4[i];
	}
	return "NFSv4 COMPOUND";
}

struct opstat {
	uint64_t trace, replayed, refused, skipped, unsupported, ok, mismatch, errors, lost;
	uint64_t no_trace_reply, bytes;
	uint64_t dep_refused;   /* skipped or differing only because a mutation was refused */
	uint64_t no_deleg;      /* gave back a delegation the target never granted: not sent */
	uint64_t read_chunks, write_chunks, reply_chunks;
	struct lhist lat, tlat;
};

struct mismatch {
	uint32_t xid, op;
	uint64_t frame;
	uint32_t trpc, tstat, rpc, stat;
	int err;
};

/* --------------------------------------------------------- the engine -- */

struct rcall {
	struct engine *e;
	size_t idx;
	bool busy;
	struct xprt_req req;
	uint8_t *buf;         /* RPC call */
	uint8_t *data;        /* DDP data (owned) */
	struct nfs_fh tdir;   /* target dir of a naming call */
	bool has_tdir;
	int slot;             /* NFSv4.1 session slot (-1: none) */
	uint32_t seq;
	struct v40use *use;   /* NFSv4.0 owner seqids the call carries */
	unsigned nuse;
};

/* An NFSv4.0 open- or lock-owner seqid sent in a call (op idx): whether
 * it advances depends on that op's status in the reply. */
#define V40_MAXUSE 16
struct v40use {
	struct nfs40_owner *o;
	uint32_t idx, op, seqid;
	bool names_owner;
};

struct tinfo {
	bool has_child;
	struct nfs_fh child;  /* trace handle the call's reply named */
	bool refused_dep;     /* named by a call that was refused */
};

struct engine {
	const struct replay_opts *o;
	struct trace t;
	struct tinfo *ti;
	struct xprt *x;
	struct nfs_fh troot, root;
	bool have_troot;
	struct fhmap tmap;     /* trace fh -> target fh */
	struct fhmap tparent;  /* trace child -> trace parent */
	struct fhmap tname;    /* trace child -> (val unused), name holds the entry name: keyed (child, NULL)... */
	struct fhmap edges;    /* (target dir, name) -> target child */
	struct fhmap refused;  /* trace handles whose producer was refused */
	struct rcall *rc;
	uint32_t nrc;
	struct opstat op[NOPS];
	struct mismatch mm[32];
	unsigned nmm;
	uint64_t mm_total, lost, sent, extra_lookups, unmapped, not_sent;
	uint64_t bytes_read, bytes_written;
	bool barrier_pending;
	struct rpc_cred cred;
	FILE *out;
	/* NFSv4.1+ */
	bool v4;                 /* the trace has NFSv4.1+ COMPOUNDs */
	bool have_root;          /* e->root is the target's (MOUNT or PUTROOTFH) */
	struct nfs41_session v4s;
	struct fhmap sidmap;     /* trace stateid other (12) -> target other + seqids */
	struct fhmap delegmap;   /* trace delegation other (12) the target did not grant ->
				  * the trace's open stateid other (12) of the same OPEN */
	uint64_t delegs_granted, delegs_absent;
	struct fhmap closedmap;  /* trace open stateid other (12) a CLOSE the target
				  * answered OK gave back */
	uint64_t deleg_claims;   /* OPEN claims of absent delegations made plain */
	uint64_t deleg_anon;     /* I/O under an absent delegation whose open was
				  * closed: sent with the anonymous stateid */
	/* --delegations (4.1+): the back channel, and what the target granted
	 * and then recalled */
	struct nfs41_cb cb;
	struct nfs4_cb_location cbloc;
	struct nfs40_cbsrv *cbsrv;  /* 4.0: our callback server */
	struct fhmap grantmap;   /* target delegation other (12) -> the trace's
				  * delegation other + its OPEN's open stateid other (24) */
	struct fhmap recalledmap; /* trace delegation other (12) whose target
				   * counterpart was recalled and given back */
	struct nfs41_cb_recall recalls[8];
	unsigned nrecalls;
	bool returning;
	uint64_t deleg_returned, deleg_return_failed, recalls_dropped, cb_refused;
	/* The connection: --disconnect-after, and (4.1+ with a back channel)
	 * binding a new one to the session */
	bool drop_pending;
	uint64_t drops;
	uint64_t bound_reconnects;  /* the transport's reconnects when last bound */
	bool bind_wanted;
	uint64_t last_bind_ns;
	uint64_t conn_bound, conn_bind_failed, cb_path_down;
	uint32_t bind_dir;          /* what the target bound last (NFS4_CDFS4_*) */
	struct fhmap cidmap;     /* trace client ID (8) -> target's */
	struct fhmap sessmap;    /* trace session ID (16) -> target's */
	bool v4_refused;         /* a mutating COMPOUND was refused */
	int cur_slot;            /* slot taken while a COMPOUND is rewritten */
	uint32_t cur_seq;
	uint64_t v4_sessions;    /* sessions (4.0: client IDs) the replay opened itself */
	/* NFSv4.0 */
	struct nfs40_owners owners;
	struct v40use cur_use[V40_MAXUSE];
	unsigned cur_nuse;
	bool v40_confirm;        /* the target asked for an OPEN_CONFIRM not sent yet */
	struct nfs40_owner *v40_conf_owner;
	struct nfs4_stateid v40_conf_sid;   /* the target's open stateid */
	struct nfs_fh v40_conf_fh;
	bool v40_conf_have_tr;
	uint8_t v40_conf_tother[12];        /* the trace's stateid for it */
	uint64_t v40_confirms_added, v40_confirms_dropped, v40_renews, v40_seqid_errors;
};

/* Names of trace handles: child -> "name" stored as an entry keyed by the
 * child with the name in e->name and the parent in e->val. */
static void tpath_put(struct engine *e, const struct nfs_fh *parent, const char *name,
		      const struct nfs_fh *child)
{
	if (!strcmp(name, ".") || !strcmp(name, "..") || fh_eq(parent, child))
		return;
	if (map_get(&e->tparent, child, NULL))
		return;
	map_put(&e->tparent, child, NULL, parent, false);
	/* tname: key child, name = name (one per child) */
	struct fhent *x = calloc(1, sizeof(*x));
	if (!x)
		return;
	x->h = key_hash(child, NULL) ^ 0x9e3779b97f4a7c15ull;
	x->key = *child;
	x->name = strdup(name);
	if (!x->name) {
		free(x);
		return;
	}
	x->next = e->tname.b[x->h & 4095];
	e->tname.b[x->h & 4095] = x;
}

static const char *tpath_name(const struct engine *e, const struct nfs_fh *child)
{
	uint64_t h = key_hash(child, NULL) ^ 0x9e3779b97f4a7c15ull;
	for (struct fhent *x = e->tname.b[h & 4095]; x; x = x->next)
		if (x->h == h && fh_eq(&x->key, child))
			return x->name;
	return NULL;
}

struct rdp_ctx {
	struct engine *e;
	const struct nfs_fh *dir;
	bool target;
};

static void rdp_entry(void *ctx, const char *name, const struct nfs_fh *fh)
{
	struct rdp_ctx *c = ctx;
	if (c->target)
		map_put(&c->e->edges, c->dir, name, fh, true);
	else
		tpath_put(c->e, c->dir, name, fh);
}

/* The name an NFSv4 op gives the current filehandle's child: LOOKUP,
 * OPEN by name (CLAIM_NULL), CREATE.  False when it names none. */
static bool v4_op_name(const struct tcall *tc, uint32_t op, uint32_t off, char *name, size_t len)
{
	struct cursor c = cur_make(tc->args, tc->args_len);
	uint32_t n;
	const uint8_t *p = NULL;

	if (off > tc->args_len)
		return false;
	cur_skip(&c, off, "op");
	if (op == NFS4_OP_LOOKUP) {
		p = cur_xdr_opaque(&c, 1024, &n, "component");
	} else if (op == NFS4_OP_CREATE) {
		uint32_t type = cur_be32(&c, "type");
		if (type == 5)
			cur_xdr_opaque(&c, 4096, NULL, "linkdata");
		else if (type == 3 || type == 4)
			cur_skip(&c, 8, "specdata");
		p = cur_xdr_opaque(&c, 1024, &n, "component");
	} else if (op == NFS4_OP_OPEN) {
		cur_skip(&c, 12 + 8, "seqid share clientid");
		cur_xdr_opaque(&c, 1024, NULL, "owner");
		if (cur_be32(&c, "opentype") == 1) {
			uint32_t how = cur_be32(&c, "createmode");
			if (how == 2 || how == 3)
				cur_skip(&c, 8, "verf");
			if (how != 2) {
				uint32_t bn = cur_be32(&c, "bitmap");
				if (bn > 64)
					return false;
				cur_skip(&c, 4 * (size_t)bn, "bitmap");
				cur_xdr_opaque(&c, 1u << 20, NULL, "attrs");
			}
		}
		if (cur_be32(&c, "claim") != 0)
			return false;
		p = cur_xdr_opaque(&c, 1024, &n, "component");
	}
	if (!p || !n || n >= len || memchr(p, 0, n))
		return false;
	memcpy(name, p, n);
	name[n] = 0;
	return true;
}

/* Follows the current filehandle through a captured COMPOUND and its
 * reply: PUTROOTFH + GETFH names the trace's root; LOOKUP / OPEN /
 * CREATE + GETFH give (parent, name) -> child for path resolution. */
static void v4_trace_names(struct engine *e, size_t idx, const struct tcall *tc,
			   const struct nfs4_call_info *in, const struct nfs4_res *r)
{
	struct nfs_fh cur, saved, parent;
	bool have_cur = false, cur_root = false, have_saved = false, saved_root = false;
	bool pending = false;
	char name[256];
	unsigned n = in->nops < r->nres ? in->nops : r->nres;

	if (n > NFS4_RES_MAXOPS)
		n = NFS4_RES_MAXOPS;
	for (unsigned i = 0; i < n; i++) {
		uint32_t op = in->op[i];
		if (r->op[i] != op || r->opst[i] != 0)
			break;
		switch (op) {
		case NFS4_OP_PUTROOTFH:
			have_cur = pending = false;
			cur_root = true;
			break;
		case NFS4_OP_PUTFH: {
			struct cursor c = cur_make(tc->args, tc->args_len);
			uint32_t fl;
			cur_skip(&c, in->op_off[i], "op");
			const uint8_t *p = cur_xdr_opaque(&c, NFS4_FHSIZE_MAX, &fl, "fh");
			have_cur = p != NULL;
			if (p) {
				cur.len = fl;
				memcpy(cur.data, p, fl);
			}
			cur_root = pending = false;
			break;
		}
		case NFS4_OP_LOOKUP: case NFS4_OP_OPEN: case NFS4_OP_CREATE:
			if (v4_op_name(tc, op, in->op_off[i], name, sizeof(name))) {
				pending = have_cur;
				if (have_cur)
					parent = cur;
				have_cur = cur_root = false;
			}
			break;
		case NFS4_OP_LOOKUPP: case NFS4_OP_OPENATTR:
			have_cur = cur_root = pending = false;
			break;
		case NFS4_OP_SAVEFH:
			saved = cur;
			have_saved = have_cur;
			saved_root = cur_root;
			break;
		case NFS4_OP_RESTOREFH:
			cur = saved;
			have_cur = have_saved;
			cur_root = saved_root;
			pending = false;
			break;
		case NFS4_OP_GETFH:
			for (unsigned k = 0; k < r->nfh; k++) {
				if (r->fh_at[k] != i)
					continue;
				if (cur_root && !e->have_troot) {
					e->troot = r->fh[k];
					e->have_troot = true;
				}
				if (pending) {
					tpath_put(e, &parent, name, &r->fh[k]);
					if (!e->ti[idx].has_child) {
						e->ti[idx].has_child = true;
						e->ti[idx].child = r->fh[k];
					}
				}
				cur = r->fh[k];
				have_cur = true;
				pending = false;
			}
			break;
		default:
			break;
		}
	}
}

static void v4_prepass(struct engine *e, size_t i, struct tcall *tc)
{
	struct nfs4_call_info in;

	if (tc->proc != 1 || nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)
		return;
	tc->v4known = true;
	tc->v4minor = in.minor;
	if (in.main_op) {
		tc->v4op = in.main_opnum;
	} else {
		unsigned n = in.nops < NFS4_RES_MAXOPS ? in.nops : NFS4_RES_MAXOPS;
		tc->v4op = n ? in.op[n - 1] : 0;
		for (unsigned k = 0; k < n; k++)
			if (in.op[k] == NFS4_OP_GETATTR)
				tc->v4op = NFS4_OP_GETATTR;
	}
	e->v4 = true;
	if (!tc->res || tc->rpc_status != 0)
		return;
	struct nfs4_res r;
	memset(&r, 0, sizeof(r));
	nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &r);
	v4_trace_names(e, i, tc, &in, &r);
}

/* Learns the trace's names from its own replies (before replaying). */
static void prepass(struct engine *e)
{
	struct trace *t = &e->t;

	for (size_t i = 0; i < t->n; i++) {
		struct tcall *tc = &t->calls[i];
		/* recorded concurrency */
		uint32_t n = 1;
		for (size_t j = i, k = 0; j-- > 0 && k < 1024; k++) {
			const struct tcall *p = &t->calls[j];
			if (!p->replied || p->t_reply > tc->t_call)
				n++;
		}
		tc->inflight = n;
		if (tc->prog == PROG_NFS_ && tc->vers == 4)
			v4_prepass(e, i, tc);
		if (tc->prog != PROG_NFS_ || tc->vers != 3)
			continue;
		struct layout l;
		if (!parse_layout(tc, &l))
			continue;
		if (!e->have_troot && tc->proc == NFS3P_FSINFO && l.nref) {
			e->troot = l.ref[0].fh;
			e->have_troot = true;
		}
		if (!tc->res || !tc->has_status || tc->status != 0 || !l.nref)
			continue;
		struct rpc_res res = { 0 };
		struct rdp_ctx rc = { e, &l.ref[0].fh, false };
		nfs3_decode_body(tc->proc, tc->res, tc->res_len, tc->res_moved, &res,
				 tc->proc == NFS3P_READDIRPLUS ? rdp_entry : NULL, &rc);
		if (res.has_fh && l.has_name) {
			e->ti[i].has_child = true;
			e->ti[i].child = res.fh;
			tpath_put(e, &l.ref[0].fh, l.name, &res.fh);
		}
	}
	if (!e->have_troot) {
		for (size_t i = 0; i < t->n && !e->have_troot; i++) {
			struct layout l;
			if (t->calls[i].prog == PROG_NFS_ && t->calls[i].vers == 3 &&
			    parse_layout(&t->calls[i], &l) && l.nref &&
			    !map_get(&e->tparent, &l.ref[0].fh, NULL)) {
				e->troot = l.ref[0].fh;
				e->have_troot = true;
			}
		}
	}
}

static int wait_all(struct engine *e);

/* NFSv4.1: the replay's own session, opened when the trace needs one it
 * did not create (a capture that starts after CREATE_SESSION, or path
 * resolution before the trace's session exists). */
static int v4_ensure_session(struct engine *e)
{
	char err[256];
	if (e->v4s.have_session)
		return 0;
	int ret = nfs41_session_open(e->x, &e->v4s, &e->cred, e->nrc, err, sizeof(err));
	if (ret < 0) {
		log_error("replay: cannot open an NFSv4.%u session on %s: %s", e->v4s.minor,
			  e->o->target, err);
		return ret == -EPROTO ? -EPROTO : -ENOTCONN;
	}
	e->v4_sessions++;
	return 0;
}

/* NFSv4.0: the replay's own client ID (SETCLIENTID + CONFIRM), when the
 * trace uses one whose SETCLIENTID is not in the capture. */
static int v40_ensure_client(struct engine *e)
{
	char err[256];
	if (e->v4s.have_client)
		return 0;
	int ret = nfs40_client_open(e->x, &e->v4s, &e->cred, err, sizeof(err));
	if (ret < 0) {
		log_error("replay: cannot set up an NFSv4.0 client ID on %s: %s", e->o->target, err);
		return ret == -EPROTO ? -EPROTO : -ENOTCONN;
	}
	e->v4_sessions++;
	return 0;
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
	if (e->v4s.minor && (ret = v4_ensure_session(e)) < 0)
		return ret;
	while ((ret = nfs41_call_sync(e->x, &e->v4s, &e->cred, v4_build_lookup, &a, 1024, &r)) == -EAGAIN)
		if ((ret = xprt_poll(e->x, 100)) < 0)
			return ret;
	if (ret < 0)
		return ret;
	e->extra_lookups++;
	if (r.status || !r.nfh)
		return -ENOENT;
	*out = r.fh[0];
	if (dir && name)
		map_put(&e->edges, dir, name, out, true);
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

	if (e->v4)
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
	map_put(&e->edges, dir, name, out, true);
	return 0;
}

/* trace handle -> target handle.  0, or -ENOENT (no path / not on the
 * target), -EPERM (named by a refused call). */
static int resolve(struct engine *e, const struct nfs_fh *tfh, struct nfs_fh *out, int depth)
{
	struct fhent *m = map_get(&e->tmap, tfh, NULL);
	if (m) {
		*out = m->val;
		return 0;
	}
	if (e->have_troot && fh_eq(tfh, &e->troot)) {
		if (!e->have_root && e->v4) {
			int ret = v4_target_lookup(e, NULL, NULL, &e->root);
			if (ret < 0)
				return ret;
			e->have_root = true;
		}
		*out = e->root;
		return 0;
	}
	struct fhent *p = map_get(&e->tparent, tfh, NULL);
	const char *name = p ? tpath_name(e, tfh) : NULL;
	if (p && name && depth < 64) {
		struct nfs_fh pdir, child;
		int ret = resolve(e, &p->val, &pdir, depth + 1);
		if (ret < 0)
			return ret;
		struct fhent *ed = map_get(&e->edges, &pdir, name);
		if (ed) {
			child = ed->val;
		} else {
			if (map_get(&e->refused, tfh, NULL))
				return -EPERM;
			if ((ret = target_lookup(e, &pdir, name, &child)) < 0)
				return ret;
		}
		map_put(&e->tmap, tfh, NULL, &child, true);
		*out = child;
		return 0;
	}
	if (map_get(&e->refused, tfh, NULL))
		return -EPERM;
	if (e->o->same_tree) {
		*out = *tfh;
		return 0;
	}
	return -ENOENT;
}

static void note_mismatch(struct engine *e, const struct tcall *tc, uint32_t rpc, uint32_t st, int err)
{
	e->mm_total++;
	if (e->nmm >= sizeof(e->mm) / sizeof(e->mm[0]))
		return;
	struct mismatch *m = &e->mm[e->nmm++];
	m->xid = tc->xid;
	m->op = op_index(tc);
	m->frame = tc->frame;
	m->trpc = tc->rpc_status;
	m->tstat = tc->status;
	m->rpc = rpc;
	m->stat = st;
	m->err = err;
}

static void put_be32(uint8_t *p, uint32_t v) { xenc_put_u32_at(p, v); }

/* A client ID as a key or value of cidmap (8 bytes, big-endian). */
static struct nfs_fh cid_key(uint64_t id)
{
	struct nfs_fh k = { .len = 8 };
	xenc_put_u32_at(k.data, (uint32_t)(id >> 32));
	xenc_put_u32_at(k.data + 4, (uint32_t)id);
	return k;
}

/* The trace's client ID t is the target's g (EXCHANGE_ID, SETCLIENTID). */
static void cid_map(struct engine *e, uint64_t t, uint64_t g)
{
	struct nfs_fh key = cid_key(t), val = cid_key(g);
	map_put(&e->cidmap, &key, NULL, &val, true);
}

/* The replay's reply to a COMPOUND names handles, stateids, the client
 * and the session where the trace's reply named the trace's: map them. */
static void v4_learn(struct engine *e, const struct nfs4_res *rr, const struct nfs4_res *tr)
{
	for (unsigned k = 0; k < rr->nfh; k++)
		for (unsigned j = 0; tr && j < tr->nfh; j++) {
			if (tr->fh_at[j] != rr->fh_at[k])
				continue;
			map_put(&e->tmap, &tr->fh[j], NULL, &rr->fh[k], true);
			if (e->have_troot && fh_eq(&tr->fh[j], &e->troot)) {
				e->root = rr->fh[k];
				e->have_root = true;
			}
		}
	for (unsigned k = 0; k < rr->nsid; k++)
		for (unsigned j = 0; tr && j < tr->nsid; j++) {
			if (tr->sid_at[j] != rr->sid_at[k])
				continue;
			struct nfs_fh key = { .len = 12 }, val = { .len = 20 };
			memcpy(key.data, tr->sid[j].other, 12);
			memcpy(val.data, rr->sid[k].other, 12);
			put_be32(val.data + 12, tr->sid[j].seqid);
			put_be32(val.data + 16, rr->sid[k].seqid);
			map_put(&e->sidmap, &key, NULL, &val, true);
		}
	/* The trace's delegations: the target's own (mapped like any
	 * stateid), or, when the target granted none (the replay serves no
	 * callbacks), the open stateid of the same OPEN stands for it. */
	struct nfs4_deleg_pair dp[NFS4_RES_MAXSID];
	unsigned ndp = tr ? nfs4_deleg_pairs(tr, rr, dp, NFS4_RES_MAXSID) : 0;
	for (unsigned k = 0; k < ndp; k++) {
		struct nfs_fh key = { .len = 12 }, val = { .len = 20 };
		memcpy(key.data, dp[k].tdeleg.other, 12);
		if (dp[k].granted) {
			memcpy(val.data, dp[k].g.other, 12);
			put_be32(val.data + 12, dp[k].tdeleg.seqid);
			put_be32(val.data + 16, dp[k].g.seqid);
			map_put(&e->sidmap, &key, NULL, &val, true);
			/* for a recall: which trace delegation this one is */
			struct nfs_fh gkey = { .len = 12 }, gval = { .len = 24 };
			memcpy(gkey.data, dp[k].g.other, 12);
			memcpy(gval.data, dp[k].tdeleg.other, 12);
			memcpy(gval.data + 12, dp[k].topen.other, 12);
			map_put(&e->grantmap, &gkey, NULL, &gval, true);
			e->delegs_granted++;
		} else {
			val.len = 12;
			memcpy(val.data, dp[k].topen.other, 12);
			map_put(&e->delegmap, &key, NULL, &val, true);
			e->delegs_absent++;
		}
	}
	if (rr->has_clientid && rr->status == 0) {
		e->v4s.have_client = true;
		e->v4s.clientid = rr->clientid;
		e->v4s.cs_seq = rr->eir_seq;
		if (tr && tr->has_clientid) {
			cid_map(e, tr->clientid, rr->clientid);
		}
	}
	if (rr->has_session && rr->status == 0) {
		struct nfs41_session *s = &e->v4s;
		memcpy(s->sessionid, rr->sessionid, 16);
		s->nslots = rr->fore_maxreqs < e->nrc ? rr->fore_maxreqs : e->nrc;
		if (s->nslots > NFS41_MAX_SLOTS)
			s->nslots = NFS41_MAX_SLOTS;
		if (!s->nslots)
			s->nslots = 1;
		s->maxreq = rr->fore_maxreq;
		s->maxresp = rr->fore_maxresp;
		memset(s->slot_seq, 0, sizeof(s->slot_seq));
		memset(s->slot_busy, 0, sizeof(s->slot_busy));
		memset(s->slot_dead, 0, sizeof(s->slot_dead));
		s->have_session = true;
		s->cs_seq++;
		if (tr && tr->has_session) {
			struct nfs_fh key = { .len = 16 }, val = { .len = 16 };
			memcpy(key.data, tr->sessionid, 16);
			memcpy(val.data, rr->sessionid, 16);
			map_put(&e->sessmap, &key, NULL, &val, true);
		}
	}
	/* NFSv4.0: SETCLIENTID gives the client ID and the confirm verifier;
	 * the client is ours once SETCLIENTID_CONFIRM succeeds */
	if (rr->has_setclientid && rr->status == 0) {
		e->v4s.clientid = rr->sc_clientid;
		memcpy(e->v4s.confirm, rr->sc_confirm, 8);
		if (tr && tr->has_setclientid) {
			cid_map(e, tr->sc_clientid, rr->sc_clientid);
		}
	}
	if (rr->has_lease && rr->lease_time)
		e->v4s.lease_s = rr->lease_time;
	unsigned n = rr->nres < NFS4_RES_MAXOPS ? rr->nres : NFS4_RES_MAXOPS;
	for (unsigned k = 0; k < n; k++) {
		if (rr->opst[k] != 0)
			break;
		if (rr->op[k] == NFS4_OP_DESTROY_SESSION)
			e->v4s.have_session = false;
		if (rr->op[k] == NFS4_OP_DESTROY_CLIENTID)
			e->v4s.have_client = false;
		if (rr->op[k] == NFS4_OP_SETCLIENTID_CONFIRM || rr->op[k] == NFS4_OP_RENEW) {
			e->v4s.have_client = true;
			e->v4s.last_renew_ns = xprt_now_ns();
		}
	}
}

/* The sidmap entry of a trace stateid: the target's now has seqid gseq. */
static void sid_update(struct engine *e, const uint8_t tother[12], const struct nfs4_stateid *g)
{
	struct nfs_fh key = { .len = 12 };
	memcpy(key.data, tother, 12);
	struct fhent *m = map_get(&e->sidmap, &key, NULL);
	if (m && memcmp(m->val.data, g->other, 12) == 0)
		put_be32(m->val.data + 16, g->seqid);
}

/* NFSv4.0, after a reply: the owners' seqids advance as RFC 7530 9.1.7
 * says (ops that ran, on success and most errors); the trace's new
 * stateids are bound to their owners; an OPEN the target wants confirmed
 * is remembered (confirmed before the next call, unless that call is the
 * trace's own OPEN_CONFIRM). */
static void v40_after(struct engine *e, struct rcall *rc, const struct nfs4_res *rr,
		      const struct nfs4_res *tr)
{
	for (unsigned k = 0; k < rc->nuse; k++) {
		const struct v40use *u = &rc->use[k];
		bool ran = u->idx < rr->nres && u->idx < NFS4_RES_MAXOPS && rr->op[u->idx] == u->op;
		if (ran && nfs40_seqid_advances(rr->opst[u->idx]))
			u->o->seqid = u->seqid + 1;
		else if (ran)
			e->v40_seqid_errors++;
		if (u->op == NFS4_OP_OPEN_CONFIRM && ran)
			e->v40_confirm = false;   /* the trace's own confirmed it */
		if (!u->names_owner || !tr)
			continue;
		for (unsigned j = 0; j < tr->nsid; j++)
			if (tr->sid_at[j] == u->idx)
				nfs40_owner_bind(&e->owners, tr->sid[j].other, u->o);
		if (u->op == NFS4_OP_OPEN && ran && rr->opst[u->idx] == 0 && rr->has_open &&
		    rr->open_at == u->idx && (rr->open_rflags & NFS4_OPEN_RESULT_CONFIRM)) {
			/* the handle: the GETFH after the OPEN */
			bool fh = false, sid = false;
			for (unsigned j = 0; j < rr->nfh && !fh; j++)
				if (rr->fh_at[j] > u->idx) {
					e->v40_conf_fh = rr->fh[j];
					fh = true;
				}
			for (unsigned j = 0; j < rr->nsid && !sid; j++)
				if (rr->sid_at[j] == u->idx) {
					e->v40_conf_sid = rr->sid[j];
					sid = true;
				}
			e->v40_conf_have_tr = false;
			for (unsigned j = 0; tr && j < tr->nsid; j++)
				if (tr->sid_at[j] == u->idx) {
					memcpy(e->v40_conf_tother, tr->sid[j].other, 12);
					e->v40_conf_have_tr = true;
				}
			e->v40_confirm = fh && sid;
			e->v40_conf_owner = u->o;
			if (!fh)
				log_warn("replay: the target asks to confirm an OPEN whose COMPOUND has no GETFH");
		}
	}
}

/* Sends the OPEN_CONFIRM the target asked for and the trace did not have
 * (its client's open-owner was already confirmed there). */
static int v40_confirm_now(struct engine *e)
{
	struct nfs4_res r;
	struct nfs40_owner *o = e->v40_conf_owner;
	e->v40_confirm = false;
	int ret = nfs40_open_confirm(e->x, &e->v4s, &e->cred, &e->v40_conf_fh, &e->v40_conf_sid,
				     o->seqid, &r);
	if (ret < 0)
		return ret == -EPROTO ? 0 : -ENOTCONN;
	e->v40_confirms_added++;
	bool ran = r.nres >= 2 && r.op[1] == NFS4_OP_OPEN_CONFIRM;
	if (ran && nfs40_seqid_advances(r.opst[1]))
		o->seqid++;
	if (r.status) {
		log_warn("replay: OPEN_CONFIRM added for the target: %s", nfs_stat_name(r.status));
		return 0;
	}
	if (r.nsid && e->v40_conf_have_tr)
		sid_update(e, e->v40_conf_tother, &r.sid[0]);
	return 0;
}

/* Same status: the COMPOUND's and every op's, as far as both went. */
static bool v4_same(const struct nfs4_res *rr, const struct nfs4_res *tr, uint32_t tstatus)
{
	if (rr->status != tstatus)
		return false;
	if (!tr || !tr->has_status)
		return true;
	if (rr->nres != tr->nres)
		return false;
	unsigned n = rr->nres < NFS4_RES_MAXOPS ? rr->nres : NFS4_RES_MAXOPS;
	for (unsigned k = 0; k < n; k++)
		if (rr->op[k] != tr->op[k] || rr->opst[k] != tr->opst[k])
			return false;
	return true;
}

/* A call with no usable reply: lost in flight (the connection dropped) or
 * failed (RDMA_ERROR, undecodable): counted, noted, said with -v. */
static void count_failed(struct engine *e, const struct tcall *tc, struct opstat *os,
			 const struct xprt_reply *rep)
{
	if (rep->err == -EPIPE) {
		os->lost++;
		e->lost++;
	} else {
		os->errors++;
		note_mismatch(e, tc, rep->rdma_err ? 200 + rep->rdma_err : REPLAY_UNDECODED, 0, rep->err);
	}
	if (e->o->verbose)
		fprintf(e->out, "  xid 0x%08x %s: %s\n", tc->xid, op_label(op_index(tc)),
			rep->err == -EPIPE ? "lost in flight" : strerror(-rep->err));
}

/* The open stateids the target's reply says were closed (CLOSE answered
 * OK): a trace delegation standing for one of them can no longer be. */
static void v4_note_closes(struct engine *e, const struct tcall *tc, const struct nfs4_res *rr)
{
	struct nfs4_call_info in;
	if (tc->proc != 1 || nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)
		return;
	for (unsigned k = 0; k < in.nclosed; k++) {
		uint32_t at = in.closed_at[k];
		if (at >= rr->nres || at >= NFS4_RES_MAXOPS || rr->op[at] != NFS4_OP_CLOSE || rr->opst[at])
			continue;
		struct nfs_fh key = { .len = 12 };
		memcpy(key.data, in.closed[k].other, 12);
		map_put(&e->closedmap, &key, NULL, &key, true);
	}
}

static void v4_done(struct rcall *rc, struct xprt_req *req, const struct xprt_reply *rep)
{
	struct engine *e = rc->e;
	struct tcall *tc = &e->t.calls[rc->idx];
	struct opstat *os = &e->op[op_index(tc)];
	static struct nfs4_res rr, tr;
	bool have_tr = false;

	if (rep->err) {
		nfs41_slot_put(&e->v4s, rc->slot, rc->seq, false, rep->err == -EPIPE);
		count_failed(e, tc, os, rep);
		return;
	}
	lhist_add(&os->lat, rep->t_done_ns - req->t_submit_ns);
	if (nfs4_decode_reply(tc->proc, rep->msg, rep->len, rep->bulk_moved, &rr) < 0) {
		nfs41_slot_put(&e->v4s, rc->slot, rc->seq, false, false);
		os->errors++;
		note_mismatch(e, tc, REPLAY_UNDECODED, 0, -EBADMSG);
		return;
	}
	nfs41_slot_put(&e->v4s, rc->slot, rc->seq, rr.has_seq && rr.seq_status == 0, false);
	if (e->v4s.back_channel && rr.has_seq && rr.seq_status == 0 &&
	    (rr.seq_flags & (NFS4_SEQ4_STATUS_CB_PATH_DOWN | NFS4_SEQ4_STATUS_CB_PATH_DOWN_SESSION |
			     NFS4_SEQ4_STATUS_BACKCHANNEL_FAULT))) {
		/* the target cannot call back: it would recall in vain */
		e->cb_path_down++;
		e->bind_wanted = true;
	}
	if (tc->res && tc->rpc_status == 0 && tc->proc == 1) {
		memset(&tr, 0, sizeof(tr));
		nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &tr);
		have_tr = true;
	}
	if (rr.rpc_status == 0) {
		v4_learn(e, &rr, have_tr ? &tr : NULL);
		if (e->delegmap.n)
			v4_note_closes(e, tc, &rr);
		if (rc->nuse)
			v40_after(e, rc, &rr, have_tr ? &tr : NULL);
	}
	uint64_t rd = xprt_reply_read_bytes(rep, rr.read_count);
	os->bytes += rd + rr.write_count;
	e->bytes_read += rd;
	e->bytes_written += rr.write_count;
	if (!tc->replied || tc->rpc_status == REPLAY_UNDECODED) {
		os->no_trace_reply++;
		return;
	}
	bool same = rr.rpc_status == tc->rpc_status &&
		    (rr.rpc_status != 0 || !tc->has_status ||
		     v4_same(&rr, have_tr ? &tr : NULL, tc->status));
	if (same)
		os->ok++;
	else if (e->v4_refused && !e->o->allow_mutations)
		os->dep_refused++;   /* e.g. OPEN of a file whose CREATE was refused */
	else {
		os->mismatch++;
		note_mismatch(e, tc, rr.rpc_status, rr.status, 0);
	}
	if (e->o->verbose)
		fprintf(e->out, "  xid 0x%08x -> 0x%08x %-16s trace %s replay %s%s\n", tc->xid, req->xid,
			op_label(op_index(tc)), nfs_stat_name(tc->status), nfs_stat_name(rr.status),
			same ? "" : "  MISMATCH");
}

static void replay_done(struct xprt_req *req, const struct xprt_reply *rep)
{
	struct rcall *rc = req->ctx;
	struct engine *e = rc->e;
	struct tcall *tc = &e->t.calls[rc->idx];
	struct opstat *os = &e->op[op_index(tc)];

	rc->busy = false;
	free(rc->data);
	rc->data = NULL;
	if (e->o->disconnect && !e->drops && !rep->err && tc->xid == e->o->disconnect_xid)
		e->drop_pending = true;  /* not here: the transport is inside its poll */
	if (tc->prog == PROG_NFS_ && tc->vers == 4) {
		v4_done(rc, req, rep);
		return;
	}
	if (rep->err) {
		count_failed(e, tc, os, rep);
		return;
	}
	lhist_add(&os->lat, rep->t_done_ns - req->t_submit_ns);
	struct rpc_res res = { 0 };
	int dret;
	if (tc->prog == PROG_NFS_ && tc->vers == 3) {
		struct rdp_ctx c = { e, &rc->tdir, true };
		dret = nfs3_decode_reply(tc->proc, rep->msg, rep->len, rep->bulk_moved, &res,
					 tc->proc == NFS3P_READDIRPLUS && rc->has_tdir ? rdp_entry : NULL, &c);
	} else {
		size_t off;
		dret = rpc_decode_reply_hdr(rep->msg, rep->len, &res, &off);
		if (dret == 0 && res.rpc_status == 0) {
			struct cursor cc = cur_make(rep->msg + off, rep->len - off);
			res.status = cur_be32(&cc, "status");
			res.has_status = cur_ok(&cc) || tc->proc == 0;
			if (tc->proc == 0)
				res.status = 0;
		}
	}
	if (dret < 0 && !res.ok) {
		os->errors++;
		note_mismatch(e, tc, REPLAY_UNDECODED, 0, -EBADMSG);
		return;
	}
	if (tc->proc == NFS3P_READ && tc->prog == PROG_NFS_) {
		uint64_t rd = xprt_reply_read_bytes(rep, res.count);
		os->bytes += rd;
		e->bytes_read += rd;
	} else if (tc->proc == NFS3P_WRITE && tc->prog == PROG_NFS_) {
		os->bytes += res.count;
		e->bytes_written += res.count;
	}
	/* learn the mapping from what the reply named */
	if (res.has_fh && rc->has_tdir) {
		const struct tinfo *ti = &e->ti[rc->idx];
		struct layout l;
		if (ti->has_child)
			map_put(&e->tmap, &ti->child, NULL, &res.fh, true);
		if (parse_layout(tc, &l) && l.has_name)
			map_put(&e->edges, &rc->tdir, l.name, &res.fh, true);
	}
	if (!tc->replied || tc->rpc_status == REPLAY_UNDECODED) {
		os->no_trace_reply++;
		return;
	}
	uint32_t st = res.has_status ? res.status : 0;
	bool same = res.rpc_status == tc->rpc_status &&
		    (res.rpc_status != 0 || !tc->has_status || st == tc->status);
	if (same) {
		os->ok++;
	} else if (e->ti[rc->idx].has_child && !e->o->allow_mutations &&
		   map_get(&e->refused, &e->ti[rc->idx].child, NULL)) {
		/* e.g. LOOKUP of a name whose CREATE was refused: NOENT here */
		os->dep_refused++;
	} else {
		os->mismatch++;
		note_mismatch(e, tc, res.rpc_status, st, 0);
	}
	if (e->o->verbose)
		fprintf(e->out, "  xid 0x%08x -> 0x%08x %-12s trace %s replay %s%s\n", tc->xid, req->xid,
			op_label(op_index(tc)), nfs_stat_name(tc->status), nfs_stat_name(st),
			same ? "" : "  MISMATCH");
}

/* A CB_RECALL came in (called inside the transport's poll: it only
 * queues; v4_return_recalled sends the DELEGRETURN). */
static void v4_recalled(void *ctx, const struct nfs41_cb_recall *r)
{
	struct engine *e = ctx;
	if (e->nrecalls >= sizeof(e->recalls) / sizeof(e->recalls[0])) {
		e->recalls_dropped++;
		log_warn("replay: more recalls at once than queued; one is not given back");
		return;
	}
	e->recalls[e->nrecalls++] = *r;
}

static unsigned b_delegreturn(struct xenc *x, void *ctx)
{
	const struct nfs41_cb_recall *r = ctx;
	nfs4_enc_putfh(x, &r->fh);
	xenc_u32(x, NFS4_OP_DELEGRETURN);
	xenc_u32(x, r->sid.seqid);
	xenc_fixed(x, r->sid.other, 12);
	return 2;
}

/* Gives back what the target recalled (DELEGRETURN: a call of the
 * replay's own, not in the trace), and from then on lets the trace's
 * delegation stand for what one the target never granted does. */
static int v4_return_recalled(struct engine *e)
{
	int ret = 0;
	if (e->returning)
		return 0;
	e->returning = true;
	while (e->nrecalls && ret == 0) {
		struct nfs41_cb_recall r = e->recalls[0];
		memmove(e->recalls, e->recalls + 1, --e->nrecalls * sizeof(r));
		struct nfs4_res res;
		memset(&res, 0, sizeof(res));
		while ((ret = nfs41_call_sync(e->x, &e->v4s, &e->cred, b_delegreturn, &r, 1024, &res)) == -EAGAIN)
			if ((ret = xprt_poll(e->x, 100)) < 0)
				break;
		if (ret < 0) {
			e->deleg_return_failed++;
			log_warn("replay: DELEGRETURN of a recalled delegation: %s", strerror(-ret));
			ret = ret == -EPROTO ? 0 : -ENOTCONN;
		} else if (res.status) {
			e->deleg_return_failed++;
			log_warn("replay: DELEGRETURN of a recalled delegation: %s", nfs_stat_name(res.status));
		} else {
			e->deleg_returned++;
		}
		struct nfs_fh gkey = { .len = 12 };
		memcpy(gkey.data, r.sid.other, 12);
		struct fhent *g = map_get(&e->grantmap, &gkey, NULL);
		if (g) {
			struct nfs_fh tk = { .len = 12 }, tv = { .len = 12 };
			memcpy(tk.data, g->val.data, 12);
			memcpy(tv.data, g->val.data + 12, 12);
			map_put(&e->recalledmap, &tk, NULL, &tk, true);
			map_put(&e->delegmap, &tk, NULL, &tv, true);
		}
	}
	e->returning = false;
	return ret;
}

/* A new connection carries the fore channel once a SEQUENCE comes on it
 * (SP4_NONE, RFC 8881 2.10.5.1), but callbacks only once it is bound to
 * the back channel: until then the target has no way to recall.  After a
 * reconnect, and when SEQUENCE says the callback path is down (at most
 * once a second: the target may take a while to bring it up). */
static void v4_bind_conn(struct engine *e)
{
	if (e->x->st.reconnects != e->bound_reconnects) {
		e->bound_reconnects = e->x->st.reconnects;
		e->bind_wanted = true;
		e->last_bind_ns = 0;
	}
	if (!e->bind_wanted)
		return;  /* every poll comes here: no clock read unless a bind is due */
	uint64_t now = xprt_now_ns();
	if (e->last_bind_ns && now - e->last_bind_ns < 1000000000ull)
		return;
	e->bind_wanted = false;
	e->last_bind_ns = now;
	uint32_t dir = 0;
	int ret = nfs41_bind_conn(e->x, &e->v4s, &e->cred, &dir);
	if (ret == 0) {
		e->conn_bound++;
		e->bind_dir = dir;
		log_info("nfs4.%u: connection bound to the session (%s)", e->v4s.minor,
			 dir == NFS4_CDFS4_BOTH ? "fore and back channels" :
			 dir == NFS4_CDFS4_BACK ? "back channel" : "fore channel only");
		if (dir != NFS4_CDFS4_BOTH && dir != NFS4_CDFS4_BACK)
			log_warn("replay: the target did not bind the new connection to the back "
				 "channel: it cannot recall delegations");
	} else {
		e->conn_bind_failed++;
		if (ret > 0)
			log_warn("replay: BIND_CONN_TO_SESSION: %s", nfs_stat_name((uint32_t)ret));
		else
			log_warn("replay: BIND_CONN_TO_SESSION: %s", strerror(-ret));
	}
}

static int poll_once(struct engine *e, int ms)
{
	int n = xprt_poll(e->x, ms);
	if (n < 0)
		return n;
	if (e->drop_pending) {
		e->drop_pending = false;
		e->drops++;
		log_warn("replay: dropping the connection after xid 0x%08x (--disconnect-after)",
			 e->o->disconnect_xid);
		xprt_drop(e->x, "dropped on request");
	}
	if (e->v4s.back_channel && e->v4s.have_session && !e->returning)
		v4_bind_conn(e);
	if (e->cbsrv && !e->returning) {
		unsigned room = (unsigned)(sizeof(e->recalls) / sizeof(e->recalls[0])) - e->nrecalls;
		e->nrecalls += nfs40_cbsrv_take(e->cbsrv, e->recalls + e->nrecalls, room);
	}
	return e->nrecalls ? v4_return_recalled(e) : 0;
}

static int wait_all(struct engine *e)
{
	while (xprt_inflight(e->x)) {
		int ret = poll_once(e, 100);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static struct rcall *free_rcall(struct engine *e)
{
	for (uint32_t i = 0; i < e->nrc; i++)
		if (!e->rc[i].busy)
			return &e->rc[i];
	return NULL;
}

/* NFSv4.0: a RENEW when half the lease has gone by since the last one
 * (or the client's confirmation): the replay's client ID would otherwise
 * lapse during a long wait (--speed below 1, long gaps in the trace). */
static int v40_keep_lease(struct engine *e)
{
	struct nfs41_session *s = &e->v4s;
	uint32_t lease = s->lease_s ? s->lease_s : 90;   /* knfsd's default */
	if (s->minor != 0 || !s->have_client ||
	    xprt_now_ns() - s->last_renew_ns < (uint64_t)lease * 500000000ull)
		return 0;
	uint32_t st;
	int ret = nfs40_renew(e->x, s, &e->cred, &st);
	e->v40_renews++;
	if (ret == -EPROTO) {
		log_warn("replay: RENEW: %s", nfs_stat_name(st));
		s->last_renew_ns = xprt_now_ns();
		return 0;
	}
	return ret < 0 ? -ENOTCONN : 0;
}

/* Waits until the call's recorded send time (scaled by --speed). */
static int pace(struct engine *e, const struct tcall *tc, uint64_t t0_trace, uint64_t t0)
{
	int ret;
	if (e->o->speed > 0 && tc->t_call > t0_trace) {
		uint64_t at = t0 + (uint64_t)((double)(tc->t_call - t0_trace) / e->o->speed);
		for (uint64_t now; (now = xprt_now_ns()) < at;) {
			if ((ret = v40_keep_lease(e)) < 0)
				return ret;
			uint64_t ms = (at - now) / 1000000ull;
			if ((ret = poll_once(e, ms > 100 ? 100 : (int)ms)) < 0)
				return ret;
			if (ms == 0)
				break;
		}
	}
	return 0;
}

/* ---- NFSv4.1+: the rewrite callbacks (nfs4_rewrite.h) ---- */

static int rw_sequence(void *ctx, struct xenc *x, const uint8_t tsid[16], bool cachethis)
{
	struct engine *e = ctx;
	struct nfs_fh key = { .len = 16 };
	memcpy(key.data, tsid, 16);
	struct fhent *m = map_get(&e->sessmap, &key, NULL);
	if (!m || !e->v4s.have_session) {
		/* a session the trace made before the capture began, or
		 * one whose CREATE_SESSION did not replay: ours */
		int ret = v4_ensure_session(e);
		if (ret < 0)
			return ret;
		struct nfs_fh val = { .len = 16 };
		memcpy(val.data, e->v4s.sessionid, 16);
		map_put(&e->sessmap, &key, NULL, &val, true);
	}
	uint32_t seq;
	int slot = nfs41_slot_get(&e->v4s, &seq);
	if (slot < 0)
		return -EAGAIN;
	e->cur_slot = slot;
	e->cur_seq = seq;
	xenc_fixed(x, e->v4s.sessionid, 16);
	xenc_u32(x, seq);
	xenc_u32(x, (uint32_t)slot);
	xenc_u32(x, nfs41_highest(&e->v4s));
	xenc_bool(x, cachethis);
	return 0;
}

static int rw_map_fh(void *ctx, const struct nfs_fh *tfh, struct nfs_fh *out)
{
	return resolve(ctx, tfh, out, 0);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static int rw_map_stateid(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct engine *e = ctx;
	/* special stateids (anonymous, READ bypass, current) go as they are */
	if (all_bytes(t->other, 12, 0) || all_bytes(t->other, 12, 0xff)) {
		*out = *t;
		return 0;
	}
	struct nfs_fh key = { .len = 12 };
	memcpy(key.data, t->other, 12);
	/* a delegation the target recalled stands for what an absent one
	 * does (below) */
	struct fhent *m = map_get(&e->recalledmap, &key, NULL) ? NULL : map_get(&e->sidmap, &key, NULL);
	if (!m && (m = map_get(&e->delegmap, &key, NULL))) {
		/* a delegation the target did not grant: the open stateid of
		 * the same OPEN, at its current seqid on the target (OPEN
		 * upgrades and OPEN_DOWNGRADE advance it); 0 stays 0 */
		struct nfs_fh okey = { .len = 12 };
		memcpy(okey.data, m->val.data, 12);
		if (map_get(&e->closedmap, &okey, NULL)) {
			/* ... unless that open is closed: the trace's client
			 * reopened locally under its delegation and did this
			 * I/O with no open state of its own on the server.  Its
			 * counterpart is the anonymous stateid (RFC 8881
			 * 8.2.3): the target checks access and share
			 * reservations only. */
			memset(out, 0, sizeof(*out));
			e->deleg_anon++;
			return 0;
		}
		if (!(m = map_get(&e->sidmap, &okey, NULL)))
			return -ENOENT;
		memcpy(out->other, m->val.data, 12);
		out->seqid = t->seqid == 0 ? 0 : xenc_get_u32(m->val.data + 16);
		return 0;
	}
	if (!m)
		return e->v4_refused && !e->o->allow_mutations ? -EPERM : -ENOENT;
	memcpy(out->other, m->val.data, 12);
	uint32_t tseq = xenc_get_u32(m->val.data + 12), gseq = xenc_get_u32(m->val.data + 16);
	/* seqid 0: "the current one" (RFC 8881 8.2.2); otherwise the same
	 * distance from the last one seen as in the trace */
	out->seqid = t->seqid == 0 ? 0 : t->seqid - tseq + gseq;
	return 0;
}

/* DELEGRETURN's and FREE_STATEID's stateid: one the target knows, never
 * the open stateid standing for a delegation it did not grant. */
static int rw_map_returned(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct engine *e = ctx;
	struct nfs_fh key = { .len = 12 };
	memcpy(key.data, t->other, 12);
	if ((map_get(&e->recalledmap, &key, NULL) || !map_get(&e->sidmap, &key, NULL)) &&
	    map_get(&e->delegmap, &key, NULL))
		return -ENODATA;
	return rw_map_stateid(ctx, t, out);
}

/* The delegation an OPEN claims: one the target never granted makes the
 * claim the plain open it stands for (nfs41_clnt_rewrite.c). */
static int rw_map_claimed(void *ctx, const struct nfs4_stateid *t, struct nfs4_stateid *out)
{
	struct engine *e = ctx;
	int ret = rw_map_returned(ctx, t, out);
	if (ret == -ENODATA)
		e->deleg_claims++;
	return ret;
}

static int rw_map_clientid(void *ctx, uint64_t t, uint64_t *out)
{
	struct engine *e = ctx;
	struct nfs_fh key = cid_key(t);
	struct fhent *m = map_get(&e->cidmap, &key, NULL);
	if (m) {
		*out = (uint64_t)xenc_get_u32(m->val.data) << 32 | xenc_get_u32(m->val.data + 4);
		return 0;
	}
	if (!e->v4s.have_client) {
		int ret = e->v4s.minor ? v4_ensure_session(e) : v40_ensure_client(e);
		if (ret < 0)
			return ret;
	}
	*out = e->v4s.clientid;
	return 0;
}

/* NFSv4.0 rewrite callbacks */
static int rw_sc_confirm(void *ctx, uint8_t verf[8])
{
	memcpy(verf, ((struct engine *)ctx)->v4s.confirm, 8);
	return 0;
}

static int rw_map_seqid(void *ctx, const struct nfs4_seqid_ref *ref, uint32_t tseq, uint32_t *out)
{
	struct engine *e = ctx;
	struct nfs40_owner *o;
	if (ref->sid) {
		o = nfs40_owner_of(&e->owners, ref->sid->other);
		if (!o)
			return e->v4_refused && !e->o->allow_mutations ? -EPERM : -ENOENT;
	} else {
		o = nfs40_owner_get(&e->owners, ref->lock, ref->clientid, ref->owner, ref->owner_len);
		if (!o)
			return -ENOMEM;
	}
	if (!o->used) {
		/* a new owner: the server takes the seqid it first sees
		 * (RFC 7530 16.16.5); start where the trace did */
		o->used = true;
		o->seqid = tseq;
	}
	if (e->cur_nuse >= V40_MAXUSE)
		return -E2BIG;
	struct v40use *u = &e->cur_use[e->cur_nuse++];
	u->o = o;
	u->idx = ref->idx;
	u->op = ref->op;
	u->seqid = o->seqid;
	u->names_owner = ref->names_owner;
	*out = o->seqid;
	return 0;
}

static int rw_map_sessionid(void *ctx, const uint8_t t[16], uint8_t out[16])
{
	struct engine *e = ctx;
	struct nfs_fh key = { .len = 16 };
	memcpy(key.data, t, 16);
	struct fhent *m = map_get(&e->sessmap, &key, NULL);
	if (m) {
		memcpy(out, m->val.data, 16);
		return 0;
	}
	if (!e->v4s.have_session)
		return -ENOENT;
	memcpy(out, e->v4s.sessionid, 16);
	return 0;
}

static void rw_exchange_id(void *ctx, uint8_t verf[8], const uint8_t **owner, uint32_t *len)
{
	struct engine *e = ctx;
	memcpy(verf, e->v4s.verifier, 8);
	*owner = (const uint8_t *)e->v4s.owner;
	*len = (uint32_t)strlen(e->v4s.owner);
}

static uint32_t rw_cs_sequence(void *ctx, uint64_t clientid)
{
	(void)clientid;
	return ((struct engine *)ctx)->v4s.cs_seq;
}

/* An NFSv4 call (NULL, or a 4.1+ COMPOUND rewritten for the target). */
/* Waits until a call may go out: fewer in flight than --max-inflight (or
 * than the capture had when this call went), room in the transport, a
 * free call slot. */
static int wait_rcall(struct engine *e, const struct tcall *tc, struct rcall **out)
{
	const struct replay_opts *o = e->o;
	uint32_t limit = o->max_inflight ? o->max_inflight : (tc->inflight ? tc->inflight : 1);
	int ret;

	while (xprt_inflight(e->x) >= limit || !xprt_can_send(e->x) || !(*out = free_rcall(e)))
		if ((ret = poll_once(e, 100)) < 0)
			return ret;
	return 0;
}

/* Submits rc (the replay of call i), polling while the transport is full. */
static int submit_rcall(struct engine *e, struct rcall *rc, size_t i)
{
	int ret;

	rc->req.done = replay_done;
	rc->req.ctx = rc;
	rc->idx = i;
	rc->e = e;
	while ((ret = xprt_submit(e->x, &rc->req)) == -EAGAIN)
		if ((ret = poll_once(e, 100)) < 0)
			break;
	return ret;
}

/* A call too large for the transport is skipped (0); anything else means
 * the connection is gone (-ENOTCONN). */
static int submit_failed(struct rcall *rc, struct opstat *os, int ret)
{
	free(rc->data);
	rc->data = NULL;
	if (ret == -EMSGSIZE) {
		os->skipped++;
		return 0;
	}
	return -ENOTCONN;
}

static int submitted(struct engine *e, struct rcall *rc, struct opstat *os, bool barrier)
{
	rc->busy = true;
	os->replayed++;
	os->read_chunks += rc->req.used_read_chunk;
	os->write_chunks += rc->req.used_write_chunk;
	os->reply_chunks += rc->req.used_reply_chunk;
	e->sent++;
	if (barrier)
		e->barrier_pending = true;
	return 0;
}

static int replay_one_v4(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0,
			 struct opstat *os)
{
	struct tcall *tc = &e->t.calls[i];
	const struct replay_opts *o = e->o;
	struct nfs4_call_info in;
	int ret;

	memset(&in, 0, sizeof(in));
	if (tc->proc == 1 && (!tc->v4known || tc->v4minor != e->v4s.minor ||
			      nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) < 0)) {
		/* COMPOUNDs with ops we cannot walk, and those of another
		 * minor version than the trace's first (one client state) */
		os->unsupported++;
		return 0;
	}
	if (tc->proc > 1) {
		os->unsupported++;
		return 0;
	}
	if (in.mutates && !o->allow_mutations) {
		os->refused++;
		e->v4_refused = true;
		/* what it would have named has no counterpart on the target */
		if (e->ti[i].has_child)
			map_put(&e->refused, &e->ti[i].child, NULL, &e->ti[i].child, false);
		return 0;
	}
	bool barrier = in.state_change || in.ns_change;
	if (barrier || e->barrier_pending) {
		if ((ret = wait_all(e)) < 0)
			return ret;
		e->barrier_pending = false;
	}
	if ((ret = pace(e, tc, t0_trace, t0)) < 0)
		return ret;
	if (e->v4s.minor == 0 && tc->proc == 1) {
		/* an OPEN the target wants confirmed (the OPEN was a barrier:
		 * its reply is in) */
		bool has_confirm = false;
		for (unsigned k = 0; k < in.nops && k < NFS4_RES_MAXOPS; k++)
			has_confirm |= in.op[k] == NFS4_OP_OPEN_CONFIRM;
		if (e->v40_confirm && !has_confirm && (ret = v40_confirm_now(e)) < 0)
			return ret;
		if (has_confirm && !e->v40_confirm) {
			/* the trace's OPEN_CONFIRM, for an OPEN the target did not
			 * ask to confirm (or that was not replayed) */
			if (e->v4_refused && !o->allow_mutations) {
				os->dep_refused++;
			} else {
				os->skipped++;
				e->v40_confirms_dropped++;
			}
			if (o->verbose)
				fprintf(e->out, "  xid 0x%08x %s: not sent (no OPEN to confirm on the target)\n",
					tc->xid, op_label(op_index(tc)));
			return 0;
		}
	}
	struct rcall *rc;
	if ((ret = wait_rcall(e, tc, &rc)) < 0)
		return ret;

	size_t cap = 1024 + tc->args_len + (size_t)(in.nops + 1) * NFS4_FHSIZE_MAX;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	free(rc->buf);
	rc->buf = buf;
	memset(&rc->req, 0, sizeof(rc->req));
	rc->slot = -1;
	struct rpc_cred cred;
	if (tc->flavor == 1)
		rpc_cred_sys(&cred, tc->uid, tc->gid);
	else
		memset(&cred, 0, sizeof(cred));
	const struct nfs4_rewrite_ops ops = {
		.ctx = e, .sequence = rw_sequence, .map_fh = rw_map_fh,
		.map_stateid = rw_map_stateid, .map_clientid = rw_map_clientid,
		.map_sessionid = rw_map_sessionid, .exchange_id = rw_exchange_id,
		.cs_sequence = rw_cs_sequence, .map_returned = rw_map_returned,
		.map_claimed = rw_map_claimed, .cb = e->cbloc.back_channel || e->cbloc.netid ? &e->cbloc : NULL,
	};
	const struct nfs40_rewrite_ops v40 = { .sc_confirm = rw_sc_confirm, .map_seqid = rw_map_seqid };
	struct xenc x;
	size_t ddp_out = 0;
	for (int attempt = 0;; attempt++) {
		xenc_init(&x, buf, cap);
		xenc_rpc_call(&x, 0, PROG_NFS_, 4, tc->proc, &cred);
		e->cur_slot = -1;
		e->cur_nuse = 0;
		ret = tc->proc == 0 ? 0 : nfs4_call_rewrite_v40(tc->args, tc->args_len, tc->rpos, &ops,
							     e->v4s.minor == 0 ? &v40 : NULL, &x, &ddp_out);
		if (ret == 0 && xenc_ok(&x))
			break;
		if (e->cur_slot >= 0)
			e->v4s.slot_busy[e->cur_slot] = false;
		if (ret == -EAGAIN) {          /* no free session slot yet */
			if ((ret = poll_once(e, 100)) < 0)
				return ret;
			continue;
		}
		if (ret == -ENOENT && attempt == 0 && xprt_inflight(e->x)) {
			/* what names it may still be in flight */
			if ((ret = wait_all(e)) < 0)
				return ret;
			continue;
		}
		if (ret == -ENOTCONN || ret == -ETIMEDOUT || ret == -EPIPE)
			return -ENOTCONN;
		if (ret == -ENODATA && !in.other_work) {
			/* DELEGRETURN (FREE_STATEID) of a delegation the target
			 * never granted, with only its context (SEQUENCE, PUTFH,
			 * GETATTR): nothing to give back, not sent.  A 4.1 slot
			 * taken for it is left as it was (seqid not used). */
			os->no_deleg++;
			if (o->verbose)
				fprintf(e->out, "  xid 0x%08x %s: not sent (gives back a delegation the "
					"target never granted)\n", tc->xid, op_label(op_index(tc)));
			return 0;
		}
		if (ret == -EPERM)
			os->dep_refused++;
		else
			os->skipped++;
		e->unmapped++;
		if (o->verbose)
			fprintf(e->out, "  xid 0x%08x %s: not sent (%s)\n", tc->xid, op_label(op_index(tc)),
				ret == -EPERM ? "its state comes from a refused call" :
				ret == -ENOENT ? "a handle or stateid with no counterpart on the target" :
				ret == -ENODATA ? "gives back a delegation the target never granted, "
						  "with other work in the COMPOUND" :
				strerror(-ret));
		return 0;
	}
	rc->slot = e->cur_slot;
	rc->seq = e->cur_seq;
	e->cur_slot = -1;
	rc->nuse = 0;
	if (e->cur_nuse) {
		struct v40use *u = realloc(rc->use, e->cur_nuse * sizeof(*u));
		if (!u)
			return -ENOMEM;
		memcpy(u, e->cur_use, e->cur_nuse * sizeof(*u));
		rc->use = u;
		rc->nuse = e->cur_nuse;
	}
	rc->req.msg = buf;
	rc->req.len = x.len;
	if (in.has_ddp) {
		rc->data = malloc(in.ddp_len ? in.ddp_len : 1);
		if (!rc->data) {
			nfs41_slot_put(&e->v4s, rc->slot, rc->seq, false, false);
			return -ENOMEM;
		}
		if (in.ddp_inline && (uint64_t)in.ddp_at + in.ddp_len <= tc->args_len)
			memcpy(rc->data, tc->args + in.ddp_at, in.ddp_len);
		else if (tc->ddp && tc->ddp_got >= in.ddp_len && tc->ddp_len >= in.ddp_len)
			memcpy(rc->data, tc->ddp, in.ddp_len);
		else
			memset(rc->data, 0x5a, in.ddp_len);
		rc->req.has_ddp = true;
		rc->req.ddp = rc->data;
		rc->req.ddp_len = in.ddp_len;
		rc->req.ddp_at = (uint32_t)ddp_out;
	}
	unsigned nreads = 0, n = in.nops < NFS4_RES_MAXOPS ? in.nops : NFS4_RES_MAXOPS;
	for (unsigned k = 0; k < n; k++)
		nreads += in.op[k] == NFS4_OP_READ;
	if (nreads == 1)
		rc->req.wchunk = in.read_count;   /* RFC 8267: READ data in a Write chunk */
	uint32_t rmax = 512 + 256 * n + in.readdir_max + (nreads > 1 ? in.read_count : 0);
	if (tc->has_reply_chunk && rmax < 8192)
		rmax = 8192;                       /* as the capture's client did */
	rc->req.reply_max = rmax;
	rc->has_tdir = false;
	if ((ret = submit_rcall(e, rc, i)) < 0) {
		nfs41_slot_put(&e->v4s, rc->slot, rc->seq, false, ret != -EMSGSIZE);
		return submit_failed(rc, os, ret);
	}
	return submitted(e, rc, os, barrier);
}

/* Builds and submits call i.  Returns 0 (sent or counted as skipped) or
 * -ENOTCONN. */
static int replay_one(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0)
{
	struct tcall *tc = &e->t.calls[i];
	struct opstat *os = &e->op[op_index(tc)];
	const struct replay_opts *o = e->o;
	int ret;

	os->trace++;
	if (tc->prog == PROG_NFS_ && tc->vers == 4)
		return replay_one_v4(e, i, t0_trace, t0, os);
	if (!(tc->prog == PROG_NFS_ && tc->vers == 3) && tc->prog != PROG_NFSACL_) {
		os->unsupported++;
		return 0;
	}
	bool mut = tc->prog == PROG_NFSACL_ ? tc->proc == 2 : nfs3_is_mutation(tc->proc);
	struct layout l;
	bool parsed = parse_layout(tc, &l);
	if (mut && !o->allow_mutations) {
		os->refused++;
		if (e->ti[i].has_child)
			map_put(&e->refused, &e->ti[i].child, NULL, &e->ti[i].child, false);
		return 0;
	}
	if (!parsed) {
		os->skipped++;
		return 0;
	}
	bool barrier = mut && tc->proc != NFS3P_WRITE && tc->proc != NFS3P_COMMIT;
	if (barrier || e->barrier_pending) {
		if ((ret = wait_all(e)) < 0)
			return ret;
		e->barrier_pending = false;
	}
	/* map the handles */
	struct nfs_fh mapped[MAXREFS];
	for (unsigned k = 0; k < l.nref; k++) {
		if (!map_get(&e->tmap, &l.ref[k].fh, NULL) && xprt_inflight(e->x) &&
		    (ret = wait_all(e)) < 0)
			return ret;
		ret = resolve(e, &l.ref[k].fh, &mapped[k], 0);
		if (ret == -ENOTCONN || ret == -ETIMEDOUT || ret == -EPIPE)
			return -ENOTCONN;
		if (ret < 0) {
			if (ret == -EPERM)
				os->dep_refused++;
			else
				os->skipped++;
			e->unmapped++;
			if (e->ti[i].has_child)
				map_put(&e->refused, &e->ti[i].child, NULL, &e->ti[i].child, false);
			if (o->verbose)
				fprintf(e->out, "  xid 0x%08x %s: handle not mapped (%s)\n", tc->xid,
					op_label(op_index(tc)), ret == -EPERM ?
					"named by a refused call" : "no path to it on the target");
			return 0;
		}
	}
	/* timing */
	if ((ret = pace(e, tc, t0_trace, t0)) < 0)
		return ret;
	/* concurrency */
	struct rcall *rc;
	if ((ret = wait_rcall(e, tc, &rc)) < 0)
		return ret;

	/* build: header + args with mapped handles */
	size_t args_len = l.has_ddp ? l.ddp_at + 4 : tc->args_len;
	size_t cap = 512 + args_len + MAXREFS * NFS4_FHSIZE_MAX;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	struct rpc_cred cred;
	if (tc->flavor == 1)
		rpc_cred_sys(&cred, tc->uid, tc->gid);
	else
		memset(&cred, 0, sizeof(cred));
	struct xenc x;
	xenc_init(&x, buf, cap);
	xenc_rpc_call(&x, 0, tc->prog, tc->vers, tc->proc, &cred);
	uint32_t pos = 0;
	for (unsigned k = 0; k < l.nref; k++) {
		uint8_t *p = xenc_reserve(&x, l.ref[k].off - pos);
		if (p)
			memcpy(p, tc->args + pos, l.ref[k].off - pos);
		xenc_fh(&x, &mapped[k]);
		pos = l.ref[k].off + l.ref[k].size;
	}
	if (args_len > pos) {
		uint8_t *p = xenc_reserve(&x, args_len - pos);
		if (p)
			memcpy(p, tc->args + pos, args_len - pos);
	}
	free(rc->buf);
	rc->buf = buf;
	memset(&rc->req, 0, sizeof(rc->req));
	if (!xenc_ok(&x)) {
		os->skipped++;
		return 0;
	}
	rc->req.msg = buf;
	rc->req.len = x.len;
	if (l.has_ddp) {
		/* the data: inline in the trace, else what the server pulled
		 * from the trace's Read chunk, else a pattern */
		rc->data = malloc(l.ddp_len ? l.ddp_len : 1);
		if (!rc->data)
			return -ENOMEM;
		if (tc->args_len >= (uint64_t)l.ddp_at + 4 + l.ddp_len)
			memcpy(rc->data, tc->args + l.ddp_at + 4, l.ddp_len);
		else if (tc->ddp && tc->ddp_got >= l.ddp_len && tc->ddp_len >= l.ddp_len)
			memcpy(rc->data, tc->ddp, l.ddp_len);
		else
			memset(rc->data, tc->proc == NFS3P_SYMLINK ? 'x' : 0x5a, l.ddp_len);
		rc->req.has_ddp = true;
		rc->req.ddp = rc->data;
		rc->req.ddp_len = l.ddp_len;
	}
	if (tc->prog == PROG_NFS_ && (tc->proc == NFS3P_READ))
		rc->req.wchunk = l.count;
	rc->req.reply_max = tc->prog == PROG_NFSACL_ ? (tc->proc == 1 ? 8192 : 512) :
			    nfs3_reply_max(tc->proc, l.count);
	rc->has_tdir = l.nref > 0;
	if (l.nref)
		rc->tdir = mapped[0];
	if ((ret = submit_rcall(e, rc, i)) < 0)
		return submit_failed(rc, os, ret);
	return submitted(e, rc, os, barrier);
}

static void trace_latencies(struct engine *e)
{
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		if (tc->replied && tc->t_reply >= tc->t_call)
			lhist_add(&e->op[op_index(tc)].tlat, tc->t_reply - tc->t_call);
	}
}

/* "/dir/name" of a trace handle, from the names its replies gave. */
static const char *trace_path(const struct engine *e, const struct nfs_fh *fh, char *buf, size_t len)
{
	const char *comp[64];
	unsigned n = 0;
	struct nfs_fh cur = *fh;

	while (n < 64) {
		if (e->have_troot && fh_eq(&cur, &e->troot))
			break;
		struct fhent *p = map_get(&e->tparent, &cur, NULL);
		const char *name = p ? tpath_name(e, &cur) : NULL;
		if (!p || !name) {
			snprintf(buf, len, "?0x%08x", (uint32_t)xdr_fh_hash(fh->data, fh->len));
			return buf;
		}
		comp[n++] = name;
		cur = p->val;
	}
	size_t off = 0;
	buf[0] = 0;
	if (!n)
		snprintf(buf, len, "/");
	while (n-- > 0 && off < len) {
		int w = snprintf(buf + off, len - off, "/%s", comp[n]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

/* --dry-run: what would be sent, with the trace's paths; no network. */
static int dry_run(struct engine *e)
{
	FILE *f = e->out;
	uint64_t n = 0, mut = 0, unsup = 0;

	fprintf(f, "trace %s: %zu NFS calls, export %s, root %s\n", e->o->trace, e->t.n,
		e->t.export_path[0] ? e->t.export_path : e->v4 ? "(NFSv4 pseudo-root)" : "?",
		e->t.have_root ? "from MOUNT" : !e->have_troot ? "unknown" :
		e->v4 ? "from PUTROOTFH" : "from the first FSINFO");
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		char path[2][512];
		struct layout l;
		bool v3 = (tc->prog == PROG_NFS_ && tc->vers == 3) || tc->prog == PROG_NFSACL_;
		if (tc->prog == PROG_NFS_ && tc->vers == 4 && (tc->proc == 0 || tc->v4known)) {
			struct nfs4_call_info in;
			memset(&in, 0, sizeof(in));
			if (tc->proc == 1)
				nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in);
			char ops[512];
			size_t off = 0;
			ops[0] = 0;
			for (unsigned k = 0; k < in.nops && k < NFS4_RES_MAXOPS && off < sizeof(ops) - 1; k++) {
				int w = snprintf(ops + off, sizeof(ops) - off, "%s%s", k ? "," : "",
						 nfs4_clnt_op_name(in.op[k]));
				if (w < 0)
					break;
				off += (size_t)w;
			}
			n++;
			mut += in.mutates;
			fprintf(f, "%6zu xid 0x%08x %-16s [%s] status %s inflight %u%s%s%s\n", i + 1, tc->xid,
				op_label(op_index(tc)), ops,
				!tc->replied ? "none" : tc->rpc_status ? "rpc-error" : tc->status ? nfs_stat_name(tc->status) : "OK",
				tc->inflight, in.mutates ? " MUTATION" : "", tc->has_read_chunk ? " read-chunk" : "",
				tc->has_reply_chunk ? " reply-chunk" : tc->has_write_chunk ? " write-chunk" : "");
			continue;
		}
		if (!v3) {
			unsup++;
			fprintf(f, "%6zu xid 0x%08x %-16s unsupported (NFSv3, NFSACLv3 and NFSv4 are replayed)\n",
				i + 1, tc->xid, op_label(op_index(tc)));
			continue;
		}
		bool m = tc->prog == PROG_NFSACL_ ? tc->proc == 2 : nfs3_is_mutation(tc->proc);
		mut += m;
		n++;
		bool ok = parse_layout(tc, &l);
		fprintf(f, "%6zu xid 0x%08x %-16s %s%s%s%s%s%s status %s inflight %u%s%s%s\n", i + 1,
			tc->xid, op_label(op_index(tc)), ok && l.nref ? trace_path(e, &l.ref[0].fh, path[0], sizeof(path[0])) : "",
			ok && l.has_name ? " name \"" : "", ok && l.has_name ? l.name : "",
			ok && l.has_name ? "\"" : "",
			ok && l.nref > 1 ? " -> " : "", ok && l.nref > 1 ? trace_path(e, &l.ref[1].fh, path[1], sizeof(path[1])) : "",
			!tc->replied ? "none" : tc->rpc_status ? "rpc-error" : nfs_stat_name(tc->status),
			tc->inflight, m ? " MUTATION" : "", tc->has_read_chunk ? " read-chunk" : "",
			tc->has_reply_chunk ? " reply-chunk" : tc->has_write_chunk ? " write-chunk" : "");
	}
	fprintf(f, "dry run: %" PRIu64 " replayable calls, %" PRIu64 " of them change state "
		"(need --allow-mutations), %" PRIu64 " unsupported, %" PRIu64 " trace retransmits\n",
		n, mut, unsup, e->t.retransmits);
	return 0;
}

static void report(struct engine *e, double secs, int rc)
{
	FILE *f = e->out;
	const struct xprt_stats *st = &e->x->st;
	uint64_t tot[11] = { 0 };

	if (e->cbsrv)   /* 4.0: the callback server's thread counted them */
		nfs40_cbsrv_counts(e->cbsrv, &e->cb.calls, &e->cb.recalls, &e->cb_refused);

	for (unsigned i = 0; i < NOPS; i++) {
		const struct opstat *s = &e->op[i];
		tot[0] += s->trace; tot[1] += s->replayed; tot[2] += s->ok; tot[3] += s->mismatch;
		tot[4] += s->errors; tot[5] += s->lost; tot[6] += s->refused; tot[7] += s->skipped;
		tot[8] += s->unsupported; tot[9] += s->dep_refused; tot[10] += s->no_deleg;
	}
	double mbs = secs > 0 ? (double)(e->bytes_read + e->bytes_written) / secs / 1e6 : 0;
	if (e->o->json) {
		fprintf(f, "{\"trace\":");
		out_json_str(f, e->o->trace);
		fprintf(f, ",\"target\":");
		out_json_str(f, e->o->target);
		fprintf(f, ",\"transport\":\"%s\",\"export\":", e->x->ops->name);
		out_json_str(f, e->t.export_path[0] ? e->t.export_path : "");
		fprintf(f, ",\"exit\":%d,\"seconds\":%.3f,\"calls_per_s\":%.1f,\"mb_per_s\":%.3f,"
			"\"bytes_read\":%" PRIu64 ",\"bytes_written\":%" PRIu64 ",", rc, secs,
			secs > 0 ? (double)e->sent / secs : 0, mbs, e->bytes_read, e->bytes_written);
		fprintf(f, "\"totals\":{\"trace\":%" PRIu64 ",\"replayed\":%" PRIu64 ",\"same_status\":%"
			PRIu64 ",\"mismatches\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"refused\":%" PRIu64 ",\"skipped\":%" PRIu64 ",\"unsupported\":%" PRIu64
			",\"not_sent\":%" PRIu64 ",\"resolve_lookups\":%" PRIu64 ",\"trace_retransmits\":%"
			PRIu64 ",\"after_refused\":%" PRIu64 ",\"no_delegation\":%" PRIu64 "},", tot[0],
			tot[1], tot[2], tot[3], tot[4], tot[5], tot[6], tot[7], tot[8], e->not_sent,
			e->extra_lookups, e->t.retransmits, tot[9], tot[10]);
		fprintf(f, "\"transport_stats\":{\"calls\":%" PRIu64 ",\"replies\":%" PRIu64
			",\"lost\":%" PRIu64 ",\"reconnects\":%" PRIu64 ",\"dropped_on_request\":%" PRIu64
			",\"read_chunks\":%" PRIu64
			",\"write_chunks\":%" PRIu64 ",\"reply_chunks\":%" PRIu64 ",\"rdma_errors\":%" PRIu64
			",\"inline_send\":%u,\"inline_recv\":%u,\"credits_granted\":%u},",
			st->calls, st->replies, st->lost, st->reconnects, e->drops, st->read_chunks, st->write_chunks,
			st->reply_chunks, st->rdma_errors, st->inline_send, st->inline_recv,
			st->credits_granted);
		if (e->v4 && e->v4s.minor == 0)
			fprintf(f, "\"nfs4\":{\"minor\":0,\"own_clients\":%" PRIu64 ",\"owners\":%zu,"
				"\"seqid_errors\":%" PRIu64 ",\"confirms_added\":%" PRIu64
				",\"confirms_dropped\":%" PRIu64 ",\"renews\":%" PRIu64 ",\"lease_s\":%u,"
				"\"stateids_mapped\":%zu,\"handles_mapped\":%zu,\"delegations_granted\":%" PRIu64
				",\"delegations_absent\":%" PRIu64 ",\"delegation_claims_made_plain\":%" PRIu64
				",\"delegation_io_anonymous\":%" PRIu64 ",\"callback_server\":%s,\"callbacks\":%" PRIu64
				",\"delegations_recalled\":%" PRIu64 ",\"delegations_returned\":%" PRIu64
				",\"delegation_returns_failed\":%" PRIu64 ",\"callback_connections_refused\":%" PRIu64 "},",
				e->v4_sessions, e->owners.n, e->v40_seqid_errors, e->v40_confirms_added,
				e->v40_confirms_dropped, e->v40_renews, e->v4s.lease_s, e->sidmap.n, e->tmap.n,
				e->delegs_granted, e->delegs_absent, e->deleg_claims, e->deleg_anon,
				e->cbsrv ? "true" : "false", e->cb.calls, e->cb.recalls, e->deleg_returned,
				e->deleg_return_failed + e->recalls_dropped, e->cb_refused);
		else if (e->v4)
			fprintf(f, "\"nfs4\":{\"minor\":%u,\"own_sessions\":%" PRIu64 ",\"slots\":%u,"
				"\"sequence_errors\":%" PRIu64 ",\"stateids_mapped\":%zu,\"handles_mapped\":%zu,"
				"\"delegations_granted\":%" PRIu64 ",\"delegations_absent\":%" PRIu64
				",\"delegation_claims_made_plain\":%" PRIu64 ",\"delegation_io_anonymous\":%" PRIu64
				",\"back_channel\":%s,\"callbacks\":%" PRIu64 ",\"delegations_recalled\":%" PRIu64
				",\"delegations_returned\":%" PRIu64 ",\"delegation_returns_failed\":%" PRIu64
				",\"cb_path_down_replies\":%" PRIu64 ",\"connections_bound\":%" PRIu64
				",\"connection_binds_failed\":%" PRIu64 ",\"bound_dir\":\"%s\"},",
				e->v4s.minor, e->v4_sessions, e->v4s.nslots, e->v4s.seq_errors, e->sidmap.n,
				e->tmap.n, e->delegs_granted, e->delegs_absent, e->deleg_claims, e->deleg_anon,
				e->v4s.back_channel ? "true" : "false", e->cb.calls, e->cb.recalls,
				e->deleg_returned, e->deleg_return_failed + e->recalls_dropped,
				e->cb_path_down, e->conn_bound, e->conn_bind_failed,
				!e->conn_bound ? "" : e->bind_dir == NFS4_CDFS4_BOTH ? "both" :
				e->bind_dir == NFS4_CDFS4_BACK ? "back" : e->bind_dir == NFS4_CDFS4_FORE ? "fore" : "other");
		fprintf(f, "\"ops\":[");
		bool first = true;
		for (unsigned i = 0; i < NOPS; i++) {
			const struct opstat *s = &e->op[i];
			if (!s->trace)
				continue;
			fprintf(f, "%s{\"op\":\"%s\",\"trace\":%" PRIu64 ",\"replayed\":%" PRIu64
				",\"same_status\":%" PRIu64 ",\"mismatches\":%" PRIu64 ",\"errors\":%" PRIu64
				",\"lost\":%" PRIu64 ",\"refused\":%" PRIu64 ",\"skipped\":%" PRIu64
				",\"unsupported\":%" PRIu64 ",\"after_refused\":%" PRIu64
				",\"no_delegation\":%" PRIu64 ",\"bytes\":%" PRIu64
				",\"chunks\":{\"read\":%" PRIu64 ",\"write\":%" PRIu64 ",\"reply\":%" PRIu64 "},"
				"\"lat_us\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f},"
				"\"trace_lat_us\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f}}",
				first ? "" : ",", op_label(i), s->trace, s->replayed, s->ok, s->mismatch,
				s->errors, s->lost, s->refused, s->skipped, s->unsupported, s->dep_refused,
				s->no_deleg, s->bytes,
				s->read_chunks, s->write_chunks, s->reply_chunks,
				(double)lhist_pct(&s->lat, 50) / 1e3, (double)lhist_pct(&s->lat, 99) / 1e3,
				(double)s->lat.max / 1e3, (double)lhist_pct(&s->tlat, 50) / 1e3,
				(double)lhist_pct(&s->tlat, 99) / 1e3, (double)s->tlat.max / 1e3);
			first = false;
		}
		fprintf(f, "],\"mismatches\":[");
		for (unsigned i = 0; i < e->nmm; i++) {
			const struct mismatch *m = &e->mm[i];
			fprintf(f, "%s{\"xid\":\"0x%08x\",\"frame\":%" PRIu64 ",\"op\":\"%s\",\"trace_rpc\":%u,"
				"\"trace_status\":%u,\"replay_rpc\":%u,\"replay_status\":%u,\"error\":%d}",
				i ? "," : "", m->xid, m->frame, op_label(m->op), m->trpc, m->tstat, m->rpc,
				m->stat, m->err);
		}
		fprintf(f, "]}\n");
		return;
	}
	fprintf(f, "replay of %s against %s over %s (export %s): %" PRIu64 " calls in the trace\n",
		e->o->trace, e->o->target, e->x->ops->name,
		e->t.export_path[0] ? e->t.export_path : "?", tot[0]);
	fprintf(f, "%-16s %6s %6s %6s %6s %6s %5s %7s %7s %6s %7s | %9s %9s %9s | %9s %9s\n", "op",
		"trace", "sent", "same", "diff", "error", "lost", "refused", "skipped", "unsup", "nodeleg",
		"p50us",
		"p99us", "maxus", "trace-p50", "trace-p99");
	for (unsigned i = 0; i < NOPS; i++) {
		const struct opstat *s = &e->op[i];
		if (!s->trace)
			continue;
		fprintf(f, "%-16s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5"
			PRIu64 " %7" PRIu64 " %7" PRIu64 " %6" PRIu64 " %7" PRIu64
			" | %9.1f %9.1f %9.1f | %9.1f %9.1f\n",
			op_label(i), s->trace, s->replayed, s->ok, s->mismatch, s->errors, s->lost,
			s->refused, s->skipped, s->unsupported, s->no_deleg, (double)lhist_pct(&s->lat, 50) / 1e3,
			(double)lhist_pct(&s->lat, 99) / 1e3, (double)s->lat.max / 1e3,
			(double)lhist_pct(&s->tlat, 50) / 1e3, (double)lhist_pct(&s->tlat, 99) / 1e3);
	}
	fprintf(f, "total: %" PRIu64 " sent, %" PRIu64 " same status, %" PRIu64 " mismatches, %" PRIu64
		" errors, %" PRIu64 " lost in flight, %" PRIu64 " refused (mutations), %" PRIu64
		" skipped, %" PRIu64 " not sent\n", tot[1], tot[2], tot[3], tot[4], tot[5], tot[6],
		tot[7], e->not_sent);
	fprintf(f, "time %.3f s, %.1f calls/s, %.3f MB/s (read %" PRIu64 " B, written %" PRIu64
		" B); chunks: %" PRIu64 " read, %" PRIu64 " write, %" PRIu64 " reply; %" PRIu64
		" reconnects, %" PRIu64 " path lookups\n", secs, secs > 0 ? (double)e->sent / secs : 0,
		mbs, e->bytes_read, e->bytes_written, st->read_chunks, st->write_chunks, st->reply_chunks,
		st->reconnects, e->extra_lookups);
	for (unsigned i = 0; i < e->nmm; i++) {
		const struct mismatch *m = &e->mm[i];
		if (m->err)
			fprintf(f, "error: xid 0x%08x (frame %" PRIu64 ") %s: %s\n", m->xid, m->frame,
				op_label(m->op), strerror(-m->err));
		else
			fprintf(f, "mismatch: xid 0x%08x (frame %" PRIu64 ") %s: trace rpc %u status %s, "
				"replay rpc %u status %s\n", m->xid, m->frame, op_label(m->op), m->trpc,
				nfs_stat_name(m->tstat), m->rpc, nfs_stat_name(m->stat));
	}
	if (tot[10])
		fprintf(f, "note: %" PRIu64 " call(s) give back a delegation the target never granted "
			"(or recalled and got back) and were not sent (nodeleg); "
			"%" PRIu64 " trace delegation(s) stood for by their OPEN's open stateid\n", tot[10],
			e->delegs_absent);
	if (e->v4s.back_channel || e->cbsrv)
		fprintf(f, "note: callbacks served (--delegations): the target granted %" PRIu64
			" delegation(s) the trace's client also got; %" PRIu64 " callback(s), %" PRIu64
			" recall(s), %" PRIu64 " delegation(s) given back by the replay itself (DELEGRETURN "
			"not in the trace)%s\n", e->delegs_granted, e->cb.calls, e->cb.recalls,
			e->deleg_returned, e->deleg_return_failed + e->recalls_dropped ? ", some of them FAILED" : "");
	if (e->conn_bound || e->conn_bind_failed || e->cb_path_down)
		fprintf(f, "note: %" PRIu64 " new connection(s) bound to the session's back channel "
			"(BIND_CONN_TO_SESSION), %" PRIu64 " refused; %" PRIu64 " SEQUENCE repl%s said "
			"the callback path was down\n", e->conn_bound, e->conn_bind_failed, e->cb_path_down,
			e->cb_path_down == 1 ? "y" : "ies");
	if (e->deleg_claims || e->deleg_anon)
		fprintf(f, "note: %" PRIu64 " OPEN(s) claiming such a delegation sent as plain opens "
			"(CLAIM_NULL / CLAIM_FH); %" PRIu64 " stateid(s) of I/O under one after its "
			"open was closed sent as the anonymous stateid\n", e->deleg_claims, e->deleg_anon);
	if (tot[6])
		fprintf(f, "note: %" PRIu64 " call(s) change state on the server and were not sent; "
			"%" PRIu64 " more were skipped or answered differently only because of that; "
			"use --allow-mutations to send them\n", tot[6], tot[9]);
}

int replay_run(const struct replay_opts *o, FILE *out)
{
	struct engine *e = calloc(1, sizeof(*e));
	char err[512];
	int ret, rc = 3;

	if (!e)
		return 3;
	e->o = o;
	e->out = out;
	if ((ret = trace_load(&e->t, o->trace, err, sizeof(err))) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (!e->t.n) {
		log_error("%s: no NFS calls over RPC-over-RDMA found", o->trace);
		goto out;
	}
	if (o->disconnect) {
		size_t k = 0;
		while (k < e->t.n && e->t.calls[k].xid != o->disconnect_xid)
			k++;
		if (k == e->t.n) {
			/* a typo would otherwise run the whole replay without the fault */
			log_error("--disconnect-after: the trace has no call with xid 0x%08x", o->disconnect_xid);
			goto out;
		}
	}
	e->ti = calloc(e->t.n, sizeof(*e->ti));
	if (!e->ti)
		goto out;
	if (e->t.have_root) {
		e->troot = e->t.root;
		e->have_troot = true;
	}
	prepass(e);
	trace_latencies(e);
	if (o->dry_run) {
		rc = dry_run(e);
		goto out;
	}
	rpc_cred_sys(&e->cred, 0, 0);
	bool need_mount = false, have_minor = false;
	uint32_t minor = 1;
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		if (tc->vers == 3)
			need_mount = true;
		else if (tc->v4known && !have_minor && tc->v4minor <= 2) {
			/* the first COMPOUND's minor version: 0 (client ID and
			 * owner seqids) or 1, 2 (a session) */
			minor = tc->v4minor;
			have_minor = true;
		}
	}
	nfs41_session_init(&e->v4s, minor, "replay");
	const char *exp = o->export_path ? o->export_path :
			  e->t.export_path[0] ? e->t.export_path : "/export";
	if (need_mount) {
		if ((ret = mount3_mnt(o->target, exp, &e->cred, &e->root, err, sizeof(err))) < 0) {
			log_error("%s", err);
			goto out;
		}
		e->have_root = true;
		if (!e->t.export_path[0])
			snprintf(e->t.export_path, sizeof(e->t.export_path), "%s", exp);
	}
	uint32_t maxbulk = 65536;
	for (size_t i = 0; i < e->t.n; i++) {
		struct layout l;
		struct nfs4_call_info in;
		const struct tcall *tc = &e->t.calls[i];
		if (tc->prog == PROG_NFS_ && tc->vers == 4 && tc->v4known &&
		    nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) == 0) {
			if (in.read_count > maxbulk && in.read_count <= (1u << 20))
				maxbulk = in.read_count;
			if (in.ddp_len > maxbulk && in.ddp_len <= (1u << 20))
				maxbulk = in.ddp_len;
			continue;
		}
		if (e->t.calls[i].prog == PROG_NFS_ && e->t.calls[i].vers == 3 &&
		    parse_layout(&e->t.calls[i], &l)) {
			if (l.count > maxbulk && l.count <= (1u << 20))
				maxbulk = l.count;
			if (l.ddp_len > maxbulk)
				maxbulk = l.ddp_len;
		}
	}
	e->nrc = o->slots ? o->slots : 32;
	struct xprt_opts xo = { .host = o->target, .port = o->port, .slots = e->nrc,
				.max_bulk = maxbulk, .reply_chunk_max = 72 * 1024,
				.reconnect_ms = o->reconnect_ms, .busy_poll = o->busy_poll,
				.moderate_us = o->moderate_us };
	bool tcp = o->transport && !strcmp(o->transport, "tcp");
	if ((ret = tcp ? xprt_tcp_open(&e->x, &xo) : xprt_rdma_open(&e->x, &xo)) < 0)
		goto out;
	e->rc = calloc(e->nrc, sizeof(*e->rc));
	if (!e->rc)
		goto out;
	if (o->delegations && e->v4 && e->v4s.minor >= 1) {
		/* serve the back channel: the target may then grant
		 * delegations, and must be able to recall them */
		e->cb = (struct nfs41_cb){ .recall = v4_recalled, .ctx = e };
		e->x->bc_call = nfs41_cb_serve;
		e->x->bc_ctx = &e->cb;
		e->v4s.back_channel = true;
		e->cbloc.back_channel = true;
	} else if (o->delegations && e->v4) {
		/* NFSv4.0: the server calls back on a connection of its own,
		 * to the address SETCLIENTID gives */
		if ((ret = nfs40_cbsrv_start(&e->cbsrv, o->target, e->v4s.cb_netid, sizeof(e->v4s.cb_netid),
					     e->v4s.cb_addr, sizeof(e->v4s.cb_addr))) < 0) {
			log_error("replay: --delegations: cannot serve NFSv4.0 callbacks: %s", strerror(-ret));
			goto out;
		}
		e->cbloc.netid = e->v4s.cb_netid;
		e->cbloc.addr = e->v4s.cb_addr;
	}
	log_info("replay: %zu calls, %" PRIu64 " trace retransmits, root %s", e->t.n, e->t.retransmits,
		 e->t.have_root ? "from the trace's MOUNT" : !e->have_troot ? "unknown" :
		 e->v4 ? "from its PUTROOTFH" : "from its first FSINFO");

	uint64_t t0 = xprt_now_ns(), t0_trace = e->t.calls[0].t_call;
	size_t i;
	ret = 0;
	for (i = 0; i < e->t.n; i++)
		if ((ret = replay_one(e, i, t0_trace, t0)) < 0)
			break;
	if (ret == 0)
		ret = wait_all(e);
	/* NFSv4.0 has no DESTROY_CLIENTID: the replay's client ID and what
	 * the trace left open expire with the lease */
	if (ret == 0 && e->v4s.minor && (e->v4s.have_session || e->v4s.have_client)) {
		/* what the trace did not destroy itself (or the replay's own) */
		nfs41_session_close(e->x, &e->v4s, &e->cred);
	}
	if (ret < 0) {
		e->not_sent = e->t.n - i;
		log_error("replay stopped: %s; %" PRIu64 " call(s) not sent", strerror(-ret), e->not_sent);
	}
	double secs = (double)(xprt_now_ns() - t0) / 1e9;
	uint64_t mism = 0, errs = 0, refused = 0, skipped = 0;
	for (unsigned k = 0; k < NOPS; k++) {
		mism += e->op[k].mismatch;
		errs += e->op[k].errors;
		refused += e->op[k].refused;
		skipped += e->op[k].skipped;
	}
	if (e->lost || ret < 0)
		rc = 2;
	else if (mism || errs || (skipped && !refused))
		rc = 1;
	else if (refused)
		rc = 4;
	else
		rc = 0;
	if (e->lost)
		log_error("%" PRIu64 " call(s) lost in flight (connection dropped)", e->lost);
	report(e, secs, rc);
out:
	if (e->rc) {
		for (uint32_t k = 0; k < e->nrc; k++) {
			free(e->rc[k].buf);
			free(e->rc[k].data);
			free(e->rc[k].use);
		}
		free(e->rc);
	}
	nfs40_cbsrv_stop(e->cbsrv);
	xprt_destroy(e->x);
	map_free(&e->tmap);
	map_free(&e->tparent);
	map_free(&e->tname);
	map_free(&e->edges);
	map_free(&e->refused);
	map_free(&e->sidmap);
	map_free(&e->delegmap);
	map_free(&e->closedmap);
	map_free(&e->grantmap);
	map_free(&e->recalledmap);
	map_free(&e->cidmap);
	map_free(&e->sessmap);
	nfs40_owners_free(&e->owners);
	free(e->ti);
	trace_free(&e->t);
	free(e);
	return rc;
}
