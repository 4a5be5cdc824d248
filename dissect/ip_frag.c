/* IP fragment reassembly for UDP datagrams (NFS over UDP sends READ
 * replies and WRITE calls larger than the MTU): at most FRAG_MAX datagrams
 * in progress (the oldest is given up beyond that, or after FRAG_NS), each
 * up to 64 KiB, with a bitmap of the 8-byte blocks received so overlapping
 * and repeated fragments count once. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/rpc_net_int.h"

#define FRAG_MAX   64
#define FRAG_BYTES 65536
#define FRAG_NS    (30ull * 1000000000ull)

struct frag_ent {
	bool     used;
	uint8_t  family, proto;
	uint8_t  src[16], dst[16];
	uint32_t id;
	uint64_t ts_first;
	uint32_t total;             /* known once the last fragment came; 0 until then */
	uint32_t have;              /* bytes received (blocks counted once) */
	uint8_t  bits[FRAG_BYTES / 8 / 8];
	uint8_t  data[FRAG_BYTES];
};

struct ip_frag {
	struct frag_ent e[FRAG_MAX];
};

struct ip_frag *ip_frag_new(void)
{
	return calloc(1, sizeof(struct ip_frag));
}

void ip_frag_free(struct ip_frag *f)
{
	free(f);
}

static bool same(const struct frag_ent *e, const struct l4_pkt *p)
{
	return e->used && e->id == p->frag_id && e->family == p->family && e->proto == p->proto &&
	       !memcmp(e->src, p->src, 16) && !memcmp(e->dst, p->dst, 16);
}

static struct frag_ent *slot(struct ip_frag *f, struct transport_stats *st, uint64_t ts,
			     const struct l4_pkt *p)
{
	struct frag_ent *free_e = NULL, *oldest = NULL;

	for (unsigned i = 0; i < FRAG_MAX; i++) {
		struct frag_ent *e = &f->e[i];
		if (same(e, p))
			return e;
		if (e->used && ts > e->ts_first && ts - e->ts_first > FRAG_NS) {
			e->used = false;
			st->ip_frag_dropped++;
		}
		if (!e->used && !free_e)
			free_e = e;
		if (e->used && (!oldest || e->ts_first < oldest->ts_first))
			oldest = e;
	}
	if (!free_e) {
		free_e = oldest;
		st->ip_frag_dropped++;
	}
	memset(free_e, 0, offsetof(struct frag_ent, data));
	free_e->used = true;
	free_e->family = p->family;
	free_e->proto = p->proto;
	memcpy(free_e->src, p->src, 16);
	memcpy(free_e->dst, p->dst, 16);
	free_e->id = p->frag_id;
	free_e->ts_first = ts;
	return free_e;
}

const uint8_t *ip_frag_add(struct ip_frag *f, struct transport_stats *st, uint64_t ts,
			   const struct l4_pkt *p, size_t *len, uint64_t *ts_first)
{
	st->ip_frags++;
	if (p->frag_off + p->wire_len > FRAG_BYTES || (p->frag_more && (p->wire_len & 7)) ||
	    p->cap_len < p->wire_len) {
		st->ip_frag_dropped++;   /* beyond 64 KiB, misaligned, or not all captured */
		return NULL;
	}
	struct frag_ent *e = slot(f, st, ts, p);
	memcpy(e->data + p->frag_off, p->payload, p->wire_len);
	for (uint32_t b = p->frag_off / 8; b < (p->frag_off + (uint32_t)p->wire_len + 7) / 8; b++)
		if (!(e->bits[b / 8] & (1u << (b & 7)))) {
			e->bits[b / 8] |= (uint8_t)(1u << (b & 7));
			e->have += 8;
		}
	if (!p->frag_more)
		e->total = p->frag_off + (uint32_t)p->wire_len;
	if (!e->total || e->have < ((e->total + 7) & ~7u))
		return NULL;
	e->used = false;
	st->ip_reassembled++;
	*len = e->total;
	*ts_first = e->ts_first;
	return e->data;
}
