/* What the ONC RPC over TCP/UDP unit tests share (test_rpc_net.c,
 * test_rpc_net_caps.c): the messages, their record marks, Ethernet/IPv4/
 * TCP frames of one client and one server, and the harness.  Header-only
 * (static functions), one test binary each.
 *
 * Messages: a NFSv3 GETATTR call of 52 bytes (xid, CALL, rpcvers 2,
 * 100003/3/1, AUTH_NONE credential and verifier, a file handle of 8
 * bytes with no byte 0x02 in it) and its reply of 28 bytes (xid, REPLY,
 * MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, NFS3_OK); on the wire each
 * is one last-fragment record: 56 and 32 bytes. */
#ifndef NFSRDMA_TEST_RPC_NET_H
#define NFSRDMA_TEST_RPC_NET_H

#include "check.h"
#include "dissect/feed.h"
#include "test_transport_frames.h"

#define CALL_LEN  52
#define REPLY_LEN 28
#define REC_CALL  (4 + CALL_LEN)

static struct th h;
/* When set, tcp_seg's frames go through the whole dissector (transport
 * and records) instead of h's transport; h.ts and h.frame still count. */
static struct dissect_feed *h_feed;

static const struct rhost cli = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 800 };
static const struct rhost srv = { { 2, 0, 0, 0, 0, 2 }, 0x0a000002, 2049 };

static inline uint32_t rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* ---------------------------------------------------------- messages */

static inline void put32(uint8_t *b, size_t *n, uint32_t v)
{
	b[(*n)++] = (uint8_t)(v >> 24);
	b[(*n)++] = (uint8_t)(v >> 16);
	b[(*n)++] = (uint8_t)(v >> 8);
	b[(*n)++] = (uint8_t)v;
}

static inline size_t call_msg(uint8_t *b, uint32_t xid)
{
	size_t n = 0;
	put32(b, &n, xid);
	put32(b, &n, 0);            /* CALL */
	put32(b, &n, 2);
	put32(b, &n, 100003);
	put32(b, &n, 3);
	put32(b, &n, 1);            /* GETATTR */
	put32(b, &n, 0);            /* AUTH_NONE, 0 bytes */
	put32(b, &n, 0);
	put32(b, &n, 0);            /* verifier */
	put32(b, &n, 0);
	put32(b, &n, 8);            /* file handle */
	put32(b, &n, 0x11111111);
	put32(b, &n, 0x33333333);
	return n;
}

static inline size_t reply_msg(uint8_t *b, uint32_t xid)
{
	size_t n = 0;
	put32(b, &n, xid);
	put32(b, &n, 1);            /* REPLY */
	put32(b, &n, 0);            /* MSG_ACCEPTED */
	put32(b, &n, 0);
	put32(b, &n, 0);
	put32(b, &n, 0);            /* SUCCESS */
	put32(b, &n, 0);            /* NFS3_OK */
	return n;
}

/* One direction's byte stream, built record by record. */
struct bs {
	uint8_t b[65536];
	size_t n;
};

static inline void bs_mark(struct bs *s, bool last, uint32_t len) { put32(s->b, &s->n, (last ? 0x80000000u : 0) | len); }

static inline void bs_call(struct bs *s, uint32_t xid)
{
	bs_mark(s, true, CALL_LEN);
	s->n += call_msg(s->b + s->n, xid);
}

static inline void bs_reply(struct bs *s, uint32_t xid)
{
	bs_mark(s, true, REPLY_LEN);
	s->n += reply_msg(s->b + s->n, xid);
}

/* ------------------------------------------------------------ frames */

static inline void fb_eth_ipv4(struct fb *f, const struct rhost *s, const struct rhost *d, uint8_t proto,
			size_t ip_payload, uint16_t id, uint16_t frag)
{
	f->n = 0;
	fb_mem(f, d->mac, 6);
	fb_mem(f, s->mac, 6);
	fb_be16(f, 0x0800);
	fb_u8(f, 0x45);
	fb_u8(f, 0);
	fb_be16(f, (uint16_t)(20 + ip_payload));
	fb_be16(f, id);
	fb_be16(f, frag);
	fb_u8(f, 64);
	fb_u8(f, proto);
	fb_be16(f, 0);
	fb_be32(f, s->ip);
	fb_be32(f, d->ip);
}

static inline void tcp_seg(const struct rhost *s, const struct rhost *d, uint32_t seq, uint8_t flags,
		    const uint8_t *p, size_t n)
{
	struct fb f;
	fb_eth_ipv4(&f, s, d, 6, 20 + n, 1, 0x4000);
	fb_be16(&f, s->sport);
	fb_be16(&f, d->sport);
	fb_be32(&f, seq);
	fb_be32(&f, 0);
	fb_u8(&f, 0x50);
	fb_u8(&f, flags);
	fb_be16(&f, 65535);
	fb_be32(&f, 0);
	fb_mem(&f, p, n);
	if (h_feed) {
		h.ts += 1000;
		dissect_feed_packet(h_feed, ++h.frame, h.ts, f.b, f.n, f.n);
	} else {
		th_feed(&h, &f);
	}
}

/* Sequence numbers: the client's ISN is CISN, the server's SISN; data
 * byte k of a direction has sequence number ISN + 1 + k. */
#define CISN 1000u
#define SISN 0xfffffff0u    /* its data wraps round 2^32 after 15 bytes */

static inline void syn(void)
{
	tcp_seg(&cli, &srv, CISN, 0x02, NULL, 0);
	tcp_seg(&srv, &cli, SISN, 0x12, NULL, 0);
}

static inline void fin(void)
{
	tcp_seg(&cli, &srv, 0, 0x11, NULL, 0);
	tcp_seg(&srv, &cli, 0, 0x11, NULL, 0);
}

/* Bytes [a, b) of the client's stream in one segment. */
static inline void cseg(const struct bs *s, size_t a, size_t b) { tcp_seg(&cli, &srv, CISN + 1 + (uint32_t)a, 0x18, s->b + a, b - a); }
static inline void sseg(const struct bs *s, size_t a, size_t b) { tcp_seg(&srv, &cli, SISN + 1 + (uint32_t)a, 0x18, s->b + a, b - a); }

static inline void start(void) { th_init(&h, LINKTYPE_ETHERNET); }

static inline const struct transport_stats *st(void) { return transport_stats(h.t); }

#endif
