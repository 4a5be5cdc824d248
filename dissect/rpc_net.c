/* ONC RPC over TCP and UDP (see rpc_net.h): the flow table (hash, least
 * recently active first), which flows carry RPC (ports, the plausible-
 * header heuristic), UDP datagrams, and the events handed upward. */
#include "dissect/rpc_net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/programs.h"
#include "dissect/rpc.h"
#include "dissect/rpc_net_int.h"

static bool rn_port_listed(const struct rpc_net *n, uint16_t port);

static const uint16_t default_ports[] = { 2049, 111, 20048 };

static inline uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

struct rpc_net *rpc_net_new(rdma_event_fn fn, diag_fn diag, void *ctx, struct transport_stats *st,
			    uint32_t *next_conn_id)
{
	struct rpc_net *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->fn = fn;
	n->diag = diag;
	n->ctx = ctx;
	n->st = st;
	n->next_id = next_conn_id;
	n->enabled = true;
	for (unsigned i = 0; i < sizeof(default_ports) / sizeof(default_ports[0]); i++)
		n->ports[n->nports++] = default_ports[i];
	return n;
}

int rpc_net_add_port(struct rpc_net *n, uint16_t port)
{
	if (rn_port_listed(n, port))
		return 0;
	if (n->nports >= RN_MAX_PORTS)
		return -ENOSPC;
	n->ports[n->nports++] = port;
	return 0;
}

void rpc_net_set_enabled(struct rpc_net *n, bool on) { n->enabled = on; }
void rpc_net_set_frame_tracking(struct rpc_net *n, bool on) { n->track = on; }

static bool rn_port_listed(const struct rpc_net *n, uint16_t port)
{
	for (unsigned i = 0; i < n->nports; i++)
		if (n->ports[i] == port)
			return true;
	return false;
}

void rn_diag(struct rpc_net *n, uint64_t frame, size_t off, const char *layer, enum cur_err kind,
	     const char *msg)
{
	if (!n->diag)
		return;
	struct diag g = { frame, off, layer, kind, msg };
	n->diag(&g, n->ctx);
}

static void rn_remember_call(struct rn_dir *d, uint32_t xid)
{
	d->calls[d->calls_next++ % RN_RECENT_CALLS] = xid;
	if (d->ncalls < RN_RECENT_CALLS)
		d->ncalls++;
}

static bool rn_recent_call(const struct rn_dir *d, uint32_t xid)
{
	for (unsigned i = 0; i < d->ncalls; i++)
		if (d->calls[i] == xid)
			return true;
	return false;
}

/* A call: RPC version 2 to a program the decoders know, with credential
 * and verifier lengths an RPC peer would send (RFC 5531: at most 400).
 * A reply: to a call this flow carried lately, or, on a flow known to
 * carry RPC, an accepted or denied reply whose verifier looks right,
 * from a side not known to be the client only (one that has sent calls
 * and never a reply): a call's own words (its program number, then
 * 3 / 1 / 0 0 0: vers, proc, AUTH_NONE) read like a mark and a reply,
 * and resynchronising on them would swallow the records after them. */
bool rn_rpc_plausible(const struct rn_stream *s, int dir, const uint8_t *b, size_t n, size_t msg_len)
{
	if (n < 12 || msg_len < 12)
		return false;
	uint32_t xid = be32(b), mtype = be32(b + 4);
	if (mtype == 0) {
		if (n < 24 || msg_len < 40 || be32(b + 8) != 2)
			return false;
		uint32_t prog = be32(b + 12), vers = be32(b + 16);
		if (!prog_lookup(prog, vers) && !prog_lookup(prog, 0))
			return false;
		return n < 32 || (be32(b + 24) < 0x10000 && be32(b + 28) <= RPC_MAX_AUTH);
	}
	if (mtype != 1 || be32(b + 8) > 1)
		return false;
	if (rn_recent_call(&s->d[dir ^ 1], xid))
		return true;
	if (!s->rpc || (s->d[dir].ncalls && !s->d[dir].replied))
		return false;
	if (be32(b + 8) == 1)
		return n < 16 || be32(b + 12) <= 1;
	return n < 20 || (be32(b + 12) < 0x10000 && be32(b + 16) <= RPC_MAX_AUTH);
}

void rn_frame_other(struct rpc_net *n, uint64_t ts, uint64_t frame)
{
	struct rdma_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = RDMA_EV_FRAME;
	ev.ts_first_ns = ev.ts_last_ns = ts;
	ev.frame_first = ev.frame_last = frame;
	ev.npkts = 1;
	ev.frames = &frame;
	ev.nframes = 1;
	ev.frame_kind = 2;
	if (n->fn)
		n->fn(&ev, n->ctx);
}

void rn_event(struct rpc_net *n, struct rn_stream *s, int dir, int type, uint64_t ts, uint64_t frame)
{
	struct rdma_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (enum rdma_ev_type)type;
	ev.conn = &s->conn;
	ev.dir = dir;
	ev.ts_first_ns = ev.ts_last_ns = ts;
	ev.frame_first = ev.frame_last = frame;
	if (n->fn)
		n->fn(&ev, n->ctx);
}

void rn_make_rpc(struct rpc_net *n, struct rn_stream *s)
{
	s->rpc = true;
	if (s->opened)
		return;
	if (!s->conn.id) {
		s->conn.id = (*n->next_id)++;
		n->st->rpc_streams++;
	}
	s->opened = true;
	rn_event(n, s, 0, RDMA_EV_CONN_NEW, s->last_ns, n->frame);
}

void rn_emit(struct rpc_net *n, struct rn_stream *s, int dir, const uint8_t *data, size_t len,
	     size_t msg_len, uint32_t flags, uint64_t ts_first, uint64_t ts_last, uint64_t frame_first,
	     uint64_t frame_last, uint32_t npkts, const uint64_t *frames, uint32_t nframes)
{
	struct rdma_event ev;

	if (len >= 8 && be32(data + 4) == 0)
		rn_remember_call(&s->d[dir], be32(data));
	else if (len >= 8 && be32(data + 4) == 1)
		s->d[dir].replied = true;
	if (s->proto == IPPROTO_TCP_NUM)
		n->st->rpc_msgs_tcp++;
	else
		n->st->rpc_msgs_udp++;
	memset(&ev, 0, sizeof(ev));
	ev.type = RDMA_EV_RPC;
	ev.conn = &s->conn;
	ev.dir = dir;
	ev.flags = flags;
	if (len < msg_len)
		ev.flags |= RDMA_EVF_TRUNC_DATA;
	ev.ts_first_ns = ts_first;
	ev.ts_last_ns = ts_last;
	ev.frame_first = frame_first;
	ev.frame_last = frame_last;
	ev.npkts = npkts ? npkts : 1;
	ev.data = data;
	ev.data_len = len;
	ev.msg_len = msg_len;
	ev.frames = n->track ? frames : NULL;
	ev.nframes = n->track ? nframes : 0;
	if (n->fn)
		n->fn(&ev, n->ctx);
}

/* ---- the flow table ---------------------------------------------------- */

static uint32_t flow_hash(uint8_t proto, const uint8_t *a, uint16_t pa, const uint8_t *b, uint16_t pb)
{
	uint32_t h = 2166136261u ^ proto;
	for (int i = 0; i < 16; i++)
		h = (h ^ (uint32_t)(a[i] ^ b[i])) * 16777619u;
	h = (h ^ (uint32_t)(pa ^ pb)) * 16777619u;
	return h & (RN_HASH - 1);
}

static bool side_is(const struct rdma_endpoint *e, const uint8_t *a, uint16_t port)
{
	return e->udp_sport == port && !memcmp(e->addr, a, 16);
}

static void lru_unlink(struct rpc_net *n, struct rn_stream *s)
{
	if (s->older)
		s->older->newer = s->newer;
	else
		n->oldest = s->newer;
	if (s->newer)
		s->newer->older = s->older;
	else
		n->newest = s->older;
	s->older = s->newer = NULL;
}

static void lru_push(struct rpc_net *n, struct rn_stream *s)
{
	s->older = n->newest;
	s->newer = NULL;
	if (n->newest)
		n->newest->newer = s;
	else
		n->oldest = s;
	n->newest = s;
}

static void stream_close(struct rpc_net *n, struct rn_stream *s, uint64_t ts)
{
	if (s->proto == IPPROTO_TCP_NUM) {
		tcp_close(n, s, ts);
	} else if (s->opened) {
		rn_event(n, s, 0, RDMA_EV_CONN_CLOSE, ts, 0);
		s->opened = false;
	}
}

static void stream_free(struct rpc_net *n, struct rn_stream *s, uint64_t ts)
{
	stream_close(n, s, ts);
	for (int i = 0; i < 2; i++)
		tcp_dir_free(n, &s->d[i]);
	const struct rdma_endpoint *a = &s->conn.side[0], *b = &s->conn.side[1];
	struct rn_stream **pp = &n->hash[flow_hash(s->proto, a->addr, a->udp_sport, b->addr, b->udp_sport)];
	while (*pp && *pp != s)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = s->hnext;
	lru_unlink(n, s);
	n->nstreams--;
	free(s);
}

/* Streams that never close, and more streams than the table keeps. */
static void expire(struct rpc_net *n, uint64_t ts)
{
	struct rn_stream *s;

	while ((s = n->oldest) && ts > s->last_ns && ts - s->last_ns > RN_IDLE_NS) {
		if (s->opened)
			n->st->rpc_streams_idle++;
		stream_free(n, s, ts);
	}
	while (n->nstreams >= RN_STREAMS_MAX && (s = n->oldest)) {
		n->st->rpc_streams_evicted++;
		stream_free(n, s, ts);
	}
}

static struct rn_stream *flow(struct rpc_net *n, uint64_t ts, const struct l4_pkt *p, int *dir)
{
	uint32_t h = flow_hash(p->proto, p->src, p->sport, p->dst, p->dport);
	for (struct rn_stream *s = n->hash[h]; s; s = s->hnext) {
		if (s->proto != p->proto || s->fam != p->family)
			continue;
		if (side_is(&s->conn.side[0], p->src, p->sport) && side_is(&s->conn.side[1], p->dst, p->dport))
			*dir = 0;
		else if (side_is(&s->conn.side[1], p->src, p->sport) &&
			 side_is(&s->conn.side[0], p->dst, p->dport))
			*dir = 1;
		else
			continue;
		s->last_ns = ts;
		lru_unlink(n, s);
		lru_push(n, s);
		return s;
	}
	expire(n, ts);
	struct rn_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->proto = p->proto;
	s->fam = p->family;
	s->last_ns = ts;
	/* side[0] is the client when it can be told: the SYN's sender, or
	 * the side not on a listed port */
	bool to_server = rn_port_listed(n, p->dport), from_server = rn_port_listed(n, p->sport);
	int first = 0;
	if (p->proto == IPPROTO_TCP_NUM && (p->tcp_flags & (TCPF_SYN | TCPF_ACK)) == (TCPF_SYN | TCPF_ACK))
		first = 1;
	else if (p->proto == IPPROTO_TCP_NUM && (p->tcp_flags & TCPF_SYN))
		first = 0;
	else if (from_server && !to_server)
		first = 1;
	struct rdma_endpoint *snd = &s->conn.side[first], *rcv = &s->conn.side[first ^ 1];
	snd->family = rcv->family = p->family;
	memcpy(snd->addr, p->src, 16);
	memcpy(rcv->addr, p->dst, 16);
	snd->udp_sport = p->sport;
	rcv->udp_sport = p->dport;
	s->conn.ip_proto = p->proto;
	s->conn.first_ns = ts;
	s->listed = to_server || from_server;
	s->rpc = s->listed;
	s->hnext = n->hash[h];
	n->hash[h] = s;
	lru_push(n, s);
	n->nstreams++;
	*dir = first;
	return s;
}

/* ---- UDP --------------------------------------------------------------- */

static void udp_datagram(struct rpc_net *n, const struct l4_pkt *p, uint64_t ts_first, uint64_t ts,
			 uint64_t frame, size_t base)
{
	int dir;

	n->st->udp_datagrams++;
	struct rn_stream *s = flow(n, ts, p, &dir);
	if (!s)
		return;
	s->conn.last_ns = ts;
	if (!rn_rpc_plausible(s, dir, p->payload, p->cap_len, p->wire_len)) {
		if (s->listed && p->wire_len) {
			n->st->rpc_udp_bad++;
			snprintf(n->msg, sizeof(n->msg), "UDP datagram of %zu bytes on an RPC port is not an "
				 "ONC RPC message", p->wire_len);
			rn_diag(n, frame, base + p->off, "rpc-udp", CUR_INVALID, n->msg);
		}
		return;
	}
	rn_make_rpc(n, s);
	n->used = true;
	rn_emit(n, s, dir, p->payload, p->cap_len, p->wire_len, 0, ts_first, ts, frame, frame, 1,
		&frame, 1);
}

bool rpc_net_packet(struct rpc_net *n, uint64_t ts_ns, uint64_t frame, const uint8_t *ip,
		    size_t cap, size_t wire, size_t base)
{
	struct l4_pkt p;
	struct cursor c = cur_make(ip, cap);
	int dir;

	if (!n->enabled)
		return false;
	n->used = false;
	n->frame = frame;
	if (ip_l4_parse(&c, wire, &p) != 1)
		return false;   /* malformed IP is not ours to judge: the RDMA half said non-RDMA */
	if (p.frag) {
		if (p.proto != IPPROTO_UDP_NUM)
			return false;
		if (!n->frags && !(n->frags = ip_frag_new()))
			return false;
		size_t len;
		uint64_t ts0;
		const uint8_t *dg = ip_frag_add(n, ts_ns, frame, base, &p, &len, &ts0);
		if (!dg)
			return false;
		struct cursor u = cur_make(dg, len);
		if (ip_l4_udp(&u, len, &p) != 1) {
			n->st->invalid++;
			rn_diag(n, frame, base, "udp", u.err, "reassembled UDP datagram: invalid UDP header");
			return false;
		}
		udp_datagram(n, &p, ts0, ts_ns, frame, 0);
		return n->used;
	}
	if (p.proto == IPPROTO_UDP_NUM) {
		udp_datagram(n, &p, ts_ns, ts_ns, frame, base);
		return n->used;
	}
	struct rn_stream *s = flow(n, ts_ns, &p, &dir);
	if (!s)
		return false;
	s->conn.last_ns = ts_ns;
	tcp_segment(n, s, dir, ts_ns, frame, &p);
	return n->used;
}

void rpc_net_flush(struct rpc_net *n)
{
	for (struct rn_stream *s = n->oldest; s; s = s->newer)
		stream_close(n, s, s->last_ns);
	ip_frag_flush(n);
}

void rpc_net_free(struct rpc_net *n)
{
	if (!n)
		return;
	n->fn = NULL;    /* what is still open goes quietly */
	n->diag = NULL;
	while (n->oldest)
		stream_free(n, n->oldest, n->oldest->last_ns);
	ip_frag_free(n->frags);
	free(n);
}
