/* The aggregation engine keeps its entries, key maps and route caches in
 * one reserved region of its own (agg_new.c, agg_zalloc) and takes from
 * malloc once that is full.  Here a series limit of 70,000 makes the
 * series map alone take most of the region, so that of 6,000 series
 * entries the later ones come from malloc: every one must still count
 * its record, and agg_free must give back only what malloc gave (the
 * sanitizer tier runs this under AddressSanitizer). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dissect/record.h"
#include "src/stats/agg.h"

#define MS 1000000ull
#define NSERIES 6000u

/* An answered NFSv3 GETATTR of client 10.(i>>16).(i>>8).i to 10.0.0.1. */
static void rec(struct nfsrdma_record *r, uint32_t i, uint64_t t0)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_WIRE;
	r->transport = REC_TR_RDMA;
	r->flags = RECF_CALL | RECF_REPLY;
	r->xid = i + 1;
	r->conn_id = 1;
	r->prog = 100003;
	r->vers = 3;
	r->proc = 1;
	r->caller.family = r->callee.family = 4;
	r->caller.addr[0] = r->callee.addr[0] = 10;
	r->caller.addr[1] = (uint8_t)(i >> 16);
	r->caller.addr[2] = (uint8_t)(i >> 8);
	r->caller.addr[3] = (uint8_t)i;
	r->callee.addr[3] = 1;
	r->t_call_first = r->t_call_last = t0;
	r->t_reply_first = r->t_reply_last = t0 + (1 + i % 7) * MS;
	rec_derive(r);
}

int main(void)
{
	struct agg_config c = { 0 };
	c.max_keys[AGG_SERIES] = 70000;
	struct agg *a = agg_new(&c);
	struct nfsrdma_record r;
	const uint64_t t0 = 1700000000000000000ull;

	CHECK(a != NULL, "agg_new with a series map of 70,000 keys");
	if (!a)
		return check_summary("agg-region");
	for (uint32_t i = 0; i < NSERIES; i++) {
		rec(&r, i, t0 + i * MS);
		agg_add(a, &r, 0);
	}
	/* the same clients again: their entries found, wherever they live */
	for (uint32_t i = 0; i < NSERIES; i += 3) {
		rec(&r, i, t0 + (NSERIES + i) * MS);
		agg_add(a, &r, 0);
	}

	struct agg_snap s = { 0 };
	CHECK(agg_snapshot(a, 0, &s) == 0, "snapshot");
	CHECK_EQ_U64(s.nrows[AGG_SERIES], NSERIES);
	uint64_t total = 0, twice = 0, bad = 0;
	for (size_t i = 0; i < s.nrows[AGG_SERIES]; i++) {
		const struct agg_row *row = &s.rows[AGG_SERIES][i];
		total += row->tot.records;
		twice += row->tot.records == 2;
		bad += row->tot.records < 1 || row->tot.records > 2 || row->tot.lat_n != row->tot.records;
	}
	CHECK_EQ_U64(total, NSERIES + NSERIES / 3);
	CHECK_EQ_U64(twice, NSERIES / 3);
	CHECK_EQ_U64(bad, 0);
	/* the client table (1,024 by default) overflows into "(other)" */
	CHECK_EQ_U64(s.t.tot.records, NSERIES + NSERIES / 3);
	CHECK(s.t.overflow[AGG_CLIENT] > 0, "clients past the limit folded (%" PRIu64 ")",
	      s.t.overflow[AGG_CLIENT]);
	agg_snap_free(&s);
	agg_free(a);
	return check_summary("agg-region");
}
