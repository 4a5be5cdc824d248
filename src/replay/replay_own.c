/* NFSv4 COMPOUNDs of the replay's own (not in the trace), sent without
 * waiting for their replies: the DELEGRETURN of a recalled delegation,
 * the set-up of a client's own session or client ID before the schedule
 * starts.  Each goes on its client's connection, under its session's
 * SEQUENCE when it has one and asks for it, and counts among that
 * client's calls in flight (its own later changes wait for it, no other
 * client does); its reply comes to a done callback inside the
 * transport's poll, like the trace's calls. */
#include "src/replay/replay_engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/clnt/nfs3.h"

struct own_call {
	struct xprt_req req;
	struct rclient *cl;
	int slot;                 /* SEQUENCE slot (-1: none) */
	uint32_t seq;
	replay_own_fn done;
	void *ctx;
	uint8_t buf[2048];
};

static void own_done(struct xprt_req *req, const struct xprt_reply *rep)
{
	struct own_call *oc = req->ctx;
	struct rclient *cl = oc->cl;
	static struct nfs4_res r;   /* one reply at a time: the poll is single-threaded */
	int err = rep->err;

	memset(&r, 0, sizeof(r));
	cl->inflight--;
	cl->last_done_ns = rep->t_done_ns ? rep->t_done_ns : xprt_now_ns();
	if (!err && (nfs4_decode_reply(1, rep->msg, rep->len, rep->bulk_moved, &r) < 0 || r.rpc_status))
		err = -EPROTO;
	nfs41_slot_put(&cl->s, oc->slot, oc->seq, !err && r.has_seq && r.seq_status == 0,
		       err == -EPIPE);
	oc->done(oc->ctx, cl, err ? NULL : &r, err, cl->last_done_ns - req->t_submit_ns);
	free(oc);
}

int replay_own_submit(struct engine *e, struct rclient *cl, struct xprt *x, bool sequence,
		      nfs41_build_fn build, void *bctx, uint32_t reply_max, replay_own_fn done, void *ctx)
{
	struct own_call *oc = calloc(1, sizeof(*oc));
	struct xenc enc;
	int ret;

	if (!oc)
		return -ENOMEM;
	oc->cl = cl;
	oc->slot = -1;
	oc->done = done;
	oc->ctx = ctx;
	xenc_init(&enc, oc->buf, sizeof(oc->buf));
	size_t at = nfs4_compound_begin(&enc, &e->cred, cl->s.minor);
	unsigned n = 0;
	if (sequence && cl->s.have_session) {
		if ((oc->slot = nfs41_slot_get(&cl->s, &oc->seq)) < 0) {
			free(oc);
			return -EAGAIN;      /* its replies free a slot */
		}
		nfs4_enc_sequence(&enc, cl->s.sessionid, oc->seq, (uint32_t)oc->slot, nfs41_highest(&cl->s),
				  false);
		n++;
	}
	n += build(&enc, bctx);
	nfs4_compound_end(&enc, at, n);
	if (!xenc_ok(&enc)) {
		nfs41_slot_put(&cl->s, oc->slot, oc->seq, false, false);
		free(oc);
		return -EMSGSIZE;
	}
	oc->req.msg = oc->buf;
	oc->req.len = enc.len;
	oc->req.reply_max = reply_max ? reply_max : 1024;
	oc->req.done = own_done;
	oc->req.ctx = oc;
	if ((ret = xprt_submit(x, &oc->req)) < 0) {
		/* -EAGAIN: no credit now; the caller tries again after a poll */
		nfs41_slot_put(&cl->s, oc->slot, oc->seq, false, false);
		free(oc);
		return ret;
	}
	cl->inflight++;
	return 0;
}
