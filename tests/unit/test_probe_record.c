/* Server and client probe events of the 6.1 and 6.12 shapes turned into
 * records (src/probe/probe_record.c): where the result push ends with and
 * without a completion for it, and the client's transport id.  Times are
 * hand-picked ns; expected values are written out, not computed. */
#include <string.h>

#include "check.h"
#include "dissect/record_names.h"
#include "src/probe/probe_record.h"

/* decode 1000, process 2000, stats 5000, chunk post 5100, Send post 5200,
 * Send completion 9000: a server RPC with a Reply chunk */
static struct probe_event server_event(void)
{
	struct probe_event e;

	memset(&e, 0, sizeof(e));
	e.side = PROBE_SIDE_SERVER;
	e.xid = 0x1234;
	e.seen = PS_DECODE | PS_PROCESS | PS_STATS | PS_WRITE | PS_SEND_DONE;
	memcpy(e.prog, "nfsd", 5);
	memcpy(e.procname, "READDIR", 8);
	e.vers = 3;
	e.proc = 16;
	e.n_writes = 1;
	e.t[PT_DECODE] = 1000;
	e.t[PT_PROCESS] = 2000;
	e.t[PT_STATS] = 5000;
	e.t[PT_WRITE_POST] = 5100;
	e.t[PT_SEND_POST] = 5200;
	e.t[PT_SEND_DONE] = 9000;
	return e;
}

static void phases_add_up(const struct nfsrdma_record *r, const char *what)
{
	uint64_t sum = 0;

	for (unsigned ph = 0; ph < REC_PH_N; ph++)
		sum += r->d_phase[ph];
	CHECK(rec_total_known(r) && sum == r->d_total, "%s: phases %llu, total %llu", what,
	      (unsigned long long)sum, (unsigned long long)r->d_total);
}

int main(void)
{
	struct probe_event e = server_event();
	struct nfsrdma_record r;

	/* 6.1 wc_write, or 6.12 wc_reply, joined: the push ends at it */
	e.t[PT_WRITE_DONE] = 7000;
	e.seen |= PS_WRITE_DONE;
	probe_to_record(&e, &r);
	CHECK_EQ_U64(r.t_write_first, 5100);
	CHECK_EQ_U64(r.t_write_last, 7000);
	CHECK_EQ_U64(r.d_phase[REC_PH_PUSH], 1900);
	CHECK_EQ_U64(r.d_total, 8000);
	phases_add_up(&r, "push completion seen");

	/* 6.12 without svcrdma_wc_reply: the push ends at the Send's completion */
	e = server_event();
	probe_to_record(&e, &r);
	CHECK_EQ_U64(r.t_write_last, 9000);
	CHECK_EQ_U64(r.d_phase[REC_PH_PUSH], 3900);
	CHECK_EQ_U64(r.d_phase[REC_PH_WAIT], 0);
	CHECK_EQ_U64(r.d_phase[REC_PH_REPLY], 0);
	CHECK_EQ_U64(r.d_total, 8000);
	phases_add_up(&r, "Send completion");

	/* nor svcrdma_wc_send: at the Send's post */
	e.t[PT_SEND_DONE] = 0;
	e.seen &= ~(unsigned)PS_SEND_DONE;
	probe_to_record(&e, &r);
	CHECK_EQ_U64(r.t_write_last, 5200);
	CHECK_EQ_U64(r.t_reply_last, 5200);
	CHECK_EQ_U64(r.d_total, 4200);
	phases_add_up(&r, "Send post");

	/* client: 6.12 names the transport, 6.1 leaves it 0 */
	struct probe_event c;
	memset(&c, 0, sizeof(c));
	c.side = PROBE_SIDE_CLIENT;
	c.xid = 0x99;
	c.client_id = 4;
	c.xprt_id = 7;
	c.seen = PS_BEGIN | PS_STATS;
	memcpy(c.prog, "nfs", 4);
	memcpy(c.procname, "GETATTR", 8);
	c.vers = 3;
	c.t[PT_BEGIN] = 100;
	c.t[PT_DONE] = 900;
	probe_to_record(&c, &r);
	CHECK_EQ_U64(r.k_xprt_id, 7);
	CHECK_EQ_U64(r.conn_id, 4);
	c.xprt_id = 0;
	probe_to_record(&c, &r);
	CHECK_EQ_U64(r.k_xprt_id, 0);

	/* the raw view carries it */
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	if (f) {
		c.xprt_id = 7;
		probe_event_json(f, &c);
		fclose(f);
	}
	CHECK(strstr(buf, "\"client_id\":4,\"task_id\":0,\"xprt_id\":7,") != NULL, "raw JSON: %s", buf);

	/* The kernel's MOUNT client names MNT "MOUNT": the lab's client.trace
	 * (tests/captures/smoke.truth) has "rpc_stats_latency: ... xid=0x05a52889
	 * mountv3 MOUNT backlog=131 rtt=46025 execute=46390"; the wire
	 * decoder names the same call MOUNTv3 MNT. */
	memset(&c, 0, sizeof(c));
	c.side = PROBE_SIDE_CLIENT;
	c.xid = 0x05a52889;
	c.seen = PS_BEGIN | PS_STATS;
	memcpy(c.prog, "mount", 6);
	memcpy(c.procname, "MOUNT", 6);
	c.vers = 3;
	c.t[PT_BEGIN] = 100;
	c.t[PT_DONE] = 46490;
	probe_to_record(&c, &r);
	char nb[64];
	CHECK_EQ_U64(r.prog, 100005);
	CHECK_EQ_U64(r.proc, 1);
	CHECK(!strcmp(rec_name_str(&r, nb, sizeof(nb)), "MOUNTv3 MNT"), "kernel MOUNT: %s", nb);
	memcpy(c.procname, "UMOUNT", 7);
	probe_to_record(&c, &r);
	CHECK(!strcmp(rec_name_str(&r, nb, sizeof(nb)), "MOUNTv3 UMNT"), "kernel UMOUNT: %s", nb);
	memcpy(c.procname, "NULL", 5);   /* "mountv3 NULL" in the same trace */
	probe_to_record(&c, &r);
	CHECK(!strcmp(rec_name_str(&r, nb, sizeof(nb)), "MOUNTv3 NULL"), "kernel NULL: %s", nb);
	/* statd's kernel client (fs/lockd/mon.c) says MONITOR for SM_MON */
	memcpy(c.prog, "statd", 6);
	memcpy(c.procname, "MONITOR", 8);
	c.vers = 1;
	probe_to_record(&c, &r);
	CHECK_EQ_U64(r.proc, 2);
	CHECK(!strcmp(rec_name_str(&r, nb, sizeof(nb)), "NSMv1 MON"), "kernel MONITOR: %s", nb);
	/* program names as each side's kernel has them: the client's struct
	 * rpc_program "nfs", the server's svc_program "nfsd"; the others the
	 * same on both sides; a name of the other side is not taken */
	CHECK_EQ_U64(probe_prog_number("nfs", PROBE_SIDE_CLIENT), 100003);
	CHECK_EQ_U64(probe_prog_number("nfsd", PROBE_SIDE_SERVER), 100003);
	CHECK_EQ_U64(probe_prog_number("nfs", PROBE_SIDE_SERVER), 0);
	CHECK_EQ_U64(probe_prog_number("nfsd", PROBE_SIDE_CLIENT), 0);
	CHECK_EQ_U64(probe_prog_number("lockd", PROBE_SIDE_CLIENT), 100021);
	CHECK_EQ_U64(probe_prog_number("lockd", PROBE_SIDE_SERVER), 100021);
	CHECK_EQ_U64(probe_prog_number("nfsacl", PROBE_SIDE_SERVER), 100227);
	CHECK_EQ_U64(probe_prog_number("nope", PROBE_SIDE_CLIENT), 0);
	return check_summary("probe_record");
}
