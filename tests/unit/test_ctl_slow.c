/* The slowest-RPC list keeps which phases each RPC had (absent is not
 * zero): from the record through the aggregation's snapshot, over the
 * control protocol's S and SP lines (src/stats/ctl_proto.c), and the
 * reading of a daemon before 2.2, which sends no SP line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "dissect/record.h"
#include "src/stats/agg.h"
#include "src/stats/ctl_proto.h"

#define MS 1000000ull

/* An answered NFSv3 call from 10.0.0.2 to 10.0.0.1 at t0, with the times
 * its transport has (0: not seen). */
static void rec(struct nfsrdma_record *r, uint32_t xid, unsigned tr, uint64_t t0, uint64_t read_ms,
		uint64_t write_ms, uint64_t reply_ms)
{
	memset(r, 0, sizeof(*r));
	r->source = REC_SRC_WIRE;
	r->transport = (uint8_t)tr;
	r->flags = RECF_CALL | RECF_REPLY;
	r->xid = xid;
	r->prog = 100003;
	r->vers = 3;
	r->proc = read_ms || write_ms ? 6 : 1;
	r->caller.family = r->callee.family = 4;
	r->caller.addr[0] = r->callee.addr[0] = 10;
	r->caller.addr[3] = 2;
	r->callee.addr[3] = 1;
	r->t_call_first = r->t_call_last = t0;
	if (read_ms)
		r->t_read_first = r->t_read_last = t0 + read_ms * MS;
	if (write_ms)
		r->t_write_first = r->t_write_last = t0 + write_ms * MS;
	r->t_reply_first = r->t_reply_last = t0 + reply_ms * MS;
	rec_derive(r);
}

static const struct agg_slow *find(const struct agg_snap *s, uint32_t xid)
{
	for (size_t i = 0; i < s->nslow; i++)
		if (s->slow[i].xid == xid)
			return &s->slow[i];
	return NULL;
}

/* Feeds every line of buf to a fresh reader; returns its last result. */
static int read_all(char *buf, struct agg_snap *out, char *err, size_t errlen)
{
	struct ctl_reader rd = { { 0 } };
	int rc = 0;
	memset(out, 0, sizeof(*out));
	for (char *line = strtok(buf, "\n"); line && (rc = ctl_read_line(&rd, out, line, err, errlen)) == 0;)
		line = strtok(NULL, "\n");
	return rc;
}

int main(void)
{
	struct agg *a = agg_new(&(struct agg_config){ 0 });
	struct nfsrdma_record r;
	const uint64_t t0 = 1700000000000000000ull;

	CHECK(a != NULL, "agg_new");
	/* over TCP: call, queue+server and reply; no queue, pull, server, push, wait */
	rec(&r, 0x100, REC_TR_TCP, t0, 0, 0, 7);
	agg_add(a, &r, 0);
	/* an RDMA WRITE with its arguments pulled: every phase but push and wait */
	rec(&r, 0x200, REC_TR_RDMA, t0 + MS, 2, 0, 9);
	agg_add(a, &r, 0);
	const uint32_t tcp_mask = 1u << REC_PH_CALL | 1u << REC_PH_QUEUE_SERVER | 1u << REC_PH_REPLY;
	const uint32_t pull_mask = 1u << REC_PH_CALL | 1u << REC_PH_QUEUE | 1u << REC_PH_PULL | 1u << REC_PH_SERVER |
				   1u << REC_PH_REPLY;

	struct agg_snap s = { 0 };
	CHECK(agg_snapshot(a, 0, &s) == 0 && s.nslow == 2, "snapshot with two slow RPCs (%zu)", s.nslow);
	const struct agg_slow *tcp = find(&s, 0x100), *rdma = find(&s, 0x200);
	CHECK(tcp && tcp->phase_mask == tcp_mask, "TCP: call, queue+server, reply (0x%x)", tcp ? tcp->phase_mask : 0);
	CHECK(rdma && rdma->phase_mask == pull_mask, "RDMA with a pull: no queue+server, push, wait (0x%x)",
	      rdma ? rdma->phase_mask : 0);
	CHECK(tcp && tcp->phase[REC_PH_QUEUE_SERVER] == 7 * MS, "TCP: its time in queue+server");

	/* the wire: every S line has its SP line with the mask */
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	ctl_write_snap(mf, &s);
	fclose(mf);
	CHECK(strstr(buf, "\nSP\t0x00000100\t" ) != NULL, "SP line of 0x100");
	char err[128] = "";
	struct agg_snap b;
	int rc = read_all(buf, &b, err, sizeof(err));
	CHECK(rc == 1, "round trip ends at END (%d %s)", rc, rc < 0 ? err : "");
	const struct agg_slow *btcp = find(&b, 0x100), *brdma = find(&b, 0x200);
	CHECK(btcp && btcp->phase_mask == tcp_mask && brdma && brdma->phase_mask == pull_mask,
	      "round trip keeps both masks");
	agg_snap_free(&b);
	free(buf);

	/* a daemon before 2.2: S lines alone, every phase taken as seen */
	char old[512];
	snprintf(old, sizeof(old), "S\t0x00000300\t1\tNFSv3 GETATTR\t10.0.0.2\t10.0.0.1\t5\t4" "\t1\t0\t0\t0\t3\t0\t0\t0\nEND\n");
	rc = read_all(old, &b, err, sizeof(err));
	CHECK(rc == 1 && b.nslow == 1 && b.slow[0].phase_mask == AGG_SLOW_ALL_PHASES && b.slow[0].phase[4] == 3,
	      "2.1 S line alone: all phases (%d %s)", rc, rc < 0 ? err : "");
	agg_snap_free(&b);

	/* SP lines that do not fit are refused, one error each */
	static const char *const badsp[] = {
		"SP\t0x00000300\t1\n",                                   /* no S before it */
		"S\t0x00000300\t1\top\tc\ts\t5\t4\t1\t0\t0\t0\t3\t0\t0\t0\nSP\t0x00000301\t1\n",   /* another xid */
		"S\t0x00000300\t1\top\tc\ts\t5\t4\t1\t0\t0\t0\t3\t0\t0\t0\nSP\t0x00000300\t256\n", /* a ninth phase */
		"S\t0x00000300\t1\top\tc\ts\t5\t4\t1\t0\t0\t0\t3\t0\t0\t0\nSP\t0x00000300\n",      /* no mask */
		"S\t0x00000300\t1\top\tc\ts\t5\t4\t1\t0\t0\t0\t3\t0\t0\t0\nSP\t0x00000300\tx\n",   /* not a number */
	};
	for (size_t i = 0; i < sizeof(badsp) / sizeof(badsp[0]); i++) {
		char line[256];
		snprintf(line, sizeof(line), "%s", badsp[i]);
		err[0] = 0;
		rc = read_all(line, &b, err, sizeof(err));
		CHECK(rc == -EPROTO && strstr(err, "slow-XID phases"), "bad SP %zu refused (%d %s)", i, rc, err);
		agg_snap_free(&b);
	}

	/* the probes' cost (2.5): written only when the daemon has it, read back exactly */
	s.has_probe_cost = true;
	s.probe_run_ns = 47864800;
	s.probe_runs = 1085;
	s.probe_records = 173;
	buf = NULL;
	mf = open_memstream(&buf, &len);
	ctl_write_snap(mf, &s);
	fclose(mf);
	CHECK(strstr(buf, "\nPC\t47864800\t1085\t173\n") != NULL, "PC line written");
	rc = read_all(buf, &b, err, sizeof(err));
	CHECK(rc == 1 && b.has_probe_cost && b.probe_run_ns == 47864800 && b.probe_runs == 1085 && b.probe_records == 173,
	      "PC line read back (%d %s)", rc, rc < 0 ? err : "");
	agg_snap_free(&b);
	free(buf);
	char nopc[] = "END\n";
	rc = read_all(nopc, &b, err, sizeof(err));
	CHECK(rc == 1 && !b.has_probe_cost, "no PC line: no cost (%d %s)", rc, rc < 0 ? err : "");
	agg_snap_free(&b);
	static const char *const badpc[] = { "PC\t1\t2\n", "PC\t1\tx\t3\n", "PC\t1\t2\t3\t4\n" };
	for (size_t i = 0; i < sizeof(badpc) / sizeof(badpc[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "%s", badpc[i]);
		err[0] = 0;
		rc = read_all(line, &b, err, sizeof(err));
		CHECK(rc == -EPROTO && strstr(err, "probe cost"), "bad PC %zu refused (%d %s)", i, rc, err);
		agg_snap_free(&b);
	}

	/* the probes' RPCs in flight (2.6): a line a side probed, read back exactly */
	s.inflight_sides = 1;
	s.inflight[0] = (struct agg_inflight){ .in_flight = 3, .oldest_ns = 12500000000ull, .stalled = 2,
					       .abandoned = 1, .stall_after_ns = 5000000000ull };
	buf = NULL;
	mf = open_memstream(&buf, &len);
	ctl_write_snap(mf, &s);
	fclose(mf);
	CHECK(strstr(buf, "\nIF\tclient\t3\t12500000000\t2\t1\t5000000000\n") != NULL, "IF line written");
	CHECK(strstr(buf, "IF\tserver") == NULL, "no IF line for a side not probed");
	rc = read_all(buf, &b, err, sizeof(err));
	CHECK(rc == 1 && b.inflight_sides == 1 && b.inflight[0].in_flight == 3 && b.inflight[0].oldest_ns == 12500000000ull &&
	      b.inflight[0].stalled == 2 && b.inflight[0].abandoned == 1 && b.inflight[0].stall_after_ns == 5000000000ull,
	      "IF line read back (%d %s)", rc, rc < 0 ? err : "");
	agg_snap_free(&b);
	free(buf);
	rc = read_all(nopc, &b, err, sizeof(err));
	CHECK(rc == 1 && !b.inflight_sides, "no IF line: no sides (%d %s)", rc, rc < 0 ? err : "");
	agg_snap_free(&b);
	/* short, a side that is none, a number that is not, more stalled than in flight */
	static const char *const badif[] = { "IF\tclient\t1\t2\t0\t0\n", "IF\tboth\t1\t2\t0\t0\t5\n",
					     "IF\tserver\t1\tx\t0\t0\t5\n", "IF\tclient\t1\t2\t3\t0\t5\n" };
	for (size_t i = 0; i < sizeof(badif) / sizeof(badif[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "%s", badif[i]);
		err[0] = 0;
		rc = read_all(line, &b, err, sizeof(err));
		CHECK(rc == -EPROTO && strstr(err, "in flight"), "bad IF %zu refused (%d %s)", i, rc, err);
		agg_snap_free(&b);
	}

	agg_snap_free(&s);
	agg_free(a);
	return check_summary("ctl-slow");
}
