/* Frame builders and an event recorder for the transport unit tests.
 * Header-only (static functions) so it links into no other test.  Frames
 * are built byte by byte as on the wire: RoCEv2 (Ethernet/IPv4/UDP 4791,
 * ICRC), native IB (LRH [+GRH], ICRC, VCRC) and ERF type 21 around it, so
 * the same packet can be fed through every link layer. */
#ifndef NFSRDMA_TEST_TRANSPORT_FRAMES_H
#define NFSRDMA_TEST_TRANSPORT_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/rdma_event.h"
#include "dissect/transport.h"

/* ------------------------------------------------------------- bytes */

struct fb {
	uint8_t b[9216];
	size_t n;
};

static inline void fb_u8(struct fb *f, uint8_t v) { f->b[f->n++] = v; }
static inline void fb_be16(struct fb *f, uint16_t v) { fb_u8(f, (uint8_t)(v >> 8)); fb_u8(f, (uint8_t)v); }
static inline void fb_be24(struct fb *f, uint32_t v) { fb_u8(f, (uint8_t)(v >> 16)); fb_be16(f, (uint16_t)v); }
static inline void fb_be32(struct fb *f, uint32_t v) { fb_be16(f, (uint16_t)(v >> 16)); fb_be16(f, (uint16_t)v); }
static inline void fb_be64(struct fb *f, uint64_t v) { fb_be32(f, (uint32_t)(v >> 32)); fb_be32(f, (uint32_t)v); }
static inline void fb_le32(struct fb *f, uint32_t v) { for (int i = 0; i < 4; i++) fb_u8(f, (uint8_t)(v >> (8 * i))); }
static inline void fb_mem(struct fb *f, const void *p, size_t n) { if (n) memcpy(f->b + f->n, p, n); f->n += n; }
static inline void fb_zero(struct fb *f, size_t n) { memset(f->b + f->n, 0, n); f->n += n; }
static inline void fb_put_be16(struct fb *f, size_t at, uint16_t v) { f->b[at] = (uint8_t)(v >> 8); f->b[at + 1] = (uint8_t)v; }

/* ------------------------------------------------------ IB transport */

/* One IB transport packet: BTH fields, extended headers (already
 * encoded), payload.  pad is computed from the payload length. */
struct ibp {
	uint8_t  opcode;
	uint32_t dqpn, psn;
	bool     ackreq, se;
	uint8_t  ext[64];
	size_t   ext_len;
	const uint8_t *payload;
	size_t   plen;
	int      pad;          /* -1: automatic */
};

static inline void ibp_init(struct ibp *p, uint8_t opcode, uint32_t dqpn, uint32_t psn)
{
	memset(p, 0, sizeof(*p));
	p->opcode = opcode;
	p->dqpn = dqpn;
	p->psn = psn;
	p->pad = -1;
}

static inline void ibp_ext_be32(struct ibp *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		p->ext[p->ext_len++] = (uint8_t)(v >> (8 * i));
}

static inline void ibp_reth(struct ibp *p, uint64_t va, uint32_t rkey, uint32_t len)
{
	ibp_ext_be32(p, (uint32_t)(va >> 32));
	ibp_ext_be32(p, (uint32_t)va);
	ibp_ext_be32(p, rkey);
	ibp_ext_be32(p, len);
}

static inline void ibp_aeth(struct ibp *p, uint8_t syn, uint32_t msn) { ibp_ext_be32(p, ((uint32_t)syn << 24) | (msn & 0xffffff)); }
static inline void ibp_deth(struct ibp *p, uint32_t qkey, uint32_t srcqp) { ibp_ext_be32(p, qkey); ibp_ext_be32(p, srcqp & 0xffffff); }

static inline size_t ibp_pad(const struct ibp *p)
{
	return p->pad >= 0 ? (size_t)p->pad : (4 - p->plen % 4) % 4;
}

/* BTH .. payload .. pad (no ICRC). */
static inline void fb_ib_transport(struct fb *f, const struct ibp *p)
{
	size_t pad = ibp_pad(p);
	fb_u8(f, p->opcode);
	fb_u8(f, (uint8_t)((p->se ? 0x80 : 0) | (pad << 4)));
	fb_be16(f, 0xffff);
	fb_be32(f, p->dqpn & 0xffffff);
	fb_be32(f, (p->ackreq ? 0x80000000u : 0) | (p->psn & 0xffffff));
	fb_mem(f, p->ext, p->ext_len);
	fb_mem(f, p->payload, p->plen);
	fb_zero(f, pad);
}

static inline size_t ibp_len(const struct ibp *p) { return 12 + p->ext_len + p->plen + ibp_pad(p); }

/* ------------------------------------------------------------ RoCEv2 */

struct rhost {
	uint8_t  mac[6];
	uint32_t ip;        /* host order, e.g. 0x0a090001 */
	uint16_t sport;
};

static inline void fb_eth_ipv4_udp(struct fb *f, const struct rhost *s, const struct rhost *d,
				   size_t udp_payload, int vlan)
{
	fb_mem(f, d->mac, 6);
	fb_mem(f, s->mac, 6);
	if (vlan >= 0) {
		fb_be16(f, 0x8100);
		fb_be16(f, (uint16_t)vlan);
	}
	fb_be16(f, 0x0800);
	fb_u8(f, 0x45);
	fb_u8(f, 0x02);                  /* ECT(0) */
	fb_be16(f, (uint16_t)(20 + 8 + udp_payload));
	fb_be16(f, 0);
	fb_be16(f, 0x4000);
	fb_u8(f, 64);
	fb_u8(f, 17);
	fb_be16(f, 0);
	fb_be32(f, s->ip);
	fb_be32(f, d->ip);
	fb_be16(f, s->sport);
	fb_be16(f, 4791);
	fb_be16(f, (uint16_t)(8 + udp_payload));
	fb_be16(f, 0);
}

/* A whole RoCEv2 frame: Ethernet/IPv4/UDP/BTH../ICRC. */
static inline void fb_rocev2(struct fb *f, const struct rhost *s, const struct rhost *d, const struct ibp *p)
{
	f->n = 0;
	fb_eth_ipv4_udp(f, s, d, ibp_len(p) + 4, -1);
	fb_ib_transport(f, p);
	fb_be32(f, 0xdeadbeef);          /* ICRC */
}

/* -------------------------------------------------------- native IB */

/* LRH (+ GRH when gids given) + transport + ICRC + VCRC. */
static inline void fb_ib(struct fb *f, uint16_t slid, uint16_t dlid, const uint8_t *sgid,
			 const uint8_t *dgid, const struct ibp *p)
{
	size_t tl = ibp_len(p);
	size_t words = (8 + (sgid ? 40 : 0) + tl + 4) / 4;
	f->n = 0;
	fb_u8(f, 0x00);                      /* VL 0, LVer 0 */
	fb_u8(f, sgid ? 0x03 : 0x02);        /* SL 0, LNH */
	fb_be16(f, dlid);
	fb_be16(f, (uint16_t)words);
	fb_be16(f, slid);
	if (sgid) {
		fb_be32(f, 0x60000000u);
		fb_be16(f, (uint16_t)(tl + 4));
		fb_u8(f, 0x1b);
		fb_u8(f, 64);
		fb_mem(f, sgid, 16);
		fb_mem(f, dgid, 16);
	}
	fb_ib_transport(f, p);
	fb_be32(f, 0x12345678);              /* ICRC */
	fb_be16(f, 0xabcd);                  /* VCRC */
}

/* Wraps f's bytes in an ERF type-21 record header (ibdump style). */
static inline void fb_erf_wrap(struct fb *f, uint8_t type, bool ext)
{
	uint8_t tmp[sizeof(f->b)];
	size_t n = f->n;
	memcpy(tmp, f->b, n);
	f->n = 0;
	fb_le32(f, 0x80000000u);                 /* fraction */
	fb_le32(f, 1700000000u);                 /* seconds */
	fb_u8(f, (uint8_t)(type | (ext ? 0x80 : 0)));
	fb_u8(f, 0x04);
	size_t rlen = 16 + (ext ? 8 : 0) + n;
	fb_be16(f, (uint16_t)((rlen + 7) & ~(size_t)7));
	fb_be16(f, 0);
	fb_be16(f, (uint16_t)n);
	if (ext) {
		fb_u8(f, 0x04);                   /* one extension header, no more */
		fb_zero(f, 7);
	}
	fb_mem(f, tmp, n);
	while ((f->n & 7) != 0)
		fb_u8(f, 0);                     /* ERF record padding */
}

/* ------------------------------------------------------------ CM MADs */

struct cmspec {
	uint16_t attr;
	uint32_t local_comm, remote_comm;
	uint64_t service_id;
	uint32_t local_qpn, start_psn, remote_qpn;
	uint8_t  mtu;              /* enum */
	bool     cma_hdr;          /* REQ: rdma_cm IP header */
	uint32_t cma_src, cma_dst;
	bool     rpcrdma;
	uint8_t  rr_version, rr_flags, rr_send, rr_recv;
};

/* A 256-byte CM MAD. */
static inline void cm_mad(uint8_t *mad, const struct cmspec *s)
{
	struct fb f;
	f.n = 0;
	fb_u8(&f, 1);
	fb_u8(&f, 0x07);
	fb_u8(&f, 2);
	fb_u8(&f, 0x03);
	fb_zero(&f, 4);
	fb_be64(&f, 0x1234);
	fb_be16(&f, s->attr);
	fb_zero(&f, 6);
	size_t base = f.n;
	fb_zero(&f, 232);
	f.n = base;
	fb_be32(&f, s->local_comm);
	size_t priv = 0;
	switch (s->attr) {
	case 0x10:   /* REQ */
		f.n = base + 8;  fb_be64(&f, s->service_id);
		f.n = base + 32; fb_be24(&f, s->local_qpn);
		f.n = base + 44; fb_be24(&f, s->start_psn);
		f.n = base + 50; fb_u8(&f, (uint8_t)(s->mtu << 4));
		priv = base + 140;
		break;
	case 0x13:   /* REP */
		fb_be32(&f, s->remote_comm);
		f.n = base + 12; fb_be24(&f, s->local_qpn);
		f.n = base + 20; fb_be24(&f, s->start_psn);
		priv = base + 36;
		break;
	case 0x15:   /* DREQ */
		fb_be32(&f, s->remote_comm);
		fb_be24(&f, s->remote_qpn);
		priv = base + 12;
		break;
	default:     /* RTU, DREP, REJ */
		fb_be32(&f, s->remote_comm);
		priv = base + 8;
		break;
	}
	f.n = priv;
	if (s->cma_hdr) {
		fb_u8(&f, 0);
		fb_u8(&f, 0x40);
		fb_be16(&f, 0x9999);
		fb_zero(&f, 12); fb_be32(&f, s->cma_src);
		fb_zero(&f, 12); fb_be32(&f, s->cma_dst);
	}
	if (s->rpcrdma) {
		fb_be32(&f, 0xf6ab0e18u);
		fb_u8(&f, s->rr_version);
		fb_u8(&f, s->rr_flags);
		fb_u8(&f, s->rr_send);
		fb_u8(&f, s->rr_recv);
	}
	memcpy(mad, f.b, 256);
}

/* UD SEND Only to QP1 carrying a CM MAD. */
static inline void ibp_cm(struct ibp *p, uint8_t *mad_storage, const struct cmspec *s, uint32_t psn)
{
	ibp_init(p, 0x64, 1, psn);
	ibp_deth(p, 0x80010000u, 1);
	cm_mad(mad_storage, s);
	p->payload = mad_storage;
	p->plen = 256;
}

/* ------------------------------------------------------ event recorder */

struct rec_ev {
	struct rdma_event ev;     /* data points into copy, frames into fcopy */
	uint8_t *copy;
	uint64_t *fcopy;
	uint32_t conn_id;
	struct rdma_conn conn;    /* snapshot at delivery */
};

struct recorder {
	struct rec_ev ev[4096];
	size_t n, dropped;      /* events past the array are counted only */
	char diag[32][200];
	size_t ndiag;
};

static inline void rec_event(const struct rdma_event *e, void *ctx)
{
	struct recorder *r = ctx;
	if (r->n >= sizeof(r->ev) / sizeof(r->ev[0])) {
		r->dropped++;
		return;
	}
	struct rec_ev *x = &r->ev[r->n++];
	x->ev = *e;
	x->copy = NULL;
	if (e->data_len) {
		x->copy = malloc(e->data_len);
		memcpy(x->copy, e->data, e->data_len);
	}
	x->ev.data = x->copy;
	x->fcopy = NULL;
	if (e->nframes && e->frames) {
		x->fcopy = malloc(e->nframes * sizeof(*x->fcopy));
		memcpy(x->fcopy, e->frames, e->nframes * sizeof(*x->fcopy));
	}
	x->ev.frames = x->fcopy;
	x->conn_id = e->conn ? e->conn->id : 0;
	if (e->conn)
		x->conn = *e->conn;
}

static inline void rec_diag(const struct diag *d, void *ctx)
{
	struct recorder *r = ctx;
	if (r->ndiag < 32)
		snprintf(r->diag[r->ndiag++], 200, "frame %llu, offset %zu: %s: %s",
			 (unsigned long long)d->frame, d->offset, d->layer, d->msg);
}

static inline void rec_free(struct recorder *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->ev[i].copy);
		free(r->ev[i].fcopy);
	}
	r->n = 0;
	r->ndiag = 0;
	r->dropped = 0;
}

/* Events of one type, in order; NULL past the end. */
static inline const struct rec_ev *rec_nth(const struct recorder *r, enum rdma_ev_type type, size_t nth)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ev[i].ev.type == type && nth-- == 0)
			return &r->ev[i];
	return NULL;
}

static inline size_t rec_count(const struct recorder *r, enum rdma_ev_type type)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->ev[i].ev.type == type;
	return n;
}

/* The same, on connections of one kind: RDMA (ip_proto 0), TCP (6), UDP (17). */
static inline size_t rec_count_proto(const struct recorder *r, enum rdma_ev_type type, uint8_t proto)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->ev[i].ev.type == type && r->ev[i].conn.ip_proto == proto;
	return n;
}

/* ------------------------------------------------------------ harness */

struct th {
	struct transport *t;
	struct recorder r;
	uint64_t frame, ts;
};

static inline void th_init(struct th *h, int linktype)
{
	memset(&h->r, 0, sizeof(h->r));
	h->frame = 0;
	h->ts = 1000000000ull;
	h->t = transport_new(rec_event, rec_diag, &h->r);
	transport_set_linktype(h->t, linktype);
}

static inline void th_feed_cut(struct th *h, const struct fb *f, size_t caplen)
{
	h->ts += 1000;
	transport_packet(h->t, h->ts, ++h->frame, f->b, caplen < f->n ? caplen : f->n, f->n);
}

static inline void th_feed(struct th *h, const struct fb *f) { th_feed_cut(h, f, f->n); }

static inline void th_done(struct th *h)
{
	transport_free(h->t);
	h->t = NULL;
	rec_free(&h->r);
}

#endif
