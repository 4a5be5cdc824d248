/* One traced call replayed: as its own client (its connection, session
 * and slots), an NFSv3 or NFSACL call built here, an NFSv4 COMPOUND by
 * replay_v4_send.c; called by the scheduler (replay_sched.c) and the
 * call built ahead of its time (replay_prebuild.c). */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"

/* Builds and submits call i.  Returns 0 (sent or counted as skipped) or
 * -ENOTCONN. */
static int replay_one_call(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0)
{
	struct tcall *tc = &e->t.calls[i];
	struct opstat *os = &e->op[tc->row];
	const struct replay_opts *o = e->o;
	int ret;

	os->trace++;
	if (tc->prog == PROG_NFS && tc->vers == 4)
		return replay_one_v4(e, i, t0_trace, t0, os);
	if (!(tc->prog == PROG_NFS && tc->vers == 3) && tc->prog != PROG_NFSACL) {
		os->unsupported++;
		return 0;
	}
	bool mut = tc->prog == PROG_NFSACL ? tc->proc == 2 : nfs3_is_mutation(tc->proc);
	struct layout l;
	bool parsed = replay_nfs3_layout(tc, &l);
	if (mut && !o->allow_mutations) {
		os->refused++;
		if (e->ti[i].has_child)
			fhmap_put(&e->refused, &e->ti[i].child, NULL, &e->ti[i].child, false);
		return 0;
	}
	if (!parsed) {
		os->skipped++;
		return 0;
	}
	bool barrier = mut && tc->proc != NFS3P_WRITE && tc->proc != NFS3P_COMMIT;
	/* a change waits for its client's earlier calls, and holds its
	 * client's later ones; other clients' wait only where they depend
	 * on it (replay_deps.c) */
	if (barrier || e->cur->barrier_pending) {
		if ((ret = replay_wait_client(e)) < 0)
			return ret;
		e->cur->barrier_pending = false;
	}
	/* map the handles */
	struct nfs_fh mapped[MAXREFS];
	for (unsigned k = 0; k < l.nref; k++) {
		if (!fhmap_get(&e->tmap, &l.ref[k].fh, NULL) && e->cur->inflight && !e->ti[i].retried) {
			os->trace--;
			return REPLAY_RETRY;   /* its client's call in flight may name it */
		}
		if (!fhmap_get(&e->tmap, &l.ref[k].fh, NULL) && replay_inflight_all(e)) {
			/* any call in flight may name it: every client waits */
			uint64_t t = xprt_now_ns();
			ret = replay_wait_all(e);
			replay_blocked(e, BLOCK_PATH, t);
			if (ret < 0)
				return ret;
		}
		ret = replay_resolve(e, &l.ref[k].fh, &mapped[k], 0);
		if (ret == -ENOTCONN || ret == -ETIMEDOUT || ret == -EPIPE)
			return -ENOTCONN;
		if (ret < 0) {
			if (ret == -EPERM)
				os->dep_refused++;
			else
				os->skipped++;
			e->unmapped++;
			if (e->ti[i].has_child)
				fhmap_put(&e->refused, &e->ti[i].child, NULL, &e->ti[i].child, false);
			if (o->per_call)
				fprintf(e->vout, "  xid 0x%08x %s: handle not mapped (%s)\n", tc->xid,
					tc->name, ret == -EPERM ?
					"named by a refused call" : "no path to it on the target");
			return 0;
		}
	}
	/* timing */
	if ((ret = replay_pace(e, tc, t0_trace, t0)) < 0)
		return ret;
	/* concurrency */
	struct rcall *rc;
	if ((ret = replay_wait_rcall(e, tc, &rc)) < 0)
		return ret;

	/* build: header + args with mapped handles */
	size_t args_len = l.has_ddp ? l.ddp_at + 4 : tc->args_len;
	size_t cap = 512 + args_len + MAXREFS * NFS4_FHSIZE_MAX;
	uint8_t *buf = replay_rcall_buf(rc, cap);
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
	if (tc->prog == PROG_NFS && (tc->proc == NFS3P_READ))
		rc->req.wchunk = l.count;
	rc->req.reply_max = tc->prog == PROG_NFSACL ? (tc->proc == 1 ? 8192 : 512) :
			    nfs3_reply_max(tc->proc, l.count);
	rc->has_tdir = l.nref > 0;
	if (l.nref)
		rc->tdir = mapped[0];
	if ((ret = replay_submit(e, rc, i)) < 0)
		return replay_submit_failed(rc, os, ret);
	return replay_submitted(e, rc, os, barrier);
}

/* Call i as its own client: that client's client ID, session, slots and
 * connection.  The scheduler (replay_sched.c) has held it until the other
 * client's change (or look) it depends on was in. */
int replay_one(struct engine *e, size_t i, uint64_t t0_trace, uint64_t t0)
{
	const struct tcall *tc = &e->t.calls[i];
	const struct opstat *os = &e->op[tc->row];
	struct rclient *cl = &e->cl[tc->client];
	uint64_t sent = os->replayed, unsup = os->unsupported;

	if (e->ti[i].hold == HOLD_DEP && e->o->per_call)
		fprintf(e->vout, "  xid 0x%08x %s: held for call #%" PRIu64 " of another client\n",
			tc->xid, tc->name, e->ti[i].dep);
	e->cur = cl;
	e->v4s = &cl->s;
	e->x = cl->x[e->ti[i].xi];
	int ret = replay_one_call(e, i, t0_trace, t0);
	if (ret == REPLAY_RETRY || ret == REPLAY_BUILT)
		return ret;   /* its client's counts: when it goes */
	cl->trace++;
	cl->replayed += os->replayed - sent;
	cl->unsupported += os->unsupported - unsup;
	return ret;
}
