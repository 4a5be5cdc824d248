/* QP pairing: by CM REQ / REP (PAIR_CM), or inferred for a connection
 * whose CM exchange was not captured by adopting a one-sided connection
 * when the evidence agrees (PAIR_INFERRED).  See conn.c for the model. */
#include <errno.h>
#include <string.h>

#include "dissect/conn_int.h"

/* ------------------------------------------------------------- pairing */

/* Whether the capture's RoCE UDP source ports follow a known rule, learned
 * from connections whose QPNs came from CM. */
void conn_learn_sport_model(struct conn_table *t, const struct conn *c)
{
	const struct rdma_endpoint *a = &c->pub.side[0], *b = &c->pub.side[1];
	if (!a->qpn_known || !b->qpn_known || !a->udp_sport || !b->udp_sport)
		return;
	unsigned m = 0;
	if (a->udp_sport == roce_rxe_sport(a->qpn) && b->udp_sport == roce_rxe_sport(b->qpn))
		m = SPORT_RXE;
	else if (a->udp_sport == roce_flow_sport(a->qpn, b->qpn) &&
		 b->udp_sport == roce_flow_sport(a->qpn, b->qpn))
		m = SPORT_FLOW;
	if (!t->sport_checked) {
		t->sport_model = m;
		t->sport_checked = true;
	} else if (t->sport_model != m) {
		t->sport_model = 0;   /* mixed: trust no rule */
	}
}

/* Scores how well waiting connection w (unknown side u at the packet's
 * destination) fits a packet to QP qd from its known side; negative means
 * the evidence contradicts. */
static int pair_score(const struct conn_table *t, const struct conn *w, int u,
		      uint32_t qd, const struct ib_frame *f, const struct ib_pkt *p)
{
	int k = !u, score = 0;
	uint32_t qk = w->pub.side[k].qpn;
	uint16_t sp = f->kind == IBF_ROCE_V2 ? f->sport : 0;
	uint16_t usp = w->pub.side[u].udp_sport;   /* ports the unknown side used */

	if (sp) {
		bool rxe = sp == roce_rxe_sport(qk) && (!usp || usp == roce_rxe_sport(qd));
		bool flow = sp == roce_flow_sport(qk, qd) && (!usp || usp == sp);
		if (rxe || flow)
			score += 4;
		else if (t->sport_model)
			return -1;   /* the capture follows a rule this pair breaks */
		if (usp && usp == sp)
			score += 1;
	}
	if (w->st) {
		uint8_t kind = p->op->kind;
		const struct dir_state *du = &w->st->d[u], *dk = &w->st->d[k];
		bool resp = kind >= IBK_READ_RESP_FIRST && kind <= IBK_ATOMIC_ACK;
		if (resp && du->req_sync) {
			/* a response to QP qd: it must answer qd's requests to qk */
			/* (a NAK may name exactly the next expected PSN) */
			int32_t diff = psn_diff(p->psn, du->req_epsn);
			if (diff <= 0 && diff > -PSN_WINDOW)
				score += 4;
			else
				score -= 2;
		}
		if (!resp && dk->ack_seen) {
			/* a request from qk: continues after what qd acknowledged */
			int32_t diff = psn_diff(p->psn, dk->last_ack);
			if (diff > 0 && diff < PSN_WINDOW)
				score += 2;
		}
	}
	return score;
}

/* Looks for a one-sided connection this packet completes. */
struct conn *conn_adopt_waiting(struct conn_table *t, const struct ep_key *src, const struct ep_key *dst,
				 const struct ib_frame *f, const struct ib_pkt *p, int *side)
{
	struct hkey wk = conn_wait_key(dst, src);
	struct hent *h = conn_ht_find(&t->ht, &wk);
	if (!h)
		return NULL;
	struct conn *best = NULL;
	int best_score = -1000, n = 0, ties = 0;
	/* Bounded: a capture with thousands of one-sided QPs between two
	 * hosts must not cost a list walk per packet. */
	for (struct conn *w = h->c; w && n < WAIT_SCAN_MAX; w = w->wait_next) {
		int u = w->pub.side[0].qpn_known ? 1 : 0;
		if (w->closed)
			continue;
		int s = pair_score(t, w, u, p->dqpn, f, p);
		n++;
		if (s < 0)
			continue;
		if (s > best_score) {
			best = w;
			best_score = s;
			ties = 0;
		} else if (s == best_score) {
			ties++;
		}
	}
	/* With several candidates, only clear evidence decides. */
	if (!best || ties || (n > 1 && best_score == 0))
		return NULL;
	int u = best->pub.side[0].qpn_known ? 1 : 0;
	conn_wait_remove(t, best);
	best->pub.side[u].qpn = p->dqpn;
	best->pub.side[u].qpn_known = true;
	if (best->pub.pairing == PAIR_ONE_SIDED) {
		best->pub.pairing = PAIR_INFERRED;
		t->st->conns_inferred++;
	}
	conn_link_side(t, best, u);
	*side = u;
	return best;
}

/* ------------------------------------------------------------------ CM */

static struct pending_req *pending_find(struct conn_table *t, const struct ep_key *owner, uint32_t comm_id)
{
	for (unsigned i = 0; i < PENDING_REQS; i++) {
		struct pending_req *q = &t->pend[i];
		if (q->used && q->m.local_comm_id == comm_id && q->fam == owner->fam &&
		    memcmp(q->addr, owner->a, 16) == 0)
			return q;
	}
	return NULL;
}

static void set_cm_params(struct conn *c, int i, const struct cm_msg *m)
{
	if (!m->has_rpcrdma || m->rr_version != RPCRDMA_CM_VERSION)
		return;
	c->pub.cm_params[i] = true;
	c->pub.inline_send[i] = m->rr_send_size;
	c->pub.inline_recv[i] = m->rr_recv_size;
	c->pub.remote_inv[i] = m->rr_flags & RPCRDMA_CM_REMOTE_INV;
}

static struct conn *find_by_comm(struct conn_table *t, const struct ep_key *owner, uint32_t id)
{
	struct hkey k = conn_comm_key(owner, id);
	struct hent *h = conn_ht_find(&t->ht, &k);
	return h ? h->c : NULL;
}

static void cm_rep(struct conn_table *t, uint64_t ts, uint64_t frame, const struct ib_frame *f,
		   const struct ep_key *src, const struct ep_key *dst, const struct cm_msg *m)
{
	struct pending_req *q = pending_find(t, dst, m->remote_comm_id);
	struct conn *c;

	/* A retransmitted REP for a connection we already built. */
	c = find_by_comm(t, src, m->local_comm_id);
	if (c && !c->closed)
		return;

	c = conn_new(t, q ? q->ts : ts, q ? q->frame : frame);
	if (!c) {
		conn_diag(t, frame, CUR_INVALID, "out of memory for a new connection");
		return;
	}
	c->pub.pairing = PAIR_CM;
	c->pub.client_known = true;
	t->st->conns_cm++;
	/* side[0]: the REQ sender (destination of the REP). */
	c->key_fam[0] = dst->fam;
	memcpy(c->key_addr[0], dst->a, 16);
	c->key_fam[1] = src->fam;
	memcpy(c->key_addr[1], src->a, 16);
	if (q) {
		c->pub.side[0] = q->ep;
	} else {
		conn_fill_endpoint(&c->pub.side[0], f, false);
	}
	conn_fill_endpoint(&c->pub.side[1], f, true);
	/* CM MADs come from QP1: their UDP port says nothing about the QPs. */
	c->pub.side[0].udp_sport = c->pub.side[1].udp_sport = 0;
	c->pub.side[1].qpn = m->local_qpn;
	c->pub.side[1].qpn_known = true;
	c->cm_psn[1] = m->start_psn;
	c->cm_psn_known[1] = true;
	c->comm_id[1] = m->local_comm_id;
	set_cm_params(c, 1, m);
	if (q) {
		c->pub.side[0].qpn = q->m.local_qpn;
		c->pub.side[0].qpn_known = true;
		c->cm_psn[0] = q->m.start_psn;
		c->cm_psn_known[0] = true;
		c->comm_id[0] = q->m.local_comm_id;
		c->pmtu = ib_mtu_bytes(q->m.path_mtu);
		set_cm_params(c, 0, &q->m);
		q->used = false;
	}
	for (int i = 0; i < 2; i++) {
		if (i == 0 && !q)
			continue;
		struct ep_key e = conn_side_key(c, i);
		struct hkey ck = conn_comm_key(&e, c->comm_id[i]);
		struct hent *old = conn_ht_find(&t->ht, &ck);
		if (old && old->c != c && old->c)
			conn_close(t, old->c, ts, frame);
		if (conn_ht_put(&t->ht, &ck, c, i))
			c->comm_known[i] = true;
		/* A QP still bound to an older connection: that one ended. */
		struct hkey qk = conn_qp_key(&e, c->pub.side[i].qpn);
		struct hent *oq = conn_ht_find(&t->ht, &qk);
		if (oq && oq->c != c) {
			struct conn *o = oq->c;
			conn_close(t, o, ts, frame);
			conn_unlink_all(t, o);
		}
		conn_link_side(t, c, i);
	}
	if (!q)
		conn_wait_add(t, c, 0);   /* REQ not captured: learn side[0]'s QPN */
	conn_announce(t, c);
}

void conn_cm(struct conn_table *t, uint64_t ts, uint64_t frame,
	     const struct ib_frame *f, const struct cm_msg *m)
{
	struct ep_key src, dst;
	conn_frame_keys(f, &src, &dst);

	switch (m->attr) {
	case CM_ATTR_REQ: {
		struct pending_req *q = pending_find(t, &src, m->local_comm_id);
		if (!q) {
			q = &t->pend[t->pend_next];
			t->pend_next = (t->pend_next + 1) % PENDING_REQS;
		}
		memset(q, 0, sizeof(*q));
		q->used = true;
		q->ts = ts;
		q->frame = frame;
		q->fam = src.fam;
		memcpy(q->addr, src.a, 16);
		memcpy(q->peer, dst.a, 16);
		conn_fill_endpoint(&q->ep, f, true);
		q->m = *m;
		q->m.priv = NULL;
		q->m.priv_len = 0;
		break;
	}
	case CM_ATTR_REP:
		cm_rep(t, ts, frame, f, &src, &dst, m);
		break;
	case CM_ATTR_RTU:
		break;
	case CM_ATTR_DREQ: {
		struct hkey k = conn_qp_key(&dst, m->remote_qpn);
		struct hent *h = conn_ht_find(&t->ht, &k);
		struct conn *c = h ? h->c : find_by_comm(t, &src, m->local_comm_id);
		if (c)
			conn_close(t, c, ts, frame);
		break;
	}
	case CM_ATTR_DREP: {
		struct conn *c = find_by_comm(t, &src, m->local_comm_id);
		conn_end(t, c ? c : find_by_comm(t, &dst, m->remote_comm_id), ts, frame);
		break;
	}
	case CM_ATTR_REJ: {
		struct pending_req *q = pending_find(t, &dst, m->remote_comm_id);
		if (q)
			q->used = false;
		conn_end(t, find_by_comm(t, &dst, m->remote_comm_id), ts, frame);
		break;
	}
	default:
		break;
	}
}
