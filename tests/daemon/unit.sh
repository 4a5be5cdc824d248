#!/usr/bin/env bash
# Unit checks of the histogram, aggregation engine and control protocol,
# against values computed independently here (sorted samples, hand sums),
# never against the code's own output.  Builds a small C driver against
# the library.  Tier: unit.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
NAME=daemon-unit
[ -f "$O/libnfsrdma.a" ] || cannot $NAME "$O/libnfsrdma.a not built"
cat >"$TMP/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/stats/agg.h"
#include "src/stats/ctl_proto.h"
#include "src/stats/hist.h"
static int pass, fail;
#define CHECK(c, ...) do { if (c) pass++; else { fail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)
static int cmp(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return x < y ? -1 : x > y; }
int main(void)
{
	/* percentiles: never below the exact nearest rank, above it by less than
	 * the 1/32 bucket resolution (hist.h: upper bound of the rank's bucket) */
	static uint64_t v[10000]; struct hist h, h1, h2;
	CHECK(hist_init(&h, HIST_RES) == 0 && hist_init(&h1, HIST_RES) == 0 && hist_init(&h2, HIST_RES) == 0 && hist_init(&h2, 0) < 0 && hist_init(&h2, HIST_RES) == 0, "init");
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 10000; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		v[i] = 1000 + x % 50000000;   /* 1 us .. 50 ms */
		hist_add(&h, v[i]); hist_add(i % 2 ? &h1 : &h2, v[i]);
	}
	qsort(v, 10000, sizeof(v[0]), cmp);
	double ps[] = { 0.5, 0.9, 0.99, 0.999 };
	for (int i = 0; i < 4; i++) {
		uint64_t exact = v[(size_t)(ps[i] * 10000 + 0.999999) - 1], got = hist_pct(&h, ps[i]);
		CHECK(got >= exact && (double)(got - exact) / (double)exact < 1.0 / 32, "p%g: exact %llu got %llu", ps[i] * 100, (unsigned long long)exact, (unsigned long long)got);
	}
	CHECK(hist_pct(&h, 1.0) == v[9999] && h.max == v[9999], "max exact");
	CHECK(hist_merge(&h1, &h2) == 0, "merge same resolution");
	int same = 1;
	for (unsigned i = 0; i < hist_nbuckets(HIST_RES); i++) same = same && hist_count(&h1, i) == hist_count(&h, i);
	CHECK(same && h1.n == h.n && h1.sum == h.sum && h1.max == h.max && h1.min == h.min, "merge = whole");
	CHECK(hist_index(HIST_RES, 15) == 15 && hist_bucket_lo(HIST_RES, hist_index(HIST_RES, 1u << 20)) == 1u << 20, "bucket bounds");
	/* 1000 = 0b1111101000: in [2^9, 2^10), buckets 2^(9-5) = 16 wide: [992, 1007] */
	CHECK(hist_bucket_lo(HIST_RES, hist_index(HIST_RES, 1000)) == 992 && hist_bucket_hi(HIST_RES, hist_index(HIST_RES, 1000)) == 1007, "bucket of 1000 is [992, 1007]");
	CHECK(hist_count_le(&h, v[9999]) == 10000, "count_le(max) = n");
	{	/* the rank's bucket bound, capped at max: 1000 x9 and 5000 -> p50 1007, p90 1007, p99 5000 */
		struct hist s4; hist_init(&s4, HIST_RES);
		for (int i = 0; i < 9; i++) hist_add(&s4, 1000);
		hist_add(&s4, 5000);
		CHECK(hist_pct(&s4, 0.5) == 1007 && hist_pct(&s4, 0.9) == 1007 && hist_pct(&s4, 0.99) == 5000 && hist_pct(&s4, 1.0) == 5000, "p50/p90/p99 of 9x1000+5000");
		struct hist o; hist_init(&o, HIST_RES + 1);
		CHECK(hist_merge(&o, &s4) < 0, "merge across resolutions refused");
		hist_reset(&s4);
		CHECK(s4.n == 0 && hist_pct(&s4, 0.5) == 0 && s4.res == HIST_RES && hist_count(&s4, hist_index(HIST_RES, 1000)) == 0, "reset empties, keeps resolution");
		/* memory follows the data: 1000 and 5000 are in two powers of two */
		hist_add(&s4, 1000); hist_add(&s4, 1001); hist_add(&s4, 5000);
		CHECK(s4.bytes == 2 * (sizeof(uint64_t) << HIST_RES) && s4.lost == 0, "two chunks for two powers of two (%zu bytes)", s4.bytes);
		/* a reset clears only the chunks from min's to max's: after samples in
		 * chunks far apart, a reset, a sample in a third chunk and another
		 * reset, every bucket reads zero and a merge of it adds nothing */
		hist_add(&s4, 3); hist_add(&s4, 50000000); hist_add(&s4, 1200); hist_add(&s4, 1400);
		hist_reset(&s4); hist_add(&s4, 70000); hist_reset(&s4);
		hist_add(&s4, 200);
		int zero = 1;
		for (unsigned i = 0; i < hist_nbuckets(HIST_RES); i++) zero = zero && hist_count(&s4, i) == (i == hist_index(HIST_RES, 200));
		CHECK(zero && s4.n == 1 && s4.bytes == 7 * (sizeof(uint64_t) << HIST_RES), "resets leave only the last sample (%zu bytes)", s4.bytes);
		struct hist m; hist_init(&m, HIST_RES); hist_add(&m, 1000); hist_reset(&m);
		CHECK(hist_merge(&m, &s4) == 0 && hist_count(&m, hist_index(HIST_RES, 1000)) == 0 && hist_count(&m, hist_index(HIST_RES, 200)) == 1 && m.n == 1, "merge into a reset histogram");
		hist_free(&m);
		hist_free(&s4); hist_free(&o);
	}
	hist_free(&h); hist_free(&h1); hist_free(&h2);

	/* aggregation: 3 READs (1 error) + 2 GETATTRs from two clients */
	struct agg *a = agg_new(&(struct agg_config){ .max_keys = { 0, 1, 0, 0, 0 } });
	struct nfsrdma_record r; memset(&r, 0, sizeof(r));
	r.flags = RECF_CALL | RECF_REPLY; r.prog = 100003; r.vers = 3; r.status = 0;
	r.caller.family = 4; r.callee.family = 4; r.callee.addr[0] = 10; r.callee.addr[3] = 1;
	uint64_t t = 1700000000000000000ull;
	for (int i = 0; i < 5; i++) {
		r.proc = i < 3 ? 6 : 1; r.caller.addr[0] = 10; r.caller.addr[3] = (uint8_t)(2 + i % 2);
		r.status = i == 0 ? 2 : 0; r.d_total = 1000000u * (i + 1); r.d_phase[REC_PH_SERVER] = r.d_phase[REC_PH_PULL] = r.d_total / 2; r.phase_mask = 1u << REC_PH_SERVER | 1u << REC_PH_PULL | 1u << REC_PH_N;
		r.call_inline = 100; r.read_bytes = i < 3 ? 4096 : 0;
		agg_add(a, &r, t + i * 100000000ull);
	}
	struct agg_snap s; CHECK(agg_snapshot(a, t + 500000000ull, &s) == 0, "snapshot");
	CHECK(s.t.tot.records == 5 && s.t.tot.errors == 1 && s.t.tot.bytes_ddp == 3 * 4096 && s.t.tot.bytes_inline == 500, "totals");
	CHECK(s.nrows[AGG_OP] == 2, "2 op rows (%zu)", s.nrows[AGG_OP]);
	/* one client row allowed: the second client folds into (other), counted */
	CHECK(s.nrows[AGG_CLIENT] == 2 && !strcmp(s.rows[AGG_CLIENT][1].key, "(other)") && s.t.overflow[AGG_CLIENT] == 2, "client overflow");
	const struct agg_row *rd = !strcmp(s.rows[AGG_OP][0].key, "NFSv3 READ") ? &s.rows[AGG_OP][0] : &s.rows[AGG_OP][1];
	CHECK(!strcmp(rd->key, "NFSv3 READ") && rd->tot.records == 3 && rd->max == 3000000 && rd->phase_mean[REC_PH_SERVER] == 1000000 && rd->phase_mean[REC_PH_PULL] == 1000000, "READ row");
	/* all five arrive within the first 1-s slot: the window is that one second */
	CHECK(rd->rate > 2.99 && rd->rate < 3.01 && s.win_s == 1.0, "window rate 3 READs in 1 s: %f", rd->rate);

	/* control protocol round trip */
	char *buf = NULL; size_t len = 0; FILE *f = open_memstream(&buf, &len);
	ctl_write_snap(f, &s); fclose(f);
	struct agg_snap b; memset(&b, 0, sizeof(b)); struct ctl_reader rdr = { { 0 } }; char err[128];
	int rc = 0; char *line = strtok(buf, "\n");
	while (line && (rc = ctl_read_line(&rdr, &b, line, err, sizeof(err))) == 0) line = strtok(NULL, "\n");
	CHECK(rc == 1, "round trip ends at END (%d %s)", rc, rc < 0 ? err : "");
	CHECK(b.t.tot.records == 5 && b.nrows[AGG_OP] == 2 && b.nrows[AGG_CONN] == s.nrows[AGG_CONN] && b.nslow == s.nslow, "round trip content");
	CHECK(!strcmp(b.rows[AGG_OP][0].key, s.rows[AGG_OP][0].key) && b.rows[AGG_OP][0].p99 == s.rows[AGG_OP][0].p99, "round trip row");
	char bad[] = "R\top\tx\t1\t2";
	CHECK(ctl_read_line(&rdr, &b, bad, err, sizeof(err)) < 0, "short row rejected");
	char g1[] = "NFSRDMA-CTL 1", g2[] = "HELLO 1";
	CHECK(ctl_parse_greeting(g1) == 1 && ctl_parse_greeting(g2) < 0, "greeting");
	free(buf); agg_snap_free(&s); agg_snap_free(&b); agg_free(a);

	/* numeric keys: NFSv4 NULL under minor versions 0 and 1 is one row
	 * "NFSv4 NULL" (names decide rows, numbers only find them); a flood of
	 * distinct clients past max_keys folds into (other), every record
	 * counted, and memory stops growing once the tables are full */
	a = agg_new(&(struct agg_config){ .max_keys = { 0, 4, 0, 0, 0 } });
	memset(&r, 0, sizeof(r));
	r.flags = RECF_CALL | RECF_REPLY; r.prog = 100003; r.vers = 4; r.proc = 0;
	r.caller.family = 4; r.caller.addr[0] = 10; r.callee.family = 4; r.callee.addr[0] = 10; r.callee.addr[3] = 1;
	r.d_total = 5000;
	for (int i = 0; i < 2; i++) { r.minorvers = (uint32_t)i; agg_add(a, &r, t); }
	size_t mem0 = 0;
	for (int i = 0; i < 20000; i++) {
		r.caller.addr[1] = (uint8_t)(i >> 8); r.caller.addr[2] = (uint8_t)i; r.caller.addr[3] = 7;
		agg_add(a, &r, t + 1);
		if (i == 9999) mem0 = agg_memory(a);
	}
	CHECK(agg_snapshot(a, t + 2, &s) == 0, "snapshot after flood");
	CHECK(s.nrows[AGG_OP] == 1 && !strcmp(s.rows[AGG_OP][0].key, "NFSv4 NULL") && s.rows[AGG_OP][0].tot.records == 20002,
	      "NFSv4 NULL minor 0 and 1: one row of 20002 (%zu rows, %s)", s.nrows[AGG_OP], s.nrows[AGG_OP] ? s.rows[AGG_OP][0].key : "-");
	/* 10.0.0.0 (2 records), then 20000 clients 10.x.y.7: 3 of them get the
	 * remaining rows, the other 19997 fold into (other) */
	CHECK(s.nrows[AGG_CLIENT] == 5 && s.t.overflow[AGG_CLIENT] == 19997 && s.rows[AGG_CLIENT][0].tot.records == 2 &&
	      !strcmp(s.rows[AGG_CLIENT][4].key, "(other)") && s.rows[AGG_CLIENT][4].tot.records == 19997,
	      "client flood: 4 rows + (other), overflow %llu", (unsigned long long)s.t.overflow[AGG_CLIENT]);
	CHECK(!strcmp(s.rows[AGG_CLIENT][1].key, "10.0.0.7") && !strcmp(s.rows[AGG_CLIENT][2].key, "10.0.1.7"),
	      "client rows named once, from the numbers: %s %s", s.rows[AGG_CLIENT][1].key, s.rows[AGG_CLIENT][2].key);
	CHECK(agg_memory(a) == mem0, "memory flat after the tables filled (%zu vs %zu)", agg_memory(a), mem0);
	CHECK(s.nslow >= 1 && !strcmp(s.slow[0].op, "NFSv4 NULL") && !strcmp(s.slow[0].server, "10.0.0.1"),
	      "slow list named at snapshot: %s %s", s.nslow ? s.slow[0].op : "-", s.nslow ? s.slow[0].server : "-");
	agg_snap_free(&s); agg_free(a);
	/* a record like the one before (same connection, operation and QPs)
	 * lands where it did, and a fold into (other) is counted every time */
	a = agg_new(&(struct agg_config){ .max_keys = { 0, 1, 0, 0, 0 } });
	r.caller.addr[1] = 1; r.caller.addr[2] = 1;
	agg_add(a, &r, t);
	r.caller.addr[2] = 2;
	for (int i = 0; i < 3; i++) agg_add(a, &r, t + 1);
	CHECK(agg_snapshot(a, t + 2, &s) == 0, "snapshot, repeated fold");
	CHECK(s.nrows[AGG_CLIENT] == 2 && s.t.overflow[AGG_CLIENT] == 3 && s.rows[AGG_CLIENT][1].tot.records == 3 &&
	      s.rows[AGG_CLIENT][0].tot.records == 1 && s.nrows[AGG_SERIES] == 2 && s.rows[AGG_SERIES][1].tot.records == 3,
	      "3 records of one folded client: overflow %llu", (unsigned long long)s.t.overflow[AGG_CLIENT]);
	agg_snap_free(&s); agg_free(a);
	/* connections past max_keys: a new RDMA connection folds into (other),
	 * a known one keeps its row */
	a = agg_new(&(struct agg_config){ .max_keys = { 0, 0, 0, 1, 0 } });
	memset(&r, 0, sizeof(r));
	r.flags = RECF_CALL | RECF_REPLY; r.prog = 100003; r.vers = 3; r.proc = 1; r.d_total = 5000;
	r.caller.family = 4; r.caller.addr[0] = 10; r.caller.addr[3] = 2;
	r.callee.family = 4; r.callee.addr[0] = 10; r.callee.addr[3] = 1;
	r.conn_id = 1; r.caller.qpn = 17; r.callee.qpn = 18;
	agg_add(a, &r, t);
	r.conn_id = 2; r.caller.qpn = 19; r.callee.qpn = 20;
	agg_add(a, &r, t); agg_add(a, &r, t);
	r.conn_id = 1; r.caller.qpn = 17; r.callee.qpn = 18;
	agg_add(a, &r, t);
	CHECK(agg_snapshot(a, t + 1, &s) == 0, "snapshot, connections past max_keys");
	CHECK(s.nrows[AGG_CONN] == 2 && !strcmp(s.rows[AGG_CONN][0].key, "1 10.0.0.2.qp17 <> 10.0.0.1.qp18") &&
	      s.rows[AGG_CONN][0].tot.records == 2 && !strcmp(s.rows[AGG_CONN][1].key, "(other)") &&
	      s.rows[AGG_CONN][1].tot.records == 2 && s.t.overflow[AGG_CONN] == 2,
	      "RDMA connections: 1 row of 2 + (other) of 2, overflow %llu (%s)", (unsigned long long)s.t.overflow[AGG_CONN],
	      s.nrows[AGG_CONN] ? s.rows[AGG_CONN][0].key : "-");
	agg_snap_free(&s); agg_free(a);
	/* a TCP endpoint shows its port, not its QP: a record of a known TCP
	 * connection with another QP (another numeric key) has that
	 * connection's key string, so it is the connection's row, not (other);
	 * the key ends with the transport, as nfsrdma-dissect -z conn's */
	a = agg_new(&(struct agg_config){ .max_keys = { 0, 0, 0, 1, 0 } });
	r.conn_id = 3; r.caller.ip_proto = r.callee.ip_proto = 6; r.caller.port = 800; r.callee.port = 2049;
	r.transport = REC_TR_TCP;
	r.caller.qpn = 5; r.callee.qpn = 0;
	agg_add(a, &r, t);
	r.caller.qpn = 0;
	agg_add(a, &r, t);
	r.conn_id = 4;
	agg_add(a, &r, t);
	CHECK(agg_snapshot(a, t + 1, &s) == 0, "snapshot, TCP connections past max_keys");
	CHECK(s.nrows[AGG_CONN] == 2 && !strcmp(s.rows[AGG_CONN][0].key, "3 10.0.0.2.800 <> 10.0.0.1.2049 tcp") &&
	      s.rows[AGG_CONN][0].tot.records == 2 && s.rows[AGG_CONN][1].tot.records == 1 && s.t.overflow[AGG_CONN] == 1,
	      "TCP connection under two QPs: 1 row of 2 + (other) of 1, overflow %llu (%s)",
	      (unsigned long long)s.t.overflow[AGG_CONN], s.nrows[AGG_CONN] ? s.rows[AGG_CONN][0].key : "-");
	agg_snap_free(&s); agg_free(a);
	/* window divisor (agg.h): record clock (snapshot at 0) = the records'
	 * span, earliest call to latest record; wall clock = time since the
	 * first record while younger than the window, not rounded to slots */
	a = agg_new(NULL);
	memset(&r, 0, sizeof(r));
	r.flags = RECF_CALL | RECF_REPLY; r.prog = 100003; r.vers = 3; r.proc = 1;
	r.caller.family = 4; r.callee.family = 4;
	uint64_t t0 = t + 300000000ull;   /* 0.3 s into a slot */
	uint64_t reply_at[3] = { 500000000ull, 1200000000ull, 2500000000ull };
	for (int i = 0; i < 3; i++) {
		r.t_call_first = t0 + (i ? reply_at[i - 1] : 0); r.t_reply_last = t0 + reply_at[i];
		r.d_total = r.t_reply_last - r.t_call_first;
		agg_add(a, &r, r.t_reply_last);
	}
	CHECK(agg_snapshot(a, 0, &s) == 0 && s.win_s > 2.4999 && s.win_s < 2.5001 && s.rate > 1.1999 && s.rate < 1.2001,
	      "record clock: 3 records over 2.5 s: window %f rate %f", s.win_s, s.rate);
	/* Little's law: 0.5 + 0.7 + 1.3 s of latency over 2.5 s = 1.0 in flight */
	CHECK(s.nrows[AGG_OP] == 1 && s.rows[AGG_OP][0].inflight > 0.9999 && s.rows[AGG_OP][0].inflight < 1.0001,
	      "record clock: in flight %f", s.nrows[AGG_OP] ? s.rows[AGG_OP][0].inflight : -1);
	agg_snap_free(&s);
	CHECK(agg_snapshot(a, t0 + 500000000ull + 3000000000ull, &s) == 0 && s.win_s > 2.9999 && s.win_s < 3.0001,
	      "wall clock: 3 s since the first record: window %f", s.win_s);
	agg_snap_free(&s); agg_free(a);
	a = agg_new(NULL);
	r.t_call_first = t0; r.t_reply_last = t0 + 1000; agg_add(a, &r, r.t_reply_last);
	CHECK(agg_snapshot(a, 0, &s) == 0 && s.win_s == 1.0, "record clock: 1 us of records: one slot (%f)", s.win_s);
	agg_snap_free(&s);
	for (int i = 1; i <= 30; i++) {
		r.t_call_first = t0 + i * 1000000000ull; r.t_reply_last = r.t_call_first + 1000; agg_add(a, &r, r.t_reply_last);
	}
	CHECK(agg_snapshot(a, 0, &s) == 0 && s.win_s <= 10.0 && s.win_s >= 8.99 && s.t.tot.records == 31,
	      "record clock: 30 s of records: window at most the 10 slots (%f)", s.win_s);
	agg_snap_free(&s); agg_free(a);
	{	/* an operation's window percentiles are those of the totals in
		 * the live slots, while few (the engine keeps them as samples)
		 * and once more than AGG_WRING are live (one histogram a slot) */
		static const int per_sec[] = { 1, 3, 0, 2, 5, 1, 0, 0, 0, 0, 0, 0, 40, 7, 90, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 };
		static uint64_t tot_of[400], slot_of[400];
		int n = 0, ok = 1;
		a = agg_new(NULL);
		for (int sec = 0; sec < (int)(sizeof(per_sec) / sizeof(per_sec[0])); sec++) {
			uint64_t slot = 100 + (uint64_t)sec;
			for (int j = 0; j < per_sec[sec]; j++, n++) {
				r.t_reply_last = slot * 1000000000ull + 1000ull * (uint64_t)j;
				r.d_total = 1000 + (uint64_t)n * 7919 % 3000000;
				r.t_call_first = r.t_reply_last - r.d_total;
				agg_add(a, &r, r.t_reply_last);
				tot_of[n] = r.d_total; slot_of[n] = slot;
			}
			struct hist w; hist_init(&w, HIST_RES);
			for (int k = 0; k < n; k++)
				if (slot_of[k] + 10 > slot)
					hist_add(&w, tot_of[k]);
			CHECK(agg_snapshot(a, slot * 1000000000ull + 999999999ull, &s) == 0 && s.nrows[AGG_OP] == 1, "window snapshot %d", sec);
			if (s.nrows[AGG_OP] == 1 && (s.rows[AGG_OP][0].wp50 != hist_pct(&w, 0.5) || s.rows[AGG_OP][0].wp99 != hist_pct(&w, 0.99))) {
				ok = 0;
				printf("second %d: window p50 %llu p99 %llu, its %llu samples' %llu %llu\n", sec,
				       (unsigned long long)s.rows[AGG_OP][0].wp50, (unsigned long long)s.rows[AGG_OP][0].wp99, (unsigned long long)w.n,
				       (unsigned long long)hist_pct(&w, 0.5), (unsigned long long)hist_pct(&w, 0.99));
			}
			agg_snap_free(&s); hist_free(&w);
		}
		CHECK(ok, "window percentiles = those of the live slots' totals, few and many");
		agg_free(a);
	}
	{	/* the slowest list: a full list's expired entries are replaced
		 * first, in the list's order, whatever the new record's total;
		 * then only a record slower than the fastest, in its place */
		a = agg_new(NULL);
		uint64_t xid_at[8];
		for (uint32_t k = 0; k < 20; k++) {
			r.xid = k; r.d_total = 1000 * (k + 1); r.t_reply_last = 100000000000ull + k; r.t_call_first = r.t_reply_last - r.d_total;
			agg_add(a, &r, r.t_reply_last);
		}
		r.xid = 99; r.d_total = 500; r.t_reply_last = 101000000000ull; r.t_call_first = r.t_reply_last - r.d_total;
		agg_add(a, &r, r.t_reply_last);
		for (uint32_t k = 0; k < 4; k++) {   /* 90 s later: all 20 have expired */
			r.xid = 200 + k; r.d_total = 40 - 10 * k; r.t_reply_last = 200000000000ull + k; r.t_call_first = r.t_reply_last - r.d_total;
			agg_add(a, &r, r.t_reply_last);
		}
		CHECK(agg_snapshot(a, 0, &s) == 0 && s.nslow == 20, "slowest list full");
		for (int i = 0; i < 8; i++) xid_at[i] = s.slow[i].xid;
		CHECK(xid_at[0] == 200 && xid_at[1] == 201 && xid_at[2] == 202 && xid_at[3] == 203 && xid_at[4] == 4,
		      "expired entries replaced in order: %llu %llu %llu %llu %llu", (unsigned long long)xid_at[0], (unsigned long long)xid_at[1],
		      (unsigned long long)xid_at[2], (unsigned long long)xid_at[3], (unsigned long long)xid_at[4]);
		int fast_in = 0;
		for (size_t i = 0; i < s.nslow; i++) fast_in |= s.slow[i].xid == 99;
		CHECK(!fast_in, "a record faster than a full live list is turned away");
		agg_snap_free(&s);
		for (uint32_t k = 4; k < 20; k++) {
			r.xid = 200 + k; r.d_total = 100 + k; r.t_reply_last = 200000000000ull + k; r.t_call_first = r.t_reply_last - r.d_total;
			agg_add(a, &r, r.t_reply_last);
		}
		r.xid = 300; r.d_total = 15; r.t_reply_last = 201000000000ull; r.t_call_first = r.t_reply_last - r.d_total;
		agg_add(a, &r, r.t_reply_last);   /* slower than 203's 10: in its place */
		r.xid = 301; r.d_total = 12; r.t_reply_last = 201000000001ull; r.t_call_first = r.t_reply_last - r.d_total;
		agg_add(a, &r, r.t_reply_last);   /* slower than none: 15, 20, 30, 40 and 104.. */
		CHECK(agg_snapshot(a, 0, &s) == 0 && s.nslow == 20 && s.slow[3].xid == 300 && s.slow[2].xid == 202 && s.slow[19].xid == 219,
		      "then the fastest live entry gives way: [3] = %u", s.slow[3].xid);
		fast_in = 0;
		for (size_t i = 0; i < s.nslow; i++) fast_in |= s.slow[i].xid == 301 || s.slow[i].xid < 200;
		CHECK(!fast_in, "no expired entry left, the faster record turned away");
		agg_snap_free(&s); agg_free(a);
	}
	{	/* the slowest list's oldest live entry replaced as its fastest:
		 * the entries that expire later are still found, and the new
		 * one (live) kept */
		a = agg_new(NULL);
		const uint64_t t0 = 100000000000ull;
		for (uint32_t k = 0; k < 20; k++) {   /* the oldest is the fastest */
			r.xid = k; r.d_total = 1000 * (k + 1); r.t_reply_last = t0 + k; r.t_call_first = r.t_reply_last - r.d_total;
			agg_add(a, &r, r.t_reply_last);
		}
		r.xid = 50; r.d_total = 5000000; r.t_reply_last = t0 + 5000000000ull; r.t_call_first = r.t_reply_last - r.d_total;
		agg_add(a, &r, r.t_reply_last);   /* into [0], 5 s later */
		r.xid = 51; r.d_total = 1500; r.t_reply_last = t0 + 10000000100ull; r.t_call_first = r.t_reply_last - r.d_total;
		agg_add(a, &r, r.t_reply_last);   /* 10 s after [1..19]: they have expired, [0] has not */
		r.xid = 52; r.d_total = 1; r.t_reply_last = t0 + 10000000101ull; r.t_call_first = r.t_reply_last - r.d_total;
		agg_add(a, &r, r.t_reply_last);
		CHECK(agg_snapshot(a, 0, &s) == 0 && s.nslow == 20 && s.slow[0].xid == 50 && s.slow[1].xid == 51 && s.slow[2].xid == 52 &&
		      s.slow[3].xid == 3,
		      "after the oldest gave way, the expired entries still go first: %u %u %u %u", s.slow[0].xid, s.slow[1].xid,
		      s.slow[2].xid, s.slow[3].xid);
		agg_snap_free(&s); agg_free(a);
	}
	for (unsigned sm = 0; sm < 2; sm++) {
		/* client and server rows hold every record of theirs, whether its
		 * series has a row of its own or (two series rows at most) not:
		 * counts, window rate, percentiles and the last credits granted */
		a = agg_new(&(struct agg_config){ .max_keys = { 0, 0, 0, 0, sm ? 2 : 0 } });
		memset(&r, 0, sizeof(r));
		r.flags = RECF_CALL | RECF_REPLY; r.prog = 100003; r.vers = 3;
		r.caller.family = 4; r.callee.family = 4; r.callee.addr[0] = 10; r.callee.addr[3] = 1;
		uint64_t want_n[2] = { 0, 0 }, want_max[2] = { 0, 0 }; uint16_t want_cr[2] = { 0, 0 };
		struct hist wl[2]; hist_init(&wl[0], HIST_RES); hist_init(&wl[1], HIST_RES);
		for (int i = 0; i < 12; i++) {
			r.proc = 1 + (uint32_t)i % 4; r.caller.addr[0] = 10; r.caller.addr[3] = (uint8_t)(2 + i % 2);
			r.d_total = 1000 * (uint64_t)(i * i + 1); r.credits_granted = (uint16_t)(i == 11 ? 0 : 20 + i);
			r.t_reply_last = t + (uint64_t)i * 1000; r.t_call_first = r.t_reply_last - r.d_total;
			agg_add(a, &r, r.t_reply_last);
			want_n[i % 2]++; want_max[i % 2] = r.d_total; hist_add(&wl[i % 2], r.d_total);
			if (r.credits_granted) want_cr[i % 2] = r.credits_granted;
		}
		CHECK(agg_snapshot(a, t + 500000000ull, &s) == 0 && s.nrows[AGG_CLIENT] == 2 && s.nrows[AGG_SERVER] == 1 &&
		      s.nrows[AGG_SERIES] == (sm ? 3u : 4u), "client, server and series rows (series max %u)", sm ? 2 : 4096);
		for (int c = 0; c < 2 && s.nrows[AGG_CLIENT] == 2; c++) {
			const struct agg_row *cr = &s.rows[AGG_CLIENT][c];
			CHECK(cr->tot.records == want_n[c] && cr->tot.lat_n == want_n[c] && cr->max == want_max[c] && cr->credits == want_cr[c] &&
			      cr->p50 == hist_pct(&wl[c], 0.5) && cr->p99 == hist_pct(&wl[c], 0.99) && cr->rate > 5.99 && cr->rate < 6.01,
			      "client %d (series max %u): %llu records, max %llu, credits %u, rate %f", c, sm ? 2 : 4096,
			      (unsigned long long)cr->tot.records, (unsigned long long)cr->max, cr->credits, cr->rate);
		}
		hist_merge(&wl[0], &wl[1]);
		if (s.nrows[AGG_SERVER] == 1) {
			const struct agg_row *sv = &s.rows[AGG_SERVER][0];
			CHECK(sv->tot.records == 12 && sv->max == 122000 && sv->credits == 30 && sv->p90 == hist_pct(&wl[0], 0.9),
			      "server row (series max %u): %llu records, credits %u", sm ? 2 : 4096, (unsigned long long)sv->tot.records, sv->credits);
		}
		hist_free(&wl[0]); hist_free(&wl[1]);
		agg_snap_free(&s); agg_free(a);
	}
	printf("%s: %d passed, %d failed\n", "daemon-unit-c", pass, fail);
	return fail != 0;
}
EOC
if ! cc -std=gnu11 -O1 -g -D_GNU_SOURCE -I"$SRC" "$TMP/t.c" -o "$TMP/t" "$O/libnfsrdma.a" \
	$(make -s --no-print-directory -C "$SRC" print-ldlibs) $( [ -n "${SANITIZE:-}" ] && echo -fsanitize=address,undefined ) 2>"$TMP/cc.err"; then
	cat "$TMP/cc.err"; cannot $NAME "driver does not build"
fi
"$TMP/t"
