/* The fused split (src/stats/fsplit.c) and its control-protocol lines
 * (src/stats/ctl_proto.c, FT and F) on joined records whose phases are
 * set here: every expected sum, tail and percentile is worked out by hand
 * from those records in the comments, never taken from another output. */
#include <errno.h>

#include "check.h"
#include "src/stats/ctl_proto.h"
#include "src/stats/fsplit.h"

/* A joined NFSv3 READ from 10.0.0.<client> to 10.0.0.1 over RDMA. */
static void rec(struct nfsrdma_record *r, unsigned client, unsigned vt, uint32_t merged)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_JOINED;
	r->vantages = (uint8_t)vt;
	r->flags = RECF_CALL | RECF_REPLY;
	r->prog = 100003;
	r->vers = 3;
	r->proc = 6;
	r->caller.family = r->callee.family = 4;
	r->caller.addr[0] = r->callee.addr[0] = 10;
	r->caller.addr[3] = (uint8_t)client;
	r->callee.addr[3] = 1;
	r->f_merged = merged;
}

static void phases(struct nfsrdma_record *r, unsigned a, uint64_t ta, unsigned b, uint64_t tb)
{
	r->f_phase[a] = ta;
	r->f_phase[b] = tb;
	r->f_mask = 1u << a | 1u << b;
	r->f_total = ta + tb;
}

static const struct fsplit_row *find(const struct fsplit_snap *s, unsigned dim, const char *key, unsigned vt)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i].dim == dim && !strcmp(s->rows[i].key, key) && s->rows[i].vantages == vt)
			return &s->rows[i];
	return NULL;
}

/* Places, segments and the net_out+net_back pair: a row's verdict_sum,
 * and the F + FV lines that carry them (F's merged without the pair's
 * bit, as 2.3 readers take it; FV's pair field restores it). */
static void verdict_rows(void)
{
	struct fsplit *f = fsplit_new(0);
	struct nfsrdma_record r;
	struct fsplit_snap s, s2;
	const uint16_t nets = 1u << REC_PL_CLIENT_NET | 1u << REC_PL_SERVER_NET;

	/* 3 READs, directions not resolved: net_out+net_back 8 ms (both
	 * sides, one share), execute 2 ms; client_net 3 ms, server_net 5 ms
	 * known in 2 of them.  Sums: nets 24 ms, execute 6 ms of 30 ms:
	 * verdict client_net|server_net 800 pm. */
	for (int i = 0; i < 3; i++) {
		rec(&r, 2, REC_VT_ALL, REC_FM_NET_PAIR);
		phases(&r, REC_FP_NET_OUT, 8000000, REC_FP_EXECUTE, 2000000);
		r.f_nplace = 2;
		r.f_place[0] = (struct rec_place_ns){ .ns = 8000000, .places = nets };
		r.f_place[1] = (struct rec_place_ns){ .ns = 2000000, .places = 1u << REC_PL_EXECUTE };
		if (i < 2) {
			r.f_seg[REC_SEG_CLIENT_NET] = 3000000;
			r.f_seg[REC_SEG_SERVER_NET] = 5000000;
			r.f_seg_mask = 1u << REC_SEG_CLIENT_NET | 1u << REC_SEG_SERVER_NET;
		}
		fsplit_add(f, &r);
	}
	CHECK(fsplit_snapshot(f, &s) == 0 && s.n == 3, "pair rows");
	const struct fsplit_row *a = find(&s, AGG_OP, "NFSv3 READ", REC_VT_ALL);
	struct verdict_of o;
	CHECK(a && a->merged == REC_FM_NET_PAIR && a->vs.n == 3 && a->vs.seg_n[REC_SEG_SERVER_NET] == 2 &&
	      a->vs.seg_sum[REC_SEG_SERVER_NET] == 10000000 && verdict_sum_get(&a->vs, &o) && o.places == nets &&
	      o.pm == 800, "op row: the pair, 3 RPCs, server_net 10 ms in 2, verdict nets 800 pm");
	uint8_t first[REC_FP_N], last[REC_FP_N];
	CHECK_EQ_U64(fsplit_spans(REC_FM_NET_PAIR, first, last), REC_FP_N - 1);   /* net_back: no span of its own */

	struct agg_snap as, bs;
	memset(&as, 0, sizeof(as));
	memset(&bs, 0, sizeof(bs));
	memset(&s2, 0, sizeof(s2));
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	ctl_write_snap_fused(mf, &as, &s);
	fclose(mf);
	/* F: merged 0 (the pair's bit is FV's); FV: pair 1, 3 RPCs, no
	 * overflow, segments, the two sets */
	CHECK(strstr(buf, "F\top\tNFSv3 READ\trdma\t7\t0\t") != NULL, "F line: merged without the pair's bit");
	char want[256];
	snprintf(want, sizeof(want), "FV\top\tNFSv3 READ\t1\t3\t0\t0\t6000000\t2\t10000000\t2\t0\t0\t0\t0\t0\t0\t0\t0"
		 "\t%u:24000000\t%u:6000000\n", nets, 1u << REC_PL_EXECUTE);
	CHECK(strstr(buf, want) != NULL, "FV line: %s", want);
	struct ctl_reader rd = { { 0 } };
	int rc = 0;
	for (char *line = strtok(buf, "\n"); line && (rc = ctl_read_line_fused(&rd, &bs, &s2, line, err, sizeof(err))) == 0;)
		line = strtok(NULL, "\n");
	CHECK(rc == 1 && s2.n == s.n, "round trip (%d %s)", rc, rc < 0 ? err : "");
	for (size_t i = 0; i < s.n && i < s2.n; i++)
		CHECK(!memcmp(&s.rows[i], &s2.rows[i], sizeof(s.rows[i])), "round trip row %zu: pair, places, segments", i);
	free(buf);

	/* hostile FV lines, each after a good F */
	static const char *const bad[] = {
		"FV\top\tNFSv3 READ\t2\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0",          /* pair 2 */
		"FV\top\tNFSv3 READ\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t256:5",   /* a ninth place */
		"FV\top\tNFSv3 READ\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t1:5\t1:5", /* a set twice */
		"FV\top\tNFSv3 READ\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t1:x",   /* not a number */
		"FV\top\tNFSv3 READ\t0\t2\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0",          /* more RPCs than F */
		"FV\top\tNFSv3 READ\t0\t1\t0\t0\t5\t2\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0",          /* a segment in 2 of 1 */
		"FV\top\tNFSv3 WRITE\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0",         /* another row's key */
		"FV\top\tNFSv3 READ\t0\t1\t0",                                                        /* short */
	};
	char good[512], line[512];
	size_t gl = (size_t)snprintf(good, sizeof(good), "F\top\tNFSv3 READ\trdma\t7\t0\t1\t1\t5");
	for (int k = 9; k < 36; k++)
		gl += (size_t)snprintf(good + gl, sizeof(good) - gl, "\t%d", k == 16 || k == 26 ? 5 : 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fsplit_snap s3;
		struct ctl_reader r3 = { { 0 } };
		memset(&s3, 0, sizeof(s3));
		snprintf(line, sizeof(line), "FT\t1\t0\t0");
		rc = ctl_read_line_fused(&r3, &bs, &s3, line, err, sizeof(err));
		snprintf(line, sizeof(line), "%s", good);
		rc |= ctl_read_line_fused(&r3, &bs, &s3, line, err, sizeof(err));
		CHECK(rc == 0, "FT and a good F (%s)", err);
		snprintf(line, sizeof(line), "%s", bad[i]);
		CHECK(ctl_read_line_fused(&r3, &bs, &s3, line, err, sizeof(err)) == -EPROTO && strstr(err, "fused verdict"),
		      "bad FV %zu refused", i);
		fsplit_snap_free(&s3);
	}
	/* FV before any F */
	{
		struct fsplit_snap s3;
		struct ctl_reader r3 = { { 0 } };
		memset(&s3, 0, sizeof(s3));
		snprintf(line, sizeof(line), "FT\t1\t0\t0");
		ctl_read_line_fused(&r3, &bs, &s3, line, err, sizeof(err));
		snprintf(line, sizeof(line), "FV\top\tx\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0");
		CHECK(ctl_read_line_fused(&r3, &bs, &s3, line, err, sizeof(err)) == -EPROTO, "FV before any F refused");
		fsplit_snap_free(&s3);
	}
	fsplit_snap_free(&s);
	fsplit_snap_free(&s2);
	agg_snap_free(&bs);
	fsplit_free(f);
}

int main(void)
{
	struct fsplit *f = fsplit_new(0);
	struct nfsrdma_record r;
	struct fsplit_snap s;

	CHECK(f != NULL, "new");
	/* 98 fast READs of 1 ms (net_out 0.4 ms, execute 0.6 ms) and 2 slow
	 * ones of 10 ms (server_queue 9 ms, execute 1 ms), all three
	 * vantages.  The p99 is rank ceil(0.99 * 100) = 99: the first slow
	 * one, so the tail is the 2 slow RPCs.  Sums: totals 98 + 20 = 118 ms;
	 * execute 98 * 0.6 + 2 * 1 = 60.8 ms; net_out 39.2 ms; server_queue
	 * 18 ms; tail: 20 ms, of it server_queue 18 ms, execute 2 ms.  p50
	 * (rank 50, 1 ms = 1000000 ns): the top of its bucket; 1000000 lies in
	 * [2^19, 2^20), 32 buckets of 2^14, the one from 61 * 16384 = 999424
	 * up to 1015807.  p99 = the slow bucket's top capped at the max: 10 ms. */
	for (int i = 0; i < 100; i++) {
		rec(&r, 2, REC_VT_ALL, 0);
		if (i < 98)
			phases(&r, REC_FP_NET_OUT, 400000, REC_FP_EXECUTE, 600000);
		else
			phases(&r, REC_FP_SERVER_QUEUE, 9000000, REC_FP_EXECUTE, 1000000);
		fsplit_add(f, &r);
	}
	/* the same READ joined without the server: server_queue..reply_build
	 * merged (bits 3, 4, 5, 6), its 3 ms in server_queue's place */
	rec(&r, 2, REC_VT_CLIENT | REC_VT_WIRE, 0x78);
	phases(&r, REC_FP_NET_OUT, 1000000, REC_FP_SERVER_QUEUE, 3000000);
	r.f_flags = RECFF_NEGATIVE;
	fsplit_add(f, &r);
	/* a record that is not joined, and a joined one without phases */
	rec(&r, 3, REC_VT_WIRE, 0);
	r.source = REC_SRC_WIRE;
	fsplit_add(f, &r);
	rec(&r, 3, REC_VT_ALL, 0);
	fsplit_add(f, &r);

	CHECK(fsplit_snapshot(f, &s) == 0, "snapshot");
	CHECK_EQ_U64(s.rpcs, 102);     /* joined: 100 + 1 + the one without phases */
	CHECK_EQ_U64(s.unsplit, 1);
	CHECK_EQ_U64(s.overflow, 0);
	CHECK_EQ_U64(s.n, 6);          /* two shapes in each of op, client, server */
	const struct fsplit_row *a = find(&s, AGG_OP, "NFSv3 READ", REC_VT_ALL);
	CHECK(a != NULL, "op row, three vantages");
	if (a) {
		CHECK_EQ_U64(a->n, 100);
		CHECK_EQ_U64(a->sum, 118000000);
		CHECK_EQ_U64(a->phase[REC_FP_EXECUTE], 60800000);
		CHECK_EQ_U64(a->phase[REC_FP_NET_OUT], 39200000);
		CHECK_EQ_U64(a->phase[REC_FP_SERVER_QUEUE], 18000000);
		CHECK_EQ_U64(a->tail_n, 2);
		CHECK_EQ_U64(a->tail_sum, 20000000);
		CHECK_EQ_U64(a->tail[REC_FP_SERVER_QUEUE], 18000000);
		CHECK_EQ_U64(a->tail[REC_FP_EXECUTE], 2000000);
		CHECK_EQ_U64(a->tail[REC_FP_NET_OUT], 0);
		CHECK_EQ_U64(a->p50, 1015807);
		CHECK_EQ_U64(a->p99, 10000000);
		CHECK_EQ_U64(a->max, 10000000);
		CHECK_EQ_U64(a->merged, 0);
		CHECK_EQ_U64(a->mask, 1u << REC_FP_NET_OUT | 1u << REC_FP_SERVER_QUEUE | 1u << REC_FP_EXECUTE);
		CHECK_EQ_U64(a->negative, 0);
	}
	const struct fsplit_row *b = find(&s, AGG_OP, "NFSv3 READ", REC_VT_CLIENT | REC_VT_WIRE);
	CHECK(b != NULL && b->n == 1 && b->merged == 0x78 && b->phase[REC_FP_SERVER_QUEUE] == 3000000 &&
	      b->negative == 1, "op row, client + wire: its own shape, merged, flagged");
	const struct fsplit_row *c = find(&s, AGG_CLIENT, "10.0.0.2", REC_VT_ALL);
	const struct fsplit_row *v = find(&s, AGG_SERVER, "10.0.0.1", REC_VT_ALL);
	CHECK(c && v && c->n == 100 && v->n == 100 && c->sum == 118000000 && v->tail_n == 2,
	      "client and server rows hold the same RPCs");

	/* spans of the merged shape: 0 1 2, 3..7, 8 9 = six */
	uint8_t first[REC_FP_N], last[REC_FP_N];
	CHECK_EQ_U64(fsplit_spans(0x78, first, last), 6);
	CHECK(first[3] == 3 && last[3] == 7 && first[4] == 8 && last[4] == 8, "span 3..7");
	CHECK_EQ_U64(fsplit_spans(0, first, last), REC_FP_N);

	/* the control protocol: written and read back alike */
	struct agg_snap as;
	memset(&as, 0, sizeof(as));
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	ctl_write_snap_fused(mf, &as, &s);
	fclose(mf);
	struct agg_snap bs;
	struct fsplit_snap fs2;
	memset(&bs, 0, sizeof(bs));
	memset(&fs2, 0, sizeof(fs2));
	struct ctl_reader rd = { { 0 } };
	char err[128];
	int rc = 0;
	for (char *line = strtok(buf, "\n"); line && (rc = ctl_read_line_fused(&rd, &bs, &fs2, line, err, sizeof(err))) == 0;)
		line = strtok(NULL, "\n");
	CHECK(rc == 1, "round trip ends at END (%d %s)", rc, rc < 0 ? err : "");
	CHECK(fs2.have && fs2.rpcs == 102 && fs2.unsplit == 1 && fs2.n == s.n, "round trip: totals and rows");
	for (size_t i = 0; i < s.n && i < fs2.n; i++)
		CHECK(!memcmp(&s.rows[i], &fs2.rows[i], sizeof(s.rows[i])), "round trip row %zu", i);   /* calloc'ed and memset: no stray padding */
	free(buf);

	/* a reader without a place for them (as before 2.1) skips them */
	struct ctl_reader old = { { 0 } };
	char ft[] = "FT\t1\t0\t0", fl[] = "F\top\tx\trdma\t7\t0\t1\t1\t5";
	CHECK(ctl_read_line(&old, &bs, ft, err, sizeof(err)) == 0 && ctl_read_line(&old, &bs, fl, err, sizeof(err)) == 0,
	      "no fused place: FT and F skipped");
	/* hostile lines: refused with the reason */
	struct fsplit_snap fs3;
	memset(&fs3, 0, sizeof(fs3));
	struct ctl_reader r3 = { { 0 } };
	char good[512], line[512];
	/* 1 RPC of 5 ns, all in client_queue (fields 16 and 26) */
	size_t gl = (size_t)snprintf(good, sizeof(good), "F\top\tNFSv3 READ\trdma\t7\t0\t1\t1\t5");
	for (int k = 9; k < 36; k++)
		gl += (size_t)snprintf(good + gl, sizeof(good) - gl, "\t%d", k == 16 || k == 26 ? 5 : 0);
	snprintf(line, sizeof(line), "%s", good);
	CHECK(ctl_read_line_fused(&r3, &bs, &fs3, line, err, sizeof(err)) < 0, "F before FT refused");
	snprintf(line, sizeof(line), "FT\t1\t0\t0");
	CHECK(ctl_read_line_fused(&r3, &bs, &fs3, line, err, sizeof(err)) == 0 && fs3.have, "FT");
	snprintf(line, sizeof(line), "%s", good);
	CHECK(ctl_read_line_fused(&r3, &bs, &fs3, line, err, sizeof(err)) == 0 && fs3.n == 1 && fs3.rows[0].phase[0] == 5 &&
	      fs3.rows[0].tail[0] == 5, "a good F line (%s)", err);
	static const char *const bad[] = {
		"F\top\tNFSv3 READ\trdma\t9\t0\t1",               /* short */
		"F\tconn\tx\trdma\t7\t0\t1\t1\t5",                /* not a fused dimension */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s", bad[i]);
		CHECK(ctl_read_line_fused(&r3, &bs, &fs3, line, err, sizeof(err)) == -EPROTO && strstr(err, "fused"), "bad %zu", i);
	}
	/* one field wrong at a time in the good line */
	static const struct { int field; const char *v; } mut[] = {
		{ 1, "series" }, { 3, "ib" }, { 4, "0" }, { 4, "8" }, { 5, "512" }, { 6, "1024" }, { 7, "0" },
		{ 12, "2" } /* tail RPCs above RPCs */, { 16, "x" },
	};
	for (size_t i = 0; i < sizeof(mut) / sizeof(mut[0]); i++) {
		char *fld[64];
		int n = 0;
		snprintf(line, sizeof(line), "%s", good);
		for (char *p = strtok(line, "\t"); p && n < 64; p = strtok(NULL, "\t"))
			fld[n++] = p;
		char out[512] = "";
		for (int k = 0; k < n; k++) {
			strcat(out, k ? "\t" : "");
			strcat(out, k == mut[i].field ? mut[i].v : fld[k]);
		}
		CHECK(ctl_read_line_fused(&r3, &bs, &fs3, out, err, sizeof(err)) == -EPROTO, "field %d = %s refused", mut[i].field,
		      mut[i].v);
	}
	CHECK_EQ_U64(fs3.n, 1);

	/* greetings: 2.1, and 2 (a daemon before 2.1) */
	CHECK(ctl_parse_greeting("NFSRDMA-CTL 2.1") == 2 && ctl_greeting_minor("NFSRDMA-CTL 2.1") == 1, "2.1");
	CHECK(ctl_parse_greeting("NFSRDMA-CTL 2") == 2 && ctl_greeting_minor("NFSRDMA-CTL 2") == 0, "2");
	fsplit_snap_free(&fs2);
	fsplit_snap_free(&fs3);
	agg_snap_free(&bs);
	fsplit_snap_free(&s);
	fsplit_free(f);

	verdict_rows();

	/* bounded: two rows at most; a third key is counted, not split */
	f = fsplit_new(2);
	rec(&r, 2, REC_VT_ALL, 0);
	phases(&r, REC_FP_NET_OUT, 1, REC_FP_EXECUTE, 1);
	fsplit_add(f, &r);   /* op, client: the two rows; server: overflow */
	rec(&r, 3, REC_VT_ALL, 0);
	phases(&r, REC_FP_NET_OUT, 1, REC_FP_EXECUTE, 1);
	fsplit_add(f, &r);   /* op row found; client and server: overflow */
	CHECK(fsplit_snapshot(f, &s) == 0 && s.n == 2 && s.overflow == 3 && s.rpcs == 2, "bounded (%zu rows, %" PRIu64 ")",
	      s.n, s.overflow);
	CHECK(s.rows[0].n == 2 && s.rows[1].n == 1, "the op row has both RPCs");
	size_t mem = fsplit_memory(f);
	for (int i = 0; i < 1000; i++) {
		rec(&r, 4 + (unsigned)(i % 200), REC_VT_ALL, 0);
		phases(&r, REC_FP_NET_OUT, 1, REC_FP_EXECUTE, 1);
		fsplit_add(f, &r);
	}
	CHECK(fsplit_memory(f) == mem, "memory flat once full (%zu -> %zu)", mem, fsplit_memory(f));
	fsplit_snap_free(&s);
	fsplit_free(f);
	return check_summary("fsplit");
}
