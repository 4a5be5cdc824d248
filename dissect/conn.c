/* Connection table, QP pairing, PSN tracking and message reassembly.
 *
 * Model.  An RC connection joins QP a (at address A) and QP b (at B).  A
 * packet names only its destination QP, so the table is keyed by
 * (destination address, destination QPN) -> (connection, receiving side).
 * Everything a side *requests* lives in that side's dir_state: the PSNs of
 * its requests (seen in packets to the peer), its SEND/WRITE being
 * reassembled, its outstanding RDMA READs, and the READ responses and ACKs
 * that come back to it (packets to itself) -- responses carry the
 * requester's PSNs, so one PSN space per dir_state.
 *
 * Pairing.  CM REQ + REP give both QPNs (PAIR_CM).  Without CM the first
 * packet creates a one-sided connection (sender's QPN unknown) that waits
 * in an index keyed by (unknown address, known address); the first packet
 * in the other direction to an unknown QP adopts it if the evidence agrees
 * (PSN of an ACK/READ response matching the waiting side's requests, RoCE
 * UDP source port rules) -- PAIR_INFERRED.
 *
 * Roles.  side[0] is the client: the CM REQ sender, or, inferred, the side
 * that receives RDMA WRITEs/READ requests and sends READ responses (in
 * NFS/RDMA only the server initiates RDMA).  Until a connection without CM
 * shows that evidence its events are held (bounded), so side order and
 * `dir` never change after the upper layers have seen them; if the bound
 * is hit first, the first sender is side[0] and client_known stays false.
 *
 * Hot path: one hash lookup per packet, payload copied only for
 * multi-packet messages (Only packets are delivered in place), buffers
 * reused per connection; no allocation per packet. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/conn_int.h"

/* --------------------------------------------------------- reassembly */

/* CM DREP / REJ: the connection (NULL: none found) is over and forgotten. */
void conn_end(struct conn_table *t, struct conn *c, uint64_t ts, uint64_t frame)
{
	if (!c)
		return;
	conn_close(t, c, ts, frame);
	conn_unlink_all(t, c);
}

static void msg_start(struct asm_msg *m, uint8_t type, uint64_t ts, uint64_t frame, uint32_t psn)
{
	m->active = true;
	m->type = type;
	m->flags = 0;
	m->ts_first = m->ts_last = ts;
	m->frame_first = m->frame_last = frame;
	m->npkts = 0;
	m->nretrans = 0;
	m->psn_first = psn;
	m->psn_next = psn;
	m->msg_len = 0;
	m->rkey = m->dma_len = m->imm = m->inv_rkey = 0;
	m->va = 0;
	m->nodata = false;
	m->data.len = 0;
	m->frames.n = 0;
}

/* Asks the data filter whether a multi-packet RDMA WRITE / READ message
 * (its RETH known) needs its payload copied. */
static void msg_filter(struct conn_table *t, struct conn *c, int dir, struct asm_msg *m)
{
	if (t->want && !t->want(&c->pub, dir, m->type, m->rkey, m->va, m->dma_len, t->ctx))
		m->nodata = true;
}

static void msg_append(struct conn_table *t, struct asm_msg *m, const struct ib_pkt *p,
		       uint64_t ts, uint64_t frame)
{
	m->ts_last = ts;
	m->frame_last = frame;
	m->npkts++;
	conn_fpush(t, &m->frames, frame);
	m->psn_next = psn_add(p->psn, 1);
	m->msg_len += p->payload_len;
	if (m->nodata)
		return;
	if (p->payload_cap < p->payload_len)
		m->flags |= RDMA_EVF_TRUNC_DATA;
	size_t n = p->payload_cap;
	if (m->data.len + n > t->data_cap) {
		n = t->data_cap > m->data.len ? t->data_cap - m->data.len : 0;
		m->flags |= RDMA_EVF_TRUNC_DATA;
	}
	if (n && conn_buf_reserve(&m->data, m->data.len + n) < 0) {
		m->flags |= RDMA_EVF_TRUNC_DATA;
		return;
	}
	if (n) {
		memcpy(m->data.p + m->data.len, p->payload, n);
		m->data.len += n;
	}
}

static void msg_event(struct conn *c, int dir, const struct asm_msg *m, struct rdma_event *ev)
{
	conn_ev_at(ev, (enum rdma_ev_type)m->type, c, dir, m->ts_first, m->frame_first);
	ev->ts_last_ns = m->ts_last;
	ev->frame_last = m->frame_last;
	ev->flags = m->flags;
	ev->npkts = m->npkts;
	ev->nretrans = m->nretrans;
	ev->psn_first = m->psn_first;
	ev->data = m->data.len ? m->data.p : NULL;
	ev->data_len = m->data.len;
	if (m->nodata)
		ev->flags |= RDMA_EVF_NO_DATA;
	ev->frames = m->frames.n ? m->frames.f : NULL;
	ev->nframes = m->frames.n;
	ev->msg_len = m->msg_len;
	ev->rkey = m->rkey;
	ev->va = m->va;
	ev->dma_len = m->dma_len;
	ev->imm = m->imm;
	ev->inv_rkey = m->inv_rkey;
}

void conn_finish_msg(struct conn_table *t, struct conn *c, int dir, struct asm_msg *m, uint32_t extra)
{
	struct rdma_event ev;
	m->flags |= extra;
	msg_event(c, dir, m, &ev);
	m->active = false;
	conn_emit(t, c, &ev);
	m->data.len = 0;
}

/* A READ whose responses are not (all) there. */
void conn_expire_read(struct conn_table *t, struct conn *c, int req_side, const struct rd_req *r, uint32_t flags)
{
	struct rdma_event ev;
	conn_ev_at(&ev, RDMA_EV_READ, c, req_side, r->ts, r->frame);
	ev.flags = r->flags | flags;
	ev.npkts = 1;
	ev.psn_first = r->psn;
	ev.rkey = r->rkey;
	ev.va = r->va;
	ev.dma_len = r->len;
	if (t->track) {
		ev.frames = &r->frame;
		ev.nframes = 1;
	}
	conn_emit(t, c, &ev);
}

static void emit_gap(struct conn_table *t, struct conn *c, int dir, uint32_t psn, uint32_t missing,
		     uint64_t ts, uint64_t frame)
{
	struct rdma_event ev;
	conn_ev_at(&ev, RDMA_EV_GAP, c, dir, ts, frame);
	ev.flags = RDMA_EVF_INCOMPLETE;
	ev.npkts = missing;
	ev.psn_first = psn;
	t->st->psn_gaps++;
	conn_emit(t, c, &ev);
}

static uint32_t read_npsn(uint32_t len, uint32_t pmtu)
{
	if (!pmtu)
		return 0;
	return len ? (len + pmtu - 1) / pmtu : 1;
}

static void learn_pmtu(struct conn *c, const struct ib_pkt *p)
{
	size_t n = p->payload_len;
	if (!c->pmtu && n >= 256 && n <= 4096 && (n & (n - 1)) == 0)
		c->pmtu = (uint32_t)n;
}

/* -------------------------------------------------------- request path */

static void pop_read(struct dir_state *d, struct rd_req *out)
{
	*out = d->reads[d->rd_head];
	d->rd_head = (d->rd_head + 1) % d->rd_cap;
	d->rd_n--;
}


/* PSN check for a request from side s: PSN_DROP for a packet that is
 * behind the stream (duplicate or retransmission: not reassembled),
 * PSN_NEXT for one in order, PSN_LATE for the resend of the first packet
 * the capture missed in a gap, when it is a whole message (SEND/WRITE
 * Only, READ request): that message never reached the capture before, so
 * it is delivered now, out of the stream's order. */
enum { PSN_DROP, PSN_NEXT, PSN_LATE };

static int req_psn(struct conn_table *t, struct conn *c, int s, const struct ib_pkt *p,
		   uint64_t ts, uint64_t frame)
{
	struct dir_state *d = &c->st->d[s];
	int r = !s;

	if (!d->req_sync) {
		d->req_sync = true;
		d->req_epsn = p->psn;
		d->req_slack = 0;
		/* With CM we know where the stream starts.  Linux (and the public
		 * captures) start a side's requests at the PSN the *peer* put in its
		 * CM message; accept either, report only a clear shortfall. */
		if (c->cm_psn_known[r] && p->psn != c->cm_psn[r] &&
		    !(c->cm_psn_known[s] && p->psn == c->cm_psn[s])) {
			int32_t diff = psn_diff(p->psn, c->cm_psn[r]);
			if (diff > 0 && diff < PSN_WINDOW) {
				d->gap_valid = true;
				d->gap_lo = c->cm_psn[r];
				d->gap_hi = p->psn;
				emit_gap(t, c, s, c->cm_psn[r], (uint32_t)diff, ts, frame);
			}
		}
	}
	int32_t diff = psn_diff(p->psn, d->req_epsn);
	if (diff < 0) {
		/* Behind: the requester went back (NAK or timeout), or the
		 * capture holds the packet twice.  Never reassembled again. */
		if (d->gap_valid && psn_diff(p->psn, d->gap_lo) >= 0 && psn_diff(p->psn, d->gap_hi) < 0) {
			t->st->retransmits++;
			uint8_t k = p->op->kind;
			if (p->psn == d->gap_lo &&
			    (k == IBK_SEND_ONLY || k == IBK_WRITE_ONLY || k == IBK_READ_REQ)) {
				uint32_t used = k == IBK_READ_REQ ? read_npsn(p->reth_len, c->pmtu) : 1;
				d->gap_lo = psn_add(d->gap_lo, used ? used : 1);
				if (psn_diff(d->gap_lo, d->gap_hi) >= 0)
					d->gap_valid = false;
				return PSN_LATE;
			}
		} else {
			t->st->duplicates++;
		}
		if (d->req.active && psn_diff(p->psn, d->req.psn_first) >= 0) {
			d->req.flags |= RDMA_EVF_RETRANSMIT;
			d->req.nretrans++;
		}
		return PSN_DROP;
	}
	if ((uint32_t)diff > d->req_slack) {
		uint32_t missing = (uint32_t)diff - d->req_slack;
		uint32_t lo = psn_add(d->req_epsn, d->req_slack);
		d->gap_valid = true;
		d->gap_lo = lo;
		d->gap_hi = p->psn;
		if (d->req.active)
			d->req.flags |= RDMA_EVF_INCOMPLETE;
		emit_gap(t, c, s, lo, missing, ts, frame);
	}
	d->req_epsn = psn_add(p->psn, 1);
	d->req_slack = 0;
	return PSN_NEXT;
}

/* A message in one packet (SEND or WRITE Only): its payload delivered in
 * place, no copy. */
static void req_only(struct conn_table *t, struct conn *c, int s, const struct ib_pkt *p, uint64_t ts,
		     uint64_t frame, uint8_t type, bool late)
{
	struct dir_state *d = &c->st->d[s];
	uint8_t k = p->op->kind;

	if (d->req.active && !late)
		conn_finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
	struct rdma_event ev;
	conn_ev_at(&ev, (enum rdma_ev_type)type, c, s, ts, frame);
	ev.npkts = 1;
	ev.psn_first = p->psn;
	ev.msg_len = p->payload_len;
	if (late) {
		ev.flags |= RDMA_EVF_RETRANSMIT;
		ev.nretrans = 1;
	}
	ev.data_len = p->payload_cap < t->data_cap ? p->payload_cap : t->data_cap;
	ev.data = ev.data_len ? p->payload : NULL;
	if (ev.data_len < ev.msg_len)
		ev.flags |= RDMA_EVF_TRUNC_DATA;
	if (t->track) {
		ev.frames = &frame;
		ev.nframes = 1;
		t->frame_used = true;
	}
	if (k == IBK_WRITE_ONLY) {
		ev.rkey = p->reth_rkey;
		ev.va = p->reth_va;
		ev.dma_len = p->reth_len;
	}
	if (p->op->hdrs & IBH_IMMDT) {
		ev.imm = p->imm;
		ev.flags |= RDMA_EVF_HAS_IMM;
	}
	if (p->op->hdrs & IBH_IETH) {
		ev.inv_rkey = p->ieth_rkey;
		ev.flags |= RDMA_EVF_HAS_INV;
	}
	conn_emit(t, c, &ev);
}

/* An RDMA READ request: queued (in PSN order) for its responses. */
static void req_read(struct conn_table *t, struct conn *c, int s, const struct ib_pkt *p, uint64_t ts,
		     uint64_t frame, bool late)
{
	struct dir_state *d = &c->st->d[s];

	if (d->req.active && !late)
		conn_finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
	struct rd_req r = { p->psn, read_npsn(p->reth_len, c->pmtu), p->reth_rkey, p->reth_len,
			    p->reth_va, ts, frame, late ? RDMA_EVF_RETRANSMIT : 0 };
	/* The READ consumes one PSN per response packet; with the path MTU
	 * unknown, allow the most a 256-byte MTU would need. */
	if (late) {
		/* stream position unchanged */
	} else if (r.npsn) {
		d->req_epsn = psn_add(p->psn, r.npsn);
	} else {
		uint32_t most = p->reth_len ? (p->reth_len + 255) / 256 : 1;
		d->req_slack = most - 1;
	}
	if (d->rd_n == d->rd_cap && d->rd_cap < READS_MAX) {
		unsigned ncap = d->rd_cap ? d->rd_cap * 2 : 8;
		struct rd_req *n = malloc(ncap * sizeof(*n));
		if (n) {
			for (unsigned i = 0; i < d->rd_n; i++)
				n[i] = d->reads[(d->rd_head + i) % d->rd_cap];
			free(d->reads);
			d->reads = n;
			d->rd_cap = ncap;
			d->rd_head = 0;
		}
	}
	if (!d->rd_cap) {
		conn_diag(t, frame, CUR_INVALID, "out of memory for RDMA READ tracking");
		return;
	}
	if (d->rd_n == d->rd_cap) {
		/* More outstanding than any HCA allows: the oldest lost
		 * its responses. */
		struct rd_req old;
		pop_read(d, &old);
		conn_expire_read(t, c, s, &old, RDMA_EVF_NO_RESPONSE);
	}
	/* Responses come in PSN order: a late READ goes before the
	 * ones the capture saw after its gap. */
	unsigned at = d->rd_n;
	while (late && at > 0 &&
	       psn_diff(d->reads[(d->rd_head + at - 1) % d->rd_cap].psn, r.psn) > 0) {
		d->reads[(d->rd_head + at) % d->rd_cap] = d->reads[(d->rd_head + at - 1) % d->rd_cap];
		at--;
	}
	d->reads[(d->rd_head + at) % d->rd_cap] = r;
	if (t->track)
		t->frame_used = true;   /* its frame goes out with the READ event */
	d->rd_n++;
}

static void req_packet(struct conn_table *t, struct conn *c, int s, const struct ib_pkt *p,
		       uint64_t ts, uint64_t frame)
{
	struct dir_state *d = &c->st->d[s];
	uint8_t k = p->op->kind;
	bool is_send = k <= IBK_SEND_ONLY;
	uint8_t type = is_send ? RDMA_EV_SEND : RDMA_EV_WRITE;

	int how = req_psn(t, c, s, p, ts, frame);
	if (how == PSN_DROP)
		return;
	bool late = how == PSN_LATE;

	switch (k) {
	case IBK_SEND_FIRST:
	case IBK_WRITE_FIRST:
		learn_pmtu(c, p);
		if (d->req.active)   /* the previous message lost its Last */
			conn_finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		msg_start(&d->req, type, ts, frame, p->psn);
		if (k == IBK_WRITE_FIRST) {
			d->req.rkey = p->reth_rkey;
			d->req.va = p->reth_va;
			d->req.dma_len = p->reth_len;
			msg_filter(t, c, s, &d->req);
		}
		msg_append(t, &d->req, p, ts, frame);
		return;

	case IBK_SEND_MIDDLE:
	case IBK_WRITE_MIDDLE:
	case IBK_SEND_LAST:
	case IBK_WRITE_LAST:
		if (k == IBK_SEND_MIDDLE || k == IBK_WRITE_MIDDLE)
			learn_pmtu(c, p);
		if (d->req.active && (d->req.type != type ||
		    (type == RDMA_EV_WRITE && d->req.msg_len + p->payload_len > d->req.dma_len))) {
			conn_finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		}
		if (!d->req.active) {
			/* Its First is missing: capture started mid-message or a gap. */
			msg_start(&d->req, type, ts, frame, p->psn);
			d->req.flags |= RDMA_EVF_INCOMPLETE;
		}
		msg_append(t, &d->req, p, ts, frame);
		if (k == IBK_SEND_LAST || k == IBK_WRITE_LAST) {
			if (p->op->hdrs & IBH_IMMDT) {
				d->req.imm = p->imm;
				d->req.flags |= RDMA_EVF_HAS_IMM;
			}
			if (p->op->hdrs & IBH_IETH) {
				d->req.inv_rkey = p->ieth_rkey;
				d->req.flags |= RDMA_EVF_HAS_INV;
			}
			conn_finish_msg(t, c, s, &d->req, 0);
		}
		return;

	case IBK_SEND_ONLY:
	case IBK_WRITE_ONLY:
		req_only(t, c, s, p, ts, frame, type, late);
		return;

	case IBK_READ_REQ:
		req_read(t, c, s, p, ts, frame, late);
		return;

	default:   /* atomics, FLUSH, ATOMIC WRITE, RESYNC: one PSN, counted */
		if (d->req.active)
			conn_finish_msg(t, c, s, &d->req, RDMA_EVF_INCOMPLETE);
		if (k == IBK_ATOMIC)
			t->st->atomics++;
		else
			t->st->other_ops++;
		return;
	}
}

/* ------------------------------------------------------- response path */

/* True when psn falls after the request's PSN within the READ's response
 * range (known once the path MTU is). */
static bool psn_inside_read(const struct rd_req *r, uint32_t psn)
{
	return r->npsn && psn_diff(psn, r->psn) > 0 && psn_diff(psn, psn_add(r->psn, r->npsn)) < 0;
}

/* The responses answer the READ i places from the head of q's queue: the
 * older ones were skipped in the responder's order (their responses never
 * reached the capture) and expire; this one, popped into r, opens the
 * response message with its request frame. */
static void claim_read(struct conn_table *t, struct conn *c, int q, unsigned i, struct rd_req *r)
{
	struct dir_state *d = &c->st->d[q];

	while (i--) {
		struct rd_req old;
		pop_read(d, &old);
		conn_expire_read(t, c, q, &old, RDMA_EVF_NO_RESPONSE | RDMA_EVF_INCOMPLETE);
	}
	pop_read(d, r);
	msg_start(&d->rresp, RDMA_EV_READ, r->ts, r->frame, r->psn);
	conn_fpush(t, &d->rresp.frames, r->frame);
	d->rresp.rkey = r->rkey;
	d->rresp.va = r->va;
	d->rresp.dma_len = r->len;
	d->rresp.npkts = 1;   /* the request */
}

/* READ responses to side q (the requester), sent by its peer. */
static void read_resp(struct conn_table *t, struct conn *c, int q, const struct ib_pkt *p,
		      uint64_t ts, uint64_t frame)
{
	struct dir_state *d = &c->st->d[q];
	uint8_t k = p->op->kind;
	int responder = !q;
	if (k == IBK_READ_RESP_FIRST || k == IBK_READ_RESP_ONLY) {
		if (k == IBK_READ_RESP_FIRST)
			learn_pmtu(c, p);
		/* Responses come in request order: find the READ this answers. */
		unsigned i;
		for (i = 0; i < d->rd_n; i++)
			if (d->reads[(d->rd_head + i) % d->rd_cap].psn == p->psn)
				break;
		if (i == d->rd_n) {
			if (d->resp_sync && psn_diff(p->psn, d->resp_epsn) < 0) {
				t->st->duplicates++;   /* a READ answered again */
				return;
			}
			for (unsigned j = 0; j < d->rd_n; j++) {
				if (psn_inside_read(&d->reads[(d->rd_head + j) % d->rd_cap], p->psn)) {
					/* restarted mid-READ after a NAK: already counted */
					t->st->retransmits++;
					return;
				}
			}
		}
		if (d->rresp.active)   /* previous response lost its Last */
			conn_finish_msg(t, c, q, &d->rresp, RDMA_EVF_INCOMPLETE);
		if (i < d->rd_n) {
			struct rd_req r;
			claim_read(t, c, q, i, &r);
			d->rresp.flags = r.flags;
			d->rresp.nretrans = (r.flags & RDMA_EVF_RETRANSMIT) ? 1 : 0;
			if (k != IBK_READ_RESP_ONLY)
				msg_filter(t, c, q, &d->rresp);
			d->rresp_npsn = r.npsn;
		} else {
			/* The request is not in the capture. */
			msg_start(&d->rresp, RDMA_EV_READ, ts, frame, p->psn);
			d->rresp.flags = RDMA_EVF_INCOMPLETE;
			d->rresp_npsn = 0;
		}
	} else {
		/* Middle / Last */
		if (k == IBK_READ_RESP_MIDDLE)
			learn_pmtu(c, p);
		if (d->rresp.active) {
			int32_t diff = psn_diff(p->psn, d->rresp.psn_next);
			if (diff < 0) {
				d->rresp.flags |= RDMA_EVF_RETRANSMIT;
				d->rresp.nretrans++;
				t->st->duplicates++;
				return;
			}
			if (diff > 0) {
				d->rresp.flags |= RDMA_EVF_INCOMPLETE;
				emit_gap(t, c, responder, d->rresp.psn_next, (uint32_t)diff, ts, frame);
			}
		} else {
			if (d->resp_sync && psn_diff(p->psn, d->resp_epsn) < 0) {
				t->st->duplicates++;
				return;
			}
			/* First is missing: attribute to a READ whose range holds the
			 * PSN when the MTU is known, else orphan. */
			unsigned i;
			for (i = 0; i < d->rd_n; i++)
				if (psn_inside_read(&d->reads[(d->rd_head + i) % d->rd_cap], p->psn))
					break;
			if (i < d->rd_n) {
				struct rd_req r;
				claim_read(t, c, q, i, &r);
				emit_gap(t, c, responder, r.psn, (uint32_t)psn_diff(p->psn, r.psn), ts, frame);
			} else {
				msg_start(&d->rresp, RDMA_EV_READ, ts, frame, p->psn);
			}
			d->rresp.flags |= RDMA_EVF_INCOMPLETE;
		}
	}
	msg_append(t, &d->rresp, p, ts, frame);
	d->resp_sync = true;
	d->resp_epsn = psn_add(p->psn, 1);
	if (k == IBK_READ_RESP_LAST || k == IBK_READ_RESP_ONLY) {
		/* Now the READ's PSN count is known exactly. */
		if (!d->rresp_npsn) {
			uint32_t n = (uint32_t)psn_diff(p->psn, d->rresp.psn_first) + 1;
			struct dir_state *rq = d;
			if (rq->req_slack && psn_diff(rq->req_epsn, d->rresp.psn_first) == 1 &&
			    n >= 1 && n - 1 <= rq->req_slack) {
				rq->req_epsn = psn_add(d->rresp.psn_first, n);
				rq->req_slack = 0;
			}
		}
		conn_finish_msg(t, c, q, &d->rresp, 0);
	}
}

/* Frame tracking: an ACK / NAK as an event of its own (dir = the side
 * whose requests it acknowledges, psn_first = its PSN, imm = AETH
 * syndrome), so its frame can be tied to the message it acknowledges. */
static void ack_event(struct conn_table *t, struct conn *c, int q, const struct ib_pkt *p,
		      uint64_t ts, uint64_t frame)
{
	struct rdma_event ev;
	conn_ev_at(&ev, RDMA_EV_ACK, c, q, ts, frame);
	ev.npkts = 1;
	ev.psn_first = p->psn;
	ev.imm = p->aeth_syn;
	ev.frames = &frame;
	ev.nframes = 1;
	t->frame_used = true;
	conn_emit(t, c, &ev);
}

static void ack_packet(struct conn_table *t, struct conn *c, int q, const struct ib_pkt *p)
{
	struct dir_state *d = &c->st->d[q];
	unsigned cls = ib_aeth_class(p->aeth_syn);

	if (cls == AETH_ACK) {
		t->st->acks++;
		d->ack_seen = true;
		d->last_ack = p->psn;
		/* An ACK covers every request up to its PSN; a READ before it
		 * must have had its responses already -- the capture lost them. */
		while (d->rd_n) {
			const struct rd_req *r = &d->reads[d->rd_head];
			uint32_t last = psn_add(r->psn, r->npsn ? r->npsn - 1 : 0);
			if (psn_diff(p->psn, last) <= 0 || psn_diff(p->psn, r->psn) <= 0)
				break;
			struct rd_req old;
			pop_read(d, &old);
			conn_expire_read(t, c, q, &old, RDMA_EVF_NO_RESPONSE | RDMA_EVF_INCOMPLETE);
		}
		return;
	}
	t->st->naks++;
	if (cls == AETH_RNR_NAK) {
		t->st->rnr_naks++;
		return;
	}
	switch (p->aeth_syn & 0x1f) {
	case NAK_PSN_SEQ:    t->st->nak_seq++; break;
	case NAK_INV_REQ:    t->st->nak_inv_req++; break;
	case NAK_REM_ACCESS: t->st->nak_access++; break;
	case NAK_REM_OP:     t->st->nak_op++; break;
	default: break;
	}
}

/* ------------------------------------------------------------ RC entry */

void conn_rc(struct conn_table *t, uint64_t ts, uint64_t frame,
	     const struct ib_frame *f, const struct ib_pkt *p)
{
	struct ep_key src, dst;
	conn_frame_keys(f, &src, &dst);
	struct hent *h = conn_ht_find_qp(&t->ht, &dst, p->dqpn);
	struct conn *c = NULL;
	int r = 0;

	if (h) {
		c = h->c;
		r = h->side;
		if (c->closed) {
			if (ts < c->closed_ts + CLOSED_GRACE_NS) {
				t->st->late_packets++;
				return;
			}
			/* Long after the close: the QPN was reused without CM. */
			conn_unlink_all(t, c);
			c = NULL;
		}
	}
	if (!c)
		c = conn_adopt_waiting(t, &src, &dst, f, p, &r);
	if (!c) {
		c = conn_new(t, ts, frame);
		if (!c) {
			conn_diag(t, frame, CUR_INVALID, "out of memory for a new connection");
			return;
		}
		/* First sender is side[0] until the roles are known. */
		r = 1;
		c->pub.pairing = PAIR_ONE_SIDED;
		c->holding = true;
		c->key_fam[0] = src.fam;
		memcpy(c->key_addr[0], src.a, 16);
		c->key_fam[1] = dst.fam;
		memcpy(c->key_addr[1], dst.a, 16);
		conn_fill_endpoint(&c->pub.side[0], f, true);
		conn_fill_endpoint(&c->pub.side[1], f, false);
		c->pub.side[1].qpn = p->dqpn;
		c->pub.side[1].qpn_known = true;
		conn_link_side(t, c, 1);
		conn_wait_add(t, c, 0);
	}
	int s = !r;
	c->pub.last_ns = ts;
	c->last_frame = frame;
	conn_fill_endpoint(&c->pub.side[s], f, true);
	if (!c->st)
		return;
	if (c->holding && !c->pub.client_known) {
		int role = conn_role_of(p);
		if (role) {
			/* Decide before this packet's events: side[0] is the client. */
			int client = role > 0 ? r : s;
			if (client != 0) {
				conn_swap(t, c);
				r = !r;
				s = !s;
			}
			c->pub.client_known = true;
			conn_hold_release(t, c);
		}
	}
	if (c->pub.pairing == PAIR_CM && !c->sport_learned &&
	    c->pub.side[0].udp_sport && c->pub.side[1].udp_sport) {
		c->sport_learned = true;
		conn_learn_sport_model(t, c);
	}

	uint8_t kind = p->op->kind;
	switch (kind) {
	case IBK_READ_RESP_FIRST: case IBK_READ_RESP_MIDDLE:
	case IBK_READ_RESP_LAST:  case IBK_READ_RESP_ONLY:
		read_resp(t, c, r, p, ts, frame);
		break;
	case IBK_ACK:
	case IBK_ATOMIC_ACK:
		ack_packet(t, c, r, p);
		if (t->track && c->st)
			ack_event(t, c, r, p, ts, frame);
		break;
	case IBK_CNP:
		break;
	default:
		req_packet(t, c, s, p, ts, frame);
		break;
	}
}
