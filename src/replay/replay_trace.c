/* Reading a capture for replay: the NFS calls (with their arguments as
 * sent, the Read chunk data the server pulled), their replies (status,
 * latency, results that name file handles, Reply chunk contents) and the
 * MOUNT exchange over TCP/UDP that gave the trace's root handle.
 * Everything here is hostile input: bounded decoding through the
 * dissector's transport, rpcrdma and rpc decoders and cursor readers. */
#include "src/replay/trace.h"
#include "src/clnt/nfs3.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/extract.h"
#include "dissect/feed.h"
#include "dissect/grow.h"
#include "dissect/name_text.h"
#include "dissect/record_names.h"
#include "dissect/rpc.h"
#include "dissect/rpcrdma.h"
#include "dissect/transport.h"
#include "pcap/capfile.h"
#include "pcap/capfile_lt.h"
#include "src/base/log.h"

#define TR_DATA_MAX (4u << 20)     /* largest chunk data kept per call */
#define TR_KEEP_TOTAL (512u << 20) /* all chunk data kept, at most */

struct mnt_pending {
	uint32_t xid;
	char path[256];
};

struct tr_ctx {
	struct trace *t;
	struct rpcrdma_hdr h;
	size_t kept;
	size_t replied;            /* 1 + index of the call whose reply came last (0: none) */
	struct mnt_pending mp[8];  /* MOUNT MNT calls waiting for their replies */
	unsigned nmp;
};

static struct tcall *find_pending(struct trace *t, uint32_t xid)
{
	/* newest first: pending calls are near the end */
	for (size_t i = t->n; i-- > 0;) {
		struct tcall *c = &t->calls[i];
		if (c->xid == xid)
			return c->replied ? NULL : c;
		if (t->n - i > 4096)
			break;
	}
	return NULL;
}

static struct tcall *new_call(struct trace *t)
{
	if (ARR_RESERVE(t->calls, t->cap, t->n + 1, 256) < 0)
		return NULL;
	struct tcall *c = &t->calls[t->n++];
	memset(c, 0, sizeof(*c));
	return c;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

static bool supported_prog(uint32_t prog, uint32_t vers)
{
	return (prog == PROG_NFS && (vers == 3 || vers == 4)) || (prog == PROG_NFSACL && vers == 3);
}

static void on_call(struct tr_ctx *x, const struct rdma_event *ev, const uint8_t *msg, size_t len)
{
	struct trace *t = x->t;
	struct rpc_msg m;
	struct cursor c = cur_make(msg, len);

	if (rpc_decode(&m, &c, NULL) < 0 || m.mtype != RPC_CALL) {
		t->undecodable++;
		return;
	}
	if (!supported_prog(m.prog, m.vers)) {
		t->other_calls++;
		return;
	}
	if (find_pending(t, m.xid)) {
		t->retransmits++;   /* same XID again (reconnect): replayed once */
		return;
	}
	struct tcall *tc = new_call(t);
	if (!tc)
		return;
	tc->conn = ev->conn->id;
	/* the sender of a call is the client */
	const struct rdma_endpoint *ep = &ev->conn->side[ev->dir ? 1 : 0];
	tc->cfamily = ep->family;
	memcpy(tc->caddr, ep->addr, sizeof(tc->caddr));
	tc->xid = m.xid;
	tc->prog = m.prog;
	tc->vers = m.vers;
	tc->proc = m.proc;
	tc->t_call = ev->ts_first_ns;
	tc->frame = ev->frame_first;
	tc->flavor = m.cred_flavor;
	tc->uid = m.sys_uid;
	tc->gid = m.sys_gid;
	tc->args_len = (uint32_t)(len - c.off);
	tc->args = dup_bytes(msg + c.off, len - c.off);
	tc->rpc_status = REPLAY_NO_REPLY;
	const struct rpcrdma_hdr *h = &x->h;
	/* Read chunk at a position > 0: DDP-eligible data the server pulls */
	for (unsigned i = 0; i < h->nrsegs && tc->nrseg < TC_MAXSEG; i++) {
		if (h->rsegs[i].position == 0)
			continue;
		if (!tc->nrseg && h->rsegs[i].position > c.off)
			tc->rpos = (uint32_t)(h->rsegs[i].position - c.off);
		tc->rseg[tc->nrseg] = h->rsegs[i].seg;
		tc->rseg_off[tc->nrseg] = (uint32_t)tc->ddp_len;
		tc->ddp_len += h->rsegs[i].seg.length;
		tc->nrseg++;
	}
	tc->has_read_chunk = tc->nrseg > 0;
	if (tc->ddp_len && tc->ddp_len <= TR_DATA_MAX && x->kept + tc->ddp_len <= TR_KEEP_TOTAL) {
		tc->ddp = calloc(1, tc->ddp_len);
		if (tc->ddp)
			x->kept += tc->ddp_len;
	}
	for (unsigned i = 0; i < h->nrpsegs && tc->nrpseg < TC_MAXSEG; i++) {
		tc->rpseg[tc->nrpseg] = h->rpsegs[i];
		tc->rpseg_off[tc->nrpseg] = tc->rc_cap;
		tc->rc_cap += h->rpsegs[i].length;
		tc->nrpseg++;
	}
	tc->has_reply_chunk = h->has_reply;
	tc->has_write_chunk = h->nwchunks > 0;
	if (tc->rc_cap > TR_DATA_MAX)
		tc->rc_cap = 0;
	if (tc->rc_cap) {
		tc->rcbuf = calloc(1, tc->rc_cap);
		if (!tc->rcbuf)
			tc->rc_cap = 0;
	}
}

static void on_reply(struct tr_ctx *x, const struct rdma_event *ev, const uint8_t *msg, size_t len,
		     bool moved, uint32_t xid)
{
	struct tcall *tc = find_pending(x->t, xid);
	if (!tc)
		return;
	x->replied = (size_t)(tc - x->t->calls) + 1;
	tc->replied = true;
	tc->t_reply = ev->ts_last_ns;
	if (!msg) {
		tc->rpc_status = 200 + x->h.err;   /* RDMA_ERROR */
		return;
	}
	struct rpc_res res;
	size_t off;
	if (rpc_decode_reply_hdr(msg, len, &res, &off) < 0) {
		tc->rpc_status = REPLAY_UNDECODED;
		return;
	}
	tc->rpc_status = res.rpc_status;
	if (res.rpc_status != 0)
		return;
	struct cursor c = cur_make(msg + off, len - off);
	tc->status = cur_be32(&c, "status");
	tc->has_status = cur_ok(&c) || (tc->prog == PROG_NFS && tc->proc == 0);
	if (tc->prog == PROG_NFS && tc->proc == 0)
		tc->status = 0;
	tc->res_moved = moved;
	/* keep results that name handles (for the trace's path map) */
	if (tc->prog == PROG_NFS && tc->vers == 3 &&
	    (tc->proc == NFS3P_LOOKUP || tc->proc == NFS3P_CREATE || tc->proc == NFS3P_MKDIR ||
	     tc->proc == NFS3P_SYMLINK || tc->proc == NFS3P_MKNOD || tc->proc == NFS3P_READDIRPLUS)) {
		tc->res = dup_bytes(msg + off, len - off);
		tc->res_len = tc->res ? (uint32_t)(len - off) : 0;
	}
	if (tc->prog == PROG_NFS && tc->vers == 4) {
		tc->res = dup_bytes(msg + off, len - off);
		tc->res_len = tc->res ? (uint32_t)(len - off) : 0;
	}
}

static void copy_into(uint8_t *buf, uint32_t cap, const struct rpcrdma_seg *segs, const uint32_t *offs,
		      unsigned n, const struct rdma_event *ev, uint32_t *got)
{
	for (unsigned i = 0; i < n; i++) {
		const struct rpcrdma_seg *s = &segs[i];
		if (s->handle != ev->rkey || ev->va < s->offset || ev->va - s->offset >= s->length)
			continue;
		uint64_t at = offs[i] + (ev->va - s->offset);
		size_t len = ev->data_len;
		if (at >= cap)
			return;
		if (len > cap - at)
			len = cap - at;
		if (buf && len)
			memcpy(buf + at, ev->data, len);
		if (got)
			*got += (uint32_t)len;
		return;
	}
}

/* ---- MOUNT over TCP/UDP in the same capture: export path and root ----
 * The dissector's feed hands every RPC message it found on TCP or UDP
 * (IPv4 or IPv6, any link) to tr_event, whole. */


static void scan_mount(struct trace *t, const uint8_t *rpc, size_t len, struct mnt_pending *mp,
		       unsigned *nmp)
{
	struct rpc_msg m;
	struct cursor c = cur_make(rpc, len);
	if (rpc_decode(&m, &c, NULL) < 0)
		return;
	if (m.mtype == RPC_CALL && m.prog == PROG_MOUNT && m.vers == 3 && m.proc == 1) {
		uint32_t n;
		const uint8_t *p = cur_xdr_opaque(&c, 1024, &n, "dirpath");
		if (!p || *nmp >= 8)
			return;
		mp[*nmp].xid = m.xid;
		/* the path's bytes, to be mounted as they were; outputs escape them */
		bool cut;
		size_t k = name_keep(p, n, sizeof(mp[0].path) - 1, &cut);
		memcpy(mp[*nmp].path, p, k);
		mp[*nmp].path[k] = 0;
		(*nmp)++;
		return;
	}
	if (m.mtype != RPC_REPLY || m.reply_stat != RPC_MSG_ACCEPTED || m.accept_stat != 0)
		return;
	for (unsigned i = 0; i < *nmp; i++) {
		if (mp[i].xid != m.xid)
			continue;
		uint32_t st = cur_be32(&c, "mountstat3");
		uint32_t n;
		const uint8_t *p = st == 0 ? cur_xdr_opaque(&c, NFS3_FHSIZE_MAX, &n, "fhandle3") : NULL;
		if (p && !t->have_root) {
			t->have_root = true;
			t->root.len = n;
			memcpy(t->root.data, p, n);
			snprintf(t->export_path, sizeof(t->export_path), "%s", mp[i].path);
		}
		return;
	}
}

static void tr_event(const struct rdma_event *ev, void *ctx)
{
	struct tr_ctx *x = ctx;
	struct trace *t = x->t;

	if (ev->type == RDMA_EV_WRITE || ev->type == RDMA_EV_READ) {
		/* match against recent pending calls (Reply chunk: WRITE; Read chunk: READ) */
		for (size_t i = t->n, k = 0; i-- > 0 && k < 512; k++) {
			struct tcall *c = &t->calls[i];
			if (c->replied)
				continue;
			if (ev->type == RDMA_EV_WRITE && c->nrpseg)
				copy_into(c->rcbuf, c->rc_cap, c->rpseg, c->rpseg_off, c->nrpseg, ev, NULL);
			if (ev->type == RDMA_EV_READ && c->nrseg)
				copy_into(c->ddp, c->ddp ? c->ddp_len : 0, c->rseg, c->rseg_off, c->nrseg,
					  ev, &c->ddp_got);
		}
		return;
	}
	if (ev->type == RDMA_EV_RPC && ev->data && ev->data_len >= 16) {
		/* NFS over TCP or UDP: the A/B experiment replays an NFS/TCP
		 * workload over RDMA.  Whole RPC messages, no chunks; the
		 * mount's own rpcbind and MOUNT calls are not the workload. */
		memset(&x->h, 0, sizeof(x->h));
		scan_mount(t, ev->data, ev->data_len, x->mp, &x->nmp);
		struct cursor c = cur_make(ev->data, ev->data_len);
		uint32_t xid = cur_be32(&c, "xid");
		cur_skip(&c, 8, "msg_type, rpcvers");
		uint32_t prog = cur_be32(&c, "prog"), vers = cur_be32(&c, "vers");
		int type = rpc_peek_type(ev->data, ev->data_len);
		t->net_msgs++;
		if (type == RPC_CALL && cur_ok(&c) && supported_prog(prog, vers))
			on_call(x, ev, ev->data, ev->data_len);
		else if (type == RPC_CALL && cur_ok(&c))
			t->other_calls++;
		else if (type == RPC_REPLY)
			on_reply(x, ev, ev->data, ev->data_len, false, xid);
		else
			t->undecodable++;
		return;
	}
	if (ev->type == RDMA_EV_RPC) {
		t->net_msgs++;   /* shorter than an RPC header */
		t->undecodable++;
		return;
	}
	if (ev->type != RDMA_EV_SEND || !ev->data)
		return;
	struct cursor c = cur_make(ev->data, ev->data_len);
	const uint32_t vers = rpcrdma_peek_vers(ev->data, ev->data_len);
	if (ev->data_len < 16 || vers != 1) {
		t->undecodable++;
		if (vers == 2)
			t->rpcrdma_v2++;   /* the replay's transport speaks version 1 */
		else
			t->not_rpcrdma++;
		return;
	}
	if (rpcrdma_decode(&x->h, &c) < 0) {
		t->undecodable++;
		return;
	}
	t->rdma_msgs++;
	const struct rpcrdma_hdr *h = &x->h;
	if (h->proc == RDMA_MSG || h->proc == RDMA_MSGP) {
		const uint8_t *msg = ev->data + h->body_off;
		size_t len = ev->data_len - h->body_off;
		int type = rpc_peek_type(msg, len);
		if (type == RPC_CALL)
			on_call(x, ev, msg, len);
		else if (type == RPC_REPLY)
			on_reply(x, ev, msg, len, h->nwchunks > 0, h->xid);
		else
			t->undecodable++;
	} else if (h->proc == RDMA_NOMSG) {
		if (h->nrsegs) {
			/* a call wholly in a position-zero Read chunk */
			t->long_calls++;
			return;
		}
		struct tcall *tc = find_pending(t, h->xid);
		if (!tc || !tc->rcbuf)
			return;
		size_t len = h->reply_len < tc->rc_cap ? h->reply_len : tc->rc_cap;
		on_reply(x, ev, tc->rcbuf, len, h->nwchunks > 0, h->xid);
	} else if (h->proc == RDMA_ERROR) {
		on_reply(x, ev, NULL, 0, false, h->xid);
	}
}

/* The dissector sees the same events right after tr_event: its record of
 * a call names it, so the replay prints the name nfsrdma-dissect gives the
 * same XID ("NFSv4.1 LOOKUP_ROOT", "NFSv3 READ"). */
static void tr_record(const struct nfsrdma_record *r, const struct dtree *tree, void *ctx)
{
	struct tr_ctx *x = ctx;
	struct trace *t = x->t;
	struct tcall *tc = NULL;

	(void)tree;
	if (!(r->flags & RECF_CALL))
		return;
	/* the usual case: the reply tr_event matched just before */
	if (x->replied && t->calls[x->replied - 1].xid == r->xid && t->calls[x->replied - 1].conn == r->conn_id)
		tc = &t->calls[x->replied - 1];
	/* calls flushed without a reply: recent ones, newest first */
	for (size_t i = t->n, k = 0; !tc && i-- > 0 && k < 4096; k++)
		if (t->calls[i].xid == r->xid && t->calls[i].conn == r->conn_id && !t->calls[i].name[0])
			tc = &t->calls[i];
	if (tc && !tc->name[0])
		rec_name_str(r, tc->name, sizeof(tc->name));
}

/* A call the dissector gave no record of (evicted, or older than the
 * lookback above): named from what the replay decoded itself. */
static void name_unrecorded(struct tcall *tc)
{
	struct nfsrdma_record r;

	memset(&r, 0, sizeof(r));
	r.flags = RECF_CALL;
	r.prog = tc->prog;
	r.vers = tc->vers;
	r.proc = tc->proc;
	if (tc->prog == PROG_NFS && tc->vers == 4 && tc->proc == 1) {
		struct cursor c = cur_make(tc->args, tc->args_len);
		cur_xdr_opaque(&c, 1024, NULL, "tag");
		r.minorvers = cur_be32(&c, "minorversion");
	}
	rec_name_str(&r, tc->name, sizeof(tc->name));
}

int trace_load(struct trace *t, const char *path, char *err, size_t errlen)
{
	struct tr_ctx *x = calloc(1, sizeof(*x));
	struct pcap_source *src = NULL;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!x)
		return -ENOMEM;
	x->t = t;
	const struct dissect_cbs cbs = { .record = tr_record, .ctx = x };
	const struct dissect_feed_opts fo = { .copy_all_payload = true };   /* chunk data is replayed */
	struct dissect *d = dissect_new(NULL, &cbs);
	struct dissect_feed *feed = d ? dissect_feed_new(d, &fo) : NULL;
	if (!feed) {
		dissect_free(d);
		free(x);
		return -ENOMEM;
	}
	dissect_feed_set_tap(feed, tr_event, x);
	if ((ret = pcap_source_open(&src, path, err, errlen)) < 0)
		goto out;
	int lt = pcap_source_linktype(src);
	if ((ret = dissect_feed_set_linktype(feed, lt, path, err, errlen)) < 0)
		goto out;
	uint64_t ts, frame = 0;
	const uint8_t *data;
	size_t caplen, wirelen;
	/* a pcapng's interfaces may differ in link type: follow the packet's */
	struct capfile_lt flt = { lt, true, -1 };
	while ((ret = pcap_source_next(src, &ts, &data, &caplen, &wirelen, err, errlen)) == 1) {
		if (capfile_lt_follow(&flt, src, feed, ++frame))
			dissect_feed_packet(feed, frame, ts, data, caplen, wirelen);
	}
	dissect_feed_finish(feed);
	t->frames = frame;   /* a trace cut short: the packets before the cut */
	for (size_t i = 0; i < t->n; i++)
		if (!t->calls[i].name[0])
			name_unrecorded(&t->calls[i]);
out:
	if (src)
		pcap_source_close(src);
	dissect_feed_free(feed);
	dissect_free(d);
	free(x);
	return ret < 0 ? ret : 0;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->calls[i].args);
		free(t->calls[i].ddp);
		free(t->calls[i].rcbuf);
		free(t->calls[i].res);
	}
	free(t->calls);
	free(t->clients);
	memset(t, 0, sizeof(*t));
}
