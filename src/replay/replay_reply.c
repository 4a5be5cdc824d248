/* A replayed call's reply: latency, bytes, what it names on the target,
 * and whether its status is the one the trace recorded (mismatches are
 * noted for the report). */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/nfs_status.h"
#include "src/clnt/nfs3.h"

static void note_mismatch(struct engine *e, const struct tcall *tc, uint32_t rpc, uint32_t st, int err)
{
	e->mm_total++;
	if (e->nmm >= sizeof(e->mm) / sizeof(e->mm[0]))
		return;
	struct mismatch *m = &e->mm[e->nmm++];
	m->xid = tc->xid;
	snprintf(m->name, sizeof(m->name), "%s", tc->name);
	m->frame = tc->frame;
	m->trpc = tc->rpc_status;
	m->tstat = tc->status;
	m->rpc = rpc;
	m->stat = st;
	m->err = err;
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
	for (unsigned k = 0; k < n; k++) {
		/* --export, --clients: the trace's PUTROOTFH went as PUTFH of the root */
		bool root = rr->op[k] == NFS4_OP_PUTFH && tr->op[k] == NFS4_OP_PUTROOTFH;
		if ((rr->op[k] != tr->op[k] && !root) || rr->opst[k] != tr->opst[k])
			return false;
	}
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
	if (e->o->per_call)
		fprintf(e->vout, "  xid 0x%08x %s: %s\n", tc->xid, tc->name,
			rep->err == -EPIPE ? "lost in flight" : strerror(-rep->err));
}

static void v4_done(struct rcall *rc, struct xprt_req *req, const struct xprt_reply *rep)
{
	struct engine *e = rc->e;
	struct tcall *tc = &e->t.calls[rc->idx];
	struct opstat *os = &e->op[tc->row];
	static struct nfs4_res rr, tr;
	bool have_tr = false;

	if (rep->err) {
		nfs41_slot_put(e->v4s, rc->slot, rc->seq, false, rep->err == -EPIPE);
		count_failed(e, tc, os, rep);
		return;
	}
	lhist_add(&os->lat, rep->t_done_ns - req->t_submit_ns);
	if (nfs4_decode_reply(tc->proc, rep->msg, rep->len, rep->bulk_moved, &rr) < 0) {
		nfs41_slot_put(e->v4s, rc->slot, rc->seq, false, false);
		os->errors++;
		note_mismatch(e, tc, REPLAY_UNDECODED, 0, -EBADMSG);
		return;
	}
	nfs41_slot_put(e->v4s, rc->slot, rc->seq, rr.has_seq && rr.seq_status == 0, false);
	if (e->v4s->back_channel && rr.has_seq && rr.seq_status == 0 &&
	    (rr.seq_flags & (NFS4_SEQ4_STATUS_CB_PATH_DOWN | NFS4_SEQ4_STATUS_CB_PATH_DOWN_SESSION |
			     NFS4_SEQ4_STATUS_BACKCHANNEL_FAULT))) {
		/* the target cannot call back: it would recall in vain */
		e->cb_path_down++;
		e->cur->bind_wanted = true;
	}
	if (tc->res && tc->rpc_status == 0 && tc->proc == 1) {
		memset(&tr, 0, sizeof(tr));
		nfs4_decode_body(1, tc->res, tc->res_len, tc->res_moved, &tr);
		have_tr = true;
	}
	if (rr.rpc_status == 0) {
		e->learn_putfh = rc->has_putfh ? &rc->putfh : NULL;
		replay_v4_learn(e, &rr, have_tr ? &tr : NULL);
		e->learn_putfh = NULL;
		if (e->delegmap.n)
			replay_v4_note_closes(e, tc, &rr);
		if (rc->nuse)
			replay_v40_after(e, rc, &rr, have_tr ? &tr : NULL);
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
	if (e->o->per_call)
		fprintf(e->vout, "  xid 0x%08x -> 0x%08x %-16s trace %s replay %s%s\n", tc->xid, req->xid,
			tc->name, nfs_stat_name(tc->status), nfs_stat_name(rr.status),
			same ? "" : "  MISMATCH");
}

static void done_one(struct xprt_req *req, const struct xprt_reply *rep)
{
	struct rcall *rc = req->ctx;
	struct engine *e = rc->e;
	struct tcall *tc = &e->t.calls[rc->idx];
	struct opstat *os = &e->op[tc->row];

	rc->busy = false;
	free(rc->data);
	rc->data = NULL;
	if (e->o->disconnect && !e->drops && !rep->err && tc->xid == e->o->disconnect_xid) {
		e->drop_pending = true;  /* not here: the transport is inside its poll */
		e->drop_x = rc->x;
	}
	if (tc->prog == PROG_NFS && tc->vers == 4) {
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
	if (tc->prog == PROG_NFS && tc->vers == 3) {
		struct rdp_ctx c = { e, &rc->tdir, true };
		dret = nfs3_decode_reply(tc->proc, rep->msg, rep->len, rep->bulk_moved, &res,
					 tc->proc == NFS3P_READDIRPLUS && rc->has_tdir ? replay_rdp_entry : NULL, &c);
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
	if (tc->proc == NFS3P_READ && tc->prog == PROG_NFS) {
		uint64_t rd = xprt_reply_read_bytes(rep, res.count);
		os->bytes += rd;
		e->bytes_read += rd;
	} else if (tc->proc == NFS3P_WRITE && tc->prog == PROG_NFS) {
		os->bytes += res.count;
		e->bytes_written += res.count;
	}
	/* learn the mapping from what the reply named */
	if (res.has_fh && rc->has_tdir) {
		const struct tinfo *ti = &e->ti[rc->idx];
		struct layout l;
		if (ti->has_child)
			fhmap_put(&e->tmap, &ti->child, NULL, &res.fh, true);
		if (replay_nfs3_layout(tc, &l) && l.has_name)
			fhmap_put(&e->edges, &rc->tdir, l.name, &res.fh, true);
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
		   fhmap_get(&e->refused, &e->ti[rc->idx].child, NULL)) {
		/* e.g. LOOKUP of a name whose CREATE was refused: NOENT here */
		os->dep_refused++;
	} else {
		os->mismatch++;
		note_mismatch(e, tc, res.rpc_status, st, 0);
	}
	if (e->o->per_call)
		fprintf(e->vout, "  xid 0x%08x -> 0x%08x %-12s trace %s replay %s%s\n", tc->xid, req->xid,
			tc->name, nfs_stat_name(tc->status), nfs_stat_name(st),
			same ? "" : "  MISMATCH");
}

/* Runs inside the transport's poll, maybe while another client's call is
 * being built: the reply's own client's session for the time being. */
void replay_done(struct xprt_req *req, const struct xprt_reply *rep)
{
	struct rcall *rc = req->ctx;
	struct engine *e = rc->e;
	const struct tcall *tc = &e->t.calls[rc->idx];
	const struct opstat *os = &e->op[tc->row];
	struct rclient *cl = &e->cl[tc->client];
	struct nfs41_session *saved = e->v4s;
	struct rclient *saved_cur = e->cur;
	struct xprt *saved_x = e->x;
	uint64_t ok = os->ok, mism = os->mismatch, errs = os->errors + os->lost;
	uint64_t t_in = e->late.on ? xprt_now_ns() : 0;

	e->v4s = &cl->s;
	e->cur = cl;
	e->x = rc->x;
	e->ti[rc->idx].inflight = false;
	e->ti[rc->idx].t_done = rep->t_done_ns ? rep->t_done_ns : xprt_now_ns();
	cl->last_done_ns = e->ti[rc->idx].t_done;
	cl->inflight--;
	if (!rep->err)
		lhist_add(&cl->lat, rep->t_done_ns - req->t_submit_ns);
	done_one(req, rep);
	e->v4s = saved;
	e->cur = saved_cur;
	e->x = saved_x;
	cl->ok += os->ok - ok;
	cl->mismatch += os->mismatch - mism;
	cl->errors += os->errors + os->lost - errs;
	if (t_in)
		late_replies(&e->late, xprt_now_ns() - t_in);
}
