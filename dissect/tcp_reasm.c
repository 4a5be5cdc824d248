/* TCP segments -> the in-order bytes of each direction (rpc_record.c takes
 * them from there): sequence numbers, segments out of order held (up to
 * RN_OOO_SEGS / RN_OOO_BYTES per direction and the global budget),
 * retransmitted and overlapping bytes trimmed, and bytes that never came
 * declared lost when the hold is full or the stream ends.
 *
 * Overlapping bytes: the copy already passed on wins, as in any TCP
 * receiver (the peer acknowledged it; a later copy is a retransmission of
 * the same bytes).  Held segments follow Linux (see hold()), so that
 * retransmissions overlapping what is held take no room in the hold: a
 * burst of them must not make it overflow and declare lost bytes that
 * are only waiting for one hole to fill. */
#include <stdlib.h>
#include <string.h>

#include "dissect/rpc_net_int.h"

static inline int32_t sdiff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

static void seg_free(struct rpc_net *n, struct rn_dir *d, struct rn_seg *g)
{
	d->ooo_n--;
	d->ooo_bytes -= g->cap;
	n->budget_used -= sizeof(*g) + g->cap;
	free(g);
}

/* Hands bytes [seq, seq + wire) to the record layer, trimming what was
 * already handed on. */
static void take(struct rpc_net *n, struct rn_stream *s, int dir, uint32_t seq, const uint8_t *p,
		 size_t cap, size_t wire, uint64_t ts, uint64_t frame)
{
	struct rn_dir *d = &s->d[dir];
	int32_t old = sdiff(d->next_seq, seq);

	if (old > 0) {
		n->st->tcp_retransmits++;
		if ((size_t)old >= wire)
			return;
		if (d->started)
			d->flags |= RDMA_EVF_RETRANSMIT;
		size_t k = (size_t)old;
		p += k < cap ? k : cap;
		cap = k < cap ? cap - k : 0;
		wire -= k;
	}
	d->next_seq += (uint32_t)wire;
	rr_bytes(n, s, dir, p, cap, wire, ts, frame);
}

/* Held segments that now follow on.  A held frame was left unnoted when
 * it came: it is its message's now, or other traffic when none of its
 * bytes went into one. */
static void drain(struct rpc_net *n, struct rn_stream *s, int dir)
{
	struct rn_dir *d = &s->d[dir];
	struct rn_seg *g;
	bool used = n->used;

	while ((g = d->ooo) && sdiff(g->seq, d->next_seq) <= 0) {
		d->ooo = g->next;
		n->used = false;
		take(n, s, dir, g->seq, g->data, g->cap, g->wire, g->ts, g->frame);
		if (!n->used && n->track)
			rn_frame_other(n, g->ts, g->frame);
		seg_free(n, d, g);
	}
	n->used = used;
}

/* Gives up on the bytes before the first held segment. */
static void skip_gap(struct rpc_net *n, struct rn_stream *s, int dir)
{
	struct rn_dir *d = &s->d[dir];
	struct rn_seg *g = d->ooo;

	if (!g)
		return;
	uint32_t lost = g->seq - d->next_seq;
	n->st->tcp_gaps++;
	n->st->tcp_gap_bytes += lost;
	if (s->opened)
		rn_event(n, s, dir, RDMA_EV_GAP, g->ts, g->frame);
	rr_lost(n, s, dir, lost, g->ts, g->frame);
	d->next_seq = g->seq;
	drain(n, s, dir);
}

static bool hold(struct rpc_net *n, struct rn_dir *d, uint32_t seq, const uint8_t *p, size_t cap,
		 size_t wire, uint64_t ts, uint64_t frame)
{
	if (d->ooo_n >= RN_OOO_SEGS || d->ooo_bytes + cap > RN_OOO_BYTES ||
	    n->budget_used + sizeof(struct rn_seg) + cap > RN_BUDGET)
		return false;
	struct rn_seg **pp = &d->ooo, *prev = NULL;
	while (*pp && sdiff((*pp)->seq, seq) < 0) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	/* Overlaps as Linux's out-of-order queue takes them
	 * (tcp_data_queue_ofo): a segment whose every byte is held already
	 * is dropped, a held one the new one covers whole is replaced, and
	 * partial overlaps are both kept, the lower one's bytes winning
	 * when they are taken.  No held segment covers another, so the
	 * held ones' ends rise with their starts and the one just before
	 * reaches furthest. */
	uint32_t end = seq + (uint32_t)wire;
	if ((prev && sdiff(prev->seq + prev->wire, end) >= 0) ||
	    (*pp && (*pp)->seq == seq && (*pp)->wire >= wire)) {
		n->st->tcp_retransmits++;   /* every byte of it is still held */
		return true;
	}
	while (*pp && sdiff((*pp)->seq + (*pp)->wire, end) <= 0) {
		struct rn_seg *old = *pp;
		*pp = old->next;
		n->st->tcp_retransmits++;
		if (n->track)
			rn_frame_other(n, old->ts, old->frame);
		seg_free(n, d, old);
	}
	struct rn_seg *g = malloc(sizeof(*g) + cap);
	if (!g)
		return false;
	g->seq = seq;
	g->cap = (uint32_t)cap;
	g->wire = (uint32_t)wire;
	g->ts = ts;
	g->frame = frame;
	memcpy(g->data, p, cap);
	g->next = *pp;
	*pp = g;
	d->ooo_n++;
	d->ooo_bytes += cap;
	n->budget_used += sizeof(*g) + cap;
	n->st->tcp_out_of_order++;
	n->used = true;   /* its frame is noted when the segment is taken */
	return true;
}

void tcp_segment(struct rpc_net *n, struct rn_stream *s, int dir, uint64_t ts, uint64_t frame,
		 const struct l4_pkt *p)
{
	struct rn_dir *d = &s->d[dir];
	uint32_t seq = p->seq;

	n->st->tcp_segments++;
	if (p->tcp_flags & TCPF_SYN) {
		/* a new connection on a 4-tuple reused: start over */
		if (d->seq_known && sdiff(seq + 1, d->next_seq) != 0 && !d->ooo)
			rr_end(n, s, dir, "a new SYN");
		d->seq_known = true;
		d->next_seq = seq + 1;
		seq++;
		rr_start(n, s, dir);
	}
	if (!d->seq_known) {
		d->seq_known = true;
		d->next_seq = seq;
	}
	if (p->wire_len) {
		int32_t ahead = sdiff(seq, d->next_seq);
		if (ahead <= 0) {
			take(n, s, dir, seq, p->payload, p->cap_len, p->wire_len, ts, frame);
			drain(n, s, dir);
		} else if (ahead > (int32_t)(64u << 20)) {
			/* far outside any window: a stream we lost track of */
			n->st->tcp_gaps++;
			rr_lost(n, s, dir, (size_t)-1, ts, frame);
			d->next_seq = seq;
			take(n, s, dir, seq, p->payload, p->cap_len, p->wire_len, ts, frame);
		} else {
			while (!hold(n, d, seq, p->payload, p->cap_len, p->wire_len, ts, frame)) {
				if (!d->ooo) {
					/* nothing held, no room: what was missing is lost */
					n->st->tcp_gaps++;
					n->st->tcp_gap_bytes += (uint32_t)ahead;
					if (s->opened)
						rn_event(n, s, dir, RDMA_EV_GAP, ts, frame);
					rr_lost(n, s, dir, (uint32_t)ahead, ts, frame);
					d->next_seq = seq;
					take(n, s, dir, seq, p->payload, p->cap_len, p->wire_len, ts, frame);
					break;
				}
				skip_gap(n, s, dir);
				ahead = sdiff(seq, d->next_seq);
				if (ahead <= 0) {
					take(n, s, dir, seq, p->payload, p->cap_len, p->wire_len, ts, frame);
					drain(n, s, dir);
					break;
				}
			}
		}
	}
	if (p->tcp_flags & (TCPF_FIN | TCPF_RST))
		d->fin = true;
	if ((p->tcp_flags & TCPF_RST) || (s->d[0].fin && s->d[1].fin))
		tcp_close(n, s, ts);
}

void tcp_dir_free(struct rpc_net *n, struct rn_dir *d)
{
	while (d->ooo) {
		struct rn_seg *g = d->ooo;
		d->ooo = g->next;
		seg_free(n, d, g);
	}
	n->budget_used -= d->cap;
	free(d->buf);
	free(d->frames);
	d->buf = NULL;
	d->frames = NULL;
	d->cap = d->cap_frames = d->nframes = 0;
}

void tcp_close(struct rpc_net *n, struct rn_stream *s, uint64_t ts)
{
	for (int dir = 0; dir < 2; dir++) {
		/* what is held follows a hole that will not be filled now */
		while (s->d[dir].ooo)
			skip_gap(n, s, dir);
		rr_end(n, s, dir, "the connection's end");
	}
	if (s->opened)
		rn_event(n, s, 0, RDMA_EV_CONN_CLOSE, ts, 0);
	s->opened = false;
	for (int dir = 0; dir < 2; dir++) {
		struct rn_dir *d = &s->d[dir];
		tcp_dir_free(n, d);
		d->fin = false;
		d->seq_known = false;
		d->sync = false;
		d->ever_sync = false;
		d->hunted = 0;
	}
	/* The same 4-tuple may be used again: the next packet starts anew
	 * (with a new id if it carries RPC). */
	s->conn.id = 0;
}
