/* Differential test of the XDP fast path (bpf/xdp_roce.bpf.c) against the
 * dissector library, on every frame of every capture given as argument.
 *
 * 1. Per packet: each frame goes through the verified program with
 *    BPF_PROG_TEST_RUN; the ring-buffer record it emits (or not) must equal,
 *    field by field, what the dissector's own decoders (roce_parse_eth,
 *    ib_parse_bth, rpcrdma_decode) say about the same frame, and carry the
 *    frame's first snap bytes unchanged.  The counters and the
 *    per-connection map must equal counts made from the dissector's parse.
 * 2. Per XID: the records are fed through pcap/xdp_feed (the path of the
 *    xdp: source) and the per-XID records must equal the dissector's
 *    records for the same capture: all fields with full frames; with the
 *    default snap length, all fields vs. the dissector on the capture cut
 *    to that snap length, and the key fields (connection, XID, program,
 *    procedure, status, chunk and inline bytes, credits, timestamps,
 *    frames) vs. the dissector on the full capture.
 * 3. Sampling: 1 in 3 frames recorded, exactly the frames numbered 3k.
 *
 * BPF_PROG_TEST_RUN runs in the present, so records carry ktime; the
 * per-XID step uses each frame's capture timestamp instead (the live test
 * and the source convert ktime to wall clock).  Needs root. */
#include "../xdp/xdp_test.h"

/* Per-connection counts from the oracle's view, as the program keeps them. */
struct oconn {
	struct xdp_conn_key k;
	struct xdp_conn_val v;
};

/* timed: the frame got a record (not sampled out) and the program read the
 * clock for it (not a middle packet or an ACK below whole-frame snap); last_ns then
 * stands for "set" (1). */
static void oconn_count(struct oconn *tab, size_t *n, size_t max, const struct xdp_roce_rec *e,
			int timed)
{
	struct xdp_conn_key k;
	size_t i;

	memset(&k, 0, sizeof(k));
	k.family = e->family;
	k.dqpn = e->dqpn;
	memcpy(k.src, e->src, 16);
	memcpy(k.dst, e->dst, 16);
	for (i = 0; i < *n; i++)
		if (!memcmp(&tab[i].k, &k, sizeof(k)))
			break;
	if (i == *n) {
		if (*n == max)
			return;
		memset(&tab[i], 0, sizeof(tab[i]));
		tab[i].k = k;
		(*n)++;
	}
	struct xdp_conn_val *v = &tab[i].v;
	const struct ib_opinfo *op = ib_opinfo(e->opcode);
	v->pkts++;
	v->bytes += e->wire_len;
	v->last_frame = e->frame;
	if (timed)
		v->last_ns = 1;
	if (op->service == IBS_UD || op->kind == IBK_CNP)
		return;
	switch (op->kind) {
	case IBK_SEND_FIRST: case IBK_SEND_MIDDLE: case IBK_SEND_LAST: case IBK_SEND_ONLY:
		v->sends++; break;
	case IBK_WRITE_FIRST: case IBK_WRITE_MIDDLE: case IBK_WRITE_LAST: case IBK_WRITE_ONLY:
		v->writes++; break;
	case IBK_READ_REQ:
		v->read_reqs++; break;
	case IBK_READ_RESP_FIRST: case IBK_READ_RESP_MIDDLE: case IBK_READ_RESP_LAST:
	case IBK_READ_RESP_ONLY:
		v->read_resps++; break;
	case IBK_ACK: case IBK_ATOMIC_ACK:
		if (ib_aeth_class(e->aeth_syn) == AETH_ACK)
			v->acks++;
		else
			v->naks++;
		break;
	default:
		break;
	}
	if (e->rr_status == RR_OK)
		v->rpcrdma++;
}

static void check_conns(struct txdp *x, const char *path, struct oconn *tab, size_t n)
{
	static struct xdp_conn_slot got[4096];
	int ng = txdp_conns(x, got, 4096);
	size_t bad = 0;

	CHECK(ng >= 0, "%s: connection table unreadable", path);
	for (int g = 0; g < ng; g++) {
		size_t i;
		for (i = 0; i < n; i++)
			if (!memcmp(&tab[i].k, &got[g].k, sizeof(got[g].k)))
				break;
		if (i == n) {
			bad++;
			continue;
		}
		struct xdp_conn_val sum = got[g].v, want = tab[i].v;
		CHECK((sum.last_ns != 0) == (want.last_ns != 0),
		      "%s: conn qp 0x%x: last_ns set exactly when one of its frames got a record",
		      path, got[g].k.dqpn);
		sum.last_ns = 0;
		want.last_ns = 0;
		if (memcmp(&sum, &want, sizeof(sum))) {
			bad++;
			fprintf(stderr, "%s: conn qp 0x%x: pkts %llu/%llu sends %llu/%llu acks %llu/%llu\n",
				path, got[g].k.dqpn, (unsigned long long)sum.pkts,
				(unsigned long long)want.pkts, (unsigned long long)sum.sends,
				(unsigned long long)want.sends, (unsigned long long)sum.acks,
				(unsigned long long)want.acks);
		}
	}
	CHECK((size_t)ng == n && bad == 0, "%s: connection table: %d keys (want %zu), %zu differ",
	      path, ng, n, bad);
	CHECK_EQ_U64(txdp_stat(x, XS_CONN_FULL), 0);
}

static unsigned total_records, total_rpcrdma, total_xid;

/* Part 1 on one capture with one loaded program; leaves the records in x. */
static void per_packet(struct txdp *x, const struct tcap *c)
{
	static struct oconn tab[4096];
	size_t ntab = 0;
	uint64_t want_roce = 0, want_mal = 0, want_rr = 0, want_recs = 0, sampled = 0;
	unsigned bad = 0, passed = 0, printed = 0;
	uint64_t last_ts = 0;
	size_t ri = 0;

	txdp_reset(x);
	for (size_t i = 0; i < c->n; i++) {
		const struct tframe *t = &c->f[i];
		struct xdp_roce_rec e;
		int act = txdp_run(x, t->data, t->cap);

		if (act == XDP_PASS)
			passed++;
		int has = oracle(t->data, t->cap, i + 1, x->snap, &e);
		if (has) {
			if (e.status == XR_ROCE) {
				want_roce++;
				uint8_t k = ib_opinfo(e.opcode)->kind;
				int timed = x->snap >= XDP_ROCE_SNAP_MAX ||
					    (k != IBK_SEND_MIDDLE && k != IBK_WRITE_MIDDLE && k != IBK_READ_RESP_MIDDLE &&
					     k != IBK_ACK);
				oconn_count(tab, &ntab, 4096, &e,
					    timed && (x->sample <= 1 || (i + 1) % x->sample == 0));
				want_rr += e.rr_status == RR_OK;
			} else {
				want_mal++;
			}
			if (x->sample > 1 && (i + 1) % x->sample) {
				sampled++;
				has = 0;
			}
		}
		want_recs += has;
		/* the records this frame produced */
		size_t got = x->recs.n - ri;
		struct xdp_roce_rec gbuf;
		const struct xdp_roce_rec *g;
		const char *why = trec_verdict(&x->recs, ri, has, &e, t->data, &gbuf, &g);
		if (!why && g) {
			/* middle packets and ACKs come untimed below whole-frame snap */
			uint8_t k = ib_opinfo(e.opcode)->kind;
			int untimed = e.status == XR_ROCE && x->snap < XDP_ROCE_SNAP_MAX &&
				      (k == IBK_SEND_MIDDLE || k == IBK_WRITE_MIDDLE || k == IBK_READ_RESP_MIDDLE ||
				       k == IBK_ACK);
			if (untimed ? g->ts_ns != 0 : (!g->ts_ns || g->ts_ns < last_ts))
				why = "ts_ns";
			if (g->ts_ns)
				last_ts = g->ts_ns;
		}
		if (why) {
			bad++;
			if (printed++ < 10)
				fprintf(stderr, "%s frame %zu (snap %u): %s differs (got %zu records, want %d)\n",
					c->path, i + 1, x->snap, why, got, has);
		}
		ri = x->recs.n;
	}
	CHECK(passed == c->n, "%s: %u of %zu frames got XDP_PASS", c->path, passed, c->n);
	CHECK(bad == 0, "%s (snap %u sample %u): %u of %zu frames differ from the dissector",
	      c->path, x->snap, x->sample, bad, c->n);
	CHECK_EQ_U64(txdp_stat(x, XS_FRAMES), c->n);
	CHECK_EQ_U64(txdp_stat(x, XS_ROCE), want_roce);
	CHECK_EQ_U64(txdp_stat(x, XS_MALFORMED), want_mal);
	CHECK_EQ_U64(txdp_stat(x, XS_RPCRDMA), want_rr);
	CHECK_EQ_U64(txdp_stat(x, XS_RECORDS), want_recs);
	CHECK_EQ_U64(txdp_stat(x, XS_SAMPLED_OUT), sampled);
	CHECK_EQ_U64(txdp_stat(x, XS_RB_DROPS), 0);
	check_conns(x, c->path, tab, ntab);
	total_records += (unsigned)want_recs;
	total_rpcrdma += (unsigned)want_rr;
	printf("%s: snap %u sample %u: %zu frames, %" PRIu64 " RoCE, %" PRIu64 " malformed, %" PRIu64
	       " RPC-over-RDMA headers, %zu connections: %s\n", c->path, x->snap, x->sample, c->n,
	       want_roce, want_mal, want_rr, ntab, bad ? "DIFFER" : "records agree");
}

/* Part 2: per-XID records from the XDP records vs. the dissector. */
static void per_xid(struct txdp *x, const struct tcap *c)
{
	struct trecords got = { 0 }, full = { 0 }, clip = { 0 };
	struct dissect_cbs cbs = { .record = trecords_cb, .ctx = &got };
	struct xdp_feed *f = xdp_feed_new(NULL, &cbs);
	unsigned bad_full = 0, bad_key = 0, printed = 0;
	int full_snap = x->snap >= XDP_ROCE_SNAP_MAX;

	CHECK(f != NULL, "xdp_feed_new");
	if (!f)
		return;
	for (size_t i = 0; i < x->recs.n; i++) {
		struct xdp_roce_rec r;
		const uint8_t *bytes;
		if (xdp_rec_check(x->recs.r[i].buf, x->recs.r[i].len, &r, &bytes) < 0 ||
		    r.frame < 1 || r.frame > c->n)
			continue;
		xdp_feed_record(f, x->recs.r[i].buf, x->recs.r[i].len, c->f[r.frame - 1].ts);
	}
	xdp_feed_flush(f);
	CHECK_EQ_U64(xdp_feed_stats(f)->bad_records, 0);
	xdp_feed_free(f);

	CHECK(trecords_dissect_file(&full, c->path) == 0, "dissect %s", c->path);
	if (!full_snap)
		trecords_dissect_clipped(&clip, c, x->snap);
	const struct trecords *exact = full_snap ? &full : &clip;

	CHECK(got.n == full.n, "%s (snap %u): %zu per-XID records, dissector %zu",
	      c->path, x->snap, got.n, full.n);
	CHECK(got.n == exact->n, "%s (snap %u): %zu per-XID records, dissector at this snap %zu",
	      c->path, x->snap, got.n, exact->n);
	for (size_t i = 0; i < got.n && i < exact->n; i++) {
		struct nfsrdma_record a = got.r[i], b = exact->r[i];
		CHECK_EQ_U64(a.source, REC_SRC_XDP);
		a.source = b.source;
		if (memcmp(&a, &b, sizeof(a))) {
			bad_full++;
			const char *k = trecord_key_diff(&a, &b, 1);
			if (printed++ < 10)
				fprintf(stderr, "%s snap %u: record %zu xid 0x%08x differs (%s)\n", c->path,
					x->snap, i, b.xid, k ? k : "non-key field");
		}
	}
	for (size_t i = 0; i < got.n && i < full.n; i++) {
		const char *k = trecord_key_diff(&got.r[i], &full.r[i], 1);
		if (k) {
			bad_key++;
			if (printed++ < 20)
				fprintf(stderr, "%s snap %u: record %zu xid 0x%08x key field %s differs from the full dissection\n",
					c->path, x->snap, i, full.r[i].xid, k);
		}
	}
	CHECK(bad_full == 0, "%s (snap %u): %u per-XID records differ from the dissector's%s",
	      c->path, x->snap, bad_full, full_snap ? "" : " at the same snap length");
	CHECK(bad_key == 0, "%s (snap %u): %u per-XID records differ in key fields from the full dissection",
	      c->path, x->snap, bad_key);
	total_xid += (unsigned)got.n;
	printf("%s: snap %u: %zu per-XID records from XDP, %zu from the dissector: %s\n", c->path,
	       x->snap, got.n, full.n, bad_full || bad_key ? "DIFFER" : "equal");
	free(got.r);
	free(full.r);
	free(clip.r);
}

int main(int argc, char **argv)
{
	struct txdp full, dflt, samp;
	int ethernet = 0;

	if (geteuid() != 0) {
		printf("bpf-xdp-diff: needs root to load programs\n");
		return 1;
	}
	int e1 = txdp_open(&full, XDP_ROCE_SNAP_MAX, 1);
	int e2 = txdp_open(&dflt, XDP_ROCE_SNAP_DEFAULT, 1);
	int e3 = txdp_open(&samp, XDP_ROCE_SNAP_DEFAULT, 3);
	CHECK(e1 == 0 && e2 == 0 && e3 == 0, "load/verify xdp_roce: %d %d %d (%s)", e1, e2, e3,
	      strerror(-(e1 ? e1 : e2 ? e2 : e3)));
	if (e1 || e2 || e3)
		return check_summary("bpf-xdp-diff");
	for (int i = 1; i < argc; i++) {
		struct tcap c;
		if (access(argv[i], R_OK) != 0) {
			CHECK_SKIP("%s absent", argv[i]);
			continue;
		}
		if (tcap_load(&c, argv[i]) < 0) {
			CHECK(0, "read %s", argv[i]);
			continue;
		}
		if (c.linktype != LINKTYPE_ETHERNET) {
			/* XDP sees Ethernet frames only (IB ports have no XDP). */
			CHECK_SKIP("%s: link type %d is not Ethernet", argv[i], c.linktype);
			tcap_free(&c);
			continue;
		}
		ethernet++;
		per_packet(&full, &c);
		per_xid(&full, &c);
		per_packet(&dflt, &c);
		per_xid(&dflt, &c);
		per_packet(&samp, &c);
		tcap_free(&c);
	}
	CHECK(argc < 2 || ethernet > 0, "no Ethernet capture given");
	CHECK(argc < 2 || total_rpcrdma > 0, "no capture held an RPC-over-RDMA header");
	CHECK(argc < 2 || total_xid > 0, "no per-XID record compared");
	printf("bpf-xdp-diff: %u records, %u RPC-over-RDMA headers, %u per-XID records compared\n",
	       total_records, total_rpcrdma, total_xid);
	txdp_close(&full);
	txdp_close(&dflt);
	txdp_close(&samp);
	return check_summary("bpf-xdp-diff");
}
