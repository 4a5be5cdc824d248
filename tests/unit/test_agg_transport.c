/* One client (and server) over RDMA and over TCP is two rows of the
 * aggregation, named as the dissector's -z client names them ("10.0.0.2",
 * "10.0.0.2 tcp"); the same procedure between the same two addresses over
 * both transports is two operation rows, whichever comes first (the
 * route cache keys on the transport too). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dissect/record.h"
#include "src/stats/agg.h"

#define MS 1000000ull

/* An answered NFSv3 GETATTR from 10.0.0.2 to 10.0.0.1 over tr. */
static void rec(struct nfsrdma_record *r, uint32_t xid, unsigned tr, uint64_t t0, uint64_t ms)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_WIRE;
	r->transport = (uint8_t)tr;
	r->flags = RECF_CALL | RECF_REPLY;
	r->xid = xid;
	r->conn_id = tr + 1;
	r->prog = 100003;
	r->vers = 3;
	r->proc = 1;
	r->caller.family = r->callee.family = 4;
	r->caller.addr[0] = r->callee.addr[0] = 10;
	r->caller.addr[3] = 2;
	r->callee.addr[3] = 1;
	if (tr != REC_TR_RDMA)
		r->caller.ip_proto = r->callee.ip_proto = tr == REC_TR_TCP ? 6 : 17;
	r->t_call_first = r->t_call_last = t0;
	r->t_reply_first = r->t_reply_last = t0 + ms * MS;
	rec_derive(r);
}

static const struct agg_row *row(const struct agg_snap *s, enum agg_dim d, const char *key)
{
	for (size_t i = 0; i < s->nrows[d]; i++)
		if (!strcmp(s->rows[d][i].key, key))
			return &s->rows[d][i];
	return NULL;
}

int main(void)
{
	struct agg *a = agg_new(&(struct agg_config){ 0 });
	struct nfsrdma_record r;
	const uint64_t t0 = 1700000000000000000ull;

	CHECK(a != NULL, "agg_new");
	/* RDMA first, then TCP, then RDMA again: the route of the first must
	 * not take the TCP record */
	rec(&r, 1, REC_TR_RDMA, t0, 1);
	agg_add(a, &r, 0);
	for (uint32_t i = 0; i < 3; i++) {
		rec(&r, 10 + i, REC_TR_TCP, t0 + (i + 1) * MS, 5);
		agg_add(a, &r, 0);
	}
	rec(&r, 2, REC_TR_RDMA, t0 + 9 * MS, 1);
	agg_add(a, &r, 0);
	rec(&r, 20, REC_TR_UDP, t0 + 10 * MS, 2);
	agg_add(a, &r, 0);

	struct agg_snap s = { 0 };
	CHECK(agg_snapshot(a, 0, &s) == 0, "snapshot");
	const struct agg_row *c_rdma = row(&s, AGG_CLIENT, "10.0.0.2"), *c_tcp = row(&s, AGG_CLIENT, "10.0.0.2 tcp"),
			     *c_udp = row(&s, AGG_CLIENT, "10.0.0.2 udp");
	CHECK(s.nrows[AGG_CLIENT] == 3, "three client rows (%zu)", s.nrows[AGG_CLIENT]);
	CHECK(c_rdma && c_rdma->tot.records == 2, "client over RDMA: 2 records (%" PRIu64 ")",
	      c_rdma ? c_rdma->tot.records : 0);
	CHECK(c_tcp && c_tcp->tot.records == 3 && c_tcp->max == 5 * MS, "client over TCP: 3 records, max 5 ms");
	CHECK(c_udp && c_udp->tot.records == 1, "client over UDP: 1 record");
	const struct agg_row *s_rdma = row(&s, AGG_SERVER, "10.0.0.1"), *s_tcp = row(&s, AGG_SERVER, "10.0.0.1 tcp");
	CHECK(s.nrows[AGG_SERVER] == 3 && s_rdma && s_rdma->tot.records == 2 && s_tcp && s_tcp->tot.records == 3,
	      "server rows per transport too (%zu)", s.nrows[AGG_SERVER]);
	const struct agg_row *o_rdma = row(&s, AGG_OP, "NFSv3 GETATTR"), *o_tcp = row(&s, AGG_OP, "NFSv3 GETATTR tcp");
	CHECK(o_rdma && o_rdma->tot.records == 2 && o_rdma->max == 1 * MS, "op over RDMA: its 2 records only (%" PRIu64 ")",
	      o_rdma ? o_rdma->tot.records : 0);
	CHECK(o_tcp && o_tcp->tot.records == 3, "op over TCP: its 3 records (%" PRIu64 ")", o_tcp ? o_tcp->tot.records : 0);
	agg_snap_free(&s);
	agg_free(a);
	return check_summary("agg-transport");
}
