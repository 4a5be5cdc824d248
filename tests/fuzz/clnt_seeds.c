/* Seed extractor for the replay client's harnesses (fuzz_nfs3_clnt,
 * fuzz_nfs4_reply, fuzz_nfs4_rewrite): reads lab captures with the
 * dissector library (pcap source, RoCE transport, RPC-over-RDMA and RPC
 * decoders) and writes, in each harness's input layout:
 *   nfs3_clnt/    whole NFSv3 replies (RPC header included) by procedure,
 *                 portmapper GETPORT and MOUNT MNT replies (TCP/UDP
 *                 frames), the CM private data of the connections
 *   nfs4_reply/   whole NFSv4 COMPOUND replies, by main op and status
 *   nfs4_rewrite/ NFSv4 COMPOUND call args (after the RPC header) with
 *                 their Read chunk position
 *   nfs41_cb/     the servers' callbacks (whole RPC calls: CB_NULL,
 *                 CB_COMPOUND) on the RDMA backchannel, for fuzz_nfs41_cb
 * One seed per (program, procedure or op list, status) and capture, so
 * the set stays small.  Built and run by tests/fuzz/make-clnt-seeds.sh.
 *   clnt_seeds OUTDIR CAPTURE... */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/extract.h"
#include "dissect/rpc.h"
#include "dissect/rpcrdma.h"
#include "dissect/transport.h"
#include "pcap/capfile.h"
#include "src/clnt/nfs3.h"
#include "src/clnt/nfs4.h"
#include "src/clnt/nfs4_cb.h"
#include "src/clnt/nfs4_rewrite.h"
#include "src/replay/trace.h"

#define MAXPEND 4096

struct pend {
	uint32_t xid, prog, vers, proc;
	uint32_t key;             /* NFSv4: hash of the op list */
};

struct ctx {
	const char *out, *cap;
	struct pend p[MAXPEND];
	unsigned np;
	char seen[8192][48];
	unsigned nseen;
	unsigned written;
};

static bool seen(struct ctx *x, const char *key)
{
	for (unsigned i = 0; i < x->nseen; i++)
		if (!strcmp(x->seen[i], key))
			return true;
	if (x->nseen < sizeof(x->seen) / sizeof(x->seen[0]))
		snprintf(x->seen[x->nseen++], sizeof(x->seen[0]), "%s", key);
	return false;
}

static void put(struct ctx *x, const char *dir, const char *key, const uint8_t *hdr, size_t hlen,
		const uint8_t *p, size_t len)
{
	char path[512];
	if (seen(x, key))
		return;
	const char *base = strrchr(x->cap, '/');
	base = base ? base + 1 : x->cap;
	snprintf(path, sizeof(path), "%s/%s/%.*s-%s", x->out, dir, (int)(strcspn(base, ".")), base, key);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "clnt_seeds: %s: %s\n", path, strerror(errno));
		return;
	}
	fwrite(hdr, 1, hlen, f);
	fwrite(p, 1, len, f);
	fclose(f);
	x->written++;
}

static struct pend *find(struct ctx *x, uint32_t xid)
{
	for (unsigned i = x->np; i-- > 0;)
		if (x->p[i].xid == xid)
			return &x->p[i];
	return NULL;
}

static void remember(struct ctx *x, const struct rpc_msg *m, uint32_t key)
{
	if (x->np == MAXPEND)
		memmove(x->p, x->p + MAXPEND / 2, sizeof(x->p[0]) * (x->np = MAXPEND / 2));
	x->p[x->np++] = (struct pend){ .xid = m->xid, .prog = m->prog, .vers = m->vers,
				       .proc = m->proc, .key = key };
}

/* A COMPOUND call: its args (after the RPC header) as a rewrite seed. */
static uint32_t v4_call(struct ctx *x, const uint8_t *args, size_t len, uint32_t rpos)
{
	struct nfs4_call_info in;
	if (nfs4_call_parse(args, len, rpos, &in) < 0)
		return 0;
	uint32_t h = 2166136261u;
	char key[48];
	int k = snprintf(key, sizeof(key), "m%u", in.minor);
	for (unsigned i = 0; i < in.nops && i < NFS4_RES_MAXOPS; i++) {
		h = (h ^ in.op[i]) * 16777619u;
		if (in.op[i] != NFS4_OP_SEQUENCE && in.op[i] != NFS4_OP_PUTFH && k < 40)
			k += snprintf(key + k, sizeof(key) - (size_t)k, "-%u", in.op[i]);
	}
	/* rewrite layout: no failure, rpos, v40 for minor 0, identity
	 * mappings (the harness then checks the rewrite is idempotent) */
	uint8_t hdr[5] = { 0, 0, (uint8_t)(rpos >> 8), (uint8_t)rpos, (uint8_t)((in.minor == 0) | 2) };
	if (rpos <= 0xffff)
		put(x, "nfs4_rewrite", key, hdr, sizeof(hdr), args, len);
	return h;
}

static void on_rpc(struct ctx *x, const uint8_t *msg, size_t len, bool moved, uint32_t rpos_abs,
		   bool tcp)
{
	struct rpc_msg m;
	struct cursor c = cur_make(msg, len);
	char key[48];
	if (rpc_decode(&m, &c, NULL) < 0)
		return;
	if (m.mtype == RPC_CALL && m.prog == PROG_NFS_CB) {
		/* a server's callback (NFSv4.1 back channel): whole RPC call */
		snprintf(key, sizeof(key), "cb-%u-%zu", m.proc, len);
		put(x, "nfs41_cb", key, NULL, 0, msg, len);
		return;
	}
	if (m.mtype == RPC_CALL) {
		uint32_t h = 0;
		if (m.prog == PROG_NFS && m.vers == 4 && m.proc == 1)
			h = v4_call(x, msg + c.off, len - c.off,
				    rpos_abs > c.off ? (uint32_t)(rpos_abs - c.off) : 0);
		remember(x, &m, h);
		return;
	}
	struct pend *p = find(x, m.xid);
	if (!p)
		return;
	struct cursor b = c;
	uint32_t st = cur_be32(&b, "status");
	if (p->prog == PROG_NFS && p->vers == 3 && p->proc < NFS3P_NPROCS) {
		uint8_t hdr[2] = { (uint8_t)(moved ? 0x80 : 0), (uint8_t)p->proc };
		snprintf(key, sizeof(key), "v3-%s-%u%s", nfs3_proc_name(p->proc), st,
			 tcp ? "-tcp" : "");
		put(x, "nfs3_clnt", key, hdr, 2, msg, len);
	} else if (p->prog == PROG_NFS && p->vers == 4) {
		uint8_t hdr[3] = { (uint8_t)(1 | (moved ? 6 : 0) | (p->proc == 0 ? 8 : 0)), 0xff, 0xff };
		snprintf(key, sizeof(key), "v4-%u-%08x-%u", p->proc, p->key, st);
		put(x, "nfs4_reply", key, hdr, 3, msg, len);
	} else if ((p->prog == PROG_PORTMAP && p->proc == 3) || (p->prog == PROG_MOUNT && p->proc == 1)) {
		uint8_t hdr[2] = { 2, 0 };
		snprintf(key, sizeof(key), "%s-%u", p->prog == PROG_PORTMAP ? "getport" : "mnt", st);
		put(x, "nfs3_clnt", key, hdr, 2, msg, len);
	}
}

static void on_event(const struct rdma_event *ev, void *ctx)
{
	struct ctx *x = ctx;
	if (ev->type != RDMA_EV_SEND || !ev->data || ev->data_len < 28 ||
	    rpcrdma_peek_vers(ev->data, ev->data_len) != 1)
		return;
	struct rpcrdma_hdr h;
	struct cursor c = cur_make(ev->data, ev->data_len);
	if (rpcrdma_decode(&h, &c) < 0 || (h.proc != RDMA_MSG && h.proc != RDMA_MSGP))
		return;
	uint32_t rpos = 0;
	for (unsigned i = 0; i < h.nrsegs; i++)
		if (h.rsegs[i].position) {
			rpos = h.rsegs[i].position;
			break;
		}
	on_rpc(x, ev->data + h.body_off, ev->data_len - h.body_off, h.nwchunks > 0, rpos, false);
}

/* RPC over TCP (record marking, one record per segment) or UDP, outside
 * RoCE: the portmapper and mountd exchanges, NFSv3 over TCP. */
static void on_ip(struct ctx *x, const uint8_t *p, size_t len)
{
	struct cursor c = cur_make(p, len);
	cur_skip(&c, 12, "eth");
	if (cur_be16(&c, "ethertype") != 0x0800 || !cur_ok(&c))
		return;
	size_t ip = c.off;
	uint8_t vihl = cur_u8(&c, "ip");
	cur_skip(&c, 1, "tos");
	uint16_t tot = cur_be16(&c, "len");
	cur_skip(&c, 5, "id..ttl");
	uint8_t proto = cur_u8(&c, "proto");
	size_t ihl = (size_t)(vihl & 15) * 4;
	if (!cur_ok(&c) || (vihl >> 4) != 4 || ihl < 20 || tot < ihl || ip + tot > len)
		return;
	const uint8_t *l4 = p + ip + ihl;
	size_t l4len = tot - ihl;
	if (proto == 17 && l4len > 8) {
		uint16_t sp = (uint16_t)(l4[0] << 8 | l4[1]), dp = (uint16_t)(l4[2] << 8 | l4[3]);
		if (sp != 4791 && dp != 4791)
			on_rpc(x, l4 + 8, l4len - 8, false, 0, true);
	} else if (proto == 6 && l4len >= 20) {
		size_t doff = (size_t)(l4[12] >> 4) * 4;
		if (doff < 20 || doff + 4 > l4len)
			return;
		const uint8_t *rm = l4 + doff;
		size_t flen = xenc_get_u32(rm) & 0x7fffffffu;
		if (flen + 4 == l4len - doff)   /* a whole record in this segment */
			on_rpc(x, rm + 4, flen, false, 0, true);
	}
}

/* Replies that came in a Reply chunk (READDIRPLUS, long READDIR...): the
 * replay's own trace reader reassembles them; their results (after the
 * RPC header) become results-only seeds. */
static void reply_chunk_seeds(struct ctx *x, const char *path)
{
	struct trace t;
	char err[256], key[48];
	if (trace_load(&t, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "clnt_seeds: %s: %s\n", path, err);
		return;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct tcall *tc = &t.calls[i];
		if (!tc->has_reply_chunk || !tc->res || tc->prog != PROG_NFS)
			continue;
		if (tc->vers == 3 && tc->proc < NFS3P_NPROCS) {
			uint8_t hdr[2] = { (uint8_t)(1 | (tc->res_moved ? 0x80 : 0)), (uint8_t)tc->proc };
			snprintf(key, sizeof(key), "v3body-%s-%u", nfs3_proc_name(tc->proc), tc->status);
			put(x, "nfs3_clnt", key, hdr, 2, tc->res, tc->res_len);
		} else if (tc->vers == 4) {
			uint8_t hdr[3] = { (uint8_t)(tc->res_moved ? 6 : 0), 0xff, 0xff };
			struct nfs4_call_info in;
			nfs4_call_parse(tc->args, tc->args_len, tc->rpos, &in);
			snprintf(key, sizeof(key), "v4body-%u-%s-%u", in.minor,
				 in.main_op ? in.main_op : "none", tc->status);
			put(x, "nfs4_reply", key, hdr, 3, tc->res, tc->res_len);
		}
	}
	trace_free(&t);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: clnt_seeds OUTDIR CAPTURE...\n");
		return 2;
	}
	static struct ctx x;
	x.out = argv[1];
	for (int i = 2; i < argc; i++) {
		char err[256];
		struct pcap_source *src = NULL;
		x.cap = argv[i];
		x.np = 0;
		struct transport *tp = transport_new(on_event, NULL, &x);
		if (!tp || pcap_source_open(&src, argv[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "clnt_seeds: %s: %s\n", argv[i], tp ? err : "out of memory");
			transport_free(tp);
			return 1;
		}
		int lt = pcap_source_linktype(src);
		transport_set_linktype(tp, lt);
		uint64_t ts, frame = 0;
		const uint8_t *data;
		size_t caplen, wirelen;
		int ret;
		while ((ret = pcap_source_next(src, &ts, &data, &caplen, &wirelen, err, sizeof(err))) == 1) {
			transport_packet(tp, ts, ++frame, data, caplen, wirelen);
			if (lt == LINKTYPE_ETHERNET)
				on_ip(&x, data, caplen);
		}
		transport_flush(tp);
		/* the server's RFC 8797 parameters (CM REP private data), as
		 * the transport decoded them, re-encoded with the client's
		 * encoder: the replay's decoder reads that layout */
		for (size_t k = 0; k < transport_conn_count(tp); k++) {
			const struct rdma_conn *cn = transport_conn(tp, k);
			if (!cn->cm_params[1])
				continue;
			uint8_t priv[8], hdr[2] = { 3, 0 };
			char key[48];
			rpcrdma_cm_priv_encode(priv, cn->inline_send[1], cn->inline_recv[1],
					       cn->remote_inv[1]);
			snprintf(key, sizeof(key), "cmpriv-%u-%u-%d", cn->inline_send[1],
				 cn->inline_recv[1], cn->remote_inv[1]);
			put(&x, "nfs3_clnt", key, hdr, 2, priv, 8);
		}
		pcap_source_close(src);
		transport_free(tp);
		if (ret < 0) {
			fprintf(stderr, "clnt_seeds: %s: %s\n", argv[i], err);
			return 1;
		}
		reply_chunk_seeds(&x, argv[i]);
	}
	printf("clnt_seeds: %u seeds\n", x.written);
	return 0;
}
