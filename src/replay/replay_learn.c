/* Before replaying: what the trace's own replies say.  The names they
 * give trace handles (NFSv3 LOOKUP, CREATE, READDIRPLUS ...; NFSv4 LOOKUP,
 * OPEN, CREATE + GETFH through the current filehandle), the trace's root,
 * each call's recorded concurrency, each COMPOUND's minor version and main
 * operation, and the trace's latencies. */
#include "src/replay/replay_engine.h"

#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_xdr_skip.h"
#include "src/clnt/nfs3.h"

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
		struct nfs4_open_args a;
		if (!nfs4_walk_open_args(&c, &a) || a.claim != NFS4_CLAIM_NULL)
			return false;
		p = a.name;
		n = a.name_len;
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
					replay_tpath_put(e, &parent, name, &r->fh[k]);
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
	e->v4 = true;
	if (!tc->res || tc->rpc_status != 0)
		return;
	struct nfs4_res r;
	memset(&r, 0, sizeof(r));
	nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &r);
	v4_trace_names(e, i, tc, &in, &r);
}

/* Learns the trace's names from its own replies (before replaying). */
void replay_prepass(struct engine *e)
{
	struct trace *t = &e->t;

	for (size_t i = 0; i < t->n; i++) {
		struct tcall *tc = &t->calls[i];
		/* recorded concurrency, on the call's own connection (each
		 * replays on a connection of its own) */
		uint32_t n = 1;
		for (size_t j = i, k = 0; j-- > 0 && k < 1024; k++) {
			const struct tcall *p = &t->calls[j];
			if (p->conn == tc->conn && (!p->replied || p->t_reply > tc->t_call))
				n++;
		}
		tc->inflight = n;
		if (tc->prog == PROG_NFS && tc->vers == 4)
			v4_prepass(e, i, tc);
		if (tc->prog != PROG_NFS || tc->vers != 3)
			continue;
		struct layout l;
		if (!replay_nfs3_layout(tc, &l))
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
				 tc->proc == NFS3P_READDIRPLUS ? replay_rdp_entry : NULL, &rc);
		if (res.has_fh && l.has_name) {
			e->ti[i].has_child = true;
			e->ti[i].child = res.fh;
			replay_tpath_put(e, &l.ref[0].fh, l.name, &res.fh);
		}
	}
	if (!e->have_troot) {
		for (size_t i = 0; i < t->n && !e->have_troot; i++) {
			struct layout l;
			if (t->calls[i].prog == PROG_NFS && t->calls[i].vers == 3 &&
			    replay_nfs3_layout(&t->calls[i], &l) && l.nref &&
			    !fhmap_get(&e->tparent, &l.ref[0].fh, NULL)) {
				e->troot = l.ref[0].fh;
				e->have_troot = true;
			}
		}
	}
}

void replay_trace_latencies(struct engine *e)
{
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		if (tc->replied && tc->t_reply >= tc->t_call)
			lhist_add(&e->op[tc->row].tlat, tc->t_reply - tc->t_call);
	}
}
