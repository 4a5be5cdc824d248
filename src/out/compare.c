/* --compare: the per-operation counts of two captures (compare.h). */
#include "dissect/grow.h"
#include "src/out/compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/record_names.h"

struct compare *compare_new(const char *file_a, const char *file_b)
{
	struct compare *c = calloc(1, sizeof(*c));

	if (c) {
		c->file[CMP_A] = file_a;
		c->file[CMP_B] = file_b;
	}
	return c;
}

void compare_free(struct compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		for (int s = 0; s < CMP_SIDES; s++)
			hist_free(&c->op[i]->side[s].lat);
		free(c->op[i]);
	}
	free(c->op);
	free(c);
}

/* A few dozen operations at most: a linear scan. */
static struct cmp_op *op_get(struct compare *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->op[i]->key, key))
			return c->op[i];
	if (ARR_RESERVE(c->op, c->cap, c->n + 1, 32) < 0)
		return NULL;
	struct cmp_op *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	for (int s = 0; s < CMP_SIDES; s++)
		if (hist_init(&o->side[s].lat, HIST_RES) < 0) {
			hist_free(&o->side[CMP_A].lat);
			free(o);
			return NULL;
		}
	snprintf(o->key, sizeof(o->key), "%s", key);
	c->op[c->n++] = o;
	return o;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The payload of a record (see above). */
static uint64_t cmp_call_bytes(const struct nfsrdma_record *r)
{
	return minus(r->call_inline, r->call_hdr) + r->read_bytes;
}

static uint64_t cmp_reply_bytes(const struct nfsrdma_record *r)
{
	return minus(r->reply_inline, r->reply_hdr) + r->write_bytes + r->reply_bytes;
}

const char *const cmp_mix_name[CMP_MIX_N] = { "inline", "read", "write", "reply", "p0" };
const char *const cmp_proc_name[CMP_PROC_SLOTS] = { "msg", "nomsg", "msgp", "done", "error", "other" };

static void range_add(struct cmp_range *g, uint64_t v)
{
	if (!g->n || v < g->min)
		g->min = v;
	if (!g->n || v > g->max)
		g->max = v;
	g->n++;
}

static void inline_add(struct cmp_inline *in, uint64_t v)
{
	in->n++;
	in->sum += v;
	if (v > in->max)
		in->max = v;
}

static void proc_add(uint64_t *slot, uint8_t proc)
{
	if (proc != 0xff)   /* unseen */
		slot[proc < CMP_PROC_N ? proc : CMP_PROC_OTHER]++;
}

/* Adds record r's transport facts to x (nothing for TCP / UDP). */
static void cmp_xprt_add(struct cmp_xprt *x, const struct nfsrdma_record *r)
{
	if (r->transport != REC_TR_RDMA)
		return;
	x->rdma++;
	bool p0 = r->flags & RECF_ARGS_DDP;
	/* a position-zero chunk is the whole call, not a data item: read
	 * counts the other Read chunks only */
	unsigned reads = r->n_read_chunks - (p0 && r->n_read_chunks ? 1 : 0);
	x->mix[CMP_MIX_P0] += p0;
	x->mix[CMP_MIX_READ] += reads != 0;
	x->mix[CMP_MIX_WRITE] += r->n_write_chunks != 0;
	x->mix[CMP_MIX_REPLY] += r->n_reply_segs != 0;
	x->mix[CMP_MIX_INLINE] += !p0 && !reads && !r->n_write_chunks && !r->n_reply_segs;
	bool back = r->flags & RECF_BACKCHANNEL;
	if (r->flags & RECF_CALL) {
		proc_add(x->call_proc, r->call_rdma_proc);
		inline_add(&x->call_inline, r->call_inline);
		range_add(&x->credits_asked, r->credits_asked);
		uint64_t *m = back ? &x->max_to_client : &x->max_to_server;
		if (r->call_inline > *m)
			*m = r->call_inline;
	}
	if (r->flags & RECF_REPLY) {
		proc_add(x->reply_proc, r->reply_rdma_proc);
		inline_add(&x->reply_inline, r->reply_inline);
		range_add(&x->credits_granted, r->credits_granted);
		uint64_t *m = back ? &x->max_to_server : &x->max_to_client;
		if (r->reply_inline > *m)
			*m = r->reply_inline;
	}
	if ((r->flags & RECF_RES_DDP) || r->reply_bytes)
		x->reply_chunk_used++;
	x->reply_chunk_bytes += r->reply_bytes;
	x->vers[r->rdma_vers < CMP_VERS_SLOTS - 1 ? r->rdma_vers : CMP_VERS_SLOTS - 1]++;
}

int compare_add(struct compare *c, int side, const struct nfsrdma_record *r)
{
	char key[96];

	if (side < 0 || side >= CMP_SIDES)
		return -EINVAL;
	struct cmp_op *o = op_get(c, rec_name_str(r, key, sizeof(key)));
	if (!o)
		return -ENOMEM;
	struct cmp_side *s = &o->side[side];
	c->rpcs[side]++;
	s->rpcs++;
	s->call_bytes += cmp_call_bytes(r);
	s->reply_bytes += cmp_reply_bytes(r);
	cmp_xprt_add(&s->x, r);
	cmp_xprt_add(&c->all[side], r);
	if (!rec_total_known(r))
		return 0;
	s->timed++;
	s->lat_sum += r->d_total;
	hist_add(&s->lat, r->d_total);
	for (unsigned ph = 0; ph < REC_PH_N; ph++)
		if (rec_phase_seen(r, ph)) {
			s->phase_sum[ph] += r->d_phase[ph];
			s->phase_n[ph]++;
		}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct cmp_op *x = *(const struct cmp_op *const *)a, *y = *(const struct cmp_op *const *)b;
	return strcmp(x->key, y->key);
}

void compare_sort(struct compare *c)
{
	if (c->n)
		qsort(c->op, c->n, sizeof(*c->op), cmp_key);
}
