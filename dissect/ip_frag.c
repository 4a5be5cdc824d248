/* IP fragment reassembly for UDP datagrams (NFS over UDP sends READ
 * replies and WRITE calls larger than the MTU): at most FRAG_MAX datagrams
 * in progress (the oldest is given up beyond that, or after FRAG_NS), each
 * up to 64 KiB, with a bitmap of the 8-byte blocks received so overlapping
 * and repeated fragments count once. */
#include <stddef.h>
#include <stdio.h>
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
	uint64_t ts_first, frame_first;
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

/* A datagram whose fragments will not all come: counted, one line. */
static void give_up(struct rpc_net *n, struct frag_ent *e, const char *why)
{
	e->used = false;
	n->st->ip_frag_dropped++;
	snprintf(n->msg, sizeof(n->msg), "UDP datagram in IP fragments (IP id %u) given up %s: %u bytes of "
		 "it came%s", e->id, why, e->have > e->total && e->total ? e->total : e->have,
		 e->total ? "" : ", not its last fragment");
	rn_diag(n, e->frame_first, 0, "ip-frag", CUR_TRUNCATED, n->msg);
}

static struct frag_ent *slot(struct rpc_net *n, uint64_t ts, uint64_t frame, const struct l4_pkt *p)
{
	struct ip_frag *f = n->frags;
	struct frag_ent *free_e = NULL, *oldest = NULL;

	for (unsigned i = 0; i < FRAG_MAX; i++) {
		struct frag_ent *e = &f->e[i];
		if (same(e, p))
			return e;
		if (e->used && ts > e->ts_first && ts - e->ts_first > FRAG_NS)
			give_up(n, e, "after 30 s");
		if (!e->used && !free_e)
			free_e = e;
		if (e->used && (!oldest || e->ts_first < oldest->ts_first))
			oldest = e;
	}
	if (!free_e) {
		free_e = oldest;
		give_up(n, oldest, "for a newer one (64 in progress)");
	}
	memset(free_e, 0, offsetof(struct frag_ent, data));
	free_e->used = true;
	free_e->family = p->family;
	free_e->proto = p->proto;
	memcpy(free_e->src, p->src, 16);
	memcpy(free_e->dst, p->dst, 16);
	free_e->id = p->frag_id;
	free_e->ts_first = ts;
	free_e->frame_first = frame;
	return free_e;
}

const uint8_t *ip_frag_add(struct rpc_net *n, uint64_t ts, uint64_t frame, size_t base,
			   const struct l4_pkt *p, size_t *len, uint64_t *ts_first)
{
	n->st->ip_frags++;
	if (p->frag_off + p->wire_len > FRAG_BYTES || (p->frag_more && (p->wire_len & 7)) ||
	    p->cap_len < p->wire_len) {
		n->st->ip_frag_dropped++;
		snprintf(n->msg, sizeof(n->msg), "IP fragment (id %u) of %zu bytes at offset %u %s: its "
			 "datagram cannot be reassembled", p->frag_id, p->wire_len, p->frag_off,
			 p->cap_len < p->wire_len ? "not all captured" :
			 p->frag_off + p->wire_len > FRAG_BYTES ? "beyond 64 KiB" : "not a multiple of 8 bytes");
		rn_diag(n, frame, base + p->off, "ip-frag", CUR_INVALID, n->msg);
		return NULL;
	}
	struct frag_ent *e = slot(n, ts, frame, p);
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
	n->st->ip_reassembled++;
	*len = e->total;
	*ts_first = e->ts_first;
	return e->data;
}

void ip_frag_flush(struct rpc_net *n)
{
	for (unsigned i = 0; n->frags && i < FRAG_MAX; i++)
		if (n->frags->e[i].used)
			give_up(n, &n->frags->e[i], "at the capture's end");
}
