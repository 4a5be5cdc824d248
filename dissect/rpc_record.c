/* ONC RPC record marking (RFC 5531 section 11) over the in-order bytes of
 * one TCP direction: 4-byte marks (last-fragment bit, 31-bit length),
 * fragments joined into one message, a message delivered when its last
 * fragment ends.  Bytes lost or not captured inside a fragment keep the
 * marks in step (the message goes out incomplete); a lost mark, or a
 * mark no RPC peer would send, loses them, and the direction then hunts
 * for the next plausible mark followed by a plausible RPC header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/grow.h"
#include "dissect/rpc_net_int.h"

static inline uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void msg_reset(struct rpc_net *n, struct rn_dir *d)
{
	d->started = d->hole = false;
	d->len = d->msg_len = 0;
	d->flags = 0;
	d->npkts = 0;
	d->nframes = 0;
	if (d->cap > RN_KEEP_BUF) {
		n->budget_used -= d->cap;
		free(d->buf);
		d->buf = NULL;
		d->cap = 0;
	}
}

/* The frames of a message that will not be delivered are other traffic. */
static void msg_drop(struct rpc_net *n, struct rn_dir *d)
{
	for (uint32_t i = 0; n->track && i < d->nframes; i++)
		rn_frame_other(n, d->ts_last, d->frames[i]);
	msg_reset(n, d);
}

static void msg_frame(struct rpc_net *n, struct rn_dir *d, uint64_t ts, uint64_t frame)
{
	if (!d->started) {
		d->started = true;
		d->ts_first = ts;
		d->frame_first = frame;
	} else if (ts < d->ts_first) {
		/* a segment held out of order was taken after the one that
		 * filled the hole before it: the message began at the
		 * earlier packet, so that a late copy of bytes the peer
		 * already had cannot start it after its reply */
		d->ts_first = ts;
		d->frame_first = frame;
	}
	d->ts_last = ts;
	d->frame_last = frame;
	if (d->frame_pushed == frame)
		return;
	d->frame_pushed = frame;
	d->npkts++;
	if (!n->track)
		return;
	if (ARR_RESERVE(d->frames, d->cap_frames, d->nframes + 1, 16) < 0)
		return;
	d->frames[d->nframes++] = frame;
	n->used = true;
}

/* Copies what fits under the per-message and global caps.  Past the
 * budget a message still keeps its first RN_HEAD_KEEP bytes (over the
 * budget: at most that much a direction), so its record has an xid and
 * a procedure. */
static void msg_copy(struct rpc_net *n, struct rn_dir *d, const uint8_t *p, size_t k)
{
	if (d->hole || !k)
		return;
	if (k > RN_COPY_MAX - d->len) {
		k = RN_COPY_MAX - d->len;
		d->flags |= RDMA_EVF_TRUNC_DATA;
		d->hole = true;
	}
	if (d->len + k > d->cap) {
		size_t c = d->cap ? d->cap : 4096;
		while (c < d->len + k)
			c *= 2;
		if (c > RN_COPY_MAX)
			c = RN_COPY_MAX;
		if (n->budget_used - d->cap + c > RN_BUDGET)
			c = d->cap < RN_HEAD_KEEP ? RN_HEAD_KEEP : d->cap;
		uint8_t *b = c > d->cap ? realloc(d->buf, c) : NULL;
		if (b) {
			n->budget_used += c - d->cap;
			d->buf = b;
			d->cap = c;
		}
		if (d->len + k > d->cap) {
			n->st->rpc_buf_capped++;
			d->flags |= RDMA_EVF_TRUNC_DATA;
			d->hole = true;
			k = d->cap - d->len;
		}
	}
	if (k)
		memcpy(d->buf + d->len, p, k);
	d->len += k;
}

static void deliver(struct rpc_net *n, struct rn_stream *s, int dir)
{
	struct rn_dir *d = &s->d[dir];

	if (d->len >= 8) {
		rn_emit(n, s, dir, d->buf, d->len, d->msg_len, d->flags, d->ts_first, d->ts_last,
			d->frame_first, d->frame_last, d->npkts, d->frames, d->nframes);
		msg_reset(n, d);
	} else {
		n->st->rpc_msgs_dropped++;
		msg_drop(n, d);
	}
}

static void lose_sync(struct rpc_net *n, struct rn_dir *d)
{
	d->sync = false;
	d->mark_have = 0;
	d->in_frag = false;
	d->frag_left = 0;
	if (d->started)
		msg_drop(n, d);
}

/* Where in p (cap bytes) does a plausible record start?  Only at p[0] on
 * a flow not known to carry RPC (so other TCP traffic costs one look per
 * segment); anywhere in the first RN_SCAN_MAX bytes otherwise. */
static size_t hunt(const struct rn_stream *s, int dir, const uint8_t *p, size_t cap)
{
	size_t lim = s->rpc ? cap : (cap ? 1 : 0);
	if (lim > RN_SCAN_MAX)
		lim = RN_SCAN_MAX;
	for (size_t k = 0; k < lim; k++) {
		if (cap - k < 16)
			break;
		uint32_t m = be32(p + k), len = m & 0x7fffffff;
		if (len < 12 || len > RN_MARK_MAX)
			continue;
		/* the header must lie in this fragment; a first fragment
		 * that is not the last says nothing of the message's length */
		size_t body = cap - k - 4 < len ? cap - k - 4 : len;
		if (rn_rpc_plausible(s, dir, p + k + 4, body, (m & 0x80000000u) ? len : RN_MARK_MAX))
			return k;
	}
	return (size_t)-1;
}

void rr_start(struct rpc_net *n, struct rn_stream *s, int dir)
{
	struct rn_dir *d = &s->d[dir];

	(void)n;
	if (!s->listed || d->started)
		return;
	d->sync = d->ever_sync = true;
	d->mark_have = 0;
	d->in_frag = false;
	d->frag_left = 0;
}

static void bad_mark(struct rpc_net *n, struct rn_stream *s, int dir, uint32_t m, uint64_t frame)
{
	struct rn_dir *d = &s->d[dir];

	n->st->rpc_bad_marks++;
	snprintf(n->msg, sizeof(n->msg),
		 "invalid record mark 0x%08x (a %u-byte fragment, more than %u): not ONC RPC record "
		 "marking, searching for the next record on connection %u", m, m & 0x7fffffff,
		 RN_MARK_MAX, s->conn.id);
	rn_diag(n, frame, 0, "rpc-tcp", CUR_INVALID, n->msg);
	lose_sync(n, d);
}

void rr_bytes(struct rpc_net *n, struct rn_stream *s, int dir, const uint8_t *p, size_t cap,
	      size_t wire, uint64_t ts, uint64_t frame)
{
	struct rn_dir *d = &s->d[dir];

	if (cap > wire)
		cap = wire;
	while (wire) {
		if (!d->sync) {
			size_t k = cap ? hunt(s, dir, p, cap) : (size_t)-1;
			if (k == (size_t)-1) {
				if (s->rpc)
					d->hunted += wire;
				return;
			}
			if (!s->opened)
				rn_make_rpc(n, s);
			if (k)
				n->st->rpc_resyncs++;
			d->hunted += k;
			d->sync = d->ever_sync = true;
			p += k, cap -= k, wire -= k;
			continue;
		}
		/* A whole last-fragment record in the captured bytes: no copy. */
		if (!d->in_frag && !d->mark_have && !d->started && cap >= 4) {
			uint32_t m = be32(p), len = m & 0x7fffffff;
			if ((m & 0x80000000u) && len <= RN_MARK_MAX && (size_t)len + 4 <= cap && len >= 8) {
				if (!s->opened)
					rn_make_rpc(n, s);
				d->started = true;
				d->ts_first = d->ts_last = ts;
				d->frame_first = d->frame_last = frame;
				d->npkts = 0;
				msg_frame(n, d, ts, frame);
				rn_emit(n, s, dir, p + 4, len, len, 0, ts, ts, frame, frame, 1, d->frames,
					d->nframes);
				d->nframes = 0;
				d->started = false;
				d->npkts = 0;
				p += 4 + len, cap -= 4 + len, wire -= 4 + len;
				continue;
			}
		}
		if (!d->in_frag) {
			if (!cap) {          /* a mark not captured: its length is unknown */
				lose_sync(n, d);
				continue;
			}
			/* a mark's frames are its message's, even a mark cut
			 * between segments */
			msg_frame(n, d, ts, frame);
			while (d->mark_have < 4 && cap) {
				d->mark[d->mark_have++] = *p++;
				cap--, wire--;
			}
			if (d->mark_have < 4)
				return;
			uint32_t m = be32(d->mark);
			d->mark_have = 0;
			if ((m & 0x7fffffff) > RN_MARK_MAX) {
				bad_mark(n, s, dir, m, frame);
				continue;
			}
			if (!s->opened)
				rn_make_rpc(n, s);
			d->in_frag = true;
			d->frag_left = m & 0x7fffffff;
			d->last_frag = m & 0x80000000u;
			msg_frame(n, d, ts, frame);
		}
		size_t k = d->frag_left < wire ? d->frag_left : wire;
		size_t kc = k < cap ? k : cap;
		if (k)
			msg_frame(n, d, ts, frame);
		msg_copy(n, d, p, kc);
		if (kc < k) {                /* the rest was not captured */
			d->flags |= RDMA_EVF_TRUNC_DATA;
			d->hole = true;
		}
		d->msg_len += k;
		d->frag_left -= (uint32_t)k;
		p += kc, cap -= kc, wire -= k;
		if (d->frag_left)
			return;
		d->in_frag = false;
		if (d->last_frag)
			deliver(n, s, dir);
	}
}

void rr_lost(struct rpc_net *n, struct rn_stream *s, int dir, size_t wire, uint64_t ts, uint64_t frame)
{
	struct rn_dir *d = &s->d[dir];

	(void)ts;
	(void)frame;
	if (!d->sync)
		return;
	if (d->in_frag && wire <= d->frag_left) {
		/* inside one fragment: the next mark is still where it was */
		d->flags |= RDMA_EVF_INCOMPLETE | RDMA_EVF_TRUNC_DATA;
		d->hole = true;
		d->msg_len += wire;
		d->frag_left -= (uint32_t)wire;
		if (!d->frag_left) {
			d->in_frag = false;
			if (d->last_frag)
				deliver(n, s, dir);
		}
		return;
	}
	lose_sync(n, d);
}

void rr_end(struct rpc_net *n, struct rn_stream *s, int dir, const char *why)
{
	struct rn_dir *d = &s->d[dir];

	if (d->started) {
		n->st->rpc_msgs_cut++;
		snprintf(n->msg, sizeof(n->msg), "RPC record of connection %u cut by %s after %zu bytes",
			 s->conn.id, why, d->msg_len);
		rn_diag(n, d->frame_last, 0, "rpc-tcp", CUR_TRUNCATED, n->msg);
		d->flags |= RDMA_EVF_INCOMPLETE;
		deliver(n, s, dir);
	}
	d->sync = false;
	d->in_frag = false;
	d->mark_have = 0;
	if (s->listed && !d->ever_sync && d->hunted >= 64 && !s->reported) {
		s->reported = true;
		n->st->rpc_no_record++;
		snprintf(n->msg, sizeof(n->msg), "%llu bytes on an RPC port and no ONC RPC record in them",
			 (unsigned long long)d->hunted);
		rn_diag(n, n->frame, 0, "rpc-tcp", CUR_INVALID, n->msg);
	}
}
