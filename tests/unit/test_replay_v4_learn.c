/* What the replay learns from the target's reply to an OPEN beside the
 * trace's (src/replay/replay_v4_state.c, replay_v4_learn): a delegation
 * the target granted where the trace's OPEN got none is queued to be
 * given back at once, with the handle of the file it is on (the GETFH
 * after the OPEN, else the handle the call's PUTFH went with); one the
 * trace's OPEN got too is not; nor is one whose trace OPEN failed.  The
 * replies are built by hand: SEQUENCE, PUTFH, OPEN [, GETFH].  Also: only
 * the first nsid stateids of a reply are its results; and (NFSv4.0,
 * replay_v40_after) an OPEN the target wants confirmed stays pending
 * until an OPEN_CONFIRM has run. */
#include "check.h"

#include <errno.h>

#include "src/replay/replay_engine.h"

static const uint8_t T_OPEN[12] = { 't', 'r', 'a', 'c', 'e', '-', 'o', 'p', 'e', 'n', 0, 1 };
static const uint8_t T_DELEG[12] = { 't', 'r', 'a', 'c', 'e', '-', 'd', 'e', 'l', 'e', 'g', 1 };
static const uint8_t G_OPEN[12] = { 't', 'a', 'r', 'g', 'e', 't', '-', 'o', 'p', 'e', 'n', 2 };
static const uint8_t G_DELEG[12] = { 't', 'a', 'r', 'g', 'e', 't', '-', 'd', 'e', 'l', 'e', 2 };
static const uint8_t T_LOCK[12] = { 't', 'r', 'a', 'c', 'e', '-', 'l', 'o', 'c', 'k', 0, 1 };
static const uint8_t G_STALE[12] = { 's', 't', 'a', 'l', 'e', '-', 's', 't', 'a', 't', 'e', 2 };

/* A reply: SEQUENCE, PUTFH, OPEN (status opst), and a GETFH of fh
 * (when given); the OPEN's stateid (other, seqid 1), and a READ
 * delegation (deleg, seqid 1) when given. */
static void reply(struct nfs4_res *r, uint32_t opst, const uint8_t open[12], const uint8_t *deleg,
		  const struct nfs_fh *fh)
{
	memset(r, 0, sizeof(*r));
	r->has_status = r->complete = true;
	r->status = opst;
	uint32_t ops[4] = { NFS4_OP_SEQUENCE, NFS4_OP_PUTFH, NFS4_OP_OPEN, NFS4_OP_GETFH };
	r->nres = fh && !opst ? 4 : 3;
	for (unsigned k = 0; k < r->nres; k++) {
		r->op[k] = ops[k];
		r->opst[k] = k == 2 ? opst : 0;
	}
	if (opst)
		return;
	r->sid[0].seqid = 1;
	memcpy(r->sid[0].other, open, 12);
	r->sid_at[0] = 2;
	r->nsid = 1;
	if (deleg) {
		r->deleg[0].seqid = 1;
		memcpy(r->deleg[0].other, deleg, 12);
		r->deleg_at[0] = 2;
		r->deleg_type[0] = 1;
		r->ndeleg = 1;
	}
	if (fh) {
		r->fh[0] = *fh;
		r->fh_at[0] = 3;
		r->nfh = 1;
	}
}

static struct nfs_fh fh_of(uint8_t tag)
{
	struct nfs_fh f = { .len = 16 };
	memset(f.data, tag, 16);
	return f;
}

/* A fresh engine with one NFSv4.1 client, the current one. */
static struct engine *engine(struct rclient *cl)
{
	static struct engine e;
	fhmap_free(&e.tmap);
	fhmap_free(&e.sidmap);
	fhmap_free(&e.delegmap);
	fhmap_free(&e.grantmap);
	memset(&e, 0, sizeof(e));
	memset(cl, 0, sizeof(*cl));
	cl->v4 = true;
	cl->s.minor = 1;
	cl->e = &e;
	e.cl = cl;
	e.cur = cl;
	e.v4s = &cl->s;
	e.t.nclients = 1;
	return &e;
}

static bool sid_is(const struct nfs4_stateid *s, const uint8_t other[12], uint32_t seqid)
{
	return s->seqid == seqid && memcmp(s->other, other, 12) == 0;
}

/* OPEN by name: the target granted a delegation, the trace's OPEN none */
static void test_unasked_by_name(void)
{
	struct rclient cl;
	struct engine *e = engine(&cl);
	struct nfs4_res tr, rr;
	struct nfs_fh tfh = fh_of(0x11), gfh = fh_of(0x22);
	reply(&tr, 0, T_OPEN, NULL, &tfh);
	reply(&rr, 0, G_OPEN, G_DELEG, &gfh);
	replay_v4_learn(e, &rr, &tr);
	CHECK(cl.nrecalls == 1, "the delegation the trace's OPEN did not get is queued to go back (%u)",
	      cl.nrecalls);
	CHECK(cl.nrecalls == 1 && sid_is(&cl.recalls[0].sid, G_DELEG, 1),
	      "with the target's delegation stateid");
	CHECK(cl.nrecalls == 1 && fhmap_fh_eq(&cl.recalls[0].fh, &gfh),
	      "on the handle of the file the OPEN opened (its GETFH)");
	CHECK_EQ_U64(e->delegs_unasked, 1);
	/* the trace's open stateid still maps to the target's open stateid */
	struct nfs4_stateid t = { .seqid = 1 }, g;
	memcpy(t.other, T_OPEN, 12);
	CHECK(replay_v4_map_stateid(e, &t, &g) == 0 && sid_is(&g, G_OPEN, 1),
	      "trace open -> target open, not the delegation");
	CHECK_EQ_U64(e->delegs_granted, 0);
}

/* OPEN by handle (a reopen: no GETFH): the handle its PUTFH went with */
static void test_unasked_by_handle(void)
{
	struct rclient cl;
	struct engine *e = engine(&cl);
	struct nfs4_res tr, rr;
	struct nfs_fh put = fh_of(0x33);
	reply(&tr, 0, T_OPEN, NULL, NULL);
	reply(&rr, 0, G_OPEN, G_DELEG, NULL);
	e->learn_putfh = &put;
	replay_v4_learn(e, &rr, &tr);
	CHECK(cl.nrecalls == 1 && fhmap_fh_eq(&cl.recalls[0].fh, &put) && sid_is(&cl.recalls[0].sid, G_DELEG, 1),
	      "OPEN by handle: given back on the PUTFH's handle (%u queued)", cl.nrecalls);
	/* no handle to give it back on: counted, not queued */
	e = engine(&cl);
	replay_v4_learn(e, &rr, &tr);
	CHECK(cl.nrecalls == 0 && e->recalls_dropped == 1 && e->delegs_unasked == 0,
	      "no handle: not queued, counted as not given back (%u, %" PRIu64 ")", cl.nrecalls,
	      e->recalls_dropped);
}

/* The trace's OPEN got a delegation too: mapped, not given back; the
 * target granted none: nothing to give back; the trace's OPEN failed or
 * there is no trace reply: nothing known, nothing given back */
static void test_not_unasked(void)
{
	struct rclient cl;
	struct engine *e = engine(&cl);
	struct nfs4_res tr, rr;
	struct nfs_fh tfh = fh_of(0x11), gfh = fh_of(0x22);
	reply(&tr, 0, T_OPEN, T_DELEG, &tfh);
	reply(&rr, 0, G_OPEN, G_DELEG, &gfh);
	replay_v4_learn(e, &rr, &tr);
	CHECK(cl.nrecalls == 0 && e->delegs_granted == 1 && e->delegs_unasked == 0,
	      "a delegation the trace's OPEN got too stays (%u queued, %" PRIu64 " granted)", cl.nrecalls,
	      e->delegs_granted);
	e = engine(&cl);
	reply(&tr, 0, T_OPEN, NULL, &tfh);
	reply(&rr, 0, G_OPEN, NULL, &gfh);
	replay_v4_learn(e, &rr, &tr);
	CHECK(cl.nrecalls == 0, "no delegation granted, none given back");
	e = engine(&cl);
	reply(&tr, 10015, T_OPEN, NULL, NULL);   /* NFS4ERR_SHARE_DENIED */
	reply(&rr, 0, G_OPEN, G_DELEG, &gfh);
	replay_v4_learn(e, &rr, &tr);
	CHECK(cl.nrecalls == 0, "the trace's OPEN failed: not known to be unasked");
	e = engine(&cl);
	replay_v4_learn(e, &rr, NULL);
	CHECK(cl.nrecalls == 0, "no trace reply: not known to be unasked");
	engine(&cl);
}

/* One host's v4.1 and v4.2 clients whose OPENs the trace's server gave
 * the same stateid "other" (a server numbering stateids per client):
 * each client's later calls go with the stateid the target gave it, at
 * its own seqid */
static void test_two_clients(void)
{
	static struct rclient cl[2];
	struct engine *e = engine(&cl[0]);
	memset(&cl[1], 0, sizeof(cl[1]));
	cl[1].v4 = true;
	cl[1].s.minor = 2;
	cl[1].e = e;
	e->t.nclients = 2;
	struct nfs4_res tr, rr;
	struct nfs_fh tfh = fh_of(0x11), gfh = fh_of(0x22);
	reply(&tr, 0, T_OPEN, NULL, &tfh);
	reply(&rr, 0, G_OPEN, NULL, &gfh);
	replay_v4_learn(e, &rr, &tr);            /* the v4.1 client's OPEN */
	e->cur = &cl[1];
	e->v4s = &cl[1].s;
	reply(&rr, 0, G_DELEG, NULL, &gfh);      /* the v4.2 client's: another target stateid */
	rr.sid[0].seqid = 3;
	replay_v4_learn(e, &rr, &tr);
	struct nfs4_stateid t = { .seqid = 1 }, g;
	memset(&g, 0, sizeof(g));
	memcpy(t.other, T_OPEN, 12);
	CHECK(replay_v4_map_stateid(e, &t, &g) == 0 && sid_is(&g, G_DELEG, 3),
	      "v4.2 client: the target's stateid of its own OPEN, at its seqid (%u)", g.seqid);
	e->cur = &cl[0];
	e->v4s = &cl[0].s;
	memset(&g, 0, sizeof(g));
	CHECK(replay_v4_map_stateid(e, &t, &g) == 0 && sid_is(&g, G_OPEN, 1),
	      "v4.1 client: the target's stateid of its own OPEN, not the v4.2 client's (seqid %u, %s)",
	      g.seqid, memcmp(g.other, G_OPEN, 12) ? "another stateid" : "its stateid");
	engine(&cl[0]);
}

/* Only the first nsid stateids of a reply are its results: a slot past
 * them (here a stale stateid left by an earlier decode into the same
 * struct) maps nothing.  The trace's reply: the OPEN's stateid (op 2) and
 * a LOCK's (op 3); the target's: the OPEN's alone, its LOCK refused
 * (NFS4ERR_DENIED), with slot 1 naming op 3. */
static void test_sid_past_nsid(void)
{
	struct rclient cl;
	struct engine *e = engine(&cl);
	struct nfs4_res tr, rr;
	reply(&tr, 0, T_OPEN, NULL, NULL);
	reply(&rr, 0, G_OPEN, NULL, NULL);
	tr.nres = rr.nres = 4;
	tr.op[3] = rr.op[3] = NFS4_OP_LOCK;
	rr.opst[3] = rr.status = 10010;
	tr.sid[1].seqid = 1;
	memcpy(tr.sid[1].other, T_LOCK, 12);
	tr.sid_at[1] = 3;
	tr.nsid = 2;
	rr.sid[1].seqid = 1;
	memcpy(rr.sid[1].other, G_STALE, 12);
	rr.sid_at[1] = 3;
	replay_v4_learn(e, &rr, &tr);
	struct nfs4_stateid t = { .seqid = 1 }, g;
	memcpy(t.other, T_OPEN, 12);
	memset(&g, 0, sizeof(g));
	CHECK(replay_v4_map_stateid(e, &t, &g) == 0 && sid_is(&g, G_OPEN, 1), "trace open -> target open");
	memcpy(t.other, T_LOCK, 12);
	memset(&g, 0, sizeof(g));
	int ret = replay_v4_map_stateid(e, &t, &g);
	CHECK(ret == -ENOENT, "the trace's lock stateid maps to nothing the target gave (%d, %s)", ret,
	      memcmp(g.other, G_STALE, 12) ? "not the stale one" : "the stale one");
	engine(&cl);
}

/* NFSv4.0: an OPEN the target wants confirmed stays pending (sent before
 * the next call) until an OPEN_CONFIRM has run: not settled by another op
 * of the owner that ran (a CLOSE, whose seqid advances: RFC 7530 9.1.7),
 * settled by the trace's own OPEN_CONFIRM that ran, not by one the
 * COMPOUND never reached (its PUTFH failed: NFS4ERR_STALE). */
static void test_v40_confirm_pending(void)
{
	struct rclient cl;
	struct engine *e = engine(&cl);
	struct nfs40_owner o;
	memset(&o, 0, sizeof(o));
	o.seqid = 5;
	struct v40use u = { .o = &o, .idx = 1, .op = NFS4_OP_CLOSE, .seqid = 5 };
	struct rcall rc;
	memset(&rc, 0, sizeof(rc));
	rc.use = &u;
	rc.nuse = 1;
	struct nfs4_res rr;
	memset(&rr, 0, sizeof(rr));
	rr.has_status = rr.complete = true;
	rr.nres = 2;
	rr.op[0] = NFS4_OP_PUTFH;
	rr.op[1] = NFS4_OP_CLOSE;
	e->v40_confirm = true;
	replay_v40_after(e, &rc, &rr, NULL);
	CHECK(e->v40_confirm, "a CLOSE that ran leaves the OPEN to confirm pending");
	CHECK_EQ_U64(o.seqid, 6);

	u.op = rr.op[1] = NFS4_OP_OPEN_CONFIRM;
	u.seqid = 6;
	replay_v40_after(e, &rc, &rr, NULL);
	CHECK(!e->v40_confirm, "the trace's OPEN_CONFIRM that ran settles it");
	CHECK_EQ_U64(o.seqid, 7);

	e->v40_confirm = true;
	u.seqid = 7;
	rr.nres = 1;
	rr.status = rr.opst[0] = 70;
	replay_v40_after(e, &rc, &rr, NULL);
	CHECK(e->v40_confirm, "an OPEN_CONFIRM the COMPOUND never reached does not");
	CHECK_EQ_U64(o.seqid, 7);
	engine(&cl);
}

int main(void)
{
	test_unasked_by_name();
	test_unasked_by_handle();
	test_not_unasked();
	test_two_clients();
	test_sid_past_nsid();
	test_v40_confirm_pending();
	return check_summary("test_replay_v4_learn");
}
