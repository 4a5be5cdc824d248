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
 * earlier call of its client and holds back that client's later ones until
 * its reply (other clients': replay_deps.c); a call whose
 * handle is not mapped yet waits until nothing is in flight (the call
 * that names it may still be).  Concurrency: at most as many calls in
 * flight as the trace had when it sent the call (or --max-inflight).
 * Timing: the trace's send times divided by --speed (0: no waiting).
 *
 * Safety: calls that change state are refused unless --allow-mutations;
 * the only address contacted is --target (MOUNT, portmapper, NFS).
 *
 * This file: the entry point and the run.  The other parts
 * (replay_engine.h): replay_sched.c (when each call goes),
 * replay_one.c (a call as its own client; NFSv3 calls), replay_io.c
 * (polling, pacing, submitting), replay_learn.c (what the trace's
 * replies say, before replaying), replay_handles.c (path resolution),
 * replay_fhmap.c (the maps), replay_nfs3_args.c, replay_v4_send.c and
 * replay_v4_state.c (NFSv4 COMPOUNDs rewritten with the target's state),
 * replay_reply.c, replay_deleg.c (--delegations), replay_dry_run.c,
 * replay_report.c. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"
#include "src/clnt/mount.h"
#include "src/clnt/nfs3.h"

/* A replay client per traced client; e->v4s and e->cur at the first. */
static int replay_clients_init(struct engine *e)
{
	if (replay_clients(&e->t) < 0)
		return -ENOMEM;
	e->cl = calloc(e->t.nclients ? e->t.nclients : 1, sizeof(*e->cl));
	if (!e->cl)
		return -ENOMEM;
	for (unsigned k = 0; k < e->t.nclients; k++) {
		const struct tclient *c = &e->t.clients[k];
		char tag[32];
		if (e->o->group)
			snprintf(tag, sizeof(tag), "replay-g%u-c%u", e->o->group, k + 1);
		else
			snprintf(tag, sizeof(tag), "replay-c%u", k + 1);
		e->cl[k].v4 = c->vers == 4;
		for (size_t i = 0; i < e->t.n; i++) {
			const struct tcall *tc = &e->t.calls[i];
			if (tc->client == k && tc->replied && tc->t_reply >= tc->t_call)
				lhist_add(&e->cl[k].tlat, tc->t_reply - tc->t_call);
		}
		nfs41_session_init(&e->cl[k].s, c->vers == 4 ? c->minor : 1, tag);
	}
	for (unsigned k = 0; k < e->t.nclients; k++)
		e->cl[k].e = e;
	/* the first NFSv4 client's connection does the set-up's lookups */
	unsigned first = 0;
	while (first < e->t.nclients && !e->cl[first].v4)
		first++;
	e->cur = &e->cl[first < e->t.nclients ? first : 0];
	e->v4s = &e->cur->s;
	return 0;
}

/* Whether any call of the trace would be refused without
 * --allow-mutations (replay_one_call, replay_one_v4). */
static bool trace_mutates(const struct engine *e)
{
	for (size_t i = 0; i < e->t.n; i++) {
		const struct tcall *tc = &e->t.calls[i];
		struct nfs4_call_info in;
		if (tc->prog == PROG_NFS && tc->vers == 4) {
			if (tc->proc == 1 && tc->v4known &&
			    nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) == 0 && in.mutates)
				return true;
		} else if (tc->prog == PROG_NFSACL ? tc->proc == 2 :
			   tc->prog == PROG_NFS && tc->vers == 3 && nfs3_is_mutation(tc->proc)) {
			return true;
		}
	}
	return false;
}

/* --per-call's lines: stdout stays one JSON object under --json; they go to
 * stderr then, buffered (a write per line would be the replay's own
 * lateness). */
static void per_call_out(struct engine *e, FILE *out)
{
	e->vout = out;
	if (!e->o->json || !e->o->per_call)
		return;
	int fd = dup(STDERR_FILENO);
	e->vout = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!e->vout) {
		if (fd >= 0)
			close(fd);
		e->vout = stderr;
	} else {
		setvbuf(e->vout, NULL, _IOFBF, 1 << 16);
	}
}

/* The largest READ or WRITE payload the trace moves (at least 64 KB, at
 * most 1 MB): the connections' bulk buffers. */
static uint32_t max_bulk(const struct engine *e)
{
	uint32_t maxbulk = 65536;
	for (size_t i = 0; i < e->t.n; i++) {
		struct layout l;
		struct nfs4_call_info in;
		const struct tcall *tc = &e->t.calls[i];
		if (tc->prog == PROG_NFS && tc->vers == 4 && tc->v4known &&
		    nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in) == 0) {
			if (in.read_count > maxbulk && in.read_count <= (1u << 20))
				maxbulk = in.read_count;
			if (in.ddp_len > maxbulk && in.ddp_len <= (1u << 20))
				maxbulk = in.ddp_len;
			continue;
		}
		if (e->t.calls[i].prog == PROG_NFS && e->t.calls[i].vers == 3 &&
		    replay_nfs3_layout(&e->t.calls[i], &l)) {
			if (l.count > maxbulk && l.count <= (1u << 20))
				maxbulk = l.count;
			if (l.ddp_len > maxbulk)
				maxbulk = l.ddp_len;
		}
	}
	return maxbulk;
}

/* The run's exit status from what became of its calls (and, for a
 * --clients group, its result for the parent). */
static int run_status(struct engine *e, int ret, double secs)
{
	const struct replay_opts *o = e->o;
	int rc;
	uint64_t mism = 0, errs = 0, refused = 0, skipped = 0, unsup = 0;
	for (unsigned k = 0; k <= REPLAY_ROWS; k++) {
		mism += e->op[k].mismatch;
		errs += e->op[k].errors;
		refused += e->op[k].refused;
		skipped += e->op[k].skipped;
		unsup += e->op[k].unsupported;
	}
	/* a call that could not be replayed is a failure, never a success */
	if (e->lost || ret < 0)
		rc = 2;
	else if (mism || errs || unsup || (skipped && !refused))
		rc = 1;
	else if (refused)
		rc = 4;
	else
		rc = 0;
	if (e->lost)
		log_error("%" PRIu64 " call(s) lost in flight (connection dropped)", e->lost);
	if (o->result) {
		struct replay_group_result *r = o->result;
		r->rc = rc;
		r->secs = secs;
		r->lost = e->lost;
		for (unsigned k = 0; k <= REPLAY_ROWS; k++) {
			r->trace += e->op[k].trace;
			r->replayed += e->op[k].replayed;
			r->ok += e->op[k].ok;
			r->mismatch += e->op[k].mismatch;
			r->errors += e->op[k].errors;
			r->unsupported += e->op[k].unsupported;
		}
	}
	return rc;
}

/* Everything the run held, in reverse order of setup. */
static void engine_free(struct engine *e, FILE *out)
{
	if (e->rc) {
		for (uint32_t k = 0; k < e->nrc; k++) {
			free(e->rc[k].buf);
			free(e->rc[k].data);
			free(e->rc[k].use);
		}
		free(e->rc);
	}
	if (e->cl)
		replay_callbacks_stop(e);
	replay_conns_close(e);
	late_stop(&e->late);
	if (e->vout && e->vout != out && e->vout != stderr)
		fclose(e->vout);
	fhmap_free(&e->tmap);
	fhmap_free(&e->tparent);
	fhmap_free(&e->tname);
	fhmap_free(&e->edges);
	fhmap_free(&e->refused);
	fhmap_free(&e->sidmap);
	fhmap_free(&e->delegmap);
	fhmap_free(&e->closedmap);
	fhmap_free(&e->grantmap);
	fhmap_free(&e->recalledmap);
	fhmap_free(&e->cidmap);
	fhmap_free(&e->sessmap);
	nfs40_owners_free(&e->owners);
	free(e->cl);
	free(e->setup);
	free(e->ti);
	trace_free(&e->t);
	free(e);
}

int replay_run(const struct replay_opts *o, FILE *out)
{
	struct engine *e = calloc(1, sizeof(*e));
	char err[512], cut[512] = "";
	int ret, rc = REPLAY_EXIT_FAILED;   /* until the replay runs: a set-up failure */

	if (!e)
		return REPLAY_EXIT_FAILED;
	e->o = o;
	e->out = out;
	per_call_out(e, out);
	/* A trace cut short mid-record: its calls so far are replayed (or
	 * listed), then where it ends is said, and the status is 1. */
	ret = trace_load(&e->t, o->trace, err, sizeof(err));
	if (ret == -EIO) {
		snprintf(cut, sizeof(cut), "%s", err);
		ret = 0;
	}
	if (ret < 0) {
		log_error("%s", err);
		goto out;
	}
	if (!e->t.n) {
		if (!cut[0])   /* cut short: where it ends says why, below */
			replay_report_no_calls(e);
		rc = REPLAY_EXIT_NOTHING;
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
	if (o->max_idle_ns && o->speed > 0) {
		trace_cut_idle(&e->t, o->max_idle_ns, &e->idle);
		log_info("replay: --max-idle: %" PRIu64 " idle stretch(es) of the trace cut to %.3f s, %.3f s less",
			 e->idle.stretches, (double)o->max_idle_ns / 1e9, (double)e->idle.removed_ns / 1e9);
	}
	e->ti = calloc(e->t.n, sizeof(*e->ti));
	if (!e->ti)
		goto out;
	replay_rows(e);
	if (e->t.have_root) {
		e->troot = e->t.root;
		e->have_troot = true;
	}
	replay_prepass(e);
	replay_trace_latencies(e);
	if (replay_clients_init(e) < 0)
		goto out;
	replay_deps(e);
	if (o->probe_mutates) {
		rc = trace_mutates(e) ? REPLAY_MUTATES : 0;
		goto out;
	}
	if (o->dry_run) {
		rc = replay_dry_run(e);
		goto out;
	}
	rpc_cred_sys(&e->cred, 0, 0);
	bool need_mount = false;
	for (size_t i = 0; i < e->t.n; i++)
		need_mount |= e->t.calls[i].vers == 3;
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
	uint32_t maxbulk = max_bulk(e);
	uint32_t slots = o->slots ? o->slots : 32;
	e->slots = slots;
	struct xprt_opts xo = { .host = o->target, .port = o->port, .slots = slots,
				.max_bulk = maxbulk, .reply_chunk_max = 72 * 1024,
				.reconnect_ms = o->reconnect_ms, .busy_poll = o->busy_poll,
				.moderate_us = o->moderate_us };
	bool tcp = o->transport && !strcmp(o->transport, "tcp");
	if ((ret = replay_conns_open(e, &xo, tcp)) < 0)
		goto out;
	e->x = e->cur->x[0];
	/* a call slot for every credit of every connection */
	e->nrc = slots * e->nxs;
	e->rc = calloc(e->nrc, sizeof(*e->rc));
	if (!e->rc)
		goto out;
	if (o->delegations && e->v4 && (ret = replay_serve_callbacks(e)) < 0)
		goto out;
	log_info("replay: %zu calls, %" PRIu64 " trace retransmits, root %s", e->t.n, e->t.retransmits,
		 e->t.have_root ? "from the trace's MOUNT" : !e->have_troot ? "unknown" :
		 e->v4 ? "from its PUTROOTFH" : "from its first FSINFO");

	if (replay_export_root(e) < 0)
		goto out;
	if (o->group && replay_group_root(e) < 0)
		goto out;
	if (replay_setup_own(e) < 0)
		goto out;
	/* before the clock starts: locking the memory takes a while */
	replay_timing_setup(o);
	uint64_t t0 = xprt_now_ns(), t0_trace = e->t.calls[0].t_call;
	e->t0 = t0;
	e->t0_trace = t0_trace;
	ret = replay_schedule(e);
	if (ret == 0)
		ret = replay_wait_all(e);
	/* NFSv4.0 has no DESTROY_CLIENTID: the replay's client ID and what
	 * the trace left open expire with the lease */
	for (unsigned k = 0; ret == 0 && k < e->t.nclients; k++) {
		struct nfs41_session *s = &e->cl[k].s;
		/* what the trace did not destroy itself (or the replay's own) */
		if (e->cl[k].v4 && s->minor && (s->have_session || s->have_client))
			nfs41_session_close(e->cl[k].x[0], s, &e->cred);
	}
	if (ret < 0) {
		for (size_t i = 0; i < e->t.n; i++)
			e->not_sent += !e->ti[i].issued;
		log_error("replay stopped: %s; %" PRIu64 " call(s) not sent", strerror(-ret), e->not_sent);
	}
	double secs = (double)(xprt_now_ns() - t0) / 1e9;
	rc = run_status(e, ret, secs);
	replay_report(e, secs, rc);
out:
	if (cut[0]) {
		fflush(out);
		log_error("%s", cut);
		if (rc == 0 || !e->t.n)
			rc = 1;
	}
	engine_free(e, out);
	return rc;
}
