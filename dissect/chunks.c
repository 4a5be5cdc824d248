#include "dissect/chunks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t seg_key(uint32_t conn_id, int owner, uint32_t handle)
{
	return ((uint64_t)conn_id << 33) | ((uint64_t)(owner & 1) << 32) | handle;
}

static inline size_t seg_hash(uint64_t key, size_t n)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 32) & (n - 1);
}

int seg_table_init(struct seg_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = 1024;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -ENOMEM;
}

void seg_table_free(struct seg_table *t)
{
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct cseg *s = t->buckets[i], *n;
		for (; s; s = n) {
			n = s->hnext;
			free(s);
		}
	}
	for (struct cseg *s = t->free, *n; s; s = n) {
		n = s->hnext;
		free(s);
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

static void seg_grow(struct seg_table *t)
{
	size_t n = t->nbuckets * 2;
	struct cseg **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct cseg *s = t->buckets[i], *next;
		for (; s; s = next) {
			next = s->hnext;
			size_t h = seg_hash(s->key, n);
			s->hnext = b[h];
			b[h] = s;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
}

static struct cseg *seg_add(struct seg_table *t, struct xentry *x, uint64_t key,
			    const struct rpcrdma_seg *rs, enum cseg_kind kind, unsigned chunk,
			    uint32_t position, uint32_t chunk_off)
{
	struct cseg *s = t->free;

	if (s)
		t->free = s->hnext;
	else if (!(s = malloc(sizeof(*s))))
		return NULL;
	if (t->count >= t->nbuckets)
		seg_grow(t);
	s->key = key;
	s->x = x;
	s->va = rs->offset;
	s->len = rs->length;
	s->kind = (uint8_t)kind;
	s->chunk = (uint8_t)(chunk > 255 ? 255 : chunk);
	s->position = position;
	s->chunk_off = chunk_off;
	size_t h = seg_hash(key, t->nbuckets);
	s->hnext = t->buckets[h];
	t->buckets[h] = s;
	s->xnext = x->segs;
	x->segs = s;
	t->count++;
	return s;
}

void chunks_release(struct seg_table *t, struct xentry *x)
{
	struct cseg *s = x->segs, *n;

	for (; s; s = n) {
		n = s->xnext;
		struct cseg **pp = &t->buckets[seg_hash(s->key, t->nbuckets)];
		while (*pp && *pp != s)
			pp = &(*pp)->hnext;
		if (*pp)
			*pp = s->hnext;
		s->hnext = t->free;
		t->free = s;
		t->count--;
	}
	x->segs = NULL;
}

int chunks_register_call(struct seg_table *t, struct xentry *x, uint32_t conn_id, int owner,
			 const struct rpcrdma_hdr *h)
{
	struct nfsrdma_record *r = &x->rec;
	uint32_t p0off = 0;
	int ret = 0;

	/* Read list: segments with the same position form one chunk, in
	 * list order. */
	for (unsigned i = 0; i < h->nrsegs; i++) {
		const struct rpcrdma_rseg *rs = &h->rsegs[i];
		uint32_t off = 0;
		for (unsigned j = 0; j < i; j++)
			if (h->rsegs[j].position == rs->position)
				off += h->rsegs[j].seg.length;
		if (!seg_add(t, x, seg_key(conn_id, owner, rs->seg.handle), &rs->seg, CSEG_READ,
			     0, rs->position, off))
			ret = -ENOMEM;
		r->read_chunk_bytes += rs->seg.length;
		if (rs->position == 0)
			p0off = off + rs->seg.length;
	}
	r->n_read_segs = (uint16_t)(h->nrsegs_wire > 0xffff ? 0xffff : h->nrsegs_wire);
	r->n_read_chunks = (uint16_t)rpcrdma_read_chunk_count(h);
	if (p0off) {
		uint32_t n = p0off < CHUNK_REASM_MAX ? p0off : CHUNK_REASM_MAX;
		x->p0buf = malloc(n);
		x->p0len = x->p0buf ? n : 0;
		if (!x->p0buf)
			ret = -ENOMEM;
	}
	/* Positions > 0: where DDP took an argument out of the stream. */
	for (unsigned i = 0; i < h->nrsegs; i++) {
		uint32_t pos = h->rsegs[i].position;
		bool seen = pos == 0;
		for (unsigned j = 0; j < x->call_ddp.nread && !seen; j++)
			seen = x->call_ddp.read_pos[j] == pos;
		if (!seen && x->call_ddp.nread < XDR_DDP_MAX) {
			x->call_ddp.read_pos[x->call_ddp.nread] = pos;
			x->call_ddp.read_len[x->call_ddp.nread++] = rpcrdma_read_chunk_len(h, pos);
		}
	}
	/* Write list */
	for (unsigned c = 0; c < h->nwchunks; c++) {
		const struct rpcrdma_wchunk *wc = &h->wchunks[c];
		uint32_t off = 0;
		for (unsigned k = 0; k < wc->nsegs; k++) {
			const struct rpcrdma_seg *s = &h->wsegs[wc->first + k];
			if (!seg_add(t, x, seg_key(conn_id, owner, s->handle), s, CSEG_WRITE, c, 0, off))
				ret = -ENOMEM;
			off += s->length;
		}
		if (x->nwchunks < XDR_DDP_MAX)
			x->wchunk_len[x->nwchunks++] = wc->length;
		r->write_chunk_bytes += wc->length;
	}
	r->n_write_chunks = (uint16_t)(h->nwchunks_wire > 0xffff ? 0xffff : h->nwchunks_wire);
	r->n_write_segs = h->nwsegs;
	/* Reply chunk */
	if (h->has_reply) {
		uint32_t off = 0;
		for (unsigned k = 0; k < h->nrpsegs; k++) {
			if (!seg_add(t, x, seg_key(conn_id, owner, h->rpsegs[k].handle), &h->rpsegs[k],
				     CSEG_REPLY, 0, 0, off))
				ret = -ENOMEM;
			off += h->rpsegs[k].length;
		}
		r->reply_chunk_bytes = h->reply_len;
		r->n_reply_segs = (uint16_t)(h->nrpsegs_wire ? h->nrpsegs_wire : 0);
		if (!r->n_reply_segs)
			r->n_reply_segs = 0;
	}
	return ret;
}

static void copy_in(uint8_t *buf, uint32_t buflen, uint32_t *got, uint64_t at,
		    const uint8_t *data, size_t n)
{
	if (!buf || at >= buflen || !data)
		return;
	if (n > buflen - at)
		n = buflen - (size_t)at;
	memcpy(buf + at, data, n);
	*got += (uint32_t)n;
}

static void stamp(uint64_t *first, uint64_t *last, const struct rdma_event *ev)
{
	if (!*first || ev->ts_first_ns < *first)
		*first = ev->ts_first_ns;
	if (ev->ts_last_ns > *last)
		*last = ev->ts_last_ns;
}

bool chunks_apply(struct seg_table *t, struct xid_table *xt, uint32_t conn_id,
		  const struct rdma_event *ev, struct chunk_match *m)
{
	int owner = ev->dir ^ 1;
	uint64_t key = seg_key(conn_id, owner, ev->rkey);
	struct cseg *s;
	/* READ: what the responder asked for; WRITE: what it wrote. */
	uint64_t n = ev->type == RDMA_EV_READ ? (ev->dma_len ? ev->dma_len : ev->msg_len) : ev->msg_len;

	memset(m, 0, sizeof(*m));
	for (s = t->buckets[seg_hash(key, t->nbuckets)]; s; s = s->hnext)
		if (s->key == key && ev->va >= s->va && ev->va - s->va < (s->len ? s->len : 1))
			break;
	if (!s) {
		/* Fallback: the XID the Linux client put in the offset. */
		struct xentry *x = xid_find(xt, conn_id, owner, (uint32_t)(ev->va >> 32));
		if (!x)
			return false;
		m->x = x;
		x->rec.flags |= RECF_XID_HINT;
		rec_add_retrans(&x->rec, ev->nretrans);
		if (ev->type == RDMA_EV_READ) {
			stamp(&x->rec.t_read_first, &x->rec.t_read_last, ev);
			x->rec.read_bytes += n;
			x->rec.n_rdma_reads++;
		} else {
			stamp(&x->rec.t_write_first, &x->rec.t_write_last, ev);
			if (x->rec.n_write_chunks)
				x->rec.write_bytes += n;
			else
				x->rec.reply_bytes += n;
			x->rec.n_rdma_writes++;
		}
		return true;
	}
	struct xentry *x = s->x;
	struct nfsrdma_record *r = &x->rec;
	uint64_t rel = ev->va - s->va;
	m->x = x;
	m->seg = s;
	if (rel + n > s->len)
		m->past_end = (uint32_t)(rel + n - s->len);
	if (ev->flags & RDMA_EVF_RETRANSMIT)
		r->flags |= RECF_RETRANSMIT;
	rec_add_retrans(r, ev->nretrans);
	if (ev->type == RDMA_EV_READ) {
		stamp(&r->t_read_first, &r->t_read_last, ev);
		r->read_bytes += n;
		r->n_rdma_reads++;
		if (s->kind == CSEG_READ && s->position == 0 && x->p0buf) {
			copy_in(x->p0buf, x->p0len, &x->p0got, s->chunk_off + rel, ev->data,
				ev->data_len);
			m->p0_complete = x->p0got >= x->p0len && !x->call_decoded;
		}
	} else {
		stamp(&r->t_write_first, &r->t_write_last, ev);
		r->n_rdma_writes++;
		if (s->kind == CSEG_REPLY) {
			r->reply_bytes += n;
			if (!x->rcbuf && r->reply_chunk_bytes) {
				uint64_t want = r->reply_chunk_bytes;
				x->rclen = (uint32_t)(want < CHUNK_REASM_MAX ? want : CHUNK_REASM_MAX);
				x->rcbuf = malloc(x->rclen);
				if (!x->rcbuf)
					x->rclen = 0;
			}
			copy_in(x->rcbuf, x->rclen, &x->rcgot, s->chunk_off + rel, ev->data,
				ev->data_len);
		} else {
			r->write_bytes += n;
		}
	}
	return true;
}

bool chunks_wants_data(const struct seg_table *t, uint32_t conn_id, int owner, uint32_t rkey, uint64_t va)
{
	uint64_t key = seg_key(conn_id, owner, rkey);

	for (const struct cseg *s = t->buckets[seg_hash(key, t->nbuckets)]; s; s = s->hnext)
		if (s->key == key && va >= s->va && va - s->va < (s->len ? s->len : 1))
			return (s->kind == CSEG_READ && s->position == 0) || s->kind == CSEG_REPLY;
	return true;   /* not ours (yet): keep it, the XID hint may claim it */
}
