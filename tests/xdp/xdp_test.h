/* Shared by the XDP tests (tests/bpf/test_xdp_*.c): capture loading, the
 * skeleton, BPF_PROG_TEST_RUN of one frame with its ring-buffer records
 * collected, and per-XID record comparison.  Header-only (tests/xdp/) so the
 * Makefile's one-source-per-test rule needs no change. */
#ifndef NFSRDMA_TESTS_XDP_TEST_H
#define NFSRDMA_TESTS_XDP_TEST_H

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "bpf/xdp_roce.h"
#include "dissect/dissect.h"
#include "dissect/ib.h"
#include "dissect/roce.h"
#include "dissect/rpcrdma.h"
#include "dissect/transport.h"
#include "pcap/capfile.h"
#include "pcap/dissect_run.h"
#include "pcap/xdp_feed.h"
#include "pcap/xdp_ring.h"
#include "xdp_roce.skel.h"

#ifndef XDP_PASS
#define XDP_PASS 2
#endif

struct tframe {
	uint64_t ts;
	uint8_t *data;
	size_t cap, wire;
};

struct tcap {
	const char *path;
	int linktype;
	struct tframe *f;
	size_t n;
};

static inline void tcap_free(struct tcap *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->f[i].data);
	free(c->f);
	memset(c, 0, sizeof(*c));
}

/* Reads a whole capture into memory.  0, or negative errno (msg printed). */
static inline int tcap_load(struct tcap *c, const char *path)
{
	struct pcap_source *src;
	char err[256];
	uint64_t ts;
	const uint8_t *data;
	size_t cap, wire, max = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	c->path = path;
	if ((ret = pcap_source_open(&src, path, err, sizeof(err))) < 0) {
		fprintf(stderr, "%s\n", err);
		return ret;
	}
	c->linktype = pcap_source_linktype(src);
	while ((ret = pcap_source_next(src, &ts, &data, &cap, &wire, err, sizeof(err))) == 1) {
		if (c->n == max) {
			max = max ? max * 2 : 1024;
			struct tframe *nf = realloc(c->f, max * sizeof(*nf));
			if (!nf) {
				ret = -ENOMEM;
				break;
			}
			c->f = nf;
		}
		struct tframe *t = &c->f[c->n];
		t->ts = ts;
		t->cap = cap;
		t->wire = wire;
		t->data = malloc(cap ? cap : 1);
		if (!t->data) {
			ret = -ENOMEM;
			break;
		}
		memcpy(t->data, data, cap);
		c->n++;
	}
	pcap_source_close(src);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		tcap_free(c);
	}
	return ret < 0 ? ret : 0;
}

/* Ring-buffer records of the current run, copied. */
struct trecs {
	struct { uint8_t *buf; size_t len; } *r;
	size_t n, max;
};

static inline int trecs_add(void *ctx, const void *data, size_t len)
{
	struct trecs *t = ctx;

	if (t->n == t->max) {
		size_t m = t->max ? t->max * 2 : 1024;
		void *nr = realloc(t->r, m * sizeof(*t->r));
		if (!nr)
			return -ENOMEM;
		t->r = nr;
		t->max = m;
	}
	t->r[t->n].buf = malloc(len);
	if (!t->r[t->n].buf)
		return -ENOMEM;
	memcpy(t->r[t->n].buf, data, len);
	t->r[t->n].len = len;
	t->n++;
	return 0;
}

static inline void trecs_clear(struct trecs *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->r[i].buf);
	t->n = 0;
}

/* A loaded program with its record-ring reader. */
struct txdp {
	struct xdp_roce_bpf *skel;
	struct xdp_ring *ring;
	struct trecs recs;
	int prog_fd, ncpu;
	uint32_t snap, sample;
};

static inline int txdp_rb_cb(void *ctx, const void *data, size_t len)
{
	return trecs_add(ctx, data, len);
}

/* Collects what the program has written (oldest frame first). */
static inline int txdp_consume(struct txdp *x)
{
	return xdp_ring_consume(x->ring);
}

static inline int txdp_open(struct txdp *x, uint32_t snap, uint32_t sample)
{
	memset(x, 0, sizeof(*x));
	x->snap = snap;
	x->sample = sample;
	x->skel = xdp_roce_bpf__open();
	if (!x->skel)
		return -errno;
	x->skel->rodata->snap_len = snap;
	x->skel->rodata->sample_every = sample;
	int err = xdp_ring_configure(x->skel->maps.xdp_ring, XDP_RING_DEFAULT,
				     (uint32_t *)&x->skel->rodata->ring_mask);
	if (!err)
		err = xdp_roce_bpf__load(x->skel);
	if (err) {
		xdp_roce_bpf__destroy(x->skel);
		x->skel = NULL;
		return err;
	}
	x->prog_fd = bpf_program__fd(x->skel->progs.xdp_roce);
	x->ncpu = libbpf_num_possible_cpus();
	err = xdp_ring_new(&x->ring, x->skel->maps.xdp_ring, x->skel->maps.xdp_wake, txdp_rb_cb, &x->recs);
	if (err) {
		xdp_roce_bpf__destroy(x->skel);
		x->skel = NULL;
		return err;
	}
	return 0;
}

static inline void txdp_close(struct txdp *x)
{
	xdp_ring_free(x->ring);
	if (x->skel)
		xdp_roce_bpf__destroy(x->skel);
	trecs_clear(&x->recs);
	free(x->recs.r);
	memset(x, 0, sizeof(*x));
}

/* Zeroes the counters, the connection table and the frame number. */
static inline void txdp_reset(struct txdp *x)
{
	int sfd = bpf_map__fd(x->skel->maps.xdp_stats);
	int cfd = bpf_map__fd(x->skel->maps.xdp_conns);
	int ncpu = x->ncpu > 0 ? x->ncpu : 1;
	struct xdp_stats_val zeros[ncpu];
	struct xdp_conn_slot *zs = calloc((size_t)ncpu, sizeof(*zs));
	uint32_t zero = 0;

	memset(zeros, 0, sizeof(zeros));
	bpf_map_update_elem(sfd, &zero, zeros, BPF_ANY);
	for (uint32_t i = 0; zs && i < XDP_CONN_MAX; i++)
		bpf_map_update_elem(cfd, &i, zs, BPF_ANY);
	free(zs);
	x->skel->bss->frame_seq = 0;
	txdp_consume(x);
	trecs_clear(&x->recs);
}

/* The connection table as user space reads it: every non-empty slot of
 * every CPU, summed by key.  Returns the number of keys (at most max), or
 * -1 if a slot cannot be read. */
static inline int txdp_conns(struct txdp *x, struct xdp_conn_slot *out, size_t max)
{
	int cfd = bpf_map__fd(x->skel->maps.xdp_conns);
	int ncpu = x->ncpu > 0 ? x->ncpu : 1;
	struct xdp_conn_slot *v = calloc((size_t)ncpu, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -1;
	for (uint32_t i = 0; i < XDP_CONN_MAX; i++) {
		if (bpf_map_lookup_elem(cfd, &i, v)) {
			free(v);
			return -1;
		}
		for (int c = 0; c < ncpu; c++) {
			const struct xdp_conn_slot *sl = &v[c];
			size_t j;

			if (!sl->k.family)
				continue;
			for (j = 0; j < n; j++)
				if (!memcmp(&out[j].k, &sl->k, sizeof(sl->k)))
					break;
			if (j == n) {
				if (n == max)
					continue;
				memset(&out[n], 0, sizeof(out[n]));
				out[n].k = sl->k;
				n++;
			}
			struct xdp_conn_val *d = &out[j].v;
			d->pkts += sl->v.pkts; d->bytes += sl->v.bytes;
			d->sends += sl->v.sends; d->writes += sl->v.writes;
			d->read_reqs += sl->v.read_reqs; d->read_resps += sl->v.read_resps;
			d->acks += sl->v.acks; d->naks += sl->v.naks;
			d->rpcrdma += sl->v.rpcrdma;
			if (sl->v.last_ns > d->last_ns)
				d->last_ns = sl->v.last_ns;
			if (sl->v.last_frame > d->last_frame)
				d->last_frame = sl->v.last_frame;
		}
	}
	free(v);
	return (int)n;
}

static inline uint64_t txdp_stat(struct txdp *x, uint32_t slot)
{
	struct xdp_stats_val v[x->ncpu > 0 ? x->ncpu : 1];
	uint32_t zero = 0;
	uint64_t sum = 0;

	if (slot >= XS_MAX || bpf_map_lookup_elem(bpf_map__fd(x->skel->maps.xdp_stats), &zero, v))
		return UINT64_MAX;
	for (int i = 0; i < x->ncpu; i++)
		sum += v[i].v[slot];
	return sum;
}

/* Runs one frame through the program (repeat 1).  Returns the XDP action,
 * or negative errno. */
static inline int txdp_run(struct txdp *x, const uint8_t *data, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = data, .data_size_in = (uint32_t)len,
		    .repeat = 1);
	int err = bpf_prog_test_run_opts(x->prog_fd, &opts);

	if (err)
		return err < 0 ? err : -err;
	txdp_consume(x);
	return (int)opts.retval;
}

/* ---- the oracle: the dissector's decoders on the same frame ---- */

static inline int layer_code(const char *l)
{
	static const char *const names[] = { "", "eth", "vlan", "ipv4", "ipv6", "udp", "roce", "ib" };

	for (int i = 1; i < 8; i++)
		if (l && !strcmp(l, names[i]))
			return i;
	return -1;
}

/* The oracle: the record the program should emit for this frame, from the
 * dissector's decoders.  Returns 0 (no record), 1 (record in *e). */
static inline int oracle(const uint8_t *p, size_t len, uint64_t frame, uint32_t snap,
		  struct xdp_roce_rec *e)
{
	struct cursor c = cur_make(p, len);
	struct ib_frame f;
	struct ib_pkt pk;
	static struct rpcrdma_hdr h;

	memset(e, 0, sizeof(*e));
	memset(&f, 0, sizeof(f));
	int ret = roce_parse_eth(&c, len, &f);
	if (ret == 0)
		return 0;
	e->magic = XDP_ROCE_MAGIC;
	e->hdr_size = XDP_REC_BASE;
	e->frame = frame;
	e->wire_len = (uint32_t)len;
	e->cap_len = (uint16_t)(snap < len ? snap : len);
	if (e->cap_len > XDP_ROCE_SNAP_MAX)
		e->cap_len = XDP_ROCE_SNAP_MAX;
	if (ret < 0) {
		e->status = XR_MALFORMED;
		e->mal_layer = (uint8_t)layer_code(f.layer);
		return 1;
	}
	e->kind = f.kind;
	e->family = f.family;
	e->ecn = f.ecn;
	e->sport = f.kind == IBF_ROCE_V2 ? f.sport : 0;
	memcpy(e->src, f.src, 16);
	memcpy(e->dst, f.dst, 16);
	e->tp_len = (uint32_t)f.wire_len;
	memset(&pk, 0, sizeof(pk));
	if (ib_parse_bth(&f, &pk) < 0) {
		e->status = XR_MALFORMED;
		e->mal_layer = XM_IB;
		return 1;
	}
	e->status = XR_ROCE;
	e->opcode = pk.opcode;
	e->pkey = pk.pkey;
	e->dqpn = pk.dqpn;
	e->psn = pk.psn;
	e->bth_flags = (uint8_t)((pk.se ? XB_SE : 0) | (pk.migreq ? XB_MIGREQ : 0) |
				 (pk.ackreq ? XB_ACKREQ : 0) | (pk.pad << 4));
	e->hdrs = pk.op->hdrs;
	e->payload_off = (uint32_t)pk.payload_off;
	e->payload_len = (uint32_t)pk.payload_len;
	e->aeth_syn = pk.aeth_syn;
	e->aeth_msn = pk.aeth_msn;
	e->reth_va = pk.reth_va;
	e->reth_rkey = pk.reth_rkey;
	e->reth_len = pk.reth_len;
	e->imm = pk.imm;
	e->ieth_rkey = pk.ieth_rkey;
	e->deth_qkey = pk.deth_qkey;
	e->deth_srcqp = pk.deth_srcqp;
	/* bpf/xdp_roce.h: past the snap length, a frame that does not start
	 * a message keeps only its headers */
	uint8_t k = pk.op->kind;
	if (e->cap_len < len && k != IBK_SEND_FIRST && k != IBK_SEND_ONLY && k != IBK_WRITE_FIRST &&
	    k != IBK_WRITE_ONLY && k != IBK_READ_RESP_FIRST && k != IBK_READ_RESP_ONLY &&
	    pk.payload_off < e->cap_len)
		e->cap_len = (uint16_t)pk.payload_off;

	if ((pk.op->kind == IBK_SEND_FIRST || pk.op->kind == IBK_SEND_ONLY) &&
	    pk.op->service != IBS_UD) {
		struct cursor rc = cur_make(pk.payload ? pk.payload : p, pk.payload ? pk.payload_cap : 0);
		memset(&h, 0, sizeof(h));
		int r = rpcrdma_decode(&h, &rc);
		if (pk.payload_cap >= 16) {
			e->xid = h.xid;
			e->vers = h.vers;
			e->credits = h.credits;
			e->proc = h.proc;
		}
		if (r == 0 && (h.nrsegs_wire > XDP_RR_MAX_RSEGS || h.nwchunks_wire > XDP_RR_MAX_WCHUNKS)) {
			e->rr_status = RR_OVERFLOW;
		} else if (r == 0) {
			e->rr_status = RR_OK;
			e->rr_hdr_len = (uint16_t)h.hdr_len;
			e->rr_err = h.err;
			e->n_rsegs = (uint16_t)h.nrsegs_wire;
			for (unsigned i = 0; i < h.nrsegs; i++)
				e->rd_total += h.rsegs[i].seg.length;
			if (h.nrsegs) {
				e->rd_pos = h.rsegs[0].position;
				e->rd1.handle = h.rsegs[0].seg.handle;
				e->rd1.length = h.rsegs[0].seg.length;
				e->rd1.offset = h.rsegs[0].seg.offset;
			}
			if (rpcrdma_has_p0(&h))
				e->rr_flags |= XRR_P0;
			e->n_wchunks = (uint16_t)h.nwchunks_wire;
			for (unsigned i = 0; i < h.nwchunks; i++)
				e->n_wsegs += h.wchunks[i].nsegs_wire;
			if (h.nwsegs) {
				e->wr1.handle = h.wsegs[0].handle;
				e->wr1.length = h.wsegs[0].length;
				e->wr1.offset = h.wsegs[0].offset;
			}
			if (h.has_reply) {
				e->rr_flags |= XRR_REPLY;
				e->n_rpsegs = h.nrpsegs_wire;
				if (h.nrpsegs) {
					e->rp1.handle = h.rpsegs[0].handle;
					e->rp1.length = h.rpsegs[0].length;
					e->rp1.offset = h.rpsegs[0].offset;
				}
			}
		} else if (rc.err == CUR_TRUNCATED) {
			e->rr_status = RR_SHORT;
		} else if (pk.payload_cap >= 16 && h.vers != 1) {
			e->rr_status = RR_NOT_V1;
		} else {
			e->rr_status = RR_BAD;
		}
		e->hdr_size = XDP_REC_FULL;   /* with the RPC-over-RDMA summary */
	}
	return 1;
}

/* Field-by-field comparison; returns the first differing field or NULL. */
static inline const char *rec_diff(const struct xdp_roce_rec *g, const struct xdp_roce_rec *e)
{
#define D(f) if (g->f != e->f) return #f
	D(magic); D(hdr_size); D(status); D(frame); D(wire_len); D(cap_len);
	if (e->status == XR_MALFORMED) {
		D(mal_layer);
		return NULL;
	}
	D(mal_layer); D(kind); D(family); D(ecn); D(sport);
	if (memcmp(g->src, e->src, 16)) return "src";
	if (memcmp(g->dst, e->dst, 16)) return "dst";
	D(opcode); D(pkey); D(dqpn); D(psn); D(bth_flags); D(hdrs); D(tp_len);
	D(payload_off); D(payload_len);
	D(aeth_syn); D(aeth_msn); D(reth_va); D(reth_rkey); D(reth_len); D(imm); D(ieth_rkey);
	D(deth_qkey); D(deth_srcqp);
	D(rr_status); D(xid); D(vers); D(credits); D(proc);
	if (e->rr_status == RR_OK) {
		D(rr_flags); D(rr_hdr_len); D(rr_err); D(n_rsegs); D(n_wchunks); D(n_wsegs);
		D(n_rpsegs); D(rd_pos); D(rd_total);
		D(rd1.handle); D(rd1.length); D(rd1.offset);
		D(wr1.handle); D(wr1.length); D(wr1.offset);
		D(rp1.handle); D(rp1.length); D(rp1.offset);
	}
#undef D
	return NULL;
}

/* ---- per-XID records ---- */

struct trecords {
	struct nfsrdma_record *r;
	size_t n, max;
};

static inline void trecords_cb(const struct nfsrdma_record *r, const struct dtree *t, void *ctx)
{
	struct trecords *a = ctx;

	if (a->n == a->max) {
		size_t m = a->max ? a->max * 2 : 256;
		void *nr = realloc(a->r, m * sizeof(*a->r));
		if (!nr)
			return;
		a->r = nr;
		a->max = m;
	}
	a->r[a->n++] = *r;
}

/* The dissector's records for a capture file (the reference). The XDP
 * program reads RoCE only: the dissector's RPC over TCP and UDP is left
 * out (no_rpc_net), so its connection numbers are the RDMA ones alone. */
static inline int trecords_dissect_file(struct trecords *a, const char *path)
{
	struct dissect_cbs cbs = { .record = trecords_cb, .ctx = a };
	struct dissect_opts o = { .no_rpc_net = true };
	struct dissect *d = dissect_new(&o, &cbs);
	char err[256];

	if (!d)
		return -ENOMEM;
	int ret = dissect_file(d, path, err, sizeof(err));
	dissect_free(d);
	return ret;
}

/* The dissector's records for the capture's frames cut to snap bytes,
 * as a capture taken with that snap length would be. */
static inline int trecords_dissect_clipped(struct trecords *a, const struct tcap *c, size_t snap)
{
	struct dissect_cbs cbs = { .record = trecords_cb, .ctx = a };
	struct dissect_opts o = { .no_rpc_net = true };
	struct dissect *d = dissect_new(&o, &cbs);
	struct transport *tp = d ? transport_new(dissect_event, NULL, d) : NULL;

	if (!tp) {
		dissect_free(d);
		return -ENOMEM;
	}
	transport_set_linktype(tp, c->linktype);
	transport_set_rpc_net(tp, false);
	for (size_t i = 0; i < c->n; i++)
		transport_packet(tp, c->f[i].ts, i + 1, c->f[i].data,
				 c->f[i].cap < snap ? c->f[i].cap : snap, c->f[i].wire);
	transport_flush(tp);
	dissect_flush(d);
	transport_free(tp);
	dissect_free(d);
	return 0;
}

/* Key fields of a per-XID record: name and equality, for diagnostics. */
static inline const char *trecord_key_diff(const struct nfsrdma_record *a, const struct nfsrdma_record *b,
					   int with_times)
{
#define KD(f) if (a->f != b->f) return #f
	KD(conn_id); KD(xid); KD(prog); KD(vers); KD(proc); KD(minorvers);
	KD(rpc_status); KD(status); KD(call_rdma_proc); KD(reply_rdma_proc);
	if (memcmp(&a->caller, &b->caller, sizeof(a->caller))) return "caller";
	if (memcmp(&a->callee, &b->callee, sizeof(a->callee))) return "callee";
	KD(call_inline); KD(reply_inline); KD(call_hdr); KD(reply_hdr);
	KD(read_chunk_bytes); KD(read_bytes); KD(write_chunk_bytes); KD(write_bytes);
	KD(reply_chunk_bytes); KD(reply_bytes); KD(write_list_echo);
	KD(n_read_chunks); KD(n_read_segs); KD(n_write_chunks); KD(n_write_segs); KD(n_reply_segs);
	KD(n_rdma_reads); KD(n_rdma_writes); KD(credits_asked); KD(credits_granted);
	if (with_times) {
		KD(t_call_first); KD(t_call_last); KD(t_read_first); KD(t_read_last);
		KD(t_write_first); KD(t_write_last); KD(t_reply_first); KD(t_reply_last);
		KD(d_total); KD(frame_call); KD(frame_reply);
	}
#undef KD
	return NULL;
}

/* The records one frame produced (from index first on) against the
 * oracle's: has = 0 or 1 records expected, e the expected record, frame
 * the frame's bytes.  NULL if they agree, else what differs; *got points
 * to the record, copied into *buf (when there is exactly one that passes
 * xdp_rec_check). */
static inline const char *trec_verdict(const struct trecs *t, size_t first, int has,
				       const struct xdp_roce_rec *e, const uint8_t *frame,
				       struct xdp_roce_rec *buf, const struct xdp_roce_rec **got)
{
	const uint8_t *bytes;

	*got = NULL;
	if (t->n - first != (size_t)has)
		return "record count";
	if (!has)
		return NULL;
	if (xdp_rec_check(t->r[first].buf, t->r[first].len, buf, &bytes) < 0)
		return "record fails xdp_rec_check";
	*got = buf;
	if (t->r[first].len != XDP_REC_SPACE(buf->hdr_size, buf->cap_len))
		return "record length";
	const char *why = rec_diff(*got, e);
	if (!why && memcmp(bytes, frame, (*got)->cap_len))
		why = "frame bytes";
	return why;
}

#endif
