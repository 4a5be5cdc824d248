/* ONC RPC over TCP and UDP (RDMA_EV_RPC events of dissect/rpc_net.h) ->
 * calls and replies -> the same per-XID matching, program decoders and
 * records as RPC-over-RDMA, with the record's transport saying which.
 * The wire shows three phases here: the call's transfer (first to last
 * packet), the server (queue+server: last call packet to first reply
 * packet) and the reply's transfer.
 *
 * The two directions of a TCP connection are reassembled apart, so the
 * order messages come out in is not the order they were sent in: while
 * one direction waits for a hole to fill, the other goes on.  A reply
 * with no call yet therefore waits for it (rpc_hold.c) and the two pair
 * in either order; the times are each message's own packets', so the
 * phases do not depend on which came out first. */
#include <stdio.h>
#include <string.h>

#include "dissect/check.h"
#include "dissect/dissect_int.h"
#include "dissect/rpc.h"

static void rec_init_net(struct nfsrdma_record *r, const struct rdma_conn *c, int caller, uint32_t xid)
{
	r->rec_version = NFSRDMA_RECORD_VERSION;
	r->source = REC_SRC_WIRE;
	r->transport = c->ip_proto == 17 ? REC_TR_UDP : REC_TR_TCP;
	r->conn_id = c->id;
	r->xid = xid;
	dx_endpoint(&r->caller, &c->side[caller]);
	dx_endpoint(&r->callee, &c->side[caller ^ 1]);
	r->caller.ip_proto = r->callee.ip_proto = c->ip_proto;
	r->rpc_status = REC_RPC_NONE;
	r->status = REC_STATUS_NONE;
	r->call_rdma_proc = r->reply_rdma_proc = 0xff;
	for (unsigned i = 0; i < REC_MAX_OPS; i++)
		r->ops[i].status = REC_STATUS_NONE;
}

static void tree_msg(struct dissect *d, struct xentry *x, const struct net_msg *m, bool reply)
{
	if (!d->opts.tree)
		return;
	dt_add(&x->tree, "ONC RPC over %s: %s, %zu bytes in %u packet(s)%s",
	       m->ip_proto == 17 ? "UDP" : "TCP", reply ? "reply" : "call", m->msg_len, m->npkts,
	       m->flags & RDMA_EVF_INCOMPLETE ? " (bytes missing)" : "");
}

static void msg_of(struct net_msg *m, const struct rdma_event *ev)
{
	m->data = ev->data;
	m->len = ev->data_len;
	m->msg_len = ev->msg_len;
	m->ts_first = ev->ts_first_ns;
	m->ts_last = ev->ts_last_ns;
	m->frame_first = ev->frame_first;
	m->flags = ev->flags;
	m->npkts = ev->npkts;
	m->nretrans = ev->nretrans;
	m->ip_proto = ev->conn->ip_proto;
}

/* The call's half of x's record. */
static void call_fill(struct dissect *d, struct uconn *u, struct xentry *x, const struct rdma_event *ev)
{
	struct nfsrdma_record *r = &x->rec;
	struct net_msg m;

	msg_of(&m, ev);
	r->flags |= RECF_CALL;
	if (ev->flags & RDMA_EVF_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;
	rec_add_retrans(r, ev->nretrans);
	if (ev->flags & RDMA_EVF_INCOMPLETE)
		r->flags |= RECF_CALL_PARTIAL;
	r->t_call_first = ev->ts_first_ns;
	r->t_call_last = ev->ts_last_ns;
	r->frame_call = ev->frame_first;
	r->call_inline = (uint32_t)(ev->msg_len > UINT32_MAX ? UINT32_MAX : ev->msg_len);
	u->inflight[ev->dir]++;
	dx_note_attach(d, x, ev, DFR_CALL);
	tree_msg(d, x, &m, false);
	dx_decode_call(d, x, ev->data, ev->data_len, ev->frame_first, 0);
}

void dx_rpc_reply(struct dissect *d, struct xentry *x, const struct net_msg *m)
{
	struct nfsrdma_record *r = &x->rec;

	if (!(r->flags & RECF_CALL)) {
		d->st.unmatched_replies++;
		r->flags |= RECF_NO_CALL;
		rec_add_finding(r, FND_UNMATCHED_REPLY, r->xid, 0);
	}
	r->flags |= RECF_REPLY;
	if (m->flags & RDMA_EVF_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;
	rec_add_retrans(r, m->nretrans);
	if (m->flags & RDMA_EVF_INCOMPLETE)
		r->flags |= RECF_REPLY_PARTIAL;
	r->t_reply_first = m->ts_first;
	r->t_reply_last = m->ts_last;
	r->frame_reply = m->frame_first;
	r->reply_inline = (uint32_t)(m->msg_len > UINT32_MAX ? UINT32_MAX : m->msg_len);
	tree_msg(d, x, m, true);
	dx_decode_reply(d, x, m->data, m->len, m->frame_first, 0);
	dx_emit(d, x);
}

static void on_call(struct dissect *d, struct uconn *u, const struct rdma_event *ev, uint32_t xid)
{
	const struct rdma_conn *c = ev->conn;
	struct xentry *x = xid_find(&d->xids, c->id, ev->dir, xid);

	d->st.calls++;
	if (x && x->early) {
		/* its reply came out first: the pair is complete */
		call_fill(d, u, x, ev);
		dx_hold_pair(d, x);
		return;
	}
	if (x) {
		/* the same call again (a UDP or TCP retransmission): one RPC */
		x->rec.flags |= RECF_RETRANSMIT;
		dx_note_attach(d, x, ev, DFR_CALL);
		return;
	}
	if (!(x = xid_add(&d->xids, c->id, ev->dir, xid)))
		return;
	if (d->xids.count > d->st.max_inflight)
		d->st.max_inflight = d->xids.count;
	x->gap_epoch = u->gaps;
	rec_init_net(&x->rec, c, ev->dir, xid);
	call_fill(d, u, x, ev);
}

static void on_reply(struct dissect *d, struct uconn *u, const struct rdma_event *ev, uint32_t xid)
{
	const struct rdma_conn *c = ev->conn;
	struct xentry *x = xid_find(&d->xids, c->id, ev->dir ^ 1, xid);
	struct net_msg m;

	d->st.replies++;
	msg_of(&m, ev);
	if (x && x->early) {
		/* the reply again while it waits for its call */
		x->rec.flags |= RECF_RETRANSMIT;
		dx_note_attach(d, x, ev, DFR_REPLY);
		return;
	}
	if (!x) {
		if (!(x = xid_add(&d->xids, c->id, ev->dir ^ 1, xid)))
			return;
		rec_init_net(&x->rec, c, ev->dir ^ 1, xid);
		x->gap_epoch = u->gaps;
		dx_note_attach(d, x, ev, DFR_REPLY);
		if (dx_hold_reply(d, x, &m))
			return;
		dx_rpc_reply(d, x, &m);
		return;
	}
	dx_note_attach(d, x, ev, DFR_REPLY);
	dx_rpc_reply(d, x, &m);
}

void dx_on_rpc(struct dissect *d, const struct rdma_event *ev)
{
	struct uconn *u = dx_uconn_get(d, ev->conn);
	struct cursor c = cur_make(ev->data, ev->data_len);

	if (!u)
		return;
	uint32_t xid = cur_be32(&c, "rpc xid");
	uint32_t mtype = cur_be32(&c, "rpc msg_type");
	if (cur_ok(&c) && mtype == RPC_CALL)
		on_call(d, u, ev, xid);
	else if (cur_ok(&c) && mtype == RPC_REPLY)
		on_reply(d, u, ev, xid);
	else if (!dx_snap_cut(d, &c, false)) {
		if (cur_ok(&c))
			cur_fail(&c, CUR_INVALID, "rpc msg_type");
		c.err_off = 4;
		dx_diag_cur(d, ev->frame_first, 0, &c, "rpc");
		d->st.decode_errors++;
	}
	d->now_ns = ev->ts_last_ns;
	dx_hold_sweep(d);
	dx_evict(d);
}
