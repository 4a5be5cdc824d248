/* Test helper: build XDR messages (RPC-over-RDMA headers, RPC calls and
 * replies, NFS arguments) and rdma_events by hand, so the upper half can
 * be tested without captures or the transport. */
#ifndef NFSRDMA_TEST_XDRBUILD_H
#define NFSRDMA_TEST_XDRBUILD_H

#include <stdint.h>
#include <string.h>

#include "dissect/rdma_event.h"

struct xb {
	uint8_t b[65536];
	size_t n;
};

static inline void xb_u32(struct xb *x, uint32_t v)
{
	x->b[x->n++] = (uint8_t)(v >> 24);
	x->b[x->n++] = (uint8_t)(v >> 16);
	x->b[x->n++] = (uint8_t)(v >> 8);
	x->b[x->n++] = (uint8_t)v;
}
static inline void xb_u64(struct xb *x, uint64_t v) { xb_u32(x, (uint32_t)(v >> 32)); xb_u32(x, (uint32_t)v); }
static inline void xb_opaque(struct xb *x, const void *p, uint32_t n)
{
	xb_u32(x, n);
	memcpy(x->b + x->n, p, n);
	x->n += n;
	while (x->n & 3)
		x->b[x->n++] = 0;
}
static inline void xb_str(struct xb *x, const char *s) { xb_opaque(x, s, (uint32_t)strlen(s)); }
static inline void xb_bytes(struct xb *x, const void *p, size_t n) { memcpy(x->b + x->n, p, n); x->n += n; }
static inline void xb_seg(struct xb *x, uint32_t h, uint32_t len, uint64_t off)
{
	xb_u32(x, h);
	xb_u32(x, len);
	xb_u64(x, off);
}

/* RPC-over-RDMA v1 fixed header */
static inline void xb_rdma_hdr(struct xb *x, uint32_t xid, uint32_t credits, uint32_t proc)
{
	xb_u32(x, xid);
	xb_u32(x, 1);
	xb_u32(x, credits);
	xb_u32(x, proc);
}
/* empty read list, write list, reply chunk */
static inline void xb_no_chunks(struct xb *x) { xb_u32(x, 0); xb_u32(x, 0); xb_u32(x, 0); }

/* RPC call header with AUTH_SYS (uid 1000) */
static inline void xb_rpc_call(struct xb *x, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc)
{
	xb_u32(x, xid);
	xb_u32(x, 0);
	xb_u32(x, 2);
	xb_u32(x, prog);
	xb_u32(x, vers);
	xb_u32(x, proc);
	/* AUTH_SYS: stamp, "client", uid, gid, 1 gid */
	xb_u32(x, 1);
	xb_u32(x, 4 + 4 + 8 + 4 + 4 + 4 + 4);
	xb_u32(x, 0x1234);
	xb_str(x, "client");
	xb_u32(x, 1000);
	xb_u32(x, 1000);
	xb_u32(x, 1);
	xb_u32(x, 1000);
	xb_u32(x, 0);
	xb_u32(x, 0);
}

static inline void xb_rpc_reply_ok(struct xb *x, uint32_t xid)
{
	xb_u32(x, xid);
	xb_u32(x, 1);
	xb_u32(x, 0);  /* accepted */
	xb_u32(x, 0);  /* verf AUTH_NONE */
	xb_u32(x, 0);
	xb_u32(x, 0);  /* SUCCESS */
}

static inline void xb_fh(struct xb *x, uint8_t seed)
{
	uint8_t fh[32];
	for (int i = 0; i < 32; i++)
		fh[i] = (uint8_t)(seed + i);
	xb_opaque(x, fh, 32);
}

/* A test connection: side 0 = client 10.9.0.2 qp 17, side 1 = server 10.9.0.1 qp 18 */
static inline void tb_conn(struct rdma_conn *c, uint32_t id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->pairing = PAIR_CM;
	c->client_known = true;
	c->side[0].family = 4;
	memcpy(c->side[0].addr, "\x0a\x09\x00\x02", 4);
	c->side[0].qpn = 17;
	c->side[0].qpn_known = true;
	c->side[1].family = 4;
	memcpy(c->side[1].addr, "\x0a\x09\x00\x01", 4);
	c->side[1].qpn = 18;
	c->side[1].qpn_known = true;
	c->cm_params[0] = c->cm_params[1] = true;
	c->inline_send[0] = c->inline_send[1] = 4096;
	c->inline_recv[0] = c->inline_recv[1] = 4096;
}

static inline struct rdma_event tb_send(const struct rdma_conn *c, int dir, uint64_t ts,
					uint64_t frame, const struct xb *x)
{
	struct rdma_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = RDMA_EV_SEND;
	ev.conn = c;
	ev.dir = dir;
	ev.ts_first_ns = ts;
	ev.ts_last_ns = ts + 1000;
	ev.frame_first = ev.frame_last = frame;
	ev.npkts = 1;
	ev.data = x->b;
	ev.data_len = ev.msg_len = x->n;
	return ev;
}

static inline struct rdma_event tb_rdma(const struct rdma_conn *c, enum rdma_ev_type type, int dir,
					uint64_t ts, uint64_t frame, uint32_t rkey, uint64_t va,
					const uint8_t *data, size_t len)
{
	struct rdma_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.conn = c;
	ev.dir = dir;
	ev.ts_first_ns = ts;
	ev.ts_last_ns = ts + 2000;
	ev.frame_first = frame;
	ev.frame_last = frame + 1;
	ev.npkts = 2;
	ev.data = data;
	ev.data_len = ev.msg_len = len;
	ev.rkey = rkey;
	ev.va = va;
	ev.dma_len = (uint32_t)len;
	return ev;
}

#endif
